"""The stall watchdog of a cluster run: a run whose chunks stop coming back ends with a named error, never hangs.

Dask retries the chunks of a worker that dies and restarts the worker, but some failures leave the client
waiting for ever with every process idle: a chunk the scheduler no longer runs (forgotten after the client's
connection to it broke and came back, or waiting for a worker that never joins), a worker that neither reports
nor dies (a frozen machine, a cut network: the scheduler keeps its chunks until its own time-to-live, 5 minutes
by default, or for ever where that is switched off).  Every input is untrusted, the cluster included, so the
client bounds its wait: while it waits it asks the scheduler, every :data:`POLL_SECONDS`, what is running where,
and stops the run with a :class:`~.runner.ClusterError` that names the chunks and the worker when

- a worker holding one of the run's chunks has not been heard from (its heartbeat, which the scheduler records)
  for :data:`STALL_SECONDS`, or
- no chunk has finished for :data:`STALL_SECONDS` while no worker of the cluster runs anything at all (the
  run's chunks are queued on no one: lost, or waiting for a worker).

A long chunk on a live worker is never a stall (a chunk of a thousand searched games may take an hour), and nor
is a queue behind another client's work on a shared scheduler (its workers are busy).  The clocks compared are
the client's own (a heartbeat counts when the scheduler's record of it changes), so clock skew between machines
does not matter.  A run stopped this way resumes with ``--results`` like an interrupted one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

# seconds without a finished chunk, or without a heartbeat from a worker holding one, before the run stops
STALL_SECONDS = 300.0
# seconds between the client's questions to the scheduler while it waits (each a small request)
POLL_SECONDS = 5.0


def _listed(tasks: list[int]) -> str:
    shown = ", ".join(str(i) for i in sorted(tasks)[:5])
    return f"task {shown}" if len(tasks) == 1 else f"tasks {shown}" + (", …" if len(tasks) > 5 else "")


class Watchdog:
    """What the client has seen of the cluster while waiting: when a chunk last finished, and when each worker's
    heartbeat last changed.  :meth:`check` raises ``error`` (the runner's ClusterError) on a stall."""

    def __init__(self, client: Any, error: Callable[[str], Exception], stall: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self.error = error
        self.stall = stall
        self.clock = clock
        self.progress_at = clock()
        self.busy_at = self.progress_at  # when some worker was last seen running anything
        self.heard: dict[str, tuple[Any, float]] = {}  # worker: (its last heartbeat as recorded, when that changed)

    def progressed(self) -> None:
        """A chunk finished."""
        self.progress_at = self.busy_at = self.clock()

    def check(self, flight: dict[Any, int]) -> None:
        """Ask the scheduler what runs where; raise on a stall (see the module's note)."""
        now = self.clock()
        try:
            running: dict[str, list[Any]] = self.client.processing()
            workers: dict[str, dict[str, Any]] = self.client.scheduler_info().get("workers", {})
        except (OSError, TimeoutError) as err:
            if now - self.progress_at > self.stall:
                raise self.error(f"the Dask scheduler has not answered for {now - self.progress_at:.0f} s ({err}); "
                                 "the run stops") from None
            return
        for worker, info in workers.items():
            seen = info.get("last_seen")
            if worker not in self.heard or self.heard[worker][0] != seen:
                self.heard[worker] = (seen, now)
        mine = {getattr(f, "key", None): i for f, i in flight.items()}
        for worker, keys in running.items():
            held = [mine[k] for k in keys if k in mine]
            silent = now - self.heard.get(worker, (None, now))[1]
            if held and silent > self.stall:
                raise self.error(f"worker {worker} has held {_listed(held)} without a word for {silent:.0f} s "
                                 "(a frozen machine or a cut network?); the run stops")
        if any(running.values()):
            self.busy_at = now
            return
        idle = now - max(self.busy_at, self.progress_at)
        if idle > self.stall:
            where = f"{len(workers)} worker(s), all idle" if workers else "no worker"
            raise self.error(f"no task has finished for {now - self.progress_at:.0f} s and no worker runs "
                             f"{_listed(list(flight.values()))} (the scheduler has {where}); the run stops")
