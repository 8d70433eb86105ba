"""Noninterference: what a player may not know must not change what that player observes.

The leak check (tools/leaks.py) looks for card *names* a player was never shown. A ruleset can leak without
naming a card: logging a face-down card's field, copying it into a public counter, filtering a public choice by
it. This check catches those by their effect. At a decision point it builds a second world that the observer
cannot tell apart from the real one by the rules' own visibility: two different cards of the same kind, in the
same zone declaration (one deck, or two players' hands), both hidden from the observer and never seen by it, and
not held by the running code (a local variable naming "the card drawn"), trade places. Swaps between different
zones (a deck and a discard pile) are not made: the rules route cards by their fields, so such a world is often
one the rules cannot reach, and what differs then is the rules' doing, not a leak. A leak through the make-up of
one zone is found by the other probe instead: another player chooses a different card, hidden from the
observer, in its own choice. Both worlds then take the same decisions, and the observer's observation must stay
identical in both:
- its view (zones, counters, the decision);
- its log lines, its option labels, their `describe` details and its `display` panel;
- the narration of what changed for it since the previous decision compared, as a timeline under the log lines
  it saw (engine/causes.py: where each change is said, and which line it follows).

The comparison ends when the rules legitimately tell the worlds apart: one of the two cards becomes visible to
the observer, or the observer is shown different cards in the two worlds (a draw from a hidden deck whose
order the swap changed, a random pick among hidden cards), or a decision's options differ for the player
making it (that player may know the cards, and its
choices are then not the same action in both worlds), or either world stops. Until then, any difference is
information that reached the observer from a card it may not see.

What the second world conditions on, and what it does not: it keeps everything else exactly (every other card,
every counter, the RNG, the history). The observer has seen neither card, so nothing it saw ties either card to
its place. It does not model what the observer could infer from other players' past choices; those are the
real ones in both worlds.

Values can be secret without cards (docs/language.md, "Hidden information without cards"): counters `visible to
owner`, `hidden` or `visible to` a group, cells of such grids. Another probe (:func:`check_hidden_values`) swaps
two such values of one declaration that the observer may not see, which keeps every total, and compares as above
until the rules show the observer one of the two (a stone it plays or is refused at on a grid `visible to
owner`, a group it joins); a counter `visible to owner` or `hidden` never becomes visible, so there any
difference before the game ends is a leak.

The last probe varies everything the observer cannot know at once: the second world is a whole world drawn from
the observer's information set by ``Game.sample_world`` (every hidden card dealt afresh onto the hidden places
given what the observer has seen, other players' committed secret choices drawn again), with the real RNG kept
(the RNG is hidden from everyone, so the real one is as possible as any, and public rolls then agree). The
comparison stops when a card placed differently in the two worlds (now or at the decision before) becomes
visible to the observer or is named to it, or the observer sees different cards, or (when other players' commits
to a pending simultaneous choice were drawn again) once that choice is resolved and the rules act on it in the
open. Another player
whose options differ between the worlds (it sees its own hand, dealt afresh) takes the option at the same place
*as the observer sees the options*: a hidden card is offered as "hidden card 3" to the observer in both worlds,
so picking it in both is a choice the observer cannot tell apart. Failing that, it takes an option offered in
both worlds (one action, legal in both, seen taken alike: the observer is not shown another player's options);
with none in common, the comparison ends.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import Any

from liturgy.interpreter.engine import Game
from liturgy.interpreter.engine.causes import _copy, caused_lines, narrate_caused, watch
from liturgy.interpreter.engine.decision import Decision
from liturgy.interpreter.engine.infosets import (
    Knowledge,
    WorldSampler,
    _reask,
    _redraw_commits,
    hidden_slots,
    keep_relations,
    relation_slots,
)
from liturgy.interpreter.engine.narration import narrate
from liturgy.interpreter.engine.outcome import _labels
from liturgy.interpreter.engine.views import open_entry
from liturgy.interpreter.runtime.moves import card_visibility, visible_cards
from liturgy.interpreter.runtime.state import GameState
from liturgy.interpreter.tools import alike as probe_alike
from liturgy.interpreter.tools.alike import Alike

# how many decisions both worlds play on after the swap before the check stops comparing
HORIZON = 16
# swaps of hidden counter values or cells tried per probe: a swap of two values the rules never read (or that
# changes the owner's options, which ends the comparison) shows nothing, and such values are cheap to swap
HIDDEN_TRIES = 4


@dataclass(frozen=True)
class Swap:
    """The second world: ``first`` and ``second`` traded places, as seen by ``observer``."""

    observer: int
    first: int
    second: int


def observation(game: Game, player: int, before: dict[str, Any] | None = None) -> tuple[Any, ...]:
    """Everything ``player`` is shown: its log, options with their prompt and details, display panel, the
    narration of what changed since ``before`` (its view at an earlier decision; none without one) and its view
    (the view last: it repeats the rest, and the first difference found is reported)."""
    d = game.decision
    options = tuple(d.options.get(player, ())) if d is not None else ()
    prompt = d.prompts.get(player) if d is not None else None
    view = game.view(player)
    return (tuple(game.log_lines(player)), options, prompt, tuple(game.option_details(player)) if options else (),
            tuple(game.display(player) or ()), tuple(narrate(game.ruleset.program, before, view)), view)


def _observe(game: Game, player: int, before: dict[str, Any] | None, since: int) -> tuple[Any, ...]:
    """:func:`observation` with its log lines only from log entry ``since`` on, and the view's log left out.

    Why: the probe compares both worlds' observations at every decision for up to :data:`HORIZON` decisions,
    and rendering the whole log twice each time (once as the log, once inside the view) was most of its cost.
    Nothing is compared less: a log line, once written, never changes (entries are kept as written and render
    from their own values), so when two worlds' lines agreed up to the last comparison, they agree in full
    exactly when their new lines agree; and the view's log is the same lines again."""
    d = game.decision
    options = tuple(d.options.get(player, ())) if d is not None else ()
    prompt = d.prompts.get(player) if d is not None else None
    # the narration as the terminal and the page tell it: each change after the line the player saw before it
    # (engine/causes.py), so where a change is said, and which line is named as its cause, are compared too; the
    # view is the one the page would show (its log: none, the lines are compared before it)
    parts, view = narrate_caused(game, player, before)
    if not game.finished:
        watch(game, player)
    return (tuple(game.log_lines(player, since)), options, prompt,
            tuple(game.option_details(player)) if options else (), tuple(game.display(player) or ()),
            tuple(caused_lines(parts)), view)


