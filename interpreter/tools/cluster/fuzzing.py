"""`fuzz --cluster`: the examples of a fuzz run as shards of Hypothesis runs on a Dask cluster.

Hypothesis drives one run as a whole (it adapts what it draws to what it saw), so a fuzz run is spread as
shards: shard ``k`` is an independent Hypothesis run of ``--chunk`` examples (25 by default) seeded with
``seed * 1_000_003 + k``, on a worker that compiled the ruleset bundle once.  A shard that finds a violation
shrinks it there and sends back the minimal game's decision log; the client keeps the first violation in shard
order and writes its replay file, so the report depends on the seed, the examples and the shard size, never on
how many workers ran the shards or in which order they finished.  A results file makes the run resumable as
for `simulate --cluster`.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
import uuid
import warnings
from collections.abc import Callable
from typing import Any

from liturgy.interpreter.engine import Ruleset, load_ruleset, replay_decisions
from liturgy.interpreter.engine.logs import write_decision_log
from liturgy.interpreter.runtime.errors import IllegalChoice
from liturgy.interpreter.tools.cluster.bundle import Bundle, compiled, make_bundle, renamer
from liturgy.interpreter.tools.cluster.results import ResultsFile
from liturgy.interpreter.tools.cluster.runner import (
    ClusterError,
    RunStats,
    connect,
    run_tasks,
    worker_address,
    worker_threads,
)
from liturgy.interpreter.tools.fuzz import FuzzReport, fuzz_ruleset

# examples per shard unless --chunk says otherwise: a fixed number, so the report does not depend on the cluster
DEFAULT_SHARD = 25
MAX_SHARD = 100_000


def shard_seed(run_seed: int, shard: int) -> int:
    return run_seed * 1_000_003 + shard


def fuzz_remote(bundle: Bundle, examples: int, seed: int, max_decisions: int, check_leaks: bool,
                options: dict[str, str]) -> tuple[dict[str, Any], str]:
    """The task a worker runs: one shard; its counts, and its shrunk failure's decision log (text) if any."""
    from hypothesis.errors import HypothesisDeprecationWarning

    ruleset = compiled(bundle)
    c0 = time.process_time()
    fd, replay = tempfile.mkstemp(prefix="liturgy-fuzz-", suffix=".json")
    os.close(fd)
    try:
        with warnings.catch_warnings():
            # the worker's own threads (heartbeats) draw from the global `random` while Hypothesis runs; the
            # games never do (they use seeded generators), so Hypothesis's warning about it says nothing here
            warnings.simplefilter("ignore", HypothesisDeprecationWarning)
            r = fuzz_ruleset(ruleset, bundle.ruleset_path, examples=examples, run_seed=seed,
                             max_decisions=max_decisions, replay_path=replay, check_leaks=check_leaks,
                             options=options)
        log = None
        if r.violation is not None:
            with open(replay, encoding="utf-8") as f:
                log = f.read()
    finally:
        os.unlink(replay)
    rename = renamer(bundle)
    violation = rename(r.violation) if rename is not None and r.violation is not None else r.violation
    return {"examples": r.examples, "decisions": r.decisions, "seconds": r.seconds, "violation": violation,
            "cpu": time.process_time() - c0,
            "players": r.players, "seed": r.seed, "shrunk_decisions": r.shrunk_decisions, "log": log,
            "notes": r.notes}, worker_address()


