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


def _comprehension(e: A.Aggregate | A.ListComp) -> list[A.Expr]:
    key = [e.key] if isinstance(e, A.Aggregate) and e.key is not None else []
    return [e.elem, e.iterable] + ([] if e.where is None else [e.where]) + key


EXPRESSIONS: dict[type[A.Expr], ExprConstruct] = {
    c.node: c
    for c in (
        ExprConstruct(A.IntLit, "123"),
        ExprConstruct(A.StrLit, '"text"'),
        ExprConstruct(A.BoolLit, "true | false"),
        ExprConstruct(A.NoneLit, "none"),
        ExprConstruct(A.Name, "NAME"),
        ExprConstruct(A.Attr, "EXPR.NAME", children=lambda e: [e.obj]),
        ExprConstruct(A.Index, "EXPR[EXPR]", children=lambda e: [e.obj, e.index]),
        ExprConstruct(A.Cell, "GRID[COLUMN, ROW]", children=lambda e: [e.obj, e.col, e.row]),
        ExprConstruct(A.Call, "FUNC(ARGS)", children=lambda e: [e.func, *e.args]),
        ExprConstruct(A.Aggregate, "AGG(EXPR for NAME in ITEMS [where COND]) | sort(EXPR for NAME in ITEMS [where "
                      "COND] [by KEY])", children=_comprehension,
                      binds=lambda e: (e.var,)),
        ExprConstruct(A.ListLit, "[EXPR, …]", children=lambda e: list(e.items)),
        ExprConstruct(A.ListComp, "[EXPR for NAME in ITEMS [where COND]]", children=_comprehension,
                      binds=lambda e: (e.var,)),
        ExprConstruct(A.Unary, "-EXPR | not EXPR", children=lambda e: [e.operand]),
        ExprConstruct(A.Binary, "EXPR OP EXPR", children=lambda e: [e.left, e.right]),
        ExprConstruct(A.Cond, "if COND then EXPR else EXPR", children=lambda e: [e.test, e.then, e.orelse]),
        # only as a `fn` body: `{ let NAME = VALUE … return EXPR }`; NAME is bound in the body, not in VALUE
        ExprConstruct(A.LetIn, "let NAME = VALUE … return EXPR (a fn body)", children=lambda e: [e.value, e.body],
                      binds=lambda e: (e.name,)),
    )
}


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
