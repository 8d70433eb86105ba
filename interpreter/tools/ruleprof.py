"""Where the time goes *in a ruleset*: a rule-level profiler for ruleset authors.

A Python profiler (cProfile, py-spy) names the engine's closures and generated
functions (``do_proc``, ``_s473``), which says nothing to someone writing
rules.  This profiler plays random games on its own compiled copy of a ruleset
whose procedures, functions, handlers, card effects, card functions, round
steps, invariants and ``finish`` are wrapped in timers, and reports, per rule
with its ``file:line``, the calls, the *self* time (spent in the rule's own
statements and expressions) and the *cumulative* time (including every rule it
calls, counted once when a rule calls itself).

Why wrapping and not ``sys.setprofile``: many rules compile to one shared
closure code object (every ``do`` statement is a ``do_proc`` closure), so code
objects cannot tell two procedures apart.  The wrappers go on the compiled
objects the engine already calls through (``Callable_.pure``, the step-machine
instruction lists, the ``fn``, card-function and invariant tables), so the
normal compiled ruleset is untouched and costs nothing extra when nobody profiles.

What is measured, and how:

* Pure rules (closures and generated functions) are timed from call to return.
* Rules that can wait for a decision run as step-machine frames.  Each of
  their instructions is timed; the instruction's time is the frame's *self*
  time, and it counts towards the *cumulative* time of every rule on the frame
  stack (the round step the main flow is in, and each frame's procedure,
  handler or effect).  A frame is one call, counted when it first runs.
* A round step is one call each time the main flow enters it.
* ``fn`` calls are not inlined in the profiled copy (they normally are), so each
  call is counted, and step-machine instructions run one by one, not fused
  (:mod:`.fuse`); the profiled run is therefore slower than a normal run, and
  every timer adds its own small cost, which lands in the caller's self time.
  Read the shares, not the absolute times.
* Time outside every rule (new games, the step-machine loop, decisions, the
  built-in checks) is reported as the engine's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from liturgy.dsl.checker.program import Program
from liturgy.dsl.diagnostics import Span
from liturgy.interpreter.agents.agents import RandomAgent
from liturgy.interpreter.compiler.code import Callable_, Code, ExprFn, Ins, StmtFn
from liturgy.interpreter.compiler.compiler import Compiler
from liturgy.interpreter.engine import Ruleset
from liturgy.interpreter.runtime.state import GameState
from liturgy.interpreter.tools.simulate import game_seed

Clock = Callable[[], float]
CLOCKS: dict[str, Clock] = {"wall": time.perf_counter, "cpu": time.process_time}


@dataclass
class RuleStats:
    """One rule's figures over the whole profile run."""

    kind: str  # proc, fn, handler, effect, function, setup, step, round, invariant, finish, score
    name: str
    where: str  # file:line of the declaration
    calls: int = 0
    self_s: float = 0.0
    cum_s: float = 0.0

    def to_json(self, total: float) -> dict[str, Any]:
        return {
            "kind": self.kind, "name": self.name, "where": self.where, "calls": self.calls,
            "self_ms": round(self.self_s * 1e3, 3), "cum_ms": round(self.cum_s * 1e3, 3),
            "self_pct": round(100 * self.self_s / total, 2) if total else 0.0,
            "cum_pct": round(100 * self.cum_s / total, 2) if total else 0.0,
        }


