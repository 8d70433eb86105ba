"""Syntax-tree builders for rule modes (`mode NAME { … }`, a mode's placed steps, `enter` / `leave`) and for
the statements that change a graph during play (`link` / `unlink`).

A mixin of the parser's builder (dsl/frontend/parser.py ``_AstBuilder``): the fast driver and Lark's tree
both call builder methods by grammar rule name, so these rules need only be methods of that class; they live
here to keep the parser module small.
"""

from __future__ import annotations

import ast as pyast
from typing import Any, Protocol

from liturgy.dsl.diagnostics import Span
from liturgy.dsl.frontend import ast as A


class _Spans(Protocol):
    def _s(self, meta: Any) -> Span: ...

    def _ts(self, tok: Any) -> Span: ...


def _text(tok: Any) -> str:
    """A string literal's value (escapes decoded as the parser does)."""
    text = str(tok)
    if "\\" not in text:
        return text[1:-1]
    try:
        return str(pyast.literal_eval(text))
    except (ValueError, SyntaxError):
        return text[1:-1]


class ModeBuilder:
    """Builds the rule-mode nodes."""

    def mode_decl(self: _Spans, meta: Any, c: list[Any]) -> A.Decl:
        return A.ModeDecl(self._s(meta), str(c[0]), [d for d in c[1:] if d is not None])

    def include_decl(self: _Spans, meta: Any, c: list[Any]) -> A.Decl:
        return A.IncludeDecl(self._s(meta), _text(c[0]))

    def mode_step(self: _Spans, meta: Any, c: list[Any]) -> A.StepDecl:
        name, place, anchor, title, body = c
        return A.StepDecl(self._s(meta), str(name), _text(title) if title is not None else str(name), body,
                          place=str(place), anchor=str(anchor), anchor_span=self._ts(anchor))

    def step_place(self: _Spans, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    def enter_stmt(self: _Spans, meta: Any, c: list[Any]) -> A.Stmt:
        return A.ModeSwitch(self._s(meta), c[0], True)

    def leave_stmt(self: _Spans, meta: Any, c: list[Any]) -> A.Stmt:
        return A.ModeSwitch(self._s(meta), c[0], False)

    def link_stmt(self: _Spans, meta: Any, c: list[Any]) -> A.Stmt:
        return A.GraphLink(self._s(meta), c[0], c[1], str(c[2]), self._ts(c[2]), c[3], True)

    def unlink_stmt(self: _Spans, meta: Any, c: list[Any]) -> A.Stmt:
        return A.GraphLink(self._s(meta), c[0], c[1], str(c[2]), self._ts(c[2]), c[3], False)
