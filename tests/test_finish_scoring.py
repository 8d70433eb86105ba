"""A game's result (Game._advance): its fast path (scores with the player bound directly, a sole best score found by
``index``) gives what the ruleset's ``score`` function and a full comparison of every player give: one winner, a
tie between some players, a tie between all, and a ruleset with no `score` at all."""

from __future__ import annotations

from pathlib import Path

import pytest
from liturgy.interpreter.engine import Game, load_ruleset

RULES = """
game "Coins" {
  players 2..4
  seats clockwise
  step_limit 100
}

counter per player coins 0..5 = 0

round {
  step take "Take coins" {
    for p in players {
      choose n from range(3) by p prompt "How many coins?" { p.coins += n }
    }
    end game
  }
}
"""


def _played(tmp_path: Path, text: str, picks: list[int]) -> Game:
    path = tmp_path / "coins.rules"
    path.write_text(text)
    g = load_ruleset(str(path)).new_game(len(picks), 3)
    for i in picks:
        d = g.decision
        assert d is not None
        g.apply(i, d.players[0])
    assert g.finished
    return g


@pytest.mark.parametrize(("picks", "winners"), [
    ([2, 1, 0], [0]),  # one best score
    ([0, 2, 1], [1]),
    ([2, 0, 2], [0, 2]),  # a tie between some players: both win
    ([1, 1, 1], [0, 1, 2]),  # everyone tied
])
def test_the_winners_are_every_player_with_the_best_score(tmp_path: Path, picks: list[int], winners: list[int]) -> None:
    g = _played(tmp_path, RULES + "score(p) = p.coins\n", picks)
    assert g.result is not None
    assert g.result["scores"] == picks
    assert g.result["winners"] == winners
    # the ruleset's own score function (what other callers use) agrees with the engine's direct call
    score = g.ruleset.compiled.score
    assert score is not None
    assert [score(g.state, {"player": p}) for p in range(len(picks))] == picks
    # one fresh empty tiebreak row per player, not one list shared
    rows = g.result["tiebreaks"]
    assert rows == [[]] * len(picks) and len({id(r) for r in rows}) == len(picks)


def test_a_ruleset_without_a_score_makes_everyone_a_winner(tmp_path: Path) -> None:
    g = _played(tmp_path, RULES, [2, 0])
    assert g.result is not None
    assert g.result["scores"] == [0, 0] and g.result["winners"] == [0, 1]