# what the probe keeps of an observation for the next one's narration: nothing yet, the view, or a copy of the
# state to render the view from should the narration be needed (tools/alike.py found the worlds alike)
Baseline = dict[str, Any] | GameState | None
# both worlds' decisions at the states being compared, each in a 1-tuple (Game.view's ``asked``)
Asked = tuple[tuple[Decision | None], tuple[Decision | None]]


def _plain(game: Game, player: int, since: int, d: Decision | None) -> tuple[Any, ...]:
    """The parts of :func:`_observe` that come before the narration: new log lines, options, prompt, details,
    display panel (``d``: the game's :attr:`~Game.decision` now)."""
    options = tuple(d.options.get(player, ())) if d is not None else ()
    prompt = d.prompts.get(player) if d is not None else None
    return (tuple(game.log_lines(player, since)), options, prompt,
            tuple(game.option_details(player)) if options else (), tuple(game.display(player) or ()))


def _observe_both(worlds: tuple[Game, Game], player: int, before: tuple[Baseline, Baseline],
                  since: list[int], alike: Alike | None) -> tuple[tuple[Any, ...], tuple[Any, ...],
                                                                 tuple[Baseline, Baseline], Asked]:
    """Both worlds' :func:`_observe`, equal exactly when theirs are and first differing in the same part, the
    baselines of the next narration, and both worlds' decisions (built once here, for the views and for
    :func:`_same_decision` at the same states: nothing in between changes them).

    Why it can skip the costly parts: the parts before the narration are compared first, and when they differ
    the report names one of them, so the narration and the view need not be made. When they agree and
    ``alike`` (tools/alike.py) finds every state the narration timeline is made of alike in both worlds (each
    copy since the last decision, under lines read alike, and the state now), the timelines are equal (each is
    a function of those views and lines, and the baselines agreed at the last comparison, or there were none)
    and so are the views' counters and grids: those are left out in both (an empty narration, views without
    counters), and the next baseline is a copy of the state, rendered only if a later timeline needs it.
    Otherwise both are rendered as :func:`_observe` renders them."""
    asked = ((worlds[0].decision,), (worlds[1].decision,))
    plain = (_plain(worlds[0], player, since[0], asked[0][0]), _plain(worlds[1], player, since[1], asked[1][0]))
    if plain[0] != plain[1]:
        return (*plain[0], (), None), (*plain[1], (), None), before, asked
    if alike is not None and (before[0] is None or alike.timelines(worlds[0], worlds[1], player)) \
            and alike.states(worlds[0].state, worlds[1].state):  # zones too: the timeline's last part reads them
        views = _alike_views(worlds, player, asked)
        kept: list[Baseline] = []
        for g in worlds:
            state = _copy(g.state)
            state.pending = None  # a baseline is rendered for its zones and counters; the decision is gone
            kept.append(state)
            if not g.finished:
                watch(g, player, state)  # the narration's baseline is this same copy: neither changes it
        return (*plain[0], (), views[0]), (*plain[1], (), views[1]), (kept[0], kept[1]), asked
    out = []
    for k, g in enumerate(worlds):
        parts, view = narrate_caused(g, player, _rendered(g, player, before[k]))
        if not g.finished:
            watch(g, player)
        out.append((*plain[k], tuple(caused_lines(parts)), view))
    return out[0], out[1], (out[0][-1], out[1][-1]), asked


