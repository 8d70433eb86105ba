"""Columns as the protocol counts them: UTF-16 code units by default, or the encoding negotiated at start-up.

The checker's spans count code points (Python string indices), but an LSP position's ``character`` counts UTF-16
code units unless client and server agreed on another encoding (LSP 3.17 ``general.positionEncodings`` and the
server's ``positionEncoding``). On a line with a character beyond the Basic Multilingual Plane (an emoji in a
card's text) the two differ: without a conversion a diagnostic underlines the wrong characters and a hover or a
go-to-definition after the emoji finds the wrong name.

The server picks, from what the client offers, ``utf-32`` (code points: no conversion at all), else ``utf-8``,
else ``utf-16`` (every client supports it, and it is the default when the client offers nothing).

:class:`Codec` also replaces pygls' own converter (pygls 1.3 applies incremental edits with it): pygls counts an
astral character as three UTF-32 units or six UTF-8 ones and any other non-ASCII character as one UTF-8 unit, so
its conversions are right only for UTF-16.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types as T
from pygls.workspace.position_codec import PositionCodec

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"
# the order the server prefers the encodings a client offers in
PREFERENCE = (T.PositionEncodingKind.Utf32, T.PositionEncodingKind.Utf8, T.PositionEncodingKind.Utf16)


def choose_encoding(offered: Sequence[str] | None) -> T.PositionEncodingKind:
    """The encoding the server uses, among those the client ``offered`` (UTF-16 when it offered none we know)."""
    names = {name_of(k) for k in offered or ()}
    return next((k for k in PREFERENCE if k.value in names), T.PositionEncodingKind.Utf16)


def name_of(encoding: object) -> str:
    """``"utf-16"`` for ``PositionEncodingKind.Utf16`` or ``"utf-16"`` (str() of the enum member is its name)."""
    return str(getattr(encoding, "value", encoding))


def units(text: str, encoding: str) -> int:
    """The length of ``text`` in the encoding's code units."""
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _content(line: str) -> str:
    """A line without its line break (LSP lines end at ``\\n``, ``\\r\\n`` or ``\\r``)."""
    if line.endswith("\r\n"):
        return line[:-2]
    return line[:-1] if line.endswith(("\n", "\r")) else line


def to_client(line: str, index: int, encoding: str) -> int:
    """The protocol character of code point ``index`` (0-based) in ``line``; past the end counts as 1 unit each."""
    head = line[:index]
    return units(head, encoding) + max(0, index - len(head))


def from_client(line: str, character: int, encoding: str) -> int:
    """The code point index (0-based) of the protocol ``character`` in ``line``: the line's end when past it, and
    the character's start when it falls inside a character's code units (half of a surrogate pair)."""
    text = _content(line)
    if encoding == UTF32 or text.isascii():
        return max(0, min(character, len(text)))
    count = 0
    for i, ch in enumerate(text):
        width = units(ch, encoding)
        if count + width > character:
            return i
        count += width
    return len(text)


class Codec(PositionCodec):
    """pygls' position converter with exact counts for every encoding (pygls uses it to apply incremental edits
    and the server to convert every position it sends or receives)."""

    def client_num_units(self, chars: str) -> int:
        return units(chars, name_of(self.encoding))

    def position_from_client_units(self, lines: list[str], position: T.Position) -> T.Position:
        if not lines:
            return T.Position(0, 0)
        if position.line >= len(lines):  # past the end: the end of the document
            return T.Position(len(lines) - 1, len(lines[-1]))
        line = lines[position.line]
        return T.Position(position.line, from_client(line, position.character, name_of(self.encoding)))

    def position_to_client_units(self, lines: list[str], position: T.Position) -> T.Position:
        if position.line >= len(lines):
            return T.Position(len(lines), 0)
        return T.Position(position.line, to_client(lines[position.line], position.character, name_of(self.encoding)))


__all__ = ["Codec", "choose_encoding", "from_client", "name_of", "to_client", "units"]
