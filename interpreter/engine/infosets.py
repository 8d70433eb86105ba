"""Information sets from the rules: what one player knows of a game, and full games drawn from that knowledge.

A player's *information set* is every full game state that player cannot tell apart from the real one. The rules
already say what each player sees (zone visibility, `reveal`, `log to`, back fields); this module turns that into
two things a fair agent needs:

- :class:`Knowledge`: what player ``p`` has seen so far, followed from decision point to decision point (each card
  it has seen, and the zone it knows that card to be in, if it still knows);
- :func:`sample_world`: a full game drawn from the hidden cards' possible placements given that knowledge.

What a sampled world keeps exactly (so ``p``'s view, log lines, option labels, prompt and display are the real
ones, and every position ``p`` can tell apart is the same):

- every card ``p`` sees now, where it is; every zone's size (but of zones `size hidden` it may not see: their
  cards are dealt afresh among them, engine/worlddeal.py); every card's back fields where it lies (a hidden
  position only ever receives a card with the same back text and of the same card kind);
- every counter and grid cell ``p`` may see (the values it may not see are dealt afresh: counters within their
  declaration, grid cells by position, engine/worlddeal.py), the log, the decisions so far, the step the game
  is in;
- a card ``p`` saw before and cannot see now stays in the zone ``p`` last knew it in (its position inside that
  zone is drawn again), unless ``p`` lost track of it: a card it could not see left that zone since, or the card
  itself moved while hidden; then it may be anywhere a never-seen card of its kind and back may be.

What it draws again: which hidden card lies at each hidden position (uniformly among the placements allowed
above), the RNG (future draws, shuffles and rolls are unknown to everyone), and the choices other players have
already committed to in a pending simultaneous choice (uniformly among their options: ``p`` cannot see them).

What it does not condition on (the limits, stated so nobody mistakes the sample for a posterior):

- other players' past choices are taken as uninformative: a world where an opponent holds a card it would never
  have kept is as likely as any other (no opponent model);
- positions inside a hidden zone are always drawn again, even where ``p`` could know them ("put it on top of
  your deck" and nothing moved since): the sample then knows less than the player, never more;
- a card ``p`` saw leave its sight is followed to the zone it went to, even when ``p`` could not tell which of
  two hidden zones received it;
- a hidden position's card *kind* is taken as known (cards of one kind are only ever swapped with cards of the
  same kind: another kind would break the rules' own field reads); in a zone mixing kinds face down, that is
  more than ``p`` sees;
- cards the running code holds at this decision (a local variable naming "the card drawn", a loop over a
  hidden hand, a counter holding a card) stay where they are: the engine's locals are untyped ints, and moving
  a card the rules hold by its number would make a world the rules cannot reach;
- per-card zones attached to a card, and its per-card counters holding a number, a flag or an enum value, stay
  with that card's number (what the card *is*: upgraded, wounded); its per-card counters holding a player or a
  card (``held_by``, ``lies_in``: *whose* or *where* it is) stay with its place, so a card dealt to another place
  takes that place's holder (:func:`relation_slots`). Cards in one shared zone marked with their holder (Fury of
  Dracula's Hunters' hands) then move between holders as cards between hands do, and a pending choice that names
  the card at a place still names one its chooser may take. The knowledge follows zones, not holders: a card the
  player once saw in one holder's hand may be dealt to another's while it is hidden.

The sample is for search: its history (decisions, saves, digests) is the real one and does not replay to it.
"""

from __future__ import annotations

import random
from dataclasses import fields, is_dataclass
from itertools import compress
from operator import gt, ne
from typing import TYPE_CHECKING, Any

from liturgy.dsl.checker.types import Ty
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.engine import worlddeal
from liturgy.interpreter.runtime.moves import visible_cards

if TYPE_CHECKING:
    from liturgy.interpreter.engine.game import Game
    from liturgy.interpreter.engine.ruleset import Ruleset


