"""A choice picked inside a fused function during a random playout, without suspending.

In a playout (``Game.random_playout``: simulations, the bench, search rollouts) every decision is the picker's,
asked the moment the step machine suspends. A suspension used to cost the pending tuple (and, for a simultaneous
choice, its ``per`` tuple and a fresh commits dictionary), ``s.steps`` settled and a ``return True``, then the
engine's handling of it: taking back the call's turn, unpacking the tuple again, reading the frame, binding the
pick. Here the fused function that reaches a `choose` or a `simultaneously` (without `by`, whose units wait for
the engine's pick) reads the playout's picker from the state (``s.pick``); with one, it picks exactly as the
engine's step loop would, binds the value, records the decision and goes on into the chosen body in the same
function where that is cheap (:func:`go_on`), else returns to the engine at the body's pc like any fused call
that stops before an instruction, so the engine's next call runs the body.

Why this is exact: the engine picks at once whenever it has a picker and the game is unchecked (a checked game
checks its invariants first, so ``Game.random_playout`` leaves ``s.pick`` unset there, and so does every other
caller: a player's ``apply``, ``playout(pick)`` whose picker may read the pending decision, a load, a clone).
The picks are asked with the same option counts in the same order (a simultaneous choice's entries in the list's
order, each decision recorded before the next pick), the frame gets the same binding and resume point, and the
step count is the same: the suspended call ran no instruction and the body's call then ran its own; here the
call reports the ``k`` instructions before the choice, as one that stops at the body would. Without a picker the
text suspends exactly as before.

Going on into the chosen body (session 24): session 23 built it with the walk simply continuing after the pick and
measured Bloodborne's count 3.7 % higher (shared budgets cut a loop's next turn short); with budgets of its own it
still rose 1.3 % and its reached fused text tripled, since a continuation cut short at an arbitrary instruction
makes a new entry there. So a continuation is kept only when it is complete and small (:func:`go_on`): short
bodies that run to the next choice or the end (Goofspiel's bids) go on, Bloodborne's long rounds return as before
(docs/performance.md, "Session 24: a picked choice goes on into its body").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from liturgy.interpreter.codegen.fuselimits import MAX_INLINE_LINES, MAX_NODES, PICK_LINES, PICK_NODES, PICK_TOTAL

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.fusebook import At
    from liturgy.interpreter.codegen.fusewalk import Trace
    from liturgy.interpreter.compiler.code import Ins

def plan(trace: Trace, fn: Ins) -> tuple[Any, ...] | None:
    """How the choice instruction ``fn`` is picked in place (codegen/choicegen.py ``plans``), or None."""
    cgen = trace.fuser.comp.cgen
    return cgen.plans.get(id(fn)) if cgen is not None and cgen.texts.get(id(fn), (None,))[0] is fn else None


def write(trace: Trace, at: At, pc: int, k: int, lines: list[str], how: tuple[Any, ...], kv: int,
          path: frozenset[tuple[int, int, int, int]]) -> None:
    """The choice's text (``lines``, its last ones suspending), asking ``s.pick`` first: without one, suspend as
    the text does; with one, pick, bind, and go on into the chosen body (``k`` instructions done: :func:`go_on`).
    The frame's pc is the choice's (written before its text, as for a choice that suspends), and so is the
    error handler's position ``kv``."""
    tail = 2 if how[0] == "choose" else 3  # ``s.pending = …`` (and ``s.commits = {}``), ``return True``
    assert lines[-tail].startswith("s.pending = (") and lines[-1] == "return True", lines[-tail:]
    pad = "    " * trace.depth
    for line in lines[:-tail]:
        body = line.lstrip()
        indent = pad + line[:len(line) - len(body)]
        trace.lines.append(f"{indent}return {trace.done(k)}" if body == "return False" else indent + body)
    trace.emit("_Fpk = s.pick")
    trace.emit("if _Fpk is None:")
    trace.depth += 1
    trace.emits(lines[-tail:-1])
    trace.emit(f"s.steps += {trace.done(k)}")
    trace.emit("return True")
    trace.depth -= 1
    if how[0] == "choose":
        _, var, body_pc, end_pc, optional = how
        if optional:
            trace.emit("options = (*options, None)")
        trace.emit("_Fch = _Fpk(len(options))")
        trace.emit("_Fvl = options[_Fch]" if optional else f"env[{var!r}] = options[_Fch]")
        if optional:
            trace.emit(f"env[{var!r}] = _Fvl")
        trace.emit("s.decisions.append((p, _Fch))")
        if not optional:
            go_on(trace, at, body_pc, k, pc, kv, path)
            return
        trace.emit("if _Fvl is None:")
        trace.depth += 1
        snap = trace.snapshot()
        go_on(trace, at, end_pc, k, pc, kv, path)
        trace.restore(snap)
        trace.depth -= 1
        go_on(trace, at, body_pc, k, pc, kv, path)
        return
    _, key, next_pc = how
    trace.emit("_Fch = []")
    trace.emit("for p, options in per:")
    trace.emit("    _Fvl = _Fpk(len(options))")
    trace.emit("    s.decisions.append((p, _Fvl))")
    trace.emit("    _Fch.append((p, options[_Fvl]))")
    trace.emit(f"env[{key!r}] = (tuple(_Fch), 0)")
    go_on(trace, at, next_pc, k, pc, kv, path)


