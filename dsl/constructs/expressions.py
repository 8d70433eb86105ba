"""Every expression kind of the rules language, declared once.

A declaration names the AST node class and its surface syntax, how to reach its child expressions (for the
walkers: which locals an expression reads, whether it draws random numbers…), and the names it binds for
some of its children (an aggregate's or a comprehension's loop variable). tests/test_registry.py fails when an
expression class has no entry here or a pass has no handler for one.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from liturgy.dsl.constructs.lowering import Extension
from liturgy.dsl.constructs.sample import Sample, expr
from liturgy.dsl.frontend import ast as A


def _leaf(e: Any) -> list[A.Expr]:
    return []


def _no_names(e: Any) -> tuple[str, ...]:
    return ()


@dataclass(frozen=True)
class ExprConstruct:
    """One expression kind: its node, its syntax and how to reach its children."""

    node: type[A.Expr]
    syntax: str  # as an author writes it
    children: Callable[[Any], list[A.Expr]] = _leaf  # child expressions, in source order
    # names bound while evaluating some children (`for NAME in …`): the element, the `where` condition
    binds: Callable[[Any], tuple[str, ...]] = _no_names
    samples: tuple[Sample, ...] = ()  # how the cross-mode fuzzer writes it (dsl/constructs/sample.py)
    # a construct registered with its own syntax and meaning (dsl/constructs/extensions.py), else None
    extension: Extension | None = None


def _comprehension(e: A.Aggregate | A.ListComp) -> list[A.Expr]:
    key = [e.key] if isinstance(e, A.Aggregate) and e.key is not None else []
    return [e.elem, e.iterable] + ([] if e.where is None else [e.where]) + key


EXPRESSIONS: dict[type[A.Expr], ExprConstruct] = {
    c.node: c
    for c in (
        ExprConstruct(A.IntLit, "123", samples=(expr("int", "7"), expr("int", "0"))),
        ExprConstruct(A.StrLit, '"text"', samples=(expr("text", '"a b"'),)),
        ExprConstruct(A.BoolLit, "true | false", samples=(expr("bool", "true"), expr("bool", "false"))),
        ExprConstruct(A.NoneLit, "none", samples=(expr("bool", "(top(row) == none)"),)),
        ExprConstruct(A.Name, "NAME", samples=(expr("int", "g0"), expr("int", "{local}"), expr("bool", "f0"))),
        ExprConstruct(A.Attr, "EXPR.NAME", children=lambda e: [e.obj],
                      samples=(expr("int", "{p}.sc"), expr("int", "sum(c.v for c in row where c.v > {int})"))),
        ExprConstruct(A.Index, "EXPR[EXPR]", children=lambda e: [e.obj, e.index],
                      samples=(expr("int", "[{int}, {int}, 5][g1 % 3]"),)),
        ExprConstruct(A.Cell, "GRID[COLUMN, ROW]", children=lambda e: [e.obj, e.col, e.row],
                      samples=(expr("int", "cells[g1 % 3, 1]"),)),
        ExprConstruct(A.Call, "FUNC(ARGS)", children=lambda e: [e.func, *e.args],
                      samples=(expr("int", "twice({int})"), expr("int", "pick({text}, {text})"),
                               expr("text", "named({int})"), expr("int", "max({int}, size(row))"))),
        ExprConstruct(A.Aggregate, "AGG(EXPR for NAME in ITEMS [where COND]) | sort(EXPR for NAME in ITEMS [where "
                      "COND] [by KEY])", children=_comprehension,
                      binds=lambda e: (e.var,),
                      samples=(expr("int", "sum({int*} for {var} in [1, 2, {int}] where {bool*})"),
                               expr("int", "count({var} for {var} in [1, 2, {int}] where {bool*})"),
                               expr("bool", "any({var} > {int} for {var} in [g0, {int}])"),
                               # an inlined `fn` called with the loop's item beside a literal (the literal bug)
                               expr("int", "sum(pick({name}, {text}) for {name} in [{text}, {text}])"))),
        ExprConstruct(A.ListLit, "[EXPR, …]", children=lambda e: list(e.items),
                      samples=(expr("int", "size([{int}, {int}])"),)),
        ExprConstruct(A.ListComp, "[EXPR for NAME in ITEMS [where COND]]", children=_comprehension,
                      binds=lambda e: (e.var,),
                      samples=(expr("int", "size([{int*} for {var} in [1, {int}, 3] where {bool*}])"),)),
        ExprConstruct(A.Unary, "-EXPR | not EXPR", children=lambda e: [e.operand],
                      samples=(expr("int", "(-{int})"), expr("bool", "(not {bool})"))),
        ExprConstruct(A.Binary, "EXPR OP EXPR", children=lambda e: [e.left, e.right],
                      samples=(expr("int", "({int} + {int})"), expr("int", "({int} - {int})"),
                               expr("int", "({int} * {int})"), expr("int", "({int} / 3)"), expr("int", "({int} % 4)"),
                               expr("bool", "({int} < {int})"), expr("bool", "({int} == {int})"),
                               expr("bool", "({text} == {text})"), expr("bool", "({bool} and {bool})"),
                               expr("bool", "({bool} or {bool})"), expr("bool", "({int} in [1, 2])"),
                               expr("text", "({text} + {text})"))),
        ExprConstruct(A.Cond, "if COND then EXPR else EXPR", children=lambda e: [e.test, e.then, e.orelse],
                      samples=(expr("int", "(if {bool} then {int} else {int})"),
                               expr("text", "(if {bool} then {text} else {text})"))),
        # only as a `fn` body: `{ let NAME = VALUE … return EXPR }`; NAME is bound in the body, not in VALUE
        ExprConstruct(A.LetIn, "let NAME = VALUE … return EXPR (a fn body)", children=lambda e: [e.value, e.body],
                      binds=lambda e: (e.name,),
                      samples=(expr("fnbody", "{ let {var} = {int} let {bind} = {int*} return {int*} }"),)),
    )
}


def register(c: ExprConstruct) -> None:
    """Add an expression kind (an extension: dsl/constructs/extensions.py registers through here)."""
    if c.node in EXPRESSIONS:
        raise ValueError(f"expression {c.node.__name__} is already registered")
    EXPRESSIONS[c.node] = c


def unregister(node: type[A.Expr]) -> None:
    del EXPRESSIONS[node]


def children(e: A.Expr) -> list[A.Expr]:
    """The sub-expressions of ``e``."""
    return EXPRESSIONS[type(e)].children(e)


def walk(e: A.Expr) -> Iterator[A.Expr]:
    """``e`` and every expression nested in it (no particular order)."""
    stack = [e]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(EXPRESSIONS[type(n)].children(n))
