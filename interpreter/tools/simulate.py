"""Batch simulation with random agents, in one or many processes.

Game ``i`` of a run with seed ``S`` always uses the same game seed and agent
seeds, and the run digest hashes per-game digests in game order, so the digest
does not depend on how many worker processes shared the work.
"""

from __future__ import annotations

import functools
import gc
import multiprocessing as mp
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from liturgy.dsl.checker.graphs import is_overlay
from liturgy.interpreter.agents.agents import RandomAgent, bot_seed, make_agent, play_out
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.tools.arguments import UsageError
from liturgy.interpreter.tools.cluster.chunks import ChunkResult, Merger, chunk_bounds, play_chunk


def game_seed(run_seed: int, index: int) -> int:
    return run_seed * 1_000_003 + index


@dataclass
class GameOutcome:
    index: int
    status: str
    decisions: int
    winners: list[int]
    digest: str
    error: str | None
    violation: bool
    totals: dict[str, int] = field(default_factory=dict)


def global_counters(game: Game) -> dict[str, int]:
    """The final value of every global counter and flag (not options): simulate sums them over games.

    This is how a ruleset makes a statistic observable, e.g. a `counter combats_won`.
    An indexed counter ``c[Enum]`` is reported as ``c[value]`` per enum value.
    """
    counters = game.state.counters
    return {name: int(counters[slot]) for name, slot in _reported_counters(game.ruleset)}


@functools.lru_cache(maxsize=16)
def _reported_counters(ruleset: Ruleset) -> tuple[tuple[str, int], ...]:
    """(report name, slot) of every global counter ``global_counters`` reports, once per ruleset."""
    prog, lay = ruleset.program, ruleset.compiled.layout
    out: list[tuple[str, int]] = []
    for name, c in prog.counters.items():
        if c.scope != "global" or c.option is not None or c.held is not None or is_overlay(name):
            continue  # numbers only: totals over games
        slot = lay.global_slots[name]
        if c.index_enum:
            out += [(f"{name}[{v}]", slot + k) for k, v in enumerate(prog.enums[c.index_enum])]
        else:
            out.append((name, slot))
    return tuple(out)


@dataclass
class Summary:
    games: int = 0
    finished: int = 0
    aborted: int = 0
    invariant_violations: int = 0
    decisions: int = 0
    seconds: float = 0.0
    wins: list[float] = field(default_factory=list)
    no_winner: int = 0  # finished games that nobody won (a ruleset's `winner` held for no player)
    digest: str = ""
    errors: list[str] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "finished": self.finished,
            "aborted": self.aborted,
            "invariant_violations": self.invariant_violations,
            "decisions": self.decisions,
            "seconds": round(self.seconds, 3),
            "games_per_second": round(self.games / self.seconds, 1) if self.seconds else None,
            "decisions_per_second": round(self.decisions / self.seconds, 1) if self.seconds else None,
            "wins": self.wins,
            "no_winner": self.no_winner,
            "digest": self.digest,
            "errors": self.errors[:10],
            "counter_totals": {k: v for k, v in self.totals.items() if not k.startswith(REPORT)},
            **_report_json(self.totals),
        }


REPORT = "report:"  # the prefix that keeps a game's `report` tallies apart from its counters in ``totals``


def _report_json(totals: dict[str, int]) -> dict[str, Any]:
    """``report_totals``: the games' `report` values tallied (only when a ruleset reports anything, so other
    rulesets' JSON is as it was), sorted by name so the order does not depend on which game reported first."""
    reports = {k.removeprefix(REPORT): v for k, v in totals.items() if k.startswith(REPORT)}
    return {"report_totals": dict(sorted(reports.items()))} if reports else {}


def report_tallies(game: Game) -> dict[str, int]:
    """A finished game's `report` values as numbers to add over games: a number is summed under its name, a yes
    counts 1, a text or enum value ``v`` counts 1 under ``name[v]``, a seat under ``name[P1]``…, and a list counts
    each of its items so (a list of the achievements earned counts, per achievement, the games that earned it).
    Every value of a reported enum, and every seat, is listed from 0, as `counter_totals` lists an indexed counter's
    values: a total of 0 is a result too (no run earned it), not a missing key."""
    reports = (game.result or {}).get("reports") or {}
    prog = game.ruleset.program
    out: dict[str, int] = {}

    def add(name: str, v: Any, seat: bool) -> None:
        if isinstance(v, list):
            for x in v:
                add(name, x, seat)
            return
        if v is None:
            return
        key = (f"{REPORT}{name}[P{v + 1}]" if seat else f"{REPORT}{name}[{v}]" if isinstance(v, str)
               else REPORT + name)
        out[key] = out.get(key, 0) + (1 if isinstance(v, str) or seat else int(v))  # a no adds 0

    for r in prog.reports:
        t = r.expr.ty
        while t is not None and t.kind == "list":
            t = t.elem
        kind = t.kind if t is not None else "any"
        if kind == "enum" and t is not None and t.arg in prog.enums:
            out.update({f"{REPORT}{r.name}[{v}]": 0 for v in prog.enums[t.arg]})
        elif kind == "player":
            out.update({f"{REPORT}{r.name}[P{p + 1}]": 0 for p in range(game.players)})
        elif kind in ("int", "bool"):
            out[REPORT + r.name] = 0
        add(r.name, reports.get(r.name), kind == "player")
    return out


