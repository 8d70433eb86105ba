"""Aggregates and comprehensions written into the expression or statement that uses them, not called as loops.

Over a fixed number of seats (:func:`unrolled`), item by item as one expression; as a statement's whole value
over anything else (:func:`statement_loop`), its loop written into the statement's own function.

A game played by a fixed number of players n (``players n..n``, no `absent_while`) has `players` = the seats
0 … n-1 and `players_from(p)` = n seats starting at p. A `count`, `sum`, `any`, `all`, `min`, `max` or a list
comprehension over one of those, with a flat filter and element, is written here item by item as one
expression: Kuhn poker's `any(q.bettor for q in players)` is ``(_cs[3] or _cs[6])`` where it is tested, not a
call of a generated loop function (``ExprGen._loop_function``). Such a call cost a Python frame, a loop and the
function's own loads for two items, and the loop function could not see the statement's Python locals, so it
read a `let` such as `bet_made` from ``env`` again. Written in place, the element reads whatever the
statement's reader gives (a Python local of the statement or of a fused function), which is the point of the
interface: the generator's current reader decides how a variable is read, nothing is passed.

Why the values, errors and work are the loop's: the items are the same seats in the same order (``players`` is
a constant here; a `players_from(p)` is evaluated once, first, as the loop evaluates its iterable once); each
item's filter then element is evaluated in the loop's order; `any`/`all` stop at the same item (``or`` and
``and`` short-circuit as the loop's ``break`` does); `sum` adds from 0 left to right as the loop's ``+=`` does;
`min`/`max` (without a filter) are the built-in over the same items, which compares ``item > best`` (``<`` for
`min`) and keeps the first on a tie, as aggregen's running value does. The loop would count no work
(compiler/budgets.py ``loop_kind`` is "none": a flat body over at most SMALL_LOOP items), so none is dropped.
Where a text would read the loop variable through ``env`` or call a closure that might (``ExprGen.unsafe``),
nothing is written here and the loop function is used as before.
"""
from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeGuard

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import aggregen, budgetgen, forward, gridgen, scans, unroll
from liturgy.interpreter.codegen.helpers import _never
from liturgy.interpreter.compiler import budgets

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen
    from liturgy.interpreter.codegen.stmtgen import StmtGen

ENABLED = True  # tests turn it off to compare with the loop functions this replaces
MAX_SEATS = 8  # past this many items the text grows more than the loop costs
MAX_TEXT = 6000  # characters of one written-out aggregate, at most
_FOLDS = ("any", "all", "count", "sum", "min", "max")
_BUILT = re.compile(r"tuple\((_out\d+)\)")  # the result of statement_loop's comprehension: its new list
_TEMPS = re.compile(r"\b(_r|_v|_it|_out)\b")  # a loop function's own locals (aggregen, budgetgen.counted_loop)


def fixed_seats(gen: ExprGen) -> int | None:
    """The number of seats when every game of the ruleset has the same number and all of them play, else None."""
    game, lay = gen.comp.prog.game, gen.comp.layout
    if game.min_players != game.max_players or lay.absent_offset is not None:
        return None
    return game.min_players


def seat_items(gen: ExprGen, e: A.Expr) -> tuple[list[str], list[str]] | None:
    """Sources of the items of `players`, `seats` or `players_from(p)` in a game of fixed seats, and the walrus
    bindings to evaluate first (`players_from`'s list, once, then each item in a name); None for anything else."""
    n = fixed_seats(gen)
    if n is None or not 0 < n <= MAX_SEATS:
        return None
    ref: Any = e.ref
    if isinstance(e, A.Name) and ref is not None and ref[0] == "builtin" and ref[1] in ("players", "seats"):
        return [str(i) for i in range(n)], []
    if isinstance(e, A.Call) and isinstance(ref, tuple) and ref[:2] == ("call_builtin", "players_from"):
        seq = gen._name("_w")
        names = [gen._name("_u") for _ in range(n)]
        first = f"({names[0]} := ({seq} := {gen.src(e)})[0])"
        return names, [first, *(f"({u} := {seq}[{i}])" for i, u in enumerate(names[1:], 1))]
    return None


