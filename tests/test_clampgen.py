"""The clamp tests a counter write keeps in generated code (interpreter/codegen/clampgen.py), and those it drops.

* `total += board[c, r]` under `if board[c, r] > 0` cannot pass the counter's lower bound: no lower test.
* The cell fact ends where the cell or its coordinates may change: a write to the grid, a local assigned again,
  a `let`; a write to another global counter keeps it. `-=` of a positive value keeps the lower test and drops
  the upper one. A fact on one cell says nothing of another.
* A loop variable over a constant, never empty `range` is the loop's own target (no copy per turn).

Every case plays the same in every compile mode (digest, error, logs, result), and the clamped values are the
closures' (the reference semantics).
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable

from liturgy.interpreter.engine import Ruleset
from mode_helpers import MODES, compiled, played_in_every_mode

HEAD = '''game "Clamps" { players 2..2
  step_limit 2000 }
grid board 4 by 4 of int
counter total 0..50
counter other 0..1000
'''

BODY = '''
round {
  step s "S" {
    for p in players {
      choose k from range(3) by p {
        for c in range(4) {
          for r in range(4) { board[c, r] = (c * 3 + r + k) % 5 - 2 }
        }
        for c in range(4) {
          for r in range(4) {
            STMT
          }
        }
        log "{} {} {}", p, total, other
      }
    }
    if round >= 4 { end game }
  }
}
score(p) = total
'''

ADD = "if board[c, r] > 0 { total += board[c, r] }"
ADD_AFTER_COUNTER = "if 0 < board[c, r] { other += 1\n total += board[c, r] }"
ADD_AFTER_GRID_WRITE = "if board[c, r] > 0 { board[c, r] = 0 - 9\n total += board[c, r] }"
ADD_AFTER_LOCAL = "let x = c\nif board[x, r] > 0 { x = 3 - x\n total += board[x, r] }"
SUB = "if board[c, r] >= 1 { total -= board[c, r] }"
OTHER_CELL = "if board[c, r] > 0 { total += board[r, c] }"
LOWER_ONLY = "if board[c, r] > 0 and board[c, r] < 2 { total += board[c, r] }"


def _rules(write_ruleset: Callable[..., str], stmt: str, mode: dict[str, bool]) -> Ruleset:
    return compiled(write_ruleset(HEAD + BODY.replace("STMT", stmt)), mode)


def _text(write_ruleset: Callable[..., str], stmt: str) -> str:
    gen = _rules(write_ruleset, stmt, {}).compiled.gen
    assert gen is not None
    return gen.sources.dump()


def _same_everywhere(write_ruleset: Callable[..., str], stmt: str) -> list[object]:
    for seed in range(4):
        seen = played_in_every_mode(lambda mode: _rules(write_ruleset, stmt, mode), seed)
        assert all(x == seen[0] for x in seen), (stmt, seed)
        assert seen[0][1] is None, seen[0][1]
    return seen


def _scores(write_ruleset: Callable[..., str], stmt: str) -> list[object]:
    """The scores (`total`) of one game played by the closures (the reference) and by the default mode."""
    out = []
    for mode in (MODES[3], MODES[0]):
        game = _rules(write_ruleset, stmt, mode).new_game(2, 5)
        game.random_playout(random.Random(5))
        assert game.result is not None
        out.append(game.result["scores"])
    return out


def test_adding_a_cell_proven_positive_drops_the_lower_test(write_ruleset: Callable[..., str]) -> None:
    text = _text(write_ruleset, ADD)
    assert " < 0:" not in text and " > 50:" in text
    _same_everywhere(write_ruleset, ADD)


def test_a_write_to_another_counter_keeps_the_fact(write_ruleset: Callable[..., str]) -> None:
    text = _text(write_ruleset, ADD_AFTER_COUNTER)
    assert " < 0:" not in text and " > 50:" in text and " > 1000:" in text
    _same_everywhere(write_ruleset, ADD_AFTER_COUNTER)


def test_a_grid_write_ends_the_fact(write_ruleset: Callable[..., str]) -> None:
    assert " < 0:" in _text(write_ruleset, ADD_AFTER_GRID_WRITE)
    _same_everywhere(write_ruleset, ADD_AFTER_GRID_WRITE)
    # the cell was set to -9 before it was added: the counter stays at its least value, 0, in every mode
    assert _scores(write_ruleset, ADD_AFTER_GRID_WRITE) == [[0, 0], [0, 0]]


def test_a_local_assigned_again_ends_the_fact(write_ruleset: Callable[..., str]) -> None:
    assert " < 0:" in _text(write_ruleset, ADD_AFTER_LOCAL)
    _same_everywhere(write_ruleset, ADD_AFTER_LOCAL)


def test_subtracting_keeps_the_lower_test_and_drops_the_upper(write_ruleset: Callable[..., str]) -> None:
    text = _text(write_ruleset, SUB)
    assert " < 0:" in text and " > 50:" not in text
    _same_everywhere(write_ruleset, SUB)
    assert _scores(write_ruleset, SUB) == [[0, 0], [0, 0]]  # clamped at 0 at every subtraction


def test_adding_clamps_at_the_upper_bound(write_ruleset: Callable[..., str]) -> None:
    assert _scores(write_ruleset, ADD) == [[50, 50], [50, 50]]  # 4 rounds add far more than 50


def test_a_fact_on_one_cell_says_nothing_of_another(write_ruleset: Callable[..., str]) -> None:
    assert " < 0:" in _text(write_ruleset, OTHER_CELL)
    _same_everywhere(write_ruleset, OTHER_CELL)


def test_both_sides_of_and(write_ruleset: Callable[..., str]) -> None:
    text = _text(write_ruleset, LOWER_ONLY)
    assert " < 0:" not in text
    _same_everywhere(write_ruleset, LOWER_ONLY)


def test_a_constant_loop_binds_its_local_directly(write_ruleset: Callable[..., str]) -> None:
    text = _text(write_ruleset, ADD)
    assert "for _x" not in text  # every loop here is over a constant range its body never writes
    # `r` is read by no other instruction (compiler/liveness.py): the loop binds the local and nothing else, with
    # no write to the frame and no `try`/`finally` around it for one (codegen/spill.py)
    assert "for _E" in text and "env['r']" not in text and not re.search(r"finally:\n *_E\d+\n", text)
