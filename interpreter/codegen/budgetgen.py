"""Generated code's side of the per-game budgets (interpreter/runtime/budget.py): the checks written inline.

The counters sit on the hot path, so they cost as little as Python allows: a loop adds its item count once
when it starts (``s.work += len(items)``) and a `repeat while` its passes once when it stops, a call or a
`fire` adds one, and each is followed by one comparison with the limit, a constant in the text. An int `+`,
`-` or `*` is one chained comparison on a walrus temporary. The closures (interpreter/compiler/budgets.py)
do the same checks in the same places, so both compile modes stop a game at the same point.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from liturgy.dsl.diagnostics import Span
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.budgets import SMALL_LOOP
from liturgy.interpreter.runtime import budget

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen

NAMESPACE: dict[str, Any] = {
    "_over_work": budget.over_work, "_overflow": budget.overflow, "_too_big": budget.too_big,
    "_sized": budget.sized, "_join_checked": budget.join_checked, "_concat_checked": budget.concat_checked,
}
_LOW, _HIGH = budget.INT_MIN, budget.INT_MAX


def where(span: Span) -> str:
    return repr(f"at line {span.line}")


def charge(units: str, limit: int, at: str) -> list[str]:
    """Lines adding ``units`` to the game's work and stopping the game past ``limit`` (``at`` a repr)."""
    return [f"s.work += {units}", f"if s.work > {limit}:", f"    _over_work(s, {limit}, {at})"]


def charge_call(gen: ExprGen, key: str, what: str, span: Span) -> list[str]:
    """The lines one call of ``key`` (`field:NAME`, …) costs: none unless it can call itself."""
    if key not in gen.comp.recursive:
        return []
    return charge("1", gen.comp.work_limit, repr(f"{what} at line {span.line}"))


def binary(gen: ExprGen, e: A.Binary) -> str:
    """The source of ``e`` with its result checked: ints in 64 bits, texts within the text limit, lists
    concatenated only within the size limit. Each operand's source is written once: writing a list `+`'s
    operands again for the check made a chain of n `+` write its innermost operand 2^n times (Betrayal's load
    compiled 7,860 functions where 1,372 are needed)."""
    kind = e.ty.kind if e.ty is not None else None
    if e.op not in ("+", "-", "*") or kind not in ("int", "text", "list"):
        return gen._binary(e)
    sizes = gen.comp.sizes
    if (kind == "int" and gen.int_range(e) is not None) or (
            kind == "list" and sizes.concat_fits(e, gen.comp.size_limit)):
        return _plus_zero(e, gen._binary(e))  # provably within its budget (compiler/sizes.py): never fires
    if kind == "list":
        size = gen.comp.size_limit
        return f"_concat_checked({gen._seq(e.left)}, {gen._seq(e.right)}, {size}, {size}, {where(e.span)})"
    text = gen._binary(e)
    if kind == "int" and (plain := _plus_zero(e, text)) is not text:
        return plain  # `x + 0`: x, already an int in range
    t = gen._name("_t")
    if kind == "int":
        return f"({t} if {_LOW} <= ({t} := {text}) <= {_HIGH} else _overflow({t}, {where(e.span)}))"
    limit = gen.comp.text_limit
    return f"({t} if len({t} := {text}) <= {limit} else _too_big('text', len({t}), {limit}, {where(e.span)}))"


def _plus_zero(e: A.Binary, text: str) -> str:
    """``(A + 0)`` or ``(A - 0)`` of ints as ``A``: a direction's step folded to 0 in a loop written out
    (codegen/unroll.py: ``y + dy(east)``). The text is ``({left} {op} {right})`` (exprgen's `_binary`), and a
    right operand's source is a literal or parenthesized, so the suffix `` + 0)`` means the right side is 0."""
    if (e.op in ("+", "-") and text.startswith("(") and text.endswith((" + 0)", " - 0)")) and e.left.ty is not None
            and e.left.ty.kind == "int" and e.right.ty is not None and e.right.ty.kind == "int"):
        return text[1:-5]
    return text


def negation(e: A.Unary, text: str, gen: ExprGen) -> str:
    if gen.int_range(e) is not None:
        return text
    t = gen._name("_t")
    return f"({t} if {_LOW} <= ({t} := {text}) <= {_HIGH} else _overflow({t}, {where(e.span)}))"


def call(gen: ExprGen, e: A.Call) -> str:
    """A built-in call whose result can grow, checked (`join` counts before it joins); others as written. The
    arguments' sources are written once (see :func:`binary`)."""
    ref = e.ref
    if ref is None or ref[0] != "call_builtin" or ref[1] not in ("join", "range", "text", "abs"):
        return gen._call(e)
    comp = gen.comp
    if ref[1] == "join" and len(e.args) == 2:
        return (f"_join_checked({gen.src(e.args[0])}, {gen.src(e.args[1])}, {comp.text_limit}, "
                f"{where(e.span)})")
    inner = gen._call(e)
    folded = gen.ns.get(inner) if inner.startswith("_k") else None
    if isinstance(folded, tuple | str) and len(folded) <= min(comp.size_limit, comp.text_limit):
        return inner  # a constant (`range(8)`, folded when compiled) already within its budget
    return f"_sized({inner}, {comp.size_limit}, {comp.text_limit}, {where(e.span)})"


def counted(gen: Any, items: str, span: Span, kind: str, source: str = "") -> list[str]:
    """Lines counting the items of a loop held in ``items`` (a name): a flat loop of a few items costs nothing
    (compiler/budgets.py, SMALL_LOOP and loop_kind, say why). ``source``, the items' own source, may name a
    constant of the generated code (``range(8)``, folded when compiled): then its size is known now, and a
    small loop's test, always false, is left out."""
    folded = gen.ns.get(source) if source.startswith("_k") else None
    size = str(len(folded)) if isinstance(folded, tuple) else f"len({items})"
    lines = charge(size, gen.comp.work_limit, where(span))
    if kind == "none":
        return []
    if kind == "all":
        return lines
    if isinstance(folded, tuple):
        return [] if len(folded) <= SMALL_LOOP else lines
    return [f"if len({items}) > {SMALL_LOOP}:", *(f"    {x}" for x in lines)]


def counted_loop(gen: ExprGen, lines: list[str], items: str, span: Span, kind: str) -> list[str]:
    """An aggregate's or comprehension's lines with its items counted as work when the loop starts."""
    if kind == "none":
        return lines
    out = [f"_it = {items}", *counted(gen, "_it", span, kind, items)]
    for line in lines:
        if line.endswith(f" in {items}:") and line.startswith("for "):
            line = line[: -len(items) - 1] + "_it:"
        elif line == f"return tuple({items})":
            line = "return tuple(_it)"
        out.append(line)
    return out
