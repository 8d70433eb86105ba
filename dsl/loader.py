"""Read, parse and check a ruleset file: the single front door to the language."""

from __future__ import annotations

from pathlib import Path

from .checker import Program, check_ruleset
from .diagnostics import Diagnostic, Span
from .parser import parse_ruleset_text

MAX_RULESET_BYTES = 2_000_000


def check_file(path: str) -> tuple[Program | None, list[Diagnostic]]:
    """Parse and check ``path``; the program is None when there is any error."""
    try:
        raw = Path(path).read_bytes()
    except OSError as err:
        return None, [Diagnostic("E200", "error", f"cannot read ruleset: {err.strerror or err}",
                                 Span.point(path, 1, 1))]
    if len(raw) > MAX_RULESET_BYTES:
        return None, [Diagnostic("E212", "error", f"ruleset is too large ({len(raw)} bytes)",
                                 Span.point(path, 1, 1), hint=f"the limit is {MAX_RULESET_BYTES} bytes")]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return None, [Diagnostic("E201", "error", f"ruleset is not UTF-8 (byte {err.start})",
                                 Span.point(path, 1, 1), hint="save the file as UTF-8")]
    ruleset, diags = parse_ruleset_text(text, path)
    if ruleset is None:
        return None, diags
    try:
        program, diags = check_ruleset(ruleset)
    except RecursionError:
        return None, [Diagnostic("E003", "error", "nesting is too deep to check", Span.point(path, 1, 1),
                                 hint="split deeply nested expressions into `let` steps")]
    if any(d.is_error for d in diags):
        return None, _sorted(diags)
    return program, _sorted(diags)


def _sorted(diags: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(diags, key=lambda d: (d.span.file, d.span.line, d.span.column, d.code))
