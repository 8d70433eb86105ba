"""The engine's built-in invariants: checked in full, or only where the state changed since it last passed.

A checked game (``new_game(check_invariants=True)``) tests every invariant after every step that
stops at a decision. Most of the built-in ones (every card in exactly one zone, every counter within
its bounds, every pool at its total) cost time in proportion to the number of cards and counter
slots, and Slay the Spire has 529 cards and almost 10,000 counter slots, of which a decision changes
about four. So a game keeps a :class:`Certified` copy of the counters, zones and card places of the
last state where those three held, and the next check looks only at what differs from it.

The incremental check is exact, not a sample: a slot or zone that compares equal to the certified
copy has the value that was checked, and :meth:`Certified.holds` checks everything else with the
same conditions the full check uses. Whenever it cannot prove all three invariants, the full check
runs and produces the report (in the same order, with the same messages) it always did.
"""

from __future__ import annotations

from itertools import chain, compress, repeat
from operator import itemgetter, ne
from typing import Any

from liturgy.interpreter.runtime.state import GameState, Tables

Violations = list[tuple[str, str]]

_SHIFT = 8
_BLOCK = 1 << _SHIFT  # first pass: compare slices of this many items in C
_SUB = 16  # second pass inside a differing block


class Snapshot:
    """A copy of a list kept as blocks of 256 items, to find what changed in it since.

    ``changed`` compares each block with the same slice of the list now: slice comparisons run in
    C and take the identity shortcut for the small integers and unchanged lists that make up almost
    every slot, so a 10,000-slot list with a handful of changes costs one slice copy and one compare
    per item instead of one Python-level step per item. Keeping the copy in blocks saves slicing it.
    """

    __slots__ = ("n", "blocks")

    def __init__(self, n: int, blocks: list[list[Any]]) -> None:
        self.n = n
        self.blocks = blocks

    @staticmethod
    def of(values: list[Any]) -> Snapshot:
        return Snapshot(len(values), [values[a:a + _BLOCK] for a in range(0, len(values), _BLOCK)])

    def copy(self) -> Snapshot:
        return Snapshot(self.n, [b[:] for b in self.blocks])

    def __getitem__(self, i: int) -> Any:
        return self.blocks[i >> _SHIFT][i & (_BLOCK - 1)]

    def __setitem__(self, i: int, value: Any) -> None:
        self.blocks[i >> _SHIFT][i & (_BLOCK - 1)] = value

    def changed(self, now: list[Any]) -> list[int] | None:
        """Positions where ``now`` differs from the copy (None if its length differs)."""
        if len(now) != self.n:
            return None
        out: list[int] = []
        a = 0
        for y in self.blocks:
            x = now[a:a + _BLOCK]
            if x != y:
                for b in range(0, len(x), _SUB):
                    x2 = x[b:b + _SUB]
                    y2 = y[b:b + _SUB]
                    if x2 != y2:
                        out.extend(compress(range(a + b, a + b + len(x2)), map(ne, x2, y2)))
            a += _BLOCK
        return out


# Below this many counter slots and cards (cards weigh more: three passes over them), the full check is
# as cheap as finding what changed. Both ways give the same answer; this only picks the faster one.
WORTH_IT = 1500


def worth_it(t: Tables) -> bool:
    """Whether games with these tables should check their built-in invariants incrementally."""
    bounded = sum(len(slots) for _, slots, _ in t.bounded_groups)
    pooled = sum(len(slots) for slots in t.pool_slots.values())
    return bounded + pooled + 3 * len(t.card_def) >= WORTH_IT


class Certified:
    """Counters, zones and card places of a state in which every card was in exactly one zone (the
    one ``card_zone`` names), every counter within its bounds and every pool at its declared total."""

    __slots__ = ("counters", "zones", "card_zone")

    def __init__(self, counters: Snapshot, zones: Snapshot, card_zone: Snapshot) -> None:
        self.counters = counters
        self.zones = zones  # of copies of the zone lists
        self.card_zone = card_zone

    @staticmethod
    def take(s: GameState) -> Certified:
        """Certify ``s`` as it is now (the caller has just checked it in full)."""
        return Certified(Snapshot.of(s.counters), Snapshot.of([z[:] for z in s.zones]), Snapshot.of(s.card_zone))

    def copy(self) -> Certified:
        zones = self.zones
        return Certified(self.counters.copy(), Snapshot(zones.n, [[z[:] for z in b] for b in zones.blocks]),
                         self.card_zone.copy())

    def holds(self, s: GameState) -> bool:
        """True when placement, bounds and pools provably hold in ``s``; then ``s`` becomes the certified state.

        Counters: every changed slot is within its bounds, and every pool with a changed slot still
        adds up (the others add up to what was certified). Cards, with D the zones whose lists changed:
        every card listed in a zone of D names that zone as its place; the cards listed in D are, as a
        multiset, the cards D listed before (so each card is still listed exactly once, the zones
        outside D being unchanged); and every card whose place changed was listed in D before (a card
        in an unchanged zone must still name it). False means "not proven": the caller runs the
        full check, which reports exactly what is wrong.
        """
        counters = s.counters
        zones = s.zones
        cz = s.card_zone
        try:
            slots = self.counters.changed(counters)
            dz = self.zones.changed(zones)
            dc = self.card_zone.changed(cz)
            if slots is None or dz is None or dc is None:
                return False
            if slots and not _counters_hold(s.tables, counters, slots):
                return False
            if (dz or dc) and not self._cards_hold(zones, cz, dz, dc):
                return False
        except (TypeError, IndexError):
            return False  # a value the full check must report (or fail on) itself
        mine = self.counters
        for i in slots:
            mine[i] = counters[i]
        for zi in dz:
            self.zones[zi] = zones[zi][:]
        mine = self.card_zone
        for c in dc:
            mine[c] = cz[c]
        return True

    def _cards_hold(self, zones: list[list[int]], cz: list[int], dz: list[int], dc: list[int]) -> bool:
        """Placement still holds given the zones ``dz`` and card places ``dc`` that changed (see :meth:`holds`)."""
        for zi in dz:
            for c in zones[zi]:
                if cz[c] != zi:
                    return False
        old = self.zones
        if sorted(chain.from_iterable(zones[zi] for zi in dz)) != sorted(chain.from_iterable(old[zi] for zi in dz)):
            return False
        in_d = set(dz)
        old_cz = self.card_zone
        return not any(old_cz[c] not in in_d for c in dc)


