"""Checks the compiler proves away (compiler/sizes.py and the code generator's ranges) and those it must keep.

Generated code leaves out a 64-bit overflow test, a division-by-zero test or a grid bounds test only where the
value provably cannot trip it: `i % 8` is 0 … 7 whatever `i` is, `dx(d)` is -1 … 1, a `let`'s value keeps its
proven range, a loop over `range(64)` holds 0 … 63, and on the right of `on_grid(g, x, y) and …` the cell
`g[x, y]` is on the grid. Every case plays the same in every compile mode; the cases that must still stop (an
overflow, a division by zero, a cell off the grid) stop with the closures' message.
"""
from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.loader import check_file
from liturgy.interpreter.compiler.sizes import Sizes
from liturgy.interpreter.engine import Ruleset

MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]

HEAD = '''game "Ranges" { players 2..2
  step_limit 2000 }
grid board 8 by 8 of player
counter big -9223372036854775807..9223372036854775807
counter out -1000..1000
'''

FNS = '''
fn cell(i: int, k: int) -> int {
  let d = compass[k]
  let c = i % 8
  let r = i / 8
  let x = c + dx(d)
  let y = r + dy(d)
  let n = if on_grid(board, x, y) and board[x, y] != none then line(board, x, y, d) else 0
  return n * 100 + x * 10 + y
}
fn edge(k: int) -> bool {
  let x = k + 7
  return on_grid(board, x, 0) or board[x, 0] == none
}
'''


def _rules(tmp: str, body: str, mode: dict[str, bool]) -> Ruleset:
    path = Path(tmp) / "r.rules"
    path.write_text(HEAD + FNS + body, encoding="utf-8")
    program, diags = check_file(str(path))
    assert program is not None, "\n".join(map(str, diags))
    return Ruleset(program, **mode)


def _play(body: str, seed: int = 1) -> list[tuple[object, ...]]:
    seen = []
    with tempfile.TemporaryDirectory() as tmp:
        for mode in MODES:
            game = _rules(tmp, body, mode).new_game(2, seed)
            game.random_playout(random.Random(seed))
            seen.append((game.digest(), game.error, [game.log_lines(v) for v in (None, 0, 1)]))
    return seen


def _dump(body: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        gen = _rules(tmp, body, {}).compiled.gen
        assert gen is not None
        return gen.sources.dump()


SCAN = '''round {
  step s "S" {
    for p in players {
      choose i from range(64) where board[i % 8, i / 8] == none and sum(cell(i, k) for k in range(8)) % 7 != 3 by p {
        board[i % 8, i / 8] = p
        log "{} {}", p, sum(cell(i, k) for k in range(8))
      }
    }
    if round >= 6 { end game }
  }
}
score(p) = count(i for i in range(64) where board[i % 8, i / 8] == p)
'''


def test_a_grid_scan_plays_alike_in_every_mode_without_the_checks_it_cannot_need() -> None:
    first, *rest = _play(SCAN)
    assert first[1] is None and first[2][0]
    assert all(other == first for other in rest)
    text = _dump(SCAN)
    assert "division by zero" not in text  # `/ 8` and `% 8`: a constant divisor
    # the option filter's inner loop, `cell` inlined with `i` from `range(64)` (a parameter of the loop's
    # function): every sum is of small proven ranges and every cell read is on the grid
    loops = [f for f in text.split("\n# ") if "(s, env, i_" in f]
    assert loops and all("_overflow" not in f and "_off_grid" not in f for f in loops), loops
    # `cell` compiled on its own knows nothing of `i`: `r + dy(d)` keeps its test there
    assert "_overflow" in text


@pytest.mark.parametrize(("expr", "says"), [
    ("big * big", "integer overflow"),  # an unknown counter times itself: the check stays
    ("out / (round - round)", "division by zero"),  # a divisor that can be 0: the check stays
    ("board[round + 7, 0] == none", "outside grid board"),  # off the grid: the bounds test stays
    ("edge(round)", "outside grid board"),  # `on_grid(board, x, 0) or board[x, 0]`: not on the grid there
])
def test_a_check_that_can_fire_is_kept_and_stops_alike(expr: str, says: str) -> None:
    body = f'''setup {{ big = 4611686018427387904 }}
round {{
  step s "S" {{
    if round >= 2 {{ log "{{}}", {expr} }}
    if round >= 3 {{ end game }}
  }}
}}
score(p) = 0
'''
    first, *rest = _play(body)
    assert first[1] is not None and says in first[1], first[1]
    assert all(other == first for other in rest)


def _expr(text: str) -> tuple[Sizes, A.Expr]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.rules"
        path.write_text(HEAD + FNS + f"fn probe(i: int, k: int) -> int = {text}\n"
                        "round { step s { end game } }\nscore(p) = 0\n", encoding="utf-8")
        program, diags = check_file(str(path))
    assert program is not None, "\n".join(map(str, diags))
    return Sizes(program), program.fns["probe"].body


@pytest.mark.parametrize(("text", "expected"), [
    ("i % 8", (0, 7)),  # floored modulo by a positive constant, whatever i is
    ("i % -3", (-2, 0)),
    ("i % 8 + dx(compass[k])", (-1, 8)),
    ("line(board, i, 0, compass[k])", (0, 64)),
    ("width(board) * height(board)", (64, 64)),
    ("abs(i % 8 - 9)", (2, 9)),
])
def test_sizes_bounds_what_the_rules_imply(text: str, expected: tuple[int, int]) -> None:
    sizes, e = _expr(text)
    assert sizes.int_range(e) == expected


@pytest.mark.parametrize("text", ["i / 8", "i % (i - 1)", "abs(i)"])
def test_sizes_does_not_bound_what_it_cannot_know(text: str) -> None:
    sizes, e = _expr(text)
    assert sizes.int_range(e) is None
