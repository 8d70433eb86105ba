"""`liturgy lsp`: the Language Server Protocol over stdio, on pygls.

This module only translates between the protocol and :class:`~liturgy.dsl.lsp.workspace.Workspace` (0-based
protocol positions in the negotiated encoding, UTF-16 code units by default, to the checker's 1-based spans in code
points: dsl/lsp/positions.py; symbols to protocol kinds). Edits arrive incrementally
(pygls applies them to its copy of the document); the ruleset is re-checked once typing pauses for
:data:`DEBOUNCE` seconds (or the client's ``initializationOptions.debounce``), so a burst of keystrokes costs
one check, and the diagnostics go to every file they name (the ruleset and its card files). A card YAML file is
checked through its ruleset, with the editor's unsaved text of every open card file.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from liturgy.dsl.diagnostics import Diagnostic, Span
from liturgy.dsl.frontend.layout import FormatError, format_text
from liturgy.dsl.lsp.positions import Codec, choose_encoding, from_client, to_client
from liturgy.dsl.lsp.symbols import Symbol
from liturgy.dsl.lsp.workspace import Workspace
from lsprotocol import types as T
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from liturgy import __version__

DEBOUNCE = 0.25  # seconds of quiet before a re-check

_KINDS = {
    "proc": T.SymbolKind.Function, "fn": T.SymbolKind.Function, "window": T.SymbolKind.Event,
    "zone": T.SymbolKind.Array, "counter": T.SymbolKind.Variable, "flag": T.SymbolKind.Boolean,
    "track": T.SymbolKind.Variable, "option": T.SymbolKind.Constant, "pool": T.SymbolKind.Namespace,
    "pool holder": T.SymbolKind.Variable, "card kind": T.SymbolKind.Class, "field": T.SymbolKind.Field,
    "enum": T.SymbolKind.Enum, "enum value": T.SymbolKind.EnumMember, "die": T.SymbolKind.Object,
    "graph": T.SymbolKind.Struct, "grid": T.SymbolKind.Struct, "step": T.SymbolKind.Method,
    "round": T.SymbolKind.Module, "mode": T.SymbolKind.Namespace, "section": T.SymbolKind.Module,
    "card": T.SymbolKind.Object,
}
_COMPLETION_KINDS = {
    "proc": T.CompletionItemKind.Function, "fn": T.CompletionItemKind.Function,
    "builtin": T.CompletionItemKind.Function, "window": T.CompletionItemKind.Event,
    "zone": T.CompletionItemKind.Variable, "field": T.CompletionItemKind.Field,
    "enum": T.CompletionItemKind.Enum, "enum value": T.CompletionItemKind.EnumMember,
    "card kind": T.CompletionItemKind.Class, "keyword": T.CompletionItemKind.Keyword,
    "local": T.CompletionItemKind.Variable, "parameter": T.CompletionItemKind.Variable,
    "step": T.CompletionItemKind.Method,
}


class LiturgyProtocol(LanguageServerProtocol):
    """pygls' protocol, with the position encoding chosen here (dsl/lsp/positions.py) instead of by pygls."""

    @lsp_method(T.INITIALIZE)
    def lsp_initialize(self, params: T.InitializeParams) -> T.InitializeResult:
        result: T.InitializeResult = super().lsp_initialize(params)
        general = params.capabilities.general
        encoding = choose_encoding(general.position_encodings if general is not None else None)
        result.capabilities.position_encoding = encoding
        # pygls applies incremental edits with the workspace's converter, which documents take when opened
        self.workspace._position_encoding = encoding
        self.workspace._position_codec = Codec(encoding)
        server = self._server
        assert isinstance(server, LiturgyServer)
        server.encoding = encoding.value
        server.debounce = debounce_of(params.initialization_options)
        return result


