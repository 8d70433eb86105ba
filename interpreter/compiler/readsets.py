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

tests/test_invariant_reads.py writes through every kind of place and checks that exactly the invariants reading
it run again, and plays random games of every shipped ruleset checking that the skipping check stops at the same
first violation as evaluating every invariant every time.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from liturgy.dsl.checker.graphs import overlay_name
from liturgy.dsl.constructs import expressions as constructs
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.code import FIRST_SLOT, ROUND_SLOT, Layout

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

    def resolve(self, lay: Layout, players: int, cards: int) -> tuple[frozenset[int], frozenset[int]]:
        """The counter slots and zone indices read in a game of ``players`` players with ``cards`` cards."""
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
        return frozenset(slots), frozenset(zones)


class _Unknown(Exception):
    """An expression reads something this module does not list: its read set is unknown."""


def read_set(e: A.Expr | list[A.Expr], lay: Layout, widths: dict[str, int], graphs: bool = False) -> ReadSet | None:
    """What evaluating ``e`` (or each of a list of expressions) can read (None: unknown, evaluate it every time).
    ``widths``: each counter's number of slots (an enum-indexed counter has one per value). ``graphs``: the four
    graph walks (`neighbours`, `adjacent`, `reach`, `distance`) are known too, as reading their arguments and
    the graph's changes made in play (its overlay slot; runtime/graphs.py: every answer is a function of those);
    the `display` panel's memo asks for them (compiler/display.py), invariants do not."""
    out = ReadSet()
    seen_fns: set[str] = set()
    stack: list[A.Expr] = list(e) if isinstance(e, list) else [e]
    try:
        while stack:
            n = stack.pop()
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


class InvariantReads:
    """Each declared invariant's read set (None: unknown), resolved per player and card count on first use."""

    def __init__(self, sets: list[ReadSet | None], lay: Layout) -> None:
        self.sets = sets
        self.lay = lay
        self._resolved: dict[tuple[int, int], list[tuple[frozenset[int], frozenset[int]] | None]] = {}
        self._masks: dict[tuple[int, int], tuple[dict[int, int], dict[int, int], int]] = {}

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
