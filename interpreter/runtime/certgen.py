"""The invariant certificate's check written for one ruleset's tables: its bounds, pools, masks and zones as constants.

:meth:`Certified.holds <liturgy.interpreter.runtime.invariants.Certified.holds>` runs at every checked decision,
and its loops over the record (the noted counter slots, the moved cards) run once per item: per changed slot it
looked up the slot's read-set mask, then its checks' tuple, unpacked the bounds and the pool's number and tested
each, whatever the slot (about 46 bytecodes a changed slot; Bloodborne's bench loop changes about 500 slots a
game). Here the same check is written as Python for one ruleset's tables, compiled once per tables (and once per
distinct text in a process): the slots fall into a few classes (the same bounds, pool and read-set mask: Bloodborne's
149 slots are seven), a slot's class is one list lookup, and each class's branch tests its bounds and adds its mask
as constants; a ruleset with one pool keeps no per-pool list; what the tables fix (the capped zones and their
capacities, the final zones, whether seats can be absent, whether any invariant reads zones or reads them through
a per-card test) is written in or left out. The moved cards' loop is the generic one's.

Why the answer is :meth:`Certified.holds`' answer: the text is that method's body with its table lookups replaced by
the values they return for these tables (the tables of a player count never change once built, and a certificate's
masks are its tables' read-set lists, installed by :func:`install` with them), every test in the same order per item,
every failure a ``return False`` (not proven: the full check decides and reports, as always). A slot in no class
(no bounds, no pool, no reader) is only taken into the copy, as the generic loop does. tests/test_certgen.py plays
games of a small ruleset with both and compares every check's outcome, ``bits`` and ``out``; the shipped rulesets'
checked games compare the incremental and full checks' reports.

Not written (the generic method stays): tables with more than one block of counters (Slay the Spire's 33,782 slots:
the copy is a :class:`Snapshot` of blocks), a bound or capacity that is no plain int, more than :data:`MAX_CLASSES`
classes (the branch chain would cost what the lookups did), while the record's audit runs (:data:`invariants.AUDIT`),
and while ``Certified.holds`` is replaced (a test counting the proven checks wraps it).
"""

from __future__ import annotations

from collections.abc import Callable
from types import CodeType
from typing import Any

from liturgy.interpreter.runtime import invariants as inv
from liturgy.interpreter.runtime import seats
from liturgy.interpreter.runtime.state import GameState, Tables

Test = Callable[["inv.Certified", GameState], bool]

MAX_CLASSES = 16  # past this many slot classes a chain of tests costs more than the generic lookups
MAX_PAIRS = 64  # past this many zones a moved card's masks are ORed from ``zone_of`` (:func:`pairs`)
MAX_ZONES = 128  # past this many zones the sizes are compared through ``map`` (:func:`_sizes`)
_GENERIC = inv.Certified.holds  # the method as defined (a test may wrap it: then it is what runs)
_CODE: dict[str, CodeType] = {}  # generated text -> its compiled code: the suite builds the same tables many times


def install(cert: inv.Certified, masks: inv.Masks, lift: int, t: Tables) -> inv.Masks:
    """Give ``cert`` its read-set ``masks`` and ``lift`` (readsets.py ``lists``, ``lift``: the engine's, for ``t``)
    and the check it runs (:attr:`Certified.test`): the one written for ``t`` and these masks when there is one,
    else ``Certified.holds`` as it is now. Returns ``masks``."""
    cert.masks = masks
    cert.lift = lift
    holds = inv.Certified.holds
    test: Test = holds
    if holds is _GENERIC and inv.AUDIT is None and cert.counters.n == len(t.counter_bounds) <= inv._BLOCK:
        made = t.cert_test
        if made is None or made[0] is not masks or made[1] != lift:
            made = t.cert_test = (masks, lift, _make(t, masks, lift))
        if made[2] is not None:
            test = made[2]
    cert.test = test
    return masks


def _make(t: Tables, masks: inv.Masks, lift: int) -> Test | None:
    """The check written for ``t`` and ``masks`` (module docstring), or None where the generic one stays."""
    got = source(t, masks, lift)
    if got is None:
        return None
    text, kinds = got
    code = _CODE.get(text)
    if code is None:
        code = _CODE[text] = compile(text, "<liturgy certificate check>", "exec")
    slot_of, zone_of, _, shift, relevant = masks
    ns: dict[str, Any] = {"_kind": kinds, "_zone_of": zone_of, "_pair": pairs(zone_of), "_relevant": relevant,
                          "_inv": inv, "_generic": _GENERIC, "_capacity": inv._capacity, "_final": inv._final,
                          "_pending": inv._pending, "_seats": seats, "_OPTIONS": inv._OPTIONS, "_INT": inv._INT}
    exec(code, ns)  # noqa: S102 - our own text: names and int constants of the tables, nothing a ruleset wrote
    fn: Test = ns["holds"]
    return fn


