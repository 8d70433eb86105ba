"""The ISMCTS agent (issue 17, item 5): it plays every kind of game, and it is fair: what it does depends only on
what its seat has seen, never on the hidden cards themselves."""

from __future__ import annotations

import random

import pytest
from liturgy.interpreter.agents.agents import RandomAgent, make_agent, play_out
from liturgy.interpreter.agents.ismcts import Budget, ISMCTSAgent
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.engine.infosets import Tracker, WorldSampler, sample_world


@pytest.mark.parametrize(("path", "players", "options"), [
    ("rulesets/classic/kuhn_poker.rules", 2, None),
    ("rulesets/classic/leduc_poker.rules", 2, None),
    ("rulesets/classic/goofspiel.rules", 2, None),
    ("rulesets/slay_the_spire.rules", 1, {"mode": "combat"}),
])
def test_it_plays_whole_games(path: str, players: int, options: dict[str, str] | None) -> None:
    rules = load_ruleset(path)
    game = rules.new_game(players, 3, check_invariants=True, options=options)
    agent = ISMCTSAgent(Budget(simulations=4), seed=1)
    play_out(game, [agent, *[RandomAgent(k) for k in range(1, players)]])
    assert game.state.status == "finished", game.error
    assert agent.decisions > 0 and agent.simulations == 4 * agent.decisions


def test_its_choice_depends_only_on_what_its_seat_has_seen() -> None:
    """Two Kuhn games P1 cannot tell apart (P2 holds a different card): the same agent seed chooses the same."""
    rules = load_ruleset("rulesets/classic/kuhn_poker.rules")
    names = None
    compared = 0
    for seed in range(12):
        game = rules.new_game(2, seed)
        names = game.state.tables.card_names
        hand = [z for z, n in enumerate(game.state.tables.zone_names) if n.endswith("hand")]
        other = game.sample_world(0, random.Random(seed))
        if other.state.zones[hand[1]] == game.state.zones[hand[1]]:
            continue
        compared += 1
        for k in range(3):
            a = ISMCTSAgent(Budget(simulations=30), seed=k, reward="score").choose(game, 0)
            b = ISMCTSAgent(Budget(simulations=30), seed=k, reward="score").choose(other, 0)
            assert a == b, (seed, k, names)
    assert compared >= 4


def test_budgets_and_seat_names() -> None:
    assert Budget.parse("ismcts") == (Budget(200), "win")
    assert Budget.parse("ismcts:50:score") == (Budget(50), "score")
    budget, _ = Budget.parse("ismcts:20ms")
    assert budget.millis == 20.0
    for bad in ("ismcts:0", "ismcts:x", "ismcts:5:maybe", "ismcts:-3"):
        with pytest.raises(ValueError, match="ismcts"):
            Budget.parse(bad)
    assert isinstance(make_agent("ismcts:3", 1), ISMCTSAgent)


def test_a_time_budget_stops_the_search() -> None:
    rules = load_ruleset("rulesets/classic/leduc_poker.rules")
    game = rules.new_game(2, 1)
    agent = ISMCTSAgent(Budget(simulations=1_000_000, millis=30.0), seed=2)
    agent.choose(game, game.waiting_for()[0])
    assert 0 < agent.simulations < 1_000_000


