"""A bounded cache of parsed card snippets (effect and function texts), so the same text is parsed once.

Why: card effects repeat. One card file gives the same effect text to many cards, several card files share
texts, and a program that checks many versions of a ruleset (tests/test_compat.py's corpus, the language
server re-checking at every pause in typing) reads the same card files again and again.

What is cached is the snippet parsed *where it stands alone*: every span it made is in a placeholder file at
line 1, column 1. A hit hands the caller a fresh tree with each such span mapped into the caller's file at
the caller's line, column and indent — the arithmetic of :meth:`~liturgy.dsl.diagnostics.Span.shifted`,
which is the parser's builder's when it parses a snippet in place — so spans, and every diagnostic located
by them, are exactly those of an uncached parse. Other spans (``NOWHERE`` defaults) are handed back as they
are, as the builder leaves them. The tree keeps its sharing (a lowered extension may use one node twice)
and is the caller's to mutate (the checker fills in ``ty`` and ``ref``).

How the fresh tree is made: the cached tree is kept as an in-memory pickle in which each span is a call of a
stand-in function (a ``dispatch_table`` entry, so only spans cost Python time); unpickling builds the nodes in
C and :class:`_Thaw` answers the stand-in with its own method, which places the span. That is about three times
faster than parsing (a generic Python deep copy was under twice). The bytes are made here from trees the
parser has just built and never leave the process, so no outside data is ever unpickled; a tree that does not
pickle is simply not cached.

A text is cached on its :data:`ADMIT`-th sighting (the earlier ones are counted): a text met once or twice, the
common case in a single ruleset load, costs its parses as before and nothing more. The key is the exact text, the
grammar start symbol and the generation of the extension registry (dsl/constructs/extensions.py: each
registration or withdrawal can change both the grammar and the nodes built). Entries are bounded (least
recently used out), and so is the length of a text that is cached.
"""

from __future__ import annotations

import io
import pickle
from collections import OrderedDict
from typing import Any

from liturgy.dsl.diagnostics import NOWHERE, Span, new_span

PLACEHOLDER = "\0snippet"  # the file of a snippet parsed on its own: no real file can have this name
MAX_ENTRIES = 4096  # parsed snippets kept; the seen-once marks are bounded by the same number
ADMIT = 3  # the sighting of a text at which it is kept: a text met once or twice costs nothing extra
MAX_TEXT = 20_000  # characters: a longer snippet is never cached (it is rare, and would hold much memory)


class Frozen:
    """A snippet's tree as kept: the pickle's bytes and the spans it kept aside as they are."""

    __slots__ = ("data", "kept")

    def __init__(self, data: bytes, kept: list[Span]) -> None:
        self.data = data
        self.kept = kept


def _placed(line: int, column: int, end_line: int, end_column: int) -> Span:  # pragma: no cover - never called
    """What a frozen placeholder span reduces to; :class:`_Thaw` answers this name with its own ``place``."""
    raise AssertionError("a frozen snippet is thawed only by _Thaw")


def _kept(index: int) -> Span:  # pragma: no cover - never called
    """What a frozen span from elsewhere reduces to; :class:`_Thaw` answers with the span itself."""
    raise AssertionError("a frozen snippet is thawed only by _Thaw")


class _Freeze(pickle.Pickler):
    """Writes every span as a call: a placeholder span as ``_placed`` of its four numbers, any other as ``_kept``
    of its index in ``kept``. Only spans go through Python (a ``dispatch_table`` entry), the rest is C."""

    def __init__(self, out: io.BytesIO, file: str, line: int, column: int, indent: int) -> None:
        super().__init__(out, protocol=pickle.HIGHEST_PROTOCOL)
        self.kept: list[Span] = []
        self.dispatch_table = {Span: self._span}
        self.file, self.line0, self.first, self.indent = file, line - 1, column - 1, indent

    def _span(self, span: Span) -> tuple[Any, tuple[int, ...]]:
        if span.file == self.file:  # back to where it stands in the snippet: the inverse of _Thaw.place
            line, end = span.line - self.line0, span.end_line - self.line0
            return _placed, (line, span.column - (self.first if line == 1 else self.indent),
                             end, span.end_column - (self.first if end == 1 else self.indent))
        self.kept.append(span)
        return _kept, (len(self.kept) - 1,)


