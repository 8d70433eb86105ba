"""Text that is safe to print: control characters and terminal escapes shown, never obeyed (issue 18).

Ruleset strings, card names, log lines, typed answers and file names all reach the terminal, and a ruleset is
untrusted: an ESC sequence in a card name can clear the screen, retitle the window or hide the lines above it,
and a lone surrogate (``"\\ud800"``) cannot be encoded at all, so printing it ended `liturgy play` mid-game.
Everything the command line prints therefore goes through :func:`printable`: C0 and C1 control characters
(ESC, BEL, backspace, carriage return …), DEL, the bidirectional overrides that reorder what is shown, and
lone surrogates are written as visible ``\\x1b``-style escapes; new lines and tabs stay. A lone surrogate
written as an escape in a ruleset or card file is refused at check time instead (E404), where the author can
fix it: :func:`surrogate_escapes` finds them.
"""

from __future__ import annotations

import re
from typing import Any, TextIO

from liturgy.dsl.diagnostics import Diagnostic, Span

# C0 controls but tab and newline, DEL, C1 controls, bidi embeddings/overrides/isolates, lone surrogates
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# `\ud800` … `\udfff` (or `\U0000d800`) written in a string: the escape that makes a lone surrogate
_SURROGATE_ESCAPE = re.compile(r"\\(u[dD][89a-fA-F][0-9a-fA-F]{2}|U0000[dD][89a-fA-F][0-9a-fA-F]{2})")


def _shown(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every character that would steer the terminal written as a visible escape."""
    return _UNSAFE.sub(_shown, text) if _UNSAFE.search(text) else text


class PrintableStream:
    """A text stream that writes :func:`printable` text to ``inner``. A write that starts with one carriage
    return keeps it: that is how a progress bar redraws its line."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        if text.startswith("\r"):
            return self.inner.write("\r" + printable(text[1:]))
        return self.inner.write(printable(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def surrogate_escapes(text: str, path: str) -> list[Diagnostic]:
    """E404 for each escape in ``text`` that writes a lone surrogate (at most 10: one is enough to fix)."""
    out: list[Diagnostic] = []
    for m in _SURROGATE_ESCAPE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        out.append(Diagnostic("E404", "error", f"`{m.group()}` is half of a surrogate pair, not a character",
                              Span(path, line, column, line, column + len(m.group())),
                              hint="write the character itself, or its full `\\UXXXXXXXX` escape"))
        if len(out) == 10:
            break
    return out
