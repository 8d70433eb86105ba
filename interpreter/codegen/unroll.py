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
from liturgy.interpreter.codegen.locals import Locals, _scan
from liturgy.interpreter.compiler import budgets

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen
    from liturgy.interpreter.codegen.stmtgen import StmtGen

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
    try:
        parts = _parts(gen, e, values, start)
        if parts is None:
            return None
        text = _joined(e.func, parts)
        near = gridgen.around(gen, e)
        if near is not None:  # the base cell on the grid: its neighbours from tables, no coordinate arithmetic
            ctx, x, y = near
            outer, gen.around = gen.around, ctx
            try:
                fast = _parts(gen, e, values, start)
            finally:
                gen.around = outer
            w, h = ctx.width, ctx.height
            first = None if fast is None else _joined(e.func, fast)
            indexed = None if first is None else _card_index(gen, binds, x, y, ctx, first)
            if first is not None and indexed is not None:  # the base cell's index read from a per-card table
                card = f"({first} if ({ctx.index} := {indexed}) is not None else {_bound(text, binds)})"
                if len(card) <= MAX_TEXT:
                    return f"({card})"
            both = None if first is None else (
                f"({first} if (0 <= {x} < {w}) and (0 <= ({ctx.index} := {x} + {w} * {y}) "
                f"< {w * h}) else {text})")  # X on the grid and X + W * Y inside it: Y on the grid too
            text = both if both is not None and len(both) <= MAX_TEXT else text
    finally:
        gen.subst_src = saved
    text = _bound(text, binds)
    return f"({text})" if len(text) <= MAX_TEXT else None


def _bound(text: str, binds: dict[str, tuple[str, str]]) -> str:
    """``text`` after the parameters' values are bound (a list is always true), as the items read them."""
    if not binds:
        return text
    return f"({text} if [{', '.join(f'({u} := {src})' for u, src in binds.values())}] else None)"


def _card_index(gen: ExprGen, binds: dict[str, tuple[str, str]], x: str, y: str, ctx: gridgen.Around,
                fast: str) -> str | None:
    """Where X and Y are one card's printed fields read from their tables (Hex's `m.c`, `m.r`, bound once by
    :func:`_invariants`), a read of a per-card table of X + W * Y, None for a card whose cell is not on the grid
    (or whose fields are not ints): the base cell's index in one read, and the fields' own reads only where the
    written-out items as before need them. None where the text ``fast`` reads any bound value itself."""
    srcs = {u: src for u, src in binds.values()}
    got = [_TABLE_READ_PARTS.fullmatch(srcs.get(v, "")) for v in (x, y)]
    if got[0] is None or got[1] is None or got[0]["key"] != got[1]["key"] or any(
            re.search(rf"\b{re.escape(u)}\b", fast) for u in srcs):
        return None  # the items read a bound value (X, Y or another parameter's), which is bound only below
    cols, rows = gen.ns.get(got[0]["table"]), gen.ns.get(got[1]["table"])
    if not isinstance(cols, list | tuple) or not isinstance(rows, list | tuple) or len(cols) != len(rows):
        return None
    w, h = ctx.width, ctx.height
    index = tuple(c + w * r if type(c) is int and type(r) is int and 0 <= c < w and 0 <= r < h else None
                  for c, r in zip(cols, rows, strict=True))
    return f"{gen.const(index)}[{got[0]['key']}]"


def _parts(gen: ExprGen, e: A.Aggregate, values: list[str], start: int) -> list[tuple[str, str]] | None:
    """Each item's filter and element sources; None (nothing counted as unsafe) where one would read the loop
    variable through ``env`` or call a closure that might."""
    parts = []
    for value in values:
        where, elem = gen._loop_parts(e, value)
        if gen.unsafe != start or f"env[{e.var!r}]" in where + elem:
            gen.unsafe = start  # the texts are thrown away
            return None
        parts.append((where, elem))
    return parts


def _joined(func: str, parts: list[tuple[str, str]]) -> str:
    """The items' tests joined: a sum for `count`, an `or` chain for `any` (and its negation for `all`)."""
    if func == "count":
        return " + ".join(f"(1 if ({w}) else 0)" for w, _ in parts)
    neg = "not " if func == "all" else ""
    tests = " or ".join(f"({neg}({x}))" if w == "True" else f"(({w}) and {neg}({x}))" for w, x in parts)
    return f"(False if {tests} else True)" if neg else f"(True if {tests} else False)"


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


