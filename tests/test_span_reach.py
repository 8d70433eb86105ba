"""The n-in-a-row test in generated code (interpreter/codegen/gridgen.py ``spans_reach``): ``any(span(g, c, r, d)
>= n for d in DIRS)`` is one call of a per-cell test written out from the grid's rays (``_reach_cells``; past its
size limit, of the grid's :meth:`GridInfo.spans_reach` loops), and `span` along a direction named in the rules is
:meth:`GridInfo.span_toward`; all give what the loop of `span` calls gives, in every mode."""
from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from liturgy.dsl.constructs.grids import DIRECTION_SETS, DIRECTIONS
from liturgy.dsl.diagnostics import NOWHERE
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import gridgen
from liturgy.interpreter.runtime.grids import GridInfo
from mode_helpers import compiled, played_in_every_mode


def _boards(info: GridInfo, rng: random.Random) -> list[list[Any]]:
    """Counter lists holding the grid at ``info.base``: empty, full of one value, and random mixes."""
    cells = info.width * info.height
    pad = [7] * info.base
    out = [pad + [None] * cells, pad + [1] * cells]
    for _ in range(30):
        out.append(pad + [rng.choice((None, 0, 1, 1)) for _ in range(cells)])
    return out


@pytest.mark.parametrize("size", [(7, 6), (3, 5), (1, 1), (6, 1)])
def test_spans_reach_is_any_span_at_least(size: tuple[int, int]) -> None:
    info = GridInfo("g", 3, *size)
    rng = random.Random(sum(size))
    sets = [*DIRECTION_SETS.values(), ("east",), ("northwest", "south"), ("north", "north", "east")]
    coords = [(c, r) for c in range(-1, size[0] + 1) for r in range(-1, size[1] + 1)]
    for counters in _boards(info, rng):
        for dirs in sets:
            for need in (*range(-1, 9), 10**18):
                test = info.spans_reach(dirs, need)
                for c, r in coords:
                    want = any(info.span(counters, c, r, d) >= need for d in dirs)
                    assert test(counters, c, r) is want, (dirs, need, c, r)


@pytest.mark.parametrize("size", [(7, 6), (3, 5), (1, 1), (6, 1), (4, 9)])
def test_the_written_out_test_is_the_loops(size: tuple[int, int], write_ruleset: Callable[..., str]) -> None:
    gen = compiled(write_ruleset(RULES), {}).compiled.gen
    assert gen is not None
    info = GridInfo("g", 3, *size)
    rng = random.Random(sum(size) + 1)
    sets = [*DIRECTION_SETS.values(), ("east",), ("northwest", "south")]
    where = A.IntLit(NOWHERE, 1)  # the node whose span generated text is filed under (any will do)
    for dirs in sets:
        for need in (*range(-1, 9), 10**18):
            cells = gridgen._reach_cells(gen, info, dirs, need, where)
            assert cells is not None and len(cells) == size[0] * size[1]
            assert gridgen._reach_cells(gen, info, dirs, need, where) is cells  # made once per grid
            loops = info.spans_reach(dirs, need)
            for counters in _boards(info, rng):
                for i, test in enumerate(cells):
                    assert test(counters) is loops(counters, i % size[0], i // size[0]), (dirs, need, i)


def test_a_big_grid_with_long_runs_keeps_the_loops(write_ruleset: Callable[..., str]) -> None:
    gen = compiled(write_ruleset(RULES), {}).compiled.gen
    assert gen is not None
    where = A.IntLit(NOWHERE, 1)
    assert gridgen._reach_cells(gen, GridInfo("g", 0, 7, 6), DIRECTION_SETS["axes"], 4, where) is not None
    assert gridgen._reach_cells(gen, GridInfo("g", 0, 15, 15), DIRECTION_SETS["axes"], 5, where) is None


def test_one_function_per_grid_directions_and_n() -> None:
    info = GridInfo("g", 0, 7, 6)
    made = info.spans_reach(("east", "north"), 4)
    assert info.spans_reach(("east", "north", "east"), 4) is made  # the same directions: made once
    assert info.spans_reach(("north", "east"), 4) is not made  # another order: tested in that order


def test_span_toward_is_span() -> None:
    info = GridInfo("g", 2, 5, 4)
    for counters in _boards(info, random.Random(3)):
        for d in DIRECTIONS:
            toward = info.span_toward(d)
            for c in range(-1, 6):
                for r in range(-1, 5):
                    assert toward(counters, c, r) == info.span(counters, c, r, d)


RULES = '''game "Rows" { players 2..2
  step_limit 2000 }
grid board 5 by 4 of player
counter wins 0..1000
counter longs 0..1000
counter odd 0..1000
counter spans 0..100000
fn full(c: int) -> bool = board[c, height(board) - 1] != none
round {
  step drop "Drop" {
    for p in players {
      choose c from range(width(board)) where not full(c) by p {
        let r = count(y for y in range(height(board)) where board[c, y] != none)
        board[c, r] = p
        if any(span(board, c, r, d) >= 3 for d in axes) { wins += 1 }
        if any(span(board, c, r, d) > width(board) - 3 for d in [east, north]) { longs += 1 }
        if any(span(board, c - 9, r, d) >= 0 for d in compass) { odd += 1 }
        if any(span(board, c, r, d) >= 1 for d in hex) { odd += 1 }
        if any(span(board, c + dx(d), r, d) >= 2 for d in axes) { odd += 1 }
        if any(span(board, c, r, d) >= 2 for d in axes where d != east) { odd += 1 }
        spans += span(board, c, r, northeast) + span(board, c, 0, west)
        if wins >= 3 { end game }
      } otherwise { end game }
    }
  }
}
score(p) = wins + longs + odd + spans
'''


def test_the_n_in_a_row_test_is_one_call_and_plays_as_the_loop(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(RULES)
    gen = compiled(path, {}).compiled.gen
    assert gen is not None
    made = [getattr(v, "__name__", "") for v in gen.ns.values()]
    tables = [v for v in gen.ns.values() if isinstance(v, tuple) and v and getattr(v[0], "__name__", "") == "c0"]
    # the axes, the two named directions (n = width - 3 + 1), `c - 9` (off the grid: >= 0 holds) and `hex`: each
    # a table of per-cell tests, read at the cell's index
    assert len(tables) == 4 and all(len(t) == 5 * 4 for t in tables), tables
    # `northeast` and `west`, and the two tests that read the direction elsewhere (`c + dx(d)`, a filter on d):
    # each written out item by item (codegen/unroll.py), its direction a constant
    assert made.count("span_toward") == 2 + 4 + 4, made
    for seed in range(6):
        seen = played_in_every_mode(lambda mode: compiled(path, mode), seed)
        assert all(x == seen[0] for x in seen), seed
        assert seen[0][1] is None, seen[0][1]
