"""Betrayal's first player (rulebook L84): "the player whose character has the nearest upcoming birthday goes
first", then play goes clockwise. The ruleset draws the day of the game at random and tells the players which
day it is; this test reads that day from the log and works out who goes first with Python's calendar from the
birthdays printed on the character cards (`cards/betrayal/characters.yaml`, month and day), independent of the
ruleset's own day numbers, for many seeds and every player count.
"""

from __future__ import annotations

import datetime
import random
import re
from pathlib import Path

import pytest
import yaml
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset

ROOT = Path(__file__).resolve().parents[1]
DAY = re.compile(r"^the game is played on (\d+) (\w+): P(\d) has the nearest birthday and goes first$")
PLAYS = re.compile(r"^P(\d) plays (.+)$")
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]


@pytest.fixture(scope="module")
def betrayal() -> Ruleset:
    return load_ruleset(str(ROOT / "rulesets" / "betrayal.rules"))


def _birthdays() -> dict[str, tuple[int, int]]:
    """Each explorer's printed birthday, (month, day), from the source card file."""
    cards = yaml.safe_load((ROOT / "cards" / "betrayal" / "characters.yaml").read_text(encoding="utf-8"))["cards"]
    return {c["name"]: (c["birthday"]["month"], c["birthday"]["day"]) for c in cards}


def _days_until(today: datetime.date, month: int, day: int) -> int:
    """Days from ``today`` to the next ``month``/``day`` (0 when it is today), in a year without 29 February."""
    for year in (today.year, today.year + 1):
        when = datetime.date(year, month, day)
        if when >= today:
            return (when - today).days
    raise AssertionError("no birthday within a year")


def _set_up(game: Game, rng: random.Random) -> tuple[datetime.date, int, dict[int, str]]:
    """Choose explorers at random until the first turn; the day of the game, the first player (0-based) the log
    names, and each player's explorer."""
    while game.decision is not None and any("explorer" in (game.decision.prompts.get(p) or "")
                                            for p in game.waiting_for()):
        p = game.waiting_for()[0]
        game.apply(rng.randrange(game.option_count(p)), p)
    lines = game.log_lines(0)
    heroes = {int(m[1]) - 1: m[2] for m in map(PLAYS.match, lines) if m}
    told = [m for m in map(DAY.match, lines) if m]
    assert len(told) == 1, lines
    day, month, first = int(told[0][1]), MONTHS.index(told[0][2]) + 1, int(told[0][3]) - 1
    return datetime.date(2001, month, day), first, heroes  # 2001: no 29 February, as the ruleset's year


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_nearest_upcoming_birthday_goes_first_then_clockwise(betrayal: Ruleset, players: int) -> None:
    born = _birthdays()
    days_seen: set[datetime.date] = set()
    for seed in range(12):
        game = betrayal.new_game(players, seed)
        today, first, heroes = _set_up(game, random.Random(seed))
        days_seen.add(today)
        until = {p: _days_until(today, *born[heroes[p]]) for p in range(players)}
        nearest = min(until.values())
        assert [p for p, d in until.items() if d == nearest] == [first], (seed, today, heroes)
        # the first turn is the first player's, and the next ones go clockwise (seat order) from it
        order = []
        for _ in range(players):
            p = game.waiting_for()[0]
            order.append(p)
            game.apply(game.decision.options[p].index("end_turn"), p)
        assert order == [(first + k) % players for k in range(players)], (seed, order)
    assert len(days_seen) > 6  # the day of the game is drawn, not fixed


def test_the_day_told_is_a_real_date(betrayal: Ruleset) -> None:
    for seed in range(60):
        game = betrayal.new_game(3, seed)
        today, _, _ = _set_up(game, random.Random(seed))  # datetime.date refuses 30 February
        assert 1 <= today.day <= 31
