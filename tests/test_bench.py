"""`liturgy bench` (a tiny smoke run: shape and sanity of the report, never timings) and the grammar cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import BLOODBORNE, ROOT
from liturgy.dsl.frontend import grammar_cache
from liturgy.interpreter.engine import Ruleset
from liturgy.interpreter.tools.bench import Settings, mid_game, run_bench
from liturgy.interpreter.tools.cli import main

TINY = Settings(seconds=0.02, warmup=0.0, repeats=1, jobs_games=0, openspiel=False)


def test_bench_json_reports_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    example = str(ROOT / "docs" / "examples" / "high_card.rules")
    code = main(["bench", example, "--seconds", "0.02", "--warmup", "0", "--repeats", "1", "--jobs-games", "0",
                 "--no-openspiel", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    report = json.loads(out)
    assert {"cpu", "cores", "python"} <= set(report["machine"])
    assert report["method"]["warmup_s"] == 0.0
    (fig,) = report["rulesets"]
    assert fig["path"] == example
    play = fig["random_play"]
    assert play["games_per_s"] > 0 and play["decisions_per_s"] > 0 and play["decisions_per_game"] > 0
    assert fig["random_play_invariants_checked"]["games_per_s"] > 0
    for key in ("clone_us", "save_us", "load_us", "parse_check_ms_cold", "parse_check_ms_warm"):
        assert fig[key] > 0, key
    assert report["openspiel"] == {"unavailable": "skipped (--no-openspiel)"}
    targets = {t["target"]: t for t in report["targets"]}
    # figures that need a ruleset or a peer this run does not have say so instead of inventing a number
    assert all(t["value"] is None and t["met"] is None for name, t in targets.items() if "Bloodborne" in name)
    assert any("parse + check" in name and t["value"] > 0 for name, t in targets.items())


def test_bench_text_names_machine_and_targets(capsys: pytest.CaptureFixture[str]) -> None:
    example = str(ROOT / "docs" / "examples" / "dice_race.rules")
    assert main(["bench", example, "--seconds", "0.02", "--warmup", "0", "--repeats", "1", "--jobs-games", "0",
                 "--no-openspiel"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("machine: ")
    assert "warm-up 0.0 s" in out and "targets:" in out and "dice_race" in out


def test_bench_rejects_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:  # a range checked by argparse (interpreter/tools/arguments.py)
        main(["bench", str(BLOODBORNE), "--repeats", "0"])
    assert stop.value.code == 2
    assert "--repeats" in capsys.readouterr().err


def test_bench_bloodborne_targets_and_clone_point(bloodborne: Ruleset) -> None:
    report = run_bench([str(BLOODBORNE)], TINY)
    targets = {t["target"]: t for t in report["targets"]}
    games = targets["Bloodborne 4p games/s, one core, random agents"]
    assert games["value"] > 0 and games["met"] in (True, False)
    assert targets["Bloodborne state clone (mid-game)"]["value"] > 0
    # the clone is timed on a game that is really under way
    game = mid_game(bloodborne, 4, 1)
    assert not game.finished and len(game.state.decisions) > 10


def test_grammar_cache_is_private_and_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITURGY_CACHE_DIR", "off")
    assert grammar_cache.grammar_cache_file() is False
    monkeypatch.setenv("LITURGY_CACHE_DIR", str(tmp_path / "c"))
    path = grammar_cache.grammar_cache_file()
    assert isinstance(path, str) and path.startswith(str(tmp_path / "c"))
    assert (os.stat(tmp_path / "c").st_mode & 0o077) == 0
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("LITURGY_CACHE_DIR", str(shared))
    assert grammar_cache.grammar_cache_file() is False  # others could plant a pickle there


def test_grammar_cache_round_trip_parses_the_same(tmp_path: Path) -> None:
    """A fresh interpreter writes the cache, a second one reads it; both check Bloodborne identically."""
    env = {**os.environ, "LITURGY_CACHE_DIR": str(tmp_path)}
    code = ("import json, sys\nfrom liturgy.dsl.loader import check_file\n"
            "p, d = check_file(sys.argv[1])\nprint(json.dumps([p is not None, len(p.cards), [x.code for x in d]]))")
    first = subprocess.run([sys.executable, "-c", code, str(BLOODBORNE)], env=env, capture_output=True, text=True,
                           check=True).stdout
    assert list(tmp_path.iterdir()), "the cache file was written"
    second = subprocess.run([sys.executable, "-c", code, str(BLOODBORNE)], env=env, capture_output=True, text=True,
                            check=True).stdout
    assert first == second and json.loads(first)[0] is True


def test_bench_counts_combats_of_a_combat_mode(write_ruleset: Callable[..., str]) -> None:
    """A ruleset with `option mode` = combat and a `combats` counter gets a combats/s figure."""
    path = write_ruleset(
        'game "Fights" { players 1..1 }\n'
        "enum Mode { run, combat }\n"
        "option mode: Mode = run\n"
        "counter combats 0..99\n"
        'round { step fight "Fight" {\n'
        "  choose x from [1, 2] by first { combats += x }\n"
        "  if mode == combat or combats >= 6 { end game }\n"
        "} }\n"
        "score(p) = combats\n", name="slay_the_spire.rules")
    report = run_bench([path], TINY)
    (fig,) = report["rulesets"]
    assert 1 <= fig["combat_mode"]["combats_per_game"] <= 2
    assert fig["combats_per_s"] > 0
    target = next(t for t in report["targets"] if "combats/s" in t["target"])
    assert target["value"] == fig["combats_per_s"]


def test_bench_players_sets_every_rulesets_player_count(capsys: pytest.CaptureFixture[str]) -> None:
    """`--players` (the lead's Fury of Dracula figure is for 5 players, the default 4); a count the ruleset refuses
    is a usage error before anything is measured."""
    example = str(ROOT / "docs" / "examples" / "dice_race.rules")
    tiny = ["--seconds", "0.02", "--warmup", "0", "--repeats", "1", "--jobs-games", "0", "--no-openspiel", "--json"]
    assert main(["bench", example, "--players", "3", *tiny]) == 0
    (fig,) = json.loads(capsys.readouterr().out)["rulesets"]
    assert fig["players"] == 3
    assert main(["bench", example, "--players", "64", *tiny]) == 2
    assert "players, not 64" in capsys.readouterr().err
