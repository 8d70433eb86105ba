"""`simulate --cluster` on a local Dask cluster of 2 worker processes: the same digest and aggregates as `--jobs 1`
and `--jobs 2`, a worker killed mid-run changes nothing, an interrupted run resumes without replaying chunks.

The runs are small (a few hundred Goofspiel games: card files, ties with shared wins) so the file takes seconds
beyond the clusters' start-up.
"""

from __future__ import annotations

import contextvars
import json
import os
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from cluster_helpers import RISKY, two_worker_cluster
from conftest import ROOT
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.tools.cli import main
from liturgy.interpreter.tools.cluster import bundle as B
from liturgy.interpreter.tools.cluster.chunks import ChunkResult, Merger, chunk_bounds, play_chunk
from liturgy.interpreter.tools.cluster.runner import ClusterError, RunStats, parse_cluster, run_tasks
from liturgy.interpreter.tools.fuzz import fuzz_ruleset
from liturgy.interpreter.tools.simulate import Summary, simulate

distributed = pytest.importorskip("distributed")
from liturgy.interpreter.tools.cluster.fuzzing import fuzz_on_cluster, shard_seed  # noqa: E402
from liturgy.interpreter.tools.cluster.simulation import simulate_on_cluster  # noqa: E402

GOOF = str(ROOT / "rulesets" / "classic" / "goofspiel.rules")
GAMES, PLAYERS, SEED = 240, 5, 7  # five seats: wins shared three ways (48.833)


def same(s: Summary) -> dict[str, Any]:
    """Everything but the clock."""
    data = s.to_json()
    for k in ("seconds", "games_per_second", "decisions_per_second"):
        data.pop(k)
    return data


@pytest.fixture(scope="module")
def one_process() -> dict[str, Any]:
    return same(simulate(GOOF, GAMES, PLAYERS, SEED, jobs=1))


@pytest.fixture(scope="module")
def local_cluster() -> Iterator[Any]:
    with two_worker_cluster() as cluster:
        yield cluster


# ------------------------------------------------------------------ aggregates (no cluster)
def test_chunks_merged_in_any_order_give_the_one_process_run(one_process: dict[str, Any]) -> None:
    ruleset = load_ruleset(GOOF)
    opts = ruleset.resolve_options(None)
    bounds = chunk_bounds(GAMES, 17)
    chunks = [play_chunk(ruleset, PLAYERS, SEED, a, b, True, opts) for a, b in bounds]
    merger = Merger(GAMES, PLAYERS, bounds)
    for i in reversed(range(len(chunks))):  # the last first: all held until chunk 0 arrives
        merger.offer(i, chunks[i])
        assert merger.pending == (len(chunks) - i if i else 0)
    merger.offer(3, chunks[3])  # a retried chunk's second copy is ignored
    assert same(merger.result(1.0)) == one_process
    assert any(w.denominator == 3 for c in chunks for w in c.wins)  # shares no float sum keeps exact


def test_jobs_2_equals_jobs_1(one_process: dict[str, Any]) -> None:
    assert same(simulate(GOOF, GAMES, PLAYERS, SEED, jobs=2)) == one_process


def test_win_shares_and_first_errors_are_exact_in_any_grouping() -> None:
    third = Fraction(1, 3)
    parts = [ChunkResult(0, 1, 1, 0, 0, 5, 0, [third, third, third], [], {}, "a" * 64),
             ChunkResult(1, 3, 0, 2, 0, 9, 0, [Fraction(0)] * 3, ["game 1: x", "game 2: y"], {"c": 2}, "b" * 128)]
    merger = Merger(3, 3, [(0, 1), (1, 3)])
    merger.offer(1, parts[1])
    merger.offer(0, parts[0])
    s = merger.result(1.0)
    assert s.wins == [0.333, 0.333, 0.333] and s.errors == ["game 1: x", "game 2: y"] and s.totals == {"c": 2}
    again = ChunkResult.from_json(json.loads(json.dumps(parts[1].to_json())), 3)
    assert again == parts[1]
    with pytest.raises(ValueError, match="digests"):
        ChunkResult.from_json({**parts[1].to_json(), "digests": "z" * 128}, 3)
    with pytest.raises(ValueError, match="wins"):
        ChunkResult.from_json({**parts[1].to_json(), "wins": ["1e999999999", "0", "0"]}, 3)


