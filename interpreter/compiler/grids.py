"""Grids in the closure compiler (the reference semantics): grid and direction names, cells ``g[c, r]`` and the
grid built-ins, each a closure over the grid's :class:`~liturgy.interpreter.runtime.grids.GridInfo`.

A grid's value is its name (plain data, like an enum value); the built-ins look the grid up by it, or take it
at compile time when the argument names the grid, which is how every ruleset writes it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from liturgy.dsl.constructs.grids import DIRECTION_SETS
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.code import ExprFn
from liturgy.interpreter.runtime.grids import GridInfo
from liturgy.interpreter.runtime.state import GameState

if TYPE_CHECKING:
    from liturgy.interpreter.compiler.expressions import ExpressionCompiler


def name_value(ref: tuple[Any, ...]) -> Any:
    """The constant value of a grid name (the name), a direction (its name) or a direction set (the names)."""
    if ref[0] == "grid":
        return ref[1].name
    if ref[0] == "direction":
        return ref[1]
    return DIRECTION_SETS[ref[1]]


def static_grid(comp: ExpressionCompiler, e: A.Expr) -> GridInfo | None:
    """The grid ``e`` names, when it names one directly."""
    ref = e.ref
    if isinstance(ref, tuple) and ref[0] == "grid":
        return comp.layout.grids[ref[1].name]
    return None


def cell_slot(comp: ExpressionCompiler, e: A.Cell) -> ExprFn:
    """The slot of cell ``g[c, r]`` (the column is evaluated before the row); off the grid is a rule error."""
    ref = A.ref_of(e)
    assert ref[0] == "gridcell", ref
    g = comp.layout.grids[ref[1].name]
    cf, rf = comp.expr(e.col), comp.expr(e.row)
    base, w, h = g.base, g.width, g.height

    def slot(s: GameState, env: dict[str, Any]) -> int:
        c = cf(s, env)
        r = rf(s, env)
        if 0 <= c < w and 0 <= r < h:
            return base + c + w * r  # type: ignore[no-any-return]
        return g.slot(c, r)

    return slot


def cell(comp: ExpressionCompiler, e: A.Cell) -> ExprFn:
    sf = cell_slot(comp, e)
    return lambda s, env: s.counters[sf(s, env)]


def _grid_of(comp: ExpressionCompiler, e: A.Call, args: list[ExprFn]) -> Any:
    """A function of (state, env) giving the GridInfo of the call's first argument."""
    g = static_grid(comp, e.args[0])
    if g is not None:
        info = g
        return lambda s, env: info
    grids, gf = comp.layout.grids, args[0]
    return lambda s, env: grids[gf(s, env)]


def on_grid(comp: ExpressionCompiler, e: A.Call, args: list[ExprFn]) -> ExprFn:
    gf, cf, rf = _grid_of(comp, e, args), args[1], args[2]
    return lambda s, env: gf(s, env).on(cf(s, env), rf(s, env))


def line(comp: ExpressionCompiler, e: A.Call, args: list[ExprFn]) -> ExprFn:
    gf, cf, rf, df = _grid_of(comp, e, args), args[1], args[2], args[3]
    return lambda s, env: gf(s, env).line(s.counters, cf(s, env), rf(s, env), df(s, env))


def span(comp: ExpressionCompiler, e: A.Call, args: list[ExprFn]) -> ExprFn:
    gf, cf, rf, df = _grid_of(comp, e, args), args[1], args[2], args[3]
    return lambda s, env: gf(s, env).span(s.counters, cf(s, env), rf(s, env), df(s, env))


def width(comp: ExpressionCompiler, e: A.Call, args: list[ExprFn]) -> ExprFn:
    gf = _grid_of(comp, e, args)
    return lambda s, env: gf(s, env).width


def height(comp: ExpressionCompiler, e: A.Call, args: list[ExprFn]) -> ExprFn:
    gf = _grid_of(comp, e, args)
    return lambda s, env: gf(s, env).height
