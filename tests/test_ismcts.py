"""The ISMCTS agent (issue 17, item 5): it plays every kind of game, and it is fair: what it does depends only on
what its seat has seen, never on the hidden cards themselves."""

from __future__ import annotations

import random

import pytest
from liturgy.interpreter.agents.agents import RandomAgent, make_agent, play_out
from liturgy.interpreter.agents.ismcts import Budget, ISMCTSAgent
from liturgy.interpreter.engine import load_ruleset


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
