"""Checked rulesets kept between processes: a ruleset parsed and checked once is loaded, not checked, again.

Parsing and checking Slay the Spire costs about 0.8 s of CPU, Betrayal 0.45 s, Fury of Dracula 0.3 s, and every
process that loads one paid it again. :func:`check_cached` answers as :func:`liturgy.dsl.loader.check_file`
does, from an entry of the compile cache (:mod:`liturgy.dsl.diskcache`: private folder, SHA-256-verified
entries, ``LITURGY_CACHE=off``) when one matches.

**What an entry depends on.** Its name is the hash of the path as given (spans and diagnostics name files by it),
the absolute path, and :func:`~liturgy.dsl.diskcache.language_version` (the language's source and the Python).
While extension constructs are registered from Python (dsl/constructs/extensions.py) nothing is cached: their
lowering is code, which no hash of files covers. Which files a ruleset reads is known only after checking it
(its includes, card and graph files, what its card patterns match), so the entry lists every file the check read
with its SHA-256, and every card pattern with the files it named (recorded through
:data:`liturgy.dsl.files.READS`); it is used only when each file still reads the same and each pattern still
names the same files. Only clean checks (no error) are stored, with their warnings and the source lines those
quote.

**Why pickle is safe here.** The payload is pickled (the checked program is a graph of the syntax tree's
dataclasses), but it is read only from the private folder, only after its SHA-256 matched, and through an
unpickler that builds nothing but the syntax tree's and the checker's own data classes (no function of any module
is ever called), so even an entry that someone managed to write there cannot run code.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import os
import pickle
from typing import Any

from liturgy.dsl import diagnostics, diskcache
from liturgy.dsl.checker.program import Program
from liturgy.dsl.constructs.extensions import grammar_key
from liturgy.dsl.diagnostics import Diagnostic
from liturgy.dsl.files import READS, FileRefused, read_limited
from liturgy.dsl.frontend.discovery import resolve_pattern
from liturgy.dsl.loader import check_file

_VERIFY_LIMIT = 64 * 1024 * 1024  # a recorded file grown past any reader's limit is simply a changed one
_Inputs = list[tuple[str, str, str]]


# The modules whose classes make up a checked program and its diagnostics (every shipped ruleset, docs example
# and compatibility ruleset pickles classes of these alone); a class from anywhere else makes the entry a miss
_DATA_MODULES = frozenset({"liturgy.dsl.frontend.ast", "liturgy.dsl.frontend.cards", "liturgy.dsl.checker.program",
                           "liturgy.dsl.checker.modes", "liturgy.dsl.diagnostics", "liturgy.dsl.types"})


class _OnlyLiturgy(pickle.Unpickler):
    """Builds instances of the syntax tree's and the checker's own data classes and nothing else: no function,
    no class of any other module (not even one those modules import)."""

    def find_class(self, module: str, name: str) -> Any:
        if module in _DATA_MODULES:
            found = getattr(importlib.import_module(module), name, None)
            if isinstance(found, type) and found.__module__ == module:
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not a class of the language's data")


def check_cached(path: str) -> tuple[Program | None, list[Diagnostic]]:
    """:func:`~liturgy.dsl.loader.check_file`'s answer for ``path``, from the compile cache when its entry
    still matches every file it read; else checked, and stored when clean."""
    if not diskcache.enabled() or grammar_key():  # extensions registered from Python: their lowering is code
        return check_file(path)
    name = diskcache.key("check", diskcache.language_version(), path, os.path.abspath(path))
    found = _load(name, path)
    if found is not None:
        return found
    inputs: _Inputs = []
    remembered = dict(diagnostics._source_cache)
    token = READS.set(inputs)
    try:
        program, diags = check_file(path)
    finally:
        READS.reset(token)
    if program is not None and not any(d.is_error for d in diags):
        quoted = {f: lines for f, lines in diagnostics._source_cache.items() if remembered.get(f) is not lines}
        _store(name, inputs, quoted, program, diags)
    return program, diags


def _load(name: str, path: str) -> tuple[Program, list[Diagnostic]] | None:
    payload = diskcache.read(name)
    if payload is None:
        return None
    try:
        inputs, quoted, program, diags = _OnlyLiturgy(io.BytesIO(payload)).load()
    except Exception:  # noqa: BLE001 - any entry that does not load is a miss, rebuilt by the caller
        return None
    if not isinstance(program, Program) or not _unchanged(inputs):
        return None
    for file, lines in quoted.items():
        diagnostics._source_cache[file] = lines  # the warnings quote these lines
    return program, diags


def _unchanged(inputs: _Inputs) -> bool:
    """Whether every file the check read reads the same now, and every card pattern names the same files."""
    token = READS.set(None)  # verifying records nothing
    try:
        for kind, what, result in inputs:
            if kind == "read":
                try:
                    now = hashlib.sha256(read_limited(what, _VERIFY_LIMIT)).hexdigest()
                except (FileRefused, OSError):
                    now = ""
            else:
                ruleset_path, pattern = what.split("\0", 1)
                now = "\0".join(resolve_pattern(ruleset_path, pattern, diagnostics.Span.point(ruleset_path, 1, 1))[0])
            if now != result:
                return False
        return True
    finally:
        READS.reset(token)


def _store(name: str, inputs: _Inputs, quoted: dict[str, list[str]], program: Program,
           diags: list[Diagnostic]) -> None:
    try:
        payload = pickle.dumps((inputs, quoted, program, diags), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, RecursionError, TypeError, AttributeError):
        return  # a program that does not pickle (nesting deeper than the recursion limit) is simply not cached
    diskcache.write(name, payload)
