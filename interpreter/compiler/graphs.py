"""Graphs in the closure compiler: the four walking built-ins (`neighbours`, `adjacent`, `reach`, `distance`)
as closures over the ruleset's one walker per graph (interpreter/runtime/graphs.py). A graph no rule changes
gets closures that never read the state's overlay; one that `link`/`unlink` changes reads it on each call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.code import ExprFn
from liturgy.interpreter.runtime.graphs import GraphWalk, Overlay, overlay_of
from liturgy.interpreter.runtime.state import GameState

if TYPE_CHECKING:
    from liturgy.interpreter.compiler.expressions import ExpressionCompiler


def _graph_of(e: A.Call) -> A.GraphDecl:
    ref = A.ref_of(e.args[0])
    assert ref[0] == "graph", ref  # the checker requires a graph's name first (builtin_rules._graph_call)
    return ref[1]


def _walk(comp: ExpressionCompiler, e: A.Call) -> tuple[GraphWalk, Callable[[GameState], Overlay] | None]:
    """The graph a built-in walks, and how to read its changes made during play (None: it never changes, and
    the built-in's closure does not ask)."""
    walk, slot = comp.graph_walk(_graph_of(e).name)
    if slot is None:
        return walk, None
    return walk, lambda s: overlay_of(s.counters[slot])


def _kinds_of(args: list[ExprFn], at: int) -> ExprFn:
    """The optional kinds argument at position ``at`` (every kind when left out: None)."""
    return args[at] if len(args) > at else (lambda s, env: None)


def neighbours(comp: ExpressionCompiler, e: A.Call, args: list[ExprFn]) -> ExprFn:
    walk, over = _walk(comp, e)
    xf, kf = args[1], _kinds_of(args, 2)
    if over is None:
        return lambda s, env: walk.neighbours(xf(s, env), kf(s, env))
    return lambda s, env: walk.neighbours(xf(s, env), kf(s, env), over(s))


def adjacent(comp: ExpressionCompiler, e: A.Call, args: list[ExprFn]) -> ExprFn:
    walk, over = _walk(comp, e)
    af, bf, kf = args[1], args[2], _kinds_of(args, 3)
    if over is None:
        return lambda s, env: walk.adjacent(af(s, env), bf(s, env), kf(s, env))
    return lambda s, env: walk.adjacent(af(s, env), bf(s, env), kf(s, env), over(s))


def reach(comp: ExpressionCompiler, e: A.Call, args: list[ExprFn]) -> ExprFn:
    walk, over = _walk(comp, e)
    xf, nf, kf = args[1], args[2], _kinds_of(args, 3)
    if over is None:
        return lambda s, env: walk.reach(xf(s, env), nf(s, env), kf(s, env))
    return lambda s, env: walk.reach(xf(s, env), nf(s, env), kf(s, env), over(s))


def distance(comp: ExpressionCompiler, e: A.Call, args: list[ExprFn]) -> ExprFn:
    walk, over = _walk(comp, e)
    af, bf, kf = args[1], args[2], _kinds_of(args, 3)
    if over is None:
        return lambda s, env: walk.distance(af(s, env), bf(s, env), kf(s, env))
    return lambda s, env: walk.distance(af(s, env), bf(s, env), kf(s, env), over(s))
