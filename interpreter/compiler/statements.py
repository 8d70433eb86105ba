"""Pure statements (no decision inside) -> closures ``f(state, env)``: assignments, moves, transfers,
calls of pure procs and effects, logs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from liturgy.dsl.checker.types import Ty
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler import budgets
from liturgy.interpreter.compiler.code import (
    MAX_FIRE_DEPTH,
    Callable_,
    ExprFn,
    LogFormat,
    StmtFn,
    arguments,
    formatter_for,
    nests_cards,
)
from liturgy.interpreter.compiler.expressions import ExpressionCompiler
from liturgy.interpreter.compiler.instructions import _fire_chain, _has_break
from liturgy.interpreter.runtime import budget, modes, rng
from liturgy.interpreter.runtime.errors import BreakLoop, GameOver, RuleError, SkipTo
from liturgy.interpreter.runtime.graphs import overlay_of
from liturgy.interpreter.runtime.moves import (
    card_ids,
    card_visibility,
    move_all,
    move_all_noted,
    move_card,
    move_card_noted,
    move_zone,
    move_zone_noted,
    players_mask,
    reveal_to,
)
from liturgy.interpreter.runtime.names import value_labels
from liturgy.interpreter.runtime.state import GameState, note_slot, note_zone


class StatementCompiler(ExpressionCompiler):
    # ------------------------------------------------------------ pure statements
    def block(self, stmts: Sequence[A.Stmt]) -> StmtFn:
        """One function running pure ``stmts``: generated source where :mod:`.stmtgen` is on, else closures."""
        fn = self.sgen.block(stmts) if self.sgen is not None else None
        return fn if fn is not None else self.block_closure(stmts)

    def block_closure(self, stmts: Sequence[A.Stmt]) -> StmtFn:
        fns = [self.stmt(s) for s in stmts]
        if not fns:
            return lambda s, env: None
        if len(fns) == 1:
            return fns[0]
        if len(fns) == 2:
            f0, f1 = fns

            def two(s: GameState, env: dict[str, Any]) -> None:
                f0(s, env)
                f1(s, env)

            return two
        t = tuple(fns)

        def many(s: GameState, env: dict[str, Any]) -> None:
            for f in t:
                f(s, env)

        return many

    def stmt(self, st: A.Stmt) -> StmtFn:
        """The reference closure for a pure statement, from the handler :data:`STMT_HANDLERS` keeps for its class."""
        handler = STMT_HANDLERS.get(type(st))
        if handler is None:  # pragma: no cover - `choose` and `simultaneously` always suspend
            raise AssertionError(f"statement {type(st).__name__} needs the step machine")
        return handler(self, st)

    def _let(self, st: A.Let) -> StmtFn:
        vf = self.expr(st.value)
        n = st.name

        def let(s: GameState, env: dict[str, Any]) -> None:
            env[n] = vf(s, env)

        return let

    def _shuffle(self, st: A.Shuffle) -> StmtFn:
        zf = self.zone_index(st.zone)

        def shuffle(s: GameState, env: dict[str, Any]) -> None:
            zi = zf(s, env)
            s.rng = rng.shuffle(s.zones[zi], s.rng)
            note_zone(s, zi)

        return shuffle

    def _reveal(self, st: A.Reveal) -> StmtFn:
        tf = self.expr(st.target)
        is_zone = st.target.ty is not None and st.target.ty.kind == "zone"
        rzf: ExprFn | None = self.zone_index(st.target) if is_zone else None
        if st.to is not None:
            to = self.expr(st.to)

            def reveal_to_players(s: GameState, env: dict[str, Any]) -> None:
                c = None if rzf is not None else tf(s, env)
                cards = s.zones[rzf(s, env)] if rzf is not None else () if c is None else (c,)
                reveal_to(s, cards, players_mask(to(s, env)))

            return reveal_to_players

        def reveal(s: GameState, env: dict[str, Any]) -> None:
            if rzf is not None:
                s.face_up.update(s.zones[rzf(s, env)])
            else:
                c = tf(s, env)
                if c is not None:
                    s.face_up.add(c)

        return reveal

    def _if(self, st: A.If) -> StmtFn:
        branches = [(self.expr(c), self.block_closure(b)) for c, b in st.branches]
        orelse = self.block_closure(st.orelse) if st.orelse else None
        if len(branches) == 1:
            (cf, bf), = branches

            def if1(s: GameState, env: dict[str, Any]) -> None:
                if cf(s, env):
                    bf(s, env)
                elif orelse is not None:
                    orelse(s, env)

            return if1

        def ifn(s: GameState, env: dict[str, Any]) -> None:
            for cf, bf in branches:
                if cf(s, env):
                    bf(s, env)
                    return
            if orelse is not None:
                orelse(s, env)

        return ifn

    def _for(self, st: A.For) -> StmtFn:
        it = budgets.counted_items(self.seq(st.iterable), self.work_limit, st.span,
                                   budgets.loop_kind(st.iterable, self.sizes, st.body))
        body = self.block_closure(st.body)
        var = st.var
        has_break = _has_break(st.body)

        def for_(s: GameState, env: dict[str, Any]) -> None:
            items = tuple(it(s, env))
            if has_break:
                try:
                    for x in items:
                        env[var] = x
                        body(s, env)
                except BreakLoop:
                    pass
            else:
                for x in items:
                    env[var] = x
                    body(s, env)

        return for_

    def _repeat_while(self, st: A.RepeatWhile) -> StmtFn:
        cf = self.expr(st.cond)
        body = self.block_closure(st.body)
        span = st.span
        limit, at = self.work_limit, budgets.where(span)

        def repeat(s: GameState, env: dict[str, Any]) -> None:
            # A loop that needs no decision runs inside one engine step, so it has its own bound.
            rounds = 0
            try:
                while cf(s, env):
                    body(s, env)
                    rounds += 1
                    if rounds > 100_000:
                        raise RuleError(f"`repeat while` at line {span.line} ran 100000 times without ending")
            except BreakLoop:
                pass
            budgets.charge(s, rounds, limit, at)  # the passes, counted once the loop ends (the bound above holds)

        return repeat

    def _break(self, st: A.Break) -> StmtFn:
        def brk(s: GameState, env: dict[str, Any]) -> None:
            raise BreakLoop

        return brk

    def _end_game(self, st: A.EndGame) -> StmtFn:
        def end(s: GameState, env: dict[str, Any]) -> None:
            raise GameOver

        return end

    def _skip_to(self, st: A.SkipTo) -> StmtFn:
        step = st.step

        def skip(s: GameState, env: dict[str, Any]) -> None:
            raise SkipTo(self.step_pcs[step])

        return skip

    def _mode_switch(self, st: A.ModeSwitch) -> StmtFn:
        return modes.switch(self.mode_slots(), self.expr(st.mode), st.enter, st.span.line)

    def _graph_link(self, st: A.GraphLink) -> StmtFn:
        """`link` / `unlink`: the graph's changes counter gets its new overlay (runtime/graphs.py)."""
        walk, slot = self.graph_walk(st.graph)
        assert slot is not None  # the checker gave every linked graph its counter
        af, bf = self.expr(st.a), self.expr(st.b)
        kf = self.expr(st.kind) if st.kind is not None else None
        link = st.link

        def change(s: GameState, env: dict[str, Any]) -> None:
            s.counters[slot] = walk.changed(overlay_of(s.counters[slot]), af(s, env), bf(s, env),
                                            kf(s, env) if kf is not None else None, link)
            note_slot(s, slot)

        return change

    def assign(self, st: A.Assign) -> StmtFn:
        vf = self.expr(st.value)
        op = st.op
        tgt = st.target
        if tgt.ref is not None and tgt.ref[0] == "local":
            n = tgt.ref[1]
            if op == "=":
                return lambda s, env: env.__setitem__(n, vf(s, env))
            sign = 1 if op == "+=" else -1
            return lambda s, env: env.__setitem__(n, env[n] + sign * vf(s, env))
        sf = self.counter_slot(tgt)
        decl = self._counter_decl(tgt)
        lo, hi = decl.lo, decl.hi
        if decl.is_flag:

            def set_flag(s: GameState, env: dict[str, Any]) -> None:
                v = 1 if vf(s, env) else 0  # the value first, then the slot: the order of `s.counters[sf()] = v`
                slot = sf(s, env)
                s.counters[slot] = v
                note_slot(s, slot)

            return set_flag
        sign = 0 if op == "=" else (1 if op == "+=" else -1)
        ref = A.ref_of(tgt)
        if not self.notes and ref[0] == "counter":
            # A global counter's slot is a constant, and only the noted variant's games record writes (s.wrote is
            # None in every game of a compile without notes, as its moves assume): one call fewer per assignment,
            # and none to note_slot. A closures-mode game that assigns in a loop (tests/test_attack_budgets.py's
            # nested `for`s: 19 million assignments before the work budget stops it) spent half its time there.
            const = self.layout.global_slots[ref[1].name]
            if sign == 0 and isinstance(st.value, A.IntLit) and not isinstance(st.value.value, bool):
                # `n = 5`: the value, clamped as below, is known now (it evaluates nothing and cannot fail)
                lit: int = st.value.value
                lit = lo if lo is not None and lit < lo else hi if hi is not None and lit > hi else lit

                def set_literal(s: GameState, env: dict[str, Any]) -> None:
                    s.counters[const] = lit

                return set_literal

            def set_global(s: GameState, env: dict[str, Any]) -> None:
                v = vf(s, env)
                c = s.counters
                if sign:
                    v = c[const] + sign * v
                if lo is not None and v < lo:
                    v = lo
                elif hi is not None and v > hi:
                    v = hi
                c[const] = v

            return set_global

        def set_counter(s: GameState, env: dict[str, Any]) -> None:
            slot = sf(s, env)
            v = vf(s, env)
            if sign:
                v = s.counters[slot] + sign * v
            if lo is not None and v < lo:
                v = lo
            elif hi is not None and v > hi:
                v = hi
            s.counters[slot] = v
            note_slot(s, slot)

        return set_counter

    def move(self, st: A.Move) -> StmtFn:
        dz = self.zone_index(st.dest)
        place = st.place
        noted = self.notes  # the noted moves in the variant checked games run (runtime/moves.py)
        zone_move = move_zone_noted if noted else move_zone
        card_move = move_card_noted if noted else move_card
        many_move = move_all_noted if noted else move_all
        wt = st.what.ty
        if wt is not None and wt.kind == "zone":
            sz = self.zone_index(st.what)

            def move_every_card(s: GameState, env: dict[str, Any]) -> None:
                zone_move(s, sz(s, env), dz(s, env), place)

            return move_every_card
        wf = self.expr(st.what)
        if wt is not None and wt.kind == "card":

            def move_one(s: GameState, env: dict[str, Any]) -> None:
                c = wf(s, env)
                if c is None:
                    raise RuleError(f"nothing to move at line {st.span.line}")
                card_move(s, c, dz(s, env), place)

            return move_one

        def move_many(s: GameState, env: dict[str, Any]) -> None:
            many_move(s, tuple(wf(s, env)), dz(s, env), place)

        return move_many

    def transfer(self, st: A.Transfer) -> StmtFn:
        src = self.counter_slot(st.source)
        dst = self.counter_slot(st.dest)
        amount = self.expr(st.amount) if st.amount is not None else None
        bind = st.bind

        def transfer(s: GameState, env: dict[str, Any]) -> None:
            c = s.counters
            a = src(s, env)
            b = dst(s, env)
            have = c[a]
            n = have if amount is None else amount(s, env)
            if n > have:
                n = have
            if n < 0:
                n = 0
            c[a] = have - n
            c[b] += n
            w = s.wrote
            if w is not None:
                w.append(a)
                w.append(b)
            if bind is not None:
                env[bind] = n

        return transfer

    def _proc_args(self, args: list[A.Expr], params: tuple[str, ...]) -> Callable[[GameState, dict[str, Any]],
                                                                                  dict[str, Any]]:
        return arguments(params, [self.expr(a) for a in args])

    def do_pure(self, st: A.Do) -> StmtFn:
        call = st.call
        assert isinstance(call, A.Call)
        ref = A.ref_of(call)
        if ref[0] == "call_proc":
            target = self.procs[ref[1].name]
            make_env = self._proc_args(call.args, target.params)
            limit, at = self.work_limit, f"calling `{ref[1].name}` at line {st.span.line}"
            count = budgets.call_counter(self.recursive, f"proc:{ref[1].name}")
            if count is budgets.charge:
                over = budget.over_work

                def do_counted(s: GameState, env: dict[str, Any]) -> None:
                    # budgets.charge written in: a recursive proc's every call is counted, and the call of
                    # charge was a tenth of a closures-mode call (tests/test_attack_budgets.py)
                    assert target.pure is not None
                    s.work += 1
                    if s.work > limit:
                        over(s, limit, at)
                    target.pure(s, make_env(s, env))

                return do_counted

            def do_proc(s: GameState, env: dict[str, Any]) -> None:
                assert target.pure is not None
                target.pure(s, make_env(s, env))

            return do_proc
        resolve = self._effect_target(call)
        limit, at = self.work_limit, f"at line {st.span.line}"
        assert isinstance(call.func, A.Attr)
        count = budgets.call_counter(self.recursive, f"field:{call.func.name}")

        def do_effect(s: GameState, env: dict[str, Any]) -> None:
            found = resolve(s, env)
            if found is not None:
                count(s, 1, limit, at)
                eff, env2 = found
                if eff.pure is None:  # pragma: no cover - suspension analysis prevents this
                    raise RuleError(f"{eff.name} asks for a decision where none can be made")
                eff.pure(s, env2)

        return do_effect

    def _effect_target(
        self, call: A.Call
    ) -> Callable[[GameState, dict[str, Any]], tuple[Callable_, dict[str, Any]] | None]:
        """For `do c.field(args)`: the card's compiled effect and its environment (None: no effect)."""
        assert isinstance(call.func, A.Attr)
        of = self.expr(call.func.obj)
        fname = call.func.name
        table = self.effects[fname]
        card_def = self.card_def
        params = self._field_params(fname)
        if params is None:  # kinds declare `fname` with different parameters: bind by the callee's own
            fs = [self.expr(a) for a in call.args]

            def resolve_mixed(s: GameState, env: dict[str, Any]) -> tuple[Callable_, dict[str, Any]] | None:
                c = of(s, env)
                if c is None:
                    raise RuleError(f"`{fname}` of no card")
                eff = table[card_def[c]]
                if eff is None:
                    return None
                env2 = {p: f(s, env) for p, f in zip(eff.params, fs, strict=True)}
                env2["self"] = c
                return eff, env2

            return resolve_mixed
        make_env = self._proc_args(call.args, params)

        def resolve(s: GameState, env: dict[str, Any]) -> tuple[Callable_, dict[str, Any]] | None:
            c = of(s, env)
            if c is None:
                raise RuleError(f"`{fname}` of no card")
            eff = table[card_def[c]]
            if eff is None:
                return None
            env2 = make_env(s, env)
            env2["self"] = c
            return eff, env2

        return resolve

    def fire_pure(self, st: A.Fire) -> StmtFn:
        targets = self.handlers.get(st.window, [])
        window = self.prog.windows[st.window]
        params = tuple(p.name for p in window.params)
        make_env = self._proc_args(st.args, params)
        name = st.window
        limit, at = self.work_limit, f"firing `{name}` at line {st.span.line}"
        count = budgets.call_counter(self.recursive, f"window:{name}")

        def fire(s: GameState, env: dict[str, Any]) -> None:
            count(s, 1, limit, at)
            if len(s.fire_stack) >= MAX_FIRE_DEPTH:
                raise RuleError(f"trigger chain deeper than {MAX_FIRE_DEPTH} windows: " + " -> ".join(
                    _fire_chain(s.frames, s.fire_stack, name)))
            s.fire_stack.append(name)
            try:
                args = make_env(s, env)
                for h in targets:
                    if h.pure is not None:
                        h.pure(s, {h.params[i]: args[p] for i, p in enumerate(params)})
            finally:
                s.fire_stack.pop()

        return fire

    def log_format(self, st: A.Log) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
        """Register the text of a `log` statement: its format id, card-valued and zone-valued argument positions.

        Format ids are part of every log entry (and so of the digest): both compilers register them in
        statement order through this one function.
        """
        fmt_id = len(self.log_formats)
        card_args = tuple(i for i, a in enumerate(st.args) if a.ty is not None and (
            a.ty.kind == "card" or nests_cards(a.ty)))  # a list of lists of cards holds cards too
        # a zone argument is logged as a snapshot of its cards
        zone_args = tuple(i for i, a in enumerate(st.args) if a.ty is not None and a.ty.kind == "zone")
        names = value_labels(self.prog)  # an enum value reads as words (`clermont_ferrand` → "Clermont-Ferrand")
        fmts = [formatter_for(a.ty, names) for a in st.args]
        for i in zone_args:
            fmts[i] = formatter_for(Ty("list", elem=Ty("card")))
        self.log_formats.append(LogFormat(st.text, tuple(fmts), card_args + zone_args))
        return fmt_id, card_args, zone_args

    def log(self, st: A.Log) -> StmtFn:
        fmt_id, card_args, zone_args = self.log_format(st)
        args = tuple(self.expr(a) for a in st.args)
        to = self.expr(st.to) if st.to is not None else None

        def log(s: GameState, env: dict[str, Any]) -> None:
            values = [f(s, env) for f in args]
            for i in zone_args:
                values[i] = tuple(s.zones[values[i]])
            everyone = (2 << s.tables.n) - 1  # every player, plus bit n: the spectator
            mask = everyone if to is None else players_mask(to(s, env))
            full = mask
            for i in card_args + zone_args:
                for c in card_ids(values[i]):
                    full &= card_visibility(s, c)
            s.log.append((mask, full, fmt_id, tuple(values)))

        return log

# ------------------------------------------------------------ dispatch table (tests/test_compiler_tables.py)

# the reference closure of each statement class that can run without a decision (`choose` and `simultaneously`
# always suspend: only the step machine compiles them, see machine.CONTROL_HANDLERS)
STMT_HANDLERS: dict[type[A.Stmt], Callable[[StatementCompiler, Any], StmtFn]] = {
    A.Let: StatementCompiler._let,
    A.Assign: StatementCompiler.assign,
    A.Move: StatementCompiler.move,
    A.Shuffle: StatementCompiler._shuffle,
    A.Reveal: StatementCompiler._reveal,
    A.Transfer: StatementCompiler.transfer,
    A.If: StatementCompiler._if,
    A.For: StatementCompiler._for,
    A.RepeatWhile: StatementCompiler._repeat_while,
    A.Break: StatementCompiler._break,
    A.Do: StatementCompiler.do_pure,
    A.Fire: StatementCompiler.fire_pure,
    A.EndGame: StatementCompiler._end_game,
    A.SkipTo: StatementCompiler._skip_to,
    A.Log: StatementCompiler.log,
    A.ModeSwitch: StatementCompiler._mode_switch,
    A.GraphLink: StatementCompiler._graph_link,
}