class Knowledge:
    """What one player has seen of one game, followed decision point by decision point (:meth:`observe`).

    ``zones[c]`` is the set of zones the player knows card ``c`` may be in: one zone for a card it sees, or saw
    and followed; more once hidden cards moved out of a zone it may be in. Every card starts in the zone the
    card files put it in (the rules are public), before setup runs.
    """

    __slots__ = ("player", "zones", "_where", "_visible", "_log_done")

    def __init__(self, player: int, start: list[int]) -> None:
        self.player = player
        self.zones: list[frozenset[int]] = [frozenset((z,)) for z in start]
        self._where = start[:]  # every card's zone at the last observation
        self._visible = [False] * len(start)
        self._log_done = 0

    def observe(self, game: Game) -> None:
        """Take in what the player sees now, and the log lines written since the last observation.

        A card it sees (or is told of in full) is where it is. A card it saw leave its sight is followed to the
        zone it went to. A hidden card that moved from zone ``a`` to zone ``b`` unseen makes every hidden card
        that may have been in ``a`` possibly in ``b`` too (the player sees that a card moved, not which)."""
        s = game.state
        p = self.player
        vis = visible_cards(s, p)
        told = _told(game, p, self._log_done)
        self._log_done = len(s.log)
        now = s.card_zone
        before, was_visible, zones = self._where, self._visible, self.zones
        flows: set[tuple[int, int]] = set()
        # only a card named, moved, or seen now and not at the last observation can change what is known (one
        # seen then and now, where it was, is already known to lie there alone): those are picked out in C, since
        # the harness observes every player after every decision and most cards are none of these
        n = len(now)
        touched = {c for c in told if 0 <= c < n}
        touched.update(compress(range(n), map(ne, now, before)))
        touched.update(compress(range(n), map(gt, vis, was_visible)))
        for c in touched:
            z = now[c]
            if vis[c] or c in told or (was_visible[c] and z != before[c]):
                zones[c] = frozenset((z,))
            elif z != before[c]:
                flows.add((before[c], z))
        if flows:
            spread_unseen_moves(zones, vis, flows)
        self._where = now[:]
        self._visible = vis


def spread_unseen_moves(zones: list[frozenset[int]], visible: list[bool], flows: set[tuple[int, int]]) -> None:
    """Widen, in place, where each hidden card may be by the moves seen without seeing which card moved: a
    card that may be in zone ``a``, with a move ``a`` -> ``b`` (and on, ``b`` -> ``c``), may now be in any zone
    it reaches."""
    out: dict[int, set[int]] = {}
    for a, b in flows:
        out.setdefault(a, set()).add(b)
    for c, may in enumerate(zones):
        if visible[c] or not may.intersection(out):
            continue
        reach, todo = set(may), [z for z in may if z in out]
        while todo:
            for b in out.get(todo.pop(), ()):
                if b not in reach:
                    reach.add(b)
                    todo.append(b)
        zones[c] = frozenset(reach)


def _told(game: Game, player: int, since: int) -> set[int]:
    """Cards named in full to ``player`` by the log lines written since entry ``since``."""
    formats = game.ruleset.compiled.log_formats
    told: set[int] = set()
    for mask, full, fmt_id, values in game.state.log[since:]:
        if fmt_id >= 0 and (mask & full) >> player & 1:
            for i in formats[fmt_id].card_args:
                _cards_in(values[i], told)
    return told


def _cards_in(value: Any, out: set[int]) -> None:
    """Every card id in a card value, a list of them, or a list of lists."""
    if isinstance(value, tuple):
        for v in value:
            _cards_in(v, out)
    elif isinstance(value, int) and not isinstance(value, bool):
        out.add(value)


def knowledge_by_replay(game: Game, player: int) -> Knowledge:
    """``player``'s knowledge of ``game``, rebuilt by replaying its decisions from its seed and options.

    The replay is the real game, watched through ``player``'s eyes only: each decision point adds what that
    player saw there (and the log lines it was told). :class:`Tracker` does the same incrementally.
    """
    tracker = Tracker(player)
    tracker.follow(game)
    return tracker.knowledge