@dataclass
class ProfileReport:
    """The result of :func:`profile`: run facts and one :class:`RuleStats` per rule that ran."""

    ruleset: str
    games: int
    players: int
    seed: int
    options: dict[str, str]
    check: bool
    clock: str
    finished: int
    aborted: int
    decisions: int
    total_s: float  # the whole profiled run
    rules_s: float  # inside some rule
    rules: list[RuleStats]

    def sorted(self, key: str = "self") -> list[RuleStats]:
        keys: dict[str, Callable[[RuleStats], Any]] = {
            "self": lambda r: (-r.self_s, r.where), "cum": lambda r: (-r.cum_s, r.where),
            "calls": lambda r: (-r.calls, r.where),
        }
        return sorted(self.rules, key=keys[key])

    def to_json(self, sort: str = "self", top: int | None = None) -> dict[str, Any]:
        rows = self.sorted(sort)
        return {
            "ruleset": self.ruleset, "games": self.games, "players": self.players, "seed": self.seed,
            "options": self.options, "invariants_checked": self.check, "clock": self.clock,
            "finished": self.finished, "aborted": self.aborted, "decisions": self.decisions,
            "total_s": round(self.total_s, 4), "rules_s": round(self.rules_s, 4),
            "engine_s": round(self.total_s - self.rules_s, 4),
            "rules": [r.to_json(self.total_s) for r in (rows if top is None else rows[:top])],
        }

    def render(self, sort: str = "self", top: int | None = 30) -> str:
        total = self.total_s or 1e-12
        opts = ", ".join(f"{k}={v}" for k, v in self.options.items()) or "none"
        lines = [
            f"profile of {self.ruleset}: {self.games} games, {self.players} player(s), seed {self.seed}, "
            f"options {opts}, invariants {'checked' if self.check else 'off'}",
            f"{self.finished} finished, {self.aborted} aborted, {self.decisions} decisions; "
            f"{self.total_s:.3f} s profiled ({self.clock} clock): {self.rules_s:.3f} s "
            f"({100 * self.rules_s / total:.1f}%) in rules, {self.total_s - self.rules_s:.3f} s "
            f"({100 * (self.total_s - self.rules_s) / total:.1f}%) in the engine",
            "",
            f"{'self%':>6} {'self ms':>9} {'cum%':>6} {'cum ms':>9} {'calls':>9} {'µs/call':>8}  "
            f"{'kind':<9} {'rule':<36} where",
        ]
        rows = self.sorted(sort)
        for r in rows if top is None else rows[:top]:
            per = r.cum_s / r.calls * 1e6 if r.calls else 0.0
            lines.append(
                f"{100 * r.self_s / total:6.1f} {r.self_s * 1e3:9.1f} {100 * r.cum_s / total:6.1f} "
                f"{r.cum_s * 1e3:9.1f} {r.calls:9d} {per:8.1f}  {r.kind:<9} {r.name:<36} {r.where}")
        if top is not None and len(rows) > top:
            lines.append(f"... {len(rows) - top} more rules (--top 0 lists every rule)")
        lines.append("self: time in the rule's own statements; cum: with the rules it calls; µs/call: cum per call")
        return "\n".join(lines)


def _where(span: Span | None) -> str:
    return f"{span.file}:{span.line}" if span is not None else "?"


