"""When two worlds look alike to an observer without rendering either: the noninterference probe's shortcut.

Why: the probe (tools/noninterference.py) compares what one player observes in two worlds at every decision for
up to 16 decisions, and with the narration timeline (engine/causes.py) also at every state copy the narration
splits at. Rendering is nearly all of its cost: a view's counters above all (Fury of Dracula's dozens of
per-card counters, keyed by card name, for hundreds of cards), then the narration of each pair of views. Two
worlds drawn from one information set are mostly equal slot for slot, so most renderings compare equal.

What this module decides is exact, not a guess: :meth:`Alike.states` says yes only when the two states' views
for the observer have equal zones and equal counters and grids, from the data the views are a function of:

- which cards the observer sees (``visible_cards``), and for each card it sees, the zone it lies in: a view
  tells two seen copies of one card apart by their zones (views.py, ``card_keyed``);
- every counter slot outside the per-card slots, and the per-card slots of the cards it sees: a view reads a
  per-card counter of a seen card only, and every other value by its slot (a card held in a counter reads as
  its name only when seen, which the first point fixes);
- who sees each value `visible to` a group, and each zone `size hidden` to a group: worked out from the state,
  so evaluated in both;
- the zones: equal lists of card ids render alike; where they differ, each card reads as its name when seen and
  as ``?`` (with its back) when not, compared as the view writes it.

The engine keeps each slot's type (the checker types every assignment), so equal slots are equal values to
the narration's words as well. Anything this module cannot vouch for says "not alike", and the probe then
renders as before: a false "not alike" costs time, never a verdict (tests/test_probe_shortcut.py runs the probe
both ways over leaky and clean games and compares every report).
"""

from __future__ import annotations

from itertools import compress
from typing import TYPE_CHECKING, Any

from liturgy.interpreter.engine.causes import WatchedLog
from liturgy.interpreter.engine.views import _seer
from liturgy.interpreter.runtime.moves import visible_cards
from liturgy.interpreter.runtime.state import GameState, Tables, hidden_card

if TYPE_CHECKING:
    from liturgy.interpreter.engine.game import Game
    from liturgy.interpreter.engine.ruleset import Ruleset

# what the probe compares the two worlds' snapshots by when it need not render them (tests switch it off)
ENABLED = True


class Alike:
    """Whether two states look alike to viewer ``who`` of one ruleset (see the module's docstring); the parts of
    the ruleset that decide it are looked up once per comparison."""

    def __init__(self, ruleset: Ruleset, who: int) -> None:
        prog = ruleset.program
        self.ruleset = ruleset
        self.who = who
        self.layout = ruleset.compiled.layout
        # values shown to a `visible to` group: who is in it is a function of the state
        self.groups = [d for d in [*prog.counters.values(), *prog.grids.values()]
                       if d.seen_by not in ("", "hidden", "owner")]
        self.sizeless = {name for name, z in prog.zones.items() if z.size_hidden}

    def states(self, a: GameState, b: GameState, zones: bool = True) -> bool:
        """Whether ``who``'s views of ``a`` and ``b`` hold equal counters and grids, and (``zones``) equal zones."""
        seen = visible_cards(a, self.who)
        if seen != visible_cards(b, self.who):
            return False
        if a.card_zone != b.card_zone:
            za, zb = a.card_zone, b.card_zone
            if any(za[c] != zb[c] for c in compress(range(len(seen)), seen)):
                return False
        return (self._slots(a.counters, b.counters, seen) and self._groups(a, b)
                and (not zones or self._zones(a, b, seen)))

    def _slots(self, x: list[Any], y: list[Any], seen: list[bool]) -> bool:
        """Every slot equal but the per-card slots of cards the viewer does not see."""
        if x == y:
            return True
        lay = self.layout
        first, stride = lay.card_base, lay.card_stride
        end = first + stride * len(seen)
        if len(x) != len(y) or x[:first] != y[:first] or x[end:] != y[end:]:
            return False
        return all(x[at:at + stride] == y[at:at + stride]
                   for at in range(first, end, stride) if seen[(at - first) // stride]) if stride else True

    def _groups(self, a: GameState, b: GameState) -> bool:
        """Who of the players sees each value shown to a `visible to` group: the same in both states."""
        players: list[int | None] = [None, *range(a.tables.n)]
        for d in self.groups:
            in_a, in_b = _seer(self.ruleset, d, a, self.who), _seer(self.ruleset, d, b, self.who)
            if any(in_a(p) != in_b(p) for p in players):
                return False
        return True

    def _zones(self, a: GameState, b: GameState, seen: list[bool]) -> bool:
        """Every zone as the view writes it, equal in both states (only zones whose cards differ are written)."""
        t = a.tables
        lay = self.layout
        for zi, (x, y) in enumerate(zip(a.zones, b.zones, strict=True)):
            sizeless = self.sizeless and t.zone_names[zi].split(".", 1)[-1] in self.sizeless
            if x == y and not sizeless:
                continue
            if zi >= lay.zone_card_base:  # a zone on a card: in the view only when the card is seen
                host = (zi - lay.zone_card_base) // lay.zone_card_stride if lay.zone_card_stride else -1
                if not 0 <= host < len(seen) or not seen[host]:
                    continue
                if bool(x) != bool(y):
                    return False
            elif zi >= lay.zone_player_base and lay.zone_player_stride \
                    and (zi - lay.zone_player_base) // lay.zone_player_stride >= t.n:
                continue  # a seat nobody holds in this game: not in the view
            if sizeless:
                hidden = [not (_zone_mask(s, zi) >> self.who) & 1 for s in (a, b)]
                if hidden[0] != hidden[1]:
                    return False
                if hidden[0]:
                    continue  # `?` in both: neither its cards nor their number
            if x != y and (len(x) != len(y) or any(_read(t, seen, c) != _read(t, seen, d)
                                                   for c, d in zip(x, y, strict=True) if c != d)):
                return False
        return True

    def timelines(self, real: Game, world: Game, player: int) -> bool:
        """Whether the narration timelines of ``player`` since it was last watched (engine/causes.py) are made of
        alike states under the same lines: the same number of state copies, each pair alike, and the line each
        copy comes before read alike by ``player`` (None when it may not read it)."""
        snaps: list[list[tuple[int, GameState]]] = []
        for g in (real, world):
            log = g.state.log
            since = log.since.get(player) if isinstance(log, WatchedLog) else None
            snaps.append([] if since is None or not isinstance(log, WatchedLog) else log.snaps[since:])
        if len(snaps[0]) != len(snaps[1]):
            return False
        for (i, x), (j, y) in zip(snaps[0], snaps[1], strict=True):
            if real.log_line(i, player) != world.log_line(j, player) or not self.states(x, y):
                return False
        return True


def _read(t: Tables, seen: list[bool], c: int) -> str:
    """Card ``c`` in a zone, as the view writes it: its name when seen, else ``?`` with its back."""
    return t.card_names[c] if seen[c] else hidden_card(t, c, "?")


def _zone_mask(s: GameState, zi: int) -> int:
    """Who sees zone ``zi``'s cards now (its mask, or its group's members)."""
    mask = s.tables.zone_vis_mask[zi]
    return s.tables.zone_group[zi](s) if mask < 0 else mask
