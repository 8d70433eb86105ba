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


def test_the_pettingzoo_environment_observes_the_same_after_unseen_tries(tmp_path: Path) -> None:
    """The environment's own ``observe`` (the vector and the action mask an agent learns from, not only the
    view's text) is equal for P2 whether P1 tried once or three times unseen."""
    pytest.importorskip("pettingzoo")
    import numpy as np
    from liturgy.interpreter.interop.pettingzoo import LiturgyEnv

    path = tmp_path / "secret_tries.rules"
    path.write_text(SECRET_TRIES, encoding="utf-8")
    seen = []
    for tries in ([1], [0, 0, 1]):
        env = LiturgyEnv(str(path), 2)
        env.reset(seed=1)
        for choice in tries:
            assert env.agent_selection == "player_0"
            env.step(choice)
        assert env.agent_selection == "player_1"
        seen.append(env.observe("player_1"))
    assert (seen[0]["observation"] == seen[1]["observation"]).all()
    assert (seen[0]["action_mask"] == seen[1]["action_mask"]).all() and seen[0]["action_mask"].sum() == 2
    assert isinstance(seen[0]["observation"], np.ndarray)


def test_the_information_state_tensor_holds_what_the_string_holds(tmp_path: Path) -> None:
    """The tensor (issue 33 item 4; the adapter had none) is a function of the string: P2's tensors agree where
    its strings agree (the unseen tries), P1's differ where its strings do, and the observation tensor is the
    view's encoding alone."""
    import numpy as np

    path = tmp_path / "secret_tries.rules"
    path.write_text(SECRET_TRIES, encoding="utf-8")
    short, _ = register(str(path), "liturgy_t_secret_tries_tensor")
    game = pyspiel.load_game(short)
    once, thrice = _state(game, [1]), _state(game, [0, 0, 1])
    size = game.information_state_tensor_size()
    assert size == game.observation_tensor_size() + 256 + 2
    t1, t3 = (np.array(s.information_state_tensor(1)) for s in (once, thrice))
    assert t1.shape == (size,) and (t1 == t3).all()
    assert not (np.array(once.information_state_tensor(0)) == np.array(thrice.information_state_tensor(0))).all()
    assert np.array(once.information_state_tensor(0))[-1] == 1 and np.array(thrice.information_state_tensor(0))[-1] == 3
    assert (np.array(once.observation_tensor(1)) == np.array(thrice.observation_tensor(1))).all()


def test_dark_hex_tensors_partition_as_the_strings_do() -> None:
    """On random Dark Hex games (secret stones, refused moves), two histories give equal information-state
    tensors exactly when they give equal strings, for each player, at every step."""
    import random

    import numpy as np

    root = Path(__file__).resolve().parent.parent
    short, _ = register(str(root / "rulesets" / "classic" / "dark_hex.rules"), "liturgy_t_dark_hex_tensor")
    game = pyspiel.load_game(short)
    rng = random.Random(5)
    by_string: dict[tuple[int, str], bytes] = {}
    by_tensor: dict[tuple[int, bytes], str] = {}
    for _ in range(12):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.chance_outcomes()[0][0])
                continue
            for p in range(2):
                text = state.information_state_string(p)
                tensor = np.array(state.information_state_tensor(p), dtype=np.float32).tobytes()
                assert by_string.setdefault((p, text), tensor) == tensor
                assert by_tensor.setdefault((p, tensor), text) == text
            state.apply_action(rng.choice(state.legal_actions()))
    assert len(by_string) > 100
