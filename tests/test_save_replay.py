"""Loading a save replays its decisions (interpreter/engine/saves.py): the load's own replay loop (``_replay``) and
its comparison (``_identical``) must give exactly what ``replay_decisions`` and the field-by-field comparison give,
accepting and refusing the same saves with the same messages; and a checked load keeps checking every step.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from typing import Any

import pytest
from duel import CARDS, RULES
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset, replay_decisions
from liturgy.interpreter.engine.saves import CorruptSave, _replay


@pytest.fixture
def duel(write_ruleset: Callable[..., str]) -> Ruleset:
    return load_ruleset(write_ruleset(RULES, {"cards.yaml": CARDS}))


def _state(game: Game) -> dict[str, Any]:
    data = game.to_json()
    data["decisions"] = [list(d) for d in game.state.decisions]
    return data


def _played(rules: Ruleset, players: int, seed: int, reverse: bool) -> list[tuple[int, int]]:
    """A whole random game's decisions; with ``reverse``, each simultaneous round sent in reverse seat order."""
    game = rules.new_game(players, seed)
    rng = random.Random(seed)
    while not game.finished:
        waiting = list(game.waiting_for())
        for p in reversed(waiting) if reverse else waiting:
            game.apply(rng.randrange(game.option_count(p)), p)
    return list(game.state.decisions)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("players", [2, 3])
def test_the_loads_replay_is_replay_decisions_at_every_prefix(duel: Ruleset, players: int, reverse: bool) -> None:
    """Every prefix of a game (so saves made mid-round, with some players committed) and rounds sent in any order:
    the same state as ``replay_decisions``, commits included."""
    decisions = _played(duel, players, 5, reverse)
    for k in range(len(decisions) + 1):
        fast = duel.new_game(players, 5)
        _replay(fast, decisions[:k])
        slow = replay_decisions(duel.new_game(players, 5), decisions[:k])
        assert _state(fast) == _state(slow), k
        assert fast.state.commits == slow.state.commits


def _error(replay: Callable[[Game, list[tuple[int, int]]], object], game: Game,
           decisions: list[tuple[int, int]]) -> tuple[str, dict[str, Any]]:
    with pytest.raises(ValueError) as err:
        replay(game, decisions)
    return str(err.value), _state(game)


@pytest.mark.parametrize("where", ["out of range", "chose twice", "not asked", "after the end"])
def test_an_irregular_decision_fails_as_replay_decisions_fails(duel: Ruleset, where: str) -> None:
    """Each irregular decision, even in the middle of a simultaneous round: the same error from the same state."""
    decisions = _played(duel, 2, 7, False)
    if where == "out of range":
        bad = decisions[:3] + [(decisions[3][0], 99)]
    elif where == "chose twice":
        bad = decisions[:3] + [decisions[2]]
    elif where == "not asked":  # a third player in a two-player game's simultaneous round
        bad = decisions[:2] + [(2, 0)]
    else:
        bad = decisions + [(0, 0)]
    fast = _error(_replay, duel.new_game(2, 7), bad)
    slow = _error(replay_decisions, duel.new_game(2, 7), bad)
    assert fast == slow


def test_a_choose_for_the_wrong_player_fails_as_replay_decisions_fails(write_ruleset: Callable[..., str]) -> None:
    rules = load_ruleset(write_ruleset(JUGGLE.replace("players 1..1", "players 2..2")))
    bad = [(1, 0)]  # `by first` asks P1
    assert _error(_replay, rules.new_game(2, 0), bad) == _error(replay_decisions, rules.new_game(2, 0), bad)


