"""Information sets: worlds sampled for a player look the same to it, vary what it cannot see, and play on."""

from __future__ import annotations

import random

import pytest
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.engine.infosets import Tracker
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
