"""Aggregates and comprehensions over a fixed number of seats written into the expression that uses them
(interpreter/codegen/inline_aggregates.py): the generated text has no loop function for them, reads a filter's
loop-invariant side once, and every compile mode, with the writing-out on and off, plays the same games and
stops with the same errors."""
from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator

import pytest
from liturgy.interpreter.codegen import inline_aggregates
from mode_helpers import MODES, compiled, played_in_every_mode

RULES = '''game "Seats" { players 2..2
  step_limit 400 }
enum Move { pass, bet }
counter per player stake 0..20 = 1
flag per player bettor
counter total 0..100000
counter seen 0..100000
fn pot() -> int = sum(q.stake for q in players)
round {
  step bets "Bets" {
    for p in players {
      choose m from Move by p {
        if m == bet {
          p.stake += 1
          p.bettor = true
        }
        log "{} plays {} into {}", p, m, pot()
      }
    }
  }
  step sums "Sums" {
    let opened = [q for q in players where q.bettor]
    let everyone = [q for q in players]
    let b = any(q.bettor for q in players)
    total += pot() + sum(q.stake for q in players where q.bettor) + size(everyone)
    total += count(q for q in players where q.stake > 1 or not b)
    if any(q.bettor for q in players) { seen += 1 }
    if all(q.bettor for q in players) { seen += 10 }
    if not all(q.stake > 1 for q in players) { seen += 1000 }
    total += max(q.stake for q in players) * 3 + min(q.stake * 2 for q in players)
    let top = max(q.stake for q in opened)
    total += top + count(q for q in opened where q.stake > top - 1)
    for p in [q for q in opened where q.stake >= top] { seen += 2 }
    if any(q.stake > 1 for q in opened) { seen += 3 } else { seen += 5 }
    if not all(q.stake > 1 for q in opened) { seen += 7 }
    if size(opened) > 0 {
      for p in [q for q in players_from(opened[0]) where q != opened[0]] { seen += 100 }
      total += count(q for q in players where opened[0] == q)
    }
    if total > 60 { end game }
  }
}
score(p) = if p.bettor then pot() - p.stake else total + seen
'''


@pytest.fixture
def written_out(request: pytest.FixtureRequest) -> Iterator[bool]:
    saved = inline_aggregates.ENABLED
    inline_aggregates.ENABLED = request.param
    try:
        yield request.param
    finally:
        inline_aggregates.ENABLED = saved


def _plays(path: str, seed: int) -> list[object]:
    return played_in_every_mode(lambda mode: compiled(path, mode), seed)


def test_seat_aggregates_are_written_out(write_ruleset: Callable[..., str]) -> None:
    gen = compiled(write_ruleset(RULES), {}).compiled.gen
    assert gen is not None
    text = gen.sources.dump()
    # every aggregate over the two seats is an expression, and those over `opened` that are a statement's whole
    # value are loops in the statement: the one loop function left is the `count` inside `top + count(…)`
    loops = [t for t in text.split("\n\n") if "liturgy loop" in t]
    assert len(loops) == 1 and "_r += 1" in loops[0], loops
    assert "(_cs[4] + _cs[6])" in text  # pot(): the two stakes' slots, no loop, no multiply
    assert "(((0,) if _cs[5] else ()) + ((1,) if _cs[7] else ()))" in text  # `opened`
    # over `opened`, a list of any length: the loop written into the statement, a running value, no call
    assert re.search(r"env\['top'\] = _E\d+ = 0 if _r\d+ is _MISSING else _r\d+", text), text
    assert re.search(r"_r\d+ = True\n +break\n +if _r\d+:\n", text), text  # `if any(…)`: the loop, then the test
    assert re.search(r"_r\d+ = False\n +break\n +if \(not _r\d+\):\n", text), text  # `if not all(…)`
    assert "max(_cs[4], _cs[6])" in text  # the built-in over the items: its comparisons, its tie rule
    assert "if (not ((not _cs[5]) or (not _cs[7]))):" in text  # `all`, tested: no True/False
    # players_from(opened[0]): its list once, each seat in a name, `opened[0]` of the filter read once
    assert re.search(r"\(_u\d+ := \(_w\d+ := s\.tables\.turn_orders\[", text), text
    hoisted = r"\(\(_u(\d+),\) if \(_u\1 != (_h\d+)\) else \(\)\) \+ \(\(_u(\d+),\) if \(_u\3 != \2\)"
    assert re.search(hoisted, text), text