def unrolled(gen: ExprGen, e: A.Expr, truth: bool = False) -> str | None:
    """Source for aggregate or comprehension ``e`` over fixed seats, written out; None where it is not written
    here. ``truth``: only the value's truth is used (an `if` or `where`): `any`/`all` need no `True`/`False`."""
    if not ENABLED or not isinstance(e, A.Aggregate | A.ListComp):
        return None
    func = e.func if isinstance(e, A.Aggregate) else "list"
    if func not in (*_FOLDS, "list"):
        return None
    if (func in ("min", "max") and e.where is not None) or (func == "count" and e.where is None):
        return None  # a filtered min/max keeps its "nothing qualified" 0; an unfiltered count is the loop's
    if budgets.loop_kind(e.iterable, gen.comp.sizes, e.elem, e.where) != "none":
        return None
    start = gen.unsafe
    got = seat_items(gen, e.iterable)
    if got is None:
        return None
    values, binds = got
    parts = []
    saved = gen.cse_nodes
    hoisted = invariant(e)
    if hoisted is not None:  # read once, after the items, before the first filter (see invariant)
        h = gen._name("_h")
        binds = [*binds, f"({h} := {gen.src(hoisted)})"]
        gen.cse_nodes = {**saved, id(hoisted): (h, False)}
    try:
        for value in values:
            where, elem = gen._loop_parts(e, value)
            if gen.unsafe != start or f"env[{e.var!r}]" in where + elem:
                gen.unsafe = start  # the texts are thrown away: the loop function is written instead
                return None
            parts.append((where, elem))
    finally:
        gen.cse_nodes = saved
    text = _fold(func, parts, truth, e.elem.ty is not None and e.elem.ty.kind == "int")
    if binds:  # the items first (a list is always true), then the folds reading them
        text = f"({text} if [{', '.join(binds)}] else None)"
    return text if len(text) <= MAX_TEXT else None


def invariant(e: A.Aggregate | A.ListComp) -> A.Expr | None:
    """The side of a filter `q != X` (or `X == q`, any comparison) that reads the same value for every item, when
    it is worth reading once: Kuhn's `[q for q in players_from(opened[0]) where q != opened[0]]` read
    `opened[0]` (a list, a length test and an index) once per seat.

    Why reading it once, before the first item, is exact: X is a pure read (variables, literals, indexes, counters
    and printed fields; no call, no loop variable), and an expression changes no state, so X has one value for
    every item; the filter is the first thing each item evaluates, and the other side is the loop variable or a
    literal, which can neither fail nor do anything, so X is evaluated at the same point the first item would
    have evaluated it (right after the items), and fails there with the same error if it fails. A filter
    runs for every item, and there is at least one (a fixed number of seats, never 0)."""
    w = e.where
    if not (isinstance(w, A.Binary) and w.op in ("==", "!=", "<", "<=", ">", ">=")):
        return None
    for side, other in ((w.right, w.left), (w.left, w.right)):
        trivial = isinstance(other, A.IntLit | A.StrLit | A.BoolLit | A.NoneLit) or (
            isinstance(other, A.Name) and other.id == e.var)
        if trivial and not isinstance(side, A.Name | A.IntLit) and _pure_read(side, e.var):
            return side
    return None


def _pure_read(x: A.Expr, var: str) -> bool:
    """Whether ``x`` only reads (variables but ``var``, literals, indexes, counters, printed fields)."""
    ref: Any = x.ref
    if isinstance(x, A.IntLit | A.StrLit | A.BoolLit):
        return True
    if isinstance(x, A.Name):
        return x.id != var and ref is not None and ref[0] == "local"
    if isinstance(x, A.Index):
        return ref == ("list_index",) and _pure_read(x.obj, var) and _pure_read(x.index, var)
    if isinstance(x, A.Attr):
        return ref is not None and ref[0] in ("pcounter", "field") and _pure_read(x.obj, var)
    return False


