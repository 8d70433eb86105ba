"""Loops over a choice's options and first-match scans, written for the generated code (see :mod:`.exprgen`).

* A choice's option filter (`choose … where`, `simultaneously … where`): a comprehension where the test reads
  nothing through ``env``, else a loop that binds the choice's variable for the closures it calls.
* ``[c for c in Z where T][0]``: the first item that passes, without building the list, when neither the test
  nor the element can fail or draw from the RNG (so skipping the items after the first match changes nothing:
  the loop's work was already counted when it started, as the whole comprehension's is). With nothing found, the
  error of indexing the empty list.
"""
from __future__ import annotations

import copy
import itertools
import re
from typing import TYPE_CHECKING, Any

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import cse, letgen, unroll
from liturgy.interpreter.codegen.hoist import Hoist, function_text
from liturgy.interpreter.compiler import budgets

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen

# a call in generated text (a name, an index or a parenthesis followed by "("): something that may fail or draw
_CALL = re.compile(r"[A-Za-z0-9_\]\)]\s*\(")


def filter_function(gen: ExprGen, var: str, source: A.Expr, where: A.Expr, pop: bool) -> Any:
    """The option filter: kept options (:mod:`.kept`) where the program proves they only shrink, else
    :func:`plain_filter`."""
    from liturgy.interpreter.codegen.kept import kept_filter

    kept = kept_filter(gen, var, source, where, pop)
    return kept if kept is not None else plain_filter(gen, var, source, where, pop)


def plain_filter(gen: ExprGen, var: str, source: A.Expr, where: A.Expr, pop: bool) -> Any:
    """``f(s, env, items)``: the items for which ``where`` holds with ``var`` bound to each, as a tuple.

    The step machine's option lists (`choose … where`, `simultaneously … where`). Like the closures, the
    choice variable is left out of ``env`` afterwards when ``pop`` is set, and holds the last item
    otherwise (``simultaneously`` removes it once every player's options are known).
    """
    from liturgy.interpreter.codegen import inline_aggregates

    x = gen._name("_x")
    probe = A.ListComp(where.span, A.BoolLit(where.span, True), var, source, where)
    if pop:
        hoist = Hoist(gen, frozenset({var}), eager=True)
        tests = _written_out(gen, probe, hoist)
        if tests is not None:  # one test per item, no comprehension (Connect Four's seven columns)
            lines = [f"_out = {gen.const(itertools.compress)}(items, ({tests}, ))", f"env.pop({var!r}, None)",
                     "return tuple(_out)"]
            name = gen._name("_w")
            code = function_text(f"def {name}(s, env, items):", hoist, lines)
            return gen.sources.load(gen.ns, name, "filter", code, where.span)
    hoist = Hoist(gen, frozenset({var}), eager=True)
    before = gen.unsafe
    with gen.fresh(hoist):
        # a filter that is an `any`/`all`, or `A or`/`and` one (Bloodborne's `not c.transform or any(…)`): the
        # scan's loop at the top of each turn, not a call of its loop function (inline_aggregates.filter_scan)
        inner = inline_aggregates.filter_scan(gen, probe, x)
        fast = gen._loop_parts(probe if inner is None else inline_aggregates.unfiltered(gen, probe), x)
    v = repr(var)
    pre: list[str] = []

    def loop(items: str, out: str, test: str, bind: bool) -> list[str]:
        head = [f"{out} = []", f"for {x} in {items}:", *([f"    env[{v}] = {x}"] if bind else [])]
        return [*head, *(f"    {line}" for line in pre), f"    if {test}:", f"        {out}.append({x})"]

    if gen.unsafe != before or f"env[{v}]" in fast[0] + "".join(inner[0] if inner is not None else ()):
        hoist = Hoist(gen, frozenset({var}), eager=True)
        with gen.fresh(hoist):
            cond = gen._loop_parts(probe, None, x)[0]
        form = (cond, True)
    elif inner is not None:
        pre = inner[0]
        form = (inner[1], False)
    elif pop and not cse.binds_temporary(fast[0]):
        form = None
    else:
        form = (fast[0], False)

    def text(items: str, out: str) -> list[str]:
        if form is None:  # a comprehension: no `append` call per kept item (a choice over every cell or card)
            return [f"{out} = [{x} for {x} in {items} if {fast[0]}]"]
        tail = [f"if {items}:", f"    env[{v}] = {x}"] if not pop and not form[1] else []
        return [*loop(items, out, *form), *tail]

    lines = text("items", "_out")
    if pop:
        lines.append(f"env.pop({v}, None)")
    lines.append("return tuple(_out)")
    name = gen._name("_w")
    code = function_text(f"def {name}(s, env, items):", hoist, lines)
    fn = gen.sources.load(gen.ns, name, "filter", code, where.span)
    cgen = getattr(gen.comp, "cgen", None)
    if form is not None and cgen is not None:
        # the same loop for the choice to write into its own text (choicegen.py ``ChoiceGen.choose``, ``collect``);
        # not a comprehension, whose own scope would hide the fused function's rule variables held in locals
        it, out = gen._name("_i"), gen._name("_o")
        loop_lines = [*text(it, out), *([f"env.pop({v}, None)"] if pop else [])]
        body = function_text("def _(s, env, items):", hoist, loop_lines).splitlines()[1:]
        cgen.filters[id(fn)] = (fn, it, out, [line[4:] for line in body])
    return fn


