"""The registry of built-in functions: each declared once, and read by every pass.

A built-in is declared here with its signature (the checker's arity and type rules), a one-line doc, and its
reference implementation — a pure function of the argument values, which the closure compiler calls and the
code generator calls from generated text. Adding a built-in of that kind is one entry here, its section in
docs/language.md, and a test: nothing else in the checker, compiler or generator changes
(tests/test_registry.py holds every pass to this table).

The older built-ins (``size``, ``top``, ``roll``…) read the game state or the RNG, or are typed by their
arguments (``min`` of ints or of a list); they are listed in :data:`STATEFUL` and keep their own typing rule in
the checker and their own closure and generated form, until they are moved onto this table too.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from liturgy.dsl.checker import types as T
from liturgy.dsl.checker.types import Ty

# Longest list a built-in may build: a ruleset's `range(0, 10**15)` is a located rule error, not a MemoryError.
MAX_BUILT_LIST = 100_000


class BuiltinError(Exception):
    """A built-in refused its arguments; the engine reports the message as a rule error."""


@dataclass(frozen=True)
class Builtin:
    """One pure built-in function of the rules language."""

    name: str
    params: tuple[Ty, ...]  # the parameters' types, in order
    required: int  # how many of them must be given (the rest are optional, from the left)
    result: Ty
    doc: str
    reference: Callable[..., Any]  # the semantics: argument values -> result value (tuples for lists)

    def arities(self) -> tuple[int, ...]:
        return tuple(range(self.required, len(self.params) + 1))


def _range(a: int, b: int | None = None) -> tuple[int, ...]:
    lo, hi = (0, a) if b is None else (a, b)
    if hi - lo > MAX_BUILT_LIST:
        raise BuiltinError(f"range({lo}, {hi}) would hold {hi - lo} numbers; at most {MAX_BUILT_LIST}")
    return tuple(range(lo, hi))


PURE: dict[str, Builtin] = {
    b.name: b
    for b in (
        Builtin("range", (T.INT, T.INT), 1, T.list_of(T.INT),
                "`range(n)` is the integers 0 … n-1; `range(a, b)` is a … b-1 (empty when b <= a).", _range),
    )
}

# Built-ins that read the game state or the RNG, or whose type follows their arguments: typed by the checker's
# own rules (dsl/checker/expressions.py), compiled by the closure compiler and the code generator one by one.
STATEFUL = frozenset({
    "size", "top", "bottom", "random", "roll", "value", "min", "max", "abs", "players_from", "next_player", "owner",
})

NAMES = frozenset(PURE) | STATEFUL
