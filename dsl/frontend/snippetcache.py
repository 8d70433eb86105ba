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

How the fresh tree is made: the cached tree is kept as an in-memory pickle whose placeholder spans are
"persistent ids" (:mod:`pickle`'s hook for objects kept outside the stream); unpickling builds the nodes in
C and asks :class:`_Thaw` for each span, which places it. That is about three times faster than parsing
(a generic Python deep copy was under twice). The bytes are made here from trees the parser has just built
and never leave the process, so no outside data is ever unpickled; a tree that does not pickle is simply
not cached.

A text is cached on its *second* sighting (the first is remembered as seen): a text met once, the common
case in a single ruleset load, costs one parse as before and nothing more. The key is the exact text, the
grammar start symbol and the generation of the extension registry (dsl/constructs/extensions.py: each
registration or withdrawal can change both the grammar and the nodes built). Entries are bounded (least
recently used out), and so is the length of a text that is cached.
"""

from __future__ import annotations

import io
import pickle
from collections import OrderedDict
from typing import Any

from liturgy.dsl.diagnostics import Span

PLACEHOLDER = "\0snippet"  # the file of a snippet parsed on its own: no real file can have this name
MAX_ENTRIES = 4096  # parsed snippets kept; the seen-once marks are bounded by the same number
MAX_TEXT = 20_000  # characters: a longer snippet is never cached (it is rare, and would hold much memory)


class Frozen:
    """A snippet's tree as kept: the pickle's bytes and the spans it kept aside as they are."""

    __slots__ = ("data", "kept")

    def __init__(self, data: bytes, kept: list[Span]) -> None:
        self.data = data
        self.kept = kept


class _Freeze(pickle.Pickler):
    """Writes every span aside: a placeholder span as its four numbers, any other as an index into ``kept``."""

    def __init__(self, out: io.BytesIO) -> None:
        super().__init__(out, protocol=pickle.HIGHEST_PROTOCOL)
        self.kept: list[Span] = []

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) is not Span:
            return None
        if obj.file == PLACEHOLDER:
            return (obj.line, obj.column, obj.end_line, obj.end_column)
        self.kept.append(obj)
        return len(self.kept) - 1


class _Thaw(pickle.Unpickler):
    """Reads a :class:`Frozen` tree back, each placeholder span placed at ``file:line:column`` (``indent``
    for the snippet's later lines), each kept span the very object it was."""

    def __init__(self, frozen: Frozen, file: str, line: int, column: int, indent: int) -> None:
        super().__init__(io.BytesIO(frozen.data))
        self.kept = frozen.kept
        self.file = file
        self.line0 = line - 1
        self.first = column - 1  # the shift of the snippet's first line; later lines shift by ``indent``
        self.indent = indent

    def persistent_load(self, pid: Any) -> Span:
        if type(pid) is int:
            return self.kept[pid]
        line, column, end_line, end_column = pid
        return Span(self.file, self.line0 + line, column + (self.first if line == 1 else self.indent),
                    self.line0 + end_line, end_column + (self.first if end_line == 1 else self.indent))


def freeze(tree: Any) -> Frozen | None:
    """``tree`` (a snippet parsed in :data:`PLACEHOLDER`) as kept, or None if it cannot be (then it is not
    cached: an object that does not pickle, or a tree too deep)."""
    out = io.BytesIO()
    freezer = _Freeze(out)
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
        self._seen: OrderedDict[tuple[Any, ...], None] = OrderedDict()  # keys met once, not parsed for the cache
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
        """True if ``key`` was seen before (store it now); otherwise mark it as seen and say False."""
        if key in self._seen:
            del self._seen[key]
            return True
        self._seen[key] = None
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
