"""Every player's score in one generated call (interpreter/codegen/scoregen.py): the same scores as the score's
expression called once per player with its environment, which the engine calls when there is no such function."""
import random

import pytest
from conftest import ROOT, load_ruleset
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset

# shipped games whose score is written in one call (a let, an aggregate over the seats, a player's field)
WRITTEN = ["classic/kuhn_poker", "classic/tic_tac_toe", "classic/liars_dice", "classic/leduc_poker"]


@pytest.mark.parametrize("name", WRITTEN)
def test_the_one_call_scores_what_the_per_player_body_scores(name: str) -> None:
    rules = load_ruleset(str(ROOT / "rulesets" / f"{name}.rules"))
    comp = rules.compiled
    assert comp.score_all is not None and comp.score_parts is not None
    body, var = comp.score_parts
    for seed in range(6):
        game = rules.new_game(2, seed)
        rng = random.Random(seed)
        while True:  # the scores of every decision point and of the end, not only the end's
            s = game.state
            players = s.tables.players
            assert comp.score_all(s, players) == [body(s, {var: p}) for p in players]
            if s.status != "running":
                break
            for p in game.waiting_for():
                game.apply(rng.randrange(game.option_count(p)), p)
                if game.state.status != "running":
                    break
        assert game.state.result is not None
        assert game.state.result["scores"] == [body(game.state, {var: p}) for p in game.state.tables.players]


def test_a_score_that_reads_the_environment_keeps_the_call_per_player_and_closures_have_none() -> None:
    # goofspiel's score reads a `fn` the generator calls with the environment: no one-call function
    path = str(ROOT / "rulesets" / "classic" / "goofspiel.rules")
    assert load_ruleset(path).compiled.score_all is None
    program, _ = check_file(str(ROOT / "rulesets" / "classic" / "kuhn_poker.rules"))
    assert program is not None
    closures = Ruleset(program, codegen=False, stmtgen=False)
    assert closures.compiled.score_all is None
    kuhn = load_ruleset(str(ROOT / "rulesets" / "classic" / "kuhn_poker.rules"))
    ref, ours = closures.new_game(2, 3), kuhn.new_game(2, 3)
    ref.random_playout(random.Random(3))
    ours.random_playout(random.Random(3))
    assert ours.state.result == ref.state.result and ours.digest() == ref.digest()
