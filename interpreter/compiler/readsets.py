"""What a declared invariant can read: the counter slots and zones its value depends on, computed once.

A checked game evaluates every declared `invariant` after every step that stops at a decision. Most decisions
change a handful of counter slots and zones, and most invariants read a few counters or zones that the decision
did not touch: evaluating such an invariant again can only give the answer it gave last time. The engine's
certificate (interpreter/runtime/invariants.py) already finds which slots and zones differ from the last checked
state, so an invariant that held there and whose read set is disjoint from those changes is known to hold now
(interpreter/engine/game.py ``violations``).

The read set must never miss a read, so it is built the strict way: every expression the invariant can evaluate
(its own, and the bodies of the `fn`s it calls, transitively) is walked, and every kind of reference is either
listed here with the state it reads, or makes the read set unknown (None), which means "evaluate every time".
What is listed:

- a counter (global, per player, per card, indexed by an enum, a grid and its cells, `first`, `round`): every
  slot of that counter, for every player or card (not just the one the expression picks: the picking value may
  itself change);
- a zone (shared, per player, per card): every zone of that declaration; a zone's contents are read only through
  an expression that names the zone, since no value held by a counter or local can be a zone the invariant does
  not name somewhere;
- `owner(c)` reads where a card is, which only changes when the lists of two zones change: every zone;
- card fields, enum values, dice, directions, the players and their turn orders: fixed for the game, nothing.

Anything else (a card's effect or function field, a graph built-in, `active`, `random`, a proc call, a reference
kind added later) gives None. The `display` panel's memo (compiler/panelmemo.py) uses the same walk with the graph
walks known (``graphs``): each reads its arguments and the graph's overlay slot, the changes `link` and `unlink`
made, of which runtime/graphs.py makes every answer a function.

**Filtered zone reads.** A zone that is the iterable of an order-blind aggregate (`count`, `sum`, `any`, `all`,
`min`, `max`) whose `where` (and, for `any`/`all`, element) reads nothing but the loop variable's printed fields
and constants is read through a per-card test that is fixed for the game: `count(c for c in p.hand where
c.permanent)` changes only when a card with `permanent` enters or leaves the hand. Such a read is a
:class:`Filtered` entry rather than a zone of the read set: the engine re-evaluates the invariant only when a moved
card the test holds for (its *relevance*, worked out once per player count from the card table by running the
compiled test on every card) moved from or to one of those zones. A card whose test raises is relevant. Every
other part of the aggregate (the zone's owner expression, the element of `count`/`sum`/`min`/`max`) is walked
as usual. Skipping such an evaluation is exact only if its outcome could not have been a work-budget error: the
evaluation's work grows with the zone, so filtered reads are used only when :func:`work_bound` proves the whole
invariant cannot reach the game's `work_limit` with every card in every zone; otherwise they count as plain zone
reads. tests/test_invariant_reads.py writes through every kind of place and checks that
exactly the invariants reading it run again, and plays random games of every shipped ruleset checking that the
skipping check stops at the same first violation as evaluating every invariant every time.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from liturgy.dsl.checker.graphs import overlay_name
from liturgy.dsl.constructs import expressions as constructs
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.code import FIRST_SLOT, ROUND_SLOT, ExprFn, Layout

# built-ins that read nothing but their argument values and fixed tables
_PURE = frozenset({"min", "max", "abs", "ord", "range", "sort", "join", "dx", "dy", "opposite", "players_from",
                   "next_player", "on_grid", "width", "height"})
# built-ins that read the zones, counters or grid their arguments name (those names are in the read set already)
_BY_ARGS = frozenset({"size", "top", "bottom", "value", "line", "span", "text"})
# built-ins that read where cards are: a card's place changes only with the lists of the zones it left and entered
_PLACES = frozenset({"owner"})
# references that name nothing that changes during a game
# graph walks: their arguments and the walked graph's overlay slot (read_set's ``graphs``)
_GRAPH_WALKS = frozenset({"neighbours", "adjacent", "reach", "distance"})
_FIXED = frozenset({"local", "enumval", "enumtype", "die", "direction", "directions", "field", "list_index"})
# aggregates whose value does not depend on the order of the items, nor on an item its `where` rejects
_ORDER_BLIND = frozenset({"count", "sum", "any", "all", "min", "max"})
# what a per-card test may be made of: literals, the loop variable, its printed fields, enum values, operators
_TEST_NODES = (A.IntLit, A.StrLit, A.BoolLit, A.NoneLit, A.Name, A.Attr, A.Unary, A.Binary)
_ZONE_REFS = frozenset({"zone", "pzone", "czone"})


@dataclass
class Filtered:
    """A zone read only through a per-card test fixed for the game (see the module docstring): ``kind`` and
    ``key`` name the zone declaration as a :class:`ReadSet` does (a shared zone's index, or an offset in each
    player's or card's block); ``test(s, env)`` with ``env = {var: card}`` says whether moving that card in or out
    of the zone can change the invariant (compiled once, as closures)."""

    kind: str
    key: int
    var: str
    test: ExprFn


@dataclass
class ReadSet:
    """The state an expression can read, in layout terms (independent of the player count)."""

    slots: set[int] = field(default_factory=set)  # global counter slots (grids, `first`, `round` included)
    player_counters: set[tuple[int, int]] = field(default_factory=set)  # (offset, width) in each player's block
    card_counters: set[tuple[int, int]] = field(default_factory=set)  # (offset, width) in each card's block
    zones: set[int] = field(default_factory=set)  # shared zones
    player_zones: set[int] = field(default_factory=set)  # offsets in each player's block of zones
    card_zones: set[int] = field(default_factory=set)  # offsets in each card's block of zones
    every_zone: bool = False
    filtered: list[Filtered] = field(default_factory=list)  # zones read only through a fixed per-card test
    root: A.Expr | None = None  # the invariant's expression, for :func:`work_bound`
    work_limit: int = 0  # the game's work budget (an invariant's evaluation has one of its own)

    def filters_apply(self, players: int, cards: int) -> bool:
        """Whether the filtered reads may be used: the invariant cannot run out of work with every card in every
        zone (otherwise a skipped evaluation could have been a budget error, and they count as plain zones)."""
        if not self.filtered or self.root is None:
            return False
        bound = work_bound(self.root, players, cards)
        return bound is not None and bound <= self.work_limit

    def resolve(self, lay: Layout, players: int, cards: int) -> tuple[frozenset[int], frozenset[int]]:
        """The counter slots and zone indices read in a game of ``players`` players with ``cards`` cards (the
        filtered zones not among them when :meth:`filters_apply`: see :meth:`filter_zones`)."""
        slots = set(self.slots)
        for off, width in self.player_counters:
            for p in range(players):
                base = lay.player_base + p * lay.player_stride + off
                slots.update(range(base, base + width))
        for off, width in self.card_counters:
            for c in range(cards):
                base = lay.card_base + c * lay.card_stride + off
                slots.update(range(base, base + width))
        nzones = lay.zone_card_base + lay.zone_card_stride * cards
        if self.every_zone:
            return frozenset(slots), frozenset(range(nzones))
        zones = set(self.zones)
        for off in self.player_zones:
            zones.update(lay.zone_player_base + p * lay.zone_player_stride + off for p in range(players))
        for off in self.card_zones:
            zones.update(lay.zone_card_base + c * lay.zone_card_stride + off for c in range(cards))
        if not self.filters_apply(players, cards):
            for f in self.filtered:
                zones.update(_zones_of(f.kind, f.key, lay, players, cards))
        return frozenset(slots), frozenset(zones)

    def filter_zones(self, lay: Layout, players: int, cards: int) -> list[tuple[frozenset[int], Filtered]]:
        """Each filtered read's zone indices in such a game (none unless :meth:`filters_apply`)."""
        if not self.filters_apply(players, cards):
            return []
        return [(frozenset(_zones_of(f.kind, f.key, lay, players, cards)), f) for f in self.filtered]


