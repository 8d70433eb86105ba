"""The engine's built-in invariants: checked in full, or only where the state changed since it last passed.

A checked game (``new_game(check_invariants=True)``) tests every invariant after every step that
stops at a decision. Most of the built-in ones (every card in exactly one zone, every counter within
its bounds, every pool at its total) cost time in proportion to the number of cards and counter
slots, and Slay the Spire has 529 cards and almost 10,000 counter slots, of which a decision changes
about four. So a game keeps a :class:`Certified` copy of the counters, zones and card places of the
last state where those three held, and the next check looks only at what differs from it.

What changed is not found by comparing the state with that copy: every write path (the generated
code, the closures, the round's resets) notes the counter slot or zone it writes in ``GameState.wrote``,
and every card move (the runtime's and the generated code's) notes the card in ``GameState.moved``,
while a certificate is kept (interpreter/runtime/state.py). :meth:`Certified.holds` checks bounds and
pools for exactly the noted slots, and placement from the moved cards' places and the zones' sizes.
It takes the noted values into its copy and compares the counters, the zone sizes and the card places
with the state in C-level passes: most writes that bypassed the record make them differ, and the check
a full one. tests/test_recorded_writes.py proves the record complete (``AUDIT`` lists what changed
unnoted).

The incremental check is exact, not a sample. Whenever it cannot prove all three invariants, the full
check runs and produces the report (in the same order, with the same messages) it always did.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain, compress, repeat
from operator import is_not, itemgetter, ne
from typing import Any

from liturgy.interpreter.runtime import seats
from liturgy.interpreter.runtime.state import GameState, Tables

Violations = list[tuple[str, str]]
# a game's read-set lists (interpreter/compiler/readsets.py ``InvariantReads.lists``): per slot the invariants
# reading it; per zone those reading it, and above bit ``shift`` those reading it through a per-card test (moved down
# by ``lift``); those whose reads are unknown; ``shift``; per card the mask a moved card's zone masks are ANDed with
# (every plain bit, and above ``shift`` those whose test holds for it)
Masks = tuple[list[int], list[int], int, int, list[int]]

_SHIFT = 8
_BLOCK = 1 << _SHIFT  # first pass: compare slices of this many items in C
_SUB = 16  # second pass inside a differing block


class Snapshot:
    """A copy of a list, to find what changed in it since.

    A list of up to 256 items is kept whole and compared item by item in one C-level pass (``map``
    and ``compress``). A longer one is kept as blocks of 256 items: ``changed`` compares each block
    with the same slice of the list now, and only a block that differs is searched, 16 items at a
    time. Slice comparisons run in C and take the identity shortcut for the small integers and
    unchanged lists that make up almost every slot, so a 10,000-slot list with a handful of changes
    costs one slice copy and one compare per item instead of one Python-level step per item.

    ``same`` is how two items are told apart: ``is_not`` for values that cannot change in place
    (integers, tuples: an item that is the very object the copy holds is the value that was checked;
    one that only compares equal counts as changed and is simply checked again), ``ne`` for copies
    of lists, whose items are compared by value.
    """

    __slots__ = ("n", "blocks", "same")

    def __init__(self, n: int, blocks: list[list[Any]], same: Callable[[Any, Any], Any] = ne) -> None:
        self.n = n
        self.blocks = blocks
        self.same = same

    @staticmethod
    def of(values: list[Any], same: Callable[[Any, Any], Any] = ne) -> Snapshot:
        return Snapshot(len(values), [values[a:a + _BLOCK] for a in range(0, len(values), _BLOCK)] or [[]], same)

    def copy(self) -> Snapshot:
        return Snapshot(self.n, [b[:] for b in self.blocks], self.same)

    def __getitem__(self, i: int) -> Any:
        return self.blocks[i >> _SHIFT][i & (_BLOCK - 1)]

    def __setitem__(self, i: int, value: Any) -> None:
        self.blocks[i >> _SHIFT][i & (_BLOCK - 1)] = value

    def flat(self) -> list[Any] | Snapshot:
        """What to index for the copy's items: the list itself when it is one block (no method call per item)."""
        return self.blocks[0] if self.n <= _BLOCK else self

    def changed(self, now: list[Any]) -> list[int] | None:
        """Positions where ``now`` differs from the copy (None if its length differs)."""
        n = self.n
        if len(now) != n:
            return None
        same = self.same
        if n <= _BLOCK:
            block = self.blocks[0]
            return [] if now == block else list(compress(range(n), map(same, now, block)))
        out: list[int] = []
        a = 0
        for y in self.blocks:
            x = now[a:a + _BLOCK]
            if x != y:
                for b in range(0, len(x), _SUB):
                    x2 = x[b:b + _SUB]
                    y2 = y[b:b + _SUB]
                    if x2 != y2:
                        out.extend(compress(range(a + b, a + b + len(x2)), map(same, x2, y2)))
            a += _BLOCK
        return out

    def equals(self, now: list[Any]) -> bool:
        """Whether ``now`` holds what the copy holds, item for item (by ``==``: C-level passes)."""
        if self.n <= _BLOCK:
            return now == self.blocks[0]
        a = 0
        for y in self.blocks:
            if now[a:a + _BLOCK] != y:
                return False
            a += _BLOCK
        return True


