"""An inlined `fn` must not capture the caller's names (lexical scoping in every compile mode).

Inlining compiles a call as the body with the parameters replaced by the arguments. If an argument reads a
variable that the body binds in an aggregate (`f(x)` where `f(k) = count(x for x in … where x > k)`), the
substituted argument would read the loop's item instead of the caller's `x`. Such calls are not inlined.
"""
from __future__ import annotations

from collections.abc import Callable

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset

RULES = """
game "G" { players 2..2 }
counter a 0..99
counter b 0..99
counter c 0..99
counter d 0..99
counter e 0..99
counter w 0..99
fn f(k: int) -> int = count(x for x in [1, 2, 3] where x > k)
fn g(j: int) -> int = f(j)
fn plus(k: int) -> int = sum(y + k for y in [1, 2])
fn outer(x: int) -> int = sum(f(x) for x in [0, 1, x])
fn wrap(y: int) -> int = plus(y)
round { step s "S" {
  let x = 2
  a = f(x)
  b = g(x - 1)
  c = sum(f(x) for x in [0, 1, 2])
  d = plus(x)
  e = outer(x)
  w = wrap(x)
  end game } }
score(p) = a
"""

MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]


@pytest.mark.parametrize("mode", MODES, ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items()) or "default")
def test_inlined_fn_arguments_keep_the_callers_meaning(write_ruleset: Callable[..., str], mode: dict[str, bool]
                                                       ) -> None:
    program, diags = check_file(write_ruleset(RULES))
    assert program is not None, diags
    game = Ruleset(program, **mode).new_game(2, 1)
    assert game.error is None and game.finished
    lay = game.ruleset.compiled.layout
    got = {n: game.state.counters[lay.global_slots[n]] for n in "abcdew"}
    # f(2) = |{3}|; g(1) = f(1) = |{2, 3}|; f(0) + f(1) + f(2) = 3 + 2 + 1; plus(2) = (1 + 2) + (2 + 2);
    # outer(2): its loop variable x hides the parameter x, f(0) + f(1) + f(2); wrap(2) = plus(2)
    assert got == {"a": 1, "b": 2, "c": 6, "d": 7, "e": 6, "w": 7}


def test_calls_that_cannot_capture_are_still_inlined(write_ruleset: Callable[..., str]) -> None:
    """`plus(x)` binds only `y`, so it is inlined; `f(x)` binds `x`, so it is not."""
    program, _ = check_file(write_ruleset(RULES))
    assert program is not None
    comp = Ruleset(program).compiled
    fns = program.fns
    from liturgy.dsl.frontend import ast as A

    x = A.Name(fns["f"].span, "x")
    x.ref = ("local", "x")
    assert not comp.can_inline(fns["f"], [x])
    assert not comp.can_inline(fns["g"], [x])  # g calls f, which binds x
    assert comp.can_inline(fns["plus"], [x])
    assert comp.can_inline(fns["wrap"], [x])  # wrap's y reads the caller's x; plus binds only y: no capture
