"""Syntax errors in player-readable words: Lark's exceptions become located E001/E002 diagnostics.

Kept apart from the parser so that the one place deciding how a syntax error reads (a reserved word used as a
name, what was expected, a missing closing brace) can grow without the AST builder growing with it.
"""

from __future__ import annotations

from lark import Lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from liturgy.dsl.diagnostics import Diagnostic, Span
from liturgy.dsl.frontend.expected import describe_expected
from liturgy.dsl.frontend.reserved import grammar_words, reserved_before_diag, reserved_word_diag


def syntax_diagnostic(err: UnexpectedInput, file: str, text: str, lark: Lark) -> Diagnostic:
    """One diagnostic for one of Lark's syntax errors, with what was expected said in words (``lark`` is the
    parser that raised it: its terminals name the expected tokens)."""
    line = max(1, getattr(err, "line", 1) or 1)
    col = max(1, getattr(err, "column", 1) or 1)
    if isinstance(err, UnexpectedToken):
        tok = err.token
        shown = "end of file" if tok.type == "$END" else f"`{tok.value}`"
        expected = describe_expected(set(err.expected), lark)
        width = max(1, len(str(tok.value))) if tok.type != "$END" else 1
        span = Span(file, line, col, line, col + width)
        after = text[tok.end_pos:tok.end_pos + 40] if tok.end_pos is not None else ""
        before = text[:tok.start_pos] if tok.start_pos is not None else ""
        return reserved_word_diag(str(tok.value), tok.type, set(err.expected), after, span) or reserved_before_diag(
            str(tok.value), before, grammar_words(lark.terminals), file, line) or Diagnostic(
            "E001",
            "error",
            f"unexpected {shown}; expected {expected}",
            Span(file, line, col, line, col + width),
            hint="check the statement just before this point for a missing or extra symbol",
        )
    if isinstance(err, UnexpectedCharacters):
        ch = err.char if hasattr(err, "char") else "?"
        return Diagnostic(
            "E002",
            "error",
            f"unexpected character `{ch}`",
            Span.point(file, line, col),
            hint="names use letters, digits and `_`; text goes in double quotes",
        )
    if isinstance(err, UnexpectedEOF):
        return Diagnostic(
            "E001",
            "error",
            f"unexpected end of file; expected {describe_expected(set(err.expected), lark)}",
            Span.point(file, line, col),
            hint="a `{` may be missing its closing `}`",
        )
    return Diagnostic("E001", "error", str(err).splitlines()[0], Span.point(file, line, col))


# The words that start a top-level declaration at the start of a line.
_DECL_KEYWORDS = (
    "game", "enum", "die", "card", "cards", "zone", "counter", "flag", "track", "pool", "window", "option",
    "on", "proc", "fn", "setup", "round", "finish", "score", "tiebreak", "winner", "report", "invariant",
    "display", "describe", "mode",
)


def next_decl_line(lines: list[str], after: int) -> int | None:
    """Index of the first line after ``after`` that starts a top-level declaration: where the parser resumes
    after a syntax error, so one run reports several independent mistakes."""
    for i in range(after + 1, len(lines)):
        word = lines[i].split(" ", 1)[0].split("{", 1)[0]
        if word in _DECL_KEYWORDS and not lines[i][:1].isspace():
            return i
    return None
