"""Walking a `graph`: neighbours, reach within n connections and shortest distance, over chosen kinds; and
the connections `link` and `unlink` make and remove during play.

A graph's file is fixed when the ruleset is checked (dsl/checker/graphs.py builds its adjacency per kind).
What play changes is kept as the graph's *difference* from its file, an :data:`Overlay`: a sorted tuple of
``(kind, a, b, present)`` with ``a`` before ``b`` in the enum's order, holding only connections that differ
from the file. It is plain immutable data in one global counter slot, so clones share it, digests and saves
see it, and two games whose boards look the same hold equal overlays. Every answer is then a function of
the arguments and the overlay alone: each is computed once and kept (a bounded cache), and a game that asks
"where can this Hunter get by rail in 3 steps" every turn pays for one breadth-first walk per distinct
question. Results list places in the node enum's order, so games stay deterministic.
"""

from __future__ import annotations

from typing import Any

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.runtime.errors import RuleError

Kinds = Any  # a kind (an enum value, a str), a tuple of kinds, or None for every kind
Overlay = tuple[tuple[str, str, str, bool], ...]  # (kind, a, b, present): how play changed the file's graph

# Past this many remembered answers for changed graphs, the cache starts again (memory stays bounded while
# games with ever new boards run; answers never depend on the cache).
MAX_CACHED_ANSWERS = 50_000


class GraphWalk:
    """Memoised walks over one graph declaration's adjacency."""

    def __init__(self, graph: A.GraphDecl) -> None:
        self.graph = graph
        self.kinds = tuple(graph.edges)
        self.places = tuple(next(iter(graph.edges.values()), {}))
        self.order = {p: i for i, p in enumerate(self.places)}
        self._near: dict[tuple[Any, ...], tuple[str, ...]] = {}
        self._reach: dict[tuple[Any, ...], tuple[str, ...]] = {}
        # answers on the file's graph keyed by the arguments as given (a place, kinds as one value, a tuple or
        # None), looked up before anything is checked or normalised: only arguments that passed the checks once
        # are ever keys. Fury of Dracula asks `neighbours` ~100 times a game; each lookup is now one dict get.
        self._asked: dict[tuple[Any, ...], tuple[str, ...]] = {}

    def _kinds(self, kinds: Kinds) -> tuple[str, ...]:
        if kinds is None:
            return self.kinds
        return tuple(kinds) if isinstance(kinds, tuple) else (kinds,)

    def _place(self, x: Any) -> str:
        if x not in self.order:
            raise RuleError(f"`{x}` is not a place of graph `{self.graph.name}`" if x is not None
                            else f"no place given to graph `{self.graph.name}`")
        return str(x)

    def neighbours(self, x: Any, kinds: Kinds, overlay: Overlay = ()) -> tuple[str, ...]:
        if overlay:
            return self._neighbours(x, kinds, overlay)
        key = (x, kinds)
        try:
            return self._asked[key]
        except KeyError:  # not asked yet: the checked path, then kept
            found = self._asked[key] = self._neighbours(x, kinds, overlay)
            if len(self._asked) > MAX_CACHED_ANSWERS:
                self._asked.clear()
            return found

    def _neighbours(self, x: Any, kinds: Kinds, overlay: Overlay) -> tuple[str, ...]:
        key = (self._place(x), self._kinds(kinds), overlay) if overlay else (self._place(x), self._kinds(kinds))
        found = self._near.get(key)
        if found is None:
            place = key[0]
            near = set()
            for k in key[1]:
                mine = set(self.graph.edges[k][place])
                for kind, a, b, present in overlay:
                    if kind == k and place in (a, b):
                        other = b if a == place else a
                        (mine.add if present else mine.discard)(other)
                near |= mine
            found = tuple(sorted(near, key=self.order.__getitem__))
            self._near[key] = found
            if overlay and len(self._near) > MAX_CACHED_ANSWERS:
                self._near.clear()
        return found

    def reach(self, x: Any, n: int, kinds: Kinds, overlay: Overlay = ()) -> tuple[str, ...]:
        if overlay:
            return self._reached(x, n, kinds, overlay)
        key = (x, n, kinds)
        try:
            return self._asked[key]
        except KeyError:  # not asked yet: the checked path, then kept
            found = self._asked[key] = self._reached(x, n, kinds, overlay)
            if len(self._asked) > MAX_CACHED_ANSWERS:
                self._asked.clear()
            return found

    def _reached(self, x: Any, n: int, kinds: Kinds, overlay: Overlay) -> tuple[str, ...]:
        key = (self._place(x), max(0, n), self._kinds(kinds), overlay)
        found = self._reach.get(key)
        if found is None:
            seen = {key[0]}
            frontier = [key[0]]
            for _ in range(key[1]):
                frontier = [m for p in frontier for m in self.neighbours(p, key[2], overlay) if m not in seen]
                seen.update(frontier)
                if not frontier:
                    break
            seen.discard(key[0])
            found = self._reach[key] = tuple(sorted(seen, key=self.order.__getitem__))
            if overlay and len(self._reach) > MAX_CACHED_ANSWERS:
                self._reach.clear()
        return found

    def adjacent(self, a: Any, b: Any, kinds: Kinds, overlay: Overlay = ()) -> bool:
        return b in self.neighbours(a, kinds, overlay)

    def changed(self, overlay: Overlay, a: Any, b: Any, kinds: Kinds, link: bool) -> Overlay:
        """The overlay after `link` (``link``) or `unlink` of ``a`` and ``b`` by ``kinds``: a connection that is
        there already, or one removed that is not there, changes nothing."""
        first, second = self._place(a), self._place(b)
        if first == second:
            raise RuleError(f"cannot {'link' if link else 'unlink'} `{first}` with itself in graph "
                            f"`{self.graph.name}`")
        if self.order[second] < self.order[first]:
            first, second = second, first
        entries = {(k, x, y): present for k, x, y, present in overlay}
        for k in self._kinds(kinds):
            if k not in self.graph.edges:
                raise RuleError(f"`{k}` is not a kind of connection of graph `{self.graph.name}`")
            in_file = second in self.graph.edges[k][first]
            if link == in_file:
                entries.pop((k, first, second), None)
            else:
                entries[(k, first, second)] = link
        kind_order = {k: i for i, k in enumerate(self.kinds)}
        return tuple(sorted(((k, x, y, p) for (k, x, y), p in entries.items()),
                            key=lambda e: (kind_order[e[0]], self.order[e[1]], self.order[e[2]])))

    def distance(self, a: Any, b: Any, kinds: Kinds, overlay: Overlay = ()) -> int:
        start, goal, ks = self._place(a), self._place(b), self._kinds(kinds)
        if start == goal:
            return 0
        seen = {start}
        frontier = [start]
        steps = 0
        while frontier:
            steps += 1
            nxt = []
            for p in frontier:
                for m in self.neighbours(p, ks, overlay):
                    if m == goal:
                        return steps
                    if m not in seen:
                        seen.add(m)
                        nxt.append(m)
            frontier = nxt
        return -1


def overlay_of(value: Any) -> Overlay:
    """A graph's changes counter as an overlay: it starts at 0 (nothing changed)."""
    return value if isinstance(value, tuple) else ()


def edges_view(overlay: Overlay) -> dict[str, list[list[str]]]:
    """How a view shows a graph's changes: the connections made (``linked``) and removed (``unlinked``) during
    play, each as ``[a, b, kind]`` (a graph is public: every viewer sees the same)."""
    return {"linked": [[a, b, k] for k, a, b, present in overlay if present],
            "unlinked": [[a, b, k] for k, a, b, present in overlay if not present]}
