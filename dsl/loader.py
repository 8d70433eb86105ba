"""Read, parse and check a ruleset file: the single front door to the language."""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from liturgy.dsl.checker.checker import check_ruleset
from liturgy.dsl.checker.program import Program
from liturgy.dsl.diagnostics import Diagnostic, Span, remember_source
from liturgy.dsl.files import FileRefused, read_limited
from liturgy.dsl.frontend.parser import parse_ruleset_text
from liturgy.dsl.printable import surrogate_escapes

MAX_RULESET_BYTES = 2_000_000


@contextmanager
def _no_gc_pauses() -> Iterator[None]:
    """Hold back the cyclic garbage collector while a ruleset is parsed and checked.

    Parsing allocates tens of thousands of long-lived objects (AST nodes,
    spans, YAML nodes) and almost no garbage cycles, so the collector's
    repeated scans of the growing heap cost 15-25% of the check of a large
    ruleset and free nothing.  Objects are still reference-counted as usual;
    the collector is re-enabled (if it was enabled) as soon as the check ends.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def check_file(path: str) -> tuple[Program | None, list[Diagnostic]]:
    """Parse and check ``path``; the program is None when there is any error."""
    with _no_gc_pauses():
        return _check_file(path)


def _check_file(path: str) -> tuple[Program | None, list[Diagnostic]]:
    try:
        raw = read_limited(path, MAX_RULESET_BYTES)
    except FileRefused as err:
        if err.size is not None:
            return None, [Diagnostic("E212", "error", f"ruleset is too large ({err.size} bytes)",
                                     Span.point(path, 1, 1), hint=f"the limit is {MAX_RULESET_BYTES} bytes")]
        return None, [Diagnostic("E200", "error", f"cannot read ruleset: {err.reason}", Span.point(path, 1, 1))]
    except OSError as err:
        return None, [Diagnostic("E200", "error", f"cannot read ruleset: {err.strerror or err}",
                                 Span.point(path, 1, 1))]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return None, [Diagnostic("E201", "error", f"ruleset is not UTF-8 (byte {err.start})",
                                 Span.point(path, 1, 1), hint="save the file as UTF-8")]
    halves = surrogate_escapes(text, path)
    if halves:
        remember_source(path, text)  # the diagnostics quote the line
        return None, halves
    ruleset, diags = parse_ruleset_text(text, path)
    if ruleset is None:
        return None, diags
    try:
        program, diags = check_ruleset(ruleset)
    except RecursionError:
        return None, [Diagnostic("E003", "error", "nesting is too deep to check", Span.point(path, 1, 1),
                                 hint="split deeply nested expressions into `let` steps")]
    if program is None or any(d.is_error for d in diags):
        return None, _sorted(diags)
    program.fingerprint = _fingerprint(raw, program.card_files)
    return program, _sorted(diags)


def _fingerprint(ruleset_bytes: bytes, card_files: list[str]) -> str:
    """SHA-256 of the ruleset and its card files as checked: any edit to the rules or a card changes it.

    Card files are hashed by content and position in the load order, not by path, so a project moved to
    another folder keeps its fingerprint. A card file that vanished since the check cannot be hashed;
    the fingerprint then says so instead of failing (the check itself succeeded).
    """
    h = hashlib.sha256(len(ruleset_bytes).to_bytes(8, "little"))
    h.update(ruleset_bytes)
    for path in card_files:
        try:
            data = Path(path).read_bytes()
        except OSError:
            data = b"\x00unreadable"
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def _sorted(diags: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(diags, key=lambda d: (d.span.file, d.span.line, d.span.column, d.code))
