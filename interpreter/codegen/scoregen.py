"""Every player's score in one generated call: what the engine's scoring (``Game._advance``) calls at a game's end.

``score(p) = EXPR`` is compiled as one function of an environment (``body(s, {"p": p})``), which the engine called
once per player: a Python call, a frame and an environment write per seat, at the end of every game (a random
playout of a short game such as Kuhn poker pays them on every playout). Here the same expression is written once
more with the player as a Python local (the reader of :class:`~.hoist.Params`, as a card's `function` fields are
written), inside one loop over the players:

    def _scN(s, players):
        _o = []
        for _P0 in players:
            _o.append(EXPR)
        return _o

The same expression text the generator writes for the environment version, the player read from the local instead
of ``env``: the same values, computed in the same order (seat by seat), raising the same errors. An expression whose
text still reads ``env`` (a closure the generator calls with it, another variable) is not written here, and the
engine keeps its call per player.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from liturgy.interpreter.codegen.hoist import Params
from liturgy.interpreter.codegen.locals import hoist_counters
from liturgy.interpreter.codegen.source import Refused

if TYPE_CHECKING:
    from liturgy.dsl.frontend import ast as A
    from liturgy.interpreter.codegen.exprgen import ExprGen
    from liturgy.interpreter.runtime.state import GameState

ScoreAll = Callable[["GameState", tuple[int, ...]], list[Any]]


class _Seat(Params):
    """The player read as the loop's local ``_P0``: a seat number, never `none` (no "no player" test)."""

    def is_nonnull(self, src: str) -> bool:
        return src == "_P0"


def score_all(gen: ExprGen, expr: A.Expr, var: str) -> ScoreAll | None:
    """``[EXPR with var = p for p in players]`` as one generated function of (state, players), or None when the
    expression's text would read the environment (the engine then calls the score once per player)."""
    comp = gen.comp
    saved = comp.subst, comp.inline_depth, gen.reader, gen.subst_src, gen.subst_owner, gen.var_src
    saved_ranges, gen.var_ranges = gen.var_ranges, {}
    try:
        comp.subst, comp.inline_depth, gen.subst_src, gen.subst_owner, gen.var_src = {}, 0, {}, None, {}
        gen.reader = _Seat({var: "_P0"})
        body = gen.src(expr)
    finally:
        comp.subst, comp.inline_depth, gen.reader, gen.subst_src, gen.subst_owner, gen.var_src = saved
        gen.var_ranges = saved_ranges
    if "env" in body:  # something reads the environment (or a text holds the word): keep the call per player
        return None
    loads, body = hoist_counters([], body, 1)  # read in a loop: the counter list in a local before it
    name = gen._name("_sc")
    text = (f"def {name}(s, players):\n" + "".join(f"    {line}\n" for line in loads)
            + f"    _o = []\n    for _P0 in players:\n        _o.append({body})\n    return _o\n")
    try:
        fn: ScoreAll = gen.sources.load(gen.ns, name, "expr", text, expr.span)
    except Refused:
        return None
    return fn
