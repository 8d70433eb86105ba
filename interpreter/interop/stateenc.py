"""A player's observation vector read from the game state, not from a view dict.

Why: :meth:`.common.ViewEncoder.encode` walks the view :meth:`Game.view` builds (a name per card, a dict per
counter) and adds its numbers one at a time: about 1 µs a number, some 800 numbers in a Betrayal view, as much
again as the view itself. This encoder reads the same slots and zones the view is made of, deciding what the
viewer may see with the view's own rules (``visible_cards``, the zone masks of `size hidden` zones, the counters'
and grids' seers of engine/views.py), and places the numbers with an index plan worked out once per encoder and
tables: which zone, card and counter goes to which offset. The zones, most of the numbers, are one ``np.unique``
over the counted cards' offsets.

The vector is the one :meth:`.common.ViewEncoder.encode` makes of :meth:`Game.view` (that encoder stays, as the
reference: tests/test_stateenc.py compares the two over random games of every shipped ruleset, for every seat
and the spectator). Per-card counters of one definition are summed by ``np.add.at`` in float32 in another order
than the reference's, which is the same sum for the integer values counters hold (below 2**24 in magnitude).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import compress
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np
from liturgy.dsl.checker.graphs import is_overlay, overlay_name
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.code import FIRST_SLOT, ROUND_SLOT
from liturgy.interpreter.engine.views import (
    HIDDEN,
    _cell_seer,
    _picker,
    _seer,
    _typed_reader,
    committed_players,
)
from liturgy.interpreter.interop.common import ViewEncoder, _card_def, _number
from liturgy.interpreter.runtime.graphs import edges_view, overlay_of
from liturgy.interpreter.runtime.grids import cell_label
from liturgy.interpreter.runtime.moves import visible_cards
from liturgy.interpreter.runtime.state import Tables

if TYPE_CHECKING:
    from liturgy.interpreter.engine import Game


@dataclass
class _Plan:
    """Where each part of one game's state goes in the vector (per encoder and tables: card ids are per tables)."""

    tables: Tables
    code_seen: Any  # per card id, its slot among a zone's counts when seen: its definition (or the `?` one)
    card_def: list[int]  # per card id, the definition its per-card counters sum into
    zones: list[tuple[int, int, bool]]  # (zone index, vector offset, whether `size hidden`) of plain zones
    hosted: list[tuple[int, int, int, bool]]  # per-card zones: (first zone index, stride, offset, `size hidden`)
    # global and per-player counters every viewer sees, untyped: their state slots, read by one itemgetter, and
    # their offsets in the vector (each offset once)
    public: Callable[[list[Any]], Any] | None
    public_at: Any
    # per-card counters holding plain numbers or flags, one entry per label of an enum-indexed one: (its first
    # slot, the stride between cards, its first vector offset, the width per definition: its labels, or 1)
    plain_cards: list[tuple[int, int, int, int]]
    others: list[tuple[str, A.CounterDecl]]  # every other counter: read as the view reads it


_PLANS: dict[tuple[int, int], tuple[ViewEncoder, _Plan]] = {}