_TABLE_READ_PARTS = re.compile(r"\(?(?P<table>_k[0-9]+)\[(?P<key>[A-Za-z_][A-Za-z0-9_]*|\x00L?_E[0-9]+\x00)\]\)?")
_TABLE_READ = re.compile(r"\(?_k[0-9]+\[(?:[A-Za-z_][A-Za-z0-9_]*|\x00L?_E[0-9]+\x00)\]\)?")


MAX_BODY_NODES = 80  # a statement loop's body, in syntax nodes, written out once per item: at most this big


def statement(sg: StmtGen, st: A.For) -> bool:
    """``for d in DIRS { … }`` over a named direction set written out item by item, each copy reading ``d`` as
    the direction itself (``dx(d)`` folds to a number, a neighbour's slot to ``base + K``); False (nothing
    written) where it does not apply.

    The same as the loop: the copies run in the items' order; before each, ``d`` is bound as the loop binds it
    (``env`` and its local), so a closure or a save sees what it would, and after the last ``d`` holds the last
    item, as after the loop. Only a flat body over at most SMALL_LOOP constant items (compiler/budgets.py
    ``loop_kind`` not "all", budgetgen.counted: such a loop counts no work, so no charge is dropped), no
    `break` (there is no loop left to leave), nothing that may bind names behind the generator's back, and
    ``d`` never written by the body."""
    gen = sg.gen
    ref: Any = st.iterable.ref
    if not ENABLED or not (isinstance(st.iterable, A.Name) and ref is not None and ref[0] == "directions"
                           and ref[1] in DIRECTION_SETS):
        return False
    values = [repr(d) for d in DIRECTION_SETS[ref[1]]]
    if (not values or len(values) > min(MAX_ITEMS, budgets.SMALL_LOOP)
            or budgets.loop_kind(st.iterable, sg.comp.sizes, st.body) == "all"):
        return False  # a flat body over at most SMALL_LOOP constant items: the loop counts no work
    nodes = budgets._nodes(st.body)
    if len(nodes) > MAX_BODY_NODES or any(isinstance(n, A.Break) for n in nodes):
        return False
    written, invalid = _scan(st.body, sg.comp)
    if invalid or st.var in written:
        return False
    near = gridgen.around_statement(gen, st)
    if near is None:
        _copies(sg, st, values)
        return True
    ctx, x, y = near  # the base cell on the grid: each copy's neighbour from the step tables (gridgen.Around)
    loc, w, h = sg.locals, ctx.width, ctx.height
    fall = dict(loc.state) if loc is not None else {}
    sg.emit(f"if (0 <= {x} < {w}) and (0 <= ({ctx.index} := {x} + {w} * {y}) < {w * h}):")
    sg.depth += 1
    outer, gen.around, ranges = gen.around, ctx, gen.var_ranges
    try:  # X and Y are on the grid here (the test above), and the body never writes them
        for name, known in gridgen.base_ranges(ctx).items():
            gen.bind_range(name, None, known)
        _copies(sg, st, values)
    finally:
        gen.around, gen.var_ranges = outer, ranges
    sg.depth -= 1
    ends = [loc.state] if loc is not None else []
    if loc is not None:
        loc.state = fall
    sg.emit("else:")
    sg.depth += 1
    _copies(sg, st, values)
    sg.depth -= 1
    if loc is not None:
        loc.state = Locals.merge([*ends, loc.state])
    return True


def _copies(sg: StmtGen, st: A.For, values: list[str]) -> None:
    """The body once per item, the variable bound before each copy and read as the item itself."""
    gen = sg.gen
    saved_src, saved_ranges = gen.var_src, gen.var_ranges
    try:
        gen.bind_range(st.var, None, None)  # a direction: it hides an outer variable's range, as the loop does
        for value in values:
            sg.emit(f"{sg.write(st.var)}{value}")
            gen.var_src = {**saved_src, st.var: value}
            sg.stmts(st.body)
    finally:
        gen.var_src, gen.var_ranges = saved_src, saved_ranges
