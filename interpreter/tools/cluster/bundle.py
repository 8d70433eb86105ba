"""A ruleset as bytes that travel: the client reads it once, every worker compiles it once.

A cluster's workers do not share the client's disk, so a task never names a path: it carries a
:class:`Bundle`, the ruleset file, the files it includes and every card and graph file it reads, by their paths
relative to the project folder (as ``cards "…"`` patterns resolve them) and compressed.  A worker keeps the
rulesets it compiled by content fingerprint (the SHA-256 a save or a decision log records), so the first chunk of
a run on a worker writes the files to a private temporary folder, compiles them and deletes the folder; every
later chunk with the same fingerprint reuses the compiled ruleset.  The worker checks that what it compiled has
the fingerprint the client computed, and that it runs the client's Liturgy version, so a stale install cannot
change a digest.
"""

from __future__ import annotations

import gc
import hashlib
import os
import shutil
import tempfile
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from liturgy.dsl.diagnostics import Diagnostic, Span
from liturgy.dsl.frontend.includes import resolve

from liturgy import __version__

if TYPE_CHECKING:
    from liturgy.interpreter.engine import Ruleset

# compiled rulesets a worker keeps (a long-lived cluster may serve several rulesets in turn)
CACHE_SIZE = 4
_compiled: OrderedDict[str, tuple[Ruleset, tuple[tuple[str, ...], ...]]] = OrderedDict()
compilations = 0  # how many times this process compiled a bundle (tests read it on the workers)


@dataclass(frozen=True)
class Bundle:
    """The ruleset (``files[0]``), the files it includes, and its card and graph files, as relative POSIX paths
    and zlib-compressed bytes."""

    fingerprint: str
    files: tuple[tuple[str, bytes], ...]
    version: str = __version__
    # how the client's compiled ruleset names each file in its spans (so in runtime errors, which digests hash)
    names: tuple[tuple[str, ...], ...] = ()

    @property
    def ruleset_path(self) -> str:
        return self.files[0][0]

    def size(self) -> int:
        """Bytes that cross the network with each task (compressed contents and names)."""
        return sum(len(name) + len(data) for name, data in self.files) + len(self.fingerprint)


def project_root(ruleset_path: str) -> Path:
    """The folder card paths may not leave (dsl/frontend/cards.py ``resolve_card_paths``): the ruleset's folder,
    or the parent of the nearest enclosing ``rulesets/`` folder."""
    base = Path(ruleset_path).resolve().parent
    return next((d.parent for d in (base, *base.parents) if d.name == "rulesets"), base)


def fingerprint_of(contents: list[bytes]) -> str:
    """The loader's fingerprint (dsl/loader.py ``fingerprint``) of the ruleset's resolved text then each card
    file's bytes."""
    h = hashlib.sha256()
    for data in contents:
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def span_names(ruleset: Ruleset, path: str) -> tuple[tuple[str, ...], ...]:
    """The texts naming each file in ``ruleset``'s spans: the ruleset's path as it was loaded, then each file it
    includes as its spans name it (dsl/frontend/includes.py); each card or graph file's path, and its display name
    (relative to the working folder when inside it, as the card loader shows)."""
    out: list[tuple[str, ...]] = [(path,)]
    out.extend((name,) for name in ruleset.program.rule_files[1:])
    for name in ruleset.program.card_files:
        rel = os.path.relpath(name)
        out.append((name, name if rel.startswith("..") else rel))
    return tuple(out)


def _rule_files(path: str) -> tuple[list[tuple[str, bytes]], bytes]:
    """The ruleset's own files (the main one, then each it includes) as read now, and their resolved text: the
    bytes the fingerprint hashes first (dsl/loader.py ``fingerprint``)."""
    read_now: list[tuple[str, bytes]] = []

    def read(name: str, span: Span) -> tuple[str | None, list[Diagnostic]]:
        try:
            data = Path(name).read_bytes()
        except OSError as err:
            raise ValueError(f"cannot read {name} to send it to the cluster: {err.strerror or err}") from None
        read_now.append((name, data))
        return data.decode("utf-8", "surrogateescape"), []

    text, _ = read(path, Span.point(path, 1, 1))
    if text is None:  # never: read raises instead
        raise ValueError(f"cannot read {path}")
    ruleset, _, sources = resolve(path, text, read)
    if ruleset is None:
        raise ValueError(f"{path} or a file it includes changed while it was being read; run the command again")
    if len(read_now) == 1:  # one file: its bytes exactly, as the loader hashes them
        return read_now, read_now[0][1]
    return read_now, sources.resolved.encode("utf-8", "surrogateescape")


