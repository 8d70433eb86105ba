"""Closures of the expression conveniences: `sort(… by KEY)`, `text(x)` / `text("FORMAT", v…)` and a `fn`'s `let`.

Kept apart from :mod:`.expressions` (which dispatches to these) so that module stays one screenful per concern.
They are the reference semantics; generated code calls them rather than writing its own (codegen falls back to
the closure for these shapes), so every compile mode runs exactly this code.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from liturgy.dsl.checker.program import Program
from liturgy.dsl.checker.types import Ty
from liturgy.interpreter.compiler.code import ExprFn, formatter_for
from liturgy.interpreter.runtime import budget
from liturgy.interpreter.runtime.state import GameState

_MISSING = object()


def order_key(t: Ty | None, prog: Program) -> Callable[[Any], tuple[int, Any]]:
    """How values of type ``t`` compare in a sort: ints, texts and players (seat index) by value, bools false
    first, enum values in declaration order; `none` before everything. Deterministic for every key type the
    checker lets through (E302)."""
    if t is not None and t.kind == "enum" and t.arg in prog.enums:
        rank = {v: i for i, v in enumerate(prog.enums[t.arg])}
        return lambda v: (0, 0) if v is None else (1, rank[v])
    return lambda v: (0, 0) if v is None else (1, v)


def sorted_body(var: str, wf: ExprFn | None, ef: ExprFn, kf: ExprFn | None,
                order: Callable[[Any], tuple[int, Any]]) -> Callable[[GameState, dict[str, Any], Any], Any]:
    """`sort(ELEM for var in items [where C] [by KEY])`: the elements of the qualifying items, ordered by the
    key (by the element itself without one); Python's sort is stable, so equal keys keep the items' order."""

    def run(s: GameState, env: dict[str, Any], items: Any) -> tuple[Any, ...]:
        pairs = []
        for x in tuple(items):
            env[var] = x
            if wf is None or wf(s, env):
                elem = ef(s, env)
                pairs.append((order(elem if kf is None else kf(s, env)), elem))
        pairs.sort(key=lambda pair: pair[0])
        return tuple(elem for _, elem in pairs)

    return run


def text_fn(args: Sequence[ExprFn], types: Sequence[Ty | None], fmt: str | None, text_limit: int = budget.DEFAULT_TEXT,
            at: str = "") -> ExprFn:
    """`text(x)`: the value as a log line writes it (players `P1`, cards by name, `yes`/`no`, lists `a, b`);
    `text("FORMAT", v…)`: each `{}` of the literal filled with the next value's text.

    The text's length is counted while it is built, not after: a list of 1,000 texts of 100,000 characters each
    stops the game (``text_limit``, issue 18) after the second item is written, never building a 100 MB string
    to measure it."""
    writers = [_bounded_writer(t, text_limit, at) for t in types]
    if fmt is None:
        value, write = args[0], writers[0]
        return lambda s, env: write(s, value(s, env))
    parts = fmt.split("{}")
    pairs = list(zip(args[1:], writers[1:], strict=True))

    def formatted(s: GameState, env: dict[str, Any]) -> str:
        out = [parts[0]]
        total = len(parts[0])
        for i, (value, write) in enumerate(pairs):
            piece = write(s, value(s, env))
            total += len(piece) + len(parts[i + 1])
            if total > text_limit:
                budget.too_big("text", total, text_limit, at, at_least=True)
            out.append(piece)
            out.append(parts[i + 1])
        return "".join(out)

    return formatted


def _bounded_writer(t: Ty | None, limit: int, at: str) -> Callable[[GameState, Any], str]:
    """:func:`formatter_for` ``t``, except that a list (of lists…), zone or set is written item by item with its
    length counted: past ``limit`` characters the game stops before anything longer is built."""
    if t is None or t.kind not in ("list", "zone", "set"):
        return formatter_for(t)
    inner = _bounded_writer(t.elem if t.kind == "list" else (Ty("card") if t.kind == "zone" else None), limit, at)
    zone = t.kind == "zone"

    def write(s: GameState, v: Any) -> str:
        out: list[str] = []
        total = -2  # no ", " before the first item
        for x in (s.zones[v] if zone else v):
            piece = inner(s, x)
            total += len(piece) + 2
            if total > limit:
                budget.too_big("text", total, limit, at, at_least=True)
            out.append(piece)
        return ", ".join(out) or "nothing"

    return write


def let_in(name: str, value: ExprFn, body: ExprFn) -> ExprFn:
    """A `fn` body's `let NAME = VALUE`: the value computed once, bound for the body, and the caller's binding
    of the same name (if any) put back afterwards, as an aggregate does with its loop variable."""

    def run(s: GameState, env: dict[str, Any]) -> Any:
        old = env.get(name, _MISSING)
        env[name] = value(s, env)
        try:
            return body(s, env)
        finally:
            if old is _MISSING:
                env.pop(name, None)
            else:
                env[name] = old

    return run