def go_on(trace: Trace, at: At, pc: int, k: int, frpc: int, kv: int,
          path: frozenset[tuple[int, int, int, int]]) -> None:
    """After a pick in place: the walk goes on at ``pc`` (the chosen body, or the choice's end) in this function,
    as it does after any other instruction, rather than returning there for the engine's next call.

    Exact for the same reasons the pick is: the engine would have called the function at ``pc`` next with
    nothing in between (the choice was not a step, so the count goes on from ``k``; the path stays within
    ``MAX_PATH``, so the engine's margin holds; the frame's pc is the choice's until the body syncs its own).

    All or nothing: the continuation is kept only when every path of it ends for its own reasons (a return to
    the engine at a call or a return it does not run through, the game's end, the next choice, picked in place
    in turn or returning at its body, the function's own head) and it wrote every statement run and choice in
    (:attr:`.fusebook.TraceBook.short`); else its text is dropped and the function returns at ``pc`` as before.
    A continuation cut short (``MAX_PATH``, ``MAX_NODES``, ``MAX_TURNS``) would only move the engine's next call
    to where it stops, a new entry with a function of its own to walk and compile (measured: Bloodborne's
    reached fused text tripled and its count rose; Kuhn's games compiled a fourth function). It walks on a
    budget of its own (``PICK_NODES`` instructions) so the function's other paths keep theirs (session 23
    found the shared budget cut a loop's next turn short); a pick inside it shares that budget, and all of one
    function's continuations write at most ``PICK_TOTAL`` instructions and ``PICK_LINES`` lines of runs and
    choices (a bound on the text compiled).
    """
    outer = trace.picking
    if not outer:
        room = min(PICK_NODES, PICK_TOTAL - trace.picked)
        if room <= 0 or trace.pick_lines >= PICK_LINES:
            trace.leave(at, pc, k, frpc)
            return
    saved = _Saved(trace)
    if not outer:
        lines = min(MAX_INLINE_LINES, PICK_LINES - trace.pick_lines)
        trace.nodes, trace.inlined, trace.picking = MAX_NODES - room, MAX_INLINE_LINES - lines, True
    trace.short = False
    trace.walk(at, pc, k, frpc, kv, path)
    if trace.short:
        saved.back(trace)
        trace.leave(at, pc, k, frpc)
        return
    trace.short = saved.short
    if not outer:
        trace.picked += trace.nodes - (MAX_NODES - room)
        trace.pick_lines += trace.inlined - (MAX_INLINE_LINES - lines)
        trace.nodes, trace.inlined, trace.picking = saved.nodes, saved.inlined, False


class _Saved:
    """What a continuation's walk changes in the trace and the fuser, kept to undo it (:func:`go_on`)."""

    def __init__(self, trace: Trace) -> None:
        fuser = trace.fuser
        self.nodes, self.inlined, self.picking, self.short = trace.nodes, trace.inlined, trace.picking, trace.short
        self.lines, self.exits = len(trace.lines), len(trace.exits)
        self.longest, self.depth = trace.longest, trace.depth
        self.qs, self.pairs, self.names = dict(trace.qs), dict(trace.pairs), dict(trace.vars.names)
        self.back_, self.mixed, self.snap = trace.back, trace.mixed, trace.snapshot()
        self.copies, self.sites = len(fuser.copies), len(fuser.comp.call_sites)

    def back(self, trace: Trace) -> None:
        """The trace as it was: its lines and exits cut back, its bookkeeping restored, and the call sites' copies
        of callees the dropped text ran into forgotten (they would be traced for nothing)."""
        fuser = trace.fuser
        trace.nodes, trace.inlined, trace.picking, trace.short = self.nodes, self.inlined, self.picking, self.short
        del trace.lines[self.lines:], trace.exits[self.exits:]
        trace.longest, trace.depth = self.longest, self.depth
        trace.qs, trace.pairs, trace.vars.names = self.qs, self.pairs, self.names
        trace.back, trace.mixed = self.back_, self.mixed
        trace.restore(self.snap)
        for key in list(fuser.copies)[self.copies:]:  # a dict keeps its keys in the order they were added
            site = fuser.copies.pop(key)
            del fuser.sites[id(site)], fuser.base[id(site)]
        del fuser.comp.call_sites[self.sites:]