def _zones_of(kind: str, key: int, lay: Layout, players: int, cards: int) -> list[int]:
    if kind == "zone":
        return [key]
    if kind == "pzone":
        return [lay.zone_player_base + p * lay.zone_player_stride + key for p in range(players)]
    return [lay.zone_card_base + c * lay.zone_card_stride + key for c in range(cards)]


class _Unknown(Exception):
    """An expression reads something this module does not list: its read set is unknown."""


def read_set(e: A.Expr | list[A.Expr], lay: Layout, widths: dict[str, int], graphs: bool = False,
             compile_test: Callable[[A.Expr], ExprFn] | None = None, work_limit: int = 0) -> ReadSet | None:
    """What evaluating ``e`` (or each of a list of expressions) can read (None: unknown, evaluate it every time).
    ``widths``: each counter's number of slots (an enum-indexed counter has one per value). ``graphs``: the four
    graph walks (`neighbours`, `adjacent`, `reach`, `distance`) are known too, as reading their arguments and
    the graph's changes made in play (its overlay slot; runtime/graphs.py: every answer is a function of those);
    the `display` panel's memo asks for them (compiler/display.py), invariants do not. ``compile_test`` compiles
    a filtered read's per-card test (without it, every zone read is a plain one); ``work_limit`` is the budget
    :func:`work_bound` is held to (filtered reads are for a single invariant's expression)."""
    out = ReadSet(root=None if isinstance(e, list) else e, work_limit=work_limit)
    seen_fns: set[str] = set()
    stack: list[A.Expr] = list(e) if isinstance(e, list) else [e]
    try:
        while stack:
            n = stack.pop()
            if compile_test is not None and isinstance(n, A.Aggregate):
                got = _filtered(n, compile_test, lay)
                if got is not None:
                    out.filtered.append(got)
                    it = n.iterable  # its zone is read through the test; what picks the zone (`p`) is walked
                    stack.extend(constructs.children(it))
                    stack.extend(x for x in (n.where, n.elem, n.key) if x is not None)
                    continue
            if isinstance(n, A.Call):
                stack.extend(n.args)  # not n.func: the called name is resolved in the call's own reference
                fn = _call(n, out, graphs)
                if fn is not None and fn.name not in seen_fns:
                    seen_fns.add(fn.name)
                    stack.append(fn.body)
                continue
            if n.ref is not None:
                _ref(n.ref, out, lay, widths, graphs)
            stack.extend(constructs.children(n))
    except _Unknown:
        return None
    return out