def _alike_views(worlds: tuple[Game, Game], player: int, asked: Asked | None = None) -> list[dict[str, Any]]:
    """Both worlds' views without counters and log lines, once :class:`Alike` found their states alike (zones
    included), with the zones built once. Why: that finding says the observer's zones read the same in both
    worlds (each card by its name where seen, else by its back, a `size hidden` zone alike hidden), so the second
    world's zones would be built again only to come out equal; the rest of its view (the decision, status,
    result, graphs and modes) is still built from its own state and compared. Only for worlds of one ruleset and
    one set of tables, which the zones are written from. ``asked``: both worlds' decisions now, if built."""
    first, second = worlds
    mine, theirs = asked or (None, None)
    view = first.view(player, log_from=len(first.state.log), counters=False, asked=mine)
    if first.ruleset is not second.ruleset or first.state.tables is not second.state.tables:
        return [view, second.view(player, log_from=len(second.state.log), counters=False, asked=theirs)]
    other = second.view(player, log_from=len(second.state.log), counters=False, parts=(view["zones"], {}),
                        asked=theirs)
    other["counters"] = None  # what `counters=False` writes there (``parts`` only stands in for zones here)
    return [view, other]


def _rendered(game: Game, player: int, baseline: Baseline) -> dict[str, Any] | None:
    """A baseline as the view the narration compares with (a copied state's view, rendered now)."""
    if not isinstance(baseline, GameState):
        return baseline
    shell = copy.copy(game)
    shell.state = baseline
    return shell.view(player)


def _sees(game: Game, player: int, card: int) -> bool:
    return bool((card_visibility(game.state, card) >> player) & 1)


def _told(game: Game, player: int, since: int) -> set[int]:
    """The cards named to ``player`` in full by log lines written since entry ``since`` (a card it saw for a
    moment: taken into its hand, then taken away within the same step)."""
    formats = game.ruleset.compiled.log_formats
    told: set[int] = set()
    for mask, full, fmt_id, values in game.state.log[since:]:
        if fmt_id >= 0 and (mask & full) >> player & 1:
            for i in formats[fmt_id].card_args:
                v = values[i]
                told.update(c for c in (v if isinstance(v, tuple) else (v,)) if isinstance(c, int))
    return told


def _visible(game: Game, player: int) -> list[bool]:
    """Per card, whether ``player`` can see it now (by identity): when the two worlds show it different cards,
    the rules have told them apart in the open, and what follows may differ. The list itself, not the set of
    cards it marks: two worlds of one game hold the same cards, so the lists are equal exactly when the sets
    are, and the probe asks at every compared decision."""
    return visible_cards(game.state, player)


