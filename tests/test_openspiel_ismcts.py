"""OpenSpiel's own ISMCTSBot plays any Liturgy game through the adapter's ``resample_from_infostate`` (issue 17)."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

from conftest import sized  # noqa: E402
from liturgy.interpreter.interop.openspiel import register  # noqa: E402


def _random_action(state: object, rng: random.Random) -> int:
    if state.is_chance_node():  # type: ignore[attr-defined]
        outcomes = state.chance_outcomes()  # type: ignore[attr-defined]
        return int(outcomes[rng.randrange(len(outcomes))][0])
    actions = state.legal_actions()  # type: ignore[attr-defined]
    return int(actions[rng.randrange(len(actions))])


def test_resampled_states_keep_the_information_state() -> None:
    _, turns = register("rulesets/classic/kuhn_poker.rules")
    game = pyspiel.load_game(turns)
    rng = random.Random(3)
    for _ in range(5):
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(_random_action(state, rng))
        player = state.current_player()
        sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
        hands = set()
        for _ in range(30):
            world = state.resample_from_infostate(player, sampler)
            assert world.information_state_string(player) == state.information_state_string(player)
            hands.add(world.information_state_string(1 - player))
        assert len(hands) == 2  # the other player's card is drawn: either of the two P1 does not hold


def test_openspiel_ismcts_bot_plays_bloodborne() -> None:
    """OpenSpiel's ISMCTSBot (open_spiel.python.algorithms.ismcts), unchanged. Its C++ twin (pyspiel.ISMCTSBot)
    crashes on every Python-implemented game before asking for a resample, OpenSpiel's own python_kuhn_poker
    included, so the Python one is the one that can run here. The bot searches P1's first 12 decisions of
    several options (every one under HYPOTHESIS_PROFILE=thorough: about 18 s of CPU), then the game is played out
    at random to its end."""
    np = pytest.importorskip("numpy")
    from open_spiel.python.algorithms import ismcts, mcts

    _, turns = register("rulesets/bloodborne.rules")
    game = pyspiel.load_game(f"{turns}(players=3)")
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(7)), 2.0, 8,
                           random_state=np.random.RandomState(7), allow_inconsistent_action_sets=True)
    rng = random.Random(7)
    state = game.new_initial_state()
    searched, searches = 0, sized(ci=12, thorough=10**9)
    while not state.is_terminal():
        if (searched < searches and not state.is_chance_node() and state.current_player() == 0
                and len(state.legal_actions()) > 1):
            state.apply_action(bot.step(state))
            searched += 1
        else:
            state.apply_action(_random_action(state, rng))
    assert searched > 5
    assert len(state.returns()) == 3