def _valid_shard(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    counts = all(type(data.get(k)) is int and data[k] >= 0 for k in ("examples", "decisions"))
    failure = data.get("violation")
    return counts and (failure is None or (isinstance(failure, str) and isinstance(data.get("log"), str)))


def fuzz_on_cluster(
    path: str, examples: int, seed: int, cluster: str, max_decisions: int = 5_000,
    replay_path: str = "fuzz-failure.replay.json", progress: Callable[[int, int], None] | None = None,
    check_leaks: bool = True, options: dict[str, str] | None = None, results: str | None = None,
    chunk: int | None = None, stats: RunStats | None = None,
) -> FuzzReport:
    """`fuzz` spread over the Dask cluster ``cluster`` in shards of ``chunk`` examples (see the module's note)."""
    ruleset = load_ruleset(path)
    opts = ruleset.resolve_options(options)
    bundle = make_bundle(ruleset, path)
    stats = stats if stats is not None else RunStats()
    size = chunk or DEFAULT_SHARD
    if not 1 <= size <= MAX_SHARD:
        raise ClusterError(f"--chunk must be 1..{MAX_SHARD}")
    run = {"command": "fuzz", "fingerprint": bundle.fingerprint, "examples": examples, "seed": seed,
           "max_decisions": max_decisions, "leaks": check_leaks, "options": opts}
    t0 = time.perf_counter()
    file = ResultsFile(results, run) if results else None
    try:
        size = file.begin(size) if file else size
        bounds = [(a, min(a + size, examples)) for a in range(0, examples, size)]
        shards: dict[int, dict[str, Any]] = {}
        for i in file.done if file is not None else {}:
            if i < len(bounds) and file is not None:
                shards[i] = file.load(i)
                if not _valid_shard(shards[i]):
                    raise ClusterError(f"{results}: shard {i} is damaged; delete the file to start over")
        stats.chunks, stats.chunk_size, stats.from_file = len(bounds), size, len(shards)
        asked = sum(bounds[i][1] - bounds[i][0] for i in shards)

        def done(i: int, value: tuple[dict[str, Any], str]) -> None:
            nonlocal asked
            shard, worker = value
            shards[i] = shard
            if file is not None:
                file.append(i, shard, worker)
            stats.record(float(shard["seconds"]), bounds[i][1] - bounds[i][0], worker, float(shard.get("cpu", 0.0)))
            asked += bounds[i][1] - bounds[i][0]
            if progress:
                progress(asked, examples)

        todo = [i for i in range(len(bounds)) if i not in shards]
        run_id = uuid.uuid4().hex  # task keys unique on a scheduler that other runs and clients share
        if todo:
            with connect(cluster) as client:
                stats.workers = worker_threads(client)

                def submit(i: int) -> Any:
                    a, b = bounds[i]
                    return client.submit(fuzz_remote, bundle, b - a, shard_seed(seed, i), max_decisions, check_leaks,
                                         opts, pure=False, key=f"liturgy-fuzz-{run_id}-{i}")

                run_tasks(client, todo, submit, done, lambda: 0, window=max(8, 4 * stats.workers))
    finally:
        if file is not None:
            file.close()
    report = _report([shards[i] for i in range(len(bounds))], time.perf_counter() - t0)
    if report.violation is not None:
        first = next(shards[i] for i in range(len(bounds)) if shards[i]["violation"] is not None)
        _write_replay(ruleset, path, first["log"], replay_path, opts)
        report.replay_path = replay_path
    return report


def _write_replay(ruleset: Ruleset, path: str, log: str, replay_path: str, options: dict[str, str]) -> None:
    """The shrunk game's decision log, made here: its decisions replayed on the client's ruleset, so the file names
    this ruleset and its digest is the one `liturgy replay` computes here."""
    data = json.loads(log)
    game = ruleset.new_game(int(data["players"]), int(data["seed"]), check_invariants=True, options=options)
    try:
        replay_decisions(game, data["decisions"])
    except (IllegalChoice, ValueError, TypeError) as err:
        raise ClusterError(f"the shrunk game a worker sent does not replay here ({err}): are the workers' "
                           "engines the client's?") from None
    write_decision_log(replay_path, path, game)


def _report(shards: list[dict[str, Any]], seconds: float) -> FuzzReport:
    """The shards as one FuzzReport: counts summed, the first violation in shard order kept (its replay written)."""
    report = FuzzReport(seconds=seconds)
    for shard in shards:
        report.examples += shard["examples"]
        report.decisions += shard["decisions"]
        report.notes += [str(n) for n in shard.get("notes") or []]
        if shard["violation"] is None:
            continue
        report.failures_seen += 1
        if report.violation is None:
            report.violation = shard["violation"]
            report.players, report.seed = shard.get("players"), shard.get("seed")
            report.shrunk_decisions = shard.get("shrunk_decisions")
    return report
