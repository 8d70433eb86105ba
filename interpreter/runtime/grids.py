"""Grids at run time: where each cell lives in the flat state, and the grid built-ins, shared by the closures
and generated code so both paths raise the same errors and count the same lines.

A grid of W columns by H rows is W*H consecutive counter slots (row-major: cell (c, r) is slot
``base + c + W * r``), so a game's saves, digests, clones and invariants cover it with nothing added. Each grid
also gets, once per ruleset, its rays: for every cell and direction the slots met stepping away from it until
the edge, which turns `line` into a loop over precomputed slots with no bounds test.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from liturgy.dsl.constructs.grids import DIRECTIONS, OPPOSITE
from liturgy.interpreter.runtime.errors import RuleError

# rays are precomputed for grids up to this many (cell, direction, step) entries; bigger grids step and test
MAX_RAY_ENTRIES = 400_000
Line = tuple[tuple[int, ...], tuple[int, ...]]  # one line through a cell: its slots ahead and behind, nearest first


@dataclass
class GridInfo:
    """One grid's place in the state and its compile-time tables."""

    name: str
    base: int  # slot of cell (0, 0)
    width: int
    height: int
    # direction -> per cell index (c + W * r): the slots from the next cell in that direction to the edge
    rays: dict[str, tuple[tuple[int, ...], ...]] | None = field(default=None, repr=False)
    # (directions, n) -> :meth:`spans_reach`'s function, made once per grid however often the rules ask for it
    reach: dict[tuple[tuple[str, ...], int], Callable[[list[Any], Any, Any], bool]] = field(
        default_factory=dict, repr=False, compare=False)
    # tables generated code made for this grid (codegen/gridgen.py: the n-in-a-row test per cell), made once
    made: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        w, h = self.width, self.height
        if w * h * 8 * max(w, h) > MAX_RAY_ENTRIES:
            return
        self.rays = {d: tuple(self._ray(i % w, i // w, dc, dr) for i in range(w * h))
                     for d, (dc, dr) in DIRECTIONS.items()}

    def _ray(self, c: int, r: int, dc: int, dr: int) -> tuple[int, ...]:
        out = []
        c, r = c + dc, r + dr
        while 0 <= c < self.width and 0 <= r < self.height:
            out.append(self.base + c + self.width * r)
            c, r = c + dc, r + dr
        return tuple(out)

    def slot(self, c: Any, r: Any) -> int:
        """The slot of cell (c, r); a rule error off the grid."""
        if 0 <= c < self.width and 0 <= r < self.height:
            return self.base + c + self.width * r  # type: ignore[no-any-return]
        return off_grid(self.name, self.width, self.height, c, r)

    def on(self, c: Any, r: Any) -> bool:
        return bool(0 <= c < self.width and 0 <= r < self.height)

    def steps_on(self, dc: int, dr: int) -> tuple[bool, ...]:
        """Per cell index (c + W * r): whether the cell (dc, dr) away is on the grid too. Generated code tests a
        neighbour with one read of this table instead of two bounds tests (codegen/gridgen.py, :class:`Around`);
        made once per grid and step."""
        key = ("steps_on", dc, dr)
        made = self.made.get(key)
        if made is None:
            w, h = self.width, self.height
            made = self.made[key] = tuple(0 <= i % w + dc < w and 0 <= i // w + dr < h for i in range(w * h))
        return made

    def line(self, counters: list[Any], c: Any, r: Any, d: str) -> int:
        """`line(g, c, r, d)`: cells in a row from (c, r) towards d holding (c, r)'s value, (c, r) included."""
        w = self.width
        if not (0 <= c < w and 0 <= r < self.height):
            return 0
        v = counters[self.base + c + w * r]
        n = 1
        if self.rays is not None:
            for slot in self.rays[d][c + w * r]:
                if counters[slot] != v:
                    break
                n += 1
            return n
        dc, dr = DIRECTIONS[d]
        c, r = c + dc, r + dr
        while 0 <= c < w and 0 <= r < self.height and counters[self.base + c + w * r] == v:
            n += 1
            c, r = c + dc, r + dr
        return n

    def span(self, counters: list[Any], c: Any, r: Any, d: str) -> int:
        """`span(g, c, r, d)`: the run of (c, r)'s value through (c, r) along d, both ways."""
        n = self.line(counters, c, r, d)
        return n + self.line(counters, c, r, OPPOSITE[d]) - 1 if n else 0

    def span_function(self) -> Callable[[list[Any], Any, Any, str], int]:
        """:meth:`span` as a plain function with the grid's numbers and rays bound (what generated code calls)."""
        rays = self.rays
        if rays is None:
            return self.span
        base, w, h = self.base, self.width, self.height
        back = {d: rays[o] for d, o in OPPOSITE.items()}

        def span(counters: list[Any], c: Any, r: Any, d: str) -> int:
            if 0 <= c < w and 0 <= r < h:
                i = c + w * r
                v = counters[base + i]
                n = 1
                for slot in rays[d][i]:
                    if counters[slot] != v:
                        break
                    n += 1
                for slot in back[d][i]:
                    if counters[slot] != v:
                        break
                    n += 1
                return n
            return 0

        return span

    def span_toward(self, d: str) -> Callable[[list[Any], Any, Any], int]:
        """:meth:`span` along the constant direction ``d``, its two rays' tables bound (no lookup by direction)."""
        rays = self.rays
        assert rays is not None  # asked for only where the rays were made (gridgen.builtin)
        ahead, behind = rays[d], rays[OPPOSITE[d]]
        base, w, h = self.base, self.width, self.height

        def span_toward(counters: list[Any], c: Any, r: Any) -> int:
            if 0 <= c < w and 0 <= r < h:
                i = c + w * r
                v = counters[base + i]
                n = 1
                for slot in ahead[i]:
                    if counters[slot] != v:
                        break
                    n += 1
                for slot in behind[i]:
                    if counters[slot] != v:
                        break
                    n += 1
                return n
            return 0

        return span_toward

    def spans_reach(self, dirs: tuple[str, ...], need: int) -> Callable[[list[Any], Any, Any], bool]:
        """``any(span(g, c, r, d) >= need for d in dirs)`` as one function (what generated code calls for the
        n-in-a-row test): per cell, only the lines through it long enough to hold ``need`` cells, each ray cut
        to its first ``need - 1`` slots (a run that long already decides), so a test stops as soon as it knows.
        The same answer as the loop: the run through (c, r) along d reaches ``need`` exactly when the runs
        counted within the cut rays do; off the grid every span is 0."""
        dirs = tuple(dict.fromkeys(dirs))  # a direction named twice tests nothing new
        made = self.reach.get((dirs, need))
        if made is not None:
            return made
        made = self.reach[(dirs, need)] = self._reach_loop(self.reach_lines(dirs, need), need)
        return made

    def reach_lines(self, dirs: tuple[str, ...], need: int) -> tuple[tuple[Line, ...], ...]:
        """Per cell index, the (ahead, behind) rays of each line through it long enough to hold ``need`` cells,
        each cut to its first ``need - 1`` slots (a run that long decides)."""
        rays = self.rays
        assert rays is not None  # asked for only where the rays were made (gridgen.spans_reach)
        keep = max(need - 1, 0)
        return tuple(
            tuple((rays[d][i][:keep], rays[OPPOSITE[d]][i][:keep]) for d in dirs
                  if len(rays[d][i]) + len(rays[OPPOSITE[d]][i]) + 1 >= need)
            for i in range(self.width * self.height))

    def _reach_loop(self, lines: tuple[tuple[Line, ...], ...], need: int) -> Callable[[list[Any], Any, Any], bool]:
        """The n-in-a-row test as loops over the cut rays (for a grid too large to write out per cell)."""
        base, w, h = self.base, self.width, self.height
        off = need <= 0

        def spans_reach(counters: list[Any], c: Any, r: Any) -> bool:
            if 0 <= c < w and 0 <= r < h:
                i = c + w * r
                v = counters[base + i]
                for ahead, behind in lines[i]:
                    n = 1
                    for slot in ahead:
                        if counters[slot] != v:
                            break
                        n += 1
                    for slot in behind:
                        if counters[slot] != v:
                            break
                        n += 1
                    if n >= need:
                        return True
                return False
            return off

        return spans_reach

    def line_function(self) -> Callable[[list[Any], Any, Any, str], int]:
        """:meth:`line` as a plain function with the grid's numbers and rays bound (what generated code calls)."""
        rays = self.rays
        if rays is None:
            return self.line
        base, w, h = self.base, self.width, self.height

        def line(counters: list[Any], c: Any, r: Any, d: str) -> int:
            if 0 <= c < w and 0 <= r < h:
                i = c + w * r
                v = counters[base + i]
                n = 1
                for slot in rays[d][i]:
                    if counters[slot] != v:
                        return n
                    n += 1
                return n
            return 0

        return line

    def rows(self, counters: list[Any]) -> list[list[Any]]:
        """The cells' values, one list per row, top (north) row first: how views and terminals show a grid."""
        w = self.width
        return [counters[self.base + w * r: self.base + w * (r + 1)] for r in reversed(range(self.height))]


def off_grid(name: str, width: int, height: int, c: Any, r: Any) -> int:
    """The rule error for a cell outside its grid (both compile paths raise this one message)."""
    raise RuleError(f"cell [{c}, {r}] is outside grid {name} ({width} columns by {height} rows)")


def cell_label(kind: str, v: Any) -> Any:
    """A cell's value as views show it: `P1` for a player, the name of an enum value, an int, None for `none`."""
    if v is None:
        return None
    return f"P{v + 1}" if kind == "player" else v


def render(name: str, rows: list[list[Any]]) -> list[str]:
    """A grid as text lines, north row first, rows numbered on the left and columns below; `.` is `none`.

    What a terminal shows for a grid when the ruleset has no `display` (views give ``rows`` north first)."""
    labels = [["." if v is None else str(v) for v in row] for row in rows]
    width = max([len(x) for row in labels for x in row] + [len(str(len(rows[0]) - 1)) if rows else 1])
    margin = len(str(len(rows) - 1))
    out = [f"{name}:"]
    for i, row in enumerate(labels):
        out.append(f"  {len(rows) - 1 - i:>{margin}} " + " ".join(x.rjust(width) for x in row))
    if rows:
        out.append("  " + " " * margin + " " + " ".join(str(c).rjust(width) for c in range(len(rows[0]))))
    return out