# The agent's choices for fixed seeds: a speed-up of the search must choose exactly as before. Re-recorded in
# session 13, when the world sampler started dealing a group of hidden cards that may each lie at any of its
# places with one shuffle (other worlds for the same seed, the same distribution): tests/test_world_distribution.py
# checks the new deal against an exact enumeration of the information set, and benchmarks/ismcts_strength.py
# found the agent as strong as before (docs/performance.md, "Session 13 — search and invariants").
PINNED = {
    ("rulesets/classic/kuhn_poker.rules", 2, 6): [
        1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0
    ],
    ("rulesets/classic/leduc_poker.rules", 2, 4): [
        1, 2, 1, 1, 1, 1, 1, 0, 1, 0, 1, 2, 1, 0, 0, 0, 1, 2, 1, 1, 2, 1
    ],
    ("rulesets/classic/goofspiel.rules", 2, 2): [
        3, 6, 11, 4, 3, 6, 4, 4, 5, 1, 2, 1, 6, 3, 5, 4, 4, 3, 0, 0, 2, 2, 1, 1, 3, 10, 4, 4, 0, 1, 3, 7, 4, 2,
        2, 4, 6, 4, 0, 5, 3, 4, 3, 3, 1, 2, 0, 1
    ],
    # re-recorded after the session-11 merge: the combat rules changed (area attacks, potions) and the Act map
    # joined the display, which is part of what the search keys its nodes by (on the combat rules alone, before
    # the map display, the agents from before and after the speed-up were checked to choose alike); re-recorded in
    # session 13: the combat's rules are unchanged (random games play the same logs), but Act III, the Ascension
    # set and the Act II/III events added hidden cards, so the worlds the search samples differ; and
    # re-recorded at the session-13 merge, which joined those cards with the search's new world sampler, and again
    # when Ascension 3's event cards joined the state (a hidden box at every level: the sampler deals them too);
    # and in session 14, when Act IV's cards and the quick start's start table joined it (each of the two branches
    # alone changed these picks; the combat rules themselves are unchanged)
    # re-recorded in session 16: the ruleset gained the Colorless Rewards deck, the climb events and Infinity's
    # counters (other hidden cards and state to sample worlds from); the s16-sts tree alone, without any
    # speed-up of that session, chooses exactly these
    # re-recorded in session 17: the catch-up rule factored the character choice, Neow, the merchant and the boss
    # relic draft into procedures (take_hero, neow_for, shop_for, boss_relics_for) and added its options; random
    # games play the same logs and decisions as before, but the search's picks differ (bisected to that commit:
    # `absent_while` and its flag alone leave these picks as they were)
    ("rulesets/slay_the_spire.rules", 1, 1): [
        1, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 2, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0
    ],
}


@pytest.mark.parametrize("key", list(PINNED), ids=lambda k: k[0].split("/")[-1])
def test_the_same_seed_makes_the_same_choices_as_before_the_speed_up(key: tuple[str, int, int]) -> None:
    path, players, seeds = key
    rules = load_ruleset(path)
    options = {"mode": "combat"} if "slay" in path else None
    picks = []
    for seed in range(seeds):
        game = rules.new_game(players, seed, options=options)
        agent = ISMCTSAgent(Budget(simulations=40), seed=seed, reward="score" if seed % 2 else "win")
        for _ in range(30):
            if game.finished:
                break
            p = game.waiting_for()[0]
            picks.append(agent.choose(game, p))
            game.apply(picks[-1], p)
    assert picks == PINNED[key]


@pytest.mark.parametrize(("path", "players", "options"), [
    ("rulesets/classic/goofspiel.rules", 2, None),
    ("rulesets/classic/leduc_poker.rules", 2, None),
    ("rulesets/slay_the_spire.rules", 1, {"mode": "combat"}),
    ("rulesets/bloodborne.rules", 3, None),
])
def test_a_world_sampler_draws_the_worlds_sample_world_draws(path: str, players: int,
                                                              options: dict[str, str] | None) -> None:
    """WorldSampler works the hidden places out once; its worlds must be sample_world's, draw for draw."""
    rules = load_ruleset(path)
    game = rules.new_game(players, 4, options=options)
    pick = random.Random(4)
    for _ in range(12):
        if game.finished:
            break
        p = game.waiting_for()[0]
        know = Tracker(p).follow(game)
        sampler = WorldSampler(game, p, know)
        a, b = random.Random(9), random.Random(9)
        for _ in range(3):
            w1, w2 = sample_world(game, p, a, know), sampler(b)
            assert w1.to_json() == w2.to_json()
            assert w1.state.commits == w2.state.commits and w1.state.rng == w2.state.rng
        game.apply(pick.randrange(game.option_count(p)), p)


@pytest.mark.parametrize(("path", "players", "options"), [
    ("rulesets/classic/goofspiel.rules", 2, None),
    ("rulesets/classic/kuhn_poker.rules", 2, None),
    ("rulesets/classic/crazy_eights.rules", 3, None),
    ("rulesets/slay_the_spire.rules", 1, {"mode": "combat"}),
])
def test_next_choice_is_the_decisions_first_player_and_labels(path: str, players: int,
                                                                options: dict[str, str] | None) -> None:
    rules = load_ruleset(path)
    for seed in range(3):
        game = rules.new_game(players, seed, options=options)
        pick = random.Random(seed)
        while not game.finished:
            d = game.decision
            assert d is not None
            assert game.next_choice() == (d.players[0], d.options[d.players[0]])
            p = d.players[0]
            game.apply(pick.randrange(len(d.options[p])), p)
        assert game.next_choice() is None
