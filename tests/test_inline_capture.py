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


PER_PARAMETER = """
game "G" { players 2..2 }
counter a 0..99
counter b 0..99
fn f(k: int) -> int = count(x for x in [1, 2, 3] where x > k)
fn h(k: int, m: int) -> int = m * 10 + f(k)
round { step s "S" {
  let x = 2
  a = h(1, x)
  b = h(x, 1)
  end game } }
score(p) = a
"""


@pytest.mark.parametrize("mode", MODES, ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items()) or "default")
def test_capture_is_judged_per_parameter(write_ruleset: Callable[..., str], mode: dict[str, bool]) -> None:
    """`h(1, x)` is inlined: its `m` (the caller's `x`) reaches no binder, only `k` reaches `f`'s loop over `x`
    (Fury of Dracula's `power_ok(here, c)` was a closure call with a dict per call for this reason alone).
    `h(x, 1)` passes `x` to `f` through `k`: not inlined. Both keep the caller's meaning in every mode."""
    from liturgy.dsl.frontend import ast as A

    program, _ = check_file(write_ruleset(PER_PARAMETER))
    assert program is not None
    game = Ruleset(program, **mode).new_game(2, 1)
    lay = game.ruleset.compiled.layout
    # h(1, 2) = 2 * 10 + |{2, 3}|; h(2, 1) = 1 * 10 + |{3}|
    assert [game.state.counters[lay.global_slots[n]] for n in "ab"] == [22, 11]
    x = A.Name(program.fns["h"].span, "x")
    x.ref = ("local", "x")
    one = A.IntLit(program.fns["h"].span, 1)
    comp = Ruleset(program).compiled
    assert comp.can_inline(program.fns["h"], [one, x]) and not comp.can_inline(program.fns["h"], [x, one])
    # the call that is not inlined is still generated code: the closures' call (its own dict), arguments as text
    from liturgy.interpreter.codegen.fuse import build_all

    build_all(comp)
    assert comp.gen is not None and "['h'][1](s, {'k': " in comp.gen.sources.dump()


LETS = """
game "G" { players 2..2 }
counter a 0..999
counter b 0..999
counter c 0..999
fn shadow(x: int) -> int {
  let x = x + 100
  return x * 2
}
fn chain(k: int) -> int {
  let m = k + 1
  let n = m * 10
  return n + sum(i + m for i in [1, 2])
}
round { step s "S" {
  let y = 3
  a = shadow(y)
  b = chain(y)
  c = sum(chain(i) for i in [1, 2])
  end game } }
score(p) = a
"""


@pytest.mark.parametrize("mode", MODES, ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items()) or "default")
def test_lets_in_fn_bodies_are_generated_code_with_the_closures_meaning(write_ruleset: Callable[..., str],
                                                                        mode: dict[str, bool]) -> None:
    """A `let` reads its value before binding (`let x = x + 100` reads the parameter), hides an inlined parameter
    of its name in the body, and nests; generated code (codegen/letgen.py) writes each `let` as a function."""
    program, _ = check_file(write_ruleset(LETS))
    assert program is not None
    game = Ruleset(program, **mode).new_game(2, 1)
    lay = game.ruleset.compiled.layout
    # shadow(3) = 103 * 2; chain(3) = 40 + (1 + 4) + (2 + 4); chain(1) + chain(2) = (20 + 7) + (30 + 9)
    assert [game.state.counters[lay.global_slots[n]] for n in "abc"] == [206, 51, 66]
    gen = game.ruleset.compiled.gen
    if mode.get("codegen", True) and mode.get("stmtgen", True):
        assert gen is not None and "\ndef _l" in "\n" + gen.sources.dump()
