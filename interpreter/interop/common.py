"""What both adapters derive from a ruleset: action bounds, returns, views.

Nothing here knows any particular game.  Everything a player can observe is
built from :meth:`Game.view` (the engine's visibility-checked view), never
from the raw state, so an adapter cannot leak what the engine hides.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from liturgy.dsl.checker.graphs import is_overlay, overlay_name
from liturgy.dsl.checker.program import Program
from liturgy.dsl.checker.walk import _contains, all_statements
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.engine.views import HIDDEN


@cache
def cached_ruleset(path: str) -> Ruleset:
    """Parse, check and compile a ruleset once per process (adapters build many games)."""
    return load_ruleset(path)


def ruleset_slug(path: str) -> str:
    """A registry-friendly name from the file name: ``rulesets/bloodborne.rules`` -> ``bloodborne``."""
    return re.sub(r"[^a-z0-9]+", "_", Path(path).stem.lower()).strip("_") or "ruleset"


def has_simultaneous(ruleset: Ruleset) -> bool:
    """Whether any statement of the ruleset (card effects included) is a ``simultaneously`` choice."""
    return _contains(ruleset.program, A.Simultaneous)


@dataclass(frozen=True)
class Bounds:
    """Fixed sizes an adapter must announce before any game is played.

    A choice offers items of a list, zone, set or enum, so its size is bounded by
    the largest of: the cards in the game, the players, an enum, a grid's
    cells, two (``[false, true]``), a choice from ``range`` (see :func:`_int_choice_bound`), plus one
    for ``optional``'s *pass*.  A draw picks among the same
    kinds of lists or a die's faces.  Lists built by joining (``a + b``) or
    written out in card data can exceed this natural bound: pass a larger bound
    explicitly; an adapter that meets a bigger choice stops with an error that
    names the parameter.
    """

    max_options: int
    max_chance_outcomes: int

    @staticmethod
    def natural(ruleset: Ruleset, players: int) -> Bounds:
        prog = ruleset.program
        tables = ruleset._build(players)[0]
        base = max(
            len(tables.card_def),
            players,
            max((len(v) for v in prog.enums.values()), default=0),
            max((g.width * g.height for g in prog.grids.values()), default=0),  # a cell, a column or a row of a grid
            2,
        )
        faces = max((len(d.faces) for d in prog.dice.values()), default=0)
        return Bounds(max_options=max(base, _int_choice_bound(prog)) + 1, max_chance_outcomes=max(base, faces))


# _int_choice_bound per program (the program kept too, so an id is never reused while its entry is here): OpenSpiel
# makes a game object per parameterisation and again for every state it deserialises, and walking every
# statement of a large ruleset (Slay the Spire: about 8 ms) was the most of each (docs/performance.md, Session 20)
_CHOICE_BOUNDS: dict[int, tuple[Program, int]] = {}
_CHOICE_BOUNDS_KEPT = 16


def _int_choice_bound(prog: Program) -> int:
    """How many numbers a choice from `range(…)` can offer: a range of constants exactly its length, any other
    (`choose b from range(p.coins + 1)`) as many as the widest counter range holds; 0 without such a choice
    (other lists of ints are covered by the explicit bound, as the class says)."""
    got = _CHOICE_BOUNDS.get(id(prog))
    if got is not None and got[0] is prog:
        return got[1]
    if len(_CHOICE_BOUNDS) >= _CHOICE_BOUNDS_KEPT:
        _CHOICE_BOUNDS.pop(next(iter(_CHOICE_BOUNDS)))
    widest = _widest_int_choice(prog)
    _CHOICE_BOUNDS[id(prog)] = (prog, widest)
    return widest


def _widest_int_choice(prog: Program) -> int:
    """:func:`_int_choice_bound`, worked out."""
    widest = 0
    for s in all_statements(prog):
        src = s.source if isinstance(s, A.Choose | A.Simultaneous) else None
        if not (isinstance(src, A.Call) and isinstance(src.func, A.Name) and src.ref == ("call_builtin", "range")):
            continue
        ends = [a.value for a in src.args if isinstance(a, A.IntLit)]
        if len(ends) == len(src.args):
            widest = max(widest, ends[0] if len(ends) == 1 else ends[1] - ends[0])
            continue
        ranges = [c.hi - c.lo + 1 for c in prog.counters.values() if c.lo is not None and c.hi is not None]
        widest = max(widest, *ranges, 0)
    return widest


# ---------------------------------------------------------------- returns

RETURN_MODES = ("win", "score")


def returns_of(game: Game, mode: str, score_min: float, score_max: float, aborted: bool = False) -> list[float]:
    """Final returns of a finished game.

    ``win``: 1 for each player among the engine's winners (best score, then
    tiebreaks; a shared first place counts for everyone in it; or exactly the
    players a ruleset's ``winner(p)`` names: a co-operative party that wins
    together gets 1 each, one that loses gets 0 each), else 0.
    ``score``: the ruleset's ``score(p)``, which must lie in ``score_min..score_max``.
    An aborted game (a rule error, the step limit, or an adapter's length cap)
    gives every player the lowest return.
    """
    n = game.players
    result = game.result
    if aborted or result is None or game.state.status != "finished":
        return [0.0 if mode == "win" else float(score_min)] * n
    if mode == "win":
        winners = set(result["winners"])
        return [1.0 if p in winners else 0.0 for p in range(n)]
    scores = [float(v) for v in result["scores"]]
    for p, v in enumerate(scores):
        if not score_min <= v <= score_max or math.isnan(v):
            raise ValueError(
                f"P{p + 1} scored {v:g}, outside score_min..score_max = {score_min:g}..{score_max:g}; "
                "load the game with wider score bounds")
    return scores


# ---------------------------------------------------------------- observations

def observation_text(game: Game | None, player: int | None, *, with_log: bool,
                     extra: dict[str, Any] | None = None, full: dict[str, Any] | None = None) -> str:
    """The player's view as canonical JSON (sorted keys), optionally without the log.

    ``game`` None is the moment before setup finished drawing: nothing is visible yet. ``full``: ``game``'s
    view for ``player`` with its whole log, already made (OpenSpiel's adapter keeps it per settled game); it is
    read, never changed.
    """
    if game is None:
        view: dict[str, Any] = {"status": "setting up"}
    elif full is not None:
        view = dict(full)
        if not with_log:
            view.pop("log", None)
    else:
        # without the log, none of it is rendered (``log_from`` its end): OpenSpiel's checks ask for the
        # observation string at every step, and rendering the whole log each time made long games quadratic
        view = game.view(player, log_from=0 if with_log else len(game.state.log))
        if not with_log:
            view.pop("log", None)
    if extra:
        view.update(extra)
    return json.dumps(view, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# ---------------------------------------------------------------- observation vectors

class ViewEncoder:
    """A fixed-size numeric vector of one player's view, for learning agents.

    The layout depends only on the ruleset and the player count: for every zone
    (per-player zones once per player) the number of visible copies of each card
    definition plus the number of hidden cards; every counter value shown in the
    view (per-card counters summed per card definition); every grid cell (one-hot
    over the players or enum values it may hold, or an int's value); the first
    player, the round, the observer's seat, who is waiting, who has committed,
    whether the choice is simultaneous, and whether the game is over.  :meth:`encode`
    reads :meth:`Game.view` only, so it never encodes what the player cannot see; the
    adapters call :meth:`encode_game`, which makes the same vector from the game's state
    by the view's visibility rules (interop/stateenc.py), with :meth:`encode` its reference.
    """

    def __init__(self, ruleset: Ruleset, players: int) -> None:
        prog = ruleset.program
        self.players = players
        self.seats = [f"P{p + 1}" for p in range(players)]
        self.defs: dict[str, int] = {}
        for cd in prog.cards:
            self.defs.setdefault(cd.name, len(self.defs))
        nd = len(self.defs)
        self.zone_slots: dict[str, int] = {}
        size = 0
        self.per_card = {name for name, z in prog.zones.items() if z.per_card}
        for name, z in prog.zones.items():
            self.zone_slots[name] = size
            size += (players if z.per_player else 1) * (nd + 1)
        self.counter_slots: dict[str, tuple[int, str, list[str] | None]] = {}
        self.private = {name for name, c in prog.counters.items() if c.seen_by}  # `visible to owner`, `hidden`
        # a typed counter's value as a number: its enum position, seat or card definition + 1; none 0, hidden -1
        self.ref_codes: dict[str, dict[str, float]] = {}
        for name, c in prog.counters.items():
            if is_overlay(name):  # a graph's changes: encoded per pair of places below
                continue
            if c.held is not None:
                domain = (prog.enums.get(c.held.arg or "", []) if c.held.kind == "enum" else self.seats
                          if c.held.kind == "player" else list(self.defs))
                self.ref_codes[name] = {v: float(i + 1) for i, v in enumerate(domain)} | {"?": -1.0}
            labels = prog.enums[c.index_enum] if c.index_enum else None
            width = len(labels) if labels else 1
            self.counter_slots[name] = (size, c.scope, labels)
            size += width * (players if c.scope == "player" else nd if c.scope == "card" else 1)
        # grids: per cell, one-hot over the players (or the enum's values) it may hold, or an int cell's value
        self.grid_slots: dict[str, tuple[int, list[str] | None]] = {}
        for name, g in prog.grids.items():
            ty = g.cell_ty
            labels = (self.seats if ty is not None and ty.kind == "player" else
                      prog.enums.get(ty.arg or "") if ty is not None and ty.kind == "enum" else None)
            self.grid_slots[name] = (size, labels)
            size += g.width * g.height * (len(labels) if labels else 1)
        # graphs changed during play: per kind and pair of places, +1 linked or -1 unlinked (0: as in the file)
        self.graph_slots: dict[str, tuple[int, dict[str, int], dict[str, int]]] = {}
        for name, graph in prog.graphs.items():
            if overlay_name(name) in prog.counters:
                places, kinds = prog.enums[graph.nodes], prog.enums[graph.kinds]
                self.graph_slots[name] = (size, {p: i for i, p in enumerate(places)},
                                          {k: i for i, k in enumerate(kinds)})
                size += len(kinds) * len(places) * len(places)
        self.tail = size
        self.size = size + 1 + 5 * players + 2  # round; first, me, waiting, committed, options-for-me; simul, over

    def _encode_graphs(self, view: dict[str, Any], out: Any) -> None:
        """Graphs changed during play: +1 per connection made, -1 per one removed, by kind and pair of places."""
        for name, (base, places, kinds) in self.graph_slots.items():
            changes = view.get("graphs", {}).get(name, {})
            n = len(places)
            for key, sign in (("linked", 1), ("unlinked", -1)):
                for a, b, k in changes.get(key, []):
                    out[base + (kinds[k] * n + places[a]) * n + places[b]] = sign

    def _encode_counters(self, counters: dict[str, Any], out: Any) -> None:
        """Every counter value the view shows: per player by seat, per card by definition (summed)."""
        for name, (base, scope, labels) in self.counter_slots.items():
            value = counters[name]
            codes = self.ref_codes.get(name)
            width = len(labels) if labels else 1
            if value == HIDDEN:  # a counter nobody sees (`hidden`): nothing to encode
                continue
            if scope == "player":
                items = [(k, value[s]) for k, s in enumerate(self.seats)]
            elif scope == "card":
                # only cards the player sees; copies told apart by place (`Ember (P1.hand)`) are one definition
                items = [(_card_def(self.defs, c), v) for c, v in value.items()]
            else:
                items = [(0, value)]
            for k, v in items:
                if v == HIDDEN and name in self.private:  # another's value of a counter `visible to owner`: 0
                    continue
                vals = [v.get(lab, 0) for lab in labels] if labels else [v]
                for j, x in enumerate(vals):
                    out[base + k * width + j] += codes.get(x, 0.0) if codes is not None else _number(x)

    def encode_game(self, game: Game, me: int | None) -> Any:
        """``self.encode(game.view(me), me)``, read from ``game``'s state without building the view: about a
        millisecond a view saved in the large games (interop/stateenc.py; docs/performance.md, Session 20)."""
        from liturgy.interpreter.interop.stateenc import encode_state

        return encode_state(self, game, me)

    def encode(self, view: dict[str, Any], me: int | None) -> Any:
        import numpy as np

        out = np.zeros(self.size, dtype=np.float32)
        nd = len(self.defs)
        for name, zone in view["zones"].items():
            base = self.zone_slots[name]
            parts: list[Any]
            if name in self.per_card:  # every host's cards together: which card lies where is in the view
                parts = [[c for cards in zone.values() if cards != HIDDEN for c in cards]]
            else:
                parts = [zone[s] for s in self.seats] if isinstance(zone, dict) else [zone]
            for k, cards in enumerate(parts):
                off = base + k * (nd + 1)
                if cards == HIDDEN:  # `size hidden`: not even how many cards lie there
                    continue
                for c in cards:
                    out[off + (nd if c.startswith("?") else self.defs[c])] += 1  # `? (back: …)` is face down
        counters = view["counters"]
        self._encode_counters(counters, out)
        for name, (base, labels) in self.grid_slots.items():
            cells = [v for row in reversed(view["grids"][name]) for v in row]  # row 0 first, as in the state
            for i, v in enumerate(cells):
                if labels is None:
                    out[base + i] = _number(v)  # a hidden cell (`?`) reads 0, as an empty one
                elif v is not None and v != HIDDEN:
                    out[base + i * len(labels) + labels.index(v)] = 1
        self._encode_graphs(view, out)
        t = self.tail
        out[t] = _number(counters.get("round", 0))
        t += 1
        first = counters.get("first")
        if first in self.seats:
            out[t + self.seats.index(first)] = 1
        if me is not None:
            out[t + self.players + me] = 1
        d = view.get("decision") or {}
        for s in d.get("waiting_for", []):
            out[t + 2 * self.players + self.seats.index(s)] = 1
        for s in d.get("committed", []):
            out[t + 3 * self.players + self.seats.index(s)] = 1
        if me is not None and d.get("your_options"):
            out[t + 4 * self.players + me] = len(d["your_options"])
        t += 5 * self.players
        out[t] = 1.0 if d.get("simultaneous") else 0.0
        out[t + 1] = 0.0 if view["status"] == "running" else 1.0
        return out


def _card_def(defs: dict[str, int], key: str) -> int:
    """The card definition of a per-card counter's key: a card's name, or for copies shown together
    (engine/views.py ``card_keyed``) its name, `` (zone)`` and maybe `` #n``."""
    if key in defs:
        return defs[key]
    key = re.sub(r" #\d+$", "", key)
    return defs[key] if key in defs else defs[key.rsplit(" (", 1)[0]]


def _number(x: Any) -> float:
    """Counter values are ints or flags; anything else (never expected) encodes as 0."""
    if isinstance(x, bool):
        return 1.0 if x else 0.0
    if isinstance(x, int | float):
        return float(x)
    return 0.0