def _written_out(gen: ExprGen, probe: A.ListComp, hoist: Hoist) -> str | None:
    """The filter's test for each item of a few constant items (a `range` with constant bounds, a named direction
    set: :func:`.unroll.items`), the item written in place of the variable so what reads it folds (a column's
    slot is a number): ``test0, test1, …``, which ``itertools.compress`` pairs with the items. None where the
    texts would read the variable through ``env`` or call a closure that might, or grow past
    :data:`.unroll.MAX_TEXT`.

    The same options as the comprehension: the items are the ones the choice was given (its source is that
    constant), each test is evaluated once, in the items' order, before any option is returned, so an error
    surfaces at the same item; the comprehension counted no work of its own, so none is dropped."""
    values = unroll.items(gen, probe.iterable)
    if not unroll.ENABLED or not values or len(values) > unroll.MAX_ITEMS:
        return None
    start = gen.unsafe
    tests = []
    with gen.fresh(hoist):
        for value in values:
            test = gen._loop_parts(probe, value)[0]
            if gen.unsafe != start or f"env[{probe.var!r}]" in test:
                gen.unsafe = start  # the texts are thrown away
                return None
            tests.append(test)
    text = ", ".join(tests)
    return text if len(text) <= unroll.MAX_TEXT else None


def _cannot_fail(e: A.Expr | None, seat: str | None = None) -> bool:
    """Whether ``e`` is built only from parts that neither fail nor draw: literals, variables, printed fields,
    ``==``/``!=``, `and`/`or`/`not` (a field of something that may be `none` is caught by the text's test).

    With ``seat`` (a comprehension's variable that runs over seats only: ``players``, ``players_from(…)``), a
    counter of that player (``q.eliminated``) is such a part too: a seat is never `none`, so its slot is read
    without a test. A player counter of any other player may read `none`'s slot, which the text does not test
    (a player variable read from ``env`` is written without one), so it still builds the whole list."""
    if e is None or isinstance(e, A.IntLit | A.BoolLit | A.StrLit | A.NoneLit):
        return True
    if isinstance(e, A.Name):
        return e.ref is not None and e.ref[0] == "local"
    if isinstance(e, A.Attr):
        if (seat is not None and e.ref is not None and e.ref[0] == "pcounter" and isinstance(e.obj, A.Name)
                and e.obj.id == seat and e.obj.ref is not None and e.obj.ref[0] == "local"):
            return True
        return e.ref is not None and e.ref[0] == "field" and _cannot_fail(e.obj, seat)
    if isinstance(e, A.Binary):
        return e.op in ("==", "!=", "and", "or") and _cannot_fail(e.left, seat) and _cannot_fail(e.right, seat)
    if isinstance(e, A.Unary):
        return e.op == "not" and _cannot_fail(e.operand, seat)
    return False


