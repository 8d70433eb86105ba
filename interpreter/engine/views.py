"""What each player may see of a game: its position, the pending decision, the log and the state,
derived from the engine's visibility masks so nothing hidden leaks."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import compress
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from liturgy.dsl.checker.graphs import is_overlay, overlay_name
from liturgy.dsl.checker.types import Ty
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.code import FIRST_SLOT, ROUND_SLOT, UNITS
from liturgy.interpreter.engine.decision import Decision
from liturgy.interpreter.engine.narration import narrate
from liturgy.interpreter.engine.outcome import _game_over_line, _labels
from liturgy.interpreter.runtime import modes, seats
from liturgy.interpreter.runtime.graphs import edges_view, overlay_of
from liturgy.interpreter.runtime.grids import cell_label
from liturgy.interpreter.runtime.moves import players_mask, visible_cards
from liturgy.interpreter.runtime.state import GameState, Tables, hidden_card

_START = itemgetter(0)  # a step's first instruction, in compiled.step_names_by_pc

if TYPE_CHECKING:
    from liturgy.interpreter.engine.ruleset import Ruleset


HIDDEN = "?"  # a value the viewer may not see: a hidden card, a counter or a grid cell (docs/language.md §4)
# option kinds whose labels depend on the option's value alone (not on the state or on who asks)
PLAIN_LABELS = frozenset(("int", "bool", "text", "player", "enum"))
# log lines kept per ruleset (GameViews.log_lines) before the cache starts again
LINES_KEPT = 50_000


def _entry(per: Any, commits: dict[int, int], player: int) -> int:
    """The open entry of a player the choice waits for (one exists: that is why it waits)."""
    entry = open_entry(per, commits, player)
    assert entry is not None
    return entry


def open_entry(per: Any, commits: dict[int, int], player: int) -> int | None:
    """The entry of a pending `simultaneously` that ``player`` decides next: their first uncommitted one.

    ``commits`` is keyed by entry index. One entry per player without `by`; with `by`, one per unit, so a
    player with several units decides them one after another, in the list's order.
    """
    for i, (p, _) in enumerate(per):
        if p == player and i not in commits:
            return i
    return None


def waiting_players(per: Any, commits: dict[int, int]) -> tuple[int, ...]:
    """Players with an uncommitted entry, each once, in the order of their first entry."""
    out: list[int] = []
    for i, (p, _) in enumerate(per):
        if i not in commits and p not in out:
            out.append(p)
    return tuple(out)


def committed_players(per: Any, commits: dict[int, int]) -> list[int]:
    """Players who have committed every entry they decide (what any viewer may know), in seat order."""
    open_ = {p for i, (p, _) in enumerate(per) if i not in commits}
    return sorted({p for p, _ in per} - open_)


class GameViews:
    """The read-only side of :class:`~.game.Game`: views, the decision, the log as each player sees it."""

    ruleset: Ruleset
    state: GameState

    @property
    def finished(self) -> bool:
        return self.state.status != "running"

    @property
    def players(self) -> int:
        return self.state.tables.n

    def position(self) -> str:
        """Where the game is, for error messages: round, step and call chain."""
        s = self.state
        step = "setup"
        if s.frames:
            main_pc = s.frames[0][1]
            for pc, name in self.ruleset.compiled.step_names_by_pc:
                if pc <= main_pc:
                    step = f"step {name}"
        chain = " > ".join(f[0].name for f in s.frames[1:])
        where = f"round {s.counters[ROUND_SLOT]}, {step}"
        return where + (f", in {chain}" if chain else "")

    def step_name(self) -> str:
        """The name of the round step the game is in ("setup" before the first round). The steps are listed by
        their first instruction, in order (compiler.py appends them as it emits the round), so the step is the
        last one starting at or before the main frame's position: a binary search, not a pass over every step
        (an invariant that names steps it does not hold in asks at most checked decisions)."""
        s = self.state
        if not s.frames:
            return "setup"
        starts = self.ruleset.compiled.step_names_by_pc
        i = bisect_right(starts, s.frames[0][1], key=_START)
        return starts[i - 1][1] if i else "setup"

    def step_title(self) -> str:
        """The title of the round step the game is in ("setup" before the first round)."""
        name = self.step_name()
        return self.ruleset.compiled.step_titles.get(name, name)

    @property
    def decision(self) -> Decision | None:
        s = self.state
        pend = s.pending
        if pend is None or self.finished:
            return None
        asked = self.ruleset.display.prompt
        if pend[0] == "choose":
            _, p, options, _, _, _, fmt_id = pend
            labels = self._labelled(fmt_id, options, p, self.ruleset.compiled.choice_pass_labels[fmt_id])
            text = asked(s, fmt_id, p, s.frames[-1][2])
            return Decision((p,), False, {p: labels}, text or f"{self.step_title()}: choose",
                            {p: text} if text else {})
        _, per, key, _, fmt_id = pend
        env = s.frames[-1][2]
        units = env.get(key + UNITS)
        waiting = waiting_players(per, s.commits)
        at = {p: _entry(per, s.commits, p) for p in waiting}
        texts = {p: asked(s, fmt_id, p, env, *(() if units is None else (units[at[p]],))) for p in waiting}
        return Decision(waiting, True, {p: self._labelled(fmt_id, per[at[p]][1], p, "pass") for p in waiting},
                        f"{self.step_title()}: choose secretly", {p: t for p, t in texts.items() if t})

    def next_choice(self) -> tuple[int, tuple[str, ...]] | None:
        """The first waiting player and its option labels, as :attr:`decision` gives them (``players[0]`` and its
        ``options``), without the prompt and step title a person reads: what a search asks at every node of every
        simulation. None when nobody is waiting."""
        s = self.state
        pend = s.pending
        if pend is None or self.finished:
            return None
        comp = self.ruleset.compiled
        if pend[0] == "choose":
            _, p, options, _, _, _, fmt_id = pend
            pass_label = comp.choice_pass_labels[fmt_id]
        else:
            _, per, _, _, fmt_id = pend
            p = waiting_players(per, s.commits)[0]
            options, pass_label = per[_entry(per, s.commits, p)][1], "pass"
        return p, self._labelled(fmt_id, options, p, pass_label)

    def _labelled(self, fmt_id: int, options: Any, p: int, pass_label: str) -> tuple[str, ...]:
        """The labels of choice ``fmt_id``'s ``options`` as player ``p`` reads them.

        Why a cache: numbers, players, enum values and texts read the same in every state and to every player,
        so each set of options is labelled once per ruleset (a search asks at every node, OpenSpiel's and
        PettingZoo's adapters at every step for every view); cards are labelled each time, since a label
        depends on who sees the card now."""
        s = self.state
        comp = self.ruleset.compiled
        elem = comp.choice_elems[fmt_id]
        if elem is None or elem.kind not in PLAIN_LABELS:
            return _labels(s, comp.choice_formats[fmt_id], options, p, pass_label, elem)
        cache = self.ruleset.label_cache
        key = (fmt_id, pass_label, options)
        try:
            labels = cache.get(key)
        except TypeError:  # options held in a list (a state read back from JSON): labelled as they are
            return _labels(s, comp.choice_formats[fmt_id], options, p, pass_label, elem)
        if labels is None:
            if len(cache) >= 4096:
                cache.clear()
            labels = cache[key] = _labels(s, comp.choice_formats[fmt_id], options, p, pass_label, elem)
        return labels

    def display(self, player: int) -> list[str] | None:
        """The ruleset's `display` panel for ``player`` (None when it declares none): what a terminal shows."""
        return self.ruleset.display.panel(self.state, player)

    def narration(self, player: int | None, before: dict[str, Any] | None) -> list[str]:
        """What changed for ``player`` since ``before`` (a view of theirs from :meth:`view`), in words: counters
        and pools, cards moving between the zones they see, face-down counts. Computed from the two views alone,
        so it tells nothing the views do not (see engine/narration.py)."""
        return narrate(self.ruleset.program, before, self.view(player))

    def option_details(self, player: int) -> list[str | None]:
        """Per option of ``player``'s decision: the ruleset's `describe` text of the option, else None."""
        pend = self.state.pending
        if pend is None or self.finished:
            return []
        if pend[0] == "choose":
            options = pend[2] if pend[1] == player else ()
        else:
            at = open_entry(pend[1], self.state.commits, player)
            options = () if at is None else pend[1][at][1]
        return self.ruleset.display.describe(self.state, player, tuple(options), pend[-1])

    def waiting_for(self) -> tuple[int, ...]:
        """Players who must decide now (cheap: builds no labels)."""
        s = self.state
        pend = s.pending
        if pend is None or s.status != "running":
            return ()
        if pend[0] == "choose":
            return (pend[1],)
        return waiting_players(pend[1], self.state.commits)

    def option_count(self, player: int) -> int:
        pend = self.state.pending
        if pend is None:
            return 0
        if pend[0] == "choose":
            return len(pend[2]) if pend[1] == player else 0
        at = open_entry(pend[1], self.state.commits, player)
        return 0 if at is None else len(pend[1][at][1])

    # ------------------------------------------------------------ views and logs
    def _render(self, entry: tuple[Any, ...], viewer: int | None) -> str | None:
        mask, full, fmt_id, values = entry
        s = self.state
        if fmt_id == -1:
            return _game_over_line(values)
        if viewer is not None and not (mask >> viewer) & 1:
            return None
        fmt = self.ruleset.compiled.log_formats[fmt_id]
        who = s.tables.n if viewer is None else viewer  # bit n: the spectator
        redact = not (full >> who) & 1
        parts = fmt.text.split("{}")
        out = [parts[0]]
        for i, v in enumerate(values):
            if redact and i in fmt.card_args:
                out.append(hidden_card(s.tables, v, "a hidden card") if isinstance(v, int) else "a hidden card")
            else:
                out.append(fmt.formatters[i](s, v))
            out.append(parts[i + 1] if i + 1 < len(parts) else "")
        return "".join(out)

    def log_line(self, index: int, viewer: int | None) -> str | None:
        """Log entry ``index`` as ``viewer`` reads it (None when they may not see it): narration names it as the
        cause of the changes after it (engine/causes.py)."""
        entry = self.state.log[index]
        if viewer is None and not (entry[0] >> self.state.tables.n) & 1:
            return None
        return self._render(entry, viewer)

    def log_lines(self, viewer: int | None = None, start: int = 0) -> list[str]:
        """The event log as text; ``viewer`` None is the public (spectator) view. ``start``: only the lines of
        log entries from that index on (a line, once written, never changes: web play sends only new ones)."""
        lines = []
        tables = self.state.tables
        spectator = 1 << tables.n
        # each entry's line per viewer, rendered once: an entry is an immutable tuple that clones, and games
        # played on from them, share, and its line is a function of it, the viewer and the game's tables alone
        # (_render: card names and backs), so views that show the whole log (perfect recall, a page's first
        # load, replays) cost a lookup per line once rendered. Keyed by the identities of the entry and the
        # tables, both kept beside the line (their ids are never reused while kept): the leak check renders the
        # same entries with tables of its own (tools/leaks.py's sentinel names); bounded, as the label cache is.
        cache = self.ruleset.line_cache
        for entry in self.state.log[start:] if start else self.state.log:
            if viewer is None and not entry[0] & spectator:
                continue
            key = (id(entry), id(tables), viewer)
            got = cache.get(key)
            if got is not None and got[0] is entry and got[1] is tables:
                text = got[2]
            else:
                text = self._render(entry, viewer)
                if len(cache) >= LINES_KEPT:
                    cache.clear()
                cache[key] = (entry, tables, text)
            if text is not None:
                lines.append(text)
        return lines

    def view(self, player: int | None, log_from: int = 0, counters: bool = True,
             parts: tuple[dict[str, Any], dict[str, Any]] | None = None,
             asked: tuple[Decision | None] | None = None) -> dict[str, Any]:
        """What ``player`` may see (None: a spectator). Hidden cards appear as ``?``. ``log_from``: the log holds
        only the lines of entries from that index of the state's log on (see :meth:`log_lines`). ``counters``:
        False leaves the values kept in counter slots out (``counters`` None, no ``grids``): the noninterference
        probe compares two worlds' slots first (tools/alike.py) and renders them only where they may differ.
        ``parts``: this player's zones and counters of this state, already built from their view of an earlier
        state (engine/viewdelta.py, engine/seatview.py's :func:`seat_view`). ``asked``: this state's
        :attr:`decision`, already built by the caller (the fuzz harness views one state for every seat, and
        compares two worlds' decisions before their views: building it once per state is enough)."""
        s = self.state
        who = s.tables.n if player is None else player  # bit n of a visibility mask: the spectator

        values: dict[str, Any] | None
        if parts is not None:
            zones, values = parts
        else:
            seen = visible_cards(s, who)  # once per view: per-card counters ask for every card, for every counter
            zones = zone_views(s, self.ruleset, seen, who)
            values = counter_values(s, self.ruleset, seen, who) if counters else None
        decision: dict[str, Any] | None = None
        d = self.decision if asked is None else asked[0]
        if d is not None:
            decision = {
                "waiting_for": [f"P{p + 1}" for p in d.players],
                "simultaneous": d.simultaneous,
                "committed": [f"P{p + 1}" for p in committed_players(pend[1], s.commits)]
                if (pend := s.pending) is not None and pend[0] == "simul" else [],
            }
            if player is not None and player in d.options:
                decision["your_options"] = list(d.options[player])
                if player in d.prompts:  # only when the ruleset words the question: older views stay as they were
                    decision["your_prompt"] = d.prompts[player]
        out = {
            "ruleset": self.ruleset.name,
            "viewer": "spectator" if player is None else f"P{player + 1}",
            "status": s.status,
            "zones": zones,
            "counters": values,
            "decision": decision,
            "log": self.log_lines(player, log_from),
            "result": s.result,
        }
        if s.tables.absent_slots:  # `absent_while`: who is not playing now (only then: older views stay as they were)
            out["absent"] = [f"P{p + 1}" for p in seats.absent(s)]
        self._boards(out, grids=counters)
        return out


    def _boards(self, out: dict[str, Any], grids: bool = True) -> None:
        """The public parts of a view beside zones and counters: grids (unless not ``grids``), graphs changed in
        play, active modes."""
        s = self.state
        prog = self.ruleset.program
        lay = self.ruleset.compiled.layout
        # every viewer sees every cell (north row first), but of a `hidden` or `visible to owner` grid
        if lay.grids and grids:
            who = s.tables.n if out["viewer"] == "spectator" else int(out["viewer"][1:]) - 1
            out["grids"] = {name: [[cell_label(kind, v) if seen(v) else HIDDEN for v in row]
                                   for row in g.rows(s.counters)]
                            for name, g in lay.grids.items()
                            for kind in [(prog.grids[name].cell_ty or Ty("any")).kind]
                            for seen in [_cell_seer(self.ruleset, prog.grids[name], s, who)]}
        changed = {g: lay.global_slots[overlay_name(g)] for g in prog.graphs if overlay_name(g) in lay.global_slots}
        if changed:  # connections made and removed during play (public, like the graph's file)
            out["graphs"] = {g: edges_view(overlay_of(s.counters[slot]))
                             for g, slot in changed.items()}
        if prog.modes:  # the rule modes active now (public: a mode's rules are on the table for everyone)
            slots = {name: lay.global_slots[m.flag.name] for name, m in prog.modes.items()}
            out["modes"] = modes.active_names(slots, s.counters)


# per tables (by id, the tables kept with it): how each card reads in a view to one who cannot see it
_UNSEEN: dict[int, tuple[Tables, list[str]]] = {}


def _unseen(t: Tables) -> list[str]:
    """Each card's `?` as a view shows a card the viewer cannot see (:func:`hidden_card`: with its back fields)."""
    got = _UNSEEN.get(id(t))
    if got is None or got[0] is not t:
        if len(_UNSEEN) >= 64:
            _UNSEEN.clear()
        got = _UNSEEN[id(t)] = (t, [hidden_card(t, c, "?") for c in range(len(t.card_names))])
    return got[1]


def zone_views(s: GameState, ruleset: Ruleset, seen: list[bool], who: int, prev: dict[str, Any] | None = None,
               keep: frozenset[str] | set[str] = frozenset()) -> dict[str, Any]:
    """Every zone as viewer ``who`` sees it: hidden cards as ``?`` (with their backs), a `size hidden` zone the
    viewer may not see as ``?`` whole. The zones named in ``keep`` are taken from ``prev`` (a view of an earlier
    state, whose parts the caller knows to be unchanged: engine/viewdelta.py), not built again."""
    t = s.tables
    prog = ruleset.program
    lay = ruleset.compiled.layout
    hide_sizes = {name for name, z in prog.zones.items() if z.size_hidden}
    sizeless = {zi for zi, name in enumerate(t.zone_names) if name.split(".", 1)[-1] in hide_sizes} \
        if hide_sizes else set()

    def zone_view(zi: int) -> list[str] | str:
        if zi in sizeless:  # `size hidden`: one who may not see its cards sees neither them nor their number
            mask = t.zone_vis_mask[zi]
            if not ((t.zone_group[zi](s) if mask < 0 else mask) >> who) & 1:
                return HIDDEN
        # `seen[c]` inline, and a hidden card's `?` (with its back) looked up: this list is built for every zone
        # of every view, and most cards of a large game are hidden from any one viewer
        return [names[c] if seen[c] else unseen[c] for c in s.zones[zi]]

    names, unseen = t.card_names, _unseen(t)
    zones: dict[str, Any] = {}
    for name, z in prog.zones.items():
        if prev is not None and name in keep:
            zones[name] = prev[name]
        elif z.per_card:  # by host, for the hosts this viewer sees, when something lies there
            base = lay.zone_card_base + lay.zone_card_offsets[name]
            zones[name] = {t.card_names[c]: zone_view(base + c * lay.zone_card_stride)
                           for c in range(len(t.card_def))
                           if s.zones[base + c * lay.zone_card_stride] and seen[c]}
        elif z.per_player:
            zones[name] = {
                f"P{p + 1}": zone_view(lay.zone_player_base + p * lay.zone_player_stride
                                      + lay.zone_player_offsets[name])
                for p in range(t.n)
            }
        else:
            zones[name] = zone_view(lay.zone_global[name])
    return zones


def _seer(ruleset: Ruleset, c: A.CounterDecl, s: GameState, who: int) -> Callable[[int | None], bool]:
    """Whether ``who`` sees the value of counter ``c`` belonging to a player (None: a global or per-card one)."""
    if not c.seen_by:
        return lambda p: True
    if c.seen_by == "hidden":
        return lambda p: False
    if c.seen_by == "owner":
        return lambda p: p == who
    fn = ruleset.value_groups[c.name]
    return lambda p: bool((players_mask(fn(s, {} if p is None else {"owner": p})) >> who) & 1)


def counter_values(s: GameState, ruleset: Ruleset, seen: list[bool], who: int, prev: dict[str, Any] | None = None,
                   keep: frozenset[str] | set[str] = frozenset()) -> dict[str, Any]:
    """Every counter as viewer ``who`` sees it: ``?`` for a value it may not see (`visible to owner`, `hidden`,
    `visible to` a group it is not in now), per-card counters of the cards it sees only (``seen``). The counters
    named in ``keep`` are taken from ``prev``, as :func:`zone_views` takes zones."""
    t = s.tables
    prog, lay = ruleset.program, ruleset.compiled.layout

    # the cards this viewer sees, listed once: a per-card counter is read for these only (reading every card for
    # every per-card counter was most of a view's cost in games with hundreds of cards and dozens of counters)
    shown_ids = list(compress(range(len(seen)), seen))
    ncards = len(seen)
    # a per-card counter's values of the seen cards, picked out of its slice of every card's slots by one
    # itemgetter made once per view, not by filtering the whole slice with ``seen`` per counter (a player of Slay
    # the Spire sees about a quarter of its 980 cards: that filter was over half of this function's cost there;
    # docs/performance.md, Session 20)
    pick = _picker(shown_ids)
    slots = s.counters
    # the keys of a per-card counter shown for every seen card (a typed one), worked out once per view: by name,
    # or as card_keyed tells copies apart when two seen cards share one
    every_seen: list[str] | None = None
    counters: dict[str, Any] = {"first": f"P{s.counters[FIRST_SLOT] + 1}", "round": s.counters[ROUND_SLOT]}
    for name, c in prog.counters.items():
        if prev is not None and name in keep:  # (never a graph's changes: a view has none among its counters)
            counters[name] = prev[name]
            continue
        if is_overlay(name):  # a graph's changes: under `graphs` below
            continue
        width = len(prog.enums[c.index_enum]) if c.index_enum else 1
        labels = prog.enums[c.index_enum] if c.index_enum else None

        reader = _typed_reader(c, t.card_names, seen)

        def read(base: int, labels: list[str] | None = labels, width: int = width,
                 shown_as: Callable[[Any], Any] = reader) -> Any:
            if labels is None:
                return shown_as(s.counters[base])
            return dict(zip(labels, s.counters[base:base + width], strict=True))

        sees = _seer(ruleset, c, s, who)
        if c.scope != "player" and not sees(None):  # nobody sees it: not even whether it changed
            counters[name] = HIDDEN
        elif c.scope == "global":
            counters[name] = read(lay.global_slots[name])
        elif c.scope == "player":
            counters[name] = {
                f"P{p + 1}": read(lay.player_base + p * lay.player_stride + lay.player_offsets[name])
                if sees(p) else HIDDEN
                for p in range(t.n)
            }
        else:
            base, stride = lay.card_base + lay.card_offsets[name], lay.card_stride
            if labels is not None:
                shown = {cid: v for cid in shown_ids if (v := read(base + cid * stride)) or c.held is not None}
            elif c.held is not None:  # a typed counter shows even when empty (null): every seen card, in order
                if every_seen is None:
                    every_seen = list(card_keyed(s, dict.fromkeys(shown_ids)))
                values = pick(slots[base:base + ncards * stride:stride])
                # an enum value reads as itself: no call per card
                counters[name] = dict(zip(every_seen, values if c.held.kind == "enum" else map(reader, values),
                                          strict=True))
                continue
            else:  # this counter of every card is one slice; the seen cards' entries picked by `pick`
                # a plain number or flag shows when it is not 0
                shown = dict(filter(itemgetter(1), zip(shown_ids, pick(slots[base:base + ncards * stride:stride]),
                                                       strict=True)))
            counters[name] = card_keyed(s, shown)
    return counters


def _picker(ids: list[int]) -> Callable[[Sequence[Any]], Sequence[Any]]:
    """The items at ``ids`` of a sequence, in order, as a tuple (``itemgetter`` alone gives one id's item bare,
    and needs at least one)."""
    if len(ids) > 1:
        return itemgetter(*ids)
    if ids:
        only = ids[0]
        return lambda seq: (seq[only],)
    return lambda seq: ()


def _cell_seer(ruleset: Ruleset, g: A.GridDecl, s: GameState, who: int) -> Callable[[Any], bool]:
    """Whether ``who`` sees a cell holding a value: every cell of a public grid, none of a `hidden` one, all of
    one `visible to` a group it is in now, and of a grid `visible to owner` the cells holding ``who`` (another
    player's cell and an empty one read alike)."""
    if g.seen_by == "owner":
        return lambda v: v == who
    everyone = _seer(ruleset, g, s, who)(None)
    return lambda v: everyone


def card_keyed(s: GameState, values: dict[int, Any]) -> dict[str, Any]:
    """A per-card counter's values by card name; copies of one card shown together are told apart by where each
    lies (``Ember (P1.hand)``), so two players' copies keep their owners instead of merging into one entry."""
    names = s.tables.card_names
    plain = dict(zip(map(names.__getitem__, values), values.values(), strict=True))
    if len(plain) == len(values):  # no two copies of one card: by name, as always
        return plain
    count: dict[str, int] = {}
    for cid in values:
        count[names[cid]] = count.get(names[cid], 0) + 1
    out: dict[str, Any] = {}
    for cid, v in values.items():
        key = names[cid] if count[names[cid]] == 1 else f"{names[cid]} ({s.tables.zone_names[s.card_zone[cid]]})"
        n = 1
        while (f"{key} #{n}" if n > 1 else key) in out:  # two copies in one zone: numbered in card order
            n += 1
        out[f"{key} #{n}" if n > 1 else key] = v
    return out


def _typed_reader(c: A.CounterDecl, card_names: list[str], seen: list[bool]) -> Callable[[Any], Any]:
    """How a counter's value reads in a view: a typed counter's player as ``P2``, its card by name when the
    viewer can see that card (else ``?``: a public counter must not name a hidden card), none as null."""
    held = c.held
    if held is None or held.kind == "enum":
        return lambda v: v
    if held.kind == "player":
        return lambda v: None if v is None else f"P{v + 1}"
    return lambda v: None if v is None else card_names[v] if seen[v] else "?"