def _fold(func: str, parts: list[tuple[str, str]], truth: bool, ints: bool) -> str:
    """One expression folding the items' (filter, element) sources as aggregate ``func`` does."""
    if func in ("any", "all"):
        neg = "not " if func == "all" else ""
        tests = " or ".join(f"({neg}{x})" if w == "True" else f"({w} and {neg}{x})" for w, x in parts)
        if truth:
            return f"(not ({tests}))" if neg else f"({tests})"
        return f"(False if {tests} else True)" if neg else f"(True if {tests} else False)"
    if func == "count":
        return "(" + " + ".join(f"(1 if {w} else 0)" for w, _ in parts) + ")"
    if func == "sum":  # from 0, as the loop's `_r = 0` then `+=` (0 + a bool is an int)
        terms = [x if w == "True" else f"({x} if {w} else 0)" for w, x in parts]
        return "(" + ("" if ints else "0 + ") + " + ".join(terms) + ")"
    if func in ("min", "max"):  # unfiltered (see unrolled)
        return f"({parts[0][1]})" if len(parts) == 1 else f"{func}({', '.join(x for _, x in parts)})"
    if all(w == "True" for w, _ in parts):  # a comprehension: a tuple, as the loop function returns
        return "(" + "".join(f"{x}, " for _, x in parts) + ")"
    return "(" + " + ".join(f"({x},)" if w == "True" else f"(({x},) if {w} else ())" for w, x in parts) + ")"


def statement_loop(gen: ExprGen, e: A.Expr, truth: bool = False) -> tuple[list[str], str] | None:
    """An aggregate or comprehension that is a whole statement's value (`let best = max(…)`, the list of a `for`):
    the lines of its loop, to be written into the statement's own function, and the source of its result; a short
    form (fixed seats, constant items, a span) with no lines; None where the loop needs its own function.
    ``truth``: only the value's truth is used (an `if`'s test).

    The lines are the loop function's (``ExprGen._loop_function``'s fast case, aggregen's folds, the same work
    count), with its locals renamed apart and its variable a Python local of the statement: no call, no frame,
    and the filter and element read the statement's variables as the statement does (its Python locals, which
    the loop function had to load from ``env`` again). Only where that function would be the fast one: a filter
    or element that calls a closure which may read the loop variable (``ExprGen.unsafe``), or reads it through
    ``env``, keeps the function, which binds the variable in ``env`` and puts the old value back."""
    if not ENABLED or not isinstance(e, A.Aggregate | A.ListComp):
        return None
    short = gridgen.spans_reach(gen, e) or unroll.unrolled(gen, e) or unrolled(gen, e, truth)
    if short is not None:
        return [], short
    if isinstance(e, A.Aggregate) and e.func not in _FOLDS:
        return None
    e = scans.seat_filters(e, gen.comp)  # a filter of a `fn` that filters the seats: one loop (scans.py)
    start, x = gen.unsafe, gen._name("_x")
    # items that are a filter of the seats (`fighters()`) built by their own loop first, here too
    built = seat_items_lines(gen, e.iterable) if isinstance(e.iterable, A.ListComp | A.Call) else None
    pre, items = built if built is not None else ([], gen._seq(e.iterable))
    inner = _inner_scan(gen, e, x, e.where)  # a filter that is an `any`/`all`: its loop written in this one's body
    # an `any`/`all` without a filter whose element is one, or `A and`/`or` one: its element's loop, so
    test = inner is None and isinstance(e, A.Aggregate) and e.func in ("any", "all") and e.where is None
    if test:  # an `any`'s element true, an `all`'s false, acts: the others go on to the next item
        inner = _inner_scan(gen, e, x, e.elem, isinstance(e, A.Aggregate) and e.func == "any")
    where, elem = gen._loop_parts(e if inner is None else _unfiltered(gen, e, e.where if test else None, test), x)
    if inner is not None:
        where, elem = (where, inner[1]) if test else (inner[1], elem)
    if gen.unsafe != start or f"env[{e.var!r}]" in where + elem + "".join(inner[0] if inner is not None else ()):
        gen.unsafe = start  # the texts are thrown away: the loop function is written instead
        return None
    if isinstance(e, A.ListComp):
        if where == "True" and elem == x and inner is None:  # (a split filter has lines, its truth "True")
            return pre, f"tuple({items})"
        body = [f"    if {where}:", f"        _out.append({elem})"] if where != "True" else [f"    _out.append({elem})"]
        lines = ["_out = []", f"for {x} in {items}:", *body, "return tuple(_out)"]
    else:
        got = aggregen.aggregate_lines(e.func, True, x, items, where, elem, repr(e.var))
        assert got is not None  # every fold of _FOLDS is aggregen's
        lines = got
    if inner is not None:  # the filter's loop first in each turn, where the filter was evaluated
        at = lines.index(f"for {x} in {items}:") + 1
        lines[at:at] = [f"    {line}" for line in inner[0]]
    lines = budgetgen.counted_loop(gen, lines, items, e.span, budgets.loop_kind(
        e.iterable, gen.comp.sizes, e.elem, e.where))
    names: dict[str, str] = {}

    def fresh(m: re.Match[str]) -> str:
        return names.setdefault(m.group(1), gen._name(m.group(1)))

    *lines, result = (_TEMPS.sub(fresh, line) for line in lines)
    assert result.startswith("return ")
    return [*pre, *lines], result[len("return "):]


