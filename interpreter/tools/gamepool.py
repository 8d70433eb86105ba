"""A small process pool for independent games: ``run_indexed(task, count, jobs)`` is ``[task(i) for i in
range(count)]``, computed by ``jobs`` forked workers.

Why a pool of its own: `liturgy report` plays each game with agents that watch it decision by decision, a task
that is a closure over the loaded ruleset and the report's settings. Forked workers inherit that closure (and the
compiled ruleset, copy-on-write), so nothing is pickled but the index ranges going out and the results coming
back. Results come back in index order whatever the number of workers, so a caller that derives everything of
game ``i`` from ``i`` (its seeds) gets the same list for every ``jobs``. Where ``fork`` does not exist (Windows,
or macOS's default), the games run in this process instead: slower, never different.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import sys
from collections.abc import Callable
from typing import Any, TypeVar

R = TypeVar("R")

# The task of the pool being started: set just before the fork, so every worker starts with it.
_task: Callable[[int], Any] | None = None


def _run_range(bounds: tuple[int, int]) -> list[Any]:
    start, stop = bounds
    assert _task is not None  # set by run_indexed before the workers were forked
    return [_task(i) for i in range(start, stop)]


def can_fork() -> bool:
    """Whether workers can be forked here (macOS can, but its system libraries make it unsafe)."""
    return sys.platform != "darwin" and "fork" in mp.get_all_start_methods()


def run_indexed(
    task: Callable[[int], R],
    count: int,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> list[R]:
    """``[task(i) for i in range(count)]``, in index order, computed by up to ``jobs`` forked workers.

    ``progress(done, count)`` is called as results arrive (in this process). An exception in a task ends
    the run with that exception, as it would in one process.
    """
    global _task
    jobs = max(1, min(jobs, count))
    if jobs == 1 or not can_fork():
        out: list[R] = []
        for i in range(count):
            out.append(task(i))
            if progress is not None and ((i + 1) % 10 == 0 or i + 1 == count):
                progress(i + 1, count)
        return out
    # chunks small enough that the workers finish close together, large enough that sending costs nothing
    chunk = max(1, min(25, count // (jobs * 8)))
    ranges = [(a, min(a + chunk, count)) for a in range(0, count, chunk)]
    results: dict[int, list[R]] = {}
    done = 0
    _task = task
    gc.freeze()  # the workers' collectors then leave the inherited objects (and their shared pages) alone
    try:
        with mp.get_context("fork").Pool(jobs) as pool:
            for bounds, batch in zip(ranges, pool.imap(_run_range, ranges), strict=True):
                results[bounds[0]] = batch
                done += len(batch)
                if progress is not None:
                    progress(done, count)
    finally:
        gc.unfreeze()
        _task = None
    return [r for start, _ in ranges for r in results[start]]


__all__ = ["can_fork", "run_indexed"]
