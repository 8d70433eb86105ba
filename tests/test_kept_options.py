"""Kept options (interpreter/codegen/kept.py): a choice whose options the program proves can only shrink is
filtered from its last options, and must offer exactly what the full scan offers, in the same order."""

from __future__ import annotations

import random
import re
import textwrap
from collections.abc import Callable

import pytest
from conftest import ROOT
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset, load_ruleset

CELLS = "kind: Spot\nstart: spots\ncards:\n" + "".join(
    f"  - name: \"s{c}{r}\"\n    c: {c}\n    r: {r}\n" for r in range(3) for c in range(3))

PLACE = textwrap.dedent('''\
    game "Fill" { players 2..2 }
    card Spot { c: int
                r: int }
    cards "spots.yaml"
    zone spots: row public of Spot
    grid board 3 by 3 of player
    round {
      step place "Place" {
        for p in players {
          choose m from spots where board[m.c, m.r] == none by p { PLACE }
        }
      }
    }
    score(p) = 0
    ''')


def _filter_text(path: str) -> str:
    program, _ = check_file(path)
    assert program is not None
    gen = Ruleset(program).compiled.gen
    assert gen is not None
    return gen.sources.dump()


def _options_played(rules: Ruleset, seed: int) -> list[tuple[int, ...]]:
    """Every decision's option list in one random game."""
    game = rules.new_game(2, seed)
    rng = random.Random(seed)
    seen = []
    while not game.finished:
        p = game.waiting_for()[0]
        state = game.state
        assert state.pending is not None
        seen.append(tuple(state.pending[2]))
        game.apply(rng.randrange(game.option_count(p)), p)
    return seen


def _compiled(path: str, codegen: bool) -> Ruleset:
    program, _ = check_file(path)
    assert program is not None
    return Ruleset(program, codegen=codegen, stmtgen=codegen)


def test_hex_keeps_its_options_and_offers_what_the_closures_offer() -> None:
    path = str(ROOT / "rulesets" / "classic" / "hex.rules")
    fast, slow = _compiled(path, True), _compiled(path, False)
    assert "s.kept" in _filter_text(path)
    for seed in range(4):
        assert _options_played(fast, seed) == _options_played(slow, seed)


def test_a_clone_rebuilds_its_kept_options() -> None:
    """The kept list is not copied: a clone (and a sampled world) starts from a full scan and agrees."""
    rules = load_ruleset(str(ROOT / "rulesets" / "classic" / "hex.rules"))
    game = rules.new_game(2, 3)
    rng = random.Random(3)
    for _ in range(20):
        p = game.waiting_for()[0]
        game.apply(rng.randrange(game.option_count(p)), p)
    assert game.state.kept
    copy = game.clone()
    assert copy.state.kept == {}
    for g in (game, copy):
        p = g.waiting_for()[0]
        g.apply(5, p)
    # the same options kept (the bookkeeping beside them, the fills noted since the game or copy began, differs)
    assert copy.digest() == game.digest() and _kept(copy.state.kept) == _kept(game.state.kept) != {}


def _kept(kept: dict[object, object]) -> dict[object, object]:
    """Each kept filter's options (its entry's first item), without the cells noted as filled."""
    return {k: tuple(v[0]) for k, v in kept.items() if isinstance(k, int) and isinstance(v, tuple)}


SHRINK, RUNS = "_then != _now", "for _sl, _xs in _r"


def _mode(path: str) -> str | None:
    text = _filter_text(path)
    return "shrink" if SHRINK in text else "runs" if RUNS in text else None


@pytest.mark.parametrize(("place", "mode"), [
    ("board[m.c, m.r] = p", "shrink"),
    ("board[m.c, m.r] = none", "runs"),  # a cell can be freed: the options can grow again
    ("let q = if m.c == 0 then none else p\n board[m.c, m.r] = q", "runs"),  # a value that may be none
    ("board[m.c, m.r] = p\n move m to spots", None),  # the zone's cards can move: not the dealt order
])
def test_kept_only_where_the_program_proves_the_options_shrink(write_ruleset: Callable[..., str], place: str,
                                                               mode: str | None) -> None:
    path = write_ruleset(PLACE.replace("PLACE", place), {"spots.yaml": CELLS})
    assert _mode(path) == mode
    fast, slow = _compiled(path, True), _compiled(path, False)
    for seed in range(3):
        assert _options_played(fast, seed) == _options_played(slow, seed)


