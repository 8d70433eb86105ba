"""Compile a checked program into closures and step-machine code, once.

Two shapes of compiled code exist:

* **Pure** code (no decision can happen inside it) becomes nested Python
  closures ``f(state, env)`` that run straight through.
* **Suspending** code (it may ask a player for a decision) becomes a list of
  instructions for the step machine in :mod:`.engine`, whose program counter
  and locals are plain data in the state, so a game can stop at a decision,
  be cloned or saved, and continue exactly.

The checker already resolved every name (``expr.ref``) and type (``expr.ty``),
so compiling is a single walk with no lookups left for run time.
"""

from __future__ import annotations

from typing import Any

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.code import ROUND_SLOT, Callable_, Code, ExprFn, owned, plain_value
from liturgy.interpreter.compiler.instructions import _ret, _suspends_block
from liturgy.interpreter.compiler.liveness import liveness
from liturgy.interpreter.compiler.machine import StepMachineCompiler
from liturgy.interpreter.compiler.readsets import InvariantReads, read_set
from liturgy.interpreter.runtime import resetgen
from liturgy.interpreter.runtime.state import GameState


class Compiler(StepMachineCompiler):
    """The driver: compiles a checked program's cards, rounds and rules, using every layer below."""

    # each suspending code's run-local variables (compiler/liveness.py), by code id: a frame never holds them
    frame_dead: dict[int, frozenset[str]]

    def _frame(self, code: Code, bodies: list[list[A.Stmt]], params: tuple[str, ...]) -> None:
        """Before ``code``'s body is emitted: its run-local variables, which its runs leave out of ``env``. The main
        flow's only: every game runs it, and the walk over every suspending proc's, handler's and card effect's
        expressions cost about 27 ms of CPU per compile of the four large rulesets (0.5 %), for stores off the hot
        paths; their frames keep every variable, as before (docs/performance.md, session 27)."""
        dead = liveness(bodies, self.prog, params).dead if code is self.main else frozenset()
        self.spill_dead = self.frame_dead[code.id] = dead

    # ------------------------------------------------------------ top level
    def compile(self) -> Compiler:
        prog = self.prog
        self.frame_dead = {}
        for name, fn in prog.fns.items():
            self.fns[name] = (tuple(p.name for p in fn.params), lambda s, e: None)
        # procs and handlers first get shells so recursive calls resolve
        for name, proc in prog.procs.items():
            susp = f"proc:{name}" in prog.suspending
            self.procs[name] = Callable_(tuple(p.name for p in proc.params), None,
                                         self.new_code(f"proc {name}") if susp else None, f"proc {name}")
        for wname, hs in prog.handlers.items():
            susp = f"window:{wname}" in prog.suspending
            self.handlers[wname] = [
                Callable_(tuple(p.name for p in h.params), None,
                          self.new_code(f"on {wname}") if susp else None, f"on {wname}")
                for h in hs
            ]
        for kind in prog.kinds.values():
            for f in kind.fields:
                ft = prog.field_types[kind.name][f.name]
                if ft.kind == "effect":
                    self.effects.setdefault(f.name, [None] * len(prog.cards))
                elif ft.kind == "function":
                    self.functions.setdefault(f.name, [lambda s, e: None] * len(prog.cards))
        # bodies
        for name, fn in prog.fns.items():
            self.fns[name] = (self.fns[name][0], self.expr(fn.body))
        for name, proc in prog.procs.items():
            self._fill(self.procs[name], proc.body)
        for wname, hs in prog.handlers.items():
            for target, h in zip(self.handlers[wname], hs, strict=True):
                self._fill(target, h.body)
        self._compile_cards()
        self._compile_main()
        self.spill_dead = frozenset()
        self.finish = self.block(prog.finish)
        if prog.score is not None:
            body = self.expr(prog.score.expr)
            self.score_parts = (body, prog.score.var)
            g = self.generators
            if self.gen is not None and g is not None and g.score is not None:  # codegen/scoregen.py
                self.score_all = g.score(self.gen, prog.score.expr, prog.score.var)
            self.score = self._player_expr(prog.score, body)
        self.tiebreaks = [self._player_expr(t) for t in prog.tiebreaks]
        if prog.winner is not None:
            self.winner = self._player_expr(prog.winner)
        self.reports = [(r.name, self._report(r)) for r in prog.reports]
        self.invariants = [(inv.text, self.expr(inv.expr), frozenset(n for n, _ in inv.outside))
                           for inv in prog.invariants]
        widths = {name: self._width(c) for name, c in prog.counters.items()}
        self.invariant_reads = InvariantReads([
            read_set(inv.expr, self.layout, widths, compile_test=self._test_closure, work_limit=self.work_limit)
            for inv in prog.invariants], self.layout)
        if self.fuse and self.sgen is not None and self.generators is not None:
            self.fuse_span = self.generators.fuse(self)
        return self

    def _test_closure(self, e: A.Expr) -> ExprFn:
        """A filtered invariant read's per-card test (readsets.py), as the reference closures: it runs once per card
        and player count, so it adds nothing to the generated code (whose text, and dump, stay as they were)."""
        gen, self.gen = self.gen, None
        try:
            return self.expr(e)
        finally:
            self.gen = gen

    def _compile_cards(self) -> None:
        prog = self.prog
        for i, card in enumerate(prog.cards):
            kind = prog.kinds[card.kind]
            for f in kind.fields:
                ft = prog.field_types[card.kind][f.name]
                if ft.kind == "effect":
                    body = card.values.get(f.name)
                    if body is None:
                        continue
                    owner = f"field:{card.kind}.{f.name}"
                    params = tuple(p.name for p in f.type.params)
                    name = f"{f.name} of {card.name}"
                    if owner in prog.suspending and _suspends_block(body, prog):
                        code = self.new_code(name)
                        self._frame(code, [body], (*params, "self"))
                        self.emit(body, code, [])
                        code.ins.append(_ret)
                        self.effects[f.name][i] = Callable_(params, None, code, name)
                    else:
                        both = (self.sgen.block_positional(body, (*params, "self"))
                                if self.sgen is not None and self.direct_calls else None)
                        if both is not None:  # also by position, `self` last
                            self.effects[f.name][i] = owned(Callable_(params, both[0], None, name, both[1]))
                        else:
                            self.effects[f.name][i] = Callable_(params, self.block(body), None, name)
                elif ft.kind == "function":
                    expr = card.values.get(f.name, f.default)
                    self.functions[f.name][i] = self.expr(expr) if expr is not None else (lambda s, e: None)

    def _compile_main(self) -> None:
        prog = self.prog
        main = self.new_code("main")
        self.main = main
        self._frame(main, [prog.setup, *(st.body for st in prog.steps)], ())
        self.emit(prog.setup, main, [])
        round_start = len(main.ins)

        def start_round(s: GameState, fr: list[Any]) -> bool:
            c = s.counters
            c[ROUND_SLOT] += 1
            for run, values in s.tables.reset_runs:  # the reset slots, a slice per field (Tables.reset_runs)
                c[run] = values
            fr[1] += 1
            return False

        def start_round_noted(s: GameState, fr: list[Any]) -> bool:
            c = s.counters
            c[ROUND_SLOT] += 1
            w = s.wrote
            if w is None:
                for run, values in s.tables.reset_runs:
                    c[run] = values
            else:  # for the invariant certificate (interpreter/runtime/invariants.py)
                w.append(ROUND_SLOT)
                # a slot that already holds its initial value is left as it is: that write changes nothing, so it
                # needs no note (the certificate would skip it anyway, its value being the object it certified);
                # the loop over the tables' reset slots written out once per tables (runtime/resetgen.py)
                t = s.tables
                (t.noted_reset or resetgen.of(t))(c, w)
            fr[1] += 1
            return False

        # the checked variant notes the round's writes; the unchecked one is exactly the instruction before notes
        main.ins.append(self.note(start_round_noted if self.notes else start_round, "run"))
        if self.sgen is not None and self.gen is not None and not self.notes:
            # start_round's statements as a run's text, so a fused function writes them in place of a call
            # (codegen/fuse.py: a run's text leaves the pc alone; the fused function moves it). The loop over the
            # reset slots only where a counter is `reset each round`: no other counter is ever in reset_slots
            # (Ruleset._build), so for the others it is a loop over an empty tuple
            text = f"    s.counters[{ROUND_SLOT}] += 1\n"
            if any(c.reset_each_round for c in prog.counters.values()):
                run, values = self.gen._name("_rr"), self.gen._name("_rv")
                text += f"    for {run}, {values} in s.tables.reset_runs:\n        s.counters[{run}] = {values}\n"
            self.sgen.run_texts[id(main.ins[-1])] = (main.ins[-1], text)
        for st in prog.steps:
            self.step_pcs[st.name] = len(main.ins)
            self.step_names_by_pc.append((len(main.ins), st.name))
            self.step_titles[st.name] = st.title
            self.emit(st.body, main, [])

        def loop(s: GameState, fr: list[Any]) -> bool:
            fr[1] = round_start
            return False

        main.ins.append(self.note(loop, "goto", round_start))

    def _player_expr(self, sc: A.ScoreDecl | A.WinnerDecl, body: ExprFn | None = None) -> ExprFn:
        """``sc``'s expression as a function of ``{"player": p}``; ``body`` is the expression when already compiled."""
        if body is None:
            body = self.expr(sc.expr)
        var = sc.var

        def score(s: GameState, env: dict[str, Any]) -> Any:
            return body(s, {var: env["player"]})

        return score

    def _report(self, r: A.ReportDecl) -> ExprFn:
        body = self.expr(r.expr)
        plain = plain_value(r.expr.ty)

        def report(s: GameState, env: dict[str, Any]) -> Any:
            return plain(body(s, env))

        return report

    def _fill(self, target: Callable_, body: list[A.Stmt]) -> None:
        if target.code is not None:
            self._frame(target.code, [body], target.params)
            self.emit(body, target.code, [])
            target.code.ins.append(_ret)
        elif (self.sgen is not None and self.direct_calls
              and (both := self.sgen.block_positional(body, target.params)) is not None):
            target.pure, target.fast = both
            owned(target)  # its `env` form may be compiled on its first call (codegen/lazypure.py)
        else:
            target.pure = self.block(body)
