"""Warnings for the obvious runaway rules (issue 18): W070-W073.

The engine stops any runaway game with a named budget error (interpreter/runtime/budget.py), but only when it
runs; these catch the plain cases at check time, where the author reads them:

- **W070** a proc or `fn` that calls itself on every path (no `if` or `if … then … else` around the call): it
  can never end;
- **W071** a proc or `fn` that calls itself at two or more places: each level multiplies the calls, so a depth
  of 100 is 2^100 calls (fine for a small, bounded depth; the work budget stops the rest);
- **W072** a handler that fires its own window at two or more places: the same fan-out through triggers;
- **W073** a `repeat while true` whose body has no `break`, `end game`, `skip to`, call or decision: it never
  ends (the loop's own bound of 100,000 passes stops it with an error).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from liturgy.dsl.checker.program import Program
from liturgy.dsl.constructs.statements import walk as walk_statements
from liturgy.dsl.diagnostics import Span
from liturgy.dsl.frontend import ast as A

Warn = Callable[..., None]
_CONDITIONAL = (A.If, A.For, A.RepeatWhile, A.Choose, A.Simultaneous)


# per node class, the fields that may hold an expression (a span, type or referent never does): read once, not
# from ``__dataclass_fields__`` at every node
_NEVER_EXPR = frozenset(("span", "ty", "ref", "func_span", "name_span"))
_FIELDS: dict[type, tuple[str, ...]] = {}


def _children(n: Any) -> list[Any]:
    keys = _FIELDS.get(type(n))
    if keys is None:
        keys = _FIELDS[type(n)] = tuple(k for k in getattr(n, "__dataclass_fields__", ()) if k not in _NEVER_EXPR)
    out: list[Any] = []
    for key in keys:
        v = getattr(n, key)
        if isinstance(v, A.Expr):
            out.append(v)
        elif isinstance(v, list):
            out += [x for x in v if isinstance(x, A.Expr)]
    return out


def _calls_to(e: A.Expr, name: str, always: bool) -> int:
    """Calls of `fn` ``name`` inside ``e``; with ``always``, only those every evaluation of ``e`` reaches."""
    count = 0
    todo: list[Any] = [e]
    while todo:
        n = todo.pop()
        if isinstance(n, A.Call) and n.ref is not None and n.ref[0] == "call_fn" and n.ref[1].name == name:
            count += 1
        if always and isinstance(n, A.Cond):
            todo.append(n.test)
        elif always and isinstance(n, A.Binary) and n.op in ("and", "or"):
            todo.append(n.left)
        elif always and isinstance(n, A.Aggregate | A.ListComp):
            todo.append(n.iterable)
        else:
            todo.extend(_children(n))
    return count


def _do_calls(stmts: list[A.Stmt], name: str) -> list[A.Do]:
    return [s for s in walk_statements(stmts) if isinstance(s, A.Do) and isinstance(s.call, A.Call)
            and s.call.ref is not None and s.call.ref[0] == "call_proc" and s.call.ref[1].name == name]


def _unconditional_do(stmts: list[A.Stmt], name: str) -> bool:
    """A `do name(…)` among ``stmts`` themselves, not inside an `if`, a loop or a choice."""
    return any(not isinstance(s, _CONDITIONAL) and _do_calls([s], name) for s in stmts)


def _fanout_hint(kind: str) -> str:
    return (f"fine for a small depth; a deep one makes 2^depth {kind} (the game's work budget stops it): "
            "recurse once per level, or loop over a list instead")


def recursion_warnings(prog: Program, warn: Warn) -> set[str]:
    """Append W070-W073 for ``prog`` through ``warn(code, message, span, hint=…)``; the windows W072 named
    (their W004, a cycle, would say less)."""
    fanned: set[str] = set()
    for name, proc in prog.procs.items():
        sites = _do_calls(proc.body, name)
        if _unconditional_do(proc.body, name):
            warn("W070", f"proc `{name}` calls itself on every path: it never ends", proc.span,
                 hint="put the `do` inside an `if` that stops the recursion")
        elif len(sites) >= 2:
            warn("W071", f"proc `{name}` calls itself {len(sites)} times per call", proc.span,
                 hint=_fanout_hint("calls"))
    for name, fn in prog.fns.items():
        if _calls_to(fn.body, name, always=True):
            warn("W070", f"fn `{name}` calls itself on every path: it never ends", fn.span,
                 hint="call it only in one branch of an `if … then … else`")
        elif (n := _calls_to(fn.body, name, always=False)) >= 2:
            warn("W071", f"fn `{name}` calls itself {n} times per call", fn.span, hint=_fanout_hint("calls"))
    for window, handlers in prog.handlers.items():
        for h in handlers:
            fires = [s for s in walk_statements(h.body) if isinstance(s, A.Fire) and s.window == window]
            if len(fires) >= 2:
                warn("W072", f"a handler of `{window}` fires `{window}` {len(fires)} times", h.span,
                     hint=_fanout_hint("firings"))
                fanned.add(window)
    for stmt in _all_bodies(prog):
        if isinstance(stmt, A.RepeatWhile) and isinstance(stmt.cond, A.BoolLit) and stmt.cond.value:
            stops = A.Break | A.EndGame | A.SkipTo | A.Do | A.Choose | A.Simultaneous | A.Fire
            if not any(isinstance(s, stops) for s in walk_statements(stmt.body)):
                warn("W073", "`repeat while true` has no `break`, `end game` or decision: it never ends",
                     Span(stmt.span.file, stmt.span.line, stmt.span.column, stmt.span.line,
                          stmt.span.column + len("repeat while true")),
                     hint="give the loop a condition that becomes false, or `break` out of it")
    return fanned


def _all_bodies(prog: Program) -> Iterator[A.Stmt]:
    from liturgy.dsl.checker.walk import all_statements

    yield from all_statements(prog)