def test_a_bundle_compiles_to_the_same_fingerprint_and_refuses_paths_outside() -> None:
    ruleset = load_ruleset(GOOF)
    bundle = B.make_bundle(ruleset, GOOF)
    assert bundle.ruleset_path == "rulesets/classic/goofspiel.rules"
    assert all(not name.startswith("/") for name, _ in bundle.files) and len(bundle.files) > 1
    assert B.compiled(bundle).fingerprint == ruleset.fingerprint == bundle.fingerprint
    bad = B.Bundle("0" * 64, (("../../etc/x.rules", b""),))
    with pytest.raises(ValueError, match="not a path inside"):
        B.compiled(bad)
    with pytest.raises(RuntimeError, match="same version"):
        B.compiled(B.Bundle("1" * 64, bundle.files, version="0.0.0-other"))


def test_cluster_specs() -> None:
    assert parse_cluster("local:2") == ("local", 2)
    assert parse_cluster("tcp://10.0.0.1:8786") == ("address", 0)
    for bad in ("local:0", "local:x", "local:9999"):
        with pytest.raises(ClusterError, match="local:N"):
            parse_cluster(bad)


def test_cluster_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    base = ["simulate", GOOF, "--players", "2", "--games", "10"]
    assert main([*base, "--results", str(tmp_path / "r.jsonl")]) == 2
    assert "liturgy: error: --results and --chunk go with --cluster" in capsys.readouterr().err
    assert main([*base, "--cluster", "local:0"]) == 2
    assert "a local cluster is local:N with N workers, 1..256" in capsys.readouterr().err
    assert main([*base, "--cluster", "local:2", "--jobs", "2"]) == 2
    assert "--jobs and --cluster exclude each other" in capsys.readouterr().err
    assert main([*base, "--cluster", "nonsense"]) == 2
    assert "cannot reach the Dask scheduler at nonsense: missing port number" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*base, "--cluster", "local:2", "--chunk", "0"])
    assert "--chunk" in capsys.readouterr().err
    monkeypatch.setitem(__import__("sys").modules, "distributed", None)  # as if liturgy[cluster] were not installed
    assert main([*base, "--cluster", "local:2"]) == 2
    assert "pip install 'liturgy[cluster]'" in capsys.readouterr().err
    (tmp_path / "r.jsonl").mkdir()
    monkeypatch.undo()
    with pytest.raises(ValueError, match="not a regular file"):  # refused before a cluster starts
        simulate_on_cluster(GOOF, 10, 2, 0, "local:1", results=str(tmp_path / "r.jsonl"))