def seat_list(e: A.Expr, depth: int = 0) -> bool:
    """Whether every item of ``e`` is a seat (never `none`): :func:`seats_only`, a comprehension keeping its own
    variable over one of those, or a call of a `fn` whose body is one (Bloodborne's `fighters()`, a filter of
    `hunters()`, a filter of `players_from(first)`). A loop over one needs no `none` test of its variable."""
    if seats_only(e):
        return True
    if depth > 8:  # a chain of fns this deep (or one that calls itself): not worth proving
        return False
    if isinstance(e, A.ListComp):
        el = e.elem
        return (isinstance(el, A.Name) and el.id == e.var and el.ref is not None and el.ref[0] == "local"
                and seat_list(e.iterable, depth + 1))
    ref: Any = e.ref
    if isinstance(e, A.Call) and ref is not None and ref[0] == "call_fn" and isinstance(ref[1], A.FnDecl):
        return not ref[1].params and seat_list(ref[1].body, depth + 1)
    return False


def seats_only(e: A.Expr) -> bool:
    """Whether ``e`` is a list of seats, none of them `none`: ``players`` or ``players_from(…)``."""
    if isinstance(e, A.Name):
        return e.ref == ("builtin", "players")
    return isinstance(e, A.Call) and e.ref is not None and tuple(e.ref[:2]) == ("call_builtin", "players_from")


def seat_filters(e: A.Aggregate | A.ListComp, comp: Any) -> A.Aggregate | A.ListComp:
    """``e`` over ``fighters()``, where ``fn fighters() = [p for p in hunters() where not p.dead]`` and
    ``fn hunters() = [p for p in players_from(first) where not p.eliminated]``: one loop over the seats, testing
    ``not p.eliminated and not p.dead`` and then ``e``'s own test, instead of a call building each list.

    Written only when the called `fn` takes no arguments and is inlined anyway, its body is a filter of the seats
    (``players``, ``players_from(…)``: never `none`) keeping the item itself, bound to the same name as ``e``'s,
    with a test that cannot fail or draw (:func:`_cannot_fail`). Then the same items reach ``e``'s test and
    element in the same order; only the inner tests, which can neither fail, draw nor write, run interleaved with
    them instead of all before. A filter of a filter of the seats is fused
    from the inside out. The new nodes are kept with the compiler for as long as it lives (generated code keys
    some facts by node identity, so a node must not be freed and its id reused)."""
    known = _fusions(comp).get(id(e))
    if known is not None:
        return known[1]  # type: ignore[no-any-return]
    inner = _seat_filter(e.iterable, comp)
    # a loop that nests nothing over a list of at most SMALL_LOOP items charges no work (compiler/budgets.py):
    # both the two loops and the fused one must be such, so that the work charged is the same (none)
    if inner is None or inner.var != e.var or budgets.loop_kind(e.iterable, comp.sizes, e.elem, e.where) != "none":
        return e
    fused = copy.copy(e)  # the checker's type and referent come along
    fused.iterable = inner.iterable
    if inner.where is not None and e.where is not None:
        both = A.Binary(e.where.span, op="and", left=inner.where, right=e.where)
        both.ty = e.where.ty
        fused.where = both
    else:
        fused.where = inner.where if e.where is None else e.where
    if budgets.loop_kind(fused.iterable, comp.sizes, fused.elem, fused.where) != "none":
        fused = e
    _fusions(comp)[id(e)] = (e, fused)
    return fused


def _fusions(comp: Any) -> dict[int, Any]:
    """The compiler's table of fused seat filters (:func:`seat_filters`), made on first use."""
    table: dict[int, Any] = vars(comp).setdefault("seat_filters", {})
    return table


def _seat_filter(call: A.Expr, comp: Any) -> A.ListComp | None:
    """The body of ``call`` when it is a filter of the seats that :func:`seat_filters` may write in place."""
    if not (isinstance(call, A.Call) and not call.args and call.ref is not None and call.ref[0] == "call_fn"):
        return None
    fn = call.ref[1]
    if fn.params or not comp.can_inline(fn, []) or not isinstance(fn.body, A.ListComp):
        return None
    body = seat_filters(fn.body, comp)
    elem = body.elem
    if not (isinstance(elem, A.Name) and elem.id == body.var and elem.ref is not None and elem.ref[0] == "local"):
        return None
    if not isinstance(body, A.ListComp) or not seats_only(body.iterable) or not _cannot_fail(body.where, body.var):
        return None
    return body


