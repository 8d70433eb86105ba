"""Static sizes and int ranges (interpreter/compiler/sizes.py): budget checks that can never fire are left out of
the compiled code, and every check that can fire stays, with the same work count and stop in every compile mode."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.loader import check_file
from liturgy.interpreter.compiler.sizes import Sizes, statements
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.engine.ruleset import Ruleset

MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]

HEAD = ('game "G" {{ players 2..2 {budgets} }}\n'
        "card C {{ v: int = 1 }}\ncard D {{ v: int = 2 }}\n"
        'cards "c.yaml"\ncards "d.yaml"\n'
        "zone pile: pile public of C\nzone other: pile public of D\nzone mixed: pile public\n"
        "counter n 0..1000000\ncounter wide\n")
CARDS = {"c.yaml": "kind: C\nstart: pile\ncards:\n  - name: X\n    count: {c}\n",
         "d.yaml": "kind: D\nstart: other\ncards:\n  - name: Y\n    count: 50\n"}


def _write(write_ruleset: Callable[..., str], body: str, c_cards: int = 40, budgets: str = "") -> str:
    cards = {k: v.format(c=c_cards) for k, v in CARDS.items()}
    return write_ruleset(HEAD.format(budgets=budgets) + body + "\nscore(p) = n\n", cards)


def _program(path: str) -> object:
    program, diags = check_file(path)
    assert program is not None, [str(d) for d in diags]
    return program


def test_bloodborne_compiles_without_checks_that_cannot_fire() -> None:
    """Every flat loop of Bloodborne runs over at most 57 Action cards, five players or an enum: no length test
    is left, and no list `+` is checked (57 + 57 + 1 items are far from the size limit)."""
    rules = load_ruleset("rulesets/bloodborne.rules")
    sizes = Sizes(rules.program)
    assert sizes.cards_of == {None: 87, "Monster": 30, "Action": 57}
    assert sizes.sound == {"Action", "Monster"}
    text = rules.compiled.gen.sources.dump()
    assert "s.work += " in text  # the loops that nest anything are counted
    assert "> 64:" not in text and "_concat_checked" not in text


def test_a_move_of_a_card_of_any_kind_breaks_the_kind_bound(write_ruleset: Callable[..., str]) -> None:
    """A card typed `card` (any kind) moved into a zone that may be `of C` could put a D there: C's bound goes."""
    safe = _program(_write(write_ruleset, 'round { step s "S" { move top(other) to mixed\n end game } }'))
    assert Sizes(safe).sound == {"C", "D"}
    path = _write(write_ruleset, "proc put(c: card) { move c to pile }\n"
                  'round { step s "S" { do put(top(other))\n end game } }')
    assert Sizes(_program(path)).sound == {"D"}


@pytest.mark.parametrize(("count", "work"), [(40, 0), (64, 0), (65, 65), (100, 100)])
def test_a_flat_loop_over_a_zone_counts_exactly_past_64_items(write_ruleset: Callable[..., str], count: int,
                                                              work: int) -> None:
    """The zone of C holds `count` cards (all of them): up to 64 the loop is free, past it every item counts;
    a zone whose kind bound is 64 or less compiles without the test at all, and every mode agrees."""
    path = _write(write_ruleset, 'round { step s "S" { n = count(c for c in pile where c.v > 0)\n end game } }',
                  c_cards=count)
    seen = {(g.state.work, g.result["scores"][0] if g.result else None, g.state.status)
            for g in (Ruleset(_program(path), **mode).new_game(2, 1) for mode in MODES)}  # type: ignore[arg-type]
    assert seen == {(work, count, "finished")}
    sizes = Sizes(_program(path))
    assert sizes.zone_max(None) == count + 50
    assert sizes.cards_of["C"] == count


def test_a_proved_small_loop_stops_nothing_and_an_unproved_one_still_does(
        write_ruleset: Callable[..., str]) -> None:
    """A flat loop over the mixed zone (any kind: up to 150 cards) is still counted past 64 items, and a work
    budget below its count stops the game at the loop's line in every compile mode."""
    body = ("setup { move pile to mixed\n move other to mixed }\n"
            'round { step s "S" { n = count(c for c in mixed)\n end game } }')
    path = _write(write_ruleset, body, c_cards=100, budgets="work_limit 120")
    errors = {Ruleset(_program(path), **mode).new_game(2, 1).error for mode in MODES}  # type: ignore[arg-type]
    assert len(errors) == 1
    (error,) = errors
    assert error is not None and "work budget of 120 units" in error and "at line" in error


@pytest.mark.parametrize(("expr", "proved"), [
    ("n + n", True),  # a counter within 0..1000000
    ("size(pile) * 3 - 7", True),
    ("top(pile).v + 1", True),  # a printed field: 1 on every card
    ("wide + 1", False),  # a counter without bounds: any 64-bit value
    ("n * n * n * n * n", False),  # 10^30 is past 64 bits
    ("-(n - 5)", True),
    ("sum(n for p in players) + 1", True),  # at most 2 players (session 18: sums, mins and maxes)
    ("sum(c.v for c in pile where c.v > 0) * 2 - 1", True),  # at most 40 cards of 1
    ("max(c.v for c in mixed) - min(n for p in players)", True),  # an empty max or min is 0
    ("sum(wide for p in players) + 1", False),  # unbounded elements
    ("sum(n * 1000000000000 for p in players) * 10", False),  # each 10^18, two of them: 2*10^19 is past 2^62
])
def test_int_ranges(write_ruleset: Callable[..., str], expr: str, proved: bool) -> None:
    path = _write(write_ruleset, f'round {{ step s "S" {{ wide = {expr}\n end game }} }}')
    program = _program(path)
    sizes = Sizes(program)
    (assign,) = [n for n in statements(program) if isinstance(n, A.Assign)]
    assert sizes.safe(assign.value) is proved


def test_an_unproved_overflow_still_stops_the_game(write_ruleset: Callable[..., str]) -> None:
    path = _write(write_ruleset, 'round { step s "S" { wide = 4611686018427387904\n wide = wide + wide\n'
                  " end game } }")
    for mode in MODES:
        game = Ruleset(_program(path), **mode).new_game(2, 1)  # type: ignore[arg-type]
        assert game.error is not None and "integer overflow at line" in game.error
