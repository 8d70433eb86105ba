"""Reading files named by untrusted input: regular files only, and never more than a limit.

A ruleset, a card file or a decision log may name ``/dev/zero``, a FIFO that never ends, a directory or a sparse
file of gigabytes.  Reading such a path whole before checking its size ends in a hang or a MemoryError, so every
reader of a path that came from a user goes through :func:`read_limited`, which looks at the file before reading
it and reads at most one byte past the limit.
"""

from __future__ import annotations

import hashlib
import os
import stat
from contextvars import ContextVar

# While a check is recorded for the compile cache (dsl/checkcache.py), every file read and every card-file
# pattern resolved, so a cached check is reused only while all of them still read the same
READS: ContextVar[list[tuple[str, str, str]] | None] = ContextVar("liturgy_reads", default=None)


def note(kind: str, what: str, result: str) -> None:
    """Record one input of the check being recorded (``read``: a path and its bytes' SHA-256; ``pattern``: a
    card pattern and the files it named); nothing when no check is recorded."""
    seen = READS.get()
    if seen is not None:
        seen.append((kind, what, result))


class FileRefused(OSError):
    """The path is not a regular file, or is larger than the limit (``size`` is then the bytes seen, at least
    ``limit + 1``); ``reason`` says which, in words."""

    def __init__(self, reason: str, size: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.size = size


def read_limited(path: str, limit: int) -> bytes:
    """The bytes of the regular file ``path``: :class:`FileRefused` when it is something else or holds more than
    ``limit`` bytes; ``OSError`` as usual when it cannot be opened."""
    try:
        data = _read(path, limit)
    except OSError:
        note("read", path, "")  # what could not be read is an input too: a cached check needs it unreadable still
        raise
    note("read", path, hashlib.sha256(data).hexdigest())
    return data


def _read(path: str, limit: int) -> bytes:
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)  # opening a FIFO must not wait for a writer
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise FileRefused("it is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused("it is not a regular file (a device, pipe or socket)")
        if info.st_size > limit:
            raise FileRefused(f"it is too large ({info.st_size} bytes; the limit is {limit})", info.st_size)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:  # the size may grow while we read: never read more than the limit allows
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise FileRefused(f"it is too large (over {limit} bytes)", size)
        return b"".join(chunks)
    finally:
        os.close(fd)
