"""Entries of the compile cache on disk: content-addressed, private to the user, verified on every load.

Every process that loads a ruleset (each pytest-xdist worker, `liturgy play`, `serve`, a Dask worker) used to
parse, check and compile it from scratch: seconds for the large games. The checked program
(:mod:`liturgy.dsl.checkcache`) and the generated code's compiled bytecode (:mod:`liturgy.interpreter.codegen.
codecache`) are kept here between processes.

Why the entries can be trusted: they live only in the private cache directory that the grammar tables already
use (``$LITURGY_CACHE_DIR``, else ``$XDG_CACHE_HOME/liturgy``, else ``~/.cache/liturgy``: made 0700 and refused
when another user owns it or may write to it), never in a shared temporary folder, and each file is written
0600 and atomically (a temporary file renamed over it). Every entry starts with the SHA-256 of its payload, and a
payload whose hash differs (a truncated write, a flipped bit, a file edited by hand) is ignored and rebuilt.
Names are the SHA-256 of everything the content depends on, so a stale entry is never looked up.

``LITURGY_CACHE=off`` turns the compile cache off (results are the same, only slower), as
``LITURGY_CACHE_DIR=off`` turns off every cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

from liturgy.dsl.frontend.grammar_cache import cache_dir

_MAGIC = b"liturgy-cache-1\n"
_DIGEST = 32  # bytes of SHA-256
_OFF = ("0", "off", "no", "false")
# The folder's size is kept under this: every edit of Liturgy's source names new entries, so old ones pile up
LIMIT_BYTES = 256 * 1024 * 1024


def enabled() -> bool:
    """Whether the compile cache may be used in this process (read at each call: tests switch it)."""
    return os.environ.get("LITURGY_CACHE", "").strip().lower() not in _OFF


# Set while a caller wants nothing written or read on disk (the test suite's throw-away rulesets under tmp_path:
# entries named by paths that are never loaded again would only fill the folder)
_MEMORY_ONLY: ContextVar[bool] = ContextVar("liturgy_cache_memory_only", default=False)


@contextmanager
def memory_only() -> Iterator[None]:
    """Within: the compile cache neither reads nor writes entries (a process's own memo still works)."""
    token = _MEMORY_ONLY.set(True)
    try:
        yield
    finally:
        _MEMORY_ONLY.reset(token)


def stored() -> bool:
    """Whether entries are read and written on disk here and now (the cache is on, outside :func:`memory_only`)."""
    return enabled() and not _MEMORY_ONLY.get()


def _folder() -> Path | None:
    base = cache_dir() if enabled() and not _MEMORY_ONLY.get() else None
    if base is None:
        return None
    folder = base / "compiled"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    return folder


def python_tag() -> str:
    """The Python that runs: bytecode and pickles of one are not entries for another."""
    return f"{sys.version}|{importlib.util.MAGIC_NUMBER.hex()}|{sys.flags.optimize}"


@cache
def language_version() -> str:
    """SHA-256 of the language's own source (every ``.py`` and ``.lark`` file of ``liturgy.dsl``: the parser
    and the checker) and of the Python that runs it: any edit to the language names other entries.

    Content, not modification times or the version number: a checkout switched to another branch and back, or an
    edited file with the same version, must never read an entry made by other code. Only the language's files:
    a checked program does not depend on the interpreter, so an edit there (the common case) keeps the checks'
    entries. About 50 files, read once per process (a few milliseconds)."""
    import liturgy.dsl

    h = hashlib.sha256(python_tag().encode())
    for root in liturgy.dsl.__path__:
        for path in sorted(Path(root).rglob("*")):
            if path.suffix in (".py", ".lark") and "__pycache__" not in path.parts:
                data = path.read_bytes()
                h.update(str(path.relative_to(root)).encode() + b"\0" + len(data).to_bytes(8, "little"))
                h.update(data)
    return h.hexdigest()


def key(*parts: str) -> str:
    """An entry's name: SHA-256 of the parts (each length-prefixed, so no two lists of parts collide)."""
    h = hashlib.sha256()
    for part in parts:
        raw = part.encode("utf-8", "surrogatepass")
        h.update(len(raw).to_bytes(8, "little") + raw)
    return h.hexdigest()


def read(name: str) -> bytes | None:
    """The payload stored under ``name``, or None: no cache, no entry, or an entry that fails its hash (which is
    then removed, so the next store rebuilds it)."""
    folder = _folder()
    if folder is None:
        return None
    path = folder / name
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    head = len(_MAGIC) + _DIGEST
    payload = raw[head:]
    if raw[:len(_MAGIC)] != _MAGIC or raw[len(_MAGIC):head] != hashlib.sha256(payload).digest():
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # the least recently used entries are the ones pruned (see _prune)
    return payload


def write(name: str, payload: bytes) -> None:
    """Store ``payload`` under ``name``: atomically (readers see the old entry or the new one whole), readable
    by this user only. Any error (a full disk, a read-only home) leaves the cache as it was."""
    folder = _folder()
    if folder is None:
        return
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")  # mkstemp makes it 0600
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_MAGIC + hashlib.sha256(payload).digest() + payload)
            os.replace(tmp, folder / name)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        _writes[0] += 1
        if _writes[0] % 64 == 1:  # the first store of a process, then every 64th: listing the folder is not free
            _prune(folder)
    except OSError:
        return


_writes = [0]


def _prune(folder: Path) -> None:
    """Remove the least recently used entries while the folder holds more than :data:`LIMIT_BYTES`, down to
    three quarters of it (only on a store, never on a load)."""
    entries = []
    for entry in os.scandir(folder):
        try:
            info = entry.stat()
        except OSError:
            continue
        entries.append((info.st_mtime, info.st_size, entry.path))
    total = sum(size for _, size, _ in entries)
    if total <= LIMIT_BYTES:
        return
    for _, size, path in sorted(entries):
        if total <= LIMIT_BYTES * 3 // 4:
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size