def _filtered(n: A.Aggregate, compile_test: Callable[[A.Expr], ExprFn], lay: Layout) -> Filtered | None:
    """The aggregate's zone read as a :class:`Filtered` one, when its shape allows (module docstring)."""
    ref: Any = n.iterable.ref
    if n.func not in _ORDER_BLIND or ref is None or ref[0] not in _ZONE_REFS:
        return None
    parts: list[A.Expr] = [] if n.where is None else [n.where]
    if n.func in ("any", "all") and _per_card(n.elem, n.var):
        # an item whose element is true leaves `all` as it was, one whose element is false leaves `any`
        parts.append(n.elem if n.func == "any" else A.Unary(n.elem.span, op="not", operand=n.elem))
    if not parts or not all(_per_card(x, n.var) for x in parts):
        return None
    test = parts[0] if len(parts) == 1 else A.Binary(n.span, op="and", left=parts[0], right=parts[1])
    name = ref[1].name  # a ZoneDecl: the iterable's reference is one of _ZONE_REFS
    key = (lay.zone_global[name] if ref[0] == "zone" else lay.zone_player_offsets[name] if ref[0] == "pzone"
           else lay.zone_card_offsets[name])
    return Filtered(ref[0], key, n.var, compile_test(test))


def _per_card(e: A.Expr, var: str) -> bool:
    """Whether ``e`` reads nothing but ``var``'s printed fields, ``var`` itself, enum values and literals: its value
    for a card is fixed for the game."""
    todo = [e]
    while todo:
        n = todo.pop()
        if not isinstance(n, _TEST_NODES):
            return False
        ref = n.ref
        if isinstance(n, A.Name):
            if ref != ("local", var) and (ref is None or ref[0] != "enumval"):
                return False
        elif isinstance(n, A.Attr):  # noqa: SIM102 - one test per node kind
            if ref is None or ref[0] != "field" or not isinstance(n.obj, A.Name) or n.obj.ref != ("local", var):
                return False
        todo.extend(constructs.children(n))
    return True


