"""The closures' side of the per-game budgets (interpreter/runtime/budget.py): wrappers that count work and
check sizes around the closures the expression and statement compilers build. Generated code writes the same
checks inline (interpreter/codegen/budgetgen.py); both stop a game at the same point with the same message."""

from __future__ import annotations

from typing import Any

from liturgy.dsl.diagnostics import Span
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.code import ExprFn
from liturgy.interpreter.runtime import budget
from liturgy.interpreter.runtime.state import GameState


def where(span: Span) -> str:
    """How a budget error names the place it was passed."""
    return f"at line {span.line}"


def counted_items(it: ExprFn, limit: int, span: Span) -> ExprFn:
    """``it``'s items as a tuple, each costing one unit of the game's work (a `for`, aggregate, comprehension)."""
    at = where(span)

    def items(s: GameState, env: dict[str, Any]) -> tuple[Any, ...]:
        got = tuple(it(s, env))
        s.work += len(got)
        if s.work > limit:
            budget.over_work(s, limit, at)
        return got

    return items


def charge(s: GameState, units: int, limit: int, at: str) -> None:
    """Count ``units`` of work (a call, a fire, a loop's passes) and stop the game past ``limit``."""
    s.work += units
    if s.work > limit:
        budget.over_work(s, limit, at)


def checked_binary(e: A.Binary, fn: ExprFn, size_limit: int, text_limit: int) -> ExprFn:
    """``fn`` (an arithmetic or text `+`, `-`, `*`) with its result checked: 64-bit ints, texts within
    ``text_limit``; other operators as they are."""
    ty = e.ty.kind if e.ty is not None else None
    at = where(e.span)
    if ty == "int" and e.op in ("+", "-", "*"):
        low, high = budget.INT_MIN, budget.INT_MAX

        def int_op(s: GameState, env: dict[str, Any]) -> Any:
            v = fn(s, env)
            return v if low <= v <= high else budget.overflow(v, at)

        return int_op
    if ty == "text" and e.op == "+":
        def text_op(s: GameState, env: dict[str, Any]) -> Any:
            v = fn(s, env)
            return v if len(v) <= text_limit else budget.too_big("text", len(v), text_limit, at)

        return text_op
    return fn


def checked_concat(ls: ExprFn, rs: ExprFn, size_limit: int, span: Span) -> ExprFn:
    """List ``+``: the two sizes compared with ``size_limit`` before the copy is made."""
    at = where(span)
    return lambda s, env: budget.concat_checked(tuple(ls(s, env)), tuple(rs(s, env)), size_limit, size_limit, at)


def checked_negation(of: ExprFn, span: Span) -> ExprFn:
    """Unary minus: -(-2^63) is the one result that leaves 64 bits."""
    at = where(span)
    return lambda s, env: budget.int_checked(-of(s, env), at)


def checked_builtin(name: str, e: A.Call, fn: ExprFn, args: list[ExprFn], size_limit: int,
                    text_limit: int) -> ExprFn:
    """A built-in whose result can grow: `join` counts its length before joining; `range`, `text` and `abs`
    are checked after (their results are small next to what they read); the others as they are."""
    at = where(e.span)
    if name == "join" and len(args) == 2:
        items, sep = args
        return lambda s, env: budget.join_checked(items(s, env), sep(s, env), text_limit, at)
    if name in ("range", "text", "abs"):
        return lambda s, env: budget.sized(fn(s, env), size_limit, text_limit, at)
    return fn


def recursive_fns(prog: Any) -> frozenset[str]:
    """The `fn`s that can call themselves (directly or through other `fn`s). They are never inlined: inlining
    a `fn` that calls itself twice copies its body 2^6 times into each call, work the budget would not see."""
    from liturgy.interpreter.compiler.instructions import _children

    calls: dict[str, set[str]] = {}
    for name, fn in prog.fns.items():
        found: set[str] = set()
        stack: list[Any] = [fn.body]
        while stack:
            n = stack.pop()
            if isinstance(n, A.Call) and n.ref and n.ref[0] == "call_fn":
                found.add(n.ref[1].name)
            stack.extend(_children(n))
        calls[name] = found
    out = set()
    for name in calls:
        seen, todo = set(), list(calls[name])
        while todo:
            k = todo.pop()
            if k == name:
                out.add(name)
                break
            if k not in seen:
                seen.add(k)
                todo.extend(calls.get(k, ()))
    return frozenset(out)
