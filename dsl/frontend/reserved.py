"""Reserved words used as names: the one syntax error that deserves its own code (E300).

The grammar's words (`end`, `move`, `winner`…) are contextual: the fast parser reads one as a name wherever
only a name fits. Where the word can itself start a statement, `end = 2` reads as the start of `end game` and
the parse breaks on the `=`; this names the real mistake instead of "unexpected `=`".
"""

from __future__ import annotations

import re

from lark import Lark
from lark.exceptions import UnexpectedInput, UnexpectedToken
from liturgy.dsl.diagnostics import Diagnostic, Span

_WORDS: dict[int, frozenset[str]] = {}


def reserved_words(lark: Lark) -> frozenset[str]:
    """Every word of the grammar: a name cannot be one where the word fits."""
    words = _WORDS.get(id(lark))
    if words is None:
        words = _WORDS[id(lark)] = frozenset(
            v for t in lark.terminals if isinstance(v := getattr(t.pattern, "value", None), str) and v.isidentifier())
    return words


def reserved_word_diag(err: UnexpectedInput, text: str, file: str, lark: Lark) -> Diagnostic | None:
    """E300 when the parse broke right after a reserved word used as a name (`end = 2`), else None."""
    if not isinstance(err, UnexpectedToken) or err.token.type == "$END":
        return None
    before = text[: err.token.start_pos or 0]
    m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*$", before)
    if m is None or m.group(1) not in reserved_words(lark) or str(err.token.value) not in ("=", "+=", "-=", "."):
        return None
    word = m.group(1)
    line = before.count("\n") + 1
    col = m.start(1) - (before.rfind("\n") + 1) + 1
    return Diagnostic("E300", "error", f"`{word}` is a reserved word of the language and cannot name a variable",
                      Span(file, line, col, line, col + len(word)),
                      hint=f"rename it, e.g. `{word}_count` or `my_{word}`")