# ------------------------------------------------------------------ on a cluster
def test_cli_cluster_local_2_prints_the_same_json_as_jobs_1(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["simulate", GOOF, "--players", str(PLAYERS), "--games", str(GAMES), "--seed", str(SEED), "--json"]
    assert main(base) == 0
    alone = json.loads(capsys.readouterr().out)
    assert main([*base, "--cluster", "local:2", "--chunk", "30"]) == 0
    out, err = capsys.readouterr()
    spread = json.loads(out)
    for k in ("seconds", "games_per_second", "decisions_per_second"):
        alone.pop(k), spread.pop(k)
    assert spread == alone
    assert "cluster: 8 chunks of 30 games, 8 played on 2 worker(s)" in err


def test_every_worker_compiles_the_ruleset_once(local_cluster: Any, one_process: dict[str, Any]) -> None:
    """Counted from a clean start whatever ran before on these workers: their compiled rulesets are forgotten
    first, and the count is what this run added (in a shuffled order another test had compiled Goofspiel or the
    risky ruleset on them first, and the worker's total was 2)."""
    with distributed.Client(local_cluster.scheduler_address) as client:
        client.run(lambda: __import__("liturgy.interpreter.tools.cluster.bundle").interpreter.tools.cluster.bundle
                   ._compiled.clear())
        before = client.run(lambda: __import__("liturgy.interpreter.tools.cluster.bundle").interpreter.tools
                            .cluster.bundle.compilations)
    stats = RunStats()
    s = simulate_on_cluster(GOOF, GAMES, PLAYERS, SEED, local_cluster.scheduler_address, chunk=10, stats=stats)
    assert same(s) == one_process and stats.played == 24
    with distributed.Client(local_cluster.scheduler_address) as client:
        counts = client.run(lambda: __import__("liturgy.interpreter.tools.cluster.bundle").interpreter.tools
                            .cluster.bundle.compilations)
    assert set(stats.per_worker) <= set(counts) and sum(stats.per_worker.values()) == 24
    assert all(counts[w] - before[w] == 1 for w in stats.per_worker)  # once per worker, not once per chunk




def test_a_runtime_error_names_the_clients_file_so_digests_agree(
        local_cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An aborted game's error names its rule's file, and its digest hashes the error: the worker compiled a copy
    elsewhere, and must still report (and hash) the client's name."""
    monkeypatch.chdir(tmp_path)
    Path("risky.rules").write_text(RISKY, encoding="utf-8")
    alone = simulate("risky.rules", 30, 2, 1)
    assert alone.aborted and alone.errors[0].endswith("division by zero at risky.rules:5:44 [round 1, step s]")
    spread = simulate_on_cluster("risky.rules", 30, 2, 1, local_cluster.scheduler_address, chunk=7)
    assert same(spread) == same(alone)
    replay = tmp_path / "failure.json"
    report = fuzz_on_cluster("risky.rules", 8, 0, local_cluster.scheduler_address, replay_path=str(replay), chunk=4)
    assert report.violation is not None and "at risky.rules:5:44" in report.violation
    assert main(["replay", str(replay)]) == 0  # the replay's digest (which hashes the error) matches here


def test_a_worker_killed_mid_run_loses_nothing(local_cluster: Any, one_process: dict[str, Any]) -> None:
    with distributed.Client(local_cluster.scheduler_address) as client:
        before = client.run(os.getpid)
    killed: list[int] = []

    def kill_one(done: int, total: int) -> None:
        if not killed and done < total:
            pid = sorted(before.values())[0]
            os.kill(pid, signal.SIGKILL)  # mid-run: both workers hold chunks, this one loses its running chunk
            killed.append(pid)

    stats = RunStats()
    s = simulate_on_cluster(GOOF, GAMES, PLAYERS, SEED, local_cluster.scheduler_address, chunk=8,
                            progress=kill_one, stats=stats)
    assert killed
    assert same(s) == one_process
    local_cluster.wait_for_workers(2)
    with distributed.Client(local_cluster.scheduler_address) as client:
        after = client.run(os.getpid)
    assert killed[0] not in after.values()  # the nanny started a new worker process


class Stop(KeyboardInterrupt):
    pass


def test_an_interrupted_run_resumes_without_replaying_finished_chunks(
        local_cluster: Any, one_process: dict[str, Any], tmp_path: Path) -> None:
    results = str(tmp_path / "run.jsonl")
    address = local_cluster.scheduler_address

    def stop_after_some(done: int, total: int) -> None:
        if done >= 60:
            raise Stop

    with pytest.raises(Stop):
        simulate_on_cluster(GOOF, GAMES, PLAYERS, SEED, address, chunk=12, results=results, progress=stop_after_some)
    saved = len(Path(results).read_text().splitlines()) - 1
    assert 5 <= saved < 20
    with open(results, "a") as f:
        f.write('{"chunk": 19, "resu')  # a line cut short by the interruption: dropped, its chunk played again
    stats = RunStats()
    s = simulate_on_cluster(GOOF, GAMES, PLAYERS, SEED, address, results=results, stats=stats)
    assert same(s) == one_process
    assert stats.chunk_size == 12 and stats.from_file == saved and stats.played == 20 - saved
    again = RunStats()
    assert same(simulate_on_cluster(GOOF, GAMES, PLAYERS, SEED, address, results=results, stats=again)) == one_process
    assert again.played == 0 and again.from_file == 20
    with pytest.raises(ValueError, match="another run .*seed"):
        simulate_on_cluster(GOOF, GAMES, PLAYERS, SEED + 1, address, results=results)
    lines = Path(results).read_text().splitlines()
    Path(results).write_text("\n".join([lines[0], "not json", *lines[1:]]) + "\n")
    with pytest.raises(ValueError, match="line 2 is not JSON"):
        simulate_on_cluster(GOOF, GAMES, PLAYERS, SEED, address, results=results)


def test_fuzz_on_a_cluster_is_its_shards_run_anywhere_and_writes_the_first_replay(
        local_cluster: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    examples = ROOT / "docs" / "examples"
    shutil.copytree(examples / "cards", tmp_path / "cards")
    text = (examples / "market.rules").read_text(encoding="utf-8")
    path = tmp_path / "market.rules"
    path.write_text(text.replace("size(stall) <= 3", "size(stall) <= 2"), encoding="utf-8")  # a broken invariant
    replay = tmp_path / "failure.json"
    report = fuzz_on_cluster(str(path), 12, 3, local_cluster.scheduler_address, replay_path=str(replay),
                             check_leaks=False, chunk=4)
    ruleset = load_ruleset(str(path))
    shards = [fuzz_ruleset(ruleset, str(path), examples=4, run_seed=shard_seed(3, k), check_leaks=False,
                           replay_path=str(tmp_path / f"shard{k}.json")) for k in range(3)]
    assert report.examples == sum(r.examples for r in shards) and report.decisions == sum(r.decisions for r in shards)
    first = next(r for r in shards if r.violation is not None)
    assert report.violation == first.violation and "stall" in report.violation
    assert report.shrunk_decisions == first.shrunk_decisions and report.seed == first.seed
    data = json.loads(replay.read_text())
    assert len(data["decisions"]) == report.shrunk_decisions and data["ruleset"] == os.path.relpath(path)
    capsys.readouterr()
    assert main(["replay", str(replay)]) == 0  # the worker's shrunk game reproduces here
    results = str(tmp_path / "fuzz.jsonl")
    first_run = fuzz_on_cluster(str(path), 12, 3, local_cluster.scheduler_address, replay_path=str(replay),
                                check_leaks=False, chunk=4, results=results)
    stats = RunStats()
    resumed = fuzz_on_cluster(str(path), 12, 3, "tcp://127.0.0.1:9", replay_path=str(replay),  # never contacted
                              check_leaks=False, results=results, stats=stats)
    assert stats.played == 0 and stats.from_file == 3
    untimed = [r.to_json() | {"seconds": 0} for r in (resumed, first_run, report)]
    assert untimed[0] == untimed[1] == untimed[2]


# ------------------------------------------------------------------ never a hang (issue 34)
def test_a_run_finishes_whatever_client_dask_calls_the_default(local_cluster: Any, one_process: dict[str, Any]
                                                               ) -> None:
    """The run's results come through the run's own client. `distributed.as_completed`, which it used, tracks
    futures on Dask's *default* client (the current one of a `with Client(...)` block, else the last made): a
    closed one never delivers them, and the run waited for ever with both workers idle (a suite run hung so).
    Bounded here by a thread (in this thread's context, where the closed client is current), so a regression
    fails instead of hanging the suite."""
    out: list[Any] = []
    with distributed.Client(local_cluster.scheduler_address) as other:
        other.close()  # the default client here is now a closed one
        context = contextvars.copy_context()
        run = threading.Thread(target=context.run, args=(lambda: out.append(simulate_on_cluster(
            GOOF, GAMES, PLAYERS, SEED, local_cluster.scheduler_address, chunk=60)),), daemon=True)
        run.start()
        run.join(120)
    assert not run.is_alive(), "the run hung on a closed default client"
    assert same(out[0]) == one_process


def _stalled_run(client: Any, submit: Any, stall: float) -> str:
    """run_tasks on ``submit``'s tasks with a short stall limit: the ClusterError it ends with."""
    with pytest.raises(ClusterError) as err:
        run_tasks(client, [0, 1], submit, lambda i, r: None, lambda: 0, window=2, stall=stall)
    return str(err.value)


def test_tasks_no_worker_runs_stop_the_run_with_their_names(local_cluster: Any) -> None:
    """Tasks the scheduler gives to nobody (here: they need a resource no worker has; in the suite's hang, lost)
    end the run with a named error once the workers have been idle for the stall limit, instead of a hang."""
    with distributed.Client(local_cluster.scheduler_address) as client:
        message = _stalled_run(client, lambda i: client.submit(abs, i, resources={"GPU": 1}, pure=False), 1.0)
    assert message.startswith("no task has finished for ") and "no worker runs tasks 0, 1" in message
    assert "(the scheduler has 2 worker(s), all idle); the run stops" in message


def test_a_worker_that_neither_reports_nor_dies_is_named(local_cluster: Any) -> None:
    """A worker frozen mid-task (SIGSTOP: its heartbeats stop, its process lives) holds its task for ever as far
    as Dask knows (the scheduler's time-to-live is 5 minutes); the run names the worker and stops."""
    with distributed.Client(local_cluster.scheduler_address) as client:
        pids = client.run(os.getpid)
        worker = sorted(pids)[0]

        def submit(i: int) -> Any:
            future = client.submit(time.sleep, 6 if i == 0 else 0, workers=[worker], pure=False)
            while i == 0 and future.key not in client.processing().get(worker, []):
                time.sleep(0.05)
            if i == 0:
                os.kill(pids[worker], signal.SIGSTOP)
            return future

        try:
            message = _stalled_run(client, submit, 1.0)
        finally:
            os.kill(pids[worker], signal.SIGCONT)
    assert message.startswith(f"worker {worker} has held task") and "without a word for " in message
    local_cluster.wait_for_workers(2)
