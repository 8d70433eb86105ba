"""Agents choose among the legal options of a decision.

An agent is any object with ``choose(game, player) -> int``; the random agent
draws from its own seeded RNG (never the game's), so an agent's randomness
cannot change the game's own dice and shuffles.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Protocol, TextIO

from .engine import Game


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


class HumanAgent:
    """Terminal prompts: shows only the player's own view, asks for an option number."""

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.seen_log: dict[int, int] = {}

    def _print(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def choose(self, game: Game, player: int) -> int:
        view = game.view(player)
        lines = view["log"]
        start = self.seen_log.get(player, 0)
        self._print()
        self._print(f"===== P{player + 1}'s turn to decide =====")
        for line in lines[start:]:
            self._print(f"  {line}")
        self.seen_log[player] = len(lines)
        self._print(_summary(view, player))
        decision = game.decision
        assert decision is not None
        options = decision.options[player]
        secret = " (others see only that you have chosen)" if decision.simultaneous else ""
        self._print(f"P{player + 1}, {decision.prompt}{secret}:")
        for i, label in enumerate(options):
            self._print(f"  [{i + 1}] {label}")
        while True:
            self.stdout.write(f"P{player + 1}> ")
            self.stdout.flush()
            answer = self.stdin.readline()
            if not answer:
                raise EOFError("input ended before the game did")
            answer = answer.strip()
            if answer in ("?", "view"):
                self._print(json.dumps(view, indent=1))
                continue
            if answer.isdigit() and 1 <= int(answer) <= len(options):
                return int(answer) - 1
            self._print(f"  please type a number from 1 to {len(options)} (or `view` to see everything you can see)")


# a public zone longer than this is shown by its first cards and a count
LONG_ZONE = 8


def _cards(cards: list[str]) -> str:
    if cards and all(c == "?" for c in cards):
        return f"{len(cards)} face down"
    if len(cards) <= LONG_ZONE:
        return ", ".join(cards)
    return ", ".join(cards[:LONG_ZONE]) + f", … ({len(cards)} cards; type `view` for all)"


def _summary(view: dict[str, object], player: int) -> str:
    """A compact text of the player's view for a terminal.

    Own zones in full, others' as cards or counts, face-down piles on one line,
    long zones cut short, and only counters that are not zero: a large ruleset
    (Slay the Spire has dozens of zones and counters) must still fit a screen.
    ``view`` at the prompt prints everything.
    """
    me = f"P{player + 1}"
    out = []
    face_down = []
    zones = view["zones"]
    assert isinstance(zones, dict)
    for name, z in zones.items():
        if isinstance(z, dict):
            mine = z.get(me, [])
            others = "; ".join(
                f"{p}: " + _cards(c)
                for p, c in z.items() if p != me and c)
            if mine or others:
                out.append(f"  {name}: {_cards(mine) or '-'}" + (f"   (others: {others})" if others else ""))
        elif z and any(c != "?" for c in z):
            out.append(f"  {name}: {_cards(z)}")
        elif z:
            face_down.append(f"{name} {len(z)}")
    if face_down:
        out.append("  face down: " + ", ".join(face_down))
    counters = view["counters"]
    assert isinstance(counters, dict)
    shown = []
    for name, c in counters.items():
        if isinstance(c, dict) and me in c:
            c = c[me]
        if isinstance(c, dict):
            c = {k: v for k, v in c.items() if v}
            if c:
                shown.append(f"{name}=" + ",".join(f"{k}:{v}" for k, v in c.items()))
        elif c or name in ("first", "round"):
            shown.append(f"{name}={c}")
    out.append("  " + "  ".join(shown))
    return "\n".join(out)


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
