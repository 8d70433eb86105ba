"""A global counter updated in a generated loop is kept in a local meanwhile (interpreter/codegen/promote.py).

The counter list must be what the per-turn writes leave on every exit: the end of the loop, an error or `end
game` inside it, and a loop that calls something that may read the counter keeps its per-turn writes. Each case
compares digest, error, logs and result across every compile mode (the closures write on every turn).
"""
from __future__ import annotations

from collections.abc import Callable

from liturgy.interpreter.engine import Ruleset
from mode_helpers import compiled, played_in_every_mode

HEAD = '''game "Promote" { players 2..2
  step_limit 50
  work_limit WORK }
grid board 4 by 4 of int
counter total 0..50
counter other 0..1000
'''

LOOP = '''
proc peek() { other += total }
proc peek_back(n: int) { if n > 0 { do peek_back(n - 1) } else { other += total } }
round {
  step s "S" {
    for c in range(4) {
      for r in range(4) { board[c, r] = c * 4 + r }
    }
    for k in range(3) {
      for c in range(4) {
        for r in range(4) {
          if board[c, r] > 5 { total += board[c, r] / 4 }
          BODY
        }
      }
    }
    log "total {}, other {}", total, other
    end game
  }
}
score(p) = total + other
'''


def _rules(write_ruleset: Callable[..., str], body: str, work: int, mode: dict[str, bool]) -> Ruleset:
    text = HEAD.replace("WORK", str(work)) + LOOP.replace("BODY", body)
    return compiled(write_ruleset(text), mode)


def _text(write_ruleset: Callable[..., str], body: str, work: int = 100000) -> str:
    gen = _rules(write_ruleset, body, work, {}).compiled.gen
    assert gen is not None
    return gen.sources.dump()


def _alike(write_ruleset: Callable[..., str], body: str, work: int = 100000) -> list[object]:
    seen = played_in_every_mode(lambda mode: _rules(write_ruleset, body, work, mode), 0)
    assert all(x == seen[0] for x in seen)
    return seen


def test_the_counter_is_a_local_and_clamps_as_before(write_ruleset: Callable[..., str]) -> None:
    body = "other += 1"
    text = _text(write_ruleset, body)
    assert "finally:\n        _cs[" in text  # written back once, when the loop ends
    seen = _alike(write_ruleset, body)
    assert seen[0][1] is None  # type: ignore[index]
    assert any("total 50, other 48" in line for line in seen[0][2][0])  # type: ignore[index]  # clamped at 50


def test_a_call_keeps_the_per_turn_writes(write_ruleset: Callable[..., str]) -> None:
    # reads `total` on every turn; a proc that calls itself stays a call (codegen/procinline.py writes the body of
    # a plain one such as `peek` in place, next test)
    body = "do peek_back(1)"
    assert "finally:\n        _cs[" not in _text(write_ruleset, body)
    seen = _alike(write_ruleset, body)
    assert seen[0][1] is None  # type: ignore[index]


def test_a_proc_written_in_place_reads_the_local(write_ruleset: Callable[..., str]) -> None:
    # `peek`'s body written at its `do` (no call left): `total` and `other` kept in locals and written back once,
    # the body reading and updating the locals, as every mode's per-turn writes leave the counters
    body = "do peek()"
    assert "finally:\n        _cs[" in _text(write_ruleset, body)
    seen = _alike(write_ruleset, body)
    assert seen[0][1] is None  # type: ignore[index]
    assert any("total 50, other 1000" in line for line in seen[0][2][0])  # type: ignore[index]


def test_an_error_inside_the_loop_leaves_the_counters_of_every_mode(write_ruleset: Callable[..., str]) -> None:
    # an overflow at the cell holding 10, after `total` and `other` have changed: both written back
    body = "if board[c, r] > 9 { other += board[c, r] * 4611686018427387904 } else { other += 1 }"
    assert "finally:\n        _cs[" in _text(write_ruleset, body)
    seen = _alike(write_ruleset, body)
    assert "integer overflow" in str(seen[0][1])  # type: ignore[index]
    body = "other += 1\n repeat while other % 5 != 0 { other += 1 }"  # the work budget runs out in the loop
    assert "finally:\n        _cs[" in _text(write_ruleset, body, 100)
    seen = _alike(write_ruleset, body, work=100)
    assert "work budget" in str(seen[0][1])  # type: ignore[index]


def test_a_grid_cell_is_never_kept_in_a_local(write_ruleset: Callable[..., str]) -> None:
    """`board[0, 0]` is a literal slot that `board[c, r]` also reaches: only a global counter of one slot is
    promoted, so the cell read on every turn sees the write."""
    body = "board[0, 0] += 1\n other += board[c, r]"  # each turn of (0, 0) reads what the last turn wrote
    text = _text(write_ruleset, body)
    assert "_cs[4] = " in text  # the cell's literal slot, written on every turn
    seen = _alike(write_ruleset, body)
    assert seen[0][1] is None  # type: ignore[index]