def for_items(sg: StmtGen, e: A.Expr) -> str:
    """Source for the items of a `for` over ``e``, after writing their loop into the statement where it can be:
    a comprehension (:func:`statement_loop`), or a call of a `fn` without parameters, inlined, whose body is one
    (Bloodborne's ``for p in hunters()``: :func:`fn_body`), else the list as usual (a zone's live list, a value)."""
    if isinstance(e, A.ListComp):
        return _bare(sg.inline_loop(e))
    with fn_body(sg.gen, e) as body:
        if body is not None:
            return _bare(sg.inline_loop(body))
    return sg.gen._seq(e)


def _is_scan(w: A.Expr | None) -> TypeGuard[A.Aggregate]:
    """An `any` or `all`: a loop that stops at its first true (false) element."""
    return isinstance(w, A.Aggregate) and w.func in ("any", "all")


def _inner_scan(gen: ExprGen, e: A.Aggregate | A.ListComp, x: str, w: A.Expr | None,
                want: bool = True) -> tuple[list[str], str] | None:
    """Where ``w``, ``e``'s filter (or the element of an `any`/`all` without one, which is only tested), is an
    `any` or `all` (Bloodborne's ``[q for q in fighters() where any(c.transform for c in q.played)]``), or an
    `and`/`or` with one on one side (``q != p and any(…)``, ``not c.transform or any(…)``): the lines to run at
    the top of each turn of ``e``'s loop, where ``w`` was evaluated, and the source of its truth after them;
    the scan's loop written in (:func:`_scan_lines`), ``e``'s variable read as the Python local ``x`` (as
    ``ExprGen._loop_parts`` binds it). None where the scan has no lines (``w`` is written as usual).

    A side split (session 24) is a gate: lines that go on to the next item (``continue``) unless ``w``'s truth
    is ``want``, and then the truth ``want`` itself (a constant the test folds away). `or` and `and` stop at their
    left side when it is true (`or`) or false (`and`); only then is the right side evaluated, and its truth is
    the whole's. So the same operands are evaluated in the same order with the same truth, and an item that
    fails goes on as the loop's ``if`` around the rest of the turn (the fold's or the list's body, all under the
    filter) would. The side that is not the scan is written as the filter would be (``_loop_parts`` of ``e``
    with it as the filter), without the narrowing an `and` gives its right side (that only spares `none` tests).
    Where the left side decides (most items of Bloodborne's option filter: `not c.transform`), the turn runs the
    same test and jump as the `or` did, and the scan's loop function is no longer called for the others."""
    if _is_scan(w):
        return _scan_lines(gen, e, w, x)
    if not (isinstance(w, A.Binary) and w.op in ("and", "or")) or _is_scan(w.left) == _is_scan(w.right):
        return None
    scan = w.left if _is_scan(w.left) else w.right
    got = _scan_lines(gen, e, scan, x)
    if got is None:
        return None
    if scan is w.left:
        left_lines, left, right_lines = got[0], got[1], []
        right = gen._loop_parts(_unfiltered(gen, e, w.right), x)[0]
    else:
        left_lines, right_lines, right = [], got[0], got[1]
        left = gen._loop_parts(_unfiltered(gen, e, w.left), x)[0]
    stop = w.op == "or"  # the left side's truth that decides the whole
    gate = [*right_lines, f"if {'not ' if want else ''}{right}:", "    continue"]
    if want == stop:  # decided by the left side: the item goes on; else the right side's truth is the whole's
        lines = [*left_lines, f"if {'not ' if stop else ''}{left}:", *(f"    {line}" for line in gate)]
    else:  # decided by the left side: the next item
        lines = [*left_lines, f"if {'' if stop else 'not '}{left}:", "    continue", *gate]
    return lines, str(want)