def _plan(enc: ViewEncoder, game: Game) -> _Plan:
    """The index plan of ``enc`` for ``game``'s tables, made once (kept with the encoder, so ids stay unique)."""
    t = game.state.tables
    got = _PLANS.get((id(enc), id(t)))
    if got is not None and got[0] is enc and got[1].tables is t:
        return got[1]
    prog, lay = game.ruleset.program, game.ruleset.compiled.layout
    nd = len(enc.defs)
    code_seen = np.array([nd if name.startswith("?") else enc.defs[name] for name in t.card_names], dtype=np.intp)
    card_def = [_card_def(enc.defs, name) for name in t.card_names]
    zones: list[tuple[int, int, bool]] = []
    hosted: list[tuple[int, int, int, bool]] = []
    for name, z in prog.zones.items():
        base = enc.zone_slots[name]
        if z.per_card:
            hosted.append((lay.zone_card_base + lay.zone_card_offsets[name], lay.zone_card_stride, base,
                           z.size_hidden))
        elif z.per_player:
            zones.extend((lay.zone_player_base + p * lay.zone_player_stride + lay.zone_player_offsets[name],
                          base + p * (nd + 1), z.size_hidden) for p in range(t.n))
        else:
            zones.append((lay.zone_global[name], base, z.size_hidden))
    public: list[tuple[int, int]] = []  # (state slot, vector offset)
    plain_cards: list[tuple[int, int, int, int]] = []
    others: list[tuple[str, A.CounterDecl]] = []
    for name, c in prog.counters.items():
        if is_overlay(name):  # a graph's changes: encoded with the boards
            continue
        base, scope, labels = enc.counter_slots[name]
        width = len(labels) if labels else 1
        if c.seen_by or c.held is not None:
            others.append((name, c))
        elif scope == "card":
            plain_cards.extend((lay.card_base + lay.card_offsets[name] + j, lay.card_stride, base + j, width)
                               for j in range(width))
        elif scope == "global":
            public.extend((lay.global_slots[name] + j, base + j) for j in range(width))
        else:
            public.extend((lay.player_base + p * lay.player_stride + lay.player_offsets[name] + j,
                           base + p * width + j) for p in range(t.n) for j in range(width))
    getter = _picker([at for at, _ in public]) if public else None
    plan = _Plan(t, code_seen, card_def, zones, hosted, getter, np.array([o for _, o in public], dtype=np.intp),
                 plain_cards, others)
    if len(_PLANS) >= 16:
        _PLANS.pop(next(iter(_PLANS)))
    _PLANS[(id(enc), id(t))] = (enc, plan)
    return plan


def encode_state(enc: ViewEncoder, game: Game, me: int | None) -> Any:
    """``enc.encode(game.view(me), me)``, read from ``game``'s state (see the module's docstring)."""
    s = game.state
    t = s.tables
    plan = _plan(enc, game)
    who = t.n if me is None else me
    bit = 1 << who
    seen = visible_cards(s, who)
    nd = len(enc.defs)
    out = np.zeros(enc.size, dtype=np.float32)

    # zones: every card lying where the viewer may count it, as (offset, card) pairs, then counted at once
    offs: list[int] = []
    cards: list[int] = []
    zs = s.zones

    def sized(zi: int) -> bool:  # a `size hidden` zone shows its cards (and their number) only to who may see it
        mask = t.zone_vis_mask[zi]
        return bool((t.zone_group[zi](s) if mask < 0 else mask) & bit)

    for zi, off, size_hidden in plan.zones:
        here = zs[zi]
        if here and (not size_hidden or sized(zi)):
            cards += here
            offs += [off] * len(here)
    hosts = len(t.card_def)
    for first, stride, off, size_hidden in plan.hosted:  # the hosts the viewer sees, with something there
        for c in compress(range(hosts), zs[first:first + hosts * stride:stride]):
            if seen[c] and (not size_hidden or sized(first + c * stride)):
                here = zs[first + c * stride]
                cards += here
                offs += [off] * len(here)
    if cards:
        ids = np.array(cards, dtype=np.intp)
        slot = np.where(np.array(seen, dtype=bool)[ids], plan.code_seen[ids], nd) + np.array(offs, dtype=np.intp)
        at, count = np.unique(slot, return_counts=True)
        out[at] = count
    _counters(enc, game, plan, seen, who, out)
    _boards(enc, game, who, out)
    _tail(enc, game, me, out)
    return out


