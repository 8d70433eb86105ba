"""Loops over a choice's options and first-match scans, written for the generated code (see :mod:`.exprgen`).

* A choice's option filter (`choose … where`, `simultaneously … where`): a comprehension where the test reads
  nothing through ``env``, else a loop that binds the choice's variable for the closures it calls.
* ``[c for c in Z where T][0]``: the first item that passes, without building the list, when neither the test
  nor the element can fail or draw from the RNG (so skipping the items after the first match changes nothing:
  the loop's work was already counted when it started, as the whole comprehension's is). With nothing found, the
  error of indexing the empty list.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import cse
from liturgy.interpreter.codegen.hoist import Hoist, function_text

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
    x = gen._name("_x")
    probe = A.ListComp(where.span, A.BoolLit(where.span, True), var, source, where)
    hoist = Hoist(gen, frozenset({var}), eager=True)
    before = gen.unsafe
    with gen.fresh(hoist):
        fast = gen._loop_parts(probe, x)
    v = repr(var)
    if gen.unsafe != before or f"env[{v}]" in fast[0]:
        hoist = Hoist(gen, frozenset({var}), eager=True)
        with gen.fresh(hoist):
            cond = gen._loop_parts(probe, None, x)[0]
        lines = ["_out = []", f"for {x} in items:", f"    env[{v}] = {x}", f"    if {cond}:",
                 f"        _out.append({x})"]
    elif pop and not cse.binds_temporary(fast[0]):
        # a comprehension: no `append` call per kept item (the filter of a choice over every cell or card)
        lines = [f"_out = [{x} for {x} in items if {fast[0]}]"]
    else:
        lines = ["_out = []", f"for {x} in items:", f"    if {fast[0]}:", f"        _out.append({x})"]
        if not pop:
            lines += ["if items:", f"    env[{v}] = {x}"]
    if pop:
        lines.append(f"env.pop({v}, None)")
    lines.append("return tuple(_out)")
    name = gen._name("_w")
    code = function_text(f"def {name}(s, env, items):", hoist, lines)
    return gen.sources.load(gen.ns, name, "filter", code, where.span)


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


def _seats(e: A.Expr) -> bool:
    """Whether ``e`` is a list of seats, none of them `none`: ``players`` or ``players_from(…)``."""
    if isinstance(e, A.Name):
        return e.ref == ("builtin", "players")
    return isinstance(e, A.Call) and e.ref is not None and tuple(e.ref[:2]) == ("call_builtin", "players_from")


def first_match(e: A.Index) -> bool:
    """Whether ``e`` is ``[… for … where …][0]`` whose test and element neither fail nor draw."""
    lc = e.obj
    if not (isinstance(lc, A.ListComp) and isinstance(e.index, A.IntLit) and e.index.value == 0
            and not isinstance(e.index.value, bool)):
        return False
    seat = lc.var if _seats(lc.iterable) else None
    return _cannot_fail(lc.where, seat) and _cannot_fail(lc.elem, seat)


def first_lines(x: str, items: str, where: str, elem: str) -> list[str] | None:
    """The loop of a first-match scan, or None when the written test or element calls anything (an inlined
    argument written as a closure call, a check that may raise)."""
    if _CALL.search(where) or _CALL.search(elem):
        return None
    return [f"for {x} in {items}:", f"    if {where}:", f"        return {elem}", "_index((), 0)"]
