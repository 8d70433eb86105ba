"""The results file of a cluster run (``--results FILE``): what makes an interrupted run resumable.

JSON lines.  The first line describes the run (command, ruleset fingerprint, players, seed, games, options,
checks, chunk size); each further line is one finished chunk, appended and flushed the moment it comes back,
in the order chunks finish.  Running the same command with the same file again reads the file, keeps every
chunk it holds and plays only the others, so no finished chunk is replayed; a file of another run is refused.

The client keeps only each finished chunk's byte offset, not its contents: a chunk is read back from the file
when the in-order merge reaches it, so resuming a run of millions of games needs no more memory than running
it.  A last line cut short by the interruption is dropped (that chunk is played again); any other line that is
not a valid chunk is an error naming the line.
"""

from __future__ import annotations

import json
import os
import stat
from typing import IO, Any

from liturgy.interpreter.tools.arguments import UsageError

FORMAT = "liturgy-results"
# longest line read back: a chunk of 100,000 games' digests (6.4 MB) fits, a hostile file cannot ask for more
MAX_LINE = 16_000_000


def _existing(path: str) -> bool:
    """Whether ``path`` holds a run to resume: a non-empty regular file (a device, pipe or folder is refused)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return False
    except OSError as err:
        raise UsageError(f"cannot use {path} as a results file: {err.strerror or err}") from None
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(f"cannot use {path} as a results file: it is not a regular file")
    return info.st_size > 0


class ResultsFile:
    """A results file opened for a run described by ``run``: ``done`` maps each chunk it holds to its offset."""

    def __init__(self, path: str, run: dict[str, Any]) -> None:
        """Read ``path`` if it holds a run (``chunk`` is then its chunk size), else remember to start it (``chunk``
        None until :meth:`begin`); nothing is written yet, so a bad file is refused before any work starts."""
        self.path = path
        self.run = run
        self.chunk: int | None = None
        self.done: dict[int, int] = {}
        self._out: IO[bytes] | None = None
        self._end = self._read() if _existing(path) else None

    def begin(self, chunk: int) -> int:
        """Open the file for appending (a new file gets its header with ``chunk``); the run's chunk size."""
        end = self._end
        try:
            self._out = open(self.path, "r+b" if end is not None else "wb")  # noqa: SIM115 - held open for the run
        except OSError as err:
            raise ValueError(f"cannot write the results file {self.path}: {err.strerror or err}") from None
        if end is None:
            self.chunk = chunk
            header = {"format": FORMAT, "version": 1, "run": self.run, "chunk": chunk}
            self._out.write(json.dumps(header, sort_keys=True).encode() + b"\n")
            self._out.flush()
        else:
            self._out.seek(end)
            self._out.truncate()  # a line cut short by an interruption goes; its chunk is played again
        assert self.chunk is not None
        return self.chunk

    def _read(self) -> int:
        """Index an existing file; the offset where the next line goes."""
        with open(self.path, "rb") as f:
            first = f.readline(MAX_LINE)
            if not first.endswith(b"\n"):
                raise ValueError(f"{self.path} is not a results file (or its first line is cut short): "
                                 "use a new file or delete it")
            self._check_header(first)
            offset = len(first)
            number = 1
            while True:
                line = f.readline(MAX_LINE)
                number += 1
                if not line.endswith(b"\n"):
                    if len(line) >= MAX_LINE:
                        raise ValueError(f"{self.path}: line {number} is too long for a chunk")
                    return offset  # the end, or a line cut short
                self.done[self._index(line, number)] = offset
                offset += len(line)

    def _check_header(self, line: bytes) -> None:
        try:
            header = json.loads(line)
        except ValueError:
            header = None
        if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("version") != 1:
            raise UsageError(f"{self.path} is not a Liturgy results file: use a new file or delete it")
        theirs = header.get("run")
        if theirs != self.run:
            diff = [k for k in sorted(set(self.run) | set(theirs or {}))
                    if not isinstance(theirs, dict) or theirs.get(k) != self.run.get(k)]
            raise UsageError(f"{self.path} holds the results of another run (it differs in {', '.join(diff)}): "
                             "use a new file, or delete it to start over")
        chunk = header.get("chunk")
        if type(chunk) is not int or chunk < 1:
            raise ValueError(f"{self.path}: line 1 has no valid chunk size")
        self.chunk = chunk

    def _index(self, line: bytes, number: int) -> int:
        try:
            data = json.loads(line)
        except ValueError:
            raise ValueError(f"{self.path}: line {number} is not JSON") from None
        index = data.get("chunk") if isinstance(data, dict) else None
        if type(index) is not int or index < 0 or not isinstance(data.get("result"), dict):
            raise ValueError(f"{self.path}: line {number} is not a finished chunk")
        return index

    def load(self, index: int) -> dict[str, Any]:
        """The ``result`` object of chunk ``index`` as the file holds it."""
        with open(self.path, "rb") as f:
            f.seek(self.done[index])
            data = json.loads(f.readline(MAX_LINE))
        result: dict[str, Any] = data["result"]
        return result

    def append(self, index: int, result: dict[str, Any], worker: str = "") -> None:
        """Record chunk ``index`` as finished (flushed at once: an interruption right after loses nothing)."""
        assert self._out is not None
        offset = self._out.tell()
        self._out.write(json.dumps({"chunk": index, "worker": worker, "result": result}).encode() + b"\n")
        self._out.flush()
        self.done[index] = offset

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None