def _call(n: A.Call, out: ReadSet, graphs: bool = False) -> A.FnDecl | None:
    """What a call reads besides its arguments; the `fn` whose body must be walked too."""
    ref = A.ref_of(n)
    if ref[0] == "call_fn":
        return ref[1]
    if ref[0] == "call_builtin":
        name = ref[1]
        if name in _PLACES:
            out.every_zone = True
            return None
        if name in _PURE or name in _BY_ARGS or (graphs and name in _GRAPH_WALKS):
            return None
    raise _Unknown


def _ref(ref: A.Ref, out: ReadSet, lay: Layout, widths: dict[str, int], graphs: bool = False) -> None:
    if ref[0] in _FIXED or ref[0] == "icounter":  # an indexed counter: its counter is the child's own reference
        return
    if ref[0] == "graph" and graphs:  # a walk's first argument: the graph's changes, when the rules make any
        slot = lay.global_slots.get(overlay_name(ref[1].name))
        if slot is not None:
            out.slots.add(slot)
        return
    if ref[0] == "first":
        out.slots.add(FIRST_SLOT)
    elif ref[0] == "builtin":  # seats are fixed; round is a slot; players read the absent flag, if any
        if ref[1] == "round":
            out.slots.add(ROUND_SLOT)
        elif ref[1] in ("players", "player_count") and lay.absent_offset is not None:
            out.player_counters.add((lay.absent_offset, 1))
    elif ref[0] == "grid" or ref[0] == "gridcell":
        g = lay.grids[ref[1].name]
        out.slots.update(range(g.base, g.base + g.width * g.height))
    elif ref[0] == "counter" or ref[0] == "pcounter" or ref[0] == "ccounter":
        _counter(ref[0], ref[1], out, lay, widths)
    elif ref[0] == "zone":
        out.zones.add(lay.zone_global[ref[1].name])
    elif ref[0] == "pzone":
        out.player_zones.add(lay.zone_player_offsets[ref[1].name])
    elif ref[0] == "czone":
        out.card_zones.add(lay.zone_card_offsets[ref[1].name])
    else:
        raise _Unknown


def _counter(kind: str, decl: A.CounterDecl, out: ReadSet, lay: Layout, widths: dict[str, int]) -> None:
    if isinstance(decl, A.GridDecl):
        g = lay.grids[decl.name]
        out.slots.update(range(g.base, g.base + g.width * g.height))
        return
    width = widths[decl.name]
    if kind == "counter":
        base = lay.global_slots[decl.name]
        out.slots.update(range(base, base + width))
    elif kind == "pcounter":
        out.player_counters.add((lay.player_offsets[decl.name], width))
    else:
        out.card_counters.add((lay.card_offsets[decl.name], width))


def work_bound(e: A.Expr, players: int, cards: int) -> int | None:
    """An upper bound on the work units one evaluation of ``e`` can count, whatever the zones hold (each zone holds
    at most every card), or None when no bound is known: an aggregate or comprehension over anything but a zone
    or `players`, or a `fn` that can call itself. Work is counted by loops (their items) and by calls of `fn`s
    that fan out (as many units as the body's nodes with its callees': Sizes.call_cost), so the bound adds, for
    each loop, its items times one plus its body's bound, and for each call, its callee's expanded size and bound.
    Used only to decide whether filtered reads are exact (:meth:`ReadSet.filters_apply`)."""
    try:
        return _bound(e, players, cards, ())
    except _Unknown:
        return None