def make_bundle(ruleset: Ruleset, path: str) -> Bundle:
    """Read ``path``, the files it includes and the files ``ruleset`` (compiled from them) loaded; ``ValueError``
    if any changed meanwhile."""
    root = project_root(path)
    rule_files, resolved = _rule_files(path)
    contents: list[bytes] = [resolved]
    files: list[tuple[str, bytes]] = []
    for name, data in rule_files:
        files.append((Path(name).resolve().relative_to(root).as_posix(), zlib.compress(data, 6)))
    for name in ruleset.program.card_files:
        resolved_path = Path(name).resolve()
        try:
            data = resolved_path.read_bytes()
        except OSError as err:
            raise ValueError(f"cannot read {name} to send it to the cluster: {err.strerror or err}") from None
        contents.append(data)
        files.append((resolved_path.relative_to(root).as_posix(), zlib.compress(data, 6)))
    fingerprint = fingerprint_of(contents)
    if ruleset.fingerprint and fingerprint != ruleset.fingerprint:
        raise ValueError(f"{path} or one of its card files changed while it was being read; run the command again")
    return Bundle(fingerprint, tuple(files), names=span_names(ruleset, path))


def _safe_relative(name: str) -> PurePosixPath:
    rel = PurePosixPath(name)
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        raise ValueError(f"a bundle names the file {name!r}, which is not a path inside the project folder")
    return rel


def compiled(bundle: Bundle) -> Ruleset:
    """The compiled ruleset of ``bundle``: compiled once per process and fingerprint, then reused."""
    return _entry(bundle)[0]


def renamer(bundle: Bundle) -> Callable[[str], str] | None:
    """Rewrites this worker's names of the bundle's files into the client's, in a runtime error's text.

    A runtime error names its rule's position (``division by zero at rules.rules:5:44``), and a game's digest
    hashes its error, so an aborted game must read on a worker exactly as on the client: the worker compiled
    copies in a temporary folder, whose names are swapped for the client's (None when they already agree).
    """
    mine = _entry(bundle)[1]
    pairs = sorted({(w, c) for ws, cs in zip(mine, bundle.names, strict=False) for w, c in zip(ws, cs, strict=False)
                    if w != c}, key=lambda p: -len(p[0]))
    if not pairs:
        return None

    def rename(text: str) -> str:
        for worker, client in pairs:
            text = text.replace(worker, client)
        return text

    return rename


def _entry(bundle: Bundle) -> tuple[Ruleset, tuple[tuple[str, ...], ...]]:
    global compilations
    if bundle.version != __version__:
        raise RuntimeError(f"this worker runs liturgy {__version__}, the client {bundle.version}: install the same "
                           "version on every worker, or digests may differ")
    hit = _compiled.get(bundle.fingerprint)
    if hit is not None:
        _compiled.move_to_end(bundle.fingerprint)
        return hit
    from liturgy.interpreter.engine import load_ruleset

    folder = tempfile.mkdtemp(prefix="liturgy-cluster-")
    try:
        for name, data in bundle.files:
            target = Path(folder, *_safe_relative(name).parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zlib.decompress(data))
        path = os.path.join(folder, *_safe_relative(bundle.ruleset_path).parts)
        ruleset = load_ruleset(path)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if ruleset.fingerprint != bundle.fingerprint:
        raise RuntimeError(f"the worker compiled fingerprint {ruleset.fingerprint[:12]}, not the client's "
                           f"{bundle.fingerprint[:12]}: the bundle is incomplete")
    compilations += 1
    entry = _compiled[bundle.fingerprint] = (ruleset, span_names(ruleset, path))
    # The compiled ruleset lives as long as the worker: moved out of the collector's generations (as `simulate
    # --jobs` does before it forks), full collections during play no longer walk its many objects.
    gc.collect()
    gc.freeze()
    while len(_compiled) > CACHE_SIZE:
        _compiled.popitem(last=False)
    return entry