class Tracker:
    """Follows one game for one player across calls: each :meth:`follow` replays only the new decisions.

    A new game (another seed, other options, or a history that is not an extension of the one followed) starts
    the replay again. Costs one replayed decision per real decision, over the whole game.
    """

    def __init__(self, player: int) -> None:
        self.player = player
        self.replay: Game | None = None
        self.knowledge = Knowledge(player, [])

    def follow(self, game: Game) -> Knowledge:
        real = game.state.decisions
        r = self.replay
        if (r is None or r.seed != game.seed or r.options != game.options or r.players != game.players
                or len(r.state.decisions) > len(real) or r.state.decisions != real[:len(r.state.decisions)]):
            r = self.replay = game.ruleset.new_game(game.players, game.seed, options=game.options)
            self.knowledge = Knowledge(self.player, start_zones(game.ruleset, game.players, game.options))
            self.knowledge.observe(r)
        for p, i in real[len(r.state.decisions):]:
            r.apply(i, p)
            self.knowledge.observe(r)
        return self.knowledge


def start_zones(ruleset: Ruleset, players: int, options: dict[str, str]) -> list[int]:
    """Every card's zone before setup: where the card files and declarations put it (public knowledge).
    ``options`` as a game records them (``Game.options``: the resolved `option` values given)."""
    key: Any = (players, tuple(sorted(options.items()))) if options else players
    template = ruleset._templates.get(key)
    if template is None:
        template = ruleset._templates[key] = ruleset._template(players, dict(options))
    return list(template[3])


def hidden_slots(game: Game, observer: int, grids: bool = True) -> list[tuple[str, list[int]]]:
    """The counter and grid slots whose values ``observer`` may not see now (docs/language.md, "Hidden information
    without cards"), in groups whose values may trade places: one player's entries of a counter `visible to owner`
    (or `hidden`, or `visible to` a group the observer is not in) indexed by an enum, every such player's value of
    one that is not, each hidden global counter's entries, and per grid the cells the observer does not see (all
    of a `hidden` grid or of one `visible to` a group it is not in; of a grid `visible to owner`, the cells not
    holding the observer). What the observer sees changes as the game goes (a stone it plays, a group it joins):
    the probe stops comparing once a varied slot leaves this list. ``grids``: False leaves out grids
    (:class:`WorldSampler` deals them by position, engine/worlddeal.py)."""
    from liturgy.interpreter.engine.views import _cell_seer, _seer

    prog, lay, n = game.ruleset.program, game.ruleset.compiled.layout, game.players
    s = game.state
    groups: list[tuple[str, list[int]]] = []
    for name, c in prog.counters.items():
        if not c.seen_by or c.scope == "card":
            continue
        sees = _seer(game.ruleset, c, s, observer)
        width = len(prog.enums[c.index_enum]) if c.index_enum else 1
        if c.scope == "global":
            if not sees(None):
                groups.append((name, list(range(lay.global_slots[name], lay.global_slots[name] + width))))
            continue
        others = [p for p in range(n) if not sees(p)]
        bases = [lay.player_base + p * lay.player_stride + lay.player_offsets[name] for p in others]
        if width > 1:
            groups.extend((f"P{p + 1}'s {name}", list(range(b, b + width))) for p, b in zip(others, bases, strict=True))
        elif bases:
            groups.append((name, bases))
    for name, g in lay.grids.items() if grids else ():
        decl = prog.grids[name]
        if decl.seen_by:
            seen = _cell_seer(game.ruleset, decl, s, observer)
            cells = [i for i in range(g.base, g.base + g.width * g.height) if not seen(s.counters[i])]
            if cells:
                groups.append((name, cells))
    return groups


def sample_world(game: Game, player: int, rng: random.Random, knowledge: Knowledge | None = None,
                 keep_declarations: bool = False) -> Game:
    """A full game ``player`` cannot tell apart from ``game``, drawn from its information set (module doc).

    ``knowledge`` is what the player has seen (default: rebuilt by replaying ``game``); ``game`` is not changed.
    ``keep_declarations`` deals each hidden card again only among places of the zone declaration it lies in (one
    player's deck with another's, never the box with a hand), and only with cards hosting as many cards in their
    ``per card`` zones: a narrower world, for checks that must not mistake
    the knowledge model's over-approximation for a leak. Cards leaving a hidden zone by a rule that filters on a
    field ("every card of the chosen class leaves the box") make the model lose track of every card there, while
    the player still knows how many of each class stayed; a wider world could then change a public count.

    To draw many worlds of one decision (a search), make one :class:`WorldSampler` and call it: the same worlds,
    draw for draw, without working out the hidden places again each time.
    """
    return WorldSampler(game, player, knowledge, keep_declarations)(rng)


