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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from liturgy.dsl.constructs.statements import construct
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.instructions import _children, _has_break, _suspends


@dataclass(frozen=True)
class Liveness:
    """One code's frame variables: ``live`` may be read from ``env`` by some instruction (or is a parameter or
    bound by a control instruction); ``dead``: the run-local variables, never read from ``env`` after the run
    that binds them (module docstring)."""

    live: frozenset[str]
    dead: frozenset[str]


def _names(e: Any) -> set[str]:
    """Every name an expression mentions (whatever it refers to: more names only means more live variables)."""
    out: set[str] = set()
    stack: list[Any] = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, A.Name):
            out.add(n.id)
        stack.extend(_children(n))
    return out


class _Walk:
    def __init__(self, prog: Any) -> None:
        self.prog = prog
        self.read: set[str] = set()  # read from the frame by some instruction
        self.run_bound: set[str] = set()  # bound inside a run
        self.control_bound: set[str] = set()  # bound by a control instruction (the engine writes env)

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
            self.read |= _names(e)
        self.control_bound.update(c.binds(st))
        self.control_bound.update(c.binds_inside(st))
        for b in c.blocks(st):
            self.block(b, in_loop or c.loop)

    def run(self, stmts: Sequence[A.Stmt], outer: frozenset[str]) -> None:
        """Statements of one run, ``outer``: the names this run has bound around them (read from locals)."""
        bound = set(outer)
        for st in stmts:
            c = construct(st)
            for e in c.exprs(st):
                self.read |= _names(e) - bound
            inside = c.binds_inside(st)
            self.run_bound.update(inside)
            for b in c.blocks(st):
                self.run(b, frozenset(bound | set(inside)))
            for name in c.binds(st):
                bound.add(name)
                self.run_bound.add(name)


def liveness(bodies: Iterable[Sequence[A.Stmt]], prog: Any, params: Iterable[str] = ()) -> Liveness:
    """The :class:`Liveness` of the code whose top-level statement blocks are ``bodies`` (the main flow: the
    set-up, then each step's body; else the one body), with parameters ``params``."""
    w = _Walk(prog)
    for body in bodies:
        w.block(body, False)
    fixed = w.read | w.control_bound | set(params)
    return Liveness(frozenset(fixed), frozenset(w.run_bound - fixed))


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
