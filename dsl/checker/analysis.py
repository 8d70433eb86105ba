"""Whole-program analysis after typing: suspension, unreachable steps, trigger cycles (warnings)."""

from __future__ import annotations

from liturgy.dsl.checker.flow import check_flow
from liturgy.dsl.checker.program import Program
from liturgy.dsl.checker.recursion import recursion_warnings
from liturgy.dsl.checker.statements import StatementChecker
from liturgy.dsl.checker.walk import _contains, _skip_targets
from liturgy.dsl.diagnostics import Span
from liturgy.dsl.frontend import ast as A


class AnalysisChecker(StatementChecker):
    """Semantic warnings that need the whole checked program."""

    def _analyse(self, prog: Program) -> None:
        # which owners may suspend (need the step machine): fixpoint over calls
        susp = set(self.suspends_directly)
        changed = True
        while changed:
            changed = False
            for owner, callees in self.calls.items():
                if owner in susp:
                    continue
                if callees & susp:
                    susp.add(owner)
                    changed = True
        prog.suspending = susp
        spans = {"finish": next((d.span for d in self.rs.decls if isinstance(d, A.FinishDecl)), None),
                 "score": next((d.span for d in self.rs.decls
                                if isinstance(d, A.ScoreDecl | A.WinnerDecl | A.ReportDecl)), None)}
        for owner, what in (("finish", "`finish`"), ("score", "`score`, `tiebreak`, `winner` and `report`")):
            if owner in susp:
                self.err("E151", f"{what} cannot ask for decisions", spans[owner] or Span.point(self.rs.path, 1, 1),
                         hint="make the choice in a round step before `end game`")
        self._unused(prog)
        self._unreachable_steps(prog)
        self._reachable_end(prog)
        # runaway recursion, fan-out, endless loops (W070-W073); then trigger cycles (a window whose handlers
        # fire it again), except the windows W072 already reported as firing themselves several times
        fanned = recursion_warnings(prog, self.warn)
        self._trigger_cycles(prog, fanned)
        # a hidden card's field reaching what other players see (W075-W078)
        check_flow(prog, self.warn)

    def _unused(self, prog: Program) -> None:
        """W001/W002: declarations nothing uses, windows nothing fires."""
        for name, z in prog.zones.items():
            if "zone:" + name not in self.used and not any(c.start == name for c in prog.cards):
                self.warn("W001", f"zone `{name}` is never used", z.span, hint="remove it or use it")
        for name, c in prog.counters.items():
            if "counter:" + name not in self.used and c.pool is None:
                self.warn("W001", f"counter `{name}` is never used", c.span, hint="remove it or use it")
        for name, g in prog.grids.items():
            if "grid:" + name not in self.used:
                self.warn("W001", f"grid `{name}` is never used", g.span, hint="remove it or use it")
        for name, p in prog.procs.items():
            if "proc:" + name not in self.used:
                self.warn("W001", f"procedure `{name}` is never called", p.span)
        for name, fn in prog.fns.items():
            if "fn:" + name not in self.used:
                self.warn("W001", f"function `{name}` is never called", fn.span)
        for name, w in prog.windows.items():
            if name not in prog.fired and prog.handlers.get(name):
                self.warn("W002", f"window `{name}` is never fired, so its handlers never run", w.span,
                          hint=f"add `fire {name}(…)` where it happens")
            elif name not in prog.handlers:
                self.warn("W001", f"window `{name}` has no handlers", w.span)

    def _reachable_end(self, prog: Program) -> None:
        """W003: `end game` in setup, a reachable step, or anything they call or fire."""
        seen = {"setup"} | {f"step:{name}" for name in self.reachable_steps}
        todo = list(seen)
        while todo:
            for callee in self.calls.get(todo.pop(), ()):
                if callee not in seen:
                    seen.add(callee)
                    todo.append(callee)
        if not seen & self.ends:
            where = "anywhere" if not _contains(prog, A.EndGame) else "that the game can reach"
            self.warn("W003", f"no `end game` {where}: the game can only stop at the step limit",
                      prog.steps[0].span if prog.steps else Span.point(self.rs.path, 1, 1),
                      hint="add `end game` where the game is over (a step, a procedure it calls, or a handler)")

    def _unreachable_steps(self, prog: Program) -> None:
        """Warn about steps that control flow can never enter.

        A step is entered by falling through from the step before it (the last
        wraps around to the first) or by a `skip to`.  A step whose body ends
        in an unconditional `skip to` or `end game` does not fall through.
        """
        steps = prog.steps
        index = {s.name: i for i, s in enumerate(steps)}
        reached: set[int] = set()
        todo = [0] if steps else []
        while todo:
            i = todo.pop()
            if i in reached:
                continue
            reached.add(i)
            falls_through = True
            for st in steps[i].body:
                if isinstance(st, A.SkipTo | A.EndGame):
                    falls_through = False
            for target in _skip_targets(steps[i].body):
                if target in index:
                    todo.append(index[target])
            if falls_through:
                todo.append((i + 1) % len(steps))
        self.reachable_steps = {steps[i].name for i in reached}
        for i, step in enumerate(steps):
            if i not in reached:
                self.warn("W005", f"step `{step.name}` can never be reached", step.span,
                          hint="an earlier step always skips past it or ends the game")

    def _trigger_cycles(self, prog: Program, skip: set[str]) -> None:
        graph: dict[str, set[str]] = {}
        for owner, callees in self.calls.items():
            graph.setdefault(owner, set()).update(callees)
        for wname, w in prog.windows.items():
            if wname in skip:
                continue
            start = f"window:{wname}"
            stack = [(start, [start])]
            seen: set[str] = set()
            while stack:
                node, path = stack.pop()
                for nxt in graph.get(node, ()):
                    if nxt == start:
                        chain = " -> ".join(p.split(":", 1)[1] for p in [*path, nxt])
                        self.warn("W004", f"trigger chain can loop forever: {chain}", w.span,
                                  hint="make sure a condition ends the chain; at run time the trigger-depth "
                                       "limit stops it with an error")
                        stack = []
                        break
                    if nxt not in seen:
                        seen.add(nxt)
                        stack.append((nxt, [*path, nxt]))
