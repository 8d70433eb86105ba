"""`option` declarations: chosen at game start, read-only, recorded in saves and decision logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from liturgy.interpreter.agents.agents import RandomAgent, play_out
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.tools.cli import main as cli_main
from liturgy.interpreter.tools.simulate import simulate

ROOT = Path(__file__).resolve().parents[1]
DICE = str(ROOT / "docs" / "examples" / "dice_race.rules")


def _rounds(options: dict[str, str] | None, seed: int) -> int:
    game = load_ruleset(DICE).new_game(2, seed, check_invariants=True, options=options)
    play_out(game, [RandomAgent(seed), RandomAgent(seed + 1)])
    assert game.result is not None
    return int(game.result["rounds"])


def test_option_default_and_override() -> None:
    assert all(_rounds({"length": "sprint"}, s) <= 10 for s in range(8))
    assert any(_rounds(None, s) > 10 for s in range(8))  # marathons do run past round 10
    assert load_ruleset(DICE).option_values() == {"length": ("sprint", "marathon")}


@pytest.mark.parametrize("options, message", [
    ({"lenght": "sprint"}, "has no option `lenght`"),
    ({"length": "dash"}, "takes one of sprint, marathon, not `dash`"),
])
def test_bad_options_are_refused(options: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_ruleset(DICE).new_game(2, 1, options=options)


def test_options_survive_save_clone_and_show_in_views() -> None:
    rs = load_ruleset(DICE)
    game = rs.new_game(2, 3, options={"length": "sprint"})
    loaded = rs.load_game(json.loads(json.dumps(game.to_json())))
    assert loaded.options == {"length": "sprint"} and game.clone().options == {"length": "sprint"}
    assert loaded.digest() == game.digest()
    assert "sprint" in json.dumps(game.view(0))


def test_cli_option_play_log_replay_and_simulate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "g.json"
    assert cli_main(["play", DICE, "--players", "2", "--seats", "random", "--seed", "4",
                     "--option", "length=sprint", "--log", str(log)]) == 0
    data = json.loads(log.read_text())
    assert data["options"] == {"length": "sprint"} and data["result"]["rounds"] <= 10
    assert cli_main(["replay", str(log)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("Replay matches")
    assert cli_main(["simulate", DICE, "--players", "2", "--games", "5", "--option", "length=sprint", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["finished"] == 5
    for bad in (["--option", "length"], ["--option", "speed=fast"], ["--option", "length=dash"]):
        assert cli_main(["simulate", DICE, "--players", "2", "--games", "1", *bad]) == 2


def test_simulate_sums_global_counters() -> None:
    summary = simulate(DICE, games=4, players=2, seed=1)
    # `longest` is the longest single roll of each game: the sum over 4 games is between 4 and 4 * 1000
    assert 4 <= summary.totals["longest"] <= 4000
    assert "length" not in summary.totals  # options are not statistics