def choose_swap(game: Game, observer: int, seen: list[int], rng: random.Random) -> Swap | None:
    """Two cards of one kind and one back (their `back` fields) that ``observer`` cannot see now and has never
    seen (``seen``: card -> viewers mask, tools/leaks.py's record), or None when there are no two such cards."""
    t = game.state.tables
    defs = game.ruleset.program.cards
    bit = 1 << observer
    held = _referenced(game)
    declared = _zone_declarations(game)
    backs = t.card_backs or [""] * len(t.card_def)
    by_place: dict[tuple[str, str, str, int], list[int]] = {}
    for c in range(len(t.card_def)):
        if not seen[c] & bit and not _sees(game, observer, c) and c not in held:
            # cards whose printed backs differ are told apart by every viewer: never a pair to swap; nor are
            # cards hosting a different number of cards (what lies on a card goes with it, and how many lie on a
            # face-down card is seen: Fury of Dracula's encounter tiles on the Trail), as Game.sample_world keeps
            key = (defs[t.card_def[c]].kind, declared[game.state.card_zone[c]], backs[c], _hosted(game, c))
            by_place.setdefault(key, []).append(c)
    by_kind = by_place
    # copies of one card are alike: a pair of different cards is what can tell the worlds apart
    pools = [cards for cards in by_kind.values() if len({t.card_def[c] for c in cards}) > 1]
    if not pools:
        return None
    pool = pools[rng.randrange(len(pools))]
    first = rng.choice(pool)
    second = rng.choice([c for c in pool if t.card_def[c] != t.card_def[first]])
    return Swap(observer, first, second)


def _hosted(game: Game, card: int) -> int:
    """How many cards lie on ``card`` (in its `per card` zones)."""
    lay = game.ruleset.compiled.layout
    base = lay.zone_card_base + card * lay.zone_card_stride
    zones = game.state.zones
    return sum(len(zones[z]) for z in range(base, base + lay.zone_card_stride))


def _zone_declarations(game: Game) -> list[str]:
    """Per zone index, the zone declaration it belongs to (``hand`` for every player's hand)."""
    return [name.split(".", 1)[-1] for name in game.state.tables.zone_names]


def _referenced(game: Game) -> set[int]:
    """Every int the running code holds (local variables, the pending options, shown cards): a card named there
    is tied to its place by the rules ("the card drawn"), so moving it would make a world the rules cannot reach.
    Ints that only look like card ids are left out too; that costs coverage, never soundness."""
    s = game.state
    found: set[int] = set(s.shown)

    def walk(value: Any) -> None:
        if isinstance(value, int) and not isinstance(value, bool):
            found.add(value)
        elif isinstance(value, tuple | list):
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)

    for frame in s.frames:
        walk(frame[2])
    pend = s.pending
    if pend is not None and getattr(game.ruleset.compiled.choice_elems[pend[-1]], "kind", None) == "card":
        walk(pend[2] if pend[0] == "choose" else [options for _, options in pend[1]])  # numbers are no cards
    return found


def swapped(game: Game, swap: Swap) -> Game:
    """A clone of ``game`` in which the two cards of ``swap`` trade places (zone, position, and the players or
    cards their per-card counters name: who holds each, infosets.relation_slots)."""
    world = game.clone()
    world.check = False  # the world is reachable for the observer's eyes, not necessarily for every invariant
    s = world.state
    a, b = swap.first, swap.second
    za, zb = s.card_zone[a], s.card_zone[b]
    ia, ib = s.zones[za].index(a), s.zones[zb].index(b)
    s.zones[za][ia], s.zones[zb][ib] = b, a
    s.card_zone[a], s.card_zone[b] = zb, za
    keep_relations(s.counters, relation_slots(game), {a: b, b: a})  # whose each card is goes with its place
    return world


def _view_difference(real: Any, world: Any, path: str) -> str | None:
    """The first place two views differ, as ``counters.P1.block: 3 vs 5``."""
    if isinstance(real, dict) and isinstance(world, dict):
        for key in sorted(set(real) | set(world), key=str):
            found = _view_difference(real.get(key), world.get(key), f"{path}.{key}" if path else str(key))
            if found:
                return found
        return None
    if isinstance(real, list) and isinstance(world, list) and real != world:
        if len(real) != len(world):
            return f"{path}: {len(real)} vs {len(world)} items"
        i = next(k for k, (u, v) in enumerate(zip(real, world, strict=True)) if u != v)
        return _view_difference(real[i], world[i], f"{path}[{i}]")
    if real != world:
        return f"{path}: {str(real)[:80]} vs {str(world)[:80]}"
    return None


