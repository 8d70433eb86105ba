"""`simulate --cluster`: the games of a run as chunks on a Dask cluster, merged into exactly simulate's Summary.

The client loads and checks the ruleset (every error shows before anything is sent), packs it with its card
files into a :class:`~.bundle.Bundle`, and submits one task per chunk: the bundle, the players, the run seed,
the chunk's first and last game, the checks flag and the resolved options.  A worker compiles the bundle once
per fingerprint, plays games ``start..stop-1`` exactly as `simulate` plays them (game ``i`` from
``game_seed(seed, i)``) and returns the chunk's aggregate (tools/cluster/chunks.py).  The client merges the
aggregates in chunk order, so the digest and every number are those of ``simulate --jobs 1``.

:func:`simulate_on_cluster` is the entry point for other commands too (`liturgy report` can call it with the
same arguments as :func:`~liturgy.interpreter.tools.simulate.simulate` plus the cluster).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from liturgy.interpreter.tools.cluster.bundle import Bundle, compiled, make_bundle, renamer
from liturgy.interpreter.tools.cluster.chunks import ChunkResult, Merger, chunk_bounds, play_chunk
from liturgy.interpreter.tools.cluster.results import ResultsFile
from liturgy.interpreter.tools.cluster.runner import (
    ClusterError,
    RunStats,
    connect,
    default_chunk,
    run_tasks,
    worker_address,
    worker_threads,
)
from liturgy.interpreter.tools.simulate import Summary, checked_ruleset

# most games in one chunk: its digests (64 bytes a game) must fit a results file line (results.MAX_LINE)
MAX_CHUNK = 100_000


def play_remote(
    bundle: Bundle, players: int, seed: int, start: int, stop: int, check: bool, options: dict[str, str],
    seats: tuple[str, ...] = (),
) -> tuple[ChunkResult, str]:
    """The task a worker runs: one chunk of games of the bundle's ruleset, and the worker's address.

    ``seats`` are agent specs (``random``, ``first``, ``ismcts:10``...): text the worker turns into agents with
    ``make_agent``, seeded from each game's seed as `simulate` seeds them, so the seats travel as data."""
    ruleset = compiled(bundle)
    chunk = play_chunk(ruleset, players, seed, start, stop, check, options, renamer(bundle), seats)
    return chunk, worker_address()


def simulate_on_cluster(
    path: str,
    games: int,
    players: int,
    seed: int,
    cluster: str,
    check: bool = True,
    progress: Callable[[int, int], None] | None = None,
    options: dict[str, str] | None = None,
    results: str | None = None,
    chunk: int | None = None,
    stats: RunStats | None = None,
    seats: tuple[str, ...] = (),
) -> Summary:
    """`simulate` on the Dask cluster ``cluster`` (an address, or ``local:N``); the same Summary as `simulate`.

    ``results`` names a results file: finished chunks are recorded there, and a run started again with the same
    file plays only the chunks it lacks.  ``chunk`` is the games per task (default: about eight tasks per worker,
    at most 1,000; a resumed run keeps its file's).  ``stats``, when given, receives the chunk timings.
    ``seats``: agent specs per seat, as `simulate`'s (empty: random agents throughout).
    """
    ruleset, opts = checked_ruleset(path, players, options)
    bundle = make_bundle(ruleset, path)
    stats = stats if stats is not None else RunStats()
    stats.bundle_bytes = bundle.size()
    run = {"command": "simulate", "fingerprint": bundle.fingerprint, "games": games, "players": players,
           "seed": seed, "check": check, "options": opts}
    if seats and any(k != "random" for k in seats):  # (all random plays exactly as no seats: same results file)
        run["seats"] = list(seats)
    if chunk is not None and not 1 <= chunk <= MAX_CHUNK:
        raise ClusterError(f"--chunk must be 1..{MAX_CHUNK}")
    file = ResultsFile(results, run) if results else None  # a bad file is refused before a cluster starts
    t0 = time.perf_counter()
    try:
        with connect(cluster) as client:
            stats.workers = worker_threads(client)
            size = min(chunk or default_chunk(games, stats.workers), MAX_CHUNK)
            size = file.begin(size) if file is not None else size
            return _run(client, file, bundle, run, size, progress, stats, t0)
    finally:
        if file is not None:
            file.close()


def _run(
    client: Any, file: ResultsFile | None, bundle: Bundle, run: dict[str, Any], size: int,
    progress: Callable[[int, int], None] | None, stats: RunStats, t0: float,
) -> Summary:
    games, players = run["games"], run["players"]
    run_id = uuid.uuid4().hex  # task keys unique on a scheduler that other runs and clients share
    bounds = chunk_bounds(games, size)
    merger = Merger(games, players, bounds)
    saved = {i for i in (file.done if file else {}) if i < len(bounds)}
    stats.chunks, stats.chunk_size, stats.from_file = len(bounds), size, len(saved)
    finished = sum(bounds[i][1] - bounds[i][0] for i in saved)

    def drain() -> None:  # chunks the results file holds join the merge when its turn comes
        while not merger.complete and merger.next in saved:
            assert file is not None
            i = merger.next
            try:
                merger.offer(i, ChunkResult.from_json(file.load(i), players))
            except ValueError as err:
                raise ClusterError(f"{file.path}: chunk {i} is damaged ({err}); delete the file to start over"
                                   ) from None

    def submit(i: int) -> Any:
        a, b = bounds[i]
        return client.submit(play_remote, bundle, players, run["seed"], a, b, run["check"], run["options"],
                             tuple(run.get("seats", ())), pure=False, key=f"liturgy-simulate-{run_id}-{i}")

    def done(i: int, value: tuple[ChunkResult, str]) -> None:
        nonlocal finished
        result, worker = value
        if file is not None:
            file.append(i, result.to_json(), worker)
        stats.record(result.seconds, result.stop - result.start, worker, result.cpu)
        merger.offer(i, result)
        drain()
        finished += result.stop - result.start
        if progress:
            progress(finished, games)

    drain()
    if progress and finished:
        progress(finished, games)
    todo = [i for i in range(len(bounds)) if i not in saved]
    run_tasks(client, todo, submit, done, lambda: merger.pending, window=max(8, 4 * stats.workers))
    return merger.result(time.perf_counter() - t0)
