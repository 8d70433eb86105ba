"""A choice picked inside a fused function during a random playout, without suspending.

In a playout (``Game.random_playout``: simulations, the bench, search rollouts) every decision is the picker's,
asked the moment the step machine suspends. A suspension used to cost the pending tuple (and, for a simultaneous
choice, its ``per`` tuple and a fresh commits dictionary), ``s.steps`` settled and a ``return True``, then the
engine's handling of it: taking back the call's turn, unpacking the tuple again, reading the frame, binding the
pick. Here the fused function that reaches a `choose` or a `simultaneously` (without `by`, whose units wait for
the engine's pick) reads the playout's picker from the state (``s.pick``); with one, it picks exactly as the
engine's step loop would, binds the value, records the decision and returns to the engine at the chosen body's
pc like any fused call that stops before an instruction, so the engine's next call runs the body.

Why this is exact: the engine picks at once whenever it has a picker and the game is unchecked (every caller but
a random playout leaves ``s.pick`` unset: a player's ``apply``, ``playout(pick)`` whose picker may read the pending
decision, a load, a clone). A checked game checks its invariants first: the noted code it runs (and only that
code) writes the pending decision, then asks ``s.pick()`` for the picker, which runs the engine's check on that
state and returns None when it fails, the text then suspending as before (engine/checkpick.py).
The picks are asked with the same option counts in the same order (a simultaneous choice's entries in the list's
order, each decision recorded before the next pick), the frame gets the same binding and resume point, and the
step count is the same: the suspended call ran no instruction and the body's call then ran its own; here the
call reports the ``k`` instructions before the choice, as one that stops at the body would. Without a picker the
text suspends exactly as before.

Going on into the chosen body in the same function (the walk continued after the pick) was built and measured
first: the body's paths then share the function's node and inline-line budgets with the paths after the choice's
siblings (a loop's next turn was cut short, its statement runs called), and each function is longer to compile;
Bloodborne's count rose 3.7 % (docs/performance.md, "Session 23: choices picked in the generated code").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.fusebook import At
    from liturgy.interpreter.codegen.fusewalk import Trace
    from liturgy.interpreter.compiler.code import Ins

def plan(trace: Trace, fn: Ins) -> tuple[Any, ...] | None:
    """How the choice instruction ``fn`` is picked in place (codegen/choicegen.py ``plans``), or None."""
    cgen = trace.fuser.comp.cgen
    return cgen.plans.get(id(fn)) if cgen is not None and cgen.texts.get(id(fn), (None,))[0] is fn else None


def write(trace: Trace, at: At, pc: int, k: int, lines: list[str], how: tuple[Any, ...]) -> None:
    """The choice's text (``lines``, its last ones suspending), asking ``s.pick`` first: without one, suspend as
    the text does; with one, pick, bind, and leave to the engine at the chosen body (``k`` instructions done).
    The frame's pc is the choice's (written before its text, as for a choice that suspends)."""
    tail = 2 if how[0] == "choose" else 3  # ``s.pending = …`` (and ``s.commits = {}``), ``return True``
    assert lines[-tail].startswith("s.pending = (") and lines[-1] == "return True", lines[-tail:]
    pad = "    " * trace.depth
    for line in lines[:-tail]:
        body = line.lstrip()
        indent = pad + line[:len(line) - len(body)]
        trace.lines.append(f"{indent}return {trace.done(k)}" if body == "return False" else indent + body)
    comp = trace.fuser.comp
    # The noted code (checked games): ``s.pick`` is a ready callable that runs the engine's check and returns the
    # picker, or None to suspend as before, its check's outcome kept for the engine (engine/checkpick.py). The
    # check reads the pending decision only for two built-in invariants: a decision's options are not empty
    # (proven here: a simultaneous choice's text raises on an empty entry, an optional one offers None, any other
    # tests `if not options`, but for a constant list) and no absent seat is asked (only with `absent_while`).
    # Where either may be read, the decision is written before the check (``early``: the state the engine's
    # check saw, cleared after a pick); elsewhere only where the text suspends.
    proven = how[0] == "simul" or how[4] or any(line.strip() == "if not options:" for line in lines)
    early = comp.notes and (comp.layout.absent_offset is not None or not proven)
    if early:
        trace.emits(lines[-tail:-1])
    trace.emit("_Fpk = s.pick")
    trace.emit("if _Fpk is None or (_Fpk := _Fpk()) is None:" if comp.notes else "if _Fpk is None:")
    trace.depth += 1
    if not early:
        trace.emits(lines[-tail:-1])
    trace.emit(f"s.steps += {trace.done(k)}")
    trace.emit("return True")
    trace.depth -= 1
    if early:
        trace.emit("s.pending = None")
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
            trace.leave(at, body_pc, k, pc)
            return
        trace.emit("if _Fvl is None:")
        trace.depth += 1
        trace.leave(at, end_pc, k, pc)
        trace.depth -= 1
        trace.leave(at, body_pc, k, pc)
        return
    _, key, next_pc = how
    trace.emit("_Fch = []")
    trace.emit("for p, options in per:")
    trace.emit("    _Fvl = _Fpk(len(options))")
    trace.emit("    s.decisions.append((p, _Fvl))")
    trace.emit("    _Fch.append((p, options[_Fvl]))")
    trace.emit(f"env[{key!r}] = (tuple(_Fch), 0)")
    trace.leave(at, next_pc, k, pc)