# The differential audit of the write record (tests/test_recorded_writes.py): while this is a list, every
# :meth:`Certified.holds` also finds the changes by comparing the copies, as the certificate did before the record,
# and appends each counter slot or zone that changed without being noted. Never set in play: it costs the diff.
AUDIT: list[tuple[str, int]] | None = None

# Below this many counter slots and cards (cards weigh more: three passes over them), the full check is
# as cheap as finding what changed. Both ways give the same answer; this only picks the faster one. Session 13
# measured the certificate (identity-compared counters, one pass over the changed zones) against the full check
# on every classic ruleset and Bloodborne: the incremental check was as fast at Kuhn poker's 15 and faster from
# crazy eights' 167 up (Bloodborne 471: 1.2x the games/s), so the line moved from 1,500 to 100.
WORTH_IT = 100


def worth_it(t: Tables) -> bool:
    """Whether games with these tables should check their built-in invariants incrementally."""
    bounded = sum(len(slots) for _, slots, _ in t.bounded_groups)
    pooled = sum(len(slots) for slots in t.pool_slots.values())
    return bounded + pooled + 3 * len(t.card_def) >= WORTH_IT


class _Every:
    """The masks of a certificate that no engine gave its read sets (``Certified.masks`` unset: a test calling
    :meth:`Certified.holds` directly): whatever changed, every invariant counts as reading it."""

    def __getitem__(self, i: int) -> int:
        return -1


_EVERY = _Every()


def slot_checks(t: Tables) -> list[tuple[Any, Any, int | None] | None]:
    """Per counter slot, what :meth:`Certified.holds` checks when its value changed: ``None`` for a slot
    with no bound and in no pool (nothing), else its bounds and its pool: ``(lo, hi, pool)``, a missing bound
    as :data:`_FAR` (``lo <= v <= hi`` is then one chained comparison; a value that does not compare with a bound
    raises TypeError, which :meth:`Certified.holds` turns into "not proven", as before) and ``pool`` the pool's
    number (its place in ``t.pool_slots``: an index of :attr:`Certified.deltas`), None outside pools. Made once
    per tables (kept in ``t.slot_checks``: a large game takes certificates in full hundreds of times, and Slay the
    Spire's tables have thousands of slots), shared by every certificate and its copies."""
    made: list[tuple[Any, Any, int | None] | None] | None = t.slot_checks
    if made is not None and len(made) == len(t.counter_bounds):
        return made
    number = {name: k for k, name in enumerate(t.pool_slots)}
    pool_of = t.pool_of_slot
    out: list[tuple[Any, Any, int | None] | None] = []
    for i, (lo, hi) in enumerate(t.counter_bounds):
        pool = pool_of.get(i)
        if lo is None and hi is None and pool is None:
            out.append(None)
        else:
            out.append((-_FAR if lo is None else lo, _FAR if hi is None else hi,
                        None if pool is None else number[pool]))
    t.slot_checks = out
    return out


