"""A comprehension that copies a zone as it is (``[c for c in p.hand]``) written where it is used: no loop function.

Such a comprehension had a loop function of its own whose whole body is ``return tuple(s.zones[Z])`` (exprgen
``_loop_function``: no filter, the element is the item). Bloodborne calls four of them about 48 times a game, from
``choose c from [x for x in p.hand] + [x for x in p.discard] + [u]`` and ``[c for c in final_boss] + …``: a Python
frame each for one C call. Here the expression is that return value, ``tuple(s.zones[Z])``.

Why it is exact: the loop function evaluates nothing but the zone (its hoisted reads of ``env`` read the variables
the expression's own text reads at the same point, and an expression never moves cards, so the zone is the one the
call would have copied), in the same order, and it counts no work: only a loop whose count is "none"
(budgets ``loop_kind``: flat over a small iterable, which the closures do not count either) is written so. The
zone's index is the one ``_zone`` writes for any zone read (a seat's zone through ``_strided``, with its test for
no player where that is not proven), so a failure is the same error at the same point.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler import budgets

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen

ENABLED = True


def zone_copy(gen: ExprGen, e: A.Expr) -> str | None:
    """``tuple(s.zones[Z])`` for ``[c for c in ZONE]``, else None (the comprehension's loop function as before)."""
    if not (ENABLED and isinstance(e, A.ListComp) and e.where is None and isinstance(e.elem, A.Name)
            and e.elem.id == e.var and e.elem.ref is not None and e.elem.ref[0] == "local"):
        return None
    ty = e.iterable.ty
    if ty is None or ty.kind != "zone" or budgets.loop_kind(e.iterable, gen.comp.sizes, e.elem, e.where) != "none":
        return None
    z = gen._zone(e.iterable)
    return None if z is None else f"tuple(s.zones[{z}])"
