"""Hypothesis strategies that write well-typed rulesets, for the compile-mode differential fuzzer.

Every expression is generated at a known type (int, bool, text) from what is in scope, so the checker accepts
nearly every example; what varies is the shape: operators, aggregates, `fn` calls that get inlined, local
variables, loops, choices, card moves, logs — and the two things that broke generated code before: string
literals and variable names that look like the generator's own helper names, and deep expressions.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

# Names the code generator gives its helpers (interpreter/codegen/*: _x loop items, _E locals, _P parameters,
# _k constants, _t/_v/_c/_b temporaries, _r/_out results), plus the generated functions' own parameters.
HELPER_LIKE = ["_x4", "_x7", "_E2", "_E5", "_P0", "_P1", "_Pself", "_k3", "_t1", "_v2", "_c1", "_b1", "_r", "_out",
               "env", "s", "fr"]
TEXTS = [*HELPER_LIKE, "", "a b", "it's", 'say "hi"', "x\\ny", "{}", "{x}", "None", "True"]
LOCALS = ["_x4", "_E2", "_P0", "v", "env_", "_k3"]

HEADER = '''game "Fuzz" { players 2..3
  step_limit 20000 }
card Tok { v: int }
cards "tok.yaml"
zone bag: deck hidden of Tok
zone row: row public of Tok
zone hand: per player set owner of Tok
counter per player sc -40..40
counter g0 -60..60
counter g1 0..30
flag f0
fn twice(k: int) -> int = k + k
fn pick(t: text, u: text) -> int = count(x for x in [t, "_x4", u] where x == u)
fn named(k: int) -> text = if k > 0 then "_x7" else "_E2"
'''

CARDS = '''kind: Tok
start: bag
cards:
  - name: One
    count: 3
    v: 1
  - name: Two
    count: 2
    v: 2
  - name: Five
    count: 1
    v: 5
'''


@dataclass
class Scope:
    """What an expression may read: local ints and the player variable, if any."""

    ints: list[str] = field(default_factory=list)
    player: str | None = None


def _lit_text(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def text_literal() -> st.SearchStrategy[str]:
    """A text literal: often exactly a helper name the generator may have given something in this ruleset."""
    numbered = st.builds(lambda p, i: f"{p}{i}", st.sampled_from(["_x", "_x", "_E", "_k", "_P"]), st.integers(0, 30))
    return st.one_of(numbered, st.sampled_from(TEXTS))


@st.composite
def int_expr(draw: st.DrawFn, scope: Scope, depth: int = 3) -> str:
    leaves = ["g0", "g1", "size(row)", "size(bag)", "round", *scope.ints]
    if scope.player:
        leaves.append(f"{scope.player}.sc")
    if depth <= 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.one_of(st.integers(-5, 9).map(str), st.sampled_from(leaves)))
    sub = int_expr(scope, depth - 1)
    kind = draw(st.integers(0, 8))
    if kind == 8:  # an inlined call inside a loop, the loop's item passed beside a literal
        lit, other = _lit_text(draw(text_literal())), _lit_text(draw(text_literal()))
        return f"sum(pick(z, {lit}) for z in [{other}, {draw(text_expr(scope, depth - 1))}])"
    if kind <= 2:
        return f"({draw(sub)} {draw(st.sampled_from(['+', '-', '*']))} {draw(sub)})"
    if kind == 3:
        return f"(if {draw(bool_expr(scope, depth - 1))} then {draw(sub)} else {draw(sub)})"
    if kind == 4:
        return f"twice({draw(sub)})"
    if kind == 5:
        return f"pick({draw(text_expr(scope, depth - 1))}, {draw(text_expr(scope, depth - 1))})"
    if kind == 6:
        inner = Scope([*scope.ints, "y"], scope.player)
        agg = draw(st.sampled_from(["count", "sum"]))
        elem = "" if agg == "count" else f"{draw(int_expr(inner, depth - 1))} "
        where = draw(bool_expr(inner, depth - 1))
        return f"{agg}({elem or 'y '}for y in [1, 2, {draw(sub)}] where {where})"
    return f"sum(c.v for c in row where c.v > {draw(sub)})"


@st.composite
def bool_expr(draw: st.DrawFn, scope: Scope, depth: int = 3) -> str:
    if depth <= 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(["true", "false", "f0", "(g0 > 0)"]))
    kind = draw(st.integers(0, 4))
    if kind == 0:
        op = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]))
        return f"({draw(int_expr(scope, depth - 1))} {op} {draw(int_expr(scope, depth - 1))})"
    if kind == 1:
        return f"({draw(text_expr(scope, depth - 1))} == {draw(text_expr(scope, depth - 1))})"
    if kind == 2:
        return f"(not {draw(bool_expr(scope, depth - 1))})"
    if kind == 3:
        op = draw(st.sampled_from(["and", "or"]))
        return f"({draw(bool_expr(scope, depth - 1))} {op} {draw(bool_expr(scope, depth - 1))})"
    return f"any(t == {draw(text_expr(scope, depth - 1))} for t in [{', '.join(map(_lit_text, HELPER_LIKE[:6]))}])"


@st.composite
def text_expr(draw: st.DrawFn, scope: Scope, depth: int = 2) -> str:
    if depth <= 0 or draw(st.integers(0, 2)) == 0:
        return _lit_text(draw(text_literal()))
    kind = draw(st.integers(0, 2))
    if kind == 0:
        return f"named({draw(int_expr(scope, depth - 1))})"
    if kind == 1:
        return f"({draw(text_expr(scope, depth - 1))} + {draw(text_expr(scope, depth - 1))})"
    return (f"(if {draw(bool_expr(scope, depth - 1))} then {draw(text_expr(scope, depth - 1))} "
            f"else {draw(text_expr(scope, depth - 1))})")


@st.composite
def statement(draw: st.DrawFn, scope: Scope, depth: int = 2) -> list[str]:
    """One statement (as lines); may bind a local that later statements of the same block read."""
    kind = draw(st.integers(0, 9 if depth > 0 else 6))
    if kind == 0:
        return [f"g0 = {draw(int_expr(scope))}"]
    if kind == 1:
        return [f"g1 += {draw(int_expr(scope))}"]
    if kind == 2:
        return [f"f0 = {draw(bool_expr(scope))}"]
    if kind == 3:
        return [f'log "{{}} / {{}} / {{}}", {draw(text_expr(scope))}, {draw(int_expr(scope))}, '
                f"{_lit_text(draw(st.sampled_from(TEXTS)))}"]
    if kind == 4:
        free = [n for n in LOCALS if n not in scope.ints]
        value = draw(int_expr(scope))  # before the name is bound: `let v = v` reads nothing
        if not free:
            return [f"g0 = {value}"]
        name = draw(st.sampled_from(free))
        scope.ints.append(name)
        return [f"let {name} = {value}"]
    if kind == 5:
        return ["if size(bag) > 0 { move top(bag) to row }"]
    if kind == 6:
        return ["choose c from row by first optional { move c to bag bottom }"]
    if kind == 7:
        body = draw(block(Scope(list(scope.ints), "p"), depth - 1))
        gain = draw(int_expr(Scope(list(scope.ints), "p")))
        return ["for p in players {", *(f"  {line}" for line in body), f"  p.sc += {gain}", "}"]
    if kind == 8:
        then = draw(block(Scope(list(scope.ints), scope.player), depth - 1))
        other = draw(block(Scope(list(scope.ints), scope.player), depth - 1))
        return [f"if {draw(bool_expr(scope))} {{", *(f"  {line}" for line in then), "} else {",
                *(f"  {line}" for line in other), "}"]
    return ["for c in row {", f"  if c.v > {draw(int_expr(scope, 1))} {{ g1 += c.v }}", "}"]


@st.composite
def block(draw: st.DrawFn, scope: Scope, depth: int = 2) -> list[str]:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        lines += draw(statement(scope, depth))
    return lines


@st.composite
def rulesets(draw: st.DrawFn) -> str:
    """A whole ruleset text (its card file is :data:`CARDS`, written as ``tok.yaml`` beside it)."""
    body = draw(block(Scope(), 2))
    deep = draw(st.integers(0, 4)) == 0
    if deep:  # a long chain: at most the checker's limit runs, past it is a located E003
        n = draw(st.integers(40, 130))
        body.append("g1 = " + " + ".join(["1"] * n) + " - " + str(n - 3))
    rounds = draw(st.integers(1, 3))
    lines = [HEADER, "setup { shuffle bag }", "round {", '  step s "S" {',
             *(f"    {line}" for line in body), f"    if round >= {rounds} {{ end game }}", "  }", "}",
             "score(p) = p.sc + g0"]
    return "\n".join(lines) + "\n"