class WorldSampler:
    """Draws worlds of one information set (:func:`sample_world`), the part that depends only on the real game
    (which positions are hidden, which may trade places, what the player knows, which frame entries hold cards)
    worked out once. ``sampler(rng)`` is ``sample_world(game, player, rng, knowledge, keep_declarations)``,
    drawing the same numbers from ``rng`` in the same order, so a search that switches to it plays the same
    moves for the same seed. ``game`` must not change while the sampler is in use."""

    def __init__(self, game: Game, player: int, knowledge: Knowledge | None = None,
                 keep_declarations: bool = False) -> None:
        know = knowledge if knowledge is not None else knowledge_by_replay(game, player)
        self.game = game
        self.player = player
        s = game.state
        t = s.tables
        vis = visible_cards(s, player)
        held, self.entries = _frame_cards(game)  # entries by frame number: a clone's frames are in the same order
        kinds = game.ruleset.program.cards
        backs = t.card_backs
        lay = game.ruleset.compiled.layout
        stride = lay.zone_card_stride if keep_declarations else 0
        # hidden positions by what the player sees of them (kind and back): the cards there may trade places
        groups: dict[tuple[str, str, str, int], list[int]] = {}
        places: list[tuple[int, int]] = []
        for zi, cards in enumerate(s.zones):
            for at, c in enumerate(cards):
                if not vis[c] and c not in held:
                    # narrower still, the number of cards a card hosts (its `per card` zones) goes with it: a
                    # public log counts them (Fury of Dracula's encounter tiles, placed on the newest Trail card),
                    # and a card hosting none dealt where a card hosting one lay would return a different count to
                    # a public zone
                    base = lay.zone_card_base + c * stride
                    key = (kinds[t.card_def[c]].kind, backs[c] if backs else "",
                           t.zone_names[zi].split(".", 1)[-1] if keep_declarations else "",
                           sum(len(s.zones[z]) for z in range(base, base + stride)))
                    groups.setdefault(key, []).append(len(places))
                    places.append((zi, at))
        self.places = places
        self.possible = possible = (know.zones if len(know.zones) == len(s.card_zone)
                                    else [frozenset()] * len(s.card_zone))
        self.groups: list[list[int]] = []  # the groups some card may not lie everywhere in: dealt, then swapped
        self.free: list[tuple[list[int], list[int]]] = []  # the others: (places, their cards sorted), shuffled
        for members in groups.values():
            if len(members) < 2:
                continue
            cards = sorted(s.zones[places[i][0]][places[i][1]] for i in members)
            where = {places[i][0] for i in members}
            if all(not possible[c] or where <= possible[c] for c in cards):
                self.free.append((members, cards))
            else:
                self.groups.append(members)
        self.relations = relation_slots(game)
        # hidden counter values the player may not see, by declaration: dealt afresh among their slots
        self.value_groups = [slots for _, slots in hidden_slots(game, player, grids=False) if len(slots) > 1]
        # secrets without cards (engine/worlddeal.py): hidden grid positions, cards of zones of hidden size
        self.cells = worlddeal.cell_groups(game, player)
        self.sizes = worlddeal.size_groups(game, player, vis, held)
        # what a moved card must be followed into, known from the real game alone (it does not change): a pending
        # choice among cards, frame entries, counters that hold cards, `reveal … to` (each skipped when absent)
        pend = s.pending
        self.card_choice = pend is not None and getattr(
            game.ruleset.compiled.choice_elems[pend[-1]], "kind", None) == "card"
        self.card_slots = bool(_card_slots(game))
        # another player's pending options (they are asked again in the sampled world: _reask)
        self.others_choose = pend is not None and (
            any(q != player for q, _ in pend[1]) if pend[0] == "simul" else pend[0] == "choose" and pend[1] != player)
        self.commits = pend is not None and pend[0] == "simul" and bool(s.commits)
        # the usual world (Kuhn's, Leduc's): hidden cards in free groups and nothing else to deal or follow
        self.plain = not (self.value_groups or self.cells or self.sizes or self.groups or self.commits)
        self.follow = bool(s.shown or self.relations or self.card_choice or self.entries or self.card_slots
                           or self.others_choose)

    def __call__(self, rng: random.Random, narrow: bool = False) -> Game:
        """A world; ``narrow``: one that differs from the real game in one free group's places only (needs
        ``self.free``), the rest as it really is — a world of the information set too, for the noninterference
        probe: a leak in the step that also shows the observer another varied card (its next draw from a deck
        the full world shuffled) is only read in a world where that deck lies as it really does."""
        game, player = self.game, self.player
        world = game.clone()
        world.check = False  # reachable for the player's eyes, not necessarily for every invariant
        s = world.state
        if self.plain and not narrow:  # what the general path below does here, without its tests
            moved = _shuffle_places(s.zones, s.card_zone, self.places, self.free, self.groups, self.possible, rng)
            if moved and self.follow:
                world = self._follow(world, moved)
            world.state.rng = rng.getrandbits(64)
            return world
        if narrow:
            one = [self.free[rng.randrange(len(self.free))]]
            moved = _shuffle_places(s.zones, s.card_zone, self.places, one, [], self.possible, rng)
            shuffled = False
        else:
            shuffled = _shuffle_values(s.counters, self.value_groups, rng) if self.value_groups else False
            if self.cells:
                shuffled = worlddeal.deal_cells(s.counters, self.cells, rng) or shuffled
            moved = _shuffle_places(s.zones, s.card_zone, self.places, self.free, self.groups, self.possible, rng)
            if self.sizes and worlddeal.deal_sizes(s.zones, s.card_zone, self.sizes, self.possible, rng):
                shuffled = True  # the cards stay the same ones: only other players' options may change
        if shuffled and not moved and self.others_choose:  # their options may read their hidden values: ask again
            world = _reask(world, game, player)
        if moved:
            world = self._follow(world, moved)
        if self.commits and not narrow:
            _redraw_commits(world, game, player, rng)
        world.state.rng = rng.getrandbits(64)
        return world

    def _follow(self, world: Game, moved: dict[int, int]) -> Game:
        """Make ``world``'s references to cards follow the cards that traded places (``moved``); the world, or
        the one in which another player's pending choice was asked again."""
        s = world.state
        if s.shown:  # `reveal … to` another player follows the position, not the card
            s.shown = {moved.get(c, c): m for c, m in s.shown.items()}
        if self.relations:
            keep_relations(s.counters, self.relations, moved)
        if self.card_choice:
            _remap_pending(world, moved)
        if self.entries:
            frames = s.frames
            _remap_frames([(frames[k][2], key, how) for k, key, how in self.entries], moved)
        if self.card_slots:
            _remap_counters(world, moved)
        if self.others_choose:
            world = _reask(world, self.game, self.player)
        return world


