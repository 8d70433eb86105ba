"""A bounded cache of parsed card snippets (effect and function texts), so the same text is parsed once.

Why: card effects repeat. One card file gives the same effect text to many cards, several card files share
texts, and a program that checks many versions of a ruleset (tests/test_compat.py's corpus, the language
server re-checking at every pause in typing) reads the same card files again and again. Parsing a snippet
costs far more than copying its tree.

What is cached is the snippet parsed *where it stands alone*: every span it made is in a placeholder file at
line 1, column 1. A hit hands the caller a fresh deep copy with each such span mapped into the caller's file
at the caller's line, column and indent by :meth:`~liturgy.dsl.diagnostics.Span.shifted` — the same
arithmetic the parser's builder does when it parses a snippet in place, so spans, and every diagnostic
located by them, are exactly those of an uncached parse. Spans from elsewhere (``NOWHERE`` defaults) are
kept as they are, as the builder keeps them. The copy keeps the tree's sharing (a lowered extension may
use one node twice) and is the caller's to mutate (the checker fills in ``ty`` and ``ref``).

A text is cached on its *second* sighting (the first is remembered as seen): a text met once, the common
case in a single ruleset load, costs one parse as before and no copy. The key is the exact text, the
grammar start symbol and the generation of the extension registry (dsl/constructs/extensions.py: each
registration or withdrawal can change both the grammar and the nodes built). Entries are bounded (least
recently used out). A tree with an object the copier does not know is never cached, so the cache can only
save time, never change a result.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from typing import Any

from liturgy.dsl.diagnostics import Span

PLACEHOLDER = "\0snippet"  # the file of a snippet parsed on its own: no real file can have this name
MAX_ENTRIES = 4096  # parsed snippets kept; the seen-once marks are bounded by the same number
MAX_TEXT = 20_000  # characters: a longer snippet is never cached (it is rare, and would hold much memory)

_ATOMS = (str, int, float, bool, type(None), frozenset)  # immutable leaves: shared by the copies


class Uncopyable(Exception):
    """The tree holds an object the copier does not know (or there is no tree to copy): parse instead."""


class _Copier:
    """One relocating deep copy: node for node, every placeholder span moved to ``(file, line, column, indent)``.

    Sharing is kept (``memo`` by identity), so a node that appears twice in the tree appears twice in the copy.
    """

    def __init__(self, file: str, line: int, column: int, indent: int) -> None:
        self.at = (file, line, column, indent)
        self.memo: dict[int, Any] = {}

    def copy(self, v: Any) -> Any:  # noqa: C901 - one dispatch on the value's type, hot (every node of a hit)
        if isinstance(v, Span):
            return v.shifted(*self.at) if v.file == PLACEHOLDER else v
        if isinstance(v, _ATOMS):
            return v
        done = self.memo.get(id(v))
        if done is not None:
            return done
        out: Any
        if isinstance(v, list):
            out = []
            self.memo[id(v)] = out
            out.extend(self.copy(x) for x in v)
        elif type(v) is tuple:
            out = tuple(self.copy(x) for x in v)
            self.memo[id(v)] = out
        elif isinstance(v, dict) and type(v) is dict:
            out = {}
            self.memo[id(v)] = out
            for k, x in v.items():
                out[self.copy(k)] = self.copy(x)
        elif dataclasses.is_dataclass(v) and not isinstance(v, type) and hasattr(v, "__dict__"):
            cls = type(v)
            out = cls.__new__(cls)
            self.memo[id(v)] = out
            out.__dict__.update({k: self.copy(x) for k, x in v.__dict__.items()})
        else:
            raise Uncopyable(type(v).__name__)
        return out


def relocated(tree: Any, file: str, line: int, column: int, indent: int) -> Any:
    """A fresh copy of ``tree`` (a snippet parsed in :data:`PLACEHOLDER`) placed at ``file:line:column``.

    Raises :class:`Uncopyable` for an object it does not know, RecursionError for a tree too deep to copy (the
    caller then parses the snippet in place, as without a cache)."""
    return _Copier(file, line, column, indent).copy(tree)


class SnippetCache:
    """Parsed snippets by key, least recently used out; see the module's docstring for what is kept."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self.enabled = True  # False: every snippet is parsed (tests compare the two)
        self._entries: OrderedDict[tuple[Any, ...], tuple[Any, list[Any]]] = OrderedDict()
        self._seen: OrderedDict[tuple[Any, ...], None] = OrderedDict()  # keys met once, not parsed for the cache
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()
        self._seen.clear()
        self.hits = self.misses = 0

    def get(self, key: tuple[Any, ...]) -> tuple[Any, list[Any]] | None:
        """The cached (tree in the placeholder file, diagnostics) for ``key``, or None (then
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

    def put(self, key: tuple[Any, ...], tree: Any, diagnostics: list[Any]) -> None:
        """Keep (or refresh) a snippet's tree, parsed in :data:`PLACEHOLDER` and never handed out itself (only
        its copies), and its diagnostics. The caller has copied it once, so :func:`relocated` can copy it."""
        self._entries[key] = (tree, diagnostics)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)


SNIPPETS = SnippetCache()
"""The process's cache of card snippets, used by :func:`liturgy.dsl.frontend.parser.parse_effect_text` and
:func:`~liturgy.dsl.frontend.parser.parse_expr_text`."""