def filter_scan(gen: ExprGen, e: A.ListComp, x: str) -> tuple[list[str], str] | None:
    """A choice's option filter (scans.plain_filter's loop over ``e``, its variable the Python local ``x``) that is
    an `any`/`all` or has one on a side of an `and`/`or`: the lines for the top of each turn and the filter's
    truth after them (:func:`_inner_scan`); None: the filter as usual."""
    return _inner_scan(gen, e, x, e.where) if ENABLED else None


def unfiltered(gen: ExprGen, e: A.ListComp) -> A.Aggregate | A.ListComp:
    """``e`` without its filter (:func:`_unfiltered`), once :func:`filter_scan` has written the filter."""
    return _unfiltered(gen, e)


def _scan_lines(gen: ExprGen, e: A.Aggregate | A.ListComp, w: A.Expr, x: str) -> tuple[list[str], str] | None:
    """The lines of `any`/`all` ``w``'s loop and the source of its truth, with ``e``'s variable read as the Python
    local ``x``; None where it has no lines.

    The same values, errors and work: the filter's loop is the loop function it was called as (the same items,
    test, stop and work count, :func:`statement_loop`), run at the same point of the same turn, and the element
    is still evaluated only for the items it keeps."""
    comp, var = gen.comp, e.var
    saved = comp.subst, gen.subst_src, gen.subst_owner, gen.var_src, comp.subst_names, gen.var_ranges
    if var in comp.subst_names:  # the loop variable hides an inlined parameter of that name
        comp.subst_names = {k: v for k, v in comp.subst_names.items() if k != var}
    outer = gen.subst_src if saved[2] is saved[0] else {}
    comp.subst = {**{k: f for k, f in saved[0].items() if k != var}, var: _never}
    gen.subst_src = {**{k: v for k, v in outer.items() if k != var}, var: x}
    gen.subst_owner = comp.subst
    gen.bind_range(var, x, gridgen.loop_range(gen, e.iterable))
    gen.loop_locals.add(x)
    if (e.iterable.ty is not None and e.iterable.ty.kind == "zone") or holds_seats(gen, e.iterable):
        gen.nonnull.add(x)  # as _loop_parts: a zone's card or a seat is never `none`
    try:
        got = statement_loop(gen, w, True)
    finally:
        comp.subst, gen.subst_src, gen.subst_owner, gen.var_src, comp.subst_names, gen.var_ranges = saved
    return got if got is not None and got[0] else None


def _unfiltered(gen: ExprGen, e: A.Aggregate | A.ListComp, where: A.Expr | None = None,
                elem: bool = False) -> A.Aggregate | A.ListComp:
    """``e`` without its filter, for its element's source (its filter is written by :func:`_inner_scan`), or with
    ``where`` (one side of its filter) in its place; with ``elem``, its element ``True`` too (an `any`'s element
    written by :func:`_inner_scan`: its text, never run, is not written). Kept with the compiler as
    scans.seat_filters keeps its nodes (generated code keys some facts by node identity)."""
    table: dict[tuple[int, int, bool], Any] = vars(gen.comp).setdefault("unfiltered", {})
    known = table.get((id(e), id(where), elem))
    if known is None:
        bare_e = copy.copy(e)
        bare_e.where = where
        if elem and isinstance(bare_e, A.Aggregate):
            bare_e.elem = A.BoolLit(e.span, True)
        known = table[(id(e), id(where), elem)] = (e, bare_e, where)
    return known[1]


def seat_items_lines(gen: ExprGen, e: A.Expr) -> tuple[list[str], str] | None:
    """The lines building the seats a `simultaneously` runs over, and their source, where ``e`` is a comprehension
    or a call of a `fn` without parameters whose body is one (Bloodborne's ``simultaneously p in fighters()``)
    and :func:`statement_loop` writes its loop; None: the items as usual. The items are only iterated."""
    if isinstance(e, A.ListComp):
        got = statement_loop(gen, e)
    else:
        with fn_body(gen, e) as body:
            got = None if body is None else statement_loop(gen, body)
    return None if got is None else (got[0], _bare(got[1]))


