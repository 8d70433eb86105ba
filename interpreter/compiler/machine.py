"""Suspending statements -> step-machine instructions: runs of pure statements, control flow, `choose`,
`simultaneously`, and calls that may suspend (`do`, `fire`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from typing import Any

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.code import UNITS, Code, ExprFn, Ins, formatter_for
from liturgy.interpreter.compiler.instructions import (
    _bind,
    _branch,
    _for_init,
    _for_next,
    _has_break,
    _invoke,
    _jump_placeholder,
    _suspends,
)
from liturgy.interpreter.compiler.liveness import bound_in
from liturgy.interpreter.compiler.statements import StatementCompiler
from liturgy.interpreter.runtime.errors import RuleError
from liturgy.interpreter.runtime.state import GameState


class StepMachineCompiler(StatementCompiler):
    # the run-local variables (compiler/liveness.py) of the code being emitted: its runs leave them out of ``env``
    spill_dead: frozenset[str] = frozenset()

    # ------------------------------------------------------------ the step machine
    def emit(self, stmts: Sequence[A.Stmt], code: Code, loops: list[list[int]], entry_nonnull: str | None = None
             ) -> None:
        """Append instructions for ``stmts``; runs of pure statements become one instruction.

        ``entry_nonnull`` names a variable that is never `none` when the first instruction starts (a choice's
        variable in its body: the engine runs the body only for an option that is not `none`); it holds for a
        first run of statements only, which nothing but that entry jumps to (a loop's head is an instruction of
        its own).
        """
        run: list[A.Stmt] = []
        first = len(code.ins)

        def flush() -> None:
            if run:
                known = (entry_nonnull,) if entry_nonnull is not None and len(code.ins) == first else ()
                gen = self.sgen.instruction(run, known) if self.sgen is not None else None
                if gen is not None:
                    run.clear()
                    code.ins.append(self.note(gen, "run"))
                    return
                fn = self.block_closure(list(run))
                dead = tuple(bound_in(run) & self.spill_dead) if self.spill_dead else ()  # liveness.py
                run.clear()

                def exec_(s: GameState, fr: list[Any]) -> bool:
                    if dead:
                        try:
                            fn(s, fr[2])
                        finally:
                            for x in dead:
                                fr[2].pop(x, None)
                    else:
                        fn(s, fr[2])
                    fr[1] += 1
                    return False

                code.ins.append(self.note(exec_, "run"))

        for st in stmts:
            if _suspends(st, self.prog) or (loops and _has_break([st])):
                flush()
                self.emit_control(st, code, loops)
            else:
                run.append(st)
        flush()

    def emit_control(self, st: A.Stmt, code: Code, loops: list[list[int]]) -> None:
        """Instructions for a statement that may suspend or jump, from the handler in :data:`CONTROL_HANDLERS`."""
        handler = CONTROL_HANDLERS.get(type(st))
        if handler is None:  # pragma: no cover - only these statements suspend or break out of a loop
            raise AssertionError(f"unexpected control statement {type(st).__name__}")
        handler(self, st, code, loops)

    def _emit_break(self, st: A.Break, code: Code, loops: list[list[int]]) -> None:
        """A jump to the end of the innermost loop, patched when that loop's end is known."""
        ins = code.ins
        patch = loops[-1]
        at = len(ins)
        patch.append(at)
        ins.append(_jump_placeholder())

    def _emit_if(self, st: A.If, code: Code, loops: list[list[int]]) -> None:
        ins = code.ins
        end_patches: list[int] = []
        for cond, body in st.branches:
            at = len(ins)
            ins.append(_jump_placeholder())
            self.emit(body, code, loops)
            end_patches.append(len(ins))
            ins.append(_jump_placeholder())
            ins[at] = self._branch(cond, at + 1, len(ins))
        self.emit(st.orelse, code, loops)
        for p in end_patches:
            ins[p] = self.goto(len(ins))

    def _emit_for(self, st: A.For, code: Code, loops: list[list[int]]) -> None:
        ins = code.ins
        key = self.uid()
        from liturgy.dsl.checker.types import as_list

        lt = as_list(st.iterable.ty) if st.iterable.ty is not None else None
        self.loop_elems[key] = lt.elem if lt else None  # what the loop's frame entry holds (engine/infosets.py)
        ins.append(self.sgen.for_init(st.iterable, key) if self.sgen is not None
                   else _for_init(self.seq(st.iterable), key))
        head = len(ins)
        ins.append(_jump_placeholder())
        breaks: list[int] = []
        self.emit(st.body, code, [*loops, breaks])
        ins.append(self.goto(head))
        end = len(ins)
        ins[head] = self._for_next(key, (st.var,), end)
        for b in breaks:
            ins[b] = self.goto(end)

    def _emit_repeat_while(self, st: A.RepeatWhile, code: Code, loops: list[list[int]]) -> None:
        ins = code.ins
        head = len(ins)
        ins.append(_jump_placeholder())
        breaks: list[int] = []
        self.emit(st.body, code, [*loops, breaks])
        ins.append(self.goto(head))
        end = len(ins)
        ins[head] = self._branch(st.cond, head + 1, end)
        for b in breaks:
            ins[b] = self.goto(end)

    def _branch(self, cond: A.Expr, then_pc: int, else_pc: int) -> Ins:
        if self.sgen is not None:
            return self.sgen.branch(cond, then_pc, else_pc)
        return _branch(self.expr(cond), then_pc, else_pc)

    def _for_next(self, key: str, names: tuple[str, ...], end: int) -> Ins:
        return self.sgen.for_next(key, names, end) if self.sgen is not None else _for_next(key, names, end)

    def _option_filter(self, var: str, source: A.Expr, where: A.Expr | None,
                       pop: bool) -> Callable[..., tuple[Any, ...]] | None:
        """The items of a choice that pass its `where`, as a tuple (None: no `where`)."""
        if where is None:
            return None
        if self.gen is not None and self.sgen is not None:
            return self.gen.filter_function(var, source, where, pop)  # type: ignore[no-any-return]
        wf = self.expr(where)

        def keep(s: GameState, env: dict[str, Any], items: Any) -> tuple[Any, ...]:
            options = tuple(x for x in tuple(items) if _bind(env, var, x) and wf(s, env))
            if pop:
                env.pop(var, None)
            return options

        return keep

    def emit_choose(self, st: A.Choose, code: Code, loops: list[list[int]]) -> None:
        ins = code.ins
        src = self.seq(st.source)
        var = st.var
        wf = self._option_filter(var, st.source, st.where, pop=True)
        chooser = self.expr(st.chooser)
        optional = st.optional
        elem_ty = st.source.ty
        fmt_id = len(self.choice_formats)
        elem = None
        if elem_ty is not None:
            from liturgy.dsl.checker.types import as_list

            lt = as_list(elem_ty)
            elem = lt.elem if lt is not None else None
        self.choice_formats.append(formatter_for(elem))
        self.choice_pass_labels.append(st.label if st.label is not None else "pass")
        self.choice_prompts.append(st.prompt)
        self.choice_elems.append(elem)
        self.choice_pvars.append(None)
        # a named option (`optional "draw"`) is a move of its own: it is offered even when no item qualifies
        always_ask = st.label is not None
        at = len(ins)
        ins.append(_jump_placeholder())
        with self.cgen.body(st) if self.cgen is not None else nullcontext():  # the chosen value's range
            self.emit(st.body, code, loops, var)
        skip_none = len(ins)
        ins.append(_jump_placeholder())
        none_pc = len(ins)
        if st.none_body is not None:
            self.emit(st.none_body, code, loops)
        end = len(ins)
        ins[skip_none] = self.goto(end)
        has_none = st.none_body is not None
        span = st.span
        self.choice_nones[at] = none_pc if has_none else end

        if self.cgen is not None:
            generated = self.cgen.choose(st, wf, at, none_pc if has_none else end, always_ask, has_none, fmt_id)
            ins[at] = self.note(generated, "stop", at + 1, none_pc if has_none else end, end)
            return

        def choose(s: GameState, fr: list[Any]) -> bool:
            env = fr[2]
            items = src(s, env)
            options = tuple(items) if wf is None else wf(s, env, items)
            if not options and not always_ask:
                fr[1] = none_pc if has_none else end
                if not has_none and not optional:
                    raise RuleError(
                        f"no legal option for the choice at {span.file}:{span.line} and no `otherwise` branch")
                return False
            p = chooser(s, env)
            if p is None:
                raise RuleError(f"no player to make the choice at line {span.line}")
            if optional:
                options = (*options, None)
            s.pending = ("choose", p, options, var, at + 1, none_pc if has_none else end, fmt_id)
            return True

        ins[at] = self.note(choose, "stop", at + 1, none_pc if has_none else end, end)

    def emit_simultaneous(self, st: A.Simultaneous, code: Code, loops: list[list[int]]) -> None:
        ins = code.ins
        players = self.seq(st.players)
        src = self.seq(st.source)
        pvar, var = st.player_var, st.var
        wf = self._option_filter(var, st.source, st.where, pop=False)
        key = self.uid()
        from liturgy.dsl.checker.types import as_list

        lt = as_list(st.source.ty) if st.source.ty is not None else None
        fmt_id = len(self.choice_formats)
        self.choice_formats.append(formatter_for(lt.elem if lt else None))
        self.choice_pass_labels.append("pass")
        self.choice_prompts.append(st.prompt)
        self.choice_elems.append(lt.elem if lt else None)
        self.loop_elems[key] = lt.elem if lt else None
        self.choice_pvars.append(pvar)
        at = len(ins)
        ins.append(_jump_placeholder())
        # after everyone commits: loop over (player, choice) pairs in the players' order
        head = len(ins)
        ins.append(_jump_placeholder())
        self.emit(st.body, code, loops)
        ins.append(self.goto(head))
        end = len(ins)
        ins[head] = self._for_next(key, (pvar, var), end)

        if self.cgen is not None:
            ins[at] = self.note(self.cgen.collect(st, wf, key, at, end, fmt_id), "stop", at + 1, end)
            return

        ins[at] = self.note(self._collect(st, players, src, wf, key, at, end, fmt_id), "stop", at + 1, end)

    def _collect(self, st: A.Simultaneous, units_of: ExprFn, src: ExprFn, wf: Any, key: str, at: int, end: int,
                 fmt_id: int) -> Ins:
        """Every unit's secret choice is asked for at once; nothing is revealed until all have committed.

        Without `by` the units are the players themselves. With `simultaneously u in UNITS choose … by EXPR`
        each unit is decided by the player EXPR names: the pending tuple keeps its shape, ``per`` holding one
        ``(decider, options)`` entry per unit in the list's order (a player with several units appears several
        times and commits them in that order), and the units wait in the frame under the loop's key until
        everyone has committed, so the body binds the unit, not the decider. Generated code declines `by`.
        """
        by = self.expr(st.by) if st.by is not None else None
        pvar, var, span = st.player_var, st.var, st.span

        def collect(s: GameState, fr: list[Any]) -> bool:
            env = fr[2]
            per = []
            units = tuple(units_of(s, env))
            for u in units:
                env[pvar] = u
                p = u if by is None else by(s, env)
                if p is None:
                    raise RuleError(f"no player to make the choice at {span.file}:{span.line}")
                items = tuple(src(s, env))
                options = items if wf is None else wf(s, env, items)
                if not options:
                    raise RuleError(f"P{p + 1} has no legal option for the choice at {span.file}:{span.line}")
                per.append((p, options))
            env.pop(pvar, None)
            env.pop(var, None)
            if not per:
                fr[1] = end
                return False
            if by is not None:
                env[key + UNITS] = units
            s.pending = ("simul", tuple(per), key, at + 1, fmt_id)
            s.commits = {}
            return True

        return collect

    def emit_do(self, st: A.Do, code: Code) -> None:
        call = st.call
        assert isinstance(call, A.Call)
        ref = A.ref_of(call)
        # a proc's call names its target (fuse runs on into the callee's code); a card effect's is found per call
        known = (self.procs[ref[1].name],) if ref[0] == "call_proc" else ()
        generated = self.sgen.do_instruction(st) if self.sgen is not None else None
        if generated is not None:
            code.ins.append(self.note(generated, "call_end", *known))
            return
        if ref[0] == "call_proc":
            target = self.procs[ref[1].name]
            make_env = self._proc_args(call.args, target.params)

            def do_proc(s: GameState, fr: list[Any]) -> bool:
                env2 = make_env(s, fr[2])
                fr[1] += 1
                _invoke(s, target, env2)
                return False

            code.ins.append(self.note(do_proc, "call_end", target))
            return
        resolve = self._effect_target(call)

        def do_effect(s: GameState, fr: list[Any]) -> bool:
            found = resolve(s, fr[2])
            fr[1] += 1
            if found is not None:
                _invoke(s, *found)
            return False

        code.ins.append(self.note(do_effect, "call_end"))

    def emit_fire(self, st: A.Fire, code: Code) -> None:
        if self.sgen is not None:
            code.ins.append(self.note(self.sgen.fire_instruction(st), "call_end"))
            return
        targets = self.handlers.get(st.window, [])
        window = self.prog.windows[st.window]
        params = tuple(p.name for p in window.params)
        make_env = self._proc_args(st.args, params)

        def fire(s: GameState, fr: list[Any]) -> bool:
            args = make_env(s, fr[2])
            fr[1] += 1
            # push in reverse so handlers run in declaration order
            for h in reversed(targets):
                _invoke(s, h, {h.params[i]: args[p] for i, p in enumerate(params)})
            return False

        code.ins.append(self.note(fire, "call_end"))

# ------------------------------------------------------------ dispatch table (tests/test_compiler_tables.py)

# the step-machine instructions of each statement class that may suspend (or `break` out of a loop that does):
# (compiler, statement, code, open loops' break patches) -> None, appending to ``code.ins``
CONTROL_HANDLERS: dict[type[A.Stmt], Callable[[StepMachineCompiler, Any, Code, list[list[int]]], None]] = {
    A.Break: StepMachineCompiler._emit_break,
    A.If: StepMachineCompiler._emit_if,
    A.For: StepMachineCompiler._emit_for,
    A.RepeatWhile: StepMachineCompiler._emit_repeat_while,
    A.Choose: StepMachineCompiler.emit_choose,
    A.Simultaneous: StepMachineCompiler.emit_simultaneous,
    A.Do: lambda comp, st, code, loops: comp.emit_do(st, code),
    A.Fire: lambda comp, st, code, loops: comp.emit_fire(st, code),
}
