"""A pure proc's body written at its `do`, in place of a call of its positional function.

Why: a proc that never asks for a decision is compiled to ``_spN(s, a, b)`` (:meth:`.StmtGen.block_positional`), and
a generated `do` calls it. A Python call with a frame of a dozen locals costs about as much as a short body: in
Bloodborne, `hurt` (the monster's attack, about 85 calls a game) and `strike` (about 40) were a sixth of the Python
calls a game left, each a frame pushed, its locals cleared and popped. Small `fn`s are written in place already
(:mod:`.exprgen`); this does the same for such a proc's statements.

What is written at the `do`: the arguments' sources, in order, each stored in the local that stands for the
parameter in the positional function, then that function's own body text, before its ``_cs = s.counters``
hoist (the caller's own hoist counts these reads). The statements run exactly as in the call: the same
operations in the same order on the same state, the arguments evaluated once each before the body, and a raise
(a rule error, `end game`, `skip to`, a `break` outside any loop of the body, which the body raises as
``_BreakLoop``) leaves the written lines as it left the call.

The body's locals keep their names wherever it is written (two `do`s of `hurt` in one run, or two runs holding
it in one fused function, share them), as the fuser already writes one run's text twice into a function (a
loop's turns, both ways of a branch): the text was a function's whole body, so every path through it binds each
local before reading it (else Python would have raised), and a copy never reads what another copy left. Its
names are the compile's own (``_E12``, ``_i13``…), never one of the caller's. One set of names a proc, not one
a `do`: each distinct local is a slot every call of the caller's frame clears, so fresh names per `do` cost
more than the calls saved where a body is written into several runs of a hot fused function.

Only inside a loop of a step-machine run (a statement run between decisions, the text the fuser writes into its
functions), where the call repeats: a `do` that runs once a run costs one call there, and writing every `do` in
place grew the generated text of the big rulesets by 2 % (Fury of Dracula) to 38 % (Bloodborne: a proc's and a
card effect's bodies are each written twice, with ``env`` and by position), and a cold compile with it. In loops
of runs the text grows by 0.3 % (Betrayal) to 2.1 % (Bloodborne) and 0.96 % over the four big rulesets.

And only where the rest is plainly so (else the call, as before):

* the body never uses ``env``: the positional text has no environment (``StmtGen._positional`` wrote its bare
  form: no load and no ``env`` left), so nothing in it can read or write the caller's rule variables, and the
  caller's ``env`` is untouched as it was by the call;
* no line returns or yields (a `return` would leave the caller), and the positional function holds none of its
  locals in a cell (a comprehension reading one would make it a cell of the caller, every read of it slower);
* the proc cannot call itself (``proc:NAME`` is not in ``comp.recursive``): a recursive call charges a unit of
  work and must keep its frame;
* the body is short (``MAX_LINES``) and shallow enough that the caller's depth plus the body's stays within the
  nesting :mod:`.stmtgen` allows itself (``_MAX_DEPTH``: Python refuses deep texts). Measured on Bloodborne
  (docs/performance.md, session 27): `hurt` (34 lines, 15 locals) written in saves its calls' cost; `strike`
  (50 lines, 27 locals) written in too cost more in the hot fused functions' frames (each call clears every
  slot) than its 40 calls a game saved.

The fuser counts a body written in as the one line of the call it stands for (``Fuser.spliced``): a run is
written into a fused function exactly where it was before, not called because a proc's lines made it longer.

Off in the profiler's mode (``inline_fns=False``: no positional body, every `do` goes through the closures' table).
The closures compile the same proc as before; tests/test_procinline.py plays every mode alike.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, NamedTuple

from liturgy.interpreter.codegen.source import Refused

if TYPE_CHECKING:
    from collections.abc import Sequence

    from liturgy.dsl.frontend import ast as A
    from liturgy.interpreter.codegen.stmtgen import StmtGen
    from liturgy.interpreter.compiler.code import Callable_

ENABLED = True  # off: every `do` calls the positional body (tests compare both; benchmarks measure the difference)
MAX_LINES = 40  # the longest body written in place (a longer one's locals cost its callers' frames more: see below)
MAX_DEPTH = 12  # the caller's depth plus the body's, at most (stmtgen's _MAX_DEPTH: Python's nesting limits)

# any use of ``env``, and a line that returns or yields
_ENV = re.compile(r"\benv\b")
_LEAVES = re.compile(r"^\s*(?:return|yield)\b", re.MULTILINE)


class Body(NamedTuple):
    """A positional function's body, as :func:`write` copies it: the function (to match the callee), its
    parameters' locals, the body's lines (each indented one level), and its deepest indentation (levels below
    the first)."""

    fn: Any
    params: tuple[str, ...]
    lines: list[str]
    depth: int


def positional(sg: StmtGen, params: Sequence[str], resolved: tuple[list[str], str]) -> Any:
    """``f(s, <the parameters' locals>)`` running the body: no dict unless the body uses ``env`` (moved here from
    :meth:`.StmtGen._positional`, unchanged); a body without ``env`` is kept for :func:`write`."""
    from liturgy.interpreter.codegen.locals import hoist_counters
    from liturgy.interpreter.codegen.stmtgen import _ENV_WRITE

    loads, body = resolved
    assert sg.locals is not None
    names = [sg.locals.names[p] for p in params]
    cs, hoisted = hoist_counters([], body)  # `_cs = s.counters` once, as the `env` version has it
    bare = _ENV_WRITE.sub(r"\1", hoisted)  # nothing reads env: its writes can go
    if _ENV.search(bare) or loads:
        env = "{" + "".join(f"{p!r}: {n}, " for p, n in zip(params, names, strict=True)) + "}"
        text = "".join(f"    {line}\n" for line in (*cs, f"env = {env}", *loads)) + hoisted
    else:
        text = "".join(f"    {line}\n" for line in cs) + bare
    name = sg.gen._name("_sp")
    code = f"def {name}({', '.join(['s', *names])}):\n" + text
    try:
        fn = sg.gen.sources.load(sg.gen.ns, name, "stmt", code)
    except Refused:
        return None
    if not (_ENV.search(bare) or loads):
        _keep(sg, fn, tuple(names), _ENV_WRITE.sub(r"\1", body))
    return fn


def _keep(sg: StmtGen, fn: Any, params: tuple[str, ...], body: str) -> None:
    """Note ``fn``'s body ``body`` (the text before the counters' hoist) for :func:`write`, where it qualifies."""
    lines = body.rstrip("\n").split("\n")
    code = fn.__code__
    if len(lines) > MAX_LINES or _LEAVES.search(body) or code.co_cellvars or code.co_freevars:
        return
    depth = max((len(line) - len(line.lstrip(" "))) // 4 for line in lines) - 1
    sg.bodies[id(fn)] = Body(fn, params, lines, depth)


def write(sg: StmtGen, target: Callable_, name: str, args: Sequence[A.Expr]) -> bool:
    """Write the body of proc ``name`` (``target``) in place of ``do name(args)`` (True), or nothing (False: the
    caller writes the call). ``target`` is compiled already and has a positional body."""
    body = sg.bodies.get(id(target.fast))
    if (not ENABLED or sg.inlined is None or not sg.loops or body is None or body.fn is not target.fast
            or f"proc:{name}" in sg.comp.recursive or sg.depth + body.depth + 1 > MAX_DEPTH
            or len(args) != len(body.params)):
        return False
    sources = [sg.src(a) for a in args]  # in order, before the body, as the call evaluated them
    sg.emit(f"# proc {name}: its body, written in place")
    for p, src in zip(body.params, sources, strict=True):
        sg.emit(f"{p} = {src}")
    for line in body.lines:
        sg.emit(line[4:])
    sg.inlined += len(body.lines) + len(sources)  # and the comment, where the call's line was
    return True