class _Instrument:
    """Wraps a compiled ruleset's rules in timers that fill per-rule arrays (none: a bare probe)."""

    def __init__(self, ruleset: Ruleset | None, clock: Clock, overhead: Overhead | None = None) -> None:
        self.clock = clock
        # the timers' own cost, subtracted so that they do not inflate the figures
        self.overhead = overhead or Overhead()
        self.units: list[RuleStats] = []
        self.calls: list[int] = []
        self.self_s: list[float] = []
        self.cum_s: list[float] = []
        self.active: list[int] = []  # how many open timers (or frames on the stack) a rule has now
        # the time of the timed calls inside each open timer; element 0 collects the top-level ones
        self.stack: list[float] = [0.0]
        self.ins_runs = [0, 0]  # instructions timed, and the sum of their frame depths
        self.fn_runs = [0]  # closures timed
        self.code_unit: dict[int, int] = {}  # Code.id -> rule, for step-machine frames
        self.main_step = [0]  # the rule (setup, step, round) the main flow last ran an instruction of
        self.frame_at: list[Any] = []  # the frame object last seen at each depth: a new one is a new call
        self._by_key: dict[tuple[str, str, str], int] = {}
        if ruleset is not None:
            self._wrap_all(ruleset)

    def overhead_s(self) -> float:
        """The timers' own cost in the run: taken off the total, so the engine's share is not inflated."""
        o = self.overhead
        return self.fn_runs[0] * o.fn_out + self.ins_runs[0] * o.ins_out + self.ins_runs[1] * o.ins_out_depth

    # ------------------------------------------------------------ rules
    def unit(self, kind: str, name: str, where: str) -> int:
        key = (kind, name, where)
        u = self._by_key.get(key)
        if u is None:
            u = len(self.units)
            self._by_key[key] = u
            self.units.append(RuleStats(kind, name, where))
            self.calls.append(0)
            self.self_s.append(0.0)
            self.cum_s.append(0.0)
            self.active.append(0)
        return u

    def timed(self, fn: Callable[..., Any], u: int) -> Callable[..., Any]:
        """``fn(s, env)`` with its time charged to rule ``u``."""
        clock, stack, active, runs = self.clock, self.stack, self.active, self.fn_runs
        calls, self_s, cum_s = self.calls, self.self_s, self.cum_s
        t_in, t_out = self.overhead.fn_in, self.overhead.fn_out

        def timed(s: GameState, env: dict[str, Any]) -> Any:
            active[u] += 1
            stack.append(0.0)
            t0 = clock()
            try:
                return fn(s, env)
            finally:
                dt = clock() - t0 - t_in
                child = stack.pop()
                stack[-1] += dt + t_out
                runs[0] += 1
                calls[u] += 1
                self_s[u] += dt - child
                active[u] -= 1
                if not active[u]:
                    cum_s[u] += dt

        return timed

    def timed_ins(self, ins: Ins, u: int, main: bool) -> Ins:
        """A step-machine instruction of rule ``u``; ``main``: it belongs to the main flow (frame 0)."""
        clock, stack, active, runs = self.clock, self.stack, self.active, self.ins_runs
        calls, self_s, cum_s = self.calls, self.self_s, self.cum_s
        code_unit, main_step, frame_at = self.code_unit, self.main_step, self.frame_at
        o = self.overhead
        t_in, t_out, t_in_d, t_out_d = o.ins_in, o.ins_out, o.ins_in_depth, o.ins_out_depth

        def timed_ins(s: GameState, fr: list[Any]) -> bool:
            frames = s.frames
            depth = len(frames)
            if main:
                if main_step[0] != u:
                    calls[u] += 1
                    main_step[0] = u
            elif depth >= len(frame_at) or frame_at[depth] is not fr:
                calls[u] += 1
                del frame_at[depth:]
                frame_at.extend([None] * (depth - len(frame_at)))
                frame_at.append(fr)
            chain = {main_step[0], *(code_unit[f[0].id] for f in frames[1:])}
            for c in chain:
                active[c] += 1
            stack.append(0.0)
            t0 = clock()
            try:
                return ins(s, fr)
            finally:
                dt = clock() - t0 - t_in - t_in_d * depth
                child = stack.pop()
                stack[-1] += dt + t_out + t_out_d * depth
                runs[0] += 1
                runs[1] += depth
                self_s[u] += dt - child
                for c in chain:
                    active[c] -= 1
                    if not active[c]:
                        cum_s[c] += dt

        return timed_ins

    def callable_(self, target: Callable_, kind: str, name: str, where: str) -> None:
        u = self.unit(kind, name, where)
        if target.pure is not None:
            pure: StmtFn = target.pure
            target.pure = self.timed(pure, u)
        if target.code is not None:
            self.code(target.code, u)

    def code(self, code: Code, u: int) -> None:
        self.code_unit[code.id] = u
        code.ins[:] = [self.timed_ins(ins, u, False) for ins in code.ins]

    # ------------------------------------------------------------ the whole ruleset
    def _wrap_all(self, rs: Ruleset) -> None:
        prog: Program = rs.program
        comp = rs.compiled
        for name, target in comp.procs.items():
            self.callable_(target, "proc", name, _where(prog.procs[name].span))
        for wname, targets in comp.handlers.items():
            for target, h in zip(targets, prog.handlers[wname], strict=True):
                self.callable_(target, "handler", f"on {wname}", _where(h.span))
        for name, (params, body) in list(comp.fns.items()):
            comp.fns[name] = (params, self.timed(body, self.unit("fn", name, _where(prog.fns[name].span))))
        self._cards(prog, comp)
        self._main(rs)
        comp.invariants[:] = [(text, self.timed(fn, self.unit("invariant", text, _where(inv.span))), outside)
                              for (text, fn, outside), inv in zip(comp.invariants, prog.invariants, strict=True)]
        self._scoring(prog, comp)

    def _cards(self, prog: Program, comp: Compiler) -> None:
        """Each card's effects, and each card function (a card's own value or its kind's default)."""
        for fname, table in comp.effects.items():
            for i, eff in enumerate(table):
                if eff is not None:
                    card = prog.cards[i]
                    self.callable_(eff, "effect", f"{fname} of {card.name}",
                                   _where(card.field_spans.get(fname, card.span)))
        for fname, ftable in comp.functions.items():
            for i, card in enumerate(prog.cards):
                if i >= len(ftable):
                    break
                kind = prog.kinds[card.kind]
                if fname in card.values:
                    u = self.unit("function", f"{fname} of {card.name}", _where(card.field_spans.get(fname, card.span)))
                else:
                    f = next((f for f in kind.fields if f.name == fname), None)
                    if f is None or f.default is None:
                        continue
                    u = self.unit("function", f"{fname} (default of {kind.name})", _where(f.span))
                fn: ExprFn = ftable[i]
                ftable[i] = self.timed(fn, u)

    def _scoring(self, prog: Program, comp: Compiler) -> None:
        """The end of the game: the finish condition, score, winner and tiebreaks."""
        if comp.finish is not None and prog.finish:
            comp.finish = self.timed(comp.finish, self.unit("finish", "finish", _where(prog.finish[0].span)))
        if comp.score is not None and prog.score is not None:
            unit = self.unit("score", "score", _where(prog.score.span))
            comp.score = self.timed(comp.score, unit)
            if comp.score_parts is not None:  # what the engine's finish calls (Game._advance): timed as the score
                body, var = comp.score_parts
                comp.score_parts = (self.timed(body, unit), var)
                comp.score_all = None  # the engine then calls the timed body, once per player
        if comp.winner is not None and prog.winner is not None:
            comp.winner = self.timed(comp.winner, self.unit("score", "winner", _where(prog.winner.span)))
        comp.tiebreaks = [self.timed(tb, self.unit("score", "tiebreak", _where(d.span)))
                          for tb, d in zip(comp.tiebreaks, prog.tiebreaks, strict=True)]

    def _main(self, rs: Ruleset) -> None:
        """The main flow: setup, the round's bookkeeping, and each round step by its instructions."""
        prog, comp = rs.program, rs.compiled
        main = comp.main
        assert main is not None
        steps = {st.name: st for st in prog.steps}
        starts = sorted(comp.step_names_by_pc)
        setup = self.unit("setup", "setup", _where(prog.setup[0].span) if prog.setup else "?")
        first = starts[0][0] if starts else len(main.ins) - 1  # the round's start instruction is just before
        round_ = self.unit("round", "round (start and loop)", _where(prog.steps[0].span) if prog.steps else "?")
        per_pc: list[int] = []
        for pc in range(len(main.ins)):
            if pc < first - 1:
                per_pc.append(setup)
            elif pc == first - 1 or pc == len(main.ins) - 1:
                per_pc.append(round_)
            else:
                name = [n for start, n in starts if start <= pc][-1]
                per_pc.append(self.unit("step", name, _where(steps[name].span)))
        self.code_unit[main.id] = setup
        self.main_step[0] = setup
        main.ins[:] = [self.timed_ins(ins, u, True) for ins, u in zip(main.ins, per_pc, strict=True)]

    def report_rules(self) -> list[RuleStats]:
        out = []
        for u, r in enumerate(self.units):
            if self.calls[u] or self.self_s[u]:
                out.append(RuleStats(r.kind, r.name, r.where, self.calls[u], self.self_s[u], self.cum_s[u]))
        return out


