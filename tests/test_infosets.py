"""Information sets: worlds sampled for a player look the same to it, vary what it cannot see, and play on."""

from __future__ import annotations

import random

import pytest
from liturgy.interpreter.engine import Game, infosets, load_ruleset
from liturgy.interpreter.engine.infosets import Knowledge, Tracker, start_zones
from liturgy.interpreter.runtime.moves import visible_cards
from liturgy.interpreter.tools.noninterference import observation

CASES = [
    ("rulesets/classic/kuhn_poker.rules", 2, None),
    ("rulesets/classic/leduc_poker.rules", 2, None),
    ("rulesets/bloodborne.rules", 3, None),
    ("rulesets/classic/crazy_eights.rules", 3, None),
    ("rulesets/slay_the_spire.rules", 1, {"mode": "combat"}),
]


@pytest.mark.parametrize(("path", "players", "options"), CASES)
def test_sampled_worlds_look_the_same_and_play_on(path: str, players: int, options: dict[str, str] | None) -> None:
    rules = load_ruleset(path)
    rng = random.Random(5)
    samples = 0
    for seed in range(2):
        game = rules.new_game(players, seed, options=options)
        trackers = [Tracker(p) for p in range(players)]
        steps = 0
        while not game.finished and steps < 40:
            steps += 1
            for p in game.waiting_for():
                world = game.sample_world(p, rng, trackers[p].follow(game))
                samples += 1
                assert observation(world, p) == observation(game, p)
                world.random_playout(rng)
                assert world.state.status == "finished", world.error
                game.apply(rng.randrange(game.option_count(p)), p)
                if game.finished:
                    break
    assert samples > 0


def test_kuhn_opponent_card_is_drawn_from_what_p1_cannot_see() -> None:
    rules = load_ruleset("rulesets/classic/kuhn_poker.rules")
    game = rules.new_game(2, 3)
    names = game.state.tables.card_names
    hand = [z for z, name in enumerate(game.state.tables.zone_names) if name.endswith("hand")]
    mine = game.state.zones[hand[0]][0]
    theirs = set()
    rng = random.Random(1)
    for _ in range(60):
        world = game.sample_world(0, rng)
        assert world.state.zones[hand[0]] == [mine]  # P1's own card is known
        theirs.add(names[world.state.zones[hand[1]][0]])
    assert theirs == {names[c] for c in range(3) if c != mine}  # either other card, never P1's
    assert game.state.zones[hand[0]] == [mine]  # the real game is untouched


def test_a_card_followed_into_a_hidden_zone_stays_in_that_zone() -> None:
    """Leduc: the public card is dealt face up later; before that, P2's card may be any unseen card, and the
    cards P1 saw (its own) never move."""
    rules = load_ruleset("rulesets/classic/leduc_poker.rules")
    game = rules.new_game(2, 11)
    tracker = Tracker(0)
    know = tracker.follow(game)
    seen = [c for c, zones in enumerate(know.zones) if len(zones) == 1 and game.state.card_zone[c] in zones]
    rng = random.Random(2)
    for _ in range(20):
        world = game.sample_world(0, rng, know)
        for c in seen:
            if game.state.card_zone[c] in know.zones[c] and len(know.zones[c]) == 1:
                assert world.state.card_zone[c] == game.state.card_zone[c]


def _observe_every_card(know: Knowledge, game: Game, before: list[int], was_visible: list[bool]) -> None:
    """Knowledge.observe as it was written before it looked only at the cards named, moved or newly seen:
    every card, every observation (the reference the faster one must equal)."""
    s, p = game.state, know.player
    vis = visible_cards(s, p)
    told = infosets._told(game, p, know._log_done)
    zones = know.zones
    flows: set[tuple[int, int]] = set()
    for c, z in enumerate(s.card_zone):
        if vis[c] or c in told or (was_visible[c] and z != before[c]):
            zones[c] = frozenset((z,))
        elif z != before[c]:
            flows.add((before[c], z))
    # the widening by unseen moves is the same step in both (what differs is which cards are looked at)
    infosets.spread_unseen_moves(zones, vis, flows)


@pytest.mark.parametrize(("path", "players", "options"), [
    ("rulesets/classic/kuhn_poker.rules", 2, None), ("rulesets/classic/leduc_poker.rules", 2, None),
    ("rulesets/classic/crazy_eights.rules", 3, None), ("rulesets/bloodborne.rules", 3, None),
    ("rulesets/fury_of_dracula.rules", 2, {"length": "skirmish"})])
def test_knowledge_looks_only_at_what_can_change_and_knows_what_looking_at_every_card_knows(
        path: str, players: int, options: dict[str, str] | None) -> None:
    """Each player's knowledge, observed after every decision of random games, equals what the observation that
    looks at every card every time knows (that one is followed beside it, from the same start); the poker games
    show cards where they lie (a showdown), the others move them into sight."""
    rules = load_ruleset(path)
    rng = random.Random(3)
    steps, seed = 0, 0
    while seed < 4 or steps <= 20:  # four games at least, more of the short ones (a poker hand)
        game = rules.new_game(players, seed, options=options)
        start = start_zones(rules, players, game.options)
        fast = [Knowledge(p, start) for p in range(players)]
        slow = [Knowledge(p, start) for p in range(players)]
        for played in range(41):  # at most 40 decisions of a long game
            for f, k in zip(fast, slow, strict=True):
                _observe_every_card(k, game, k._where, k._visible)
                k._log_done, k._where = len(game.state.log), game.state.card_zone[:]
                k._visible = visible_cards(game.state, k.player)
                f.observe(game)
                assert f.zones == k.zones
            if game.finished or played == 40:
                break
            p = game.waiting_for()[0]
            game.apply(rng.randrange(game.option_count(p)), p)
            steps += 1
        seed += 1
