"""Shared subexpressions of an `and`/`or` and of a loop's filter and element (interpreter/codegen/cse.py): the
value the left side bound is read on the right, in generated code only, and every compile mode plays alike."""
from __future__ import annotations

import re
from collections.abc import Callable

from liturgy.dsl.diagnostics import NOWHERE
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import cse
from mode_helpers import compiled, played_in_every_mode

RULES = '''game "Shared" { players 2..2
  step_limit 2000 }
card Spot { c: int
  r: int }
cards "spots.yaml"
zone spots: row public of Spot
grid board 3 by 3 of int
grid marks 3 by 3 of int
counter total 0..1000000
counter big 0..9000000000000000000 = BIG
fn near(c: int, r: int) -> int =
    count(d for d in compass where on_grid(board, c + dx(d), r + dy(d)) and board[c + dx(d), r + dy(d)] > 0
          and marks[c + dx(d), r + dy(d)] == 0)
fn open(m: card Spot, k: int) -> bool = board[m.c, m.r] == 0 or (m.c != m.r and board[m.c, m.r] < k)
round {
  step s "S" {
    for p in players {
      choose m from spots where open(m, 2) by p {
        board[m.c, m.r] = board[m.c, m.r] + 1
        if any(on_grid(marks, m.c + dx(d), m.r) and marks[m.c + dx(d), m.r] == 0 for d in compass) {
          marks[m.c, m.r] = 1
        }
        total += near(m.c, m.r)
        let b = big
        if b * b > 0 and b * b < 10 { total += 1 }
        log "{} {}", p, total
      }
    }
    if round >= 6 { end game }
  }
}
score(p) = total
'''
SPOTS = "kind: Spot\nstart: spots\ncards:\n" + "".join(
    f"  - name: \"s{c}{r}\"\n    c: {c}\n    r: {r}\n" for c in range(3) for r in range(3))


def _played(path: str, seed: int) -> list[object]:
    seen = played_in_every_mode(lambda mode: compiled(path, mode), seed)
    cse.ENABLED = False
    try:
        seen += played_in_every_mode(lambda mode: compiled(path, mode), seed)
    finally:
        cse.ENABLED = True
    return seen


def test_shared_values_are_read_on_the_right(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(RULES.replace("BIG", "3"), {"spots.yaml": SPOTS})
    gen = compiled(path, {}).compiled.gen
    assert gen is not None
    text = gen.sources.dump()
    # `c + dx(d)` bound in the `on_grid` test, read by both cells
    loops = [t for t in text.split("\n\n") if "liturgy loop" in t]
    assert any("(_u" in t and "(4 + _u" in t and "(13 + _u" in t for t in loops), loops  # both cells read it
    filters = [t for t in text.split("\n\n") if "liturgy filter" in t]
    assert any("_out = [" in t for t in filters), filters  # still a comprehension
    assert re.search(r"\(\(_u[0-9]+ := \(_t[0-9]+ if .*\) > 0\) and \(_u[0-9]+ < 10\)\)", text)  # b * b once
    for seed in range(4):
        seen = _played(path, seed)
        assert all(x == seen[0] for x in seen), seed
        assert seen[0][1] is None


def test_an_error_on_the_left_is_the_closures_error(write_ruleset: Callable[..., str]) -> None:
    # big * big overflows 64 bits on the left of the `and`: the right, which would read the shared value, never runs
    path = write_ruleset(RULES.replace("BIG", "3037000500"), {"spots.yaml": SPOTS})
    seen = _played(path, 0)
    assert all(x == seen[0] for x in seen)
    assert seen[0][1] is not None, seen[0]


def _parts(e: A.Expr) -> list[A.Expr]:
    return list(cse.occurrences(e))


def test_nothing_is_shared_into_a_comprehension_or_a_let() -> None:
    # `x + 1` on the left and inside a loop that binds x again on the right: never the same value
    def name(n: str) -> A.Name:
        v = A.Name(NOWHERE, id=n)
        v.ref = ("local", n)
        return v

    def plus(n: str) -> A.Binary:
        return A.Binary(NOWHERE, op="+", left=name(n), right=A.IntLit(NOWHERE, value=1))

    def cmp(op: str, a: A.Expr, k: int) -> A.Binary:
        return A.Binary(NOWHERE, op=op, left=a, right=A.IntLit(NOWHERE, value=k))

    inner = A.Aggregate(NOWHERE, func="count", elem=plus("x"), var="x", iterable=name("xs"))
    let = A.LetIn(NOWHERE, name="x", value=A.IntLit(NOWHERE, value=2), body=plus("x"))
    right = A.Binary(NOWHERE, op="and", left=cmp(">", inner, 0), right=cmp(">", let, 0))
    left = cmp(">", plus("x"), 0)
    assert cse.plan(left, right, True) == {}
    same = cmp("<", plus("x"), 9)
    found = cse.plan(left, same, True)
    assert len(found) == 1 and len(next(iter(found.values()))[1]) == 1
    # `(x + 1) * 2` on both sides: shared whole; `x + 1` inside it is never computed on the right, so not bound
    def twice() -> A.Binary:
        return A.Binary(NOWHERE, op="*", left=plus("x"), right=A.IntLit(NOWHERE, value=2))

    whole = cse.plan(cmp(">", twice(), 0), cmp("<", twice(), 9), True)
    assert list(whole) == [cse.key(twice())]
    # `a or b` on the left of an `and`: only `a` surely ran
    either = A.Binary(NOWHERE, op="or", left=A.BoolLit(NOWHERE, value=True), right=left)
    assert cse.plan(either, same, True) == {}
    assert len(cse.plan(either, same, False)) == 1  # falsy: both sides of the `or` ran


def test_only_shared_bindings_may_sit_in_a_comprehension() -> None:
    assert not cse.binds_temporary("(_u12 := _cs[_k3[_x1]]) is None or _u12 != p")
    assert cse.binds_temporary("(_t4 := env['m']) is not None")


FN_ARGUMENT = '''game "FnArgument" { players 2..2
  step_limit 2000 }
card Spot { c: int
  r: int }
cards "spots.yaml"
zone spots: row public of Spot
grid board 3 by 9 of int
counter total 0..1000000
fn seen(v: int) -> bool = any(s.c == v for s in spots)
round {
  step s "S" {
    for p in players {
      choose m from spots by p {
        if board[m.c, m.r * 3 + 1] == 0 or not seen(board[m.c, m.r * 3 + 1]) { total += 1 }
        board[m.c, m.r * 3 + 1] = board[m.c, m.r * 3 + 1] + 1
        log "{} {}", p, total
      }
    }
    if round >= 6 { end game }
  }
}
score(p) = total
'''


def test_a_fn_arguments_text_is_never_a_read_of_a_shared_value(write_ruleset: Callable[..., str]) -> None:
    # Betrayal's `plan[c, f * 9 + r] == none or not placed(plan[c, f * 9 + r])`: the argument's text is put into
    # `placed`'s inlined body, a loop of its own (another Python function), where a name bound on the left of the
    # `or` is unbound (NameError at play before the fix): a call's arguments are not searched for shared values
    path = write_ruleset(FN_ARGUMENT, {"spots.yaml": SPOTS})
    gen = compiled(path, {}).compiled.gen
    assert gen is not None
    for block in gen.sources.dump().split("\n\n"):
        assert set(re.findall(r"\b(_u[0-9]+)\b", block)) <= set(re.findall(r"\((_u[0-9]+) := ", block)), block
    for seed in range(3):
        seen = _played(path, seed)
        assert all(x == seen[0] for x in seen), seed
        assert seen[0][1] is None, seen[0]