def test_only_a_player_of_a_loop_over_players_is_trusted(write_ruleset: Callable[..., str]) -> None:
    """`p` of `for p in [none]` is none: a write of it frees a cell."""
    shadow = PLACE.replace("PLACE", "board[m.c, m.r] = p").replace(
        "choose m from spots", "for p in [none] { board[0, 0] = p }\n choose m from spots")
    assert _mode(write_ruleset(shadow, {"spots.yaml": CELLS}, name="shadow.rules")) == "runs"


# two cards on each cell, side by side, and one more card on the first cell at the end: runs of 2, then 1
TWICE = "kind: Spot\nstart: spots\ncards:\n" + "".join(
    f"  - name: \"s{c}{r}{k}\"\n    c: {c}\n    r: {r}\n" for r in range(3) for c in range(3) for k in "ab"
) + "  - name: \"last\"\n    c: 0\n    r: 0\n"


def test_runs_of_cards_on_one_cell_offer_what_the_closures_offer(write_ruleset: Callable[..., str]) -> None:
    """A cell tested against a player, the rest of the test inlined: options in the zone's order."""
    text = PLACE.replace("where board[m.c, m.r] == none", "where board[m.c, m.r] == none and m.r != 1").replace(
        "PLACE", "board[m.c, m.r] = p\n if m.c == 2 { board[0, 0] = none }")
    path = write_ruleset(text, {"spots.yaml": TWICE})
    assert _mode(path) == "runs" and "_c = s.kept.get" not in _filter_text(path)
    fast, slow = _compiled(path, True), _compiled(path, False)
    for seed in range(6):
        assert _options_played(fast, seed) == _options_played(slow, seed)


def test_three_tests_joined_by_and_keep_their_order(write_ruleset: Callable[..., str]) -> None:
    """`A and B and C` is `(A and B) and C`: the cell test is found first, `B and C` follow it in the runs."""
    text = PLACE.replace("where board[m.c, m.r] == none",
                         "where board[m.c, m.r] == none and m.r != 1 and m.c != 1").replace(
        "PLACE", "board[m.c, m.r] = p\n if m.c == 2 { board[0, 0] = none }")
    path = write_ruleset(text, {"spots.yaml": TWICE})
    runs = [line for line in _filter_text(path).splitlines() if RUNS in line]
    assert len(runs) == 1 and runs[0].count(" if ") == 2  # the cell per run, then `B and C` per card
    fast, slow = _compiled(path, True), _compiled(path, False)
    for seed in range(6):
        assert _options_played(fast, seed) == _options_played(slow, seed)


def test_breakthrough_tests_each_cell_once_per_run() -> None:
    path = str(ROOT / "rulesets" / "classic" / "breakthrough.rules")
    assert _mode(path) == "runs"
    # each step card comes with its target's slot and its diagonal test, read from the run, not from tables
    assert re.search(r"for \(_x[0-9]+, _p[0-9]+, _p[0-9]+\) in _xs if", _filter_text(path)), _filter_text(path)
    fast, slow = _compiled(path, True), _compiled(path, False)
    for seed in range(3):
        assert _options_played(fast, seed) == _options_played(slow, seed)


def _options_with_a_hidden_fill(rules: Ruleset, seed: int, fill_at: int, slot: int) -> list[tuple[int, ...]]:
    """Every decision's option list in one random game, with ``slot`` filled behind the statements' back (no
    note) after decision ``fill_at``, as a statement left to the closures would."""
    game = rules.new_game(2, seed)
    rng = random.Random(seed)
    seen = []
    while not game.finished:
        p = game.waiting_for()[0]
        assert game.state.pending is not None
        seen.append(tuple(game.state.pending[2]))
        game.apply(rng.randrange(game.option_count(p)), p)
        if len(seen) == fill_at and not game.finished and game.state.counters[slot] is None:
            game.state.counters[slot] = 1
    return seen