def _counters_hold(t: Tables, counters: list[Any], slots: list[int]) -> bool:
    """Every changed slot is within its bounds and every pool with a changed slot still adds up."""
    bounds = t.counter_bounds
    pool_of = t.pool_of_slot
    pools: set[str] = set()
    for i in slots:
        v = counters[i]
        lo, hi = bounds[i]
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            return False
        pool = pool_of.get(i)
        if pool is not None:
            pools.add(pool)
    return not any(_pool_total(counters, t.pool_slots[pool]) != t.pool_totals[pool] for pool in pools)


def _pool_total(counters: list[Any], slots: tuple[int, ...]) -> Any:
    return sum(itemgetter(*slots)(counters)) if len(slots) > 1 else counters[slots[0]]


def full(s: GameState) -> tuple[Violations, bool]:
    """Every failing built-in invariant, in the engine's order, and whether placement, bounds and pools held."""
    out: Violations = []
    _placement(s, out)
    placed = not out
    _capacity(s, out)
    n = len(out)
    _pools(s, out)
    _bounds(s, out)
    certifiable = placed and len(out) == n
    _final(s, out)
    _pending(s, out)
    return out, certifiable


def others(s: GameState) -> Violations:
    """The built-in invariants a :class:`Certified` state does not cover (cheap: capacity, removed cards, choices)."""
    out: Violations = []
    _capacity(s, out)
    _final(s, out)
    _pending(s, out)
    return out


def _placement(s: GameState, out: Violations) -> None:
    ncards = len(s.tables.card_def)
    zones = s.zones
    cz = s.card_zone
    # All in C-level calls: the flat list of placed cards, and the zone each one is listed in,
    # must agree with the card -> zone index the engine keeps.
    placed = list(chain.from_iterable(zones))
    if len(placed) != ncards or len(set(placed)) != ncards:
        out.append(("every card in exactly one zone", f"{len(placed)} card places for {ncards} cards"))
    elif list(map(cz.__getitem__, placed)) != list(chain.from_iterable(map(repeat, range(len(zones)),
                                                                             map(len, zones)))):
        out.append(("every card in exactly one zone", "a zone lists a card that is placed elsewhere"))


def _capacity(s: GameState, out: Violations) -> None:
    t = s.tables
    zones = s.zones
    for zi in t.capped_zones:
        cap = t.zone_capacity[zi]
        if cap is not None and len(zones[zi]) > cap:
            out.append(("zone capacity", f"{t.zone_names[zi]} holds {len(zones[zi])} > {cap}"))


def _pools(s: GameState, out: Violations) -> None:
    t = s.tables
    for pool, slots in t.pool_slots.items():
        total = _pool_total(s.counters, slots)
        if total != t.pool_totals[pool]:
            out.append((f"pool `{pool}` conserved", f"total {total}, expected {t.pool_totals[pool]}"))


def _bounds(s: GameState, out: Violations) -> None:
    t = s.tables
    counters = s.counters
    for (lo, hi), slots, getter in t.bounded_groups:
        values = getter(counters)
        if (lo is not None and min(values) < lo) or (hi is not None and max(values) > hi):
            for i in slots:
                v = counters[i]
                if (lo is not None and v < lo) or (hi is not None and v > hi):
                    out.append(("counters within bounds", f"{t.counter_names[i]} = {v} outside {lo}..{hi}"))


def _final(s: GameState, out: Violations) -> None:
    final_total = sum(map(len, map(s.zones.__getitem__, s.tables.final_zones)))
    if final_total != s.removed_count:
        detail = f"{final_total} cards in final zones, {s.removed_count} moved in"
        out.append(("removed cards never return", detail))


def _pending(s: GameState, out: Violations) -> None:
    pend = s.pending
    if pend is not None:
        if pend[0] == "choose" and not pend[2]:
            out.append(("a decision has a legal option", "empty choice"))
        if pend[0] == "simul" and any(not o for _, o in pend[1]):
            out.append(("a decision has a legal option", "empty simultaneous choice"))