def test_a_genuine_save_of_every_length_loads_and_an_edited_one_names_its_field(duel: Ruleset) -> None:
    decisions = _played(duel, 3, 2, True)
    for k in range(len(decisions) + 1):
        data = json.loads(json.dumps(replay_decisions(duel.new_game(3, 2), decisions[:k]).to_json()))
        assert duel.load_game(data).digest() == replay_decisions(duel.new_game(3, 2), decisions[:k]).digest()
    data["steps"] = float(data["steps"])  # equal under ==, not the same JSON
    with pytest.raises(CorruptSave, match="its `steps`"):
        duel.load_game(data)
    data["steps"] = int(data["steps"])
    data["log"][-1][-1] = json.loads(json.dumps(data["log"][-1][-1]).replace("1", "true", 1))
    with pytest.raises(CorruptSave, match="its `log`"):
        duel.load_game(data)


def test_a_save_whose_keys_are_in_another_order_still_loads(duel: Ruleset) -> None:
    """The first comparison reads JSON text in the game's key order; a save written with other key orders (its
    `result` sorted) differs there, and the canonical comparison accepts it."""
    game = _played(duel, 2, 3, False)
    done = replay_decisions(duel.new_game(2, 3), game)
    data = json.loads(json.dumps(done.to_json()))
    data["result"] = dict(sorted(data["result"].items(), reverse=True))
    assert list(data["result"]) != list(done.to_json()["result"])
    assert duel.load_game(data).digest() == done.digest()


JUGGLE = """
game "Juggle" { players 1..1 }
counter balls 0..9 = 2
round {
  step up "Up" { choose n from [0, 1] by first { balls += n } }
  step down "Down" { choose n from [0, 1] by first { balls -= n } }
}
invariant "two balls": balls == 2
score(p) = balls
"""


def test_a_checked_load_refuses_a_game_that_passed_through_a_broken_invariant(
        write_ruleset: Callable[..., str]) -> None:
    """Why a checked load still checks every step (docs/performance.md, session 17): these decisions are all legal
    and end where every invariant holds, but after the first one there are three balls. Played unchecked, the game
    runs on; played checked, it stops there. Its unchecked save loads unchecked, and a checked load refuses it:
    the final comparison alone cannot see a violation the game has since left behind."""
    rules = load_ruleset(write_ruleset(JUGGLE))
    unchecked = rules.new_game(1, 0)
    unchecked.apply(1, 0)  # three balls
    unchecked.apply(1, 0)  # two again
    assert unchecked.state.status == "running" and not unchecked.violations()
    data = json.loads(json.dumps(unchecked.to_json()))
    assert rules.load_game(data).digest() == unchecked.digest()
    with pytest.raises(CorruptSave, match="do not replay|its `status`|its `error`"):
        rules.load_game(data, check_invariants=True)
    checked = rules.new_game(1, 0, check_invariants=True)
    checked.apply(1, 0)
    assert checked.state.status == "aborted" and "two balls" in (checked.error or "")


PASS = """
game "Pass" { players 1..1 }
counter balls 0..9 = 2
round {
  step up "Up" { choose n from [0, 1] by first optional { balls += n } }
}
score(p) = balls
"""


@pytest.mark.parametrize("where", ["pending", "frames"])
def test_a_non_finite_number_where_a_tuple_field_has_none_is_refused(write_ruleset: Callable[..., str],
                                                                      where: str) -> None:
    """The frames, the pending choice and the log are compared as JSON text alone (the game holds them as tuples,
    which ``==`` calls different from the save's lists), and that text spells NaN as ``null``: a NaN where the game
    has ``None`` (the pass option of an `optional` choice, and the variable a pass leaves unbound) must still be
    refused, naming its field."""
    rules = load_ruleset(write_ruleset(PASS))
    game = rules.new_game(1, 0)
    game.apply(2, 0)  # pass: the round's second `choose` waits, its variable bound to no value
    data = json.loads(json.dumps(game.to_json()))
    assert data["pending"][2][2] is None and data["frames"][0][2]["n"] is None
    assert rules.load_game(data).digest() == game.digest()
    if where == "pending":
        data["pending"][2][2] = math.nan
    else:
        data["frames"][0][2]["n"] = math.inf
    with pytest.raises(CorruptSave, match=f"its `{where}`"):
        rules.load_game(data)