class LiturgyServer(LanguageServer):
    """pygls' server with the workspace model and the versions waiting for a re-check."""

    def __init__(self) -> None:
        super().__init__("liturgy", __version__, protocol_cls=LiturgyProtocol,
                         text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
        self.model = Workspace()
        self.waiting: dict[str, int] = {}
        self.published: dict[str, set[str]] = {}  # ruleset -> files it last published diagnostics to
        self.encoding = "utf-16"  # the protocol's default, until the client offers another
        self.debounce = DEBOUNCE  # the client may ask for another pause (debounce_of)


def debounce_of(options: Any) -> float:
    """The pause before a re-check the client asked for (``initializationOptions.debounce``, seconds, 0-10),
    else :data:`DEBOUNCE`: an editor on a slow machine may want a longer one, a test that types one edit at a
    time and waits for its diagnostics none (it asserts what is published, never the pause)."""
    value = options.get("debounce") if isinstance(options, dict) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 10:
        return float(value)
    return DEBOUNCE


class Lines:
    """Converts the checker's spans (1-based lines, code point columns) to protocol ranges for one response,
    reading each file's lines once (the editor's text for an open file)."""

    def __init__(self, ls: LiturgyServer) -> None:
        self.ls = ls
        self.lines: dict[str, list[str]] = {}

    def line(self, file: str, number: int) -> str:
        lines = self.lines.get(file)
        if lines is None:
            lines = self.lines[file] = self.ls.model.text_of(file).split("\n")
        return lines[number] if 0 <= number < len(lines) else ""

    def position(self, file: str, line: int, column: int) -> T.Position:
        row, index = max(0, line - 1), max(0, column - 1)
        if self.ls.encoding == "utf-32":
            return T.Position(row, index)
        return T.Position(row, to_client(self.line(file, row), index, self.ls.encoding))

    def range(self, span: Span) -> T.Range:
        file = os.path.abspath(span.file)
        start = self.position(file, span.line, span.column)
        end = self.position(file, span.end_line, span.end_column)
        return T.Range(start, end if (end.line, end.character) >= (start.line, start.character) else start)

    def location(self, span: Span) -> T.Location:
        return T.Location(_uri(os.path.abspath(span.file)), self.range(span))


def _path(uri: str) -> str:
    return os.path.abspath(to_fs_path(uri) or uri)


def _uri(path: str) -> str:
    return from_fs_path(path) or path


def _diagnostic(d: Diagnostic, lines: Lines) -> T.Diagnostic:
    severity = T.DiagnosticSeverity.Error if d.is_error else T.DiagnosticSeverity.Warning
    message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    return T.Diagnostic(lines.range(d.span), message, severity=severity, code=d.code, source="liturgy")


def publish(ls: LiturgyServer, ruleset: str) -> None:
    """Check ``ruleset`` now and send its diagnostics to every file involved (clearing files now clean)."""
    analysis = ls.model.analyse(ruleset)
    files = set(analysis.diagnostics) | ls.published.get(ruleset, set())
    lines = Lines(ls)
    for file in sorted(files):
        diags = [_diagnostic(d, lines) for d in analysis.diagnostics.get(file, [])]
        ls.publish_diagnostics(_uri(file), diags, version=ls.model.versions.get(file))
    ls.published[ruleset] = set(analysis.diagnostics)


server = LiturgyServer()


def _sync(ls: LiturgyServer, uri: str) -> str:
    doc = ls.workspace.get_text_document(uri)
    path = _path(uri)
    ls.model.open(path, doc.source, doc.version or 0)
    return path


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LiturgyServer, params: T.DidOpenTextDocumentParams) -> None:
    path = _sync(ls, params.text_document.uri)
    ruleset = ls.model.ruleset_for(path)
    if ruleset is not None:
        publish(ls, ruleset)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: LiturgyServer, params: T.DidChangeTextDocumentParams) -> None:
    path = _sync(ls, params.text_document.uri)
    ruleset = ls.model.ruleset_for(path)
    if ruleset is None:
        return
    version = params.text_document.version
    ls.waiting[ruleset] = version
    await asyncio.sleep(ls.debounce)
    if ls.waiting.get(ruleset) == version:
        publish(ls, ruleset)


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: LiturgyServer, params: T.DidSaveTextDocumentParams) -> None:
    ruleset = ls.model.ruleset_for(_sync(ls, params.text_document.uri))
    if ruleset is not None:
        publish(ls, ruleset)


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: LiturgyServer, params: T.DidCloseTextDocumentParams) -> None:
    ls.model.close(_path(params.text_document.uri))


