"""Running chunks of work on a Dask cluster: connect, keep a bounded window of tasks in flight, survive workers.

``--cluster ADDRESS`` connects to a running Dask scheduler (``tcp://host:8786``, or the JSON scheduler file that
``dask scheduler --scheduler-file F`` writes); ``--cluster local:N`` starts a
local cluster of N single-threaded worker processes for the run (the engine is pure Python: one thread per
process is what uses a core).  Dask does the rest of the distribution: placing tasks, moving them off a worker
that dies and running them again elsewhere (a chunk is a pure function of its arguments, so a retried chunk
returns exactly what the lost one would have), and restarting the dead worker under its nanny.

:func:`run_tasks` submits tasks in a window (at most ``window`` submitted and not yet merged), so the client's
memory stays bounded whatever the number of chunks; results are handed to the caller as they finish.
"""

from __future__ import annotations

import logging
import math
import re
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from queue import Empty, SimpleQueue
from typing import Any

from liturgy.interpreter.tools.arguments import UsageError
from liturgy.interpreter.tools.cluster.watchdog import POLL_SECONDS, STALL_SECONDS, Watchdog

# worker processes --cluster local:N may start
MAX_LOCAL_WORKERS = 256
# seconds to wait for a scheduler to answer and for its first worker to join
CONNECT_TIMEOUT = 30
WORKER_TIMEOUT = 120


# Dask's housekeeping that costs a CPU-bound worker time for nothing a simulation uses: the statistical profiler
# samples every thread's stack 100 times a second (taking the GIL each time), and the health and memory checks
# wake every 20-100 ms. `--cluster local:N` starts its workers without them; docs/cluster.md shows the same
# settings as environment variables for workers started by hand.
QUIET_WORKERS = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "500ms",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
}


class ClusterError(UsageError):
    """The cluster cannot be reached or a chunk failed there: one clear line, no traceback (exit 2, as for a bad
    `--cluster` value: interpreter/tools/arguments.py)."""


@dataclass
class RunStats:
    """How a run went on the cluster: chunk timings are what the 100-worker projection is made of."""

    chunks: int = 0
    chunk_size: int = 0
    from_file: int = 0  # chunks a results file already held (not played again)
    played: int = 0
    games_played: int = 0
    worker_seconds: float = 0.0  # sum of the played chunks' wall times on their workers
    worker_cpu: float = 0.0  # and of their workers' CPU times meanwhile
    slowest: float = 0.0
    workers: int = 0
    bundle_bytes: int = 0
    per_worker: dict[str, int] = field(default_factory=dict)

    def record(self, seconds: float, games: int, worker: str, cpu: float = 0.0) -> None:
        self.played += 1
        self.games_played += games
        self.worker_seconds += seconds
        self.worker_cpu += cpu
        self.slowest = max(self.slowest, seconds)
        self.per_worker[worker] = self.per_worker.get(worker, 0) + 1

    def seconds_per_game(self, cpu: bool = False) -> float | None:
        """Wall (or CPU) seconds a worker spent per game (or example) played."""
        if not self.games_played:
            return None
        return (self.worker_cpu if cpu else self.worker_seconds) / self.games_played

    def projected_seconds(self, n: int, workers: int, chunk: int | None = None, cpu: bool = False) -> float | None:
        """Wall time for ``n`` games (or examples) on ``workers`` workers as fast as these were (``cpu``: as fast as
        their CPU time, i.e. each on a core of its own): the total shared out, plus one chunk (``chunk``, else the
        default size for that run), the last round, where some workers idle."""
        per_unit = self.seconds_per_game(cpu)
        if per_unit is None:
            return None
        return per_unit * n / workers + per_unit * (chunk or default_chunk(n, workers))

    def describe(self, unit: str = "game", results: bool = True) -> str:
        """One line about the run (``results``: the command has a results file, so say how many chunks it gave)."""
        per_unit, per_cpu = self.seconds_per_game(), self.seconds_per_game(cpu=True)
        text = (f"cluster: {self.chunks} chunks of {self.chunk_size} {unit}s, {self.played} played on "
                f"{len(self.per_worker)} worker(s)")
        if results:
            text += f", {self.from_file} read from the results file"
        if per_unit is not None and per_cpu is not None:
            chunk = None if unit == "game" else self.chunk_size
            wall, dedicated = (self.projected_seconds(1_000_000, 100, chunk, cpu) for cpu in (False, True))
            text += (f"; {per_unit * 1000:.2f} ms per {unit} on a worker ({per_cpu * 1000:.2f} ms of CPU), slowest "
                     f"chunk {self.slowest:.2f} s; 1,000,000 {unit}s on 100 such workers: about {wall:.0f} s "
                     f"({dedicated:.0f} s with a core each)")
        return text


def default_chunk(games: int, workers: int) -> int:
    """Games per chunk: about eight chunks per worker (so workers finish close together) and at most 1,000
    (a chunk's digests, 64 bytes a game, stay small; a lost worker costs little)."""
    return max(1, min(1000, math.ceil(games / (max(1, workers) * 8))))


