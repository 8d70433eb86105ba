"""Small aggregates over constants written out item by item: ``count(y for y in range(6) where board[c, y] !=
none)`` and ``any(… for d in hex where …)`` become one expression with each item's filter and element inline,
the loop variable replaced by the item itself, instead of a call of a generated loop function.

Why: in a grid game these loops run at every decision (the row a disc falls to, a stone's six neighbours), and
the call, the loop and reading the variable cost more than the tests themselves. With the item a constant, what
reads it folds too: ``dx(east)`` is 1, ``board[c, 3]`` is a slot with its row known, a coordinate proven on the
grid loses its bounds test.

Same meaning as the loop (ExprGen._loop_function), which is kept for everything else: the items are those of a
constant ``range`` or a named direction set, at most :data:`MAX_ITEMS`; the filter and element are flat
(compiler/budgets.py: no loop, call or aggregate inside), so the loop counts no work and nothing here drops a
budget charge; each item's filter then element are evaluated in the loop's order, and `any`/`all` stop at the
same item (Python's ``or`` short-circuits as the loop's ``break`` does), so errors and values are the loop's.
Where the texts would read the loop variable through ``env`` or call a closure that might (``ExprGen.unsafe``),
nothing is unrolled.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from liturgy.dsl.constructs.grids import DIRECTION_SETS
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import gridgen, letgen
from liturgy.interpreter.compiler import budgets

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen

ENABLED = True  # tests turn it off to see the loop functions this replaces (and compare the two)
MAX_ITEMS = 8  # past this, the text grows more than the loop costs
MAX_TEXT = 6000  # characters of one unrolled expression, at most


def items(gen: ExprGen, e: A.Expr) -> list[str] | None:
    """Source for each item of a constant iterable: a `range` with constant bounds, or a named direction set."""
    known = gridgen.loop_range(gen, e)
    if known is not None:
        lo, hi = known
        return [str(i) if i >= 0 else f"({i})" for i in range(lo, hi + 1)]
    ref: Any = e.ref
    if isinstance(e, A.Name) and ref is not None and ref[0] == "directions" and ref[1] in DIRECTION_SETS:
        return [repr(d) for d in DIRECTION_SETS[ref[1]]]
    return None


def unrolled(gen: ExprGen, e: A.Expr) -> str | None:
    """Source for an `any`, `all` or filtered `count` over a few constant items, written out; None otherwise."""
    if not ENABLED or not isinstance(e, A.Aggregate) or e.func not in ("any", "all", "count"):
        return None
    if e.func == "count" and e.where is None:
        return None
    values = items(gen, e.iterable)
    if not values or len(values) > MAX_ITEMS or not budgets.is_flat(e.elem, e.where):
        return None
    start, saved = gen.unsafe, gen.subst_src
    binds = _invariants(gen, e)
    if binds:
        gen.subst_src = {**saved, **{n: u for n, (u, _) in binds.items()}}
    parts = []
    try:
        for value in values:
            where, elem = gen._loop_parts(e, value)
            if gen.unsafe != start or f"env[{e.var!r}]" in where + elem:
                gen.unsafe = start  # the texts are thrown away
                return None
            parts.append((where, elem))
    finally:
        gen.subst_src = saved
    if e.func == "count":
        text = " + ".join(f"(1 if ({w}) else 0)" for w, _ in parts)
    else:
        neg = "not " if e.func == "all" else ""
        tests = " or ".join(f"({neg}({x}))" if w == "True" else f"(({w}) and {neg}({x}))" for w, x in parts)
        text = f"(False if {tests} else True)" if neg else f"(True if {tests} else False)"
    if binds:  # the parameters' values first (a list is always true), then the items reading them
        text = f"({text} if [{', '.join(f'({u} := {src})' for u, src in binds.values())}] else None)"
    return f"({text})" if len(text) <= MAX_TEXT else None


def _invariants(gen: ExprGen, e: A.Aggregate) -> dict[str, tuple[str, str]]:
    """The inlined `fn` parameters the items read whose text is a table read (Hex's `touches(p, m.c, m.r, 1)`:
    `m.c` is ``_k62[m]``), each with a fresh local to hold it: read once before the items instead of in each.
    Only an unguarded read of a constant table at a plain name: the generator writes one only where it proved
    the read valid (a card's field at a card, a direction's entry), no variable changes while an expression is
    evaluated, so reading it first can neither fail nor give another value."""
    if gen.subst_owner is not gen.comp.subst:
        return {}
    names = letgen.free_locals(e.elem) | (letgen.free_locals(e.where) if e.where is not None else set())
    out = {}
    for n in sorted(names - {e.var}):
        src = gen.subst_src.get(n)
        if n in gen.comp.subst and src is not None and _TABLE_READ.fullmatch(src):
            out[n] = (gen._name("_u"), src)
    return out


_TABLE_READ = re.compile(r"\(?_k[0-9]+\[(?:[A-Za-z_][A-Za-z0-9_]*|\x00L?_E[0-9]+\x00)\]\)?")
