"""What a statement block proves to the code generator, and where the proof ends (interpreter/codegen/stmtgen.py).

* A statement `let` whose name nothing later in its block writes gives the rest of the block its value's range
  (compiler/sizes.py): `let x = cell % width(board)` is 0 … width-1, so `x + dx(d)` needs no 64-bit test; a
  `let` assigned again later keeps the tests.
* `% width(board)` / `/ height(board)` of a named grid divide by a known non-zero constant: no zero test.
* A statement `if on_grid(board, nx, ny) { … }` puts nx and ny on the grid in its body when the body never writes
  them: the cell needs no bounds test; a body that changes nx keeps the test, and the game stops with the
  closures' off-grid error in every mode.

Every case plays the same in every compile mode (digest, error, logs, result).
"""
from __future__ import annotations

from collections.abc import Callable

from liturgy.interpreter.engine import Ruleset
from mode_helpers import compiled, played_in_every_mode

HEAD = '''game "Facts" { players 2..2
  step_limit 2000 }
grid board 5 by 5 of int
counter total 0..1000000
'''

BODY = '''
proc walk(start: int) {
  let cell = start
  let x = cell % width(board)
  let y = cell / width(board)
  for d in compass {
    let nx = x + dx(d)
    let ny = y + dy(d)
    if on_grid(board, nx, ny) {
      MOVE
      board[nx, ny] = board[nx, ny] + 1
      total += board[nx, ny]
    }
  }
}
round {
  step s "S" {
    for p in players {
      choose k from range(25) by p { do walk(k) }
    }
    if round >= 6 { end game }
  }
}
score(p) = total
'''


def _rules(write_ruleset: Callable[..., str], move: str, mode: dict[str, bool]) -> Ruleset:
    return compiled(write_ruleset(HEAD + BODY.replace("MOVE", move)), mode)


def _text(write_ruleset: Callable[..., str], move: str) -> str:
    gen = _rules(write_ruleset, move, {}).compiled.gen
    assert gen is not None
    return gen.sources.dump()


def _same(write_ruleset: Callable[..., str], move: str, seeds: range) -> list[object]:
    seen: list[object] = []
    for seed in seeds:
        seen = played_in_every_mode(lambda mode: _rules(write_ruleset, move, mode), seed)
        assert all(x == seen[0] for x in seen), seed
    return seen


def test_lets_and_on_grid_prove_the_body(write_ruleset: Callable[..., str]) -> None:
    text = _text(write_ruleset, "")
    walk = text[text.index("def _sp"):].split("\n\n")[0]
    assert "division by zero" not in walk  # `% width(board)`: a constant divisor
    assert "_off_grid" not in walk  # the cell inside `on_grid(board, nx, ny)`
    assert "at line 11'" not in walk  # `x + dx(d)`: x is 0 … 4 (line 11 is `let nx = …`)
    seen = _same(write_ruleset, "", range(3))
    assert seen[0][1] is None  # type: ignore[index]


def test_a_name_written_in_the_body_keeps_its_test(write_ruleset: Callable[..., str]) -> None:
    move = "nx = nx + 3"
    text = _text(write_ruleset, move)
    walk = text[text.index("def _sp"):].split("\n\n")[0]
    assert "_off_grid" in walk
    seen = _same(write_ruleset, move, range(2))
    assert "board" in str(seen[0][1])  # type: ignore[index]  # off the grid, the closures' message in every mode


def test_a_let_assigned_later_keeps_its_overflow_test(write_ruleset: Callable[..., str]) -> None:
    move = "x = x * 1000000000000"
    text = _text(write_ruleset, move)
    walk = text[text.index("def _sp"):].split("\n\n")[0]
    assert "_overflow" in walk and "at line 11'" in walk  # x is not known: `x + dx(d)` keeps its test
    _same(write_ruleset, move, range(2))
