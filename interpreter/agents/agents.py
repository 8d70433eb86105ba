"""Agents choose among the legal options of a decision.

An agent is any object with ``choose(game, player) -> int``; the random agent
draws from its own seeded RNG (never the game's), so an agent's randomness
cannot change the game's own dice and shuffles.
"""

from __future__ import annotations

import os
import random
from typing import Protocol

from liturgy.interpreter.agents.ismcts import Budget, ISMCTSAgent
from liturgy.interpreter.agents.terminal import HumanAgent
from liturgy.interpreter.engine import Game
from liturgy.interpreter.runtime.rng import seed_state

__all__ = ["Agent", "FirstAgent", "HumanAgent", "ISMCTSAgent", "RandomAgent", "bot_seed", "make_agent", "play_out",
           "secret_seed"]


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


def secret_seed() -> int:
    """A 64-bit seed from the operating system's randomness: what a game or a bot uses when given none."""
    return int.from_bytes(os.urandom(8), "little")


def bot_seed(base: int, seat: int) -> int:
    """Seat ``seat``'s bot seed from a ``--bot-seed``: one SplitMix64 output per seat, unrelated to any game seed."""
    return seed_state((base + seat * 0x9E3779B97F4A7C15) & ((1 << 64) - 1))


def make_agent(kind: str, seed: int | None = None) -> Agent:
    """The agent a seat name asks for: human, random, first, or ismcts (``ismcts:N``, ``ismcts:Nms``,
    ``ismcts:N:score``: see :mod:`.ismcts`). ``seed`` None: the bot's randomness comes from the operating system."""
    if kind == "random":
        return RandomAgent(seed if seed is not None else secret_seed())
    if kind == "first":
        return FirstAgent()
    if kind == "human":
        return HumanAgent()
    if kind == "ismcts" or kind.startswith("ismcts:"):
        budget, reward = Budget.parse(kind)
        return ISMCTSAgent(budget, seed, reward)
    raise ValueError(f"unknown agent {kind!r}: use human, random, first or ismcts[:N|:Nms][:score]")


def play_out(game: Game, agents: list[Agent]) -> Game:
    """Drive a game to its end with one agent per seat."""
    while not game.finished:
        for p in game.waiting_for():
            game.apply(agents[p].choose(game, p), p)
    return game
