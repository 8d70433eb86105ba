"""Walking a `graph`: neighbours, reach within n connections and shortest distance, over chosen kinds.

A graph is fixed when the ruleset is checked (dsl/checker/graphs.py builds its adjacency per kind), so every
answer is a function of the arguments alone: each is computed once and kept, and a game that asks "where can
this Hunter get by rail in 3 steps" every turn pays for one breadth-first walk per distinct question.
Results list places in the node enum's order, so games stay deterministic.
"""

from __future__ import annotations

from typing import Any

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.runtime.errors import RuleError

Kinds = Any  # a kind (an enum value, a str), a tuple of kinds, or None for every kind


class GraphWalk:
    """Memoised walks over one graph declaration's adjacency."""

    def __init__(self, graph: A.GraphDecl) -> None:
        self.graph = graph
        self.kinds = tuple(graph.edges)
        self.places = tuple(next(iter(graph.edges.values()), {}))
        self.order = {p: i for i, p in enumerate(self.places)}
        self._near: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}
        self._reach: dict[tuple[str, int, tuple[str, ...]], tuple[str, ...]] = {}

    def _kinds(self, kinds: Kinds) -> tuple[str, ...]:
        if kinds is None:
            return self.kinds
        return tuple(kinds) if isinstance(kinds, tuple) else (kinds,)

    def _place(self, x: Any) -> str:
        if x not in self.order:
            raise RuleError(f"`{x}` is not a place of graph `{self.graph.name}`" if x is not None
                            else f"no place given to graph `{self.graph.name}`")
        return str(x)

    def neighbours(self, x: Any, kinds: Kinds) -> tuple[str, ...]:
        key = (self._place(x), self._kinds(kinds))
        found = self._near.get(key)
        if found is None:
            near = {n for k in key[1] for n in self.graph.edges[k][key[0]]}
            found = self._near[key] = tuple(sorted(near, key=self.order.__getitem__))
        return found

    def reach(self, x: Any, n: int, kinds: Kinds) -> tuple[str, ...]:
        key = (self._place(x), max(0, n), self._kinds(kinds))
        found = self._reach.get(key)
        if found is None:
            seen = {key[0]}
            frontier = [key[0]]
            for _ in range(key[1]):
                frontier = [m for p in frontier for m in self.neighbours(p, key[2]) if m not in seen]
                seen.update(frontier)
                if not frontier:
                    break
            seen.discard(key[0])
            found = self._reach[key] = tuple(sorted(seen, key=self.order.__getitem__))
        return found

    def distance(self, a: Any, b: Any, kinds: Kinds) -> int:
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
                for m in self.neighbours(p, ks):
                    if m == goal:
                        return steps
                    if m not in seen:
                        seen.add(m)
                        nxt.append(m)
            frontier = nxt
        return -1
