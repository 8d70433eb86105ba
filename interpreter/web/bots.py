"""Search bots (``ismcts``) of `liturgy serve` think in a separate, low-priority process.

Why a process: a search is seconds of pure Python. In a thread of the server it holds the GIL against the event
loop that serves every person, and fifteen bot-only tables raised a person's response time at another table
from ~5 ms to ~590 ms (issue 34, finding 3). In its own process at the lowest scheduling priority
(``SCHED_IDLE`` on Linux, else ``nice 19``), the operating system runs it only on CPU time the server does not
want, so search bots can
slow only each other. One worker process by default, fed in order of request, so every table's bots take turns.

The worker keeps its own copy of each table's game and agents (a game is compiled code and does not pickle): a
request carries the ruleset's file, fingerprint, seed, options and every decision so far, and the worker plays
the ones it has not seen on its copy (or rebuilds the game when its copy is not a prefix), then asks the seat's
agent. It returns the choice and the CPU seconds the search took, which :class:`~.tables.Lobby` charges to the
table's budget (``Limits.bot_cpu``). The server applies the choice on its own game, with every check a
person's choice gets: the worker is trusted no more than a browser.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

NICE = 19  # the worker's scheduling priority: the lowest, so the server's own work always comes first
KEEP = 64  # tables whose game copy and agents a worker keeps (least recently used leave first)


@dataclass(frozen=True)
class Job:
    """What a worker needs to choose for one seat (all of it plain data: it crosses a process boundary)."""

    table: str
    path: str  # the ruleset file, loaded once per worker
    fingerprint: str  # must match the worker's load of it: else the two games would differ
    players: int
    seed: int
    options: dict[str, str]
    decisions: tuple[tuple[int, int], ...]  # every decision so far, (seat, choice)
    seat: int
    kind: str  # the bot kind (``ismcts``, ``ismcts:N``…)
    agent_seed: int


_RULES: dict[str, Any] = {}
_GAMES: OrderedDict[str, tuple[Any, dict[int, Any]]] = OrderedDict()


def _init(lowest: bool = True) -> None:
    """The worker starts at the lowest priority the platform has, and ends itself when the server is gone (a
    ``kill -9`` of the server gives it no chance to stop its workers).

    Lowest: Linux's ``SCHED_IDLE`` where it exists (the worker runs only on CPU time nothing else wants), else
    ``nice 19``. Nice alone is relative: a server itself started under ``nice 10`` kept only about 88 % of a
    core it shared with its nice-19 worker, and on a saturated machine people's latency doubled.
    """
    if hasattr(os, "nice") and lowest:
        os.nice(NICE)
    if hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_IDLE") and lowest:
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    parent = os.getppid()

    def orphaned() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=orphaned, name="liturgy-bot-orphan-check", daemon=True).start()


def _game(job: Job) -> tuple[Any, dict[int, Any]]:
    """The worker's copy of ``job``'s game brought up to ``job.decisions``, and the table's agents."""
    from liturgy.interpreter.engine import load_ruleset
    from liturgy.interpreter.engine.logs import _options

    rules = _RULES.get(job.path)
    if rules is None:
        rules = _RULES[job.path] = load_ruleset(job.path)
    if rules.fingerprint != job.fingerprint:
        raise RuntimeError(f"the bot worker's {job.path} is not the server's (it changed on disk)")
    cached = _GAMES.pop(job.table, None)
    if cached is not None:
        game, agents = cached
        have = game.state.decisions
        if len(have) > len(job.decisions) or tuple(map(tuple, have)) != job.decisions[:len(have)]:
            cached = None
    if cached is None:
        game, agents = rules.new_game(job.players, job.seed, options=_options(job.options) or None), {}
    for p, c in job.decisions[len(game.state.decisions):]:
        game.apply(c, p)
    _GAMES[job.table] = (game, agents)
    while len(_GAMES) > KEEP:
        _GAMES.popitem(last=False)
    return game, agents


def choose(job: Job) -> tuple[int, float, int]:
    """In the worker: (the seat's choice, the CPU seconds the search took, the worker's process id)."""
    from liturgy.interpreter.agents.agents import make_agent

    game, agents = _game(job)
    agent = agents.get(job.seat)
    if agent is None:
        agent = agents[job.seat] = make_agent(job.kind, job.agent_seed)
    start = time.process_time()
    choice = agent.choose(game.clone(), job.seat)
    return int(choice), time.process_time() - start, os.getpid()


def priority() -> tuple[int, int, int]:
    """In the worker: (its process id, its niceness, its scheduling policy or -1 where there are none)."""
    policy = os.sched_getscheduler(0) if hasattr(os, "sched_getscheduler") else -1
    return os.getpid(), os.getpriority(os.PRIO_PROCESS, 0), policy


class BotPool:
    """The worker process(es), started on first use and restarted once if one dies.

    ``lowest`` False keeps the workers at the server's own priority: for tests that need a search to finish on a
    machine whose every core is busy (at the lowest priority it might wait there for minutes, as it should).
    """

    def __init__(self, workers: int = 1, lowest: bool = True) -> None:
        self.workers = workers
        self.lowest = lowest
        self.pool: concurrent.futures.ProcessPoolExecutor | None = None

    def _start(self) -> concurrent.futures.ProcessPoolExecutor:
        if self.pool is None:
            # spawn, not fork: the server has threads (the database writer) that a fork would copy mid-state
            self.pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_init,
                initargs=(self.lowest,))
        return self.pool

    async def choose(self, job: Job) -> tuple[int, float, int]:
        """The seat's choice and the CPU it cost, computed in a worker; a worker that died is replaced once."""
        for attempt in (0, 1):
            try:
                return await asyncio.wrap_future(self._start().submit(choose, job))
            except BrokenProcessPool:
                self.pool = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Stop the workers now: a search in progress is abandoned (its table resumes from the database)."""
        if self.pool is not None:
            workers = list(getattr(self.pool, "_processes", {}).values())  # no public way before Python 3.14
            self.pool.shutdown(wait=False, cancel_futures=True)
            for proc in workers:
                proc.terminate()
            self.pool = None