@dataclass
class Overhead:
    """The timers' own cost per call.

    *in* is what a timer records for a call that does nothing; *out* is what such a call costs its
    caller. An instruction's timer also walks the frame stack, so its cost grows with the depth.
    """

    fn_in: float = 0.0
    fn_out: float = 0.0
    ins_in: float = 0.0
    ins_out: float = 0.0
    ins_in_depth: float = 0.0  # per frame on the stack
    ins_out_depth: float = 0.0


def calibrate(clock: Clock, n: int = 20000, repeats: int = 5) -> Overhead:
    """Measure :class:`Overhead` on timed calls of a function that does nothing, best of ``repeats``."""

    def noop(s: Any, env: Any) -> bool:
        return False

    class _Code:
        id = 0

    class _State:
        def __init__(self, depth: int) -> None:
            self.frames = [[_Code, 0, {}] for _ in range(depth)]

    def one(depth: int) -> tuple[float, float, float, float]:
        state: Any = _State(depth)  # stands in for a GameState: the timers only read its frames
        fr = state.frames[-1]
        probe = _Instrument(None, clock)
        u = probe.unit("probe", "", "")
        probe.code_unit[0] = u
        fn, ins = probe.timed(noop, u), probe.timed_ins(noop, u, depth == 1)
        t0 = clock()
        for _ in range(n):
            noop(state, fr)
        bare = clock() - t0
        t0 = clock()
        for _ in range(n):
            fn(state, fr)
        fn_out = clock() - t0 - bare
        fn_in = probe.self_s[u]
        probe.self_s[u] = 0.0
        t0 = clock()
        for _ in range(n):
            ins(state, fr)
        ins_out = clock() - t0 - bare
        return fn_in / n, fn_out / n, probe.self_s[u] / n, ins_out / n

    deep = 6
    best1 = [float("inf")] * 4
    best_deep = [float("inf")] * 4
    for _ in range(repeats):
        best1 = [min(b, v) for b, v in zip(best1, one(1), strict=True)]
        best_deep = [min(b, v) for b, v in zip(best_deep, one(deep), strict=True)]
    in_d = max(0.0, (best_deep[2] - best1[2]) / (deep - 1))
    out_d = max(0.0, (best_deep[3] - best1[3]) / (deep - 1))
    return Overhead(max(0.0, best1[0]), max(0.0, best1[1]), max(0.0, best1[2] - in_d), max(0.0, best1[3] - out_d),
                    in_d, out_d)


