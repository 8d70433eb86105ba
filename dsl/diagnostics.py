"""Diagnostics: the one way the toolchain reports a problem to an author.

Every failure a user can cause (a typo in a ruleset, a bad card file, a
malformed log) ends up as a :class:`Diagnostic` with a stable code, so that
tools can match on codes and people can look them up in ``docs/errors.md``.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple


class Span(NamedTuple):
    """A region of a source file, 1-based lines and columns (end exclusive).

    A named tuple rather than a frozen dataclass: the parser makes one per
    node, tens of thousands for a large ruleset, and a tuple is made about
    three times faster while staying just as immutable and comparable.
    """

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    @staticmethod
    def point(file: str, line: int, column: int) -> Span:
        return Span(file, line, column, line, column + 1)

    def shifted(self, file: str, line: int, column: int, indent: int = 0) -> Span:
        """Map a span inside an embedded snippet to its host file.

        Card effects are parsed on their own; ``line``/``column`` give where the
        snippet starts inside the YAML file (and ``indent`` how far its later
        lines are indented there), so errors point at the YAML text.
        """
        start_shift = column - 1 if self.line == 1 else indent
        end_shift = column - 1 if self.end_line == 1 else indent
        return Span(
            file,
            line + self.line - 1,
            self.column + start_shift,
            line + self.end_line - 1,
            self.end_column + end_shift,
        )


NOWHERE = Span("<builtin>", 0, 0, 0, 0)

# ``new_span(Span, (file, line, column, end_line, end_column))`` is ``Span(...)`` without the Python-level
# ``__new__`` a named tuple's constructor runs: the parser, the card loader and the snippet cache make over a
# million spans when the compatibility corpus is checked, and this makes each in about half the time.
new_span = tuple.__new__

# Warnings that are only notes: `liturgy check --strict` does not fail on them. W080 (a ruleset's name shadows a
# built-in) is one, because a ruleset that passed `--strict` must keep passing when a later version of the
# language adds a built-in of a name it already uses.
NOTES = frozenset({"W080"})


@dataclass(frozen=True)
class Diagnostic:
    code: str
    severity: str  # "error" or "warning"
    message: str
    span: Span
    hint: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def to_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity,
            "file": self.span.file,
            "line": self.span.line,
            "column": self.span.column,
            "end": {"line": self.span.end_line, "column": self.span.end_column},
            "message": self.message,
            "hint": self.hint,
        }


class LiturgyError(Exception):
    """An error carrying diagnostics; the CLI prints them instead of a traceback."""

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.diagnostics = list(diagnostics)
        super().__init__("; ".join(d.message for d in self.diagnostics) or "error")


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """A ``did you mean`` hint for a near-miss name, or an empty string."""
    matches = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean `{matches[0]}`?" if matches else ""


_source_cache: dict[str, list[str]] = {}


def remember_source(path: str, text: str) -> None:
    """Keep source text so diagnostics can quote the offending line later."""
    _source_cache[path] = text.splitlines()


def _source_line(path: str, line: int) -> str | None:
    """The line to quote, from text the toolchain read and remembered: a diagnostic never opens a file itself,
    so it cannot echo a file the ruleset only named (an outside file, a device, a huge file)."""
    lines = _source_cache.get(path)
    if lines is None:
        return None
    if 1 <= line <= len(lines):
        return lines[line - 1]
    return None


def render(diag: Diagnostic) -> str:
    """Render in the compiler style: header, source line, caret, hint."""
    s = diag.span
    out = [f"{s.file}:{s.line}:{s.column}: {diag.severity}[{diag.code}]: {diag.message}"]
    text = _source_line(s.file, s.line) if s.line > 0 else None
    if text is not None:
        gutter = f"{s.line} | "
        out.append(gutter + text)
        width = max(1, (s.end_column - s.column) if s.end_line == s.line else len(text) - s.column + 1)
        out.append(" " * (len(gutter) + max(0, s.column - 1)) + "^" * width)
    for note in diag.notes:
        out.append(f"  = note: {note}")
    if diag.hint:
        out.append(f"  = hint: {diag.hint}")
    return "\n".join(out)


def render_all(diags: Iterable[Diagnostic]) -> str:
    return "\n".join(render(d) for d in diags)


def to_json(diags: Iterable[Diagnostic]) -> str:
    return json.dumps([d.to_json() for d in diags], indent=2)
