"""Syntax errors in player-readable words: Lark's exceptions become located E001/E002 diagnostics.

Kept apart from the parser so that the one place deciding how a syntax error reads (a reserved word used as a
name, what was expected, a missing closing brace) can grow without the AST builder growing with it.
"""

from __future__ import annotations

import re
from typing import Any

from lark import Lark, Token
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


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def keyword_as_name(err: UnexpectedInput) -> bool:
    """Lark's ``on_error``: read a keyword as a name where, after the reductions its lookahead allowed, only a
    name fits, and go on parsing (True); anything else stays an error (False).

    LALR merges the state that ends an expression with the one that ends a declaration, so after
    `let pool = 1` the contextual lexer also accepts the declaration word `pool` and reads the next statement's
    `pool = 2` as that word; the parser then reduces the statement and finds no action for it, where a name
    would fit. The fast driver (:func:`fast_parse`) retypes such a keyword to ``NAME`` at that point; doing the
    same here keeps the reference path (used for every syntax error and as the fallback) in agreement with it,
    so a user's name shadows any keyword the grammar does not need where it stands (issue 33). The token is
    tried on a copy first, so a failure leaves the state that the original error describes.
    """
    if not isinstance(err, UnexpectedToken) or err.interactive_parser is None:
        return False
    tok = err.token
    if tok.type == "NAME" or "NAME" not in err.expected or not _WORD.fullmatch(str(tok)):
        return False
    name = Token.new_borrow_pos("NAME", str(tok), tok)
    interactive: Any = err.interactive_parser  # Lark leaves its `copy` untyped
    try:
        interactive.copy(deepcopy_values=False).feed_token(name)
    except UnexpectedInput:
        return False
    interactive.feed_token(name)
    return True
