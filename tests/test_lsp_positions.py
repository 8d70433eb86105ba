"""`liturgy lsp` positions on lines with characters beyond the Basic Multilingual Plane, over real JSON-RPC.

An LSP position's ``character`` counts UTF-16 code units unless the client offered other encodings and the server
picked one (LSP 3.17 ``positionEncoding``); the checker counts code points. On a line holding emoji the two differ,
so diagnostics, hover, definition, references, outline and incremental edits are checked here in all three
encodings: the default (a client that offers nothing: UTF-16), a client offering UTF-32 and one offering UTF-8.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")

from liturgy.dsl.lsp.positions import choose_encoding, from_client, to_client, units  # noqa: E402
from lsp_client import LspClient  # noqa: E402 - after the skip: needs the lsp extra

# Emoji (2 UTF-16 units, 4 UTF-8 bytes each) and an accented letter (1 unit, 2 bytes) before the names the tests
# point at, on the same lines.
RULES = """game "Emoji" { players 2..2 }
counter per player points 0..100 = 0
fn bonus(p: player) -> int = 2
round {
  step s "🎲🎲 é roll" {
    for p in players {
      log "🎲 {} é 🎲 {}", p, bonus(p) + p.points
      p.points += bonus(p)
    }
    end game
  }
}
score(p) = p.points
"""
ENCODINGS = {"utf-16": None, "utf-32": ["utf-32", "utf-16"], "utf-8": ["utf-8", "utf-16"]}


def position(text: str, needle: str, encoding: str, offset: int = 0) -> dict[str, int]:
    """The protocol position of ``needle`` (plus ``offset`` code points) in ``encoding``, counted independently of
    the server's code: by encoding the line's head."""
    for n, line in enumerate(text.split("\n")):
        col = line.find(needle)
        if col >= 0:
            head = line[:col + offset]
            size = len(head.encode("utf-16-le")) // 2 if encoding == "utf-16" else \
                len(head.encode("utf-8")) if encoding == "utf-8" else len(head)
            return {"line": n, "character": size}
    raise AssertionError(needle)


@pytest.fixture(params=list(ENCODINGS), scope="module")
def session(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[
        tuple[LspClient, str, Path]]:
    encoding = request.param
    folder = tmp_path_factory.mktemp(f"emoji-{encoding}")
    path = folder / "emoji.rules"
    path.write_text(RULES, encoding="utf-8")
    c = LspClient(folder)
    offered = ENCODINGS[encoding]
    caps: dict[str, Any] = {"general": {"positionEncodings": offered}} if offered else {}
    result = c.request("initialize", {"processId": None, "rootUri": folder.as_uri(), "capabilities": caps})
    assert result["capabilities"].get("positionEncoding", "utf-16") == encoding
    c.notify("initialized", {})
    yield c, encoding, path
    c.close()


def _open(c: LspClient, path: Path, text: str) -> str:
    uri = path.as_uri()
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "liturgy", "version": 1,
                                                       "text": text}})
    return uri


def test_hover_definition_references_and_outline_after_emoji(session: tuple[LspClient, str, Path]) -> None:
    c, encoding, path = session
    uri = _open(c, path, RULES)
    assert c.wait_diagnostics(uri) == []
    at = {"textDocument": {"uri": uri}, "position": position(RULES, "bonus(p) +", encoding, 1)}
    hover = c.request("textDocument/hover", at)
    assert "fn bonus(p: player) -> int" in hover["contents"]["value"]
    [decl] = c.request("textDocument/definition", at)
    assert decl["range"]["start"] == position(RULES, "bonus(p: player)", encoding)
    refs = c.request("textDocument/references", {**at, "context": {"includeDeclaration": True}})
    starts = sorted((r["range"]["start"]["line"], r["range"]["start"]["character"]) for r in refs)
    use = position(RULES, "bonus(p) +", encoding)
    assert (use["line"], use["character"]) in starts
    end = {"line": use["line"], "character": use["character"] + 5}  # "bonus" is ASCII: 5 units in any encoding
    assert any(r["range"]["end"] == end for r in refs)
    # the points counter after the emoji in the log text: a hover lands on it, not on the letters before
    counter = c.request("textDocument/hover", {"textDocument": {"uri": uri},
                                               "position": position(RULES, "+ p.points", encoding, 5)})
    assert "counter per player points" in counter["contents"]["value"]
    outline = c.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert {s["name"] for s in outline} >= {"bonus", "points"}


def test_diagnostics_and_incremental_edits_after_emoji(session: tuple[LspClient, str, Path]) -> None:
    c, encoding, path = session
    uri = _open(c, path, RULES)
    c.wait_diagnostics(uri)
    c.forget_diagnostics(uri)
    start = position(RULES, "bonus(p) +", encoding)
    # an incremental edit after the emoji: `bonus` becomes `bonux` (pygls must apply it at the right place)
    c.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"range": {"start": {**start, "character": start["character"] + 4},
                                      "end": {**start, "character": start["character"] + 5}}, "text": "x"}]})
    [diag] = c.wait_diagnostics(uri, lambda d: len(d) > 0)
    assert "bonux" in diag["message"]
    assert diag["range"]["start"] == start
    assert diag["range"]["end"] == {**start, "character": start["character"] + 5}
    c.forget_diagnostics(uri)
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{
        "range": {"start": {**start, "character": start["character"] + 4},
                  "end": {**start, "character": start["character"] + 5}}, "text": "s"}]})
    assert c.wait_diagnostics(uri) == []


def test_conversions() -> None:
    line = 'x = "😋é" + y\n'
    assert [units(line[:i], "utf-16") for i in (5, 6, 7)] == [5, 7, 8]
    assert [units(line[:i], "utf-8") for i in (5, 6, 7)] == [5, 9, 11]
    for enc in ("utf-8", "utf-16", "utf-32"):
        for i in range(len(line)):
            assert from_client(line, to_client(line, i, enc), enc) == i
    assert from_client(line, 6, "utf-16") == 5  # inside the surrogate pair: the emoji's start
    assert from_client(line, 99, "utf-16") == len(line) - 1  # past the end: the end of the line, not the break
    assert choose_encoding(None) == "utf-16" and choose_encoding(["utf-16", "utf-32"]) == "utf-32"
    assert choose_encoding(["utf-8", "utf-16"]) == "utf-8" and choose_encoding(["utf-7"]) == "utf-16"