def relation_slots(game: Game) -> list[tuple[int, int]]:
    """The per-card counters holding a player or a card (``held_by``), as (first slot, stride): the slot of card
    ``c`` is ``first + c * stride``. Such a counter says whose or where the card is, as its zone does, so it
    belongs to the card's place: a card dealt to a hidden place takes the place's value (module doc)."""
    cached: list[tuple[int, int]] | None = getattr(game.ruleset, "_relation_slots_cache", None)
    if cached is not None:
        return cached
    lay = game.ruleset.compiled.layout
    out = [(lay.card_base + lay.card_offsets[name], lay.card_stride)
           for name, c in game.ruleset.program.counters.items()
           if c.scope == "card" and c.held is not None and c.held.kind in ("player", "card")]
    game.ruleset._relation_slots_cache = out  # type: ignore[attr-defined]
    return out


def keep_relations(counters: list[Any], relations: list[tuple[int, int]], moved: dict[int, int]) -> None:
    """After cards traded places (``moved``: card -> the card now at its former place), each card takes the
    player-or-card values of the place it now lies in (:func:`relation_slots`)."""
    for first, stride in relations:
        before = {old: counters[first + old * stride] for old in moved}
        for old, new in moved.items():
            counters[first + new * stride] = before[old]


def _shuffle_values(counters: list[Any], groups: list[list[int]], rng: random.Random) -> bool:
    """Deal each group's hidden values afresh among its slots (a permutation: every total and count of values
    stays as the player knows it); whether any value moved. Draws nothing when there are no groups."""
    moved = False
    for slots in groups:
        values = [counters[i] for i in slots]
        if len(set(map(repr, values))) < 2:
            continue
        rng.shuffle(values)
        for i, v in zip(slots, values, strict=True):
            moved = moved or counters[i] != v
            counters[i] = v
    return moved


