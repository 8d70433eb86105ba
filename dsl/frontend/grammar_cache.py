"""Where the analysed LALR tables of the grammar are cached between runs.

Building the LALR tables from ``grammar.lark`` costs more than parsing and
checking a whole ruleset; Lark can save them and reload them in a few
milliseconds. Lark writes the grammar's SHA-256 into the file and rebuilds
(and rewrites) it whenever the grammar or the parser options change, so a
stale cache is never used.

The file is a pickle, so it lives only in a directory the current user owns
and nobody else can write to (``$LITURGY_CACHE_DIR``, else
``$XDG_CACHE_HOME/liturgy``, else ``~/.cache/liturgy``), never in a shared
temporary directory. ``LITURGY_CACHE_DIR=off`` disables the cache; any
problem with the directory just disables it too.

The same directory holds the fast parser's tables (:mod:`liturgy.dsl.frontend.fastparse`)
as JSON, keyed by the grammar's SHA-256, so a fresh process can parse without
loading Lark at all.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

import lark


def cache_dir() -> Path | None:
    """The private cache directory, created if needed; None if caching is off or unsafe."""
    configured = os.environ.get("LITURGY_CACHE_DIR")
    if configured is not None and configured.strip().lower() in ("", "0", "off", "no", "false"):
        return None
    if configured:
        base = Path(configured)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = (Path(xdg) if xdg else Path.home() / ".cache") / "liturgy"
    try:
        base.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = base.stat()
    except (OSError, RuntimeError):  # RuntimeError: no home directory
        return None
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return None
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    return base


def grammar_cache_file(key: str = "") -> str | bool:
    """The value for Lark's ``cache`` option: a private file path, or False (no cache). ``key`` names the
    registered extension constructs (dsl/constructs/extensions.py): a grammar with them has a file of its own."""
    base = cache_dir()
    if base is None:
        return False
    v = sys.version_info
    return str(base / f"grammar-lark{lark.__version__}-py{v.major}{v.minor}{'-' + key if key else ''}.cache")


def load_json(name: str, key: str) -> Any:
    """The data stored under ``name`` if it was stored with this ``key``, else None.

    JSON, not pickle: loading it can never run code. Any problem (no cache,
    a missing, unreadable, corrupt or stale file) just reads as a miss.
    """
    base = cache_dir()
    if base is None:
        return None
    try:
        with open(base / name, encoding="utf-8") as f:
            stored = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("key") != key:
        return None
    return stored.get("data")


def store_json(name: str, key: str, data: Any) -> None:
    """Store ``data`` under ``name`` with ``key``, atomically and readable only by this user; errors are ignored."""
    base = cache_dir()
    if base is None:
        return
    try:
        fd, tmp = tempfile.mkstemp(dir=base, prefix=name + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"key": key, "data": data}, f, separators=(",", ":"))
            os.replace(tmp, base / name)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:
        return
