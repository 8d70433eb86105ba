"""Walks over checked statement blocks: every statement, the steps a block skips to, what a `describe`
may show, and whether the program contains some statement kind."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from liturgy.dsl.checker import types as T
from liturgy.dsl.checker.program import Program
from liturgy.dsl.checker.types import Ty
from liturgy.dsl.frontend import ast as A


def _walk(stmts: list[A.Stmt]) -> Iterator[A.Stmt]:
    """Every statement in ``stmts``, nested blocks included."""
    stack: list[Any] = list(stmts)
    while stack:
        s = stack.pop()
        yield s
        for attr in ("body", "orelse", "none_body"):
            v = getattr(s, attr, None)
            if isinstance(v, list):
                stack.extend(v)
        if isinstance(s, A.If):
            for _, body in s.branches:
                stack.extend(body)


def _skip_targets(stmts: list[A.Stmt]) -> list[str]:
    return [s.step for s in _walk(stmts) if isinstance(s, A.SkipTo)]


def describable(prog: Program, name: str) -> Ty | None:
    """The type of the options a `describe NAME(...)` labels: a card kind, an enum, `player` or `bool`."""
    if name in prog.kinds:
        return T.card(name)
    if name in prog.enums:
        return Ty("enum", arg=name)
    return {"player": T.PLAYER, "bool": T.BOOL}.get(name)


def _contains(prog: Program, cls: type) -> bool:
    bodies: list[list[A.Stmt]] = [prog.setup, prog.finish]
    bodies += [s.body for s in prog.steps]
    bodies += [p.body for p in prog.procs.values()]
    bodies += [h.body for hs in prog.handlers.values() for h in hs]
    for c in prog.cards:
        bodies += [v for v in c.values.values() if isinstance(v, list)]
    return any(isinstance(s, cls) for b in bodies for s in _walk(b))
