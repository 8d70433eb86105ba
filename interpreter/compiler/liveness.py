"""Which rule variables a step-machine frame must hold between instructions: the liveness of ``env`` per code.

Why: the generated code writes every `let` and loop variable of a run of statements both to a Python local and
to the frame's ``env``, because a later instruction, a save or a clone might read it there. Most of those
variables are read only by the run that binds them (through its locals): after that run ends, no instruction
can ever read them from the frame, and the value left in ``env`` is dead. This module finds them, from the
rules alone (the same answer in every compile mode), so the code writer can drop their ``env`` writes and a
save can leave them out (issue 29: "only the variables still live are spilled to the frame").

The unit is one :class:`~liturgy.interpreter.compiler.code.Code` (the main flow: set-up and every step; a
suspending proc, handler or card effect), whose body the step machine splits exactly as
:meth:`~liturgy.interpreter.compiler.machine.StepMachineCompiler.emit` does: a statement that may suspend (or,
inside a loop, holds a `break` that leaves it) is a control instruction, and each maximal stretch of the others
is one run. A variable is *run-local* when

- some run binds it (`let`, `transfer … as`, a pure `for`'s variable), and
- no instruction reads it from the frame: every read of the name inside a run comes after that run's own binding
  of it (lexically: the checker scopes names by block), and no control instruction reads the name at all (a
  condition, an iterable, a choice's options, filter, prompt or chooser, a call's arguments), and
- no control instruction binds it (a step-machine `for`, a choice's variable: the engine writes those into
  ``env`` itself) and it is not one of the code's parameters.

Such a variable is never read from ``env`` after the run that wrote it, through any suspension and resumption,
in any mode: whatever ``env`` holds under its name is dead at every instruction boundary, so at every
suspension. Everything here errs towards *live*: any name an expression mentions counts as read (an aggregate's
own loop variable of the same name too), an assignment's target counts as a read.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from liturgy.dsl.constructs.statements import construct
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.instructions import _has_break, _suspends
from liturgy.interpreter.compiler.sizes import _fields


@dataclass(frozen=True)
class Liveness:
    """One code's frame variables: ``live``, those a frame holds (parameters, variables bound by a control
    instruction, and variables bound in a run that another instruction may read); ``dead``: the run-local
    variables, never read from ``env`` after the run that binds them (module docstring)."""

    live: frozenset[str]
    dead: frozenset[str]


class _AllLive(Exception):
    """Every candidate is known live: nothing further to look at."""


class _Walk:
    """The run/control walk, looking for reads of ``candidates`` (the names bound somewhere in a run) from outside
    the run binding them; it stops as soon as every candidate is found live (most codes: at once)."""

    def __init__(self, prog: Any, candidates: set[str]) -> None:
        self.prog = prog
        self.candidates = candidates
        self.live: set[str] = set()

    def _found(self, names: Iterable[str]) -> None:
        self.live.update(names)
        if self.candidates <= self.live:
            raise _AllLive

    def names(self, e: A.Expr, bound: Collection[str] = ()) -> None:
        """Every candidate ``e`` mentions but ``bound`` is live (whatever the name refers to there: a name read
        in error only makes one more variable live). The walk of :func:`~.instructions._children`, written out:
        it runs over every expression of a code with run-local candidates, at each compile."""
        hits = []
        stack: list[Any] = [e]
        push, pop = stack.append, stack.pop
        cands = self.candidates
        name, expr = A.Name, A.Expr
        while stack:
            n = pop()
            cls = n.__class__
            if cls is name:
                if n.id in cands and n.id not in bound:
                    hits.append(n.id)
                continue
            for key in _fields(cls):
                v = getattr(n, key)
                if isinstance(v, expr):
                    push(v)
                elif v.__class__ is list:
                    stack.extend(x for x in v if isinstance(x, expr))
        if hits:
            self._found(hits)

    def block(self, stmts: Sequence[A.Stmt], in_loop: bool) -> None:
        """``stmts`` as :meth:`StepMachineCompiler.emit` splits them."""
        run: list[A.Stmt] = []
        for st in stmts:
            if _suspends(st, self.prog) or (in_loop and _has_break([st])):
                self.run(run, frozenset())
                run = []
                self.control(st, in_loop)
            else:
                run.append(st)
        self.run(run, frozenset())

    def control(self, st: A.Stmt, in_loop: bool) -> None:
        c = construct(st)
        for e in c.exprs(st):
            self.names(e)
        bound = (*c.binds(st), *c.binds_inside(st))
        if bound:
            self._found(bound)
        for b in c.blocks(st):
            self.block(b, in_loop or c.loop)

    def run(self, stmts: Sequence[A.Stmt], outer: frozenset[str]) -> None:
        """Statements of one run, ``outer``: the names this run has bound around them (read from locals)."""
        bound = set(outer)
        for st in stmts:
            c = construct(st)
            for e in c.exprs(st):
                self.names(e, bound)
            inside = c.binds_inside(st)
            for b in c.blocks(st):
                self.run(b, frozenset(bound.union(inside)))
            bound.update(c.binds(st))


def liveness(bodies: Sequence[Sequence[A.Stmt]], prog: Any, params: Iterable[str] = ()) -> Liveness:
    """The :class:`Liveness` of the code whose top-level statement blocks are ``bodies`` (the main flow: the
    set-up, then each step's body; else the one body), with parameters ``params``."""
    fixed = set(params)
    candidates = set().union(*map(bound_in, bodies)) - fixed
    if not candidates:
        return Liveness(frozenset(fixed), frozenset())
    w = _Walk(prog, candidates)
    try:
        for body in bodies:
            w.block(body, False)
    except _AllLive:
        pass
    live = w.live & candidates
    return Liveness(frozenset(fixed | live), frozenset(candidates - live))


def bound_in(stmts: Sequence[A.Stmt]) -> set[str]:
    """Every name ``stmts`` bind, at any depth (`let`, `transfer … as`, a loop's or a choice's variable)."""
    out: set[str] = set()
    todo = list(stmts)
    while todo:
        st = todo.pop()
        c = construct(st)
        out.update(c.binds(st))
        out.update(c.binds_inside(st))
        for b in c.blocks(st):
            todo.extend(b)
    return out