def _first_difference(real: tuple[Any, ...], world: tuple[Any, ...], lines_before: int = 0) -> str:
    """What differs first, in words; ``lines_before``: how many of the observer's log lines came before the
    first line of the log part (:func:`_observe` compares only new lines), so items are numbered in the log."""
    parts = ("its log", "its option labels", "its prompt", "its option details", "its display", "its narration",
             "its view")
    for name, x, y in zip(parts, real, world, strict=True):
        if x != y:
            if name == "its view":
                return f"its view ({_view_difference(x, y, '')})"
            if isinstance(x, tuple) and isinstance(y, tuple):
                first = lines_before if name == "its log" else 0
                for i, (u, v) in enumerate(zip(x, y, strict=False)):
                    if u != v:
                        return f"{name} (item {first + i + 1}: {str(u)[:120]!r} vs {str(v)[:120]!r})"
                return f"{name} ({first + len(x)} vs {first + len(y)} items)"
            return name
    return "its observation"


def check_swap(game: Game, swap: Swap, rng: random.Random, horizon: int = HORIZON) -> str | None:
    """Play ``game`` and its swapped world on with the same decisions; a message if the observer can tell them
    apart before the rules reveal either card to it, else None. ``game`` itself is not changed."""
    names = game.state.tables.card_names
    return _compare(game.clone(), swapped(game, swap), swap.observer, (swap.first, swap.second), rng, horizon,
                    f"swapping {names[swap.first]} and {names[swap.second]}")


def check_choice(game: Game, observer: int, seen: list[int], rng: random.Random,
                 horizon: int = HORIZON) -> str | None:
    """Another player picks one card or another, both hidden from ``observer`` and never seen by it (a card
    played face down, a card kept): the observer must not be able to tell which until the rules show it."""
    s = game.state
    pend, d = s.pending, game.decision
    if pend is None or d is None:
        return None
    elems = game.ruleset.compiled.choice_elems
    if elems[pend[-1]] is None or getattr(elems[pend[-1]], "kind", None) != "card":
        return None
    per = [(pend[1], pend[2])] if pend[0] == "choose" else list(pend[1])
    bit = 1 << observer
    defs = s.tables.card_def
    for q, options in per:
        if q == observer or q not in d.players:
            continue
        hidden = [i for i, c in enumerate(options)
                  if c is not None and not seen[c] & bit and not _sees(game, observer, c)]
        backs = s.tables.card_backs or [""] * len(defs)
        # only options with the same printed back look alike to the observer
        alike = [i for i in hidden if any(backs[options[k]] == backs[options[i]]
                                          and defs[options[k]] != defs[options[i]] for k in hidden)]
        if not alike:
            continue
        i = rng.choice(alike)
        j = rng.choice([k for k in hidden if defs[options[k]] != defs[options[i]]
                        and backs[options[k]] == backs[options[i]]])
        real, world = game.clone(), game.clone()
        world.check = False
        # the choice's own log lines count as told: a card revealed and named there, then moved on, was shown
        before = (len(real.state.log), len(world.state.log))
        real.apply(i, q)
        world.apply(j, q)
        names = s.tables.card_names
        return _compare(real, world, observer, (options[i], options[j]), rng, horizon,
                        f"P{q + 1} choosing {names[options[i]]} rather than {names[options[j]]}", before)
    return None


def check_world(game: Game, observer: int, knowledge: Knowledge, rng: random.Random,
                horizon: int = HORIZON) -> str | None:
    """A whole world drawn from ``observer``'s information set (``Game.sample_world`` given ``knowledge``, what
    it has seen) against the real game: the observer's observation must stay the same until the rules show it
    a card placed differently in the two. The real RNG is kept: nobody knows it, so the real one is a possible
    world's, and public rolls and shuffles then agree. ``game`` itself is not changed."""
    # each card dealt again within its zone declaration (infosets.sample_world, keep_declarations says why); one
    # world in two, when the hidden cards fall in several groups, varies one group alone (WorldSampler's narrow)
    sampler = WorldSampler(game, observer, knowledge, keep_declarations=True)
    world = sampler(rng, narrow=len(sampler.free) > 1 and rng.random() < 0.5)
    world.state.rng = game.state.rng
    real = game.clone()
    hidden = {i for _, group in hidden_slots(game, observer) for i in group}
    values = tuple(i for i in sorted(hidden) if real.state.counters[i] != world.state.counters[i])
    redrawn = world.state.commits != real.state.commits
    if not _placed_differently(real, world) and not redrawn and not values:
        return None  # nothing hidden from the observer could be varied here
    what = f"a world drawn from P{observer + 1}'s information set (Game.sample_world)"
    chosen = _committed_cards(real, world) if redrawn else None
    found = _compare(real, world, observer, chosen or (), rng, horizon, what, slots=values,
                     until_revealed=redrawn and chosen is None)
    if found or not game.state.commits:
        return found
    return _check_commits_alone(game, observer, rng, horizon, what)