# A missing bound in :func:`slot_checks`: an int, not a float infinity, so that ``lo <= v <= hi`` stays on Python
# 3.11's int-only comparison (an int compared with a float takes the generic path, and the one comparison site,
# specialised for ints by the bounded slots, was sent back to it at every pool slot: Bloodborne's 91 pool slots have
# no upper bound). The largest int that path takes (one 30-bit digit). A value beyond it in a slot with a missing
# bound is merely "not proven": the full check, which reads the bounds themselves, decides, exactly as always.
_FAR = (1 << 30) - 1


class Certified:
    """Counters, zone sizes and card places of a state in which every card was in exactly one zone (the
    one ``card_zone`` names), every counter within its bounds and every pool at its declared total."""

    __slots__ = ("counters", "zones", "sizes", "card_zone", "int_pools", "checks", "deltas", "masks", "lift", "bits",
                 "held", "out", "test", "fast")

    def __init__(self, counters: Snapshot, zones: Snapshot, card_zone: list[int], int_pools: bool,
                 checks: list[tuple[Any, Any, int | None] | None], pools: int = 0,
                 sizes: list[int] | None = None) -> None:
        self.counters = counters
        # copies of the zone lists when certified in full: only the record's audit (:data:`AUDIT`) reads them and
        # keeps them current; a check proves placement from the sizes and the card places, which it keeps current
        self.zones = zones
        # each zone's size (given by a copy: its own, without a pass over the zone copies)
        self.sizes = sizes if sizes is not None else (
            list(map(len, zones.blocks[0])) if zones.n <= _BLOCK else [len(zones[i]) for i in range(zones.n)])
        self.card_zone = card_zone  # a copy
        # every pool slot held a plain int: a pool's total then moves by exactly the changes of its slots
        self.int_pools = int_pools
        self.checks = checks  # per slot, what a changed value is checked against (:func:`slot_checks`)
        # per pool (by its number in the checks), how much its total moved in the check under way: all zero between
        # checks, since a check that leaves one nonzero fails and the certificate is replaced (so no list is made
        # per check)
        self.deltas = [0] * pools
        # the engine's read-set lists for this game (interpreter/compiler/readsets.py ``InvariantReads.lists``),
        # set by the engine before its first check; None: every invariant counts as reading whatever changed
        self.masks: Masks | None = None
        # how far the masks' filtered part and per-card masks are moved down (readsets.py ``lift``), set with them
        self.lift = 0
        # the invariants that may read something the last :meth:`holds` found changed since the state before: the OR
        # of the read-set masks of the changed slots and zones, and of the filtered reads (readsets.py) of changed
        # zones whose test holds for a moved card, ORed as the changes are checked
        self.bits = -1
        # which declared invariants held in the certified state, bit k for invariant k (set by the engine after it
        # evaluated them there; None: not known, as for a copy of a template's certificate or one just taken)
        self.held: int | None = None
        # what the last :meth:`holds` that held found failing among the built-in invariants a certificate does not
        # cover (capacity, removed cards, a choice's options, absent seats): the check's report starts with it
        self.out: Violations = []
        # what the engine calls as ``cert.test(cert, s)`` for :meth:`holds`: the method itself, or the same check
        # written for this game's tables (interpreter/runtime/certgen.py ``install``, with the masks)
        self.test: Callable[[Certified, GameState], bool] = Certified.holds
        # the engine's whole check (this check, then the declared invariants) written for this game's ruleset and
        # tables (interpreter/runtime/checkgen.py ``install``, after the masks): ``Game.violations`` calls it
        self.fast: Callable[[Any, Certified, GameState], Any] | None = None

    @staticmethod
    def take(s: GameState) -> Certified:
        """Certify ``s`` as it is now (the caller has just checked it in full)."""
        counters = s.counters
        t = s.tables
        pool_of = t.pool_of_slot
        # (in C: Slay the Spire and Bloodborne have dozens of pool slots, and a certificate is taken at every full
        # check)
        int_pools = not pool_of or _INT.issuperset(map(type, map(counters.__getitem__, pool_of)))
        return Certified(Snapshot.of(counters, is_not), Snapshot.of([z[:] for z in s.zones]), s.card_zone[:],
                         int_pools, slot_checks(t), len(t.pool_slots))

    def copy(self) -> Certified:
        zones = self.zones  # never changed in place (the audit replaces it): shared unless the audit runs
        if AUDIT is not None:
            zones = Snapshot(zones.n, [[z[:] for z in b] for b in zones.blocks])
        return Certified(self.counters.copy(), zones, self.card_zone[:], self.int_pools, self.checks,
                         len(self.deltas), self.sizes[:])

    def holds(self, s: GameState) -> bool:  # noqa: C901 - one pass over each list of the record, every checked decision
        """True when placement, bounds and pools provably hold in ``s``; then ``s`` becomes the certified state, and
        :attr:`out` lists the failing built-in invariants a certificate does not cover (capacity, removed cards, a
        choice's options, absent seats: each checked as :func:`full` does, in its order).

        What changed since the certified state is what the game's write paths noted: the counter slots and
        zones written in ``s.wrote`` (interpreter/runtime/state.py's ``note_slot`` and ``note_zone``, and the
        same test in generated code) and the cards moved in ``s.moved`` (every card move: runtime/moves.py), so
        no copy is compared to find it. Counters and cards: below. Then the counters are compared
        with the state item for item, the zones by their sizes and every card place, each in
        one C-level pass: a write that bypassed the record (a path that forgot to note itself) and changed a
        counter, a zone's size or a card's place makes them differ, and this check a full one. An unnoted change
        that keeps every size and place (a zone reordered in place, or a card listed in place of another in a zone
        whose size a noted move kept) is not seen here; tests/test_recorded_writes.py is what rules it out. False
        means "not proven": the caller runs the full check, which reports exactly what is wrong.

        The record's lists are read as they are (a slot, zone or card noted twice is checked twice, which changes
        nothing; no set is made of them) and then emptied.

        When it holds, :attr:`bits` is set to the invariants whose inputs the noted writes and card moves may have
        changed (the OR of their read-set masks, below). One method, not one per list, and the record's loops written
        here rather than in a method of their own: this runs at every checked decision, and a call costs a frame.

        Counters: a noted slot (``~zi`` in the record is zone ``zi``, noted as a zone: a shuffle) whose value
        changed must be within its bounds, and every pool with a changed slot must still add up: its changed slots,
        all plain ints, add up to what they did when certified (the pool's total then). Each value is taken into
        the copy as it is checked; what a changed slot is checked against is :attr:`checks`' entry
        (:func:`slot_checks`). A noted slot that still holds the very object certified (the round's resets that
        changed nothing, a value written back unchanged) is skipped: it was checked then, it adds nothing to a
        pool, and leaving its mask out spares the declared invariants that read it an evaluation. (Identity, as the
        certificate's counter copy always compared: an equal value that is another object is checked again.) The
        certified pool slots are plain ints (``int_pools``, and only ints are taken into them), so a change's
        difference is exact.

        Cards: the certificate keeps each zone's size and each card's place, and both are right when certified: a
        zone's size is the number of cards placed in it. Each moved card takes its place now into the certified
        places, and moves one card of size from the zone it was placed in to the zone it is placed in now, after a
        check that that zone lists it. Then the certified places must equal the places now (one C-level pass: no
        card that was not noted moved), and :meth:`holds` compares every zone's size with the kept sizes. A zone
        noted as a zone is checked card by card, in C-level passes: its cards are distinct card ids, each placed in
        it; with its size equal to the number of cards placed in it, it lists exactly those. A zone changed only by
        noted moves is not read card by card: its size and the moved cards' places are checked, and
        tests/test_recorded_writes.py proves that every change of a zone's list is a noted move or a noted zone.
        (Below 0: card -1 would read the last card's place, as Python indexes lists; `True` would be card 1. A card
        past the end raises IndexError, which :meth:`holds` turns into "not proven".)

        The masks (``masks``: every invariant without them): per changed slot the invariants reading it; per zone a
        card left or entered, or noted as a zone, those reading its list (below bit ``shift``), and, for the zones a
        card left or entered, those reading them through a per-card test that holds for that card (above: the
        zones' masks ANDed with the card's own, so no second pass over the moved cards). A zone noted as a zone adds
        no filtered reader: such a read depends only on which cards the zone holds, and every card that entered or
        left it is a moved card, paired with it above (a noted zone's cards are all placed in it, and every card
        whose place changed is in ``moved``, or the place comparison fails).

        The filtered masks come moved down by :attr:`lift` (readsets.py ``lists``: every OR of two masks then stays
        among CPython's small ints, made once), and are moved back up once, at the end.
        """
        counters = s.counters
        noted = s.wrote
        moved = s.moved
        copy = self.counters
        if noted is None or moved is None or len(counters) != copy.n:
            return False  # (a zone or card count that differs fails the size or place comparison below)
        zones = s.zones
        cz = s.card_zone
        if AUDIT is not None:
            if len(zones) != len(self.sizes) or len(cz) != len(self.card_zone):
                return False
            self._audit(counters, zones, cz, noted, moved)
        old = copy.blocks[0] if copy.n <= _BLOCK else copy  # (Snapshot.flat, without its call)
        masks = self.masks
        if masks is None:
            slot_of: list[int] | _Every = _EVERY
            zone_of: list[int] | _Every = _EVERY
            relevant: list[int] | _Every = _EVERY
            shift = 0
        else:
            slot_of, zone_of, _, shift, relevant = masks
        # the loops below bring the certificate up to date as they check (one loop over each list, not a second
        # pass): when one fails, the certificate is half updated, and the caller replaces it (a full check, then
        # Certified.take), so nothing reads it again; the record's lists are emptied however it ends
        try:
            checks = self.checks
            deltas = self.deltas
            int_pools = self.int_pools
            first = 0  # how much the first pool's total moved (in a local: most rulesets have one pool)
            pools = False  # a slot of a pool after the first changed
            bits = 0
            dz: list[int] | None = None
            for i in noted:
                if i < 0:
                    if dz is None:
                        dz = []
                    dz.append(~i)
                    continue
                v = counters[i]
                was = old[i]
                if v is was:
                    continue
                bits |= slot_of[i]
                r = checks[i]
                if r is not None:
                    lo, hi, pool = r
                    if not lo <= v <= hi:
                        return False
                    if pool is not None:
                        if type(v) is not int or not int_pools:
                            return False
                        if pool:
                            deltas[pool] += v - was
                            pools = True
                        else:
                            first += v - was
                old[i] = v
            if first or (pools and any(deltas)):
                return False
            own = self.card_zone
            if moved:
                sizes = self.sizes
                for c in moved:
                    z = cz[c]
                    if z < 0 or ((zl := zones[z])[-1] != c and c not in zl):
                        return False  # placed in a zone that does not list it (or at no zone): the full check says
                    was = own[c]
                    if was != z:
                        own[c] = z
                        sizes[was] -= 1
                        sizes[z] += 1
                        bits |= (zone_of[was] | zone_of[z]) & relevant[c]
                    else:
                        bits |= zone_of[z] & relevant[c]
            if own != cz:
                return False
            if dz is not None:
                plain = (1 << shift) - 1 if shift else -1
                for zi in dz:
                    cards = zones[zi]
                    if cards and (min(cards) < 0 or not _INT.issuperset(map(type, cards))
                                  or len(set(cards)) != len(cards) or set(map(cz.__getitem__, cards)) != {zi}):
                        return False
                    bits |= zone_of[zi] & plain  # (its filtered part: the moved cards', above)
            if bits >> shift:  # filtered invariants named: moved back up (bit shift + j is invariant j + lift)
                bits = (bits & ((1 << shift) - 1)) | (bits >> shift) << self.lift
        except (TypeError, IndexError):
            return False  # a value the full check must report (or fail on) itself
        finally:
            noted.clear()
            moved.clear()
        if (counters != old if copy.n <= _BLOCK else not copy.equals(counters)) or list(
                map(len, zones)) != self.sizes:
            return False  # something changed that no write path noted: checked in full (the caller retakes us)
        self.bits = bits
        # the built-in invariants a certificate does not cover (cheap: capacity, removed cards, choices), here and
        # not in a function of their own: one frame less at every checked decision
        out: Violations = []
        t = s.tables
        caps = t.zone_capacity
        for zi in t.capped_zones:  # _capacity, _final and _pending inline
            cap = caps[zi]
            if cap is not None and len(zones[zi]) > cap:
                _capacity(s, out)
                break
        n = 0  # (a loop, not sum/map: a game has one or two final zones, and each C call costs more than its loop)
        for zi in t.final_zones:
            n += len(zones[zi])
        if n != s.removed_count:
            _final(s, out)
        pend = s.pending
        if pend is not None:
            if pend[0] == "choose":
                if not pend[2]:
                    _pending(s, out)
            elif pend[0] == "simul" and not all(map(_OPTIONS, pend[1])):
                _pending(s, out)
            if t.absent_slots:
                seats.violations(s, out)
        self.out = out
        return True

    def _audit(self, counters: list[Any], zones: list[list[int]], cz: list[int], w: list[int], mv: list[int]) -> None:
        """Append to :data:`AUDIT` every slot, card place and zone that differs from the certified state but was
        not noted: a counter slot not in the record, a card whose place changed but not in ``moved``, and a zone
        whose list changed, was not noted as a zone, and is not what the noted moves make of it (its certified
        cards less those moved out, plus those moved in, in any order). Then the zone copies become the state's."""
        noted = set(w)
        moved = {c for c in mv if type(c) is int and 0 <= c < len(cz)}
        assert AUDIT is not None
        for i in self.counters.changed(counters) or ():
            if i not in noted:
                AUDIT.append(("counter", i))
        own = self.card_zone
        for c in range(len(cz)):
            if cz[c] != own[c] and c not in moved:
                AUDIT.append(("card", c))
        touched = {own[c] for c in moved} | {cz[c] for c in moved}
        for zi in self.zones.changed(zones) or ():
            if ~zi in noted:
                continue
            if zi in touched:
                kept = [c for c in self.zones[zi] if c not in moved or cz[c] == zi]
                came = [c for c in moved if cz[c] == zi and own[c] != zi]
                if sorted(kept + came) == sorted(zones[zi]):
                    continue
            AUDIT.append(("zone", zi))
        self.zones = Snapshot.of([z[:] for z in zones])

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
    if s.tables.absent_slots:
        seats.violations(s, out)
    return out, certifiable


