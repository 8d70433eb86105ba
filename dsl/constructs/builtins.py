"""Every built-in function of the rules language, declared once.

A declaration gives what each pass needs to know without reading another pass: the name, the parameters
(a type the argument must be assignable to, or a kind in words that the checker's typing rule checks), how
many are required and whether more may follow, the result type (``None`` when the result follows the
arguments: the checker's typing rule computes it), what a call reads (nothing but its arguments, the game
state, or the game's random numbers), the paragraph docs/language.md gives it, and — for built-ins that are
pure functions of their argument values — the reference implementation that the closures and the generated
code both call (interpreter/runtime/builtins.py).

The checker types a call from this table (dsl/checker/expressions.py ``builtin``); a built-in whose parameters
are all plain types needs nothing else there. tests/test_registry.py holds every pass to this table.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from liturgy.dsl import types as T
from liturgy.dsl.constructs import grids
from liturgy.dsl.types import Ty

# Longest list a built-in may build: a ruleset's `range(0, 10**15)` is a located rule error, not a MemoryError.
MAX_BUILT_LIST = 100_000

# What a call reads besides its arguments: nothing (a pure function of the values), the game state (zones,
# counters, seats) or the game's random numbers (refused where a player is only shown something, E171).
Reads = Literal["nothing", "state", "rng"]


class BuiltinError(Exception):
    """A built-in refused its arguments; the engine reports the message as a rule error."""


@dataclass(frozen=True)
class Param:
    """One parameter: ``ty`` is a type the argument must be assignable to (checked from this table), or a kind
    in words (``"zone"``, ``"zone, list or set"``, ``"die"``, ``"track"``) that the built-in's typing rule
    in the checker checks, with its own message."""

    name: str
    ty: Ty | str


@dataclass(frozen=True)
class Builtin:
    """One built-in function of the rules language."""

    name: str
    params: tuple[Param, ...]
    required: int  # how many of the parameters must be given (the rest are optional)
    result: Ty | None  # None: polymorphic, the checker's typing rule gives the result type
    reads: Reads
    doc: str  # the paragraph docs/language.md gives it
    variadic: bool = False  # the last parameter repeats: `min(a, b, …)`
    # the semantics as a function of the argument values (tuples for lists), for pure built-ins compiled by
    # calling it; None for those the compiler and generator implement one by one (they read the state)
    reference: Callable[..., Any] | None = None

    def arities(self) -> tuple[int, ...]:
        """The argument counts a call may have (for a variadic built-in: the least, see :meth:`accepts`)."""
        return tuple(range(self.required, len(self.params) + 1))

    def accepts(self, count: int) -> bool:
        return count >= self.required if self.variadic else count in self.arities()

    def arity_message(self, count: int) -> str:
        """The E127 message for a call with ``count`` arguments."""
        if self.variadic:
            return f"`{self.name}` needs at least one argument"
        return f"`{self.name}` takes {' or '.join(map(str, self.arities()))} argument(s), {count} given"

    @property
    def reads_rng(self) -> bool:
        return self.reads == "rng"

    @property
    def typed_by_table(self) -> bool:
        """Every parameter is a plain type and the result is fixed: the checker needs no rule of its own."""
        return self.result is not None and all(isinstance(p.ty, Ty) for p in self.params)


def _range(a: int, b: int | None = None) -> tuple[int, ...]:
    lo, hi = (0, a) if b is None else (a, b)
    if hi - lo > MAX_BUILT_LIST:
        raise BuiltinError(f"range({lo}, {hi}) would hold {hi - lo} numbers; at most {MAX_BUILT_LIST}")
    return tuple(range(lo, hi))


def _order(v: Any) -> tuple[int, Any]:
    """Sort order of an int, a text or a player (a seat index); `none` first. Items of one list share a type."""
    return (0, 0) if v is None else (1, v)


def _sort(items: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(sorted(items, key=_order))


def _join(items: tuple[str, ...], sep: str) -> str:
    return sep.join(items)


_ZONE_OR_N = (Param("zone", "zone"), Param("n", T.INT))
_GRID = Param("grid", Ty("grid"))
_CELL = (_GRID, Param("c", T.INT), Param("r", T.INT))
_DIR = (Param("d", grids.DIRECTION),)

BUILTINS: dict[str, Builtin] = {
    b.name: b
    for b in (
        Builtin("size", (Param("x", "zone, list or set"),), 1, T.INT, "state",
                "`size(x)` is the number of items in a zone, list or set."),
        Builtin("top", _ZONE_OR_N, 1, None, "state",
                "`top(z)` is the top card of zone z, or `none` if z is empty; `top(z, n)` is a list of up to n "
                "cards, starting from the top."),
        Builtin("bottom", _ZONE_OR_N, 1, None, "state",
                "`bottom(z)` is the bottom card of zone z, or `none` if z is empty; `bottom(z, n)` is a list of up "
                "to n cards, starting from the bottom."),
        Builtin("random", (Param("items", "list"),), 1, None, "rng",
                "`random(list)` is a uniformly random item, drawn from the game's RNG (an empty list is a runtime "
                "error)."),
        Builtin("roll", (Param("die", "die"),), 1, T.INT, "rng",
                "`roll(die)` is a roll of a die, or of an enum value that names a die, with explosions."),
        Builtin("value", (Param("track", "track"),), 1, T.INT, "state",
                "`value(track)` is the number at the track's current position."),
        Builtin("min", (Param("a", T.INT),), 1, T.INT, "nothing",
                "`min(a, b, …)` is the least of its ints.", variadic=True),
        Builtin("max", (Param("a", T.INT),), 1, T.INT, "nothing",
                "`max(a, b, …)` is the greatest of its ints.", variadic=True),
        Builtin("abs", (Param("x", T.INT),), 1, T.INT, "nothing", "`abs(x)` is the absolute value of an int."),
        Builtin("players_from", (Param("p", T.PLAYER),), 1, T.list_of(T.PLAYER), "state",
                "`players_from(p)` is every player in seat order, starting with p."),
        Builtin("next_player", (Param("p", T.PLAYER),), 1, T.PLAYER, "state",
                "`next_player(p)` is the player after p in seat order."),
        Builtin("owner", (Param("c", T.ANY_CARD),), 1, T.PLAYER, "state",
                "`owner(c)` is the player whose per-player zone holds card c, or `none` when c is in a shared "
                "zone."),
        Builtin("neighbours", (Param("graph", "graph"), Param("x", "place"), Param("kinds", "kinds")), 2, None,
                "nothing", "`neighbours(g, x)` is every place connected to x in graph g, in the enum's order; "
                "`neighbours(g, x, k)` only by connections of kind k (a kind, or a list of kinds)."),
        Builtin("adjacent", (Param("graph", "graph"), Param("a", "place"), Param("b", "place"),
                             Param("kinds", "kinds")), 3, T.BOOL, "nothing",
                "`adjacent(g, a, b [, k])` is whether a and b are connected in graph g (by a kind in k)."),
        Builtin("reach", (Param("graph", "graph"), Param("x", "place"), Param("n", T.INT), Param("kinds", "kinds")),
                3, None, "nothing",
                "`reach(g, x, n [, k])` is every place other than x at most n connections away from x, in the "
                "enum's order."),
        Builtin("distance", (Param("graph", "graph"), Param("a", "place"), Param("b", "place"),
                             Param("kinds", "kinds")), 3, T.INT, "nothing",
                "`distance(g, a, b [, k])` is the fewest connections from a to b (0 when a is b), or -1 when b "
                "cannot be reached."),
        Builtin("ord", (Param("x", "enum value"),), 1, T.INT, "nothing",
                "`ord(x)` is the position of enum value x in its enum, from 0: `Town[ord(t)]` is t."),
        Builtin("range", (Param("a", T.INT), Param("b", T.INT)), 1, T.list_of(T.INT), "nothing",
                "`range(n)` is the integers 0 … n-1; `range(a, b)` is a … b-1 (empty when b <= a).",
                reference=_range),
        # grids (docs/language.md, Grids): the grid argument names a declared grid
        Builtin("on_grid", _CELL, 3, T.BOOL, "state",
                "`on_grid(g, c, r)` is true when column c, row r is a cell of grid g."),
        Builtin("line", (*_CELL, Param("d", grids.DIRECTION)), 4, T.INT, "state",
                "`line(g, c, r, d)` is how many cells in a row, from (c, r) stepping in direction d, hold the "
                "value of cell (c, r), that cell included (0 when (c, r) is off the grid)."),
        Builtin("span", (*_CELL, Param("d", grids.DIRECTION)), 4, T.INT, "state",
                "`span(g, c, r, d)` is how many cells in a row on the line through (c, r) along d (both ways: "
                "d and its opposite) hold the value of cell (c, r), that cell included: "
                "`line(g, c, r, d) + line(g, c, r, opposite(d)) - 1`, in one call (0 off the grid)."),
        Builtin("width", (_GRID,), 1, T.INT, "state",
                "`width(g)` is the number of columns of grid g: `range(width(g))` is every column, west to east."),
        Builtin("height", (_GRID,), 1, T.INT, "state",
                "`height(g)` is the number of rows of grid g: `range(height(g))` is every row, south to north."),
        Builtin("dx", _DIR, 1, T.INT, "nothing",
                "`dx(d)` is the column step of direction d (east +1, west -1).", reference=grids.step_x),
        Builtin("dy", _DIR, 1, T.INT, "nothing",
                "`dy(d)` is the row step of direction d (north +1, south -1).", reference=grids.step_y),
        Builtin("opposite", _DIR, 1, grids.DIRECTION, "nothing",
                "`opposite(d)` is the direction that undoes d (`opposite(north)` is `south`).",
                reference=grids.opposite),
        Builtin("sort", (Param("items", "list of int, text or player"),), 1, None, "nothing",
                "`sort(L)` is the ints, texts or players of L in increasing order (players by seat); "
                "`sort(x for x in L [where C] by KEY)` orders any items by a key, stably.",
                reference=_sort),
        Builtin("join", (Param("items", T.list_of(T.TEXT)), Param("sep", T.TEXT)), 2, T.TEXT, "nothing",
                '`join(texts, sep)` is the texts with `sep` between them (`""` for an empty list).',
                reference=_join),
        Builtin("text", (Param("x", "value"), Param("values", "value")), 1, T.TEXT, "nothing",
                "`text(x)` is an int, bool, text, enum value, player, card or list as a log line writes it; "
                '`text("FORMAT", v, …)` fills each `{}` like `log`.', variadic=True),
        Builtin("active", (Param("mode", T.MODE),), 1, T.BOOL, "state",
                "`active(m)` is `true` while rule mode m is active: after `enter m`, until `leave m`."),
    )
}



@dataclass(frozen=True)
class PureBuiltin:
    """A built-in compiled by calling its reference implementation: the one function the closures and the
    generated code both call (interpreter/runtime/builtins.py)."""

    declaration: Builtin
    reference: Callable[..., Any]


PURE: dict[str, PureBuiltin] = {n: PureBuiltin(b, b.reference) for n, b in BUILTINS.items() if b.reference is not None}

# The built-ins the closure compiler and the code generator implement one by one (they read the state or the RNG,
# or their type follows their arguments): interpreter/compiler/expressions.py's BUILTIN_HANDLERS covers exactly these.
STATEFUL = frozenset(n for n, b in BUILTINS.items() if b.reference is None)

NAMES = frozenset(BUILTINS)
