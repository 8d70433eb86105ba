"""A seat's view of a state built from its view of an earlier state: only the zones and counters that changed.

Why: narration with causes (engine/causes.py) views every state copy taken before a log line the seat may see, and
those copies follow one another closely (one line deals damage, the next moves a card): most of each view is the
view before it. Building each copy's view whole was most of what narration costs the web server (docs/web.md,
"Session 15"); building only what changed, and sharing the rest, also lets narration compare two views in
almost no time (a part shared by both compares by identity, in C).

Why it is exact, and leaks nothing: each part of a view is a function of a few inputs, and a part is taken from
the earlier view only when those inputs are equal in both states, so it is the part :meth:`GameViews.view` would
build. The inputs, per part:

- a zone: the cards lying in it, whether this viewer sees each of them (``visible_cards``, computed afresh for
  every state) and, for a `size hidden` zone `visible to` a group, that group (always built again);
- a zone per card: its host's zones and whether the viewer sees each host (built again when anything the viewer
  sees changed);
- a counter: its own slots; a per-card or card-holding counter also whether the viewer sees each card and where
  the cards lie (copies told apart by their zone); a counter `visible to` a group, that group (always built
  again).

The zone or counter slots of the state copies are compared in C, and only those that differ are looked at.
The derived view has only what narration reads: the viewer, zones and counters.
"""

from __future__ import annotations

from itertools import compress, count
from operator import ne
from typing import TYPE_CHECKING, Any

from liturgy.dsl.checker.graphs import is_overlay
from liturgy.interpreter.engine.views import counter_values, zone_views
from liturgy.interpreter.runtime.moves import visible_cards

if TYPE_CHECKING:
    from liturgy.interpreter.engine.ruleset import Ruleset
    from liturgy.interpreter.runtime.state import GameState

# per ruleset and player count: which zone name each zone slot belongs to, which counter each counter slot does,
# and the names built again whatever changed (see :func:`_owners`)
Owners = tuple[list[str | None], list[str | None], frozenset[str], frozenset[str], frozenset[str], frozenset[str]]
_OWNERS: dict[tuple[int, int], tuple[Ruleset, Owners]] = {}


def _owners(ruleset: Ruleset, n: int, slots: int, zone_count: int, cards: int) -> Owners:
    """(zone slot → zone name, counter slot → counter name, zones always built again, zones per card, counters
    that depend on which cards the viewer sees and where they lie, counters always built again), worked out once
    per ruleset and player count from the compiled layout: the same reads :func:`zone_views` and
    :func:`counter_values` make."""
    got = _OWNERS.get((id(ruleset), n))
    if got is not None and got[0] is ruleset and len(got[1][0]) == zone_count and len(got[1][1]) == slots:
        return got[1]
    prog, lay = ruleset.program, ruleset.compiled.layout
    zone_of: list[str | None] = [None] * zone_count
    per_card_zones: set[str] = set()
    for name, z in prog.zones.items():
        if z.per_card:
            per_card_zones.add(name)
            base = lay.zone_card_base + lay.zone_card_offsets[name]
            for cid in range(cards):
                zone_of[base + cid * lay.zone_card_stride] = name
        elif z.per_player:
            for p in range(n):
                zone_of[lay.zone_player_base + p * lay.zone_player_stride + lay.zone_player_offsets[name]] = name
        else:
            zone_of[lay.zone_global[name]] = name
    # a `size hidden` zone `visible to` a group: whether its size shows depends on the group, any part of the state
    regrouped = {name for name, z in prog.zones.items() if z.size_hidden}
    counter_of: list[str | None] = [None] * slots
    sighted: set[str] = set()
    grouped: set[str] = set()
    for name, c in prog.counters.items():
        if is_overlay(name):
            continue
        width = len(prog.enums[c.index_enum]) if c.index_enum else 1
        if c.scope == "global":
            starts = [lay.global_slots[name]]
        elif c.scope == "player":
            starts = [lay.player_base + p * lay.player_stride + lay.player_offsets[name] for p in range(n)]
        else:
            starts = [lay.card_base + lay.card_offsets[name] + cid * lay.card_stride for cid in range(cards)]
            sighted.add(name)  # shown for the cards seen, keyed by name (and zone, for copies shown together)
        for start in starts:
            for i in range(start, start + width):
                counter_of[i] = name
        if c.held is not None and c.held.kind == "card":
            sighted.add(name)  # a card it holds reads by name only where the viewer sees that card
        if c.seen_by not in ("", "owner", "hidden"):
            grouped.add(name)
    out = (zone_of, counter_of, frozenset(regrouped), frozenset(per_card_zones), frozenset(sighted),
           frozenset(grouped))
    _OWNERS[(id(ruleset), n)] = (ruleset, out)
    return out


def derive_view(ruleset: Ruleset, player: int | None, state: GameState, prev_state: GameState,
                prev_view: dict[str, Any], prev_seen: list[bool] | None = None) -> tuple[dict[str, Any], list[bool]]:
    """``player``'s view of ``state`` (its viewer, zones and counters, as :meth:`GameViews.view` builds them),
    sharing with ``prev_view`` (their view of ``prev_state``, or a view holding at least these parts) every part
    whose inputs did not change; and which cards the viewer sees in ``state``, for the next derivation.
    ``prev_seen``: which cards the viewer sees in ``prev_state``, when the caller has it."""
    t = state.tables
    who = t.n if player is None else player
    seen = visible_cards(state, who)
    viewer = "spectator" if player is None else f"P{player + 1}"
    # other names (a leak test's sentinels), another viewer, a view without counters: built whole
    if t is not prev_state.tables or prev_view.get("viewer") != viewer or prev_view.get("counters") is None:
        return {"viewer": viewer, "zones": zone_views(state, ruleset, seen, who),
                "counters": counter_values(state, ruleset, seen, who)}, seen
    if prev_seen is None:
        prev_seen = visible_cards(prev_state, who)
    zone_of, counter_of, rezoned, per_card, sighted, grouped = _owners(
        ruleset, t.n, len(state.counters), len(state.zones), len(state.card_zone))
    # the cards whose sight changed, and the zones and counter slots that changed (compared in C; walked if not equal)
    resighted = [] if seen == prev_seen else list(compress(count(), map(ne, seen, prev_seen)))
    changed: set[str | None] = set(rezoned)
    if state.zones != prev_state.zones:
        changed.update(zone_of[i] for i in compress(count(), map(ne, state.zones, prev_state.zones)))
    for c in resighted:
        changed.add(zone_of[state.card_zone[c]] if 0 <= state.card_zone[c] < len(zone_of) else None)
    if resighted:  # a zone per card shows the hosts the viewer sees
        changed |= per_card
    recount: set[str | None] = set(grouped)
    if state.counters != prev_state.counters:
        recount.update(counter_of[i] for i in compress(count(), map(ne, state.counters, prev_state.counters)))
    if resighted or state.card_zone != prev_state.card_zone:
        recount |= sighted
    zones = zone_views(state, ruleset, seen, who, prev_view["zones"], prev_view["zones"].keys() - changed)
    counters = counter_values(state, ruleset, seen, who, prev_view["counters"], prev_view["counters"].keys() - recount)
    return {"viewer": viewer, "zones": zones, "counters": counters}, seen