def _check_commits_alone(game: Game, observer: int, rng: random.Random, horizon: int, what: str) -> str | None:
    """The real game with only the other players' commits drawn again: a world of the observer's information
    set too, and the sharper one for a commit's leak. In a world whose hidden cards were dealt afresh, the step
    that resolves the choice often also shows the observer a card placed differently (its next draw from a deck
    the world shuffled), which ends the comparison before the line that leaks the commit is read."""
    real, world = game.clone(), game.clone()
    _redraw_commits(world, game, observer, rng)
    if world.state.commits == real.state.commits:
        return None
    chosen = _committed_cards(real, world)
    return _compare(real, world, observer, chosen or (), rng, horizon, what, until_revealed=chosen is None)


def _committed_cards(real: Game, world: Game) -> tuple[int, ...] | None:
    """The cards committed in either world to a pending simultaneous choice among cards, or None when its
    options are not cards.

    Redrawn commits among cards are followed as varied cards: the comparison ends when the rules show or name
    one of them to the observer (a card played face up, "Lord Godalming plays Escape"), and any other difference
    after the choice resolves is a leak (the rank of a tile dropped face down, logged). Commits among other
    options (an enum, a number) have no card to follow, so their comparison ends when the choice resolves and the
    rules act on them in the open."""
    pend = real.state.pending
    if pend is None or pend[0] != "simul":
        return None
    if getattr(real.ruleset.compiled.choice_elems[pend[-1]], "kind", None) != "card":
        return None
    cards: set[int] = set()
    for game in (real, world):
        held = game.state.pending
        entries: tuple[tuple[int, tuple[Any, ...]], ...] = held[1] if held is not None and held[0] == "simul" else ()
        for i, k in game.state.commits.items():
            options = entries[i][1] if i < len(entries) else ()
            if 0 <= k < len(options) and isinstance(options[k], int):
                cards.add(options[k])
    return tuple(sorted(cards))


def _places(game: Game) -> dict[int, tuple[int, int]]:
    return {c: (z, i) for z, cards in enumerate(game.state.zones) for i, c in enumerate(cards)}


def _placed_differently(real: Game, world: Game) -> set[int]:
    """The cards whose zone or position differs between the two worlds.

    A card lies in one place, so card ``c`` at position ``i`` of zone ``z`` in the real world lies there in the
    other exactly when that world's zone ``z`` holds ``c`` at ``i``: only zones that differ are looked into (the
    probe asks this at every step, and most zones agree)."""
    a, b = real.state.zones, world.state.zones
    if len(a) != len(b):  # not the same ruleset's layout: compare every card's place
        there = _places(world)
        return {c for c, at in _places(real).items() if there.get(c) != at}
    return {c for mine, theirs in zip(a, b, strict=True) if mine != theirs
            for i, c in enumerate(mine) if i >= len(theirs) or theirs[i] != c}