class _Thaw(pickle.Unpickler):
    """Reads a :class:`Frozen` tree back, each placeholder span placed at ``file:line:column`` (``indent``
    for the snippet's later lines), each kept span the very object it was. The frozen bytes name only this
    module's two span functions and the tree's node classes (made in-process by :class:`_Freeze`)."""

    def __init__(self, frozen: Frozen, file: str, line: int, column: int, indent: int) -> None:
        super().__init__(io.BytesIO(frozen.data))
        self.kept = frozen.kept
        self.file = file
        self.line0 = line - 1
        self.first = column - 1  # the shift of the snippet's first line; later lines shift by ``indent``
        self.indent = indent

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__ and name == "_placed":
            return self.place
        if module == __name__ and name == "_kept":
            return self.kept.__getitem__
        return super().find_class(module, name)

    def place(self, line: int, column: int, end_line: int, end_column: int) -> Span:
        return new_span(Span, (self.file, self.line0 + line, column + (self.first if line == 1 else self.indent),
                               self.line0 + end_line, end_column + (self.first if end_line == 1 else self.indent)))


def freeze(tree: Any, file: str = PLACEHOLDER, line: int = 1, column: int = 1, indent: int = 0) -> Frozen | None:
    """``tree``, a snippet parsed at ``file:line:column`` (by default on its own), as kept, or None if it cannot
    be (then it is not cached: an object that does not pickle, or a tree too deep). The spans in ``file`` are
    the snippet's own; any other span is kept as it is."""
    if not file or file == NOWHERE.file:  # a span of the snippet must never be confused with a default one
        return None
    out = io.BytesIO()
    freezer = _Freeze(out, file, line, column, indent)
    try:
        freezer.dump(tree)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return None
    return Frozen(out.getvalue(), freezer.kept)


def thaw(frozen: Frozen, file: str, line: int, column: int, indent: int) -> Any:
    """A fresh copy of a frozen tree placed at ``file:line:column``: the tree parsing there would have built."""
    return _Thaw(frozen, file, line, column, indent).load()


class SnippetCache:
    """Parsed snippets by key, least recently used out; see the module's docstring for what is kept."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self.enabled = True  # False: every snippet is parsed (tests compare the two)
        self._entries: OrderedDict[tuple[Any, ...], tuple[Frozen | None, list[Any]]] = OrderedDict()
        self._seen: OrderedDict[tuple[Any, ...], int] = OrderedDict()  # keys met, not kept yet: how often
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()
        self._seen.clear()
        self.hits = self.misses = 0

    def get(self, key: tuple[Any, ...]) -> tuple[Frozen | None, list[Any]] | None:
        """The cached (frozen tree or None, diagnostics) for ``key``, or None (then
        :meth:`worth_storing` says whether the caller should parse it for the cache)."""
        entry = self._entries.get(key)
        if entry is None:
            self.misses += 1
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return entry

    def worth_storing(self, key: tuple[Any, ...]) -> bool:
        """True if this is the :data:`ADMIT`-th sighting of ``key`` (store it now); otherwise count it, False."""
        n = self._seen.pop(key, 0) + 1
        if n >= ADMIT:
            return True
        self._seen[key] = n
        if len(self._seen) > self.max_entries:
            self._seen.popitem(last=False)
        return False

    def put(self, key: tuple[Any, ...], tree: Frozen | None, diagnostics: list[Any]) -> None:
        """Keep (or refresh) a snippet's frozen tree (None: it did not parse) and its diagnostics."""
        self._entries[key] = (tree, diagnostics)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)


SNIPPETS = SnippetCache()
"""The process's cache of card snippets, used by :func:`liturgy.dsl.frontend.parser.parse_effect_text` and
:func:`~liturgy.dsl.frontend.parser.parse_expr_text`."""