@pytest.mark.parametrize("cards", [CELLS, TWICE], ids=["one-run-a-cell", "two-runs-on-a-cell"])
def test_filled_cells_are_taken_from_the_kept_options(write_ruleset: Callable[..., str], cards: str) -> None:
    """The generated writes note each cell they fill; the filter takes those cells' cards (one or several per
    cell) from the options it kept, and offers what the closures offer."""
    path = write_ruleset(PLACE.replace("PLACE", "board[m.c, m.r] = p"), {"spots.yaml": cards})
    assert _mode(path) == "shrink" and "s.kept.setdefault(('fills', 'board'), []).append(" in _filter_text(path)
    fast, slow = _compiled(path, True), _compiled(path, False)
    for seed in range(6):
        assert _options_played(fast, seed) == _options_played(slow, seed)
    game = fast.new_game(2, 1)
    for _ in range(3):
        game.apply(0, game.waiting_for()[0])
    grid = fast.compiled.layout.grids["board"]
    filled = [i for i in range(grid.base, grid.base + 9) if game.state.counters[i] is not None]
    assert sorted(game.state.kept[("fills", "board")]) == filled and len(filled) == 3


@pytest.mark.parametrize("mode", [{}, {"stmtgen": False}, {"fuse": False}])
def test_a_fill_no_note_saw_is_found_by_comparing_the_grid(mode: dict[str, bool]) -> None:
    """A cell filled where no note is written (the closures' statements with generated filters, or a write the
    generator left to the closures): the grid no longer matches the one kept with the noted cells filled in, and
    the filter scans again."""
    path = str(ROOT / "rulesets" / "classic" / "hex.rules")
    program, _ = check_file(path)
    assert program is not None
    fast, slow = Ruleset(program, **mode), _compiled(path, False)
    base = fast.compiled.layout.grids["board"].base
    for seed in range(3):
        for fill_at, slot in ((1, base + 60), (7, base + 3), (20, base + 120)):
            assert (_options_with_a_hidden_fill(fast, seed, fill_at, slot)
                    == _options_with_a_hidden_fill(slow, seed, fill_at, slot)), (seed, fill_at)


# a cell tested against a value that is a player on some turns and none on others, against an int literal, and
# against none: each run's cell test written for its value (`is None`, or `is not None and ==`)
TESTED = textwrap.dedent('''\
    game "Runs" { players 2..2 }
    card Spot { c: int
                r: int }
    cards "spots.yaml"
    zone spots: row public of Spot
    grid board 3 by 3 of player
    grid worth 3 by 3 of int
    counter turn 0..40 = 0
    round {
      step place "Place" {
        for p in players {
          let q = if turn % 3 != 2 then none else p
          choose m from spots where WHERE by p {
            board[m.c, m.r] = if board[m.c, m.r] == none then p else none
            worth[m.c, m.r] = 1 - worth[m.c, m.r]
          }
          turn += 1
          if turn == 40 { end game }
        }
      }
    }
    score(p) = 0
    ''')


@pytest.mark.parametrize("cards", [CELLS, TWICE], ids=["one-run-a-cell", "two-runs-on-a-cell"])
@pytest.mark.parametrize(("where", "test"), [
    ("board[m.c, m.r] == q and m.r != 1", "if _v is None:"),
    ("worth[m.c, m.r] == 0 and m.c != 1", "_cs[_sl] is not None and _cs[_sl] == _v for"),
    ("board[m.c, m.r] == none and m.c != 2", "_cs[_sl] is None for"),
])
def test_each_runs_cell_test_is_written_for_its_value(write_ruleset: Callable[..., str], where: str, test: str,
                                                      cards: str) -> None:
    """The same options as the closures', in the same order, whichever value the cells are tested against, with
    one run per cell (the loop over the cells' slots) and with two runs on one cell (the comprehension)."""
    path = write_ruleset(TESTED.replace("WHERE", where), {"spots.yaml": cards})
    text = _filter_text(path)
    assert _mode(path) == "runs" and test in text, text
    assert ("for _sl in _sls:" in text) == ("== none" not in where)
    fast, slow = _compiled(path, True), _compiled(path, False)
    for seed in range(3):
        assert _options_played(fast, seed) == _options_played(slow, seed)
    game = fast.new_game(2, 0)
    game.apply(0, game.waiting_for()[0])
    (kept,) = (v for k, v in game.state.kept.items() if isinstance(k, int))
    assert (kept[2] is None) == (cards is TWICE)  # the last card of TWICE sits on the first cell again