@pytest.mark.parametrize("written_out", [True, False], indirect=True)
def test_written_out_plays_as_the_loops(write_ruleset: Callable[..., str], written_out: bool) -> None:
    path = write_ruleset(RULES)
    for seed in range(8):
        seen = _plays(path, seed)
        assert all(x == seen[0] for x in seen), seed
        assert seen[0][1] is None, seen[0][1]


def test_the_same_games_with_and_without(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(RULES)
    saved = inline_aggregates.ENABLED
    try:
        runs = []
        for on in (True, False):
            inline_aggregates.ENABLED = on
            runs.append([_plays(path, seed)[0] for seed in range(8)])
    finally:
        inline_aggregates.ENABLED = saved
    assert runs[0] == runs[1]


# `opened[0]` of an empty list, read once before the seats: the error the first seat's filter raises
FAILING = RULES.replace("if size(opened) > 0 {", "if true {")


@pytest.mark.parametrize("written_out", [True, False], indirect=True)
def test_an_invariant_read_fails_as_the_first_item_does(write_ruleset: Callable[..., str], written_out: bool) -> None:
    path = write_ruleset(FAILING)
    outcomes = set()
    for seed in range(8):
        errors = []
        for mode in MODES:
            game = compiled(path, mode).new_game(2, seed)
            game.random_playout(random.Random(seed))
            errors.append((game.error, game.digest()))
        assert all(x == errors[0] for x in errors), errors
        outcomes.add(errors[0][0] is None)
        assert errors[0][0] is None or "index 0" in errors[0][0], errors[0][0]
    assert outcomes == {True, False}  # some games open a bet, some do not


def test_a_game_of_several_seat_counts_keeps_its_loops(write_ruleset: Callable[..., str]) -> None:
    """`players 2..3`: the seats are not known when the ruleset compiles, so the loops stay."""
    path = write_ruleset(RULES.replace("players 2..2", "players 2..3"))
    gen = compiled(path, {}).compiled.gen
    assert gen is not None
    assert "liturgy loop" in gen.sources.dump()
    for seed in range(4):
        seen = _plays(path, seed)
        assert all(x == seen[0] for x in seen), seed


SEAT_LIST = '''game "Seat lists" { players 2..3
  step_limit 400 }
counter per player stake 0..20 = 1
counter total 0..100000
fn stake_of(p: player) -> int = p.stake
round {
  step s "S" {
    for p in players {
      choose k from range(3) by p { p.stake += k }
    }
    let rich = [q for q in players where q.stake > 1]
    total += 1
    let best = max(stake_of(q) for q in rich)
    for p in rich { total += stake_of(p) + best }
    if total > 40 { end game }
  }
}
score(p) = p.stake + total
'''


def test_a_let_of_seats_is_known_to_hold_seats(write_ruleset: Callable[..., str]) -> None:
    """`let rich = [q for q in players where …]` that nothing rebinds: a loop over `rich` calling an inlined `fn`
    with its variable tests no item for `none`; rebound later in the block, the tests stay."""
    for rules, tested in ((SEAT_LIST, False),
                          (SEAT_LIST.replace("    if total > 40", "    rich = [q for q in players]\n    if total > 40"),
                           True)):
        path = write_ruleset(rules)
        gen = compiled(path, {}).compiled.gen
        assert gen is not None
        assert ("_no_card('no player')" in gen.sources.dump()) == tested
        for seed in range(6):
            seen = _plays(path, seed)
            assert all(x == seen[0] for x in seen), seed
            assert seen[0][1] is None, seen[0][1]
