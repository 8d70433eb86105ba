"""`report --cluster` and `simulate --seats … --cluster` on a local Dask cluster of 2 worker processes.

The report's HTML is the same bytes for --jobs 1, --jobs 2 and --cluster on a local cluster of 2 worker
processes (a comparison of two player counts, so both sides go through one connection); a runtime error on a
worker names the client's file in the report as it does in one process; simulate's seat agents (text specs,
turned into agents on the worker) give the digest of --jobs 1.  Small runs: a cluster's start-up is most of the
time, so the module starts one (the cluster `--cluster local:2` starts, cluster_helpers.two_worker_cluster) and
the commands are given its scheduler's address; tests/test_cluster.py runs `--cluster local:2` itself, which
goes through the same `connect` as an address once its cluster is up.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster_helpers import RISKY, two_worker_cluster
from conftest import ROOT
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.tools.cli import main
from liturgy.interpreter.tools.gamepool import can_fork
from liturgy.interpreter.tools.report.collect import Config, play_all

distributed = pytest.importorskip("distributed")
pytest.importorskip("matplotlib")
from liturgy.interpreter.tools.cluster.reporting import records_on_cluster  # noqa: E402
from liturgy.interpreter.tools.cluster.runner import RunStats  # noqa: E402

MARKET = str(ROOT / "docs" / "examples" / "market.rules")
GOOF = str(ROOT / "rulesets" / "classic" / "goofspiel.rules")



@pytest.fixture(scope="module")
def local_cluster() -> Iterator[Any]:
    with two_worker_cluster() as cluster:
        yield cluster


def _report(tmp_path: Path, name: str, *extra: str) -> bytes:
    out = tmp_path / name
    assert main(["report", MARKET, "--games", "12", "--players", "2", "--compare-players", "3", "--seed", "3",
                 "--track", "coins", "--out", str(out), *extra]) == 0
    return out.read_bytes()


def test_report_on_a_local_cluster_is_the_same_bytes_as_jobs_1_and_2(
        local_cluster: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alone = _report(tmp_path, "one.html")
    if can_fork():
        assert _report(tmp_path, "two.html", "--jobs", "2") == alone
    capsys.readouterr()
    assert _report(tmp_path, "cluster.html", "--cluster", local_cluster.scheduler_address, "--chunk", "5") == alone
    err = capsys.readouterr().err
    assert "cluster: 6 chunks of 5 games, 6 played on" in err  # 3 chunks per side, both sides on one cluster


def test_report_cluster_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["report", MARKET, "--games", "4", "--out", str(tmp_path / "r.html")]
    assert main([*base, "--chunk", "3"]) == 2
    assert "--chunk goes with --cluster" in capsys.readouterr().err
    assert main([*base, "--cluster", "local:2", "--jobs", "2"]) == 2
    assert "--jobs and --cluster exclude each other" in capsys.readouterr().err
    assert main([*base, "--cluster", "local:0"]) == 2
    assert "a local cluster is local:N" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_report_records_on_a_cluster_name_the_clients_file_in_errors(
        local_cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("risky.rules").write_text(RISKY, encoding="utf-8")
    config = Config("A", load_ruleset("risky.rules"), 2, ("random", "first"), (), ())
    alone = play_all(config, 20, 1)
    assert any(r.error and r.error.endswith("division by zero at risky.rules:5:44 [round 1, step s]")
               for r in alone)
    stats = RunStats()
    with distributed.Client(local_cluster.scheduler_address) as client:
        spread = records_on_cluster(client, "risky.rules", config, 20, 1, chunk=3, stats=stats)
    assert spread == alone
    assert stats.played == 7 and stats.games_played == 20


def test_simulate_seats_travel_to_the_workers(local_cluster: Any, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["simulate", GOOF, "--players", "3", "--games", "40", "--seed", "5", "--json",
            "--seats", "first,random,ismcts:4"]
    assert main(base) == 0
    alone = json.loads(capsys.readouterr().out)
    assert main([*base, "--cluster", local_cluster.scheduler_address, "--chunk", "7"]) == 0
    spread = json.loads(capsys.readouterr().out)
    random_only = ["simulate", GOOF, "--players", "3", "--games", "40", "--seed", "5", "--json"]
    assert main(random_only) == 0
    unseated = json.loads(capsys.readouterr().out)
    for data in (alone, spread, unseated):
        for k in ("seconds", "games_per_second", "decisions_per_second"):
            data.pop(k)
    assert spread == alone
    assert alone["digest"] != unseated["digest"]  # the seats were played, not random agents everywhere
