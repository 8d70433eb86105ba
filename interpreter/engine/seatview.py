"""What a seat's page is sent beside its view: narration, card details and the board's picture.

Why here and not in the web server: each part is computed from the seat's own view (or from public data: the
rules' card definitions and graph files), so the page is told nothing its view does not already show; keeping
that rule in the engine, next to the view, lets the terminal and any other front end use the same parts.

- ``narration``: what changed for the seat since the previous move it was sent (engine/narration.py), each change
  after the log line the seat saw before it (engine/causes.py), kept per table and seat for the move, so every
  connection of the seat is told the same lines.
- ``cards``: the printed text and data of every card the view shows face up, for hover and tap.
- ``maps``: each graph's places with a drawing position and its connections (public: the graph's file), sent
  with a connection's first state; ``markers``: which counters the view shows holding which place, every state;
  ``map_labels``: per map of cards, the cards its view shows lying on its spaces (`describe map { tokens = … }`).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from liturgy.dsl.checker.program import Program
from liturgy.dsl.checker.wording import token_spaces
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.engine.causes import WatchedLog, caused_lines, narrate_caused, watch
from liturgy.interpreter.engine.narration import narrate
from liturgy.interpreter.engine.viewdelta import derive_view
from liturgy.interpreter.runtime.names import card_details, display_name, place_labels, place_names, value_labels, words

if TYPE_CHECKING:
    from liturgy.interpreter.engine.game import Game
    from liturgy.interpreter.runtime.state import GameState

# per (table, seat): the move and view last sent, what that move narrated and newly showed face up, the names
# face up in that view (kept, not found again in the view at the next move), and the copy of the state that view
# was built from (the narration's baseline, engine/causes.py; None once the game is over): the next move's view is
# built from it (:func:`seat_view`)
_SENT: OrderedDict[tuple[str, int | None],
                   tuple[int, dict[str, Any], list[str], list[str], set[str], GameState | None]] = OrderedDict()
SENT_LIMIT = 4096  # tables × seats remembered; the oldest are forgotten (their next state narrates nothing)


def since_sent(key: tuple[str, int | None], moves: int, view: dict[str, Any],
               prog: Program, game: Game | None = None) -> tuple[list[str], list[str]]:
    """For move ``moves`` of one seat of one table: the narration of what changed since the last move it was
    sent, and the card names face up now that were not then. A second connection of the same seat at the same
    move gets the same answer. With ``game``, each change is said after the log line the seat saw before it
    (engine/causes.py: the game's log is watched for the seat from the move sent on)."""
    sent = _SENT.get(key)
    if sent is not None and sent[0] == moves:
        _SENT.move_to_end(key)
        return sent[2], sent[3]
    up = face_up(view)
    if sent is not None and sent[0] < moves:
        lines = caused_lines(narrate_caused(game, key[1], sent[1], view)[0]) if game is not None \
            else narrate(prog, sent[1], view)
        new = [c for c in up if c not in sent[4]]
    else:
        lines, new = [], up
    basis = None
    if game is not None and not game.finished:
        watch(game, key[1])  # the next move's narration is split at the lines logged from this one on
        log = game.state.log
        basis = log.base.get(key[1]) if isinstance(log, WatchedLog) else None
    _SENT[key] = (moves, view, lines, new, set(up), basis)
    _SENT.move_to_end(key)
    while len(_SENT) > SENT_LIMIT:
        _SENT.popitem(last=False)
    return lines, new


def seat_view(game: Game, table: str, seat: int | None, log_from: int = 0) -> dict[str, Any]:
    """``game.view(seat, log_from)``, its zones and counters built from the view this seat of this table was last
    sent (engine/viewdelta.py: only what changed since is built again), when the state that view was built from
    is known; else built whole. The same dict either way: a view is a function of the state and the seat."""
    sent = _SENT.get((table, seat))
    if sent is None or sent[5] is None:
        return game.view(seat, log_from)
    derived, _ = derive_view(game.ruleset, seat, game.state, sent[5], sent[1])
    return game.view(seat, log_from, parts=(derived["zones"], derived["counters"]))


def face_up(view: dict[str, Any]) -> list[str]:
    """The names of the cards a view shows face up, in the order of its zones."""
    out: list[str] = []
    for z in view.get("zones", {}).values():
        for cards in z.values() if isinstance(z, dict) else [z]:
            out.extend(c for c in cards if not c.startswith("?"))
    return out


def seat_extras(game: Game, table: str, seat: int | None, view: dict[str, Any], first: bool) -> dict[str, Any]:
    """The parts of a seat's state message beside its view (see the module's docstring)."""
    prog = game.ruleset.program
    lines, new = since_sent((table, seat), len(game.state.decisions), view, prog, game)
    out: dict[str, Any] = {
        "narration": lines,
        # a connection's first state describes every card it shows; later ones only the cards new since the
        # seat's previous move (the page keeps what it was told)
        "cards": card_details(prog, face_up(view) if first else new),
        "markers": {**markers(prog, view), **zone_markers(prog, view)},
        "map_labels": zone_tokens(prog, view),
    }
    if first:
        out["maps"] = {name: graph_picture(prog, name) for name, g in prog.graphs.items() if drawable(g)}
        out["maps"].update({zone: zone_picture(prog, zone, view) for zone in prog.zone_layouts})
        out["places"] = place_labels(prog)  # option labels and counters that name a place, as players read it
        # a grid of places (Betrayal's floor plan) is drawn as a board: its cells named as players read them
        out["boards"] = {name: place_names(prog, str(g.cell_ty.arg)) for name, g in prog.grids.items()
                         if g.cell_ty is not None and g.cell_ty.kind in ("enum", "player")}
        # the graph whose connections join a board's tiles (Betrayal's doors): its nodes are the board's cells
        out["board_links"] = {name: graph for name, g in prog.grids.items() for graph, gd in prog.graphs.items()
                              if g.cell_ty is not None and g.cell_ty.kind == "enum" and g.cell_ty.arg == gd.nodes}
    return out


def drawable(graph: A.GraphDecl) -> bool:
    """A graph worth a picture: one its file connects (a map), not one that play builds from nothing (Betrayal's
    house, drawn by its grid instead)."""
    places = next(iter(graph.edges.values()), {})
    links = sum(len(ns) for near in graph.edges.values() for ns in near.values()) // 2
    return bool(places) and links >= len(places) - 1


def markers(prog: Program, view: dict[str, Any]) -> dict[str, list[list[str]]]:
    """Per graph and per grid of places: [place, who] for each counter the view shows at one of its places.

    A counter holding a place (Fury of Dracula's Hunters) marks it; so does a per-player or per-card counter
    holding a card whose kind has a field of that place enum (Betrayal's explorers stand on a Room card, whose
    `place` is where it lies on the plan): "P1", or the card's name for a per-card counter (a monster)."""
    out: dict[str, list[list[str]]] = {}
    targets = {name: g.nodes for name, g in prog.graphs.items()}
    targets.update({name: str(g.cell_ty.arg) for name, g in prog.grids.items()
                    if g.cell_ty is not None and g.cell_ty.kind == "enum"})
    counters = view.get("counters", {})
    for name, enum in targets.items():
        marks = []
        at_card = _card_places(prog, enum)
        for cname, c in prog.counters.items():
            held = c.held
            if held is None or not (held.kind == "enum" and held.arg == enum or held.kind == "card" and at_card
                                    and c.scope in ("player", "card")):
                continue
            value = counters.get(cname)
            for who, v in value.items() if isinstance(value, dict) else [("", value)]:
                place = at_card.get(v) if held.kind == "card" else v
                if isinstance(place, str) and place != "?":
                    marks.append([place, who or display_name(cname)])
        out[name] = marks
    return out


_CARD_PLACES: dict[tuple[int, str], tuple[Program, dict[str, str]]] = {}


def _card_places(prog: Program, enum: str) -> dict[str, str]:
    """Card name → the place its field of ``enum`` names (Betrayal's Room "Kitchen" → `kitchen`), for the cards
    that have one; computed once per ruleset and enum."""
    got = _CARD_PLACES.get((id(prog), enum))
    if got is None or got[0] is not prog:
        fields = {kind: [f.name for f in prog.kinds[kind].fields if t[f.name].kind == "enum" and t[f.name].arg == enum]
                  for kind, t in prog.field_types.items()}
        places = {}
        for c in prog.cards:
            for f in fields.get(c.kind, []):
                if isinstance(c.values.get(f), str):
                    places[c.name] = c.values[f]
                    break
        got = _CARD_PLACES[(id(prog), enum)] = (prog, places)
    return got[1]


def zone_picture(prog: Program, zone: str, view: dict[str, Any]) -> dict[str, Any]:
    """A zone laid out by its `describe ZONE { x = …, y = … }` (Slay the Spire's Act map): every card of the zone's
    kind at its (x, y), rows bottom to top, a path to each card of the next row whose x its `links` field lists,
    labelled by its `label` field in words. With `group` and `chosen`, only the cards whose group field equals
    that counter's value in the view (the side of the board in play). Card definitions are public; the counter
    is read from the seat's own view."""
    lay = prog.zone_layouts[zone]
    kind = prog.zones[zone].of_kind
    chosen = view.get("counters", {}).get(lay.get("chosen", ""))
    cards = [c for c in prog.cards if c.kind == kind and ("group" not in lay or chosen is None
                                                          or c.values.get(lay["group"]) == chosen)]
    xs = [int(c.values.get(lay["x"], 0)) for c in cards] or [0]
    ys = [int(c.values.get(lay["y"], 0)) for c in cards] or [0]
    span_x, span_y = max(max(xs) - min(xs), 1), max(max(ys) - min(ys), 1)
    names = value_labels(prog)
    places: dict[str, list[Any]] = {}
    at: dict[tuple[int, int], str] = {}
    for c, x, y in zip(cards, xs, ys, strict=False):
        label = c.values.get(lay.get("label", ""))
        places[c.name] = [round(80 + (x - min(xs)) * 840 / span_x), round(960 - (y - min(ys)) * 920 / span_y),
                          names.get(label) or words(label) if isinstance(label, str) else ""]
        at[(x, y)] = c.name
    edges = [[c.name, at[(int(n), y + 1)], "path"] for c, y in zip(cards, ys, strict=False)
             for n in c.values.get(lay.get("links", ""), None) or [] if (int(n), y + 1) in at]
    return {"places": places, "edges": edges}


def zone_markers(prog: Program, view: dict[str, Any]) -> dict[str, list[list[str]]]:
    """Per zone laid out as a map: where the players are, the last card of its `here` zone in the view."""
    out = {}
    for zone, lay in prog.zone_layouts.items():
        here = view.get("zones", {}).get(lay.get("here", ""))
        shown = [c for c in here if not c.startswith("?")] if isinstance(here, list) else []
        out[zone] = [[shown[-1], "here"]] if shown else []
    return out


def zone_tokens(prog: Program, view: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Per zone laid out as a map with `slot` and `tokens`: each space's label as it lies now, the name of the card
    lying on it (Slay the Spire's "Elite token" on a dark map space). A space labelled `V` with `tokens = "V in
    ZONE"` holds the `slot`-th card of ZONE; read from the seat's view, so a card it sees face down (or a zone it
    does not see) leaves the space its printed label: nothing is said that the view does not show."""
    out: dict[str, dict[str, str]] = {}
    zones, counters = view.get("zones", {}), view.get("counters", {})
    for zone, spaces in _token_spaces(prog).items():
        chosen = counters.get(prog.zone_layouts[zone].get("chosen", ""))  # only the side in play, as drawn
        labels: dict[str, str] = {}
        for space, group, on, slot in spaces:
            cards = zones.get(on)
            if chosen is not None and group != chosen or not isinstance(cards, list) or slot >= len(cards):
                continue
            if not cards[slot].startswith("?"):
                labels[space] = cards[slot]
        out[zone] = labels
    return out


Space = tuple[str, Any, str, int]  # a map's space: its card's name, its group, the zone lying on it, the slot
_TOKEN_SPACES: dict[int, tuple[Program, dict[str, list[Space]]]] = {}


def _token_spaces(prog: Program) -> dict[str, list[Space]]:
    """Per map of cards with `tokens`: its token spaces (see :data:`Space`), found once per ruleset."""
    got = _TOKEN_SPACES.get(id(prog))
    if got is None or got[0] is not prog:
        found: dict[str, list[Space]] = {}
        for zone, lay in prog.zone_layouts.items():
            spaces = token_spaces(lay.get("tokens", "")) if "slot" in lay else None
            if not spaces:
                continue
            kind = prog.zones[zone].of_kind
            found[zone] = [(c.name, c.values.get(lay.get("group", "")), spaces[label], slot)
                           for c in prog.cards if c.kind == kind
                           for label, slot in [(str(c.values.get(lay.get("label", ""))), c.values.get(lay["slot"]))]
                           if label in spaces and isinstance(slot, int) and slot >= 0]
        got = _TOKEN_SPACES[id(prog)] = (prog, found)
    return got[1]


def graph_picture(prog: Program, name: str) -> dict[str, Any]:
    """A graph as the page draws it: places with positions in a 0..1000 square and a label, connections by kind."""
    graph = prog.graphs[name]
    places, edges, pos = _layout(graph)
    labels = place_names(prog, graph.nodes)
    return {"places": {p: [round(x), round(y), labels.get(p, display_name(p))] for p, (x, y) in zip(places, pos,
                                                                                                     strict=True)},
            "edges": [list(e) for e in edges]}


@lru_cache(maxsize=16)
def _layout(graph: A.GraphDecl) -> tuple[list[str], list[tuple[str, str, str]], list[tuple[float, float]]]:
    """A deterministic spring layout (Fruchterman–Reingold, from places on a circle in the enum's order): the
    graph files carry no coordinates, and a drawing where connected places sit near each other reads as a map.
    Computed once per graph and process."""
    places = list(next(iter(graph.edges.values()), {}))
    index = {p: i for i, p in enumerate(places)}
    edges: list[tuple[str, str, str]] = []
    for kind, near in graph.edges.items():
        edges.extend((a, b, kind) for a, ns in near.items() for b in ns if index[a] < index[b])
    n = len(places)
    if not n:
        return places, edges, []
    pos = [[500 + 400 * math.cos(2 * math.pi * i / n), 500 + 400 * math.sin(2 * math.pi * i / n)] for i in range(n)]
    pairs = {(index[a], index[b]) for a, b, _ in edges}
    k = 1000 / math.sqrt(n)
    heat = 100.0
    for _ in range(150):
        move = [[0.0, 0.0] for _ in range(n)]
        for i in range(n):
            xi, yi = pos[i]
            for j in range(i + 1, n):
                dx, dy = xi - pos[j][0], yi - pos[j][1]
                d2 = dx * dx + dy * dy or 0.01
                f = k * k / d2
                move[i][0] += dx * f
                move[i][1] += dy * f
                move[j][0] -= dx * f
                move[j][1] -= dy * f
        for i, j in pairs:
            dx, dy = pos[i][0] - pos[j][0], pos[i][1] - pos[j][1]
            d = math.hypot(dx, dy) or 0.1
            f = d / k
            move[i][0] -= dx * f
            move[i][1] -= dy * f
            move[j][0] += dx * f
            move[j][1] += dy * f
        for i in range(n):
            d = math.hypot(*move[i]) or 1.0
            step = min(d, heat)
            pos[i][0] += move[i][0] / d * step
            pos[i][1] += move[i][1] / d * step
        heat *= 0.97
    xs, ys = [p[0] for p in pos], [p[1] for p in pos]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    return places, edges, [(40 + (x - min(xs)) / span * 920, 40 + (y - min(ys)) / span * 920) for x, y in pos]