def _at(ls: LiturgyServer, params: Any) -> tuple[str, int, int]:
    """The request's file and its position as the checker counts it (1-based line, code point column)."""
    pos: T.Position = params.position
    path = _path(params.text_document.uri)
    character = pos.character
    if ls.encoding != "utf-32":
        character = from_client(Lines(ls).line(path, pos.line), character, ls.encoding)
    return path, pos.line + 1, character + 1


@server.feature(T.TEXT_DOCUMENT_HOVER)
def hover(ls: LiturgyServer, params: T.HoverParams) -> T.Hover | None:
    text = ls.model.hover(*_at(ls, params))
    if text is None:
        return None
    return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, text))


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
def definition(ls: LiturgyServer, params: T.DefinitionParams) -> list[T.Location]:
    lines = Lines(ls)
    return [lines.location(s) for s in ls.model.definition(*_at(ls, params))]


@server.feature(T.TEXT_DOCUMENT_REFERENCES)
def references(ls: LiturgyServer, params: T.ReferenceParams) -> list[T.Location]:
    spans = ls.model.references(*_at(ls, params), include_declaration=params.context.include_declaration)
    lines = Lines(ls)
    return [lines.location(s) for s in spans]


@server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["."]))
def completion(ls: LiturgyServer, params: T.CompletionParams) -> T.CompletionList:
    items = [
        T.CompletionItem(label, kind=_COMPLETION_KINDS.get(kind, T.CompletionItemKind.Variable),
                         detail=detail or kind, sort_text=("0" if kind in ("field", "local") else "1") + label)
        for label, kind, detail in ls.model.completions(*_at(ls, params))
    ]
    return T.CompletionList(is_incomplete=False, items=items)


def _document_symbol(sym: Symbol, lines: Lines) -> T.DocumentSymbol:
    whole = lines.range(sym.decl_span or sym.span)
    name = lines.range(sym.span)
    if (name.start.line, name.start.character) < (whole.start.line, whole.start.character) or \
            (name.end.line, name.end.character) > (whole.end.line, whole.end.character):
        whole = name
    return T.DocumentSymbol(
        name=sym.name, kind=_KINDS.get(sym.kind, T.SymbolKind.Variable), range=whole, selection_range=name,
        detail=sym.kind, children=[_document_symbol(c, lines) for c in sym.children] or None,
    )


@server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbol(ls: LiturgyServer, params: T.DocumentSymbolParams) -> list[T.DocumentSymbol]:
    path = _path(params.text_document.uri)
    index = ls.model.index_for(path)
    if index is None:
        return []
    lines = Lines(ls)
    if not path.endswith(".rules"):  # a card file: its cards
        return [_document_symbol(s, lines) for s in index.cards.values() if s.span.file == path]
    return [_document_symbol(s, lines) for s in index.symbols]


@server.feature(T.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: LiturgyServer, params: T.DocumentFormattingParams) -> list[T.TextEdit]:
    """`liturgy fmt` on the document; nothing when it does not parse (its diagnostics already say why)."""
    path = _path(params.text_document.uri)
    if not path.endswith(".rules"):
        return []
    text = ls.model.text_of(path)
    try:
        out = format_text(text, path)
    except FormatError:
        return []
    if out == text:
        return []
    end = T.Position(text.count("\n") + 1, 0)
    return [T.TextEdit(T.Range(T.Position(0, 0), end), out)]


def serve() -> None:
    """Run on stdin/stdout until the client says exit."""
    server.start_io()