def _reask(world: Game, game: Game, player: int) -> Game:
    """Ask another player's pending choice again in the sampled world: its options were computed from its real
    cards or values (a `where` filter reads its hand, its own stones), and must now come from the sampled ones.
    The choice instruction has not run past its start, so running it again recomputes them; if that changes the
    player's own options, who decides, or fails, the remapped pending choice stays."""
    pend = world.state.pending
    if pend is None or (pend[0] == "choose" and pend[1] == player):
        return world
    if pend[0] == "simul" and all(q == player for q, _ in pend[1]):
        return world
    trial = world.clone()
    trial.state.pending = None
    trial.state.commits = {}
    trial._advance()
    again = trial.state.pending
    if trial.state.status != "running" or again is None or again[0] != pend[0]:
        return world
    if pend[0] == "choose":
        return trial if again[1] == pend[1] else world
    mine = [o for q, o in pend[1] if q == player]
    if [o for q, o in again[1] if q == player] != mine or [q for q, _ in again[1]] != [q for q, _ in pend[1]]:
        return world
    trial.state.commits = dict(world.state.commits)
    return trial


# swaps tried per hidden card after the greedy deal (which already forgot the real placement)
SWAPS_PER_CARD = 2
# when the greedy deal dead-ends, the chain starts from the real placement and needs many more to forget it
SWAPS_FROM_REAL = 12


def _shuffle_places(zones: list[list[int]], card_zone: list[int], places: list[tuple[int, int]],
                    free: list[tuple[list[int], list[int]]], groups: list[list[int]],
                    possible: list[frozenset[int]], rng: random.Random) -> dict[int, int]:
    """Redraw which card lies at each hidden place. Returns card -> the card now at its former place (for the
    running code's references).

    A ``free`` group (each of its cards may lie at any of its places) is one uniform shuffle of its cards, dealt
    onto its places in order: uniform, and one draw per card. In the other ``groups`` the knowledge rules
    some placements out: a greedy deal, then a Markov chain of swaps between two places of one group, each made
    when both cards may be in the other's zone (``possible``: an empty set is no constraint). Its stationary
    distribution is uniform over the placements the knowledge allows; ``SWAPS_PER_CARD`` swaps per card are
    tried. Neither starts from the real placement: ``free`` lists each group's cards sorted."""
    moved: dict[int, int] = {}
    random = rng.random
    for members, sorted_cards in free:
        cards = sorted_cards[:]
        # Fisher-Yates with one `random()` a card (a C call, where `rng.shuffle` runs Python per card): exactly
        # uniform but for the 2**-53 grain of the float, far below anything a search or a test can see
        for i in range(len(cards) - 1, 0, -1):
            j = int(random() * (i + 1))
            cards[i], cards[j] = cards[j], cards[i]
        for i, c in zip(members, cards, strict=True):
            z, at = places[i]
            old = zones[z][at]
            if old != c:
                moved[old] = c
                zones[z][at] = c
                card_zone[c] = z
    if groups:
        _walk_places(zones, card_zone, places, groups, possible, rng, moved)
    return moved


