"""The step machine's instructions (call, return, jump, branch, loops) and the analyses of statement
blocks that decide which code suspends (may ask for a decision) and must run on the step machine."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from liturgy.dsl.checker.program import Program
from liturgy.dsl.constructs import STATEMENTS
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.code import Callable_, Code, ExprFn, Ins
from liturgy.interpreter.compiler.sizes import _fields
from liturgy.interpreter.runtime.errors import RuleError
from liturgy.interpreter.runtime.state import GameState


def _invoke(s: GameState, target: Callable_, env: dict[str, Any]) -> None:
    """Run a proc, handler or effect: push its code on the step machine, or call its closure."""
    if target.code is not None:
        _push(s, target.code, env)
    else:
        assert target.pure is not None
        target.pure(s, env)


def _ret(s: GameState, fr: list[Any]) -> bool:
    s.frames.pop()
    return False


def _fire_chain(frames: list[Any], fired: list[str], last: str) -> list[str]:
    """Name the loop for the error message: the windows being handled, then the one firing now."""
    names = [f[0].name[3:] for f in frames[1:] if f[0].name.startswith("on ")] + fired
    return [*names[-6:], last]


# the deepest call chain a game may build (a recursive procedure or trigger stops with a rule error there)
MAX_FRAMES = 500


def _push(s: GameState, code: Code, env: dict[str, Any]) -> None:
    if len(s.frames) > MAX_FRAMES:
        chain = " -> ".join(f[0].name for f in s.frames[-6:])
        raise RuleError(f"call chain deeper than 500 frames (…{chain})")
    s.frames.append([code, 0, env])


def _bind(env: dict[str, Any], var: str, value: Any) -> bool:
    env[var] = value
    return True


def _jump_placeholder() -> Ins:
    def placeholder(s: GameState, fr: list[Any]) -> bool:  # pragma: no cover - always patched
        raise AssertionError("unpatched jump")

    return placeholder


def _goto(target: int) -> Ins:
    def goto(s: GameState, fr: list[Any]) -> bool:
        fr[1] = target
        return False

    return goto


def _branch(cond: ExprFn, then_pc: int, else_pc: int) -> Ins:
    def branch(s: GameState, fr: list[Any]) -> bool:
        fr[1] = then_pc if cond(s, fr[2]) else else_pc
        return False

    return branch


def _for_init(it: ExprFn, key: str) -> Ins:
    def for_init(s: GameState, fr: list[Any]) -> bool:
        env = fr[2]
        env[key] = (tuple(it(s, env)), 0)
        fr[1] += 1
        return False

    return for_init


def _for_next(key: str, names: tuple[str, ...], end: int) -> Ins:
    single = len(names) == 1
    n0 = names[0]

    def for_next(s: GameState, fr: list[Any]) -> bool:
        env = fr[2]
        items, i = env[key]
        if i >= len(items):
            del env[key]
            fr[1] = end
            return False
        if single:
            env[n0] = items[i]
        else:
            for n, v in zip(names, items[i], strict=True):
                env[n] = v
        env[key] = (items, i + 1)
        fr[1] += 1
        return False

    return for_next


def _pack(widths: Iterable[tuple[str, int]]) -> tuple[dict[str, int], int]:
    """Lay named slots of the given widths one after another: each one's offset, and the total width."""
    offsets: dict[str, int] = {}
    off = 0
    for name, width in widths:
        offsets[name] = off
        off += width
    return offsets, off


def _suspends(st: A.Stmt, prog: Program) -> bool:
    """Does this statement need the step machine (a decision may happen inside)?"""
    if isinstance(st, A.Choose | A.Simultaneous):
        return True
    if isinstance(st, A.Do) and isinstance(st.call, A.Call):
        ref = A.ref_of(st.call)
        if ref[0] == "call_proc":
            return f"proc:{ref[1].name}" in prog.suspending
        if isinstance(st.call.func, A.Attr):
            name = st.call.func.name
            return any(f"field:{k}.{name}" in prog.suspending for k in prog.kinds)
        return False
    if isinstance(st, A.Fire):
        return f"window:{st.window}" in prog.suspending
    if isinstance(st, A.If):
        return any(_suspends_block(b, prog) for _, b in st.branches) or _suspends_block(st.orelse, prog)
    if isinstance(st, A.For | A.RepeatWhile):
        return _suspends_block(st.body, prog)
    return False


def _suspends_block(stmts: Sequence[A.Stmt], prog: Program) -> bool:
    return any(_suspends(s, prog) for s in stmts)


def _children(n: Any) -> list[Any]:
    """The sub-expressions of an expression node. Its positions, type and referent (sizes.py's ``_fields``
    leaves them out) are never an expression or a list of them, so only the other fields are read: the callers
    (:func:`_local_names`, :func:`_has_effects`) walk every node of every expression they are asked about."""
    out: list[Any] = []
    for key in _fields(n.__class__):
        v = getattr(n, key)
        if isinstance(v, A.Expr):
            out.append(v)
        elif isinstance(v, list):
            out.extend(x for x in v if isinstance(x, A.Expr))
    return out


def _local_names(e: A.Expr) -> set[str]:
    """Every local variable (or parameter) an expression reads by name."""
    out: set[str] = set()
    stack: list[Any] = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, A.Name) and n.ref and n.ref[0] == "local":
            out.add(n.id)
        stack.extend(_children(n))
    return out


def _has_effects(e: A.Expr) -> bool:
    """Does evaluating ``e`` draw from the RNG (so it must be evaluated exactly once)?"""
    stack: list[Any] = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, A.Call) and isinstance(n.func, A.Name) and n.func.id in ("roll", "random"):
            return True
        if isinstance(n, A.Call) and n.ref and n.ref[0] in ("call_fn", "call_field"):
            return True
        stack.extend(_children(n))
    return False


def _has_break(stmts: Sequence[A.Stmt]) -> bool:
    """Does a `break` in ``stmts`` leave the loop around them? Through the registry: a `break` inside a loop
    statement (``loop`` in dsl/constructs/statements.py) leaves that loop instead."""
    for s in stmts:
        if isinstance(s, A.Break):
            return True
        c = STATEMENTS[type(s)]
        if not c.loop and any(_has_break(b) for b in c.blocks(s)):
            return True
    return False