def _bound(e: A.Expr, players: int, cards: int, path: tuple[str, ...]) -> int:
    if isinstance(e, A.Aggregate | A.ListComp):
        ref = e.iterable.ref
        if ref is not None and ref[0] in _ZONE_REFS:
            items = cards
        elif ref == ("builtin", "players"):
            items = players
        else:
            raise _Unknown
        body = sum(_bound(x, players, cards, path) for x in (e.where, e.elem, getattr(e, "key", None))
                   if x is not None)
        return _bound(e.iterable, players, cards, path) + items * (1 + body)
    total = sum(_bound(x, players, cards, path) for x in constructs.children(e))
    if isinstance(e, A.Call):
        ref = e.ref
        if ref is not None and ref[0] == "call_fn":
            fn: A.FnDecl = ref[1]
            if fn.name in path:
                raise _Unknown
            total += _expanded(fn.body, (*path, fn.name)) + _bound(fn.body, players, cards, (*path, fn.name))
    return total


def _expanded(e: A.Expr, path: tuple[str, ...]) -> int:
    """``e``'s expression nodes, each `fn` call adding its callee's (at least what one call is charged)."""
    total = 1
    for x in constructs.children(e):
        total += _expanded(x, path)
    ref = e.ref
    if isinstance(e, A.Call) and ref is not None and ref[0] == "call_fn":
        fn: A.FnDecl = ref[1]
        if fn.name in path:
            raise _Unknown
        total += _expanded(fn.body, (*path, fn.name))
    return total