def _walk_places(zones: list[list[int]], card_zone: list[int], places: list[tuple[int, int]],
                 groups: list[list[int]], possible: list[frozenset[int]], rng: random.Random,
                 moved: dict[int, int]) -> None:
    """The constrained groups of :func:`_shuffle_places`: a greedy deal, then the swap chain; adds to ``moved``."""
    before = [zones[z][at] for z, at in places]
    now = before[:]
    swaps = SWAPS_PER_CARD
    for members in groups:
        if not _greedy_deal(members, places, now, possible, rng):
            swaps = SWAPS_FROM_REAL
            for i in members:
                now[i] = before[i]
    sizes = [len(g) for g in groups]
    total = sum(sizes)
    randrange = rng.randrange
    one = groups[0] if len(groups) == 1 else None  # the common case: no walk through the groups
    for _ in range(swaps * total):
        k = randrange(total)
        if one is not None:
            members = one
        else:
            g = 0
            while k >= sizes[g]:
                k -= sizes[g]
                g += 1
            members = groups[g]
        i, j = members[k], members[randrange(len(members))]
        if i == j:
            continue
        ci, cj = now[i], now[j]
        zi, zj = places[i][0], places[j][0]
        if zi == zj or ((not possible[ci] or zj in possible[ci]) and (not possible[cj] or zi in possible[cj])):
            now[i], now[j] = cj, ci
    for (z, at), old, c in zip(places, before, now, strict=True):
        if old != c:
            moved[old] = c
            zones[z][at] = c
            card_zone[c] = z


def _greedy_deal(members: list[int], places: list[tuple[int, int]], now: list[int],
                 possible: list[frozenset[int]], rng: random.Random) -> bool:
    """Deal one group's cards onto its places afresh, most constrained cards first, each onto a random free place
    of a zone it may be in; False when that dead-ends (then nothing here is kept). Not exactly uniform (the
    order biases it a little); the swaps that follow smooth that, and it shares nothing with the real deal."""
    free: dict[int, list[int]] = {}
    for i in members:
        free.setdefault(places[i][0], []).append(i)
    cards = sorted(now[i] for i in members)  # the same set in any real placement: the deal never sees the truth
    rng.shuffle(cards)
    cards.sort(key=lambda c: len(possible[c]) or 1 << 30)  # stable: equal constraints stay in random order
    out: list[tuple[int, int]] = []
    for c in cards:
        zones = [z for z in (possible[c] or free) if free.get(z)]
        total = sum(len(free[z]) for z in zones)
        if not total:
            return False
        k = rng.randrange(total)
        for z in zones:
            if k < len(free[z]):
                spots = free[z]
                spots[k], spots[-1] = spots[-1], spots[k]
                out.append((spots.pop(), c))
                break
            k -= len(free[z])
    for i, c in out:
        now[i] = c
    return True


def _holds_cards(ty: Ty | None) -> bool | None:
    """Whether values of ``ty`` are cards or lists of them (True), hold no card (False), or cannot be told (None:
    an untyped value)."""
    while ty is not None and ty.kind in ("list", "set"):
        ty = ty.elem
    if ty is None or ty.kind == "any":
        return None
    return ty.kind == "card"


def _local_kinds(game: Game) -> dict[str, bool | None]:
    """Per local variable name of the ruleset: True when every read of it is card-typed, False when none is,
    None when it is both somewhere (a name used for a card in one procedure and a number in another)."""
    cached: dict[str, bool | None] | None = getattr(game.ruleset, "_local_kinds_cache", None)
    if cached is not None:
        return cached
    out: dict[str, bool | None] = {}
    seen: set[int] = set()
    stack: list[Any] = [game.ruleset.program]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, A.Name) and node.ref is not None and node.ref[0] == "local":
            kind = _holds_cards(node.ty)
            name = node.id
            out[name] = kind if name not in out or out[name] == kind else None
        if is_dataclass(node) and not isinstance(node, type):
            stack.extend(getattr(node, f.name) for f in fields(node) if f.name not in ("span", "ty", "ref"))
        elif isinstance(node, list | tuple):
            stack.extend(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
    game.ruleset._local_kinds_cache = out  # type: ignore[attr-defined]
    return out


def _frame_cards(game: Game) -> tuple[set[int], list[tuple[int, str, str]]]:
    """What the running code holds: the ints it holds that may be cards without being known to (pinned: they
    stay where they are), and the frame entries known to hold cards (remapped to the card now at their place), as
    (frame number, key, how).

    Named locals are told apart by the types the checker gave their reads; loop entries by the type of the
    list they loop over (the compiler's ``loop_elems``); anything else that holds ints is pinned."""
    kinds = _local_kinds(game)
    elems = game.ruleset.compiled.loop_elems
    pinned: set[int] = set()
    remap: list[tuple[int, str, str]] = []  # (frame number, key, how: "value", "loop" or "pairs")
    for k, frame in enumerate(game.state.frames):
        env = frame[2]
        for key, value in env.items():
            if key.startswith("#") and key in elems:
                holds = _holds_cards(elems[key])
                how = "pairs" if _is_pairs(value) else "loop"
            else:
                holds = kinds.get(key) if not key.startswith("#") else None
                how = "value"
            if holds is True:
                remap.append((k, key, how))
            elif holds is None:
                _cards_in(value, pinned)
    return pinned, remap


def _is_pairs(value: Any) -> bool:
    """A `simultaneously` loop entry: ((player or unit, choice), ...) and the position reached."""
    return (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], tuple)
            and all(isinstance(x, tuple) and len(x) == 2 for x in value[0]) and bool(value[0]))


