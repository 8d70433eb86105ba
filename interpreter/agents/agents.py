"""Agents choose among the legal options of a decision.

An agent is any object with ``choose(game, player) -> int``; the random agent
draws from its own seeded RNG (never the game's), so an agent's randomness
cannot change the game's own dice and shuffles.
"""

from __future__ import annotations

import random
from typing import Protocol

from liturgy.interpreter.agents.terminal import HumanAgent
from liturgy.interpreter.engine import Game

__all__ = ["Agent", "FirstAgent", "HumanAgent", "RandomAgent", "make_agent", "play_out"]


class Agent(Protocol):
    def choose(self, game: Game, player: int) -> int: ...


class RandomAgent:
    """Uniform over the legal options, reproducible from its seed."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game, player: int) -> int:
        return self.rng.randrange(game.option_count(player))


class FirstAgent:
    """Always the first legal option: a deterministic baseline."""

    def choose(self, game: Game, player: int) -> int:
        return 0


def make_agent(kind: str, seed: int) -> Agent:
    if kind == "random":
        return RandomAgent(seed)
    if kind == "first":
        return FirstAgent()
    if kind == "human":
        return HumanAgent()
    raise ValueError(f"unknown agent {kind!r}: use human, random or first")


def play_out(game: Game, agents: list[Agent]) -> Game:
    """Drive a game to its end with one agent per seat."""
    while not game.finished:
        for p in game.waiting_for():
            game.apply(agents[p].choose(game, p), p)
    return game
