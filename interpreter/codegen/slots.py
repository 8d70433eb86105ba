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

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from liturgy.dsl.constructs import expressions, statements
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import cse, scans

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen
    from liturgy.interpreter.codegen.stmtgen import StmtGen

_NO_NAMES = expressions.ExprConstruct.binds  # the default: an expression kind that binds no name
Key = tuple[str, str]  # ("proc", name) or ("field", an effect field's name)
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
    if seats and proven(gen, owner):  # `first`, always a seat (:func:`first_is_seat`): no test
        return f"{table(gen, base, stride)}[{src}]"
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
    seat or a card, never `none` (:func:`loop_items`, computed once per checked program)."""
    known = gen.ns.get("_Ks_proven")
    if not isinstance(known, Proofs):
        known = gen.ns["_Ks_proven"] = _of(gen.comp.prog)
    if isinstance(e, A.Name) and e.ref == ("first",):
        return known.first  # `first` holds a seat at every moment (:func:`first_is_seat`)
    return id(e) in known.items


# the proofs of each checked program still alive: one program is often compiled several times (compile modes,
# checked and unchecked variants), and the walk is a few percent of a large ruleset's compile
@dataclass(frozen=True)
class Proofs:
    """What a program's walk proved: the ids of the reads proven a seat or a card, and whether `first` is always a
    seat (not a tuple: a generated namespace's tuples starting ``_Ks`` are the slot tables)."""

    items: frozenset[int]
    first: bool


_DONE: dict[int, tuple[weakref.ref[Any], Proofs]] = {}


def _of(prog: Any) -> Proofs:
    got = _DONE.get(id(prog))
    if got is not None and got[0]() is prog:
        return got[1]
    proofs = _proofs(prog)
    _DONE[id(prog)] = (weakref.ref(prog), proofs)
    weakref.finalize(prog, _DONE.pop, id(prog), None)
    return proofs


def loop_items(prog: Any) -> frozenset[int]:
    """The proven reads of :func:`_proofs` (tests ask for them by node)."""
    return _proofs(prog).items


def first_is_seat(prog: Any) -> bool:
    """Whether `first` holds a seat at every moment of every game of ``prog`` (:func:`_proofs`)."""
    return _proofs(prog).first


def _proofs(prog: Any) -> Proofs:
    """The ids of the name nodes that read a `for` loop's variable inside the loop's body, for every `for` over a
    list of seats (:func:`.scans.seat_list`: ``players``, ``players_from(…)``, a filter of them) or over a zone,
    whose body (statements and expressions, at any depth) neither binds the name again (a `let`, an inner loop, a
    choice, a comprehension or aggregate, `transfer … as`) nor assigns it. The step machine writes the item to the
    frame's variable at every turn and nothing else writes it there while the body runs, so every such read gives
    an item: a seat or a card, which is never `none`. The same for a `choose` from a zone or the seats (its body
    runs with the chosen item, game.py binds it from the options, which are the source's items, and a `none`
    pass goes to the end instead) and a `simultaneously` over the seats without `by` (its body binds each seat
    and the item it chose). Each body is walked once per binding around it.

    And whether `first` is always a seat: it starts as seat 0 (the engine's template), only an assignment
    statement writes it (the checker's E124 lists it among what `=` may assign; nothing else in the engine writes
    its slot), and every `first = …` of the program gives a seat or fails (:func:`_seat_value`), so by induction
    over the writes it never holds `none`. Then its reads are proven too, and so are the parameters every call
    passes `first`."""
    facts = _Facts()
    found: set[int] = set()
    effects = _effects(prog)
    blocks: list[tuple[list[A.Stmt], Key | None]] = [
        (prog.setup, None), (prog.finish, None), *((st.body, None) for st in prog.steps),
        *((p.body, ("proc", p.name)) for p in prog.procs.values()),
        *((h.body, None) for hs in prog.handlers.values() for h in hs),
        *((b, ("field", name)) for name, bs in effects.items() for b in bs)]
    sites: list[tuple[Key, list[A.Expr], Key | None]] = []  # every `do` of a proc or an effect, and where it is
    done: set[int] = set()
    firsts: list[A.Assign] = []  # every assignment to `first`
    for block, ctx in blocks:
        for st in statements.walk(block):
            if isinstance(st, A.Assign) and st.target.ref == ("first",) and id(st) not in done:
                firsts.append(st)
                done.add(id(st))
            if isinstance(st, A.For) and _items_never_none(st.iterable):
                _prove(facts, found, st.var, st.body, [])
            elif isinstance(st, A.Choose) and _items_never_none(st.source):  # the chosen item, in its body
                _prove(facts, found, st.var, st.body, [st.where])
            elif isinstance(st, A.Simultaneous):  # each deciding seat, and its chosen item, in the body
                if st.by is None and scans.seat_list(st.players):
                    _prove(facts, found, st.player_var, st.body, [st.source, st.where])
                if _items_never_none(st.source):
                    _prove(facts, found, st.var, st.body, [st.where])
            elif (isinstance(st, A.Do) and isinstance(st.call, A.Call) and (callee := _callee(st.call)) is not None
                    and id(st.call) not in done):
                sites.append((callee, list(st.call.args), ctx))
                done.add(id(st.call))
    first = all(st.op == "=" and _seat_value(st.value, found) for st in firsts)
    found |= _params(prog, facts, sites, effects, found, first)
    return Proofs(frozenset(found), first)


def _seat_value(e: A.Expr, items: set[int]) -> bool:
    """Whether ``e`` gives a seat or fails, never `none`, when `first` is a seat: `first`, a proven read, a
    `random(…)` draw from or a `[…][i]` of a list of seats (both fail on an empty list or an index out of range,
    helpers.py and the closures alike), a `next_player(…)` (a row of the turn orders), or a condition of two."""
    if isinstance(e, A.Name):
        return e.ref == ("first",) or id(e) in items
    if isinstance(e, A.Cond):
        return _seat_value(e.then, items) and _seat_value(e.orelse, items)
    if isinstance(e, A.Index):
        return e.ref != ("icounter",) and scans.seat_list(e.obj)
    ref: Any = e.ref
    if isinstance(e, A.Call) and ref is not None and ref[0] == "call_builtin":
        if ref[1] == "next_player":
            return True
        return ref[1] == "random" and len(e.args) == 1 and scans.seat_list(e.args[0])
    return False


class _Facts:
    """The names bound or assigned anywhere in a statement block, and its reads of each variable: walked once per
    block asked about (a loop's or a proc's body), a nested block's taken from its own."""

    def __init__(self) -> None:
        self.known: dict[int, tuple[set[str], dict[str, list[int]]]] = {}

    def walk(self, block: list[A.Stmt]) -> tuple[set[str], dict[str, list[int]]]:
        got = self.known.get(id(block))
        if got is None:
            bound: set[str] = set()
            reads: dict[str, list[int]] = {}
            for st in block:
                decl = statements.STATEMENTS[type(st)]
                bound.update(decl.binds(st))
                bound.update(decl.binds_inside(st))
                if isinstance(st, A.Assign) and isinstance(st.target, A.Name):
                    bound.add(st.target.id)
                for top in decl.exprs(st):
                    _expr_facts(top, bound, reads)
                for child in decl.blocks(st):
                    c_bound, c_reads = self.walk(child)
                    bound |= c_bound
                    for var, ids in c_reads.items():
                        reads.setdefault(var, []).extend(ids)
            got = self.known[id(block)] = (bound, reads)
        return got


def _expr_facts(top: A.Expr, bound: set[str], reads: dict[str, list[int]]) -> None:
    table = expressions.EXPRESSIONS
    stack = [top]
    while stack:  # expressions.walk written in place: this runs over every loop body of a ruleset at each compile
        e = stack.pop()
        kind = table[type(e)]
        stack.extend(kind.children(e))
        if type(e) is A.Name:
            if e.ref == ("local", e.id):
                reads.setdefault(e.id, []).append(id(e))
        elif kind.binds is not _NO_NAMES:
            bound.update(kind.binds(e))


def _prove(facts: _Facts, found: set[int], var: str, body: list[A.Stmt], more: list[A.Expr | None]) -> None:
    """Add the reads of ``var`` in ``body`` and the expressions ``more`` (a choice's filter, its items) unless
    any of them binds or assigns ``var`` again."""
    bound, reads = facts.walk(body)
    more_bound: set[str] = set()
    more_reads: dict[str, list[int]] = {}
    for e in more:
        if e is not None:
            _expr_facts(e, more_bound, more_reads)
    if var in bound or var in more_bound:
        return
    found.update(reads.get(var, ()))
    found.update(more_reads.get(var, ()))


def _effects(prog: Any) -> dict[str, list[list[A.Stmt]]]:
    """Every card's body of each effect field, and the fields' default bodies, by field name."""
    out: dict[str, list[list[A.Stmt]]] = {}
    for kind in prog.kinds.values():
        for f in kind.fields:
            if isinstance(f.default, list):
                out.setdefault(f.name, []).append(f.default)
    for card in prog.cards:
        for name, value in card.values.items():
            if isinstance(value, list) and all(isinstance(s, A.Stmt) for s in value):
                out.setdefault(name, []).append(value)
    return out


def _params(prog: Any, facts: _Facts, sites: list[tuple[Key, list[A.Expr], Key | None]],
            effects: dict[str, list[list[A.Stmt]]], items: set[int], first: bool) -> set[int]:
    """The reads of a proc's or an effect field's parameter that every call passes a seat or a card: each call
    site's argument is a proven read (``items``), a card's own ``self``, or a proven parameter of the proc or
    effect the call is written in (the largest such set: every invocation starts at a call from outside them,
    whose argument is proven). A proc or an effect runs only through `do` (the checker refuses any other call of
    one, E141, and statements are only in setup, finish, steps, procs, handlers and the cards' effects), so
    ``sites``, the `do` statements found there, are every call there is. A parameter its own body binds or
    assigns again is not proven. ``first``: `first` is always a seat, so passing it proves the parameter."""
    bodies: dict[Key, list[list[A.Stmt]]] = {}
    names: dict[Key, tuple[str, ...] | None] = {}
    for proc in prog.procs.values():
        bodies[("proc", proc.name)] = [proc.body]
        names[("proc", proc.name)] = tuple(p.name for p in proc.params)
    for fname, bs in effects.items():
        bodies[("field", fname)] = bs
        found = {tuple(p.name for p in f.type.params) for kind in prog.kinds.values() for f in kind.fields
                 if f.name == fname}
        names[("field", fname)] = found.pop() if len(found) == 1 else None  # different parameters: not proven
    proven = {(key, i) for key, ps in names.items() if ps is not None for i in range(len(ps))}
    while True:
        changed = True
        while changed:
            changed = False
            for key, args, ctx in sites:
                ps = names.get(key)
                for i in range(len(ps) if ps is not None else 0):
                    if (key, i) in proven and not _passes(args[i] if i < len(args) else None, ctx, names, proven,
                                                          items, first):
                        proven.discard((key, i))
                        changed = True
        # only now the bodies of what is left: a parameter bound or assigned again there is not proven
        rebound = {(key, i) for key, i in proven if any(names[key][i] in facts.walk(b)[0]  # type: ignore[index]
                                                        for b in bodies[key])}
        if not rebound:
            break
        proven -= rebound
    out: set[int] = set()
    for key, i in proven:
        ps = names[key]
        assert ps is not None
        for b in bodies[key]:
            out.update(facts.walk(b)[1].get(ps[i], ()))
    return out


def _callee(call: A.Call) -> tuple[str, str] | None:
    """The proc or the card field a call names, or None for any other call."""
    ref: Any = call.ref
    if ref is None or ref[0] not in ("call_proc", "call_field"):
        return None
    if ref[0] == "call_proc":
        return ("proc", ref[1].name)
    return ("field", call.func.name) if isinstance(call.func, A.Attr) else None


def _passes(arg: A.Expr | None, ctx: tuple[str, str] | None, names: dict[tuple[str, str], tuple[str, ...] | None],
            proven: set[tuple[tuple[str, str], int]], items: set[int], first: bool) -> bool:
    """Whether a call's argument is never `none`: a proven read, a card's ``self`` in an effect, `first` when it is
    always a seat, or a proven parameter of the proc or effect the call is written in."""
    if not isinstance(arg, A.Name):
        return False
    if first and arg.ref == ("first",):
        return True
    if id(arg) in items or (arg.ref == ("self",) and ctx is not None and ctx[0] == "field"):
        return True
    ps = names.get(ctx) if ctx is not None else None
    return (ps is not None and arg.ref == ("local", arg.id) and arg.id in ps
            and (ctx, ps.index(arg.id)) in proven)


def _items_never_none(e: A.Expr) -> bool:
    return scans.seat_list(e) or (e.ty is not None and e.ty.kind == "zone")




def tested(gen: StmtGen, st: A.Stmt) -> None:
    """After a `let` or an `=` assignment: the variables whose card it surely read a field, a card counter or a
    field's call of (:func:`.cse.always`: not behind a condition, an `and`/`or`'s right side or a loop) are known
    not `none` from here on, so later reads in the same generated function skip their tests (``m`` of
    ``let m = monster()`` after ``let d = roll + m.attack_bonus(roll)``). The statement ran to its end, so each
    such read ran, and it raises on `none` (the closures' ``… of no card``, which every compile mode gives too).
    The state is the function's tracker's (:class:`.locals.Locals`): a later write of the variable, a join with a
    path that did not test it, a loop's next turn or an invalidation forget it, as for a card a `move` checked.
    The name the statement writes is left out (the test was of its old value)."""
    if isinstance(st, A.Let):
        tested_in(gen, st.value, st.name)
    elif isinstance(st, A.Assign) and st.op == "=":
        tested_in(gen, st.value, st.target.id if isinstance(st.target, A.Name) else None)


def tested_in(gen: StmtGen, value: A.Expr, written: str | None) -> None:
    """:func:`tested` for an expression the generated text has just evaluated to its end (a statement's value, an
    `if`'s first test, StmtGen._if marks it before its branches), except the name ``written``."""
    loc = gen.locals
    if loc is None:
        return
    for n in cse.always(value):
        ref: Any = n.ref
        obj = None
        if isinstance(n, A.Attr) and ref is not None and ref[0] in ("field", "ccounter"):
            obj = n.obj
        elif isinstance(n, A.Call) and ref is not None and ref[0] == "call_field" and isinstance(n.func, A.Attr):
            obj = n.func.obj
        if isinstance(obj, A.Name) and obj.ref == ("local", obj.id) and obj.id != written:
            got = loc.state.get(obj.id)
            if got is not None:
                loc.state[obj.id] = (got[0], True)
