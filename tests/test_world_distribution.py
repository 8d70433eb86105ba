"""The worlds a WorldSampler draws, against an exact enumeration of the player's information set.

The sampler deals each group of hidden cards that may lie anywhere among its places with one shuffle (the
"free" groups). These tests enumerate, independently of the sampler's grouping, every placement of the hidden
cards the player cannot tell apart from the real one (each hidden card on a hidden place of a zone its
knowledge allows, of the same kind and back as the card there), and check that (1) every sampled world is one
of them and (2) the sampled worlds are spread uniformly over them (a chi-square statistic far below what a
sampler that favours some placements would give; the seeds are fixed, so the test cannot flake).
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.engine.game import Game
from liturgy.interpreter.engine.infosets import Knowledge, Tracker, WorldSampler, _frame_cards
from liturgy.interpreter.runtime.moves import visible_cards

World = tuple[tuple[int, ...], ...]


def information_set(game: Game, player: int, know: Knowledge) -> set[World]:
    """Every zone layout ``player`` cannot tell apart from ``game``'s, by brute force over the hidden places."""
    s = game.state
    t = s.tables
    vis = visible_cards(s, player)
    held, _ = _frame_cards(game)
    kinds = game.ruleset.program.cards
    look = [(kinds[t.card_def[c]].kind, t.card_backs[c] if t.card_backs else "") for c in range(len(s.card_zone))]
    places = [(zi, at) for zi, cards in enumerate(s.zones) for at, c in enumerate(cards)
              if not vis[c] and c not in held]
    hidden = [s.zones[zi][at] for zi, at in places]
    out: set[World] = set()
    for perm in itertools.permutations(hidden):
        ok = all(look[c] == look[s.zones[zi][at]] and (not know.zones[c] or zi in know.zones[c])
                 for c, (zi, at) in zip(perm, places, strict=True))
        if ok:
            zones = [list(z) for z in s.zones]
            for c, (zi, at) in zip(perm, places, strict=True):
                zones[zi][at] = c
            out.add(tuple(tuple(z) for z in zones))
    return out


def check_uniform(counts: Counter[World], worlds: set[World], draws: int) -> None:
    """Every drawn world is in ``worlds``, each of them is drawn, and the counts pass a chi-square test at
    about six standard deviations (a sampler off by a few per cent on one world fails it at these sizes)."""
    assert set(counts) <= worlds, "a sampled world the player could tell apart from the real one"
    assert set(counts) == worlds, "a world of the information set is never drawn"
    k = len(worlds)
    expected = draws / k
    chi2 = sum((counts[w] - expected) ** 2 / expected for w in worlds)
    assert chi2 < (k - 1) + 6 * math.sqrt(2 * (k - 1)), (chi2, k)


def layout(game: Game) -> World:
    return tuple(tuple(z) for z in game.state.zones)


@pytest.mark.parametrize("moves", [[], [1], [0]])
@pytest.mark.parametrize("seed", [0, 3])
def test_kuhn_worlds_are_uniform_over_the_information_set(seed: int, moves: list[int]) -> None:
    """Kuhn poker: the player to move sees its own card; the other two trade places with equal chance."""
    rules = load_ruleset("rulesets/classic/kuhn_poker.rules")
    game = rules.new_game(2, seed)
    for m in moves:
        game.apply(m, game.waiting_for()[0])
    p = game.waiting_for()[0]
    know = Tracker(p).follow(game)
    worlds = information_set(game, p, know)
    assert len(worlds) == 2  # the opponent holds either card the player does not
    sampler = WorldSampler(game, p, know)
    assert sampler.free and not sampler.groups  # the one-shuffle path, not the swap walk
    rng = random.Random(seed)
    draws = 4000
    counts = Counter(layout(sampler(rng)) for _ in range(draws))
    check_uniform(counts, worlds, draws)
    assert layout(game) in counts  # the real deal is one of them, not excluded


def test_leduc_worlds_are_uniform_over_120_placements() -> None:
    """Leduc poker before the public card: the opponent's card and the four-card deck's order, 5! placements."""
    rules = load_ruleset("rulesets/classic/leduc_poker.rules")
    game = rules.new_game(2, 11)
    p = game.waiting_for()[0]
    know = Tracker(p).follow(game)
    worlds = information_set(game, p, know)
    assert len(worlds) == 120
    sampler = WorldSampler(game, p, know)
    rng = random.Random(7)
    draws = 24000
    counts = Counter(layout(sampler(rng)) for _ in range(draws))
    check_uniform(counts, worlds, draws)


def test_a_biased_sampler_fails_the_check() -> None:
    """The check has teeth: a sampler that keeps the real deal a little more often than it should is caught."""
    rules = load_ruleset("rulesets/classic/kuhn_poker.rules")
    game = rules.new_game(2, 0)
    know = Tracker(0).follow(game)
    worlds = information_set(game, 0, know)
    sampler = WorldSampler(game, 0, know)
    rng = random.Random(1)
    draws = 4000
    counts = Counter(layout(game) if rng.random() < 0.1 else layout(sampler(rng)) for _ in range(draws))
    with pytest.raises(AssertionError):
        check_uniform(counts, worlds, draws)