def _placement(s: GameState, out: Violations) -> None:
    ncards = len(s.tables.card_def)
    zones = s.zones
    cz = s.card_zone
    # All in C-level calls: the flat list of placed cards, and the zone each one is listed in,
    # must agree with the card -> zone index the engine keeps.
    placed = list(chain.from_iterable(zones))
    if placed and (not _INT.issuperset(map(type, placed)) or min(placed) < 0 or max(placed) >= ncards):
        # Before the set and the index below: card -1 would pass both (distinct, and `card_zone[-1]` is the
        # last card's place), a card past the end would raise IndexError, and a list in a zone TypeError.
        out.append(("every card in exactly one zone", _bad_card(s, ncards)))
    elif len(placed) != ncards or len(set(placed)) != ncards:
        out.append(("every card in exactly one zone", f"{len(placed)} card places for {ncards} cards"))
    elif list(map(cz.__getitem__, placed)) != list(chain.from_iterable(map(repeat, range(len(zones)),
                                                                             map(len, zones)))):
        out.append(("every card in exactly one zone", "a zone lists a card that is placed elsewhere"))


_OPTIONS = itemgetter(1)  # a simultaneous choice's (seat, options) pair's options: read in C, no generator
_INT = frozenset({int})  # the one type a card id has (not bool, whose True would index card 1)


def _bad_card(s: GameState, ncards: int) -> str:
    """Where the first listed card that is no card id (an int in 0..ncards-1) is, in player-neutral words."""
    for zi, zone in enumerate(s.zones):
        for pos, c in enumerate(zone):
            if type(c) is not int or not 0 <= c < ncards:
                shown = repr(c) if type(c) is int else f"a {type(c).__name__} value"
                return (f"{s.tables.zone_names[zi]} lists {shown} at position {pos + 1}, "
                        f"which is no card (cards are 0..{ncards - 1})")
    return "a zone lists something that is no card"  # pragma: no cover - only called after one was found


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
        if pend[0] == "simul" and not all(map(_OPTIONS, pend[1])):
            out.append(("a decision has a legal option", "empty simultaneous choice"))
