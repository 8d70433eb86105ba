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

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from liturgy.dsl.constructs import expressions, statements
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import scans

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen

PREFIX = "_Ks"  # the tables' names in generated code: drains.py takes ``_Ks12[...]`` as a plain zone index


def strided(gen: ExprGen, owner: A.Expr, base: int, stride: int, missing: str) -> str:
    """Source for ``base + index(owner) * stride``, the slot of a per-player or per-card item (``missing``: the
    error when ``owner`` is ``none``, "no player" or "no card")."""
    local, times = gen._local(owner), f" * {stride}" if stride != 1 else ""  # a stride of 1: no multiply
    if local is not None and local.isdigit():  # a seat written out (inline_aggregates.py): a constant slot
        return str(base + int(local) * stride)
    seats = missing == "no player" and stride != 1 and gen.comp.layout.max_players > 0
    if local is not None and seats and (gen.is_nonnull(local) or proven(gen, owner)):
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


def proven(gen: ExprGen, e: A.Expr) -> bool:
    """Whether ``e`` is a read of a `for` loop's variable, inside its body, where the loop runs over the seats or a
    zone and nothing in the body binds or assigns that name: such a read is always the loop's current item, a
    seat or a card, never `none` (:func:`loop_items`)."""
    known = gen.ns.get("_Ks_proven")
    if not isinstance(known, frozenset):
        known = gen.ns["_Ks_proven"] = loop_items(gen.comp.prog)
    return id(e) in known


def loop_items(prog: Any) -> frozenset[int]:
    """The ids of the name nodes that read a `for` loop's variable inside the loop's body, for every `for` over a
    list of seats (:func:`.scans.seat_list`: ``players``, ``players_from(…)``, a filter of them) or over a zone,
    whose body (statements and expressions, at any depth) neither binds the name again (a `let`, an inner loop, a
    choice, a comprehension or aggregate, `transfer … as`) nor assigns it. The step machine writes the item to the
    frame's variable at every turn and nothing else writes it there while the body runs, so every such read gives
    an item: a seat or a card, which is never `none`. The same for a `choose` from a zone or the seats (its body
    runs with the chosen item, game.py binds it from the options, which are the source's items, and a `none`
    pass goes to the end instead) and a `simultaneously` over the seats without `by` (its body binds each seat
    and the item it chose). Each body is walked once per binding around it."""
    found: set[int] = set()
    blocks = [prog.setup, prog.finish, *(st.body for st in prog.steps), *(p.body for p in prog.procs.values()),
              *(h.body for hs in prog.handlers.values() for h in hs)]
    for block in blocks:
        for st in statements.walk(block):
            if isinstance(st, A.For) and _items_never_none(st.iterable):
                _prove(found, st.var, st.body, [])
            elif isinstance(st, A.Choose) and _items_never_none(st.source):  # the chosen item, in its body
                _prove(found, st.var, st.body, [st.where])
            elif isinstance(st, A.Simultaneous):  # each deciding seat, and its chosen item, in the body
                if st.by is None and scans.seat_list(st.players):
                    _prove(found, st.player_var, st.body, [st.source, st.where])
                if _items_never_none(st.source):
                    _prove(found, st.var, st.body, [st.where])
    return frozenset(found)


def _prove(found: set[int], var: str, body: list[A.Stmt], more: list[A.Expr | None]) -> None:
    """Add the reads of ``var`` in ``body`` and the expressions ``more`` (a choice's filter, its items) unless
    any of them binds or assigns ``var`` again."""
    tops = [e for e in more if e is not None]
    inner = [n for top in tops for n in expressions.walk(top)]
    if _rebinds(body, var) or any(var in expressions.EXPRESSIONS[type(e)].binds(e) for e in inner):
        return
    found.update(id(n) for n in [*_names(body), *inner] if isinstance(n, A.Name) and n.ref == ("local", var))


def _items_never_none(e: A.Expr) -> bool:
    return scans.seat_list(e) or (e.ty is not None and e.ty.kind == "zone")


def _exprs(block: list[A.Stmt]) -> Iterator[A.Expr]:
    for st in statements.walk(block):
        for top in statements.STATEMENTS[type(st)].exprs(st):
            yield from expressions.walk(top)


def _names(block: list[A.Stmt]) -> Iterator[A.Name]:
    return (e for e in _exprs(block) if isinstance(e, A.Name))


def _rebinds(block: list[A.Stmt], var: str) -> bool:
    for st in statements.walk(block):
        decl = statements.STATEMENTS[type(st)]
        if var in decl.binds(st) or var in decl.binds_inside(st):
            return True
        if isinstance(st, A.Assign) and isinstance(st.target, A.Name) and st.target.id == var:
            return True
    return any(var in expressions.EXPRESSIONS[type(e)].binds(e) for e in _exprs(block))
