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
from liturgy.dsl.frontend.includes import resolve
from liturgy.dsl.printable import surrogate_escapes

MAX_RULESET_BYTES = 2_000_000
RELATIVE_HINT = "an included path is relative to the main file's folder, whichever file includes it"


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


def _read_text(path: str, span: Span, budget: list[int]) -> tuple[str | None, list[Diagnostic]]:
    """The text of one file of the ruleset, or why not (E200 unreadable, E201 not UTF-8, E212 too large),
    located at ``span``: the main file's start, or the `include` line that named the file. ``budget`` holds the
    bytes all the ruleset's files may still take together."""
    main = span.line == 1 and span.column == 1 and span.file == path
    what = "ruleset" if main else f"included file `{path}`"
    try:
        raw = read_limited(path, budget[0])
    except FileRefused as err:
        if err.size is not None:
            message = f"{what} is too large ({err.size} bytes)" if main else f"{what} makes the ruleset too large"
            limit = f"the limit is {MAX_RULESET_BYTES} bytes" + ("" if main else " for all its files together")
            return None, [Diagnostic("E212", "error", message, span, hint=limit)]
        return None, [Diagnostic("E200" if main else "E214", "error", f"cannot read {what}: {err.reason}", span,
                                 hint="" if main else RELATIVE_HINT)]
    except OSError as err:
        return None, [Diagnostic("E200" if main else "E214", "error", f"cannot read {what}: {err.strerror or err}",
                                 span, hint="" if main else RELATIVE_HINT)]
    budget[0] -= len(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return None, [Diagnostic("E201", "error", f"{what} is not UTF-8 (byte {err.start})",
                                 Span.point(path, 1, 1), hint="save the file as UTF-8")]
    halves = surrogate_escapes(text, path)
    if halves:
        remember_source(path, text)  # the diagnostics quote the line
        return None, halves
    return text, []


def _check_file(path: str) -> tuple[Program | None, list[Diagnostic]]:
    budget = [MAX_RULESET_BYTES]

    def read(name: str, span: Span) -> tuple[str | None, list[Diagnostic]]:
        return _read_text(name, span, budget)

    text, diags = read(path, Span.point(path, 1, 1))
    if text is None:
        return None, diags
    ruleset, diags, sources = resolve(path, text, read)
    if ruleset is None:
        return None, _sorted(diags)
    try:
        program, diags = check_ruleset(ruleset)
    except RecursionError:
        return None, [Diagnostic("E003", "error", "nesting is too deep to check", Span.point(path, 1, 1),
                                 hint="split deeply nested expressions into `let` steps")]
    if program is None or any(d.is_error for d in diags):
        return None, _sorted(diags)
    program.rule_files = list(sources.files)
    program.fingerprint = fingerprint(sources.resolved.encode("utf-8"), program.card_files)
    return program, _sorted(diags)


def fingerprint(resolved: bytes, card_files: list[str]) -> str:
    """SHA-256 of the ruleset's resolved text and its card files as checked: any edit to the rules or a card
    changes it.

    The resolved text (dsl/frontend/includes.py) is a one-file ruleset's bytes exactly as read, so its
    fingerprint is the one it always had; a ruleset split into files hashes the text its includes stand for,
    so moving whole lines into an included file changes nothing. Card files are hashed by content and position
    in the load order, not by path, so a project moved to another folder keeps its fingerprint. A card file
    that vanished since the check cannot be hashed; the fingerprint then says so instead of failing (the check
    itself succeeded).
    """
    h = hashlib.sha256(len(resolved).to_bytes(8, "little"))
    h.update(resolved)
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
