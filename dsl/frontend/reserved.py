"""Reserved words: a word of the language met where the parser wanted a name gets its own error (E300).

The lexer reads a word like `score`, `winner` or `show` as the language's keyword wherever that keyword could
come next, so a variable of that name works in some places and not in others: `let score = 3` parses, and
the next statement `score += 1` does not (after an expression the parser also expects a declaration, and
`score(p) = …` starts one). Lark then reports "unexpected `score`", and the author looks for a missing
symbol that is not there. Saying that the word is reserved, and what to call the variable instead, is the
fix. It is given only where the word starts an assignment (`score = …`, `score += …`, `score.x = …`,
`score[i] = …`), the one place a variable's name is read as a keyword, and where an assignment follows a
statement word (`move += 1`: `move` began a `move` statement); elsewhere (`end game` after an unfinished
expression) the generic E001 stays.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from liturgy.dsl.diagnostics import Diagnostic, Span

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# What follows a name that starts an assignment statement (`==` is a comparison, not an assignment).
_ASSIGNMENT = re.compile(r"(=(?!=)|\+=|-=|\.|\[)")
_LAST_WORD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:[-+]\s*)?$")  # `move -=` lexes as `move`, `-`, `=`


def grammar_words(terminals: Iterable[Any]) -> frozenset[str]:
    """The grammar's words (`score`, `move`, …) among Lark's terminals: those that are a fixed word."""
    return frozenset(t.pattern.value for t in terminals if t.pattern.type == "str" and _WORD.fullmatch(t.pattern.value))


def reserved_word_diag(word: str, token_type: str, expected: set[str], after: str, span: Span) -> Diagnostic | None:
    """E300 when the unexpected token is a keyword where a name could start a statement and what follows it
    (``after``, the source text after the token) assigns to it; else None."""
    if token_type == "NAME" or not _WORD.fullmatch(word) or "NAME" not in expected:
        return None
    if not _ASSIGNMENT.match(after.lstrip()):
        return None
    return Diagnostic(
        "E300",
        "error",
        f"`{word}` is a reserved word of the language and cannot be used as a name here",
        span,
        hint=f"rename it everywhere, e.g. `{word}_now` or `my_{word}`",
    )


def reserved_before_diag(op: str, before: str, keywords: frozenset[str], file: str, end_line: int) -> Diagnostic | None:
    """E300 when an assignment operator ``op`` is unexpected right after a keyword (``before`` is the source
    text up to the operator): `let move = 2` then `move += 1` reads `move` as the start of a move statement."""
    if op not in ("=", "+=", "-="):
        return None
    m = _LAST_WORD.search(before)
    if m is None or m.group(1) not in keywords:
        return None
    word = m.group(1)
    line = end_line - m.group(0).count("\n")
    column = m.start(1) - (before.rfind("\n", 0, m.start(1)) + 1) + 1
    return reserved_word_diag(word, "KEYWORD", {"NAME"}, op, Span(file, line, column, line, column + len(word)))