def first_match(e: A.Index, gen: ExprGen) -> bool:
    """Whether ``e`` is ``[… for … where …][0]`` whose test and element neither fail nor draw.

    Not when the comprehension reads an inlined `fn`'s parameter that cannot be passed to the scan's function
    as a plain name (``seat(e.lane)``: the argument's text names the caller's loop item, a Python local the
    scan's own function does not have); the list's function reads it as the closures do."""
    lc = e.obj
    if not (isinstance(lc, A.ListComp) and isinstance(e.index, A.IntLit) and e.index.value == 0
            and not isinstance(e.index.value, bool)):
        return False
    if gen._passed(lc) is None and letgen.free_locals(lc) & gen.comp.subst.keys():
        return False
    seat = lc.var if seats_only(lc.iterable) else None
    return _cannot_fail(lc.where, seat) and _cannot_fail(lc.elem, seat)


def first_lines(x: str, items: str, where: str, elem: str) -> list[str] | None:
    """The loop of a first-match scan, or None when the written test or element calls anything (an inlined
    argument written as a closure call, a check that may raise)."""
    if _CALL.search(where) or _CALL.search(elem):
        return None
    return [f"for {x} in {items}:", f"    if {where}:", f"        return {elem}", "_index((), 0)"]


def emptiness(gen: ExprGen, e: A.Binary) -> str | None:
    """``size(L) > 0``, ``size(L) != 0`` or ``size(L) == 0``, where ``L`` is a list comprehension (or a call of a
    `fn` without parameters, inlined, whose body is one) whose test and element neither fail nor draw over a
    list small enough that the loop charges no work: an `any` scan over the same items with the same test, which
    stops at the first item kept instead of building the list to count it (Bloodborne's `size(hunters()) > 0`).

    The same value, errors and work: the items are evaluated as before, the tests that are skipped (after the
    first kept item) and the elements that are not built could neither fail nor draw nor write, and neither loop
    counts work (:func:`.budgets.loop_kind` "none" for both). None: written as before. The new nodes are kept
    with the compiler (generated code keys some facts by node identity)."""
    node = emptiness_scan(gen, e)
    if node is None:
        return None
    text = gen.src(node)
    return f"(not {text})" if e.op == "==" else text


def emptiness_scan(gen: ExprGen, e: A.Expr) -> A.Aggregate | None:
    """The `any` scan :func:`emptiness` writes for ``e`` (its value, negated for ``== 0``), or None."""
    if not (isinstance(e, A.Binary) and e.op in (">", "!=", "==") and isinstance(e.right, A.IntLit)
            and e.right.value == 0 and not isinstance(e.right.value, bool)):
        return None
    sized = e.left
    if not (isinstance(sized, A.Call) and sized.ref is not None and tuple(sized.ref[:2]) == ("call_builtin", "size")
            and len(sized.args) == 1):
        return None
    table: dict[int, Any] = vars(gen.comp).setdefault("emptiness_scans", {})
    known = table.get(id(e))
    if known is None:
        known = table[id(e)] = (e, _any_scan(gen, sized.args[0], e))
    node: A.Aggregate | None = known[1]
    return node


def _any_scan(gen: ExprGen, listed: A.Expr, e: A.Binary) -> A.Aggregate | None:
    """The `any` aggregate :func:`emptiness` writes for ``size(listed)``, or None where it may not."""
    comp: Any = gen.comp
    lc: A.Expr = listed
    if isinstance(listed, A.Call) and not listed.args and listed.ref is not None and listed.ref[0] == "call_fn":
        fn = listed.ref[1]
        if not isinstance(fn, A.FnDecl) or fn.params or not comp.can_inline(fn, []):
            return None
        lc = fn.body
    if not isinstance(lc, A.ListComp) or e.ty is None:
        return None
    seat = lc.var if seat_list(lc.iterable) else None
    if not (_cannot_fail(lc.elem, seat) and _cannot_fail(lc.where, seat)):
        return None
    # `any(T for x in I)`: the test as the element (one test an item, no `and True`)
    scan = A.Aggregate(e.span, func="any", elem=lc.where if lc.where is not None else A.BoolLit(e.span, True),
                       var=lc.var, iterable=lc.iterable)
    scan.ty = e.ty
    if lc.where is None:
        scan.elem.ty = e.ty
    if (budgets.loop_kind(lc.iterable, comp.sizes, lc.elem, lc.where) != "none"
            or budgets.loop_kind(scan.iterable, comp.sizes, scan.elem, scan.where) != "none"):
        return None
    return scan
