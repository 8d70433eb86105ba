"""The slot of a player's counter or zone, ``base + p * stride``, read from a table of the seats' slots.

Every ``p.health`` or ``p.hand`` of a player held in a variable was written as ``(base + p * stride)``: two
integer operations per read (Python 3.11 adds and multiplies through its generic long routines, and a result
above 256 is a new object), in every loop over the seats and every statement about a player. Where the player
is proven to be a seat, the slot is read from a constant tuple of the ``max_players`` slots instead
(``_Ks12[p]``: one subscript, specialised for a tuple and an int): the same integer, since a seat is an index
below ``max_players`` (the layout sizes the player blocks so, compiler/core.py). Measured with callgrind on a
four-seat filter of two flags: 88.3 M → 75.9 M instructions for 20,000 calls (slots below 256), 112.5 M → 82.3 M
(slots above).

Only where the value cannot be ``none``: a value the generator proved never ``none`` (a loop over the seats or
a zone, a value already checked), or one that has just been tested (the "no player" test stays, the table read
follows it). A plain variable read with no proof (``env['p']``, a ``let``) keeps the arithmetic: a ``none``
there fails as the closures fail, with Python's own message for ``None * stride``, and a table read would fail
with another. Cards are left as they are (their number is not part of the layout, and most card strides are 1).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from liturgy.dsl.frontend import ast as A
    from liturgy.interpreter.codegen.exprgen import ExprGen

PREFIX = "_Ks"  # the tables' names in generated code: drains.py takes ``_Ks12[...]`` as a plain zone index


def strided(gen: ExprGen, owner: A.Expr, base: int, stride: int, missing: str) -> str:
    """Source for ``base + index(owner) * stride``, the slot of a per-player or per-card item (``missing``: the
    error when ``owner`` is ``none``, "no player" or "no card")."""
    local, times = gen._local(owner), f" * {stride}" if stride != 1 else ""  # a stride of 1: no multiply
    if local is not None and local.isdigit():  # a seat written out (inline_aggregates.py): a constant slot
        return str(base + int(local) * stride)
    seats = missing == "no player" and stride != 1 and gen.comp.layout.max_players > 0
    if local is not None and seats and gen.is_nonnull(local):
        return f"{table(gen, base, stride)}[{local}]"
    if local is not None and (local.startswith("env[") or local in gen.loop_locals or local in gen.plain
                              or gen.is_nonnull(local)):
        return f"({base} + {local}{times})"  # a plain local: no "no player" check, as in the closures
    src = gen.src(owner)
    if src.isdigit():  # a seat folded to its number (`players[0]`): the zone or slot is a constant
        return str(base + int(src) * stride)
    t = gen._name("_t")
    if seats:  # tested first, as before: a seat once it is not `none`
        return f"({table(gen, base, stride)}[{t}] if ({t} := {src}) is not None else _no_card({missing!r}))"
    return f"({base} + (({t}) if ({t} := {src}) is not None else _no_card({missing!r})){times})"


def table(gen: ExprGen, base: int, stride: int) -> str:
    """The name of the constant tuple of every seat's slot ``base + seat * stride``, one per (base, stride)."""
    known = gen.ns.get("_Ks_made")
    if not isinstance(known, dict):
        known = gen.ns["_Ks_made"] = {}
    name = known.get((base, stride))
    if name is None:
        name = known[(base, stride)] = gen._name(PREFIX)
        gen.ns[name] = tuple(base + p * stride for p in range(gen.comp.layout.max_players))
    return str(name)
