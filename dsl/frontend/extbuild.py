"""Syntax-tree builders for extension constructs (dsl/constructs/extensions.py): built, then lowered at once.

A mixin of the parser's builder (dsl/frontend/parser.py ``_AstBuilder``), like :mod:`.modebuild`. Every
extension statement is one alternative of the grammar rule ``extension_stmt`` and every extension expression
one of ``extension_expr``, each starting with its keyword as a named terminal, so the keyword says which
registry entry builds the node. The node is lowered here, before any pass sees it: a statement becomes the
list of core statements it means (spliced into its block by :func:`flat_block`), an expression the core
expression it means.
"""

from __future__ import annotations

from typing import Any, Protocol

from lark import Token
from liturgy.dsl.constructs.extensions import find
from liturgy.dsl.constructs.lowering import lower_expr, lower_stmt
from liturgy.dsl.diagnostics import Span
from liturgy.dsl.frontend import ast as A


class _Spans(Protocol):
    def _s(self, meta: Any) -> Span: ...


def _values(c: list[Any]) -> list[Any]:
    """What the rule matched after the keyword: names and strings as text, the rest as built."""
    return [str(v) if isinstance(v, Token) else v for v in c[1:]]


def flat_block(c: list[Any]) -> list[A.Stmt]:
    """A block's statements, an extension's lowering (a list) spliced in place."""
    out: list[A.Stmt] = []
    for s in c:
        if isinstance(s, list):
            out += s
        else:
            out.append(s)
    return out


def _number(builder: object) -> int:
    """How many extension nodes this builder (one parse of one text) has built, this one included: the fresh
    names of a lowering are numbered by it, so they are the same on every parse of the text."""
    n: int = builder.__dict__.get("_extension_nodes", 0) + 1
    builder.__dict__["_extension_nodes"] = n
    return n


class ExtensionBuilder:
    """The two builder methods every extension construct goes through."""

    def extension_stmt(self: _Spans, meta: Any, c: list[Any]) -> list[A.Stmt]:
        _, ext = find(str(c[0]), "stmt")
        return lower_stmt(ext.build(self._s(meta), _values(c)), ext, _number(self))

    def extension_expr(self: _Spans, meta: Any, c: list[Any]) -> A.Expr:
        _, ext = find(str(c[0]), "expr")
        return lower_expr(ext.build(self._s(meta), _values(c)), ext, _number(self))
