"""A construct's meaning as a lowering into the core constructs: what an extension entry carries.

An extension statement or expression (dsl/constructs/extensions.py) says in one :class:`Extension` how it is
written (its keyword and the rest of its grammar), how its node is built, and what it means: a function from
its node to the core statements (a statement) or the core expression (an expression) that do the same. The
parser lowers the node as soon as it is built (dsl/frontend/extbuild.py), so every later pass sees only core
constructs. This module stands alone (the syntax tree only), so a registry entry can use it.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from liturgy.dsl.diagnostics import Span
from liturgy.dsl.frontend import ast as A

# a fresh name for a variable the lowering introduces: `#` starts a comment, so no author can write one
Fresh = Callable[[str], str]


@dataclass(frozen=True)
class Extension:
    """A construct's syntax and meaning, all in its registry entry.

    ``rule`` follows the keyword: ``expr "," expr`` for `swap a, b`. ``build`` gets the node's span and the
    values the rule matched (expressions, blocks, names as text), in order; ``lower`` gets the node and a maker
    of fresh names and returns the core statements (a statement) or the core expression (an expression) with
    the same meaning.
    """

    keyword: str
    rule: str
    build: Callable[[Span, list[Any]], Any]
    lower: Callable[[Any, Fresh], Any]

    @property
    def terminal(self) -> str:
        return "EXT_" + self.keyword.upper()


def fresh_maker(number: int) -> Fresh:
    """Fresh names for the ``number``-th extension node of a file: the same on every parse of the same text, and
    under any layout (`liturgy fmt` compares the program before and after)."""
    count = [0]

    def fresh(stem: str) -> str:
        count[0] += 1
        return f"{stem}#{number}.{count[0]}"

    return fresh


def lower_stmt(node: A.Stmt, ext: Extension, number: int) -> list[A.Stmt]:
    lowered = ext.lower(node, fresh_maker(number))
    return list(lowered) if isinstance(lowered, list) else [lowered]


def lower_expr(node: A.Expr, ext: Extension, number: int) -> A.Expr:
    lowered: A.Expr = ext.lower(node, fresh_maker(number))
    return lowered
