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

from liturgy.dsl.checker import types as T
from liturgy.dsl.checker.types import Ty

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


_ZONE_OR_N = (Param("zone", "zone"), Param("n", T.INT))

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
        Builtin("range", (Param("a", T.INT), Param("b", T.INT)), 1, T.list_of(T.INT), "nothing",
                "`range(n)` is the integers 0 … n-1; `range(a, b)` is a … b-1 (empty when b <= a).",
                reference=_range),
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