def _remapped(value: Any, moved: dict[int, int]) -> Any:
    if isinstance(value, tuple):
        return tuple(_remapped(v, moved) for v in value)
    if isinstance(value, int) and not isinstance(value, bool):
        return moved.get(value, value)
    return value


def _remap_frames(entries: list[tuple[dict[str, Any], str, str]], moved: dict[int, int]) -> None:
    for env, key, how in entries:
        value = env[key]
        if how == "value":
            env[key] = _remapped(value, moved)
        elif how == "loop":  # (items, position)
            env[key] = (_remapped(value[0], moved), value[1])
        else:  # ((chooser, choice), ...), position: only the choices are cards
            env[key] = (tuple((u, _remapped(v, moved)) for u, v in value[0]), value[1])


def _remap_counters(game: Game, moved: dict[int, int]) -> None:
    """A counter that holds a card names the card at its place."""
    counters = game.state.counters
    for slot in _card_slots(game):
        v = counters[slot]
        if isinstance(v, int) and v in moved:
            counters[slot] = moved[v]


def _card_slots(game: Game) -> list[int]:
    """The counter slots that hold a card (`counter x holds card`), every player's and card's copy included."""
    cached: list[int] | None = getattr(game.ruleset, "_card_slots_cache", None)
    if cached is not None:
        return cached
    prog, lay = game.ruleset.program, game.ruleset.compiled.layout
    slots: list[int] = []
    for name, c in prog.counters.items():
        if c.held is None or c.held.kind != "card":
            continue
        if c.scope == "global":
            slots.append(lay.global_slots[name])
        elif c.scope == "player":
            slots += [lay.player_base + p * lay.player_stride + lay.player_offsets[name]
                      for p in range(lay.max_players)]
        else:
            slots += [lay.card_base + k * lay.card_stride + lay.card_offsets[name]
                      for k in range(len(game.state.card_zone))]
    game.ruleset._card_slots_cache = slots  # type: ignore[attr-defined]
    return slots


def _remap_pending(game: Game, moved: dict[int, int]) -> None:
    """A pending choice among cards names the cards at their places: the card now at a place is the option."""
    s = game.state
    pend = s.pending
    if pend is None or getattr(game.ruleset.compiled.choice_elems[pend[-1]], "kind", None) != "card":
        return

    def remap(options: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(moved.get(o, o) if isinstance(o, int) else o for o in options)

    if pend[0] == "choose":
        _, p, options, var, body_pc, none_pc, fmt_id = pend
        s.pending = ("choose", p, remap(options), var, body_pc, none_pc, fmt_id)
    else:
        _, per, key, next_pc, fmt = pend
        s.pending = ("simul", tuple((q, remap(o)) for q, o in per), key, next_pc, fmt)


def _redraw_commits(world: Game, game: Game, player: int, rng: random.Random) -> None:
    """Other players' commits to a pending simultaneous choice are hidden until all are in: draw them again."""
    s = world.state
    pend = s.pending
    if pend is None or pend[0] != "simul" or not game.state.commits:
        return
    per = pend[1]
    s.commits = {i: (k if per[i][0] == player else rng.randrange(len(per[i][1])))
                 for i, k in game.state.commits.items()}
