"""`liturgy bench` (a tiny smoke run: shape and sanity of the report, never timings) and the grammar cache."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import BLOODBORNE, ROOT
from liturgy.dsl.frontend import grammar_cache
from liturgy.interpreter.engine import Ruleset
from liturgy.interpreter.tools.bench import Settings, mid_game, render, run_bench
from liturgy.interpreter.tools.cli import main
from liturgy.interpreter.tools.microbench import bench_constructs, bench_ismcts

TINY = Settings(seconds=0.02, warmup=0.0, repeats=1, jobs_games=0, openspiel=False, constructs=False,
                ismcts=False)


def test_bench_json_reports_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    example = str(ROOT / "docs" / "examples" / "high_card.rules")
    code = main(["bench", example, "--seconds", "0.02", "--warmup", "0", "--repeats", "1", "--jobs-games", "0",
                 "--no-openspiel", "--no-constructs", "--no-ismcts", "--json"])
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
    for key in ("clone_us", "save_us", "load_us", "parse_check_ms_cold", "parse_check_ms_warm",
                "parse_check_cpu_ms_cold"):
        assert fig[key] > 0, key
    assert report["openspiel"] == {"unavailable": "skipped (--no-openspiel)"}
    targets = {t["target"]: t for t in report["targets"]}
    # figures that need a ruleset or a peer this run does not have say so instead of inventing a number
    assert all(t["value"] is None and t["met"] is None for name, t in targets.items() if "Bloodborne" in name)
    assert any("parse + check" in name and t["value"] > 0 for name, t in targets.items())


def test_bench_text_names_machine_and_targets(capsys: pytest.CaptureFixture[str]) -> None:
    example = str(ROOT / "docs" / "examples" / "dice_race.rules")
    assert main(["bench", example, "--seconds", "0.02", "--warmup", "0", "--repeats", "1", "--jobs-games", "0",
                 "--no-openspiel", "--no-constructs", "--no-ismcts"]) == 0
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
    tiny = ["--seconds", "0.02", "--warmup", "0", "--repeats", "1", "--jobs-games", "0", "--no-openspiel",
            "--no-constructs", "--no-ismcts", "--json"]
    assert main(["bench", example, "--players", "3", *tiny]) == 0
    (fig,) = json.loads(capsys.readouterr().out)["rulesets"]
    assert fig["players"] == 3
    assert main(["bench", example, "--players", "64", *tiny]) == 2
    assert "players, not 64" in capsys.readouterr().err


def test_construct_microbenchmarks_report_a_ratio_each(capsys: pytest.CaptureFixture[str]) -> None:
    """`liturgy bench` times each construct of benchmarks/constructs against its plain-Python twin (the figures'
    shape only: timings are never asserted)."""
    report = run_bench([str(ROOT / "docs" / "examples" / "dice_race.rules")],
                       dataclasses.replace(TINY, constructs=True))
    cons = report["constructs"]
    assert set(cons) == {"fn_lets", "grid_loop", "comprehension_where", "any_count", "card_moves", "handler_counter"}
    for fig in cons.values():
        assert fig["liturgy_us"] > 0 and fig["python_us"] > 0 and fig["new_game_us"] > 0
        # Each figure is rounded (µs to 2 places, the ratio to 3), so the ratio lies between the quotients of
        # the rounding's extremes: with a 1 µs construct the exact quotient can sit 0.01 off the printed one.
        low = (fig["python_us"] - 0.005) / (fig["liturgy_us"] + 0.005)
        high = (fig["python_us"] + 0.005) / max(fig["liturgy_us"] - 0.005, 1e-9)
        assert low - 0.0005 <= fig["ratio"] <= high + 0.0005
    names = [t["target"] for t in report["targets"] if t["target"].startswith("construct ")]
    assert len(names) == 6 and all(t["goal"] == 0.7 for t in report["targets"] if t["target"] in names)
    assert "fn_lets" in render(report)


def test_a_construct_benchmark_that_does_other_work_than_its_python_twin_is_refused(tmp_path: Path) -> None:
    """The Liturgy side and the Python side must leave the same number, or the ratio would compare different work."""
    src = ROOT / "benchmarks" / "constructs"
    for f in src.iterdir():
        if f.suffix in (".rules", ".yaml", ".py"):
            shutil.copy(f, tmp_path / f.name)
    text = (tmp_path / "grid_loop.rules").read_text(encoding="utf-8")
    (tmp_path / "grid_loop.rules").write_text(text.replace("if board[c, r] > 0", "if board[c, r] > 1"),
                                              encoding="utf-8")
    with pytest.raises(AssertionError, match="grid_loop: Liturgy left"):
        bench_constructs(0.01, 1, tmp_path)


def test_ismcts_comparison_counts_simulations_on_both_sides() -> None:
    fig = bench_ismcts(0.01, 1, seed=3, openspiel=True)
    assert fig["simulations_per_decision"] == 300
    assert fig["liturgy_sims_per_cpu_s"] > 0 and fig["openspiel_sims_per_cpu_s"] > 0
    assert fig["ratio"] == pytest.approx(fig["liturgy_sims_per_cpu_s"] / fig["openspiel_sims_per_cpu_s"], abs=1e-3)
    assert "openspiel_sims_per_cpu_s" not in bench_ismcts(0.01, 1, seed=3, openspiel=False)