def parse_cluster(spec: str) -> tuple[str, int]:
    """``("local", N)`` for ``local:N``, else ``("address", 0)``; ``ClusterError`` for a malformed ``local:``."""
    m = re.fullmatch(r"local:(\d{1,4})", spec)
    if spec.startswith("local:") and (m is None or not 1 <= int(m.group(1)) <= MAX_LOCAL_WORKERS):
        raise ClusterError(f"--cluster {spec}: a local cluster is local:N with N workers, 1..{MAX_LOCAL_WORKERS}")
    return ("local", int(m.group(1))) if m else ("address", 0)


def _dask() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError("--cluster needs Dask's distributed scheduler: pip install 'liturgy[cluster]'") from None
    return distributed


@contextmanager
def connect(spec: str) -> Iterator[Any]:
    """A ``distributed.Client`` for ``spec``; a local cluster it started is closed on the way out."""
    distributed = _dask()
    kind, n = parse_cluster(spec)
    if kind != "local":
        with _connected(distributed, spec, None) as client:
            yield client
        return
    import dask

    # the local scheduler, nannies and workers (which receive the configuration) all run quieter
    with dask.config.set(QUIET_WORKERS):
        try:
            cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                               dashboard_address=":0", silence_logs=logging.ERROR)
        except (OSError, TimeoutError, ValueError) as err:
            raise ClusterError(f"cannot start a local cluster of {n} workers: {err}") from None
        try:
            with _connected(distributed, spec, cluster) as client:
                yield client
        finally:
            cluster.close()


@contextmanager
def _connected(distributed: Any, spec: str, cluster: Any) -> Iterator[Any]:
    try:
        if cluster is not None:
            client = distributed.Client(cluster)
        elif spec.endswith(".json"):  # a scheduler file (`dask scheduler --scheduler-file F`), common on HPC
            client = distributed.Client(scheduler_file=spec, timeout=CONNECT_TIMEOUT)
        else:
            client = distributed.Client(spec, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as err:
        raise ClusterError(f"cannot reach the Dask scheduler at {spec}: {err}") from None
    try:
        try:
            client.wait_for_workers(1, timeout=WORKER_TIMEOUT)
        except (OSError, TimeoutError) as err:
            raise ClusterError(f"no worker joined the scheduler at {spec} within {WORKER_TIMEOUT} s ({err})") from None
        yield client
    finally:
        client.close()


def worker_address() -> str:
    """The address of the Dask worker running the calling task ("local" outside one)."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return "local"


def worker_threads(client: Any) -> int:
    """Threads across the cluster's workers now (each runs one chunk at a time)."""
    workers = client.scheduler_info().get("workers", {})
    return max(1, sum(int(w.get("nthreads", 1)) for w in workers.values()))


def run_tasks(
    client: Any,
    todo: list[int],
    submit: Callable[[int], Any],
    done: Callable[[int, Any], None],
    held: Callable[[], int],
    window: int,
    stall: float | None = None,
) -> None:
    """Run task ``i`` for every ``i`` in ``todo`` (in that order of submission) and call ``done(i, result)`` as each
    finishes.  At most ``window`` tasks are in flight or held by the caller (``held()``: finished, not yet merged).

    A worker that dies takes its running tasks with it; the scheduler runs them again on the others (Dask's
    ``distributed.scheduler.allowed-failures`` times); a task that raises ends the run with that error.  A run
    whose tasks stop coming back ends with a ClusterError naming them (tools/cluster/watchdog.py: after
    ``stall`` seconds, :data:`~.watchdog.STALL_SECONDS` by default), never hangs.  On any way out (an error,
    Ctrl-C) the tasks still in flight are cancelled.

    Finished tasks are reported by each future's own client (``add_done_callback`` runs on ``client``'s event
    loop), not by ``distributed.as_completed``: that one follows whichever client Dask calls the default in this
    process and thread (the last one made, or one made "current"), and when that is another client, closed or
    not yet running, its loop never delivers the results and ``next()`` waits for ever with every worker idle.
    """
    queue: deque[int] = deque(todo)
    flight: dict[Any, int] = {}
    finished: SimpleQueue[Any] = SimpleQueue()
    dog = Watchdog(client, ClusterError, STALL_SECONDS if stall is None else stall)

    def top_up() -> None:
        while queue and (not flight or len(flight) + held() < window):
            i = queue.popleft()
            future = submit(i)
            flight[future] = i
            future.add_done_callback(finished.put)

    try:
        top_up()
        while flight:
            try:
                future = finished.get(timeout=min(POLL_SECONDS, dog.stall))
            except Empty:
                dog.check(flight)
                continue
            i = flight.pop(future, None)
            if i is None:  # reported twice (Dask calls a callback once per future; this costs nothing to check)
                continue
            dog.progressed()
            try:
                result = future.result()
            except Exception as err:
                raise ClusterError(f"task {i} failed on the cluster: {type(err).__name__}: {err}") from None
            future.release()
            done(i, result)
            top_up()
    finally:
        if flight:
            client.cancel(list(flight))
