"""Command-line numbers, checked where they are parsed: a whole number in a range, a finite number of seconds.

An argument is untrusted input like any other: ``--seconds nan`` once hung `bench`, ``--jobs 1000`` forked a
thousand workers for three games and ``--players -1`` reached the seat assignment. Each numeric option names its
range here, and argparse prints the one-line usage error (exit 2) before any work starts.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

MAX_PLAYERS = 64
MAX_SEED = (1 << 64) - 1
MAX_GAMES = 10_000_000  # simulate keeps no list per game (tools/cluster/chunks.py); this bounds a run's length


def whole(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``lo`` to ``hi``."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip()) if len(text) <= 40 else None
        except ValueError:
            value = None
        if value is None or not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number from {lo} to {hi}")
        return value

    parse.__name__ = "whole number"
    return parse


def seconds(lo: float, hi: float) -> Callable[[str], float]:
    """An argparse type: a finite number of seconds from ``lo`` to ``hi`` (never nan or inf)."""

    def parse(text: str) -> float:
        try:
            value = float(text) if len(text) <= 40 else math.nan
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and lo <= value <= hi):
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number of seconds from {lo:g} to {hi:g}")
        return value

    parse.__name__ = "seconds"
    return parse


PLAYERS = whole(1, MAX_PLAYERS)
PLAYERS_OR_DEFAULT = whole(0, MAX_PLAYERS)  # 0: the ruleset's own default
SEED = whole(0, MAX_SEED)
GAMES = whole(1, MAX_GAMES)
JOBS = whole(1, 256)


class UsageError(ValueError):
    """Bad command-line input (an option's value, a player count, a file named where another kind is needed):
    printed as one line, exit 2. Every other failure of a command exits 1 (interpreter/tools/cli.py, ``main``).

    A subclass of ValueError so library callers that catch ValueError (the engine's own refusals) keep working;
    the CLI tells the two apart, so a stray ValueError from a bug is never reported as the user's mistake."""