def _compare(real: Game, world: Game, p: int, cards: tuple[int, ...], rng: random.Random, horizon: int,
             what: str, start: tuple[int, int] | None = None, slots: tuple[int, ...] = (),
             until_revealed: bool = False) -> str | None:
    """Play both worlds on with the same choices while neither ``cards`` (the varied ones) nor any card placed
    differently in the two worlds (at this decision or the one before: a difference moves other cards too, and a
    step can draw and show two cards that then lie alike) is visible to ``p``; the first difference in what ``p``
    observes, as a message. ``start``: the log lengths from which a line naming such a card readably counts as
    showing it (default: from now). ``slots``: the counter or grid slots varied; the comparison ends once one of
    them is no longer hidden from ``p`` in either world (a stone ``p`` plays or finds there, a group it joins).
    ``until_revealed``: the worlds differ in other players' commits to the pending simultaneous choice, so the
    comparison ends when every player is in and the choice is resolved: the rules then act on the choices in the
    open ("Lord Godalming plays Escape"), as they are meant to; until then, a difference is a commit leaking before
    its time."""
    start = start or (len(real.state.log), len(world.state.log))
    # the cards placed differently now or before the last step: two cards in another order at the bottom of a
    # deck, both drawn in one step and shown (one discarded in the open, one handed over unseen), end in the same
    # places in both worlds, yet the order of their draws was the rules telling the worlds apart (Fury of
    # Dracula's Rest). A card that has lain alike for a whole step no longer tells them apart when shown.
    placed_before: set[int] = set()
    before: tuple[Baseline, Baseline] = (None, None)  # the narration baselines
    alike = Alike(real.ruleset, p) if probe_alike.ENABLED else None
    worlds = (real, world)
    told: tuple[set[int], set[int]] = (set(), set())  # cards named to p since ``start``, in each world
    told_to = list(start)  # how far each world's log has been read into ``told``
    log_at, lines_before = [0, 0], 0  # the first log step compares every line, later steps the new ones
    for step in range(horizon + 1):
        if until_revealed and step and not (real.state.commits and world.state.commits):
            return None  # the simultaneous choice is resolved: its choices are the rules' to show
        now = _placed_differently(real, world)
        varied = now.union(placed_before, cards)
        placed_before = now
        for k, g in enumerate(worlds):
            told[k].update(_told(g, p, told_to[k]))
            told_to[k] = len(g.state.log)
        if any(_sees(g, p, c) for g in worlds for c in varied) or not varied.isdisjoint(told[0] | told[1]):
            return None  # revealed by the rules (now, or for a moment in a log line): the worlds may differ
        if _visible(real, p) != _visible(world, p):
            return None  # the rules show the observer different cards (a draw, a random pick from a hidden zone)
        if slots and not all(_still_hidden(g, p, slots) for g in (real, world)):
            return None  # the rules now show the observer a varied value: the worlds may differ from here on
        # the next step narrates what changed since this one, in each world
        mine, theirs, before, asked = _observe_both(worlds, p, before, log_at, alike)
        if mine != theirs:
            return (f"P{p + 1} is told what it may not see: {what} (hidden from P{p + 1}) changes "
                    f"{_first_difference(mine, theirs, lines_before)}, {step} decision(s) later")
        lines_before += len(mine[0])
        log_at = [len(real.state.log), len(world.state.log)]
        if real.finished or world.finished:
            return None
        if not _same_decision(real, world, rng, p, asked):
            return None
    return None


def _still_hidden(game: Game, p: int, slots: tuple[int, ...]) -> bool:
    """Whether every one of ``slots`` is still a value ``p`` may not see (:func:`hidden_slots`)."""
    hidden = {i for _, group in hidden_slots(game, p) for i in group}
    return hidden.issuperset(slots)


def _labels_seen_by(game: Game, chooser: int, viewer: int) -> tuple[str, ...] | None:
    """``chooser``'s option labels as ``viewer`` would read them (a card ``viewer`` cannot see is offered by its
    place: "hidden card 3"), or None when ``chooser`` is not deciding."""
    s = game.state
    pend = s.pending
    comp = game.ruleset.compiled
    if pend is None:
        return None
    fmt_id = pend[-1]
    if pend[0] == "choose":
        if pend[1] != chooser:
            return None
        options, pass_label = pend[2], comp.choice_pass_labels[fmt_id]
    else:
        at = open_entry(pend[1], s.commits, chooser)
        if at is None:
            return None
        options, pass_label = pend[1][at][1], "pass"
    return _labels(s, comp.choice_formats[fmt_id], options, viewer, pass_label, comp.choice_elems[fmt_id])


def _pick(mine: tuple[str, ...], theirs: tuple[str, ...], i: int) -> int | None:
    """The option of ``theirs`` that is the same as option ``i`` of ``mine`` (the same label, the same
    occurrence of a repeated label), or None when the two lists are not the same labels."""
    if sorted(mine) != sorted(theirs):
        return None
    nth = mine[:i].count(mine[i])
    return [k for k, label in enumerate(theirs) if label == mine[i]][nth]


def _common(mine: tuple[str, ...], theirs: tuple[str, ...], rng: random.Random) -> tuple[int, int] | None:
    """A random option offered in both worlds, as (its place in ``mine``, its place in ``theirs``), or None.

    Another player whose options read a varied value it may see (its own stones, its empty plots) is offered
    other options in the two worlds; an option it has in both is one action, legal in both, and the observer sees
    it taken alike (the observer is not shown another player's options)."""
    both = [(i, j) for i in range(len(mine)) if (j := _pick_in(mine, theirs, i)) is not None]
    return both[rng.randrange(len(both))] if both else None