@contextmanager
def fn_body(gen: ExprGen, e: A.Expr) -> Iterator[A.ListComp | None]:
    """The body of ``e`` when it is a call of a `fn` without parameters, inlined, whose body is a comprehension,
    with the generator set up as :meth:`.ExprGen._call` sets it up to write an inlined body (the body sees no
    variable of the caller's, no range, no inlined parameter); else None.

    Written in the statement, the body's loop builds the same items by the same loop in the same order as the
    loop function the call would be, in the statement's own function instead (no call, no frame, no ``tuple``
    of a tuple); its work is counted by the same rule (:func:`statement_loop`)."""
    ref: Any = e.ref
    fn = ref[1] if isinstance(e, A.Call) and not e.args and ref is not None and ref[0] == "call_fn" else None
    comp = gen.comp
    if not (ENABLED and isinstance(fn, A.FnDecl) and not fn.params and isinstance(fn.body, A.ListComp)
            and comp.can_inline(fn, [])):
        yield None
        return
    saved = comp.subst, gen.subst_src, gen.subst_owner, comp.subst_names, gen.var_ranges
    comp.subst, gen.subst_src, comp.subst_names, gen.var_ranges = {}, {}, {}, {}
    gen.subst_owner = comp.subst
    comp.inline_depth += 1
    try:
        yield fn.body
    finally:
        comp.subst, gen.subst_src, gen.subst_owner, comp.subst_names, gen.var_ranges = saved
        comp.inline_depth -= 1


def _bare(items: str) -> str:
    """The list a comprehension's loop just built in the statement (``tuple(_out7)``), not copied into a tuple: a
    `for` only iterates its items and counts them, and nothing else can reach the new list to change it."""
    m = _BUILT.fullmatch(items)
    return m.group(1) if m else items


def seats_let(gen: ExprGen, name: str, value: A.Expr) -> None:
    """`let NAME = VALUE`, which nothing rebinds to the end of its block (stmtgen ``stmts``, as for its range): when
    VALUE is a list of seats (scans.seat_list: `[q for q in players where …]`), the rest of the block knows that
    NAME's items are never `none`. The fact lives in ``gen.var_ranges`` under ``NAME[]`` (no rule variable has that
    name), so it is scoped exactly as the ranges are: dropped at the block's end, hidden inside an inlined `fn`'s
    body (which sees only its parameters), and dropped by ``ExprGen.bind_range`` wherever NAME is bound again (a
    loop variable or a `let` of that name)."""
    if scans.seat_list(value):
        gen.var_ranges = {**gen.var_ranges, name + "[]": (0, 0)}


def holds_seats(gen: ExprGen, e: A.Expr) -> bool:
    """Whether every item of list ``e`` is a seat, never `none`: scans.seat_list, or a `let` of one (:func:`seats_let`).
    A loop over it needs no `none` test of its variable (Kuhn's `max(card_of(q) for q in contenders)`)."""
    return scans.seat_list(e) or (isinstance(e, A.Name) and e.ref is not None and e.ref[0] == "local"
                                  and e.id + "[]" in gen.var_ranges)


def first_test(sg: StmtGen, e: A.Expr) -> str:
    """An ``if``'s first test ``e``, evaluated first: `any`/`all` (or `not` of one), or an emptiness test that
    scans.emptiness writes as an `any`, as a loop written before the ``if`` (``StmtGen.inline_loop``), anything
    else as the usual condition."""
    inner = e.operand if isinstance(e, A.Unary) and e.op == "not" else e
    scan = scans.emptiness_scan(sg.gen, e) if isinstance(e, A.Binary) else None
    if scan is not None and isinstance(e, A.Binary):  # `size(hunters()) > 0`: scans.emptiness's `any`, here
        return f"(not {sg.inline_loop(scan, True)})" if e.op == "==" else sg.inline_loop(scan, True)
    if not (isinstance(inner, A.Aggregate) and inner.func in ("any", "all")):
        # a counter the statement just wrote is read as the value written (codegen/forward.py)
        return forward.counter_read(sg, len(sg.lines), sg.gen.cond(e))
    return sg.inline_loop(inner, True) if inner is e else f"(not {sg.inline_loop(inner, True)})"
