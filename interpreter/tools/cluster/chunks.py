"""Per-chunk aggregates of a simulation, and their merge in chunk order.

A chunk is games ``start..stop-1`` of a run.  Whoever plays it (the client alone, a forked ``--jobs`` worker or a
Dask worker on another machine) returns one :class:`ChunkResult`: counts, exact win shares, counter totals, the
first errors and the chunk's per-game digests in game order.  :class:`Merger` folds the results into a
:class:`~liturgy.interpreter.tools.simulate.Summary` strictly in chunk order, whatever order they arrive in, so:

* every count and total is a sum of integers and every win share a sum of fractions, exact in any grouping;
* the run digest is SHA-256 over the per-game digests in game order, exactly as one process computes it;
* the first errors kept are the first in game order.

So a run's JSON does not depend on the chunk size, the number of processes or machines, or retries.  Only
out-of-order chunks are held (the caller bounds how many are in flight), never a list per game of the run.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from liturgy.interpreter.engine import Ruleset
    from liturgy.interpreter.tools.simulate import GameOutcome, Summary

# errors kept per chunk and per run: Summary.to_json shows 10
MAX_ERRORS = 10
_DIGEST = re.compile(r"[0-9a-f]{64}")
_FRACTION = re.compile(r"[0-9]{1,30}(/[1-9][0-9]{0,29})?")  # a bounded size: a file line cannot ask for 10**10**9


@dataclass
class ChunkResult:
    """What one chunk of games adds to a run; small, picklable and JSON-able."""

    start: int
    stop: int
    finished: int = 0
    aborted: int = 0
    invariant_violations: int = 0
    decisions: int = 0
    no_winner: int = 0
    wins: list[Fraction] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)
    digests: str = ""  # the games' digests (64 hex characters each) in game order
    seconds: float = 0.0  # wall time the player spent on the games (not part of any aggregate)
    cpu: float = 0.0  # CPU time of the player's process meanwhile (on a shared machine, less than ``seconds``)

    def add(self, o: GameOutcome) -> None:
        """Count one game (its digest is the caller's: :func:`play_chunk` joins a chunk's digests once)."""
        self.decisions += o.decisions
        if o.status == "finished":
            self.finished += 1
            for w in o.winners:
                self.wins[w] += Fraction(1, len(o.winners))
            if not o.winners:
                self.no_winner += 1
        else:
            self.aborted += 1
            if o.error and len(self.errors) < MAX_ERRORS:
                self.errors.append(f"game {o.index}: {o.error}")
        if o.violation:
            self.invariant_violations += 1
        for k, v in o.totals.items():
            self.totals[k] = self.totals.get(k, 0) + v

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start, "stop": self.stop, "finished": self.finished, "aborted": self.aborted,
            "invariant_violations": self.invariant_violations, "decisions": self.decisions,
            "no_winner": self.no_winner, "wins": [str(w) for w in self.wins], "errors": self.errors,
            "totals": self.totals, "digests": self.digests, "seconds": round(self.seconds, 6),
            "cpu": round(self.cpu, 6),
        }

    @classmethod
    def from_json(cls, data: Any, players: int) -> ChunkResult:
        """Rebuild a chunk from a results file line: ``ValueError`` naming the field when anything is off."""
        if not isinstance(data, dict):
            raise ValueError("a chunk is not an object")
        ints = ("start", "stop", "finished", "aborted", "invariant_violations", "decisions", "no_winner")
        for k in ints:
            if type(data.get(k)) is not int or data[k] < 0:
                raise ValueError(f"`{k}` is not a count")
        wins, errors, totals, digests = data.get("wins"), data.get("errors"), data.get("totals"), data.get("digests")
        if not isinstance(wins, list) or len(wins) != players or not all(
                isinstance(w, str) and _FRACTION.fullmatch(w) for w in wins):
            raise ValueError(f"`wins` is not {players} fractions")
        if not isinstance(errors, list) or not all(isinstance(e, str) for e in errors):
            raise ValueError("`errors` is not a list of text")
        if not isinstance(totals, dict) or not all(type(v) is int for v in totals.values()):
            raise ValueError("`totals` is not an object of whole numbers")
        n = data["stop"] - data["start"]
        if not isinstance(digests, str) or len(digests) != 64 * n or not all(
                _DIGEST.fullmatch(digests, i, i + 64) for i in range(0, len(digests), 64)):
            raise ValueError(f"`digests` is not {n} game digests")
        fractions = [Fraction(w) for w in wins]
        seconds, cpu = data.get("seconds", 0.0), data.get("cpu", 0.0)
        return cls(data["start"], data["stop"], data["finished"], data["aborted"], data["invariant_violations"],
                   data["decisions"], data["no_winner"], fractions, errors[:MAX_ERRORS], dict(totals), digests,
                   float(seconds) if isinstance(seconds, int | float) else 0.0,
                   float(cpu) if isinstance(cpu, int | float) else 0.0)


def play_chunk(
    ruleset: Ruleset, players: int, run_seed: int, start: int, stop: int, check: bool, options: dict[str, str],
    rename: Callable[[str], str] | None = None, seats: tuple[str, ...] = (),
) -> ChunkResult:
    """Play games ``start..stop-1`` of a run (each from its own seed, as `simulate` does) into one aggregate
    (``rename``: see ``run_one``)."""
    import time

    from liturgy.interpreter.tools.simulate import run_one

    t0, c0 = time.perf_counter(), time.process_time()
    out = ChunkResult(start, stop, wins=[Fraction(0)] * players)
    digests: list[str] = []
    for i in range(start, stop):
        game = run_one(ruleset, players, run_seed, i, check, options, rename, seats)
        out.add(game)
        digests.append(game.digest)
    out.digests = "".join(digests)
    out.seconds, out.cpu = time.perf_counter() - t0, time.process_time() - c0
    return out


class Merger:
    """Folds chunk results into a Summary in chunk order; results may be offered in any order.

    ``bounds`` lists each chunk's (start, stop) in order; a result is held only until the chunks before it
    arrive.  ``pending`` is how many are held, so a caller can bound it by bounding what it has in flight.
    """

    def __init__(self, games: int, players: int, bounds: list[tuple[int, int]]) -> None:
        self.bounds = bounds
        self.players = players
        self.next = 0  # the first chunk not merged yet
        self.held: dict[int, ChunkResult] = {}
        self.games_done = 0
        self._hash = hashlib.sha256()
        self._wins = [Fraction(0)] * players
        from liturgy.interpreter.tools.simulate import Summary

        self.summary: Summary = Summary(games=games, wins=[0.0] * players)

    @property
    def pending(self) -> int:
        return len(self.held)

    @property
    def complete(self) -> bool:
        return self.next == len(self.bounds)

    def offer(self, index: int, result: ChunkResult) -> None:
        """Take chunk ``index``'s result (a second copy of a merged or held chunk is ignored: retries are pure)."""
        if (result.start, result.stop) != self.bounds[index]:
            raise ValueError(f"chunk {index} came back for games {result.start}..{result.stop - 1}, not "
                             f"{self.bounds[index][0]}..{self.bounds[index][1] - 1}")
        if index < self.next or index in self.held:
            return
        self.held[index] = result
        while self.next in self.held:
            self._fold(self.held.pop(self.next))
            self.next += 1

    def _fold(self, c: ChunkResult) -> None:
        s = self.summary
        s.finished += c.finished
        s.aborted += c.aborted
        s.invariant_violations += c.invariant_violations
        s.decisions += c.decisions
        s.no_winner += c.no_winner
        for i, w in enumerate(c.wins):
            self._wins[i] += w
        s.errors.extend(c.errors[: MAX_ERRORS - len(s.errors)])
        for k, v in c.totals.items():
            s.totals[k] = s.totals.get(k, 0) + v
        self._hash.update(c.digests.encode())
        self.games_done += c.stop - c.start

    def result(self, seconds: float) -> Summary:
        """The run's Summary once every chunk is merged."""
        if not self.complete:
            raise ValueError(f"{len(self.bounds) - self.next} chunk(s) are missing")
        s = self.summary
        s.seconds = seconds
        s.wins = [round(float(w), 3) for w in self._wins]
        s.digest = self._hash.hexdigest()
        return s


def chunk_bounds(games: int, chunk: int) -> list[tuple[int, int]]:
    """(start, stop) of every chunk of ``chunk`` games (the last may be shorter)."""
    return [(a, min(a + chunk, games)) for a in range(0, games, chunk)]
