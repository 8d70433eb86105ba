"""Reserved words: a word of the language met where the parser wanted a name gets its own error (E300).

The lexer reads a word like `score`, `winner` or `show` as the language's keyword wherever that keyword could
come next, so a variable of that name works in some places and not in others: `let score = 3` parses, and
the next statement `score += 1` does not (after an expression the parser also expects a declaration, and
`score(p) = …` starts one). Lark then reports "unexpected `score`", and the author looks for a missing
symbol that is not there. Saying that the word is reserved, and what to call the variable instead, is the
fix. It is given only where the word starts an assignment (`score = …`, `score += …`, `score.x = …`,
`score[i] = …`), the one place a variable's name is read as a keyword; elsewhere (`end game` after an
unfinished expression) the generic E001 stays.
"""
from __future__ import annotations

import re

from liturgy.dsl.diagnostics import Diagnostic, Span

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# What follows a name that starts an assignment statement (`==` is a comparison, not an assignment).
_ASSIGNMENT = re.compile(r"(=(?!=)|\+=|-=|\.|\[)")


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
