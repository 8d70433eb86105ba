"""`report --cluster`: the games of a balance report played as chunks on a Dask cluster.

A report needs more than simulate's aggregates: every game's record (who won, scores, length, the cards each
player acquired, played and picked, tracked counters round by round), because its statistics (quantiles, per-card
win rates with and without the card) are computed over all games at once.  So a task here plays games
``start..stop-1`` exactly as ``play_one`` does in one process (game ``i`` from ``game_seed(seed, i)``, agents
seeded from it) and returns their records; the client puts the chunks back in game order.  The records are the
same objects ``--jobs 1`` makes, so the HTML page is the same bytes.

What crosses the network: the :class:`~.bundle.Bundle` (ruleset and card files as bytes, compiled once per worker
by fingerprint) and the side's settings as plain data (players, seat agent specs such as ``random`` or
``ismcts:10``, options, tracked counter names); the records come back.  A runtime error's file names are
rewritten to the client's (``renamer``) as `simulate --cluster` does, since the page shows them.

Unlike `simulate --cluster` there is no results file: the client holds every record (as `report --jobs` does),
and a report's runs are thousands of games, not millions.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from liturgy.interpreter.tools.cluster.bundle import Bundle, compiled, make_bundle, renamer
from liturgy.interpreter.tools.cluster.chunks import chunk_bounds
from liturgy.interpreter.tools.cluster.runner import (
    RunStats,
    default_chunk,
    run_tasks,
    worker_address,
    worker_threads,
)
from liturgy.interpreter.tools.report.collect import Config, GameRecord, play_one


def play_records(
    bundle: Bundle, label: str, players: int, seats: tuple[str, ...], options: tuple[tuple[str, str], ...],
    track: tuple[str, ...], seed: int, start: int, stop: int,
) -> tuple[list[GameRecord], str, float, float]:
    """The task a worker runs: records of games ``start..stop-1``, the worker's address, wall and CPU seconds."""
    import time

    t0, c0 = time.perf_counter(), time.process_time()
    config = Config(label, compiled(bundle), players, seats, options, track)
    rename = renamer(bundle)
    out: list[GameRecord] = []
    for i in range(start, stop):
        record = play_one(config, seed, i)
        if rename is not None and record.error is not None:
            record.error = rename(record.error)
        out.append(record)
    return out, worker_address(), time.perf_counter() - t0, time.process_time() - c0


def records_on_cluster(
    client: Any,
    path: str,
    config: Config,
    games: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
    chunk: int | None = None,
    stats: RunStats | None = None,
) -> list[GameRecord]:
    """Every game record of one side of a report, in game order, played on ``client``'s cluster.

    ``path`` is the file ``config.ruleset`` was loaded from (it and its card files are sent as bytes).  The list is
    equal to ``play_all(config, games, seed, jobs)`` for any ``jobs``, whatever the chunk size or cluster size.
    """
    bundle = make_bundle(config.ruleset, path)
    stats = stats if stats is not None else RunStats()
    stats.workers = worker_threads(client)
    stats.bundle_bytes = bundle.size()
    size = chunk or default_chunk(games, stats.workers)
    bounds = chunk_bounds(games, size)
    stats.chunks += len(bounds)
    stats.chunk_size = size
    run_id = uuid.uuid4().hex  # task keys unique on a scheduler shared with other runs
    results: dict[int, list[GameRecord]] = {}
    finished = 0

    def submit(i: int) -> Any:
        a, b = bounds[i]
        return client.submit(play_records, bundle, config.label, config.players, config.seats, config.options,
                             config.track, seed, a, b, pure=False, key=f"liturgy-report-{run_id}-{i}")

    def done(i: int, value: tuple[list[GameRecord], str, float, float]) -> None:
        nonlocal finished
        records, worker, seconds, cpu = value
        if [r.index for r in records] != list(range(*bounds[i])):
            raise ValueError(f"chunk {i} came back with the wrong games")
        results[i] = records
        stats.record(seconds, len(records), worker, cpu)
        finished += len(records)
        if progress:
            progress(finished, games)

    run_tasks(client, list(range(len(bounds))), submit, done, lambda: 0, window=max(8, 4 * stats.workers))
    return [r for i in range(len(bounds)) for r in results[i]]


__all__ = ["play_records", "records_on_cluster"]