def _pick_in(mine: tuple[str, ...], theirs: tuple[str, ...], i: int) -> int | None:
    """The same occurrence of label ``mine[i]`` in ``theirs``, if it has one."""
    nth = mine[:i].count(mine[i])
    found = [k for k, label in enumerate(theirs) if label == mine[i]]
    return found[nth] if nth < len(found) else None


def _same_decision(real: Game, world: Game, rng: random.Random, observer: int, asked: Asked | None = None) -> bool:
    """Apply one round of the same choices to both worlds; False when they are not the same choices.

    The same choice is the same option *label*: the chooser may see the swapped cards, and then its options
    name them in another order; picking "Three" in both worlds is the same action, picking option 3 is not.
    When another player's labels differ as a whole (it sees cards that differ), its options are matched as the
    observer would read them: "hidden card 2" in both worlds is the same action to the observer's eyes. Options
    that differ even so mean the chooser knows something the observer sees differ: not the same action.
    ``asked``: both worlds' decisions now, if built already.
    """
    rd, wd = (real.decision, world.decision) if asked is None else (asked[0][0], asked[1][0])
    if rd is None or wd is None or rd.players != wd.players:
        return False
    picks: list[tuple[int, int, int]] = []
    for q in rd.players:
        mine, theirs = rd.options[q], wd.options.get(q, ())
        i = rng.randrange(len(mine)) if mine else 0
        j = _pick(mine, theirs, i) if mine else None
        if j is None and q != observer and len(mine) == len(theirs):
            seen_mine, seen_theirs = _labels_seen_by(real, q, observer), _labels_seen_by(world, q, observer)
            if seen_mine is not None and seen_theirs is not None:
                j = _pick(seen_mine, seen_theirs, i)
        if j is None and q != observer and mine:
            i, j = _common(mine, theirs, rng) or (i, None)
        if j is None:
            return False
        picks.append((q, i, j))
    for q, i, j in picks:
        real.apply(i, q)
        world.apply(j, q)
        if real.finished or world.finished or real.state.status != "running":
            return False
    return True


def check_hidden_values(game: Game, observer: int, rng: random.Random, horizon: int = HORIZON) -> str | None:
    """Two values ``observer`` may not see (:func:`hidden_slots`), of one declaration, trade places: what it
    observes must not change. The swap keeps every total and count of values, so the second world is one the
    observer cannot tell apart by anything the rules show it; a counter never becomes visible during play, so any
    difference before the game ends is a leak (a log line, a public counter or a choice that reads the value)."""
    values = game.state.counters
    groups = [(what, slots) for what, slots in hidden_slots(game, observer)
              if len({repr(values[i]) for i in slots}) > 1]
    if not groups:
        return None
    for _ in range(HIDDEN_TRIES):
        what, slots = groups[rng.randrange(len(groups))]
        a = rng.choice(slots)
        b = rng.choice([i for i in slots if values[i] != values[a]])
        world = game.clone()
        world.check = False
        world.state.counters[a], world.state.counters[b] = values[b], values[a]
        world = _reask(world, game, observer)  # a decider's options may read the swapped values (its own stones)
        problem = _compare(game.clone(), world, observer, (), rng, horizon,
                           f"swapping two values of {what} ({values[a]} and {values[b]})", slots=(a, b))
        if problem is not None:
            return problem
    return None


def check_point(game: Game, seen: list[int], rng: random.Random,
                knowledge: list[Knowledge] | None = None) -> str | None:
    """One noninterference probe at the game's current decision, for a random observer: another player's
    secret card choice varied, else two hidden cards swapped, else two hidden counter values or grid cells;
    then, given what each player has seen (``knowledge``, per player), a whole world drawn from the observer's
    information set."""
    observer = rng.randrange(game.players)
    problem = check_choice(game, observer, seen, rng)
    if problem is not None:
        return problem
    swap = choose_swap(game, observer, seen, rng)
    problem = None if swap is None else check_swap(game, swap, rng)
    if problem is None:
        problem = check_hidden_values(game, observer, rng)
    if problem is None and knowledge is not None:
        problem = check_world(game, observer, knowledge[observer], rng)
    return problem