def profile(
    program: Program, games: int, players: int, seed: int = 0, options: dict[str, str] | None = None,
    check: bool = True, clock: str = "wall", path: str = "",
) -> ProfileReport:
    """Play ``games`` random games (the games ``liturgy simulate`` plays with the same seed) under the profiler."""
    # timed wrappers go around every original instruction; checked games run the noted compile
    # (Ruleset.noted), so the profiled copy is that one when checking, or the wrappers would time nothing
    ruleset = Ruleset(program, inline_fns=False, fuse=False, notes=check)
    ruleset.resolve_options(options)
    tick = CLOCKS[clock]
    inst = _Instrument(ruleset, tick, calibrate(tick))
    finished = aborted = decisions = 0
    total = 0.0
    for i in range(games):
        gseed = game_seed(seed, i)
        t0 = tick()
        game = ruleset.new_game(players, gseed, check_invariants=check, options=options)
        decisions += game.random_playout(RandomAgent(gseed ^ 0x5EED).rng)
        total += tick() - t0
        if game.state.status == "finished":
            finished += 1
        else:
            aborted += 1
    rules = inst.report_rules()
    total = max(0.0, total - inst.overhead_s())
    return ProfileReport(path or program.path, games, players, seed, dict(options or {}), check, clock,
                         finished, aborted, decisions, total, sum(r.self_s for r in rules), rules)
