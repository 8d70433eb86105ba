"""The attack corpus, saves (issue 18): every forged or broken save is refused with a ValueError naming what is
wrong, and the mutation fuzz over saves and logs (`liturgy mutate`) finds no traceback, hang or corrupted game.

A save is verified by replaying its seed, options and decisions (interpreter/engine/saves.py), so each forgery
below is caught by the same comparison; these tests keep it that way.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.tools.cli import main
from liturgy.interpreter.tools.mutate import run_mutations

ROOT = Path(__file__).resolve().parent.parent
HIGH_CARD = ROOT / "docs" / "examples" / "high_card.rules"
RULES = load_ruleset(str(HIGH_CARD))


def _save(decisions: int = 2) -> dict[str, Any]:
    game = RULES.new_game(2, 9)
    rng = random.Random(9)
    for _ in range(decisions):
        for p in game.waiting_for():
            game.apply(rng.randrange(game.option_count(p)), p)
    data: dict[str, Any] = json.loads(json.dumps(game.to_json()))
    return data


def _card_in_two_zones(d: dict[str, Any]) -> None:
    first = next(z for z in d["zones"] if z)
    next(z for z in d["zones"] if z is not first).append(first[0])


def _other_players_pending(d: dict[str, Any]) -> None:
    d["pending"][1] = [[1 - p, options] for p, options in d["pending"][1]]


FORGERIES = {
    "a card in two zones": (_card_in_two_zones, "its `zones` is not what its own decisions lead to"),
    "a counter out of bounds": (lambda d: d["counters"].__setitem__(-1, 99), "its `counters`"),
    "a NaN counter": (lambda d: d["counters"].__setitem__(-1, math.nan), "its `counters`"),
    "a float counter": (lambda d: d["counters"].__setitem__(-1, 0.0), "its `counters`"),
    "a forged status": (lambda d: d.__setitem__("status", "finished"), "its `status`"),
    "a forged result": (lambda d: d.__setitem__("result", {"scores": [9, 0], "winners": [0]}), "its `result`"),
    "a pending decision for the other player": (_other_players_pending, "its `pending`"),
    "a decision out of range": (lambda d: d["decisions"].append([0, 99]), "its decisions do not replay"),
    "no players": (lambda d: d.__setitem__("players", 0), "`players` is 0, outside 2..2"),
    "a card id out of range": (lambda d: d["zones"][0].append(10 ** 6), "its `zones`"),
    "a huge seed": (lambda d: d.__setitem__("seed", 10 ** 30), "`seed`"),
    "an infinite seed": (lambda d: d.__setitem__("seed", math.inf), "`seed` is inf, not a whole number"),
    "options that are a list": (lambda d: d.__setitem__("options", [1]), "`options`"),
    "decisions that are text": (lambda d: d.__setitem__("decisions", "all"), "`decisions`"),
    "another ruleset": (lambda d: d.__setitem__("ruleset", "Chess"), "this save is for 'Chess'"),
    "another format": (lambda d: d.__setitem__("format", 99), "unsupported save format"),
    "a forged fingerprint": (lambda d: d.__setitem__("ruleset_fingerprint", "0" * 64),
                             "made with a different version of its ruleset"),
    "no fingerprint": (lambda d: d.pop("ruleset_fingerprint"), "records no ruleset fingerprint"),
}


@pytest.mark.parametrize("name", list(FORGERIES))
def test_a_forged_save_is_refused(name: str) -> None:
    data = _save()
    forge, says = FORGERIES[name]
    forge(data)
    with pytest.raises(ValueError) as err:
        RULES.load_game(data)
    assert says in str(err.value), str(err.value)


@pytest.mark.parametrize("value", [[], "save", 7, None, [{"format": 1}]])
def test_a_save_that_is_not_an_object_is_refused(value: Any) -> None:
    with pytest.raises(ValueError, match="a save is a JSON object|unsupported save format"):
        RULES.load_game(value)


def test_the_genuine_save_loads_and_plays_on() -> None:
    data = _save()
    game = RULES.load_game(data)
    assert game.to_json()["zones"] == data["zones"]
    game.random_playout(random.Random(1))
    assert game.finished and game.error is None


def test_a_forged_pending_decision_cannot_let_p1_play_p2s_card() -> None:
    """The issue's attack: P1 made to choose among P2's cards. Refused, whatever else the save says."""
    data = _save(decisions=0)
    game = RULES.new_game(2, 9)
    p2_hand = game.state.zones[RULES.compiled.layout.zone_player_base + RULES.compiled.layout.zone_player_stride
                               + RULES.compiled.layout.zone_player_offsets["hand"]]
    data["pending"][1][0][1] = list(p2_hand)
    with pytest.raises(ValueError, match="its `pending` is not what its own decisions lead to"):
        RULES.load_game(data)


def test_mutated_saves_and_logs_never_crash_hang_or_corrupt() -> None:
    """A small run of the fuzz in CI; `liturgy mutate RULESET --inputs 5000` is the full one (docs/cli.md)."""
    report = run_mutations(str(HIGH_CARD), 150, seed=18, timeout=30)
    assert report.inputs == 150 and report.accepted + report.refused == 150, report.examples
    assert report.tracebacks == report.hangs == report.corrupted == 0
    assert report.refused > 0


def test_the_mutate_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mutate", str(HIGH_CARD), "--inputs", "20", "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["inputs"] == 20 and out["tracebacks"] == out["hangs"] == out["corrupted"] == 0


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, [math.nan], {"scores": [math.inf]}])
def test_a_non_finite_number_where_the_game_has_none_is_refused(value: Any) -> None:
    """Found by `liturgy mutate` (input 3692 of seed 18): `result: Infinity` in a running game's save loaded,
    because the JSON encoder writes non-finite numbers as null, the running game's `result`."""
    data = _save()
    data["result"] = value
    with pytest.raises(ValueError, match="its `result`"):
        RULES.load_game(data)