def pairs(zone_of: list[int]) -> list[list[int]] | None:
    """Per pair of zones (the one a moved card left, the one it entered) the OR of their read-set masks, which the
    moved cards' loop reads with one lookup more and one OR less (``zone_of[was] | zone_of[z]`` was two lookups and
    an OR a card); None past :data:`MAX_PAIRS` zones (the table grows with their square). A negative zone reads the
    last row or column, as ``zone_of`` read with it does."""
    if len(zone_of) > MAX_PAIRS:
        return None
    return [[a | b for b in zone_of] for a in zone_of]


def _ints(*values: Any) -> bool:
    return all(type(v) is int for v in values)


def source(t: Tables, masks: inv.Masks, lift: int) -> tuple[str, list[int]] | None:
    """The text of the check for ``t`` and ``masks`` and the per-slot class list it reads, or None (module
    docstring: where the generic method stays)."""
    got = lines(t, masks, lift, "def holds(self, s):", ["    if _inv.AUDIT is not None:",
                                                       "        return _generic(self, s)"])
    if got is None:
        return None
    w, kinds = got
    w += ["    self.out = out", "    return True"]
    return "\n".join(w) + "\n", kinds


def lines(t: Tables, masks: inv.Masks, lift: int, head: str, escape: list[str]) -> tuple[list[str], list[int]] | None:
    """The check's lines up to where it has proven the certificate, and its report of the built-in invariants a
    certificate does not cover is in the local ``out`` (each failure before that a ``return False``), and the
    per-slot class list, or None. ``head`` is the def line, ``escape`` the lines run first (where the text gives way
    to the generic method); interpreter/runtime/checkgen.py goes on with the declared invariants."""
    checks = inv.slot_checks(t)
    slot_of, zone_of, _, shift, relevant = masks
    n = len(checks)
    if len(slot_of) != n or len(relevant) != len(t.card_def):
        return None
    # the classes: (bounds and pool, mask), the ones with more `reset each round` slots first (such a slot is
    # written back at every round start that finds it changed, so its changes come at least in pairs: Bloodborne's
    # 0..1 flags, 245 changes a game against the 91-slot pool's 134), then the ones with more slots; which class
    # comes first changes how many tests a changed slot takes, never what it is checked against
    count: dict[tuple[Any, int], int] = {}
    resets: dict[tuple[Any, int], int] = {}
    reset = {slot for slot, _ in t.reset_slots}
    for i in range(n):
        key = (checks[i], slot_of[i])
        if key != (None, 0):
            count[key] = count.get(key, 0) + 1
            resets[key] = resets.get(key, 0) + (i in reset)
    if len(count) > MAX_CLASSES:
        return None
    order = sorted(count, key=lambda k: (-resets[k], -count[k]))
    number = {key: k for k, key in enumerate(order, 1)}
    # a slot with nothing to check or add is in the class after the last (no branch); 0 is a zone's note (below)
    kinds = [number.get((checks[i], slot_of[i]), len(order) + 1) for i in range(n)]
    kinds += [0] * max(n, len(t.zone_capacity))
    npools = len(t.pool_slots)
    caps = [(zi, t.zone_capacity[zi]) for zi in t.capped_zones if t.zone_capacity[zi] is not None]
    if not _ints(lift, shift, *(c for _, c in caps), *t.final_zones, *(m for _, m in order)) or not all(
            r is None or _ints(r[0], r[1]) for r, _ in order):
        return None
    reads_zones = any(zone_of)
    filtered = reads_zones and any(m != -1 for m in relevant)
    pair = reads_zones and pairs(zone_of) is not None
    nz = len(t.zone_capacity)
    # the namespace's tables as default arguments: locals from the call on, with no load and store at every check
    binds = [b for b, on in (("kind=_kind", order), ("zone_of=_zone_of", reads_zones), ("relevant=_relevant", filtered),
                             ("pair=_pair", pair), ("ln=len", 0 < nz <= MAX_ZONES)) if on]
    if not head.endswith("):"):
        return None
    w: list[str] = []
    add = w.append
    add(head[:-2] + "".join(f", {b}" for b in binds) + "):")
    add("    counters = s.counters")
    add("    noted = s.wrote")
    add("    moved = s.moved")
    add("    if noted is None or moved is None:")  # (a counter list of another length: the comparison below)
    add("        return False")
    w += escape
    add("    zones = s.zones")
    add("    cz = s.card_zone")
    add("    old = self.counters.blocks[0]")
    add("    try:")
    if npools:
        add("        int_pools = self.int_pools")
    if npools > 1:
        add("        deltas = self.deltas")
        add("        pools = False")
    add("        first = 0")
    add("        bits = 0")
    add("        dz = None")
    add("        for i in noted:")
    if order:  # the class first: 0 is a zone's note (``~zi``), which a negative ``i`` finds at the list's end
        add("            k = kind[i]")
        add("            if not k:")
        add("                if i >= 0:")  # (a slot past the counters: the generic check's IndexError)
        add("                    return False")
    else:
        add("            if i < 0:")
    add("                if dz is None:")
    add("                    dz = []")
    add("                dz.append(~i)")
    add("                continue")
    add("            v = counters[i]")
    add("            if v is old[i]:")
    add("                continue")
    w += _branches(order)
    add("            old[i] = v")
    add("        if first or (pools and any(deltas)):" if npools > 1 else "        if first:")
    add("            return False")
    add("        own = self.card_zone")
    add("        if moved:")
    add("            sizes = self.sizes")
    add("            for c in moved:")
    add("                z = cz[c]")
    add("                if z < 0 or ((zl := zones[z])[-1] != c and c not in zl):")
    add("                    return False")
    add("                was = own[c]")
    add("                if was != z:")
    add("                    own[c] = z")
    add("                    sizes[was] -= 1")
    add("                    sizes[z] += 1")
    if filtered:
        add("                    bits |= pair[was][z] & relevant[c]" if pair else
            "                    bits |= (zone_of[was] | zone_of[z]) & relevant[c]")
        add("                else:")
        add("                    bits |= zone_of[z] & relevant[c]")
    elif reads_zones:
        add("                    bits |= pair[was][z]" if pair else
            "                    bits |= zone_of[was] | zone_of[z]")
        add("                else:")
        add("                    bits |= zone_of[z]")
    add("        if own != cz:")
    add("            return False")
    add("        if dz is not None:")
    add("            for zi in dz:")
    add("                cards = zones[zi]")
    add("                if cards and (min(cards) < 0 or not _INT.issuperset(map(type, cards))")
    add("                              or len(set(cards)) != len(cards) or set(map(cz.__getitem__, cards)) != {zi}):")
    add("                    return False")
    if reads_zones:
        add(f"                bits |= zone_of[zi] & {(1 << shift) - 1 if shift else -1}")
    if filtered and shift:
        add(f"        if bits >> {shift}:")
        add(f"            bits = (bits & {(1 << shift) - 1}) | (bits >> {shift}) << {lift}")
    add("    except (TypeError, IndexError):")
    add("        return False")
    add("    finally:")
    add("        noted.clear()")
    add("        moved.clear()")
    w += _sizes(nz)
    add("    self.bits = bits")
    add("    out = []")
    if caps:
        add(f"    if {' or '.join(f'len(zones[{zi}]) > {cap}' for zi, cap in caps)}:")
        add("        _capacity(s, out)")
    total = " + ".join(f"len(zones[{zi}])" for zi in t.final_zones) or "0"
    add(f"    if {total} != s.removed_count:")
    add("        _final(s, out)")
    add("    pend = s.pending")
    add("    if pend is not None:")
    add("        if pend[0] == 'choose':")
    add("            if not pend[2]:")
    add("                _pending(s, out)")
    add("        elif pend[0] == 'simul' and not all(map(_OPTIONS, pend[1])):")
    add("            _pending(s, out)")
    if t.absent_slots:
        add("        _seats.violations(s, out)")
    return w, kinds