class InvariantReads:
    """Each declared invariant's read set (None: unknown), resolved per player and card count on first use."""

    def __init__(self, sets: list[ReadSet | None], lay: Layout) -> None:
        self.sets = sets
        self.lay = lay
        self._resolved: dict[tuple[int, int], list[tuple[frozenset[int], frozenset[int]] | None]] = {}
        self._masks: dict[tuple[int, int], tuple[dict[int, int], dict[int, int], int]] = {}
        self._filters: dict[tuple[int, int], tuple[dict[int, int], list[int]]] = {}
        self._lists: dict[tuple[int, int], tuple[list[int], list[int], int, int, list[int]]] = {}
        self._lifts: dict[tuple[int, int], int] = {}

    def resolved(self, players: int, cards: int) -> list[tuple[frozenset[int], frozenset[int]] | None]:
        """Per invariant: the counter slots and zones it reads in such a game, or None (evaluate every time)."""
        key = (players, cards)
        out = self._resolved.get(key)
        if out is None:
            out = self._resolved[key] = [None if r is None else r.resolve(self.lay, players, cards)
                                         for r in self.sets]
        return out

    def masks(self, players: int, cards: int) -> tuple[dict[int, int], dict[int, int], int]:
        """Per counter slot and per zone, the invariants reading it as a bit mask (bit k: invariant k), and the
        mask of the invariants whose read set is unknown: what changed tells at once which invariants to evaluate
        again, without a set test per invariant (interpreter/engine/game.py ``violations``)."""
        key = (players, cards)
        got = self._masks.get(key)
        if got is None:
            slot: dict[int, int] = {}
            zone: dict[int, int] = {}
            unknown = 0
            for k, r in enumerate(self.resolved(players, cards)):
                if r is None:
                    unknown |= 1 << k
                    continue
                for i in r[0]:
                    slot[i] = slot.get(i, 0) | 1 << k
                for z in r[1]:
                    zone[z] = zone.get(z, 0) | 1 << k
            got = self._masks[key] = (slot, zone, unknown)
        return got

    def lists(self, s: Any) -> tuple[list[int], list[int], int, int, list[int]]:
        """:meth:`masks` and :meth:`filters` for games like ``s`` as lists indexed by slot, zone and card (0: no
        invariant), built once per player and card count: per counter slot the invariants reading it; per zone
        those reading it, and above bit ``shift`` (the number of invariants) those reading it through a per-card
        test, in one int (a moved card's two zones are one OR each); the invariants whose read set is unknown;
        ``shift``; and per card the mask its two zones' masks are ANDed with when it moves: every plain bit, and above
        ``shift`` the invariants whose test holds for it (every bit, -1, when no invariant reads through a test).
        The certificate (runtime/invariants.py ``Certified.holds``) ORs the masks of what changed as it checks it,
        a moved card's zones through its own mask (a filtered invariant counts only the cards its test holds for,
        and only the zones those cards left or entered); the engine (engine/game.py ``violations``) evaluates what
        they name.

        The filtered part (above ``shift``) is the invariants' bits moved down by :meth:`lift` (the lowest invariant
        with a filtered read): bit ``shift + j`` is invariant ``j + lift``. The certificate moves them back up
        (``<< lift``) once per check. Why: an OR of two ints past 256 makes a new int object (CPython keeps the
        small ones, up to 256, made once), and a moved card's OR runs at every checked decision; Bloodborne's six
        invariants with its filtered ones at bits 1 and 2 kept every zone mask under 256 only so (257 before: 605
        allocations a game)."""
        t = s.tables
        key = (t.n, len(t.card_def))
        lists = self._lists.get(key)
        if lists is None:
            lists = self._lists[key] = self._build_lists(s, *key)
        return lists

    def lift(self, s: Any) -> int:
        """How far :meth:`lists`' filtered masks and per-card masks are moved down (see there) for games like ``s``."""
        t = s.tables
        key = (t.n, len(t.card_def))
        if key not in self._lifts:
            self.lists(s)
        return self._lifts[key]

    def _build_lists(self, s: Any, players: int, cards: int) -> tuple[list[int], list[int], int, int, list[int]]:
        """:meth:`lists`, built (and its :meth:`lift` kept)."""
        slot, zone, unknown = self.masks(players, cards)
        fzone, relevant = self.filters(s)
        shift = len(self.sets)
        every = 0
        for m in fzone.values():
            every |= m
        lift = (every & -every).bit_length() - 1 if every else 0  # the lowest filtered invariant's bit
        self._lifts[(players, cards)] = lift
        slot_of = [0] * len(s.counters)
        for i, m in slot.items():
            slot_of[i] = m
        zone_of = [0] * len(s.zones)
        for z, m in zone.items():
            zone_of[z] = m
        for z, m in fzone.items():
            zone_of[z] |= m >> lift << shift
        if not fzone:
            return slot_of, zone_of, unknown, shift, [-1] * cards
        plain = (1 << shift) - 1
        return slot_of, zone_of, unknown, shift, [plain | m >> lift << shift for m in relevant]

    def filters(self, s: Any) -> tuple[dict[int, int], list[int]]:
        """For the filtered reads (module docstring) in games like ``s``: per zone, the invariants reading it
        through a per-card test, as a bit mask; per card, the invariants whose test holds for it (a card whose test
        raises counts as holding). A moved card ``c`` can change invariant k's value through a filtered read only
        if bit k is set in ``cards[c]`` and in the mask of a zone it left or entered. Computed once per player
        and card count (card ids and printed fields are the same in every game of one player count), by running
        each compiled test on every card of ``s``; the test reads only printed fields and constants, and its
        work, if any, is not the game's."""
        t = s.tables
        key = (t.n, len(t.card_def))
        got = self._filters.get(key)
        if got is None:
            got = self._filters[key] = self._build_filters(s, *key)
        return got

    def _build_filters(self, s: Any, players: int, cards: int) -> tuple[dict[int, int], list[int]]:
        zone: dict[int, int] = {}
        rel = [0] * cards
        work = s.work
        try:
            for k, r in enumerate(self.sets):
                if r is None:
                    continue
                for zones, f in r.filter_zones(self.lay, players, cards):
                    bit = 1 << k
                    for z in zones:
                        zone[z] = zone.get(z, 0) | bit
                    for c in range(cards):
                        if not rel[c] & bit and _holds(f, s, c):
                            rel[c] |= bit
        finally:
            s.work = work
        return zone, rel


def _holds(f: Filtered, s: Any, c: int) -> bool:
    """Whether ``f``'s test holds for card ``c`` (True when it raises: such a card is always relevant)."""
    s.work = 0
    try:
        return bool(f.test(s, {f.var: c}))
    except Exception:  # noqa: BLE001 - any failure makes the card relevant, which is the safe answer
        return True
