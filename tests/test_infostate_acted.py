"""Regression (issue 33): OpenSpiel's information state held `acted`, the seat behind every decision so far.

In a game where a player may act several times unseen, that sequence told the opponent how many attempts it
made, which the opponent never observes. The information state now holds what the player observed: its view
(with its log) and, for each of its own decisions, what it saw then and what it chose. PettingZoo's
observation is the player's view alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from liturgy.interpreter.interop.openspiel import register  # noqa: E402

# P1 may try up to three times, unseen (nothing is logged, nothing public changes); then P2 picks a number.
SECRET_TRIES = """game "Secret Tries" { players 2..2  step_limit 100 }
counter per player tries
counter picked
round {
  step sneak "Sneak" {
    repeat while players[0].tries < 3 {
      choose again from [true, false] by players[0] prompt "Try again?" {
        if not again { break }
      }
    }
  }
  step pick "Pick" {
    choose n from [1, 2] by players[1] prompt "Pick a number" { picked = n }
    end game
  }
}
score(p) = picked
"""


def _state(game: Any, actions: list[int]) -> Any:
    state = game.new_initial_state()
    for a in actions:
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        state.apply_action(a)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return state


def test_the_opponent_does_not_learn_how_often_a_player_acted_unseen(tmp_path: Path) -> None:
    path = tmp_path / "secret_tries.rules"
    path.write_text(SECRET_TRIES, encoding="utf-8")
    short, _ = register(str(path), "liturgy_t_secret_tries")
    game = pyspiel.load_game(short)
    once = _state(game, [1])  # P1: "no" at once
    thrice = _state(game, [0, 0, 1])  # P1: "yes", "yes", then "no"
    assert once.current_player() == thrice.current_player() == 1  # P2 picks in both
    # P2 observed the same in both: its information states are equal (with `acted` they were not)
    assert once.information_state_string(1) == thrice.information_state_string(1)
    assert "acted" not in once.information_state_string(1)
    # P1 remembers its own decisions: its information states differ
    assert once.information_state_string(0) != thrice.information_state_string(0)
    # the observation (no history) was equal before and stays equal
    assert once.observation_string(1) == thrice.observation_string(1)


def test_a_player_remembers_its_own_moves_and_what_it_saw(tmp_path: Path) -> None:
    """Perfect recall holds: P1's state after "yes, no" differs from after "no" even where views agree, and two
    histories that differ only in P2's last pick differ for P2."""
    path = tmp_path / "secret_tries.rules"
    path.write_text(SECRET_TRIES, encoding="utf-8")
    short, _ = register(str(path), "liturgy_t_secret_tries_recall")
    game = pyspiel.load_game(short)
    a, b = _state(game, [1, 0]), _state(game, [1, 1])
    assert a.is_terminal() and b.is_terminal()
    assert a.information_state_string(1) != b.information_state_string(1)
    moves = json.loads(a.information_state_string(0))["my_moves"]
    assert [action for _, action in moves] == [1]  # one own decision: what P1 saw then, and "no"


def test_pettingzoo_observation_is_the_players_view_only(tmp_path: Path) -> None:
    pytest.importorskip("pettingzoo")
    from liturgy.interpreter.engine import load_ruleset
    from liturgy.interpreter.interop.common import observation_text

    path = tmp_path / "secret_tries.rules"
    path.write_text(SECRET_TRIES, encoding="utf-8")
    rules = load_ruleset(str(path))
    texts = []
    for tries in ([1], [0, 0, 1]):
        g = rules.new_game(2, seed=1)
        for choice in tries:
            g.apply(choice, 0)
        texts.append(observation_text(g, 1, with_log=True))
    assert texts[0] == texts[1]