def _sizes(nz: int) -> list[str]:
    """The lines that compare the counters with the copy and every zone's size with the kept sizes (``nz``: the
    tables' zone count), each failure a ``return False``.

    The sizes are the check's largest fixed cost (Bloodborne: 26 zones, about 8.5 k instructions a check as
    ``list(map(len, zones))``: a vectorcall of ``len`` per zone from ``map``, and a list grown as it is filled).
    Written out, the zones are unpacked into locals (one specialized ``UNPACK_SEQUENCE``, after a test of their
    number) and their sizes are a list display of ``len`` calls that Python 3.11 specializes (no vectorcall, the
    list made at its size), compared with the kept sizes in C as before: the same sizes of the same lists,
    compared the same way (a zone count that is not the tables' is "not proven", as a size list of another length
    was). About 40 % fewer instructions (docs/performance.md, Session 27 chkcert). Past :data:`MAX_ZONES` zones
    the ``map`` form stays (the text would grow with the zones)."""
    if not 0 < nz <= MAX_ZONES:
        return ["    if counters != old or [*map(len, zones)] != self.sizes:", "        return False"]
    names = [f"z{k}" for k in range(nz)]
    return [f"    if counters != old or len(zones) != {nz}:",
            "        return False",
            f"    {', '.join(names)}{',' if nz == 1 else ''} = zones",  # (``ln``: ``len``, a default argument)
            f"    if [{', '.join(f'ln({z})' for z in names)}] != self.sizes:",
            "        return False"]


def _branches(order: list[tuple[Any, int]]) -> list[str]:
    """The lines that check a changed slot of each class (``order``: (bounds and pool, mask), class k at k - 1)."""
    w: list[str] = []
    add = w.append
    for k, (r, m) in enumerate(order, 1):
        add(f"            {'if' if k == 1 else 'elif'} k == {k}:")
        if m:
            add(f"                bits |= {m}")
        if r is not None:
            lo, hi, pool = r
            add(f"                if not {lo} <= v <= {hi}:")
            add("                    return False")
            if pool is not None:
                add("                if type(v) is not int or not int_pools:")
                add("                    return False")
                if pool:
                    add("                was = old[i]")  # (read only here: the others need not)
                    add(f"                deltas[{pool}] += v - was")
                    add("                pools = True")
                else:
                    add("                was = old[i]")
                    add("                first += v - was")
    return w