def run_one(
    ruleset: Ruleset, players: int, run_seed: int, index: int, check: bool, options: dict[str, str] | None = None,
    rename: Callable[[str], str] | None = None,
    seats: tuple[str, ...] = (),
) -> GameOutcome:
    """Game ``index`` of a run; ``rename`` rewrites an error's file names before the digest (a cluster worker's
    copy of the files has other names than the client's: tools/cluster/bundle.py)."""
    seed = game_seed(run_seed, index)
    game = ruleset.new_game(players, seed, check_invariants=check, options=options)
    if seats and any(k != "random" for k in seats):
        # other agents (ismcts, first) at some seats: each asked decision by decision, seeded apart from the game
        agents = [make_agent(k, bot_seed(seed ^ 0xB075, i)) for i, k in enumerate(seats)]
        before = len(game.state.decisions)
        play_out(game, agents)
        n = len(game.state.decisions) - before
    else:
        agent = RandomAgent(seed ^ 0x5EED)
        n = game.random_playout(agent.rng)  # the same choices as asking the agent decision by decision
    if rename is not None and game.state.error is not None:
        game.state.error = rename(game.state.error)
    err = game.error
    violation = err is not None and err.startswith("invariant violated")
    winners = list(game.result["winners"]) if game.result else []
    totals = global_counters(game)
    totals.update(report_tallies(game))
    return GameOutcome(index, game.state.status, n, winners, game.digest(), err, violation, totals)


_worker_ruleset: Ruleset | None = None
_worker_options: dict[str, str] = {}
_worker_seats: tuple[str, ...] = ()


# Set by the parent just before it forks its workers: a forked worker starts with the ruleset already
# parsed, checked and compiled (copy-on-write) instead of loading it again.
_parent_ruleset: tuple[str, Ruleset] | None = None


def _init_worker(path: str, options: dict[str, str], seats: tuple[str, ...] = ()) -> None:
    global _worker_ruleset, _worker_options, _worker_seats
    _worker_seats = seats
    inherited = _parent_ruleset
    _worker_ruleset = inherited[1] if inherited is not None and inherited[0] == path else load_ruleset(path)
    _worker_options = options


def _work(args: tuple[int, int, int, int, int, bool]) -> tuple[int, ChunkResult]:
    index, start, stop, players, run_seed, check = args
    assert _worker_ruleset is not None
    chunk = play_chunk(_worker_ruleset, players, run_seed, start, stop, check, _worker_options, seats=_worker_seats)
    return index, chunk


def checked_ruleset(path: str, players: int, options: dict[str, str] | None) -> tuple[Ruleset, dict[str, str]]:
    """The compiled ruleset and its resolved options; ``ValueError`` when it is not for ``players`` players."""
    ruleset = load_ruleset(path)
    if not ruleset.min_players <= players <= ruleset.max_players:
        raise UsageError(f"{ruleset.name} is for {ruleset.min_players}..{ruleset.max_players} players, not {players}")
    return ruleset, ruleset.resolve_options(options)


def simulate(
    path: str,
    games: int,
    players: int,
    seed: int,
    jobs: int = 1,
    check: bool = True,
    progress: Callable[[int, int], None] | None = None,
    options: dict[str, str] | None = None,
    seats: tuple[str, ...] = (),
) -> Summary:
    """Play ``games`` games with random agents and sum them up.

    Every path (one process, ``jobs`` forked processes, a Dask cluster: tools/cluster/) plays chunks of games into
    per-chunk aggregates merged in chunk order (tools/cluster/chunks.py), so the JSON and the digest are the same
    for any ``jobs``, and no list per game is kept.
    """
    ruleset, opts = checked_ruleset(path, players, options)
    t0 = time.perf_counter()
    if jobs <= 1:
        bounds = chunk_bounds(games, 25)  # progress every 25 games
        merger = Merger(games, players, bounds)
        for index, (a, b) in enumerate(bounds):
            merger.offer(index, play_chunk(ruleset, players, seed, a, b, check, opts, seats=seats))
            if progress:
                progress(b, games)
    else:
        # Chunks small enough that the workers finish close together (a worker idling while another
        # ends a long chunk is lost time), large enough that sending tasks and results costs nothing
        # next to the games themselves.
        jobs = min(jobs, games)  # a worker per game at most: more would only cost forks
        bounds = chunk_bounds(games, max(1, min(50, games // (jobs * 16))))
        merger = Merger(games, players, bounds)
        tasks = ((k, a, b, players, seed, check) for k, (a, b) in enumerate(bounds))
        method = "spawn" if sys.platform == "darwin" else "fork"
        ctx = mp.get_context(method)
        global _parent_ruleset
        _parent_ruleset = (path, ruleset) if method == "fork" else None
        # Forked workers share the parent's objects copy-on-write; frozen objects are never visited by
        # the workers' garbage collector, so their pages stay shared instead of being copied.
        gc.freeze()
        try:
            with ctx.Pool(jobs, initializer=_init_worker, initargs=(path, opts, seats)) as pool:
                done = 0
                for index, chunk in pool.imap_unordered(_work, tasks):
                    merger.offer(index, chunk)
                    done += chunk.stop - chunk.start
                    if progress:
                        progress(done, games)
        finally:
            gc.unfreeze()
            _parent_ruleset = None
    return merger.result(time.perf_counter() - t0)


__all__ = ["simulate", "Summary", "run_one", "game_seed", "checked_ruleset"]
