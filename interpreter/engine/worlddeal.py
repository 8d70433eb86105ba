"""Secrets without cards in a sampled world: hidden grid cells and the cards of zones whose size is hidden.

:class:`~liturgy.interpreter.engine.infosets.WorldSampler` deals hidden cards afresh onto hidden places and
hidden counter values afresh among their slots. Two more kinds of secret need their own deal, kept here so the
card deal stays as it was:

- **Grid cells** (`grid … hidden`, `visible to owner`, `visible to GROUP`). A cell's secret often goes with
  the same cell of another grid: Dark Hex's chain marks (`joined`, hidden) belong to the stones of `board`
  (`visible to owner`), and its `found` marks to the stones they found. So the unit dealt is a *position*: the
  values every secret grid of one size holds there, moved together. Two positions trade their values only when
  the player sees the same at both (the same value of every public grid of that size, the same value of every
  cell it may see of the secret ones): the player's view is then unchanged, and a public mark beside a cell
  (a revealed square of a minefield) keeps the secret that goes with it.
- **Zones whose size is hidden** (`size hidden`). The player does not know how many cards each of them holds, so
  the cards lying in one declaration's zones that it may not see (every player's hand, `size hidden`) are dealt
  afresh among those zones, each card only to a zone the player's knowledge allows. Cards the running code holds
  or another player's pending options name, and cards the player sees, stay where they are.

Limits (besides those of :mod:`~liturgy.interpreter.engine.infosets`): a secret the rules keep in a counter
about a cell ("the last cell played") does not move with the cell; the rules' own consistency between a
position and its neighbours (a chain mark that says the chain reaches an edge) is not rebuilt, so a sampled
world can hold a board the rules would not have produced. Such a world still shows the player exactly what the
real one shows; it knows less than the player, never more.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from liturgy.interpreter.engine.game import Game

# a value the player may not see, in the key of what it sees at a position (never a cell value itself)
_UNSEEN = object()


def cell_groups(game: Game, player: int) -> list[tuple[list[int], list[list[int]]]]:
    """For each grid size with secret grids: the counter base of each secret grid of that size, and the groups of
    positions (offsets inside a grid) where ``player`` sees the same and may not see everything, with more than
    one position each. Worked out from the real game once per sampler."""
    from liturgy.interpreter.engine.views import _cell_seer

    prog, lay, counters = game.ruleset.program, game.ruleset.compiled.layout, game.state.counters
    shapes: dict[tuple[int, int], tuple[list[int], list[int], list[Any]]] = {}
    for name, g in lay.grids.items():
        secret, public, seers = shapes.setdefault((g.width, g.height), ([], [], []))
        decl = prog.grids[name]
        if decl.seen_by:
            secret.append(g.base)
            seers.append(_cell_seer(game.ruleset, decl, game.state, player))
        else:
            public.append(g.base)
    out: list[tuple[list[int], list[list[int]]]] = []
    for (width, height), (secret, public, seers) in sorted(shapes.items()):
        if not secret:
            continue
        by_key: dict[tuple[Any, ...], list[int]] = {}
        for at in range(width * height):
            seen = tuple(counters[b + at] if sees(counters[b + at]) else _UNSEEN
                         for b, sees in zip(secret, seers, strict=True))
            if _UNSEEN not in seen:
                continue  # the player sees every secret value here: nothing to deal
            key = (*seen, *(repr(counters[b + at]) for b in public))
            by_key.setdefault(key, []).append(at)
        groups = [g for g in by_key.values() if len(g) > 1]
        if groups:
            out.append((secret, groups))
    return out


def deal_cells(counters: list[Any], groups: list[tuple[list[int], list[list[int]]]], rng: random.Random) -> bool:
    """Deal each group's positions afresh (every secret grid's value at a position moves with it); whether any
    value changed. Draws nothing when no group holds two different positions."""
    changed = False
    for bases, positions in groups:
        for members in positions:
            values = [tuple(counters[b + at] for b in bases) for at in members]
            if len(set(map(repr, values))) < 2:
                continue
            rng.shuffle(values)
            for at, held in zip(members, values, strict=True):
                for b, v in zip(bases, held, strict=True):
                    changed = changed or counters[b + at] != v
                    counters[b + at] = v
    return changed


def size_groups(game: Game, player: int, visible: list[bool], pinned: set[int]) -> list[tuple[list[int], list[int]]]:
    """The zones of one `size hidden` declaration that ``player`` may not see (two or more), each with the cards
    there that may move to another of them (not seen by the player, not held by the running code or named by
    another player's pending options: ``pinned``)."""
    prog, s = game.ruleset.program, game.state
    sizeless = {name for name, z in prog.zones.items() if z.size_hidden}
    if not sizeless:
        return []
    t = s.tables
    held = set(pinned)
    pend = s.pending
    if pend is not None:  # a pending choice's options name cards where they lie
        for options in ([pend[2]] if pend[0] == "choose" else [o for _, o in pend[1]]):
            held.update(o for o in options if isinstance(o, int) and not isinstance(o, bool))
    by_decl: dict[str, list[int]] = {}
    for zi, name in enumerate(t.zone_names):
        decl = name.split(".", 1)[-1]
        if decl in sizeless:
            mask = t.zone_vis_mask[zi]
            if not ((t.zone_group[zi](s) if mask < 0 else mask) >> player) & 1:
                by_decl.setdefault(decl, []).append(zi)
    out: list[tuple[list[int], list[int]]] = []
    for zones in by_decl.values():
        cards = [c for z in zones for c in s.zones[z] if not visible[c] and c not in held]
        if len(zones) > 1 and cards:
            out.append((zones, cards))
    return out


def deal_sizes(zones: list[list[int]], card_zone: list[int], groups: list[tuple[list[int], list[int]]],
               possible: list[frozenset[int]], rng: random.Random) -> bool:
    """Deal each group's movable cards afresh among its zones, each to a random place of a zone its knowledge
    allows (``possible``: an empty set is no constraint); whether a card changed zone."""
    changed = False
    for members, cards in groups:
        for c in cards:
            zones[card_zone[c]].remove(c)
        order = cards[:]
        rng.shuffle(order)
        for c in order:
            allowed = [z for z in members if not possible[c] or z in possible[c]] or [card_zone[c]]
            z = allowed[rng.randrange(len(allowed))]
            zones[z].insert(rng.randrange(len(zones[z]) + 1), c)
            changed = changed or z != card_zone[c]
            card_zone[c] = z
    return changed
