"""Walks over checked statement blocks, through the registry's child blocks (dsl/constructs/statements.py):
the steps a block skips to, whether the program contains some statement kind; and what a `describe` may show."""

from __future__ import annotations

from collections.abc import Iterator

from liturgy.dsl.checker import types as T
from liturgy.dsl.checker.program import Program
from liturgy.dsl.checker.types import Ty
from liturgy.dsl.constructs.statements import walk as walk_statements
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.frontend.cards import CardDef


def _skip_targets(stmts: list[A.Stmt]) -> list[str]:
    return [s.step for s in walk_statements(stmts) if isinstance(s, A.SkipTo)]


def describable(prog: Program, name: str) -> Ty | None:
    """The type of the options a `describe NAME(...)` labels: a card kind, an enum, `player`, `bool` or `int`."""
    if name in prog.kinds:
        return T.card(name)
    if name in prog.enums:
        return Ty("enum", arg=name)
    return {"player": T.PLAYER, "bool": T.BOOL, "int": T.INT}.get(name)


def top_bodies(prog: Program) -> list[list[A.Stmt]]:
    """Every statement block of the program at its top: setup, finish, steps, procs, handlers and card effects."""
    bodies: list[list[A.Stmt]] = [prog.setup, prog.finish]
    bodies += [s.body for s in prog.steps]
    bodies += [p.body for p in prog.procs.values()]
    bodies += [h.body for hs in prog.handlers.values() for h in hs]
    for c in prog.cards:
        bodies += effect_bodies(prog, c)
    return bodies


def all_statements(prog: Program) -> Iterator[A.Stmt]:
    """Every statement of the program, nested ones and card effects included."""
    for b in top_bodies(prog):
        yield from walk_statements(b)


def _contains(prog: Program, cls: type) -> bool:
    return any(isinstance(s, cls) for s in all_statements(prog))


def effect_bodies(prog: Program, card: CardDef) -> list[list[A.Stmt]]:
    """The statement blocks of a card's effect fields (its other list values are data: lists of ints…)."""
    types = prog.field_types.get(card.kind, {})
    return [v for k, v in card.values.items() if isinstance(v, list) and k in types and types[k].kind == "effect"]
