"""Loops' `#n` pairs held in a fused function's Python locals (interpreter/codegen/fusebook.py ``TraceBook.pair``).

A fused function keeps a step-machine loop's (items, next index) pair in locals across the loop's turns and
writes it to the frame only where the frame can be seen: where the function returns to the engine, before a
call or a `choose`, and on an error (``skip to``, `end game`, a rule error). These games break out of loops
(leaving the frame's pair behind, as the step machine does), re-enter an inner loop after a `break`, divide by
zero in a loop's later turn, `skip to` from inside a loop and call a proc that chooses from one: the saves after
every decision, the digests, errors and step counts are the single-stepped machine's, at every step limit too.
"""
from __future__ import annotations

from collections.abc import Callable

import pytest
from fused_play import assert_same_at_step_limits, fused_and_plain, play
from liturgy.interpreter.engine import Ruleset

RULES = """game "G" { players 2..2
 step_limit 100000 }
counter n
counter m
counter skips
proc bump(k: int) { choose e from [1, 2] by players[1] { m += k + e } }
round {
  step s "S" {
    choose d from [0, 1, 2, 3] by players[0] { n += d }
    for x in [1, 2, 3, 4, 5, 6] {
      m += 1
      if x == n + 2 { break }
      if x == 9 { do bump(x) }
    }
    for w in [1, 2, 3] {
      for x in [1, 2, 3, 4, 5, 6] {
        if x == w + 1 { break }
        if x == 9 { do bump(x) }
        m += x
      }
    }
    for v in [1, 2, 3, 4] {
      for x in [1, 2, 3, 4, 5, 6, 7] {
        if x == 9 { do bump(x) }
        m += 1
      }
    }
    for y in [1, 2, 3, 4, 5] {
      m += 12 / (n - y - 4)
      if m > 300 and skips < 2 {
        skips += 1
        skip to t
      }
      if y == 4 and n % 3 == 2 { do bump(y) }
    }
  }
  step t "T" {
    m += 1
    if round >= 5 { end game }
  }
}
score(p) = m
"""


# Nested loops that run to their ends: a fused function that starts at the inner loop's next step turns through
# it, and comes back to it from the outer loop's next turn, through the inner `for`'s start, whose new pair the
# frame does not hold yet (its end must not expect one there).
NESTED = """game "G" { players 2..2 }
counter n
counter m
proc bump(k: int) { choose e from [1, 2] by players[1] { m += k + e } }
round {
  step s "S" {
    choose d from [0, 1, 2, 3] by players[0] { n += d }
    for v in [1, 2, 3, 4] {
      for x in [1, 2, 3, 4, 5, 6, 7] {
        if x == 9 { do bump(x) }
        m += 1
      }
    }
    if round >= 3 { end game }
  }
}
score(p) = m
"""


@pytest.fixture
def pair(write_ruleset: Callable[..., str]) -> tuple[Ruleset, Ruleset]:
    return fused_and_plain(write_ruleset(RULES))


def test_loop_pairs_in_locals_keep_saves_errors_and_skips(pair: tuple[Ruleset, Ruleset]) -> None:
    fused, plain = pair
    ends = set()
    skipped = 0
    for seed in range(16):
        runs = [play(rules, seed, 2) for rules in (fused, plain)]
        assert runs[0] == runs[1], seed
        ends.add(runs[0][2])
        skipped += runs[0][5]
    assert ends == {"aborted", "finished"}  # some seeds divide by zero in a loop's turn, some play to the end
    assert skipped  # and some `skip to` from inside a loop


def test_the_loops_pairs_are_held_in_locals(write_ruleset: Callable[..., str], capsys: pytest.CaptureFixture[str]
                                            ) -> None:
    """The games above do run the pairs in locals: the dump shows a loop's next turn read from them."""
    from liturgy.interpreter.tools.cli import main

    assert main(["dump", write_ruleset(RULES)]) == 0
    out = capsys.readouterr().out
    assert "_Fb1 += 1" in out and "_Fb1 >= _Fc1" in out and "except NameError" in out


def test_nested_loops_turning_in_one_call_keep_saves_and_limits(write_ruleset: Callable[..., str]) -> None:
    fused, plain = fused_and_plain(write_ruleset(NESTED))
    for seed in range(3):
        runs = [play(rules, seed, 2) for rules in (fused, plain)]
        assert runs[0] == runs[1] and runs[0][2] == "finished", seed
    assert_same_at_step_limits(fused, plain, 2, counter=2)


def test_loop_pairs_in_locals_keep_every_step_limit(pair: tuple[Ruleset, Ruleset]) -> None:
    fused, plain = pair
    for seed in (2, 5):
        assert_same_at_step_limits(fused, plain, seed, stride=3, counter=2)