def _counters(enc: ViewEncoder, game: Game, plan: _Plan, seen: list[bool], who: int, out: Any) -> None:
    """Every counter value the view shows, as ``ViewEncoder._encode_counters`` reads it from the view: the public
    untyped ones at once, per-card plain numbers for the seen cards holding one, the rest one by one."""
    s = game.state
    t = s.tables
    lay = game.ruleset.compiled.layout
    slots = s.counters
    if plan.public is not None:
        # an int as it is, anything else (a flag, a text counter's string) as ViewEncoder reads it
        out[plan.public_at] = [v if v.__class__ is int else _number(v) for v in plan.public(slots)]
    # per-card values, summed per definition: several cards of one definition add into one number
    acc_at: list[int] = []
    acc: list[float] = []
    ncards = len(seen)
    shown_ids = list(compress(range(ncards), seen))
    pick = _picker(shown_ids)
    card_def = plan.card_def
    for first, stride, base, width in plan.plain_cards:  # a 0 adds nothing: only the seen cards' others read
        for cid, v in filter(itemgetter(1), zip(shown_ids, pick(slots[first:first + ncards * stride:stride]),
                                                  strict=True)):
            acc_at.append(base + card_def[cid] * width)
            acc.append(_number(v))
    for name, c in plan.others:
        base, scope, labels = enc.counter_slots[name]
        codes = enc.ref_codes.get(name)
        private = name in enc.private
        sees = _seer(game.ruleset, c, s, who)
        if scope != "player" and not sees(None):  # nobody sees it
            continue
        reader = _typed_reader(c, t.card_names, seen)
        width = len(labels) if labels else 1

        def code(v: Any, codes: dict[str, float] | None = codes) -> float:
            return codes.get(v, 0.0) if codes is not None else _number(v)

        if scope == "card":
            cbase, stride = lay.card_base + lay.card_offsets[name], lay.card_stride
            where = [(card_def[cid], cbase + cid * stride) for cid in shown_ids]
        elif scope == "global":
            where = [(0, lay.global_slots[name])]
        else:  # another's unseen value of a private counter: 0
            where = [(p, lay.player_base + p * lay.player_stride + lay.player_offsets[name])
                     for p in range(t.n) if sees(p)]
        enum = c.held is not None and c.held.kind == "enum"
        for k, at in where:
            if labels:
                for j in range(width):
                    acc_at.append(base + k * width + j)
                    acc.append(code(slots[at + j]))
            else:
                v = slots[at] if enum and scope == "card" else reader(slots[at])
                if not (private and v == HIDDEN):
                    acc_at.append(base + k)
                    acc.append(code(v))
    if acc_at:
        np.add.at(out, np.array(acc_at, dtype=np.intp), np.array(acc, dtype=np.float32))



def _boards(enc: ViewEncoder, game: Game, who: int, out: Any) -> None:
    """Grids (cells the viewer sees) and graphs changed in play, as the view shows them."""
    s = game.state
    prog, lay = game.ruleset.program, game.ruleset.compiled.layout
    for name, (base, labels) in enc.grid_slots.items():
        g = lay.grids[name]
        decl = prog.grids[name]
        kind = decl.cell_ty.kind if decl.cell_ty is not None else "any"
        seer = _cell_seer(game.ruleset, decl, s, who)
        cells = s.counters[g.base:g.base + g.width * g.height]  # row 0 first
        if labels is None:  # a number per cell (a cell the viewer may not see reads 0, as an empty one)
            if decl.seen_by != "owner" and seer(None):
                out[base:base + len(cells)] = [v if v.__class__ is int else _number(v) for v in cells]
            else:
                out[base:base + len(cells)] = [_number(v) if seer(v) else 0.0 for v in cells]
            continue
        for i, raw in enumerate(cells):  # one-hot over the players or enum values a cell may hold
            if raw is not None and seer(raw):
                out[base + i * len(labels) + labels.index(cell_label(kind, raw))] = 1
    for name, (base, places, kinds) in enc.graph_slots.items():
        slot = lay.global_slots.get(overlay_name(name))
        if slot is None:
            continue
        changes = edges_view(overlay_of(s.counters[slot]))
        n = len(places)
        for key, sign in (("linked", 1), ("unlinked", -1)):
            for a, b, k in changes.get(key, []):
                out[base + (kinds[k] * n + places[a]) * n + places[b]] = sign


def _tail(enc: ViewEncoder, game: Game, me: int | None, out: Any) -> None:
    """The round, the first player, the observer's seat and the decision's shape, as the view's decision has it."""
    s = game.state
    n = enc.players
    t = enc.tail
    out[t] = _number(s.counters[ROUND_SLOT])
    t += 1
    first = s.counters[FIRST_SLOT]
    if isinstance(first, int) and 0 <= first < n:
        out[t + first] = 1
    if me is not None:
        out[t + n + me] = 1
    pend = s.pending
    running = s.status == "running"
    if pend is not None and running:
        for p in game.waiting_for():
            out[t + 2 * n + p] = 1
        if pend[0] == "simul":
            for p in committed_players(pend[1], s.commits):
                out[t + 3 * n + p] = 1
        if me is not None:
            count = game.option_count(me)
            if count:
                out[t + 4 * n + me] = count
    t += 5 * n
    out[t] = 1.0 if pend is not None and running and pend[0] != "choose" else 0.0
    out[t + 1] = 0.0 if running else 1.0
