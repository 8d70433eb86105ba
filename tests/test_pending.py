"""The pending decision is a typed record (interpreter/runtime/pending.py) in every compile mode and in saves.

mypy checks the closures' pending tuples; the generated code's are text, so these tests hold them to the same
shape at every decision of shipped games, and hold a save's pending decision to it when the save is loaded.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import compiled_in
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.runtime.pending import pending_from_json
from liturgy.interpreter.runtime.state import freeze, thaw

ROOT = Path(__file__).resolve().parent.parent
MODES: list[dict[str, bool]] = [{}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]
GAMES = [("bloodborne.rules", 3), ("classic/goofspiel.rules", 2), ("classic/crazy_eights.rules", 3),
         ("slay_the_spire.rules", 2)]


@pytest.mark.parametrize("mode", MODES, ids=lambda m: ",".join(m) or "default")
@pytest.mark.parametrize(("name", "players"), GAMES)
def test_every_decision_waits_on_a_well_formed_record(name: str, players: int, mode: dict[str, bool]) -> None:
    game = compiled_in(str(ROOT / "rulesets" / name), **mode).new_game(players, 7)  # conftest's shared compile
    rng = random.Random(7)
    kinds: set[str] = set()
    while not game.finished and game.state.steps < 20_000:
        pending = game.state.pending
        assert pending is not None
        assert pending_from_json(freeze(thaw(pending))) == pending  # the shape the type names, item by item
        kinds.add(pending[0])
        for p in game.waiting_for():
            game.apply(rng.randrange(game.option_count(p)), p)
    assert game.finished and game.error is None
    assert kinds <= {"choose", "simul"} and kinds


def test_goofspiel_waits_on_a_simultaneous_record() -> None:
    game = load_ruleset(str(ROOT / "rulesets" / "classic" / "goofspiel.rules")).new_game(2, 1)
    pending = game.state.pending
    assert pending is not None and pending[0] == "simul"
    assert [p for p, _ in pending[1]] == [0, 1]


def _saved_with(pending: Any) -> dict[str, Any]:
    game = load_ruleset(str(ROOT / "rulesets" / "classic" / "kuhn_poker.rules")).new_game(2, 3)
    data: dict[str, Any] = json.loads(json.dumps(game.to_json()))
    if pending is not None:
        data["pending"] = pending
    return data


def test_a_save_keeps_its_pending_decision() -> None:
    rules = load_ruleset(str(ROOT / "rulesets" / "classic" / "kuhn_poker.rules"))
    game = rules.new_game(2, 3)
    loaded = rules.load_game(json.loads(json.dumps(game.to_json())))
    assert loaded.state.pending == game.state.pending and loaded.digest() == game.digest()


@pytest.mark.parametrize(("pending", "message"), [
    (("choose", 0, (1, 2), "x", 4, 5), "unknown pending decision 'choose' (of 6 items)"),
    (("choose", "zero", (1,), "x", 4, 5, 0), "player is 'zero'"),
    (("choose", 0, 7, "x", 4, 5, 0), "options is 7, not a list"),
    (("choose", 0, (1,), 3, 4, 5, 0), "variable is 3"),
    (("simul", ((0, (1,)), (1,)), "k", 3, 0), "a chooser of the simultaneous choice is (1,)"),
    (("simul", ((True, (1,)),), "k", 3, 0), "chooser is True"),
    (("vote", 1), "unknown pending decision 'vote'"),
    ((), "the pending decision is ()"),
    ("choose", "the pending decision is 'choose'"),
])
def test_a_malformed_pending_record_is_named(pending: Any, message: str) -> None:
    with pytest.raises(ValueError, match="corrupt save") as err:
        pending_from_json(pending)
    assert message in str(err.value)


def test_a_save_with_a_forged_pending_decision_is_refused() -> None:
    """Whatever the forged record says, the save's pending decision must be the one its decisions lead to."""
    rules = load_ruleset(str(ROOT / "rulesets" / "classic" / "kuhn_poker.rules"))
    data = _saved_with(None)
    real = data["pending"]
    assert real is not None and real[0] == "choose"
    data["pending"] = [real[0], 1 - real[1], *real[2:]]  # the other player to move
    with pytest.raises(ValueError, match="its `pending` is not what its own decisions lead to"):
        rules.load_game(data)
