"""Statement blocks compiled to Python source, once per ruleset: one function per run of pure statements.

The closure compiler runs ``let``, ``if``, ``for``, assignments and ``log`` as one
closure per statement, joined by block closures; every statement costs a few
Python calls before it does any work.  A run of statements that can never stop
for a decision (a pure procedure, a handler, a card effect, ``finish``, or a
run between two decisions in the step machine) is written here instead as the
body of one Python function: ``if``/``for``/``repeat while`` become Python
control flow, counter assignments clamp inline, moves and transfers are
list operations, and ``log`` computes its visibility masks in place.

The generated code does exactly what the closures do, in the same order
(operands are evaluated in the closures' order, error messages are the same
strings), so a game's log and digest never depend on which path ran.
``tests/test_codegen.py`` plays every shipped ruleset and docs example both
ways and compares digests.

Safety, as in :mod:`.codegen`: the text is built only from this module's
templates, integer slot numbers computed by the compiler, and literals written
with ``repr``.  Tables, closures and compiled procedures are passed in the
namespace under generated names.  No ruleset text is ever executed.  A
statement this module does not know is compiled by the closure compiler and
called from the generated code, so new statements work without changes here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from liturgy.dsl.diagnostics import Span
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import (
    budgetgen,
    clampgen,
    drains,
    gridgen,
    inline_aggregates,
    kept,
    lazypure,
    letgen,
    loggen,
    loopvars,
    movegen,
    procinline,
    promote,
    seatgate,
    unroll,
)
from liturgy.interpreter.codegen.locals import Locals, _scan, hoist_counters
from liturgy.interpreter.codegen.slots import proven, tested, tested_in
from liturgy.interpreter.codegen.source import Refused
from liturgy.interpreter.codegen.spill import bound_in, spill
from liturgy.interpreter.compiler import budgets
from liturgy.interpreter.compiler.sizes import statements
from liturgy.interpreter.runtime import rng
from liturgy.interpreter.runtime.errors import BreakLoop, GameOver, RuleError, SkipTo
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
    unmark,
)
from liturgy.interpreter.runtime.state import noted_source

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen
    from liturgy.interpreter.compiler.code import Ins, StmtFn
    from liturgy.interpreter.compiler.compiler import Compiler

# An assignment to a rule variable in ``env`` at the start of a line, and any other use of ``env``.
_ENV_WRITE = re.compile(r"^(\s*)env\['[A-Za-z_][A-Za-z0-9_]*'\] = ", re.MULTILINE)
_ENV = re.compile(r"\benv\b")

# Python refuses more than 20 statically nested blocks; deeper rule blocks become separate functions.
_MAX_DEPTH = 12



class StmtGen:
    """Writes one Python function for a block of pure statements."""

    def __init__(self, comp: Compiler, gen: ExprGen) -> None:
        from liturgy.interpreter.compiler.instructions import _fire_chain, _push

        self.comp = comp
        self.gen = gen
        gen.ns.update({
            "_RuleError": RuleError, "_GameOver": GameOver, "_SkipTo": SkipTo, "_BreakLoop": BreakLoop,
            "_card_vis": card_visibility,
            "_card_ids": card_ids, "_players_mask": players_mask, "_reveal_to": reveal_to,
            "_shuffle": rng.shuffle,
            "_fire_chain": _fire_chain, "_push": _push, "_NOTHING": loopvars.NOTHING,
        })
        # the card moves: the noted ones in the variant invariant-checked games run (runtime/moves.py)
        noted = comp.notes
        gen.ns.update({"_move": move_card_noted if noted else move_card,
                       "_move_all": move_all_noted if noted else move_all,
                       "_move_zone": move_zone_noted if noted else move_zone, "_unmark": unmark})
        self.lines: list[str] = []
        self.depth = 0  # indentation level inside the function body
        self.loops = 0  # enclosing generated loops (a `break` outside one raises BreakLoop, as closures do)
        self.locals: Locals | None = None  # the function being written (None: reads go to ``env``)
        self.scalar_slots: set[int] = set()  # the slots of the global counters of one slot written so far
        # what the enclosing statement `if`'s test proves about grid cells, while it holds (codegen/clampgen.py)
        self.cell_facts: dict[Any, clampgen.Bounds] = {}
        # id(instruction) -> (instruction, body text): a generated run's statements, indented one level and
        # without the frame's `env = fr[2]` / `fr[1] += 1`, so the fuser can write them into its functions
        self.run_texts: dict[int, tuple[Ins, str]] = {}
        # id(instruction) -> (instruction, lines, name): a proc's `do`, the lines (indented one level) that bind
        # the callee's environment to the local ``name``, so the fuser can push the frame itself
        self.call_texts: dict[int, tuple[Ins, list[str], str]] = {}
        self.bodies: dict[int, procinline.Body] = {}  # id(positional body) -> its text, for a `do` (procinline.py)
        # lines of proc bodies written in place so far in the step-machine run being written (None: not in a run)
        self.inlined: int | None = None
        self.run_inlined: dict[int, int] = {}  # id(instruction) -> those lines of its run text (fuse.py's limit)

    # ------------------------------------------------------------ entry points
    def block(self, stmts: Sequence[A.Stmt]) -> StmtFn | None:
        """``f(s, env)`` running ``stmts``, or None when Python refuses the generated text."""
        fn: StmtFn | None = self._function(stmts, instruction=False)
        return fn

    def instruction(self, stmts: Sequence[A.Stmt], nonnull: Sequence[str] = ()) -> Ins | None:
        """A step-machine instruction running ``stmts`` in the frame's locals, then moving to the next one;
        ``nonnull`` names variables bound to a value that is not `none` whenever it starts."""
        ins: Ins | None = self._function(stmts, instruction=True, nonnull=nonnull)
        return ins

    def _function(self, stmts: Sequence[A.Stmt], instruction: bool, params: Sequence[str] | None = None,
                  nonnull: Sequence[str] = ()) -> Any:
        comp = self.comp
        saved = self.lines, self.depth, self.loops, self.locals, self.cell_facts, self.inlined
        marks = len(comp.log_formats)
        self.lines, self.depth, self.loops, self.cell_facts = [], 1, 0, {}
        self.inlined = 0 if instruction else None
        self.locals = Locals(self.gen)
        for p in params or ():
            self.locals._name(p)  # every parameter has its Python local, the positional version's parameter
        if params is not None and "self" in params:
            self.locals.state["self"] = (True, True)  # a card effect runs only for a card: `self` is never none
        for var in nonnull:
            self.locals.state[var] = (True, True)
        try:
            with self.gen.fresh(self.locals):
                self.stmts(stmts)
            if instruction:
                self.emit("fr[1] += 1")
                self.emit("return False")
            elif not self.lines:
                self.emit("pass")
            raw = "".join(line + "\n" for line in self.lines)
            loads, body = hoist_counters(*self.locals.finish(raw))
            assert "\x00" not in body, body  # every marker belongs to this function
            name = self.gen._name("_s")
            head = f"def {name}(s, fr):\n    env = fr[2]\n" if instruction else f"def {name}(s, env):\n"
            code = head + "".join(f"    {line}\n" for line in loads) + body
            if instruction and comp.spill_dead and (dead := bound_in(stmts) & comp.spill_dead):  # codegen/spill.py
                end = "    fr[1] += 1\n    return False\n"
                loads, body = [], spill("".join(f"    {line}\n" for line in loads) + body[:-len(end)], dead) + end
                code = head + body
            if params is not None:  # the `env` form compiled on its first call (lazypure.py), the positional now
                return lazypure.both(self, name, code, stmts[0].span if stmts else None, params,
                                     self.locals.finish(raw, params), marks)
            try:
                fn = self.gen.sources.load(self.gen.ns, name, "stmt", code, stmts[0].span if stmts else None)
            except Refused:  # e.g. more than 20 nested loops
                del comp.log_formats[marks:]  # the closure compiler registers these formats again, in order
                return None
            if instruction:
                end = "    fr[1] += 1\n    return False\n"
                assert body.endswith(end)
                self.run_texts[id(fn)] = (fn, "".join(f"    {line}\n" for line in loads) + body[:-len(end)])
                self.run_inlined[id(fn)] = self.inlined or 0
            return fn
        finally:
            self.lines, self.depth, self.loops, self.locals, self.cell_facts, self.inlined = saved

    def block_positional(self, stmts: Sequence[A.Stmt], params: Sequence[str]) -> tuple[StmtFn, Any] | None:
        """A pure proc's or handler's body twice: ``f(s, env)`` (compiled on its first call: lazypure.py), and
        ``f(s, *args)`` by position (None where Python refuses it), from one text (log formats register once)."""
        got: tuple[StmtFn, Any] | None = self._function(stmts, instruction=False, params=params)
        return got

    def _positional(self, params: Sequence[str], resolved: tuple[list[str], str]) -> Any:
        """``f(s, <the parameters' locals>)`` running the body: no dict unless the body uses ``env``."""
        return procinline.positional(self, params, resolved)  # kept there for a `do` to write in place

    # ------------------------------------------------------------ writing
    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def note(self, slots: tuple[str, ...] | tuple[int, ...] = (), zones: tuple[str, ...] = ()) -> None:
        """Note the counter ``slots`` and ``zones`` just written, for the invariant certificate: only in the
        checked variant of the code (``comp.notes``); an unchecked game's code has no line here."""
        if self.comp.notes:
            self.emit(noted_source(tuple(map(str, slots)), zones))

    def charge(self, units: str, at: str) -> None:
        """Count ``units`` of the game's work here (interpreter/runtime/budget.py)."""
        for line in budgetgen.charge(units, self.comp.work_limit, repr(at)):
            self.emit(line)

    def charge_call(self, key: str, at: str) -> None:
        """Count a call of ``key`` (`proc:NAME`, …) as one unit of work, when it can call itself."""
        if key in self.comp.recursive:
            self.charge("1", at)

    def tmp(self, prefix: str = "_v") -> str:
        return self.gen._name(prefix)

    def const(self, value: Any) -> str:
        return self.gen.const(value)

    def src(self, e: A.Expr) -> str:
        return self.gen.src(e)

    def stmts(self, stmts: Sequence[A.Stmt]) -> None:
        if not stmts:
            self.emit("pass")
            return
        saved = self.gen.var_ranges
        try:
            for i, st in enumerate(stmts):
                self.stmt(st)
                if isinstance(st, A.Let):  # the rest of the block knows its value's range, if nothing rebinds it
                    names, invalid = _scan(stmts[i + 1:], self.comp)
                    if not invalid and st.name not in names:
                        is_int = st.value.ty is not None and st.value.ty.kind == "int"
                        self.gen.bind_range(st.name, None, self.gen.int_range(st.value) if is_int else None)
                        inline_aggregates.seats_let(self.gen, st.name, st.value)  # a list of seats, if it is one
        finally:
            self.gen.var_ranges = saved  # a `let` is seen to the end of its block

    def nested(self, stmts: Sequence[A.Stmt]) -> None:
        """An indented body; past the nesting Python allows, a call to a separately generated function."""
        self.depth += 1
        try:
            if self.depth - 1 >= _MAX_DEPTH and not self.loops:
                fn = self.block(stmts)
                target = fn if fn is not None else self.comp.block_closure(stmts)
                self.emit(f"{self.const(target)}(s, env)")
                self.invalidate()
            else:
                self.stmts(stmts)
        finally:
            self.depth -= 1

    def invalidate(self) -> None:
        """A call that may bind names in ``env`` was written: read them from ``env`` again."""
        if self.locals is not None:
            self.locals.invalidate()

    def write(self, var: str, nonnull: bool = False) -> str:
        """Assignment targets writing local variable ``var`` (``env[...] = ``, and its Python local)."""
        if self.locals is None:
            return f"env[{var!r}] = "
        return self.locals.write(var, nonnull)

    def loop(self, delta: int) -> None:
        self.loops += delta
        if self.locals is not None:
            self.locals.loops = self.loops

    def checked(self, src: str) -> None:
        if self.locals is not None:
            self.locals.checked(src)

    def loop_head(self, body: Sequence[A.Stmt], var: str | None) -> tuple[dict[str, tuple[bool, bool]], bool] | None:
        """Before a generated loop: the state valid at the top of every turn (and after the loop)."""
        loc = self.locals
        if loc is None:
            return None
        names, invalid = _scan(body, self.comp)
        if invalid:
            loc.invalidate()
        else:
            loc.steady += 1
        if var is not None:
            names.add(var)
        loc.forget_nonnull(names)
        return dict(loc.state), not invalid

    def loop_end(self, head: tuple[dict[str, tuple[bool, bool]], bool] | None) -> None:
        """After a generated loop: the state at its head (what holds after any number of turns)."""
        loc = self.locals
        if loc is None or head is None:
            return
        state, steady = head
        if steady:
            loc.steady -= 1
        loc.state = state

    def zone(self, e: A.Expr) -> str:
        """Source for the zone index an expression of type zone denotes."""
        z = self.gen._zone(e)
        return z if z is not None else self.src(e)

    # ------------------------------------------------------------ statements
    def stmt(self, st: A.Stmt) -> None:
        """One statement, by the writer :data:`STMT_WRITERS` keeps for its kind. A kind without one is an error,
        not a silent fallback: a kind left to the closure compiler says so in the table (``_closure``)."""
        writer = STMT_WRITERS.get(type(st))
        if writer is None:
            raise AssertionError(f"the statement generator has no writer for {type(st).__name__}: add one to "
                                 "STMT_WRITERS (StmtGen._closure leaves it to the closure compiler)")
        if self.cell_facts and not clampgen.keeps_facts(st):
            self.cell_facts = {}  # it may change a tested cell or a name its coordinates read
        writer(self, st)
        tested(self, st)  # the cards it surely read a field of: not `none` from here on (codegen/slots.py)

    def _let(self, st: A.Let) -> None:
        value = self.inline_loop(st.value)
        self.assign_value(self.write(st.name, self.gen.is_nonnull(value)), value)

    def inline_loop(self, e: A.Expr, truth: bool = False) -> str:
        """Source for ``e``, a statement's whole value: an aggregate's or comprehension's loop written here first
        where it can be (codegen/inline_aggregates.py ``statement_loop``), else the expression as usual."""
        self.loop(1)  # the loop's reads count as a loop's for the locals loaded at the top
        try:
            got = inline_aggregates.statement_loop(self.gen, e, truth)
        finally:
            self.loop(-1)
        if got is None:
            return self.src(e)
        for line in got[0]:
            self.emit(line)
        return got[1]

    def assign_value(self, prefix: str, value: str) -> None:
        """``<prefix><value>`` as statements (a chain of `let`s at the root of ``value``: one line each)."""
        for line in letgen.assign_lines(self.gen, prefix, value):
            self.emit(line)

    def _if(self, st: A.If) -> None:
        loc = self.locals
        ends = []
        for i, (cond, body) in enumerate(st.branches):  # the first test runs first: its loop may come before it
            test = inline_aggregates.first_test(self, cond) if i == 0 else self.gen.cond(cond)
            self.emit(f"{'if' if i == 0 else 'elif'} {test}:")
            if i == 0:  # the first test runs on every path: its cards are not `none` in the branches and after
                tested_in(self, cond, None)
            fall = dict(loc.state) if loc is not None else {}
            self.cell_facts = clampgen.test_facts(cond)
            with self.gen.narrowed(cond if clampgen.names_kept(cond, body, self.comp) else None):
                self.nested(body)  # `on_grid(g, x, y)`: x and y on the grid while the body keeps them
            self.cell_facts = {}
            if loc is not None:
                ends.append(loc.state)
                loc.state = fall
        if st.orelse:
            self.emit("else:")
            self.nested(st.orelse)
        if loc is not None:
            ends.append(loc.state)
            loc.state = Locals.merge(ends)

    def _for(self, st: A.For) -> None:
        if unroll.statement(self, st):  # a few directions: each item's copy of the body, `d` folded
            return
        x = self.tmp("_x")
        seq = inline_aggregates.for_items(self, st.iterable)  # a comprehension's loop written here first
        head = self.loop_head(st.body, st.var)
        zone = st.iterable.ty is not None and st.iterable.ty.kind == "zone"  # a zone holds cards, never `none`
        # a zone can change under the loop, so it is copied; other lists are tuples or card data, never changed
        counting = budgetgen.counted(self.gen, "\x01", st.span, budgets.loop_kind(st.iterable, self.comp.sizes,
                                                                                st.body), "" if zone else seq)
        items = f"tuple({seq})" if zone else seq
        if counting:  # the items in a name first, to count them (compiler/budgets.py)
            held = self.tmp("_i")
            self.emit(f"{held} = {items}")
            for line in counting:
                self.emit(line.replace("\x01", held))
            items = held
        start = len(self.lines)
        self.emit(f"for {x} in {items}:")
        self.loop(1)
        self.depth += 1
        self.emit(f"{self.write(st.var, zone or inline_aggregates.holds_seats(self.gen, st.iterable))}{x}")
        self.depth -= 1
        # over a constant `range`, a variable the body never writes (nor anything it leaves to the closures) stays
        # in the range: cells and arithmetic on it need no tests (compiler/sizes.py); a shadowing body hides it
        written, invalid = _scan(st.body, self.comp)
        known = None if invalid or st.var in written else gridgen.loop_range(self.gen, st.iterable)
        saved = self.gen.var_ranges
        self.gen.bind_range(st.var, None, known)
        try:
            self.nested(st.body)
        finally:
            self.gen.var_ranges = saved
        self.loop(-1)
        self.loop_end(head)
        if self.locals is not None:
            # `env` written once, when the loop ends; a constant range of no step is never empty
            steps = len(getattr(st.iterable, "args", ())) <= 2
            nonempty = steps and gridgen.loop_range(self.gen, st.iterable) is not None
            loopvars.defer(self, start, st.var, x, written, st.body, nonempty)
            promote.promote(self, start, st.body)  # a global counter the loop updates: a local meanwhile

    def _repeat(self, st: A.RepeatWhile) -> None:
        if drains.drain(self, st):  # dealing from the top of one zone to another: one bulk move
            return
        r = self.tmp("_r")
        message = f"`repeat while` at line {st.span.line} ran 100000 times without ending"
        self.emit(f"{r} = 0")
        head = self.loop_head(st.body, None)
        self.emit(f"while {self.gen.cond(st.cond)}:")
        self.loop(1)
        self.nested(st.body)
        self.loop(-1)
        self.loop_end(head)
        self.depth += 1
        self.emit(f"{r} += 1")
        self.emit(f"if {r} > 100000:")
        self.emit(f"    raise _RuleError({message!r})")
        self.depth -= 1
        self.charge(r, f"at line {st.span.line}")  # the passes, once the loop ends (the bound above holds)

    def _break(self, st: A.Break) -> None:
        self.emit("break" if self.loops else "raise _BreakLoop")

    def _shuffle(self, st: A.Shuffle) -> None:
        if not self.comp.notes:
            self.emit(f"s.rng = _shuffle(s.zones[{self.zone(st.zone)}], s.rng)")
            return
        z = self.tmp("_z")
        self.emit(f"{z} = {self.zone(st.zone)}")
        self.emit(f"s.rng = _shuffle(s.zones[{z}], s.rng)")
        self.note(zones=(z,))

    def _reveal_all(self, st: A.Reveal) -> None:
        if st.target.ty is not None and st.target.ty.kind == "zone":
            self.emit(f"s.face_up.update(s.zones[{self.zone(st.target)}])")
        else:
            c = self.tmp("_c")
            self.emit(f"if ({c} := {self.src(st.target)}) is not None:")
            self.emit(f"    s.face_up.add({c})")

    def _end(self, st: A.EndGame) -> None:
        self.emit("raise _GameOver")

    def _skip(self, st: A.SkipTo) -> None:
        self.emit(f"raise _SkipTo({self.const(self.comp.step_pcs)}[{st.step!r}])")

    def _reveal(self, st: A.Reveal) -> None:
        if st.to is not None:
            self.reveal_to(st)
        else:
            self._reveal_all(st)

    def _closure(self, st: A.Stmt) -> None:
        """The closure compiler's function for ``st``, called from the generated code (its writes are in
        ``env``, so the Python locals are read from ``env`` again afterwards)."""
        self.emit(f"{self.const(self.comp.stmt(st))}(s, env)")
        self.invalidate()

    def _suspending(self, st: A.Stmt) -> None:
        raise AssertionError(f"{type(st).__name__} always asks for a decision: the step machine compiles it")

    def assign(self, st: A.Assign) -> None:
        tgt = st.target
        if tgt.ref is not None and tgt.ref[0] == "local":
            var = tgt.ref[1]
            if st.op == "=":
                value = self.inline_loop(st.value)
                self.assign_value(self.write(var, self.gen.is_nonnull(value)), value)
            else:  # the value's loop first: it cannot write the variable, whose read cannot fail
                value = self.inline_loop(st.value)
                old = self.gen.read_env(var)
                self.emit(f"{self.write(var)}{old} {'+' if st.op == '+=' else '-'} ({value})")
            return
        slot = self.slot(tgt)
        if isinstance(tgt, A.Name) and tgt.ref is not None and tgt.ref[0] == "counter" and slot.isdigit():
            self.scalar_slots.add(int(slot))  # a global counter of one slot: promote.py may keep it in a local
        if not slot.isdigit():  # the closures compute the slot before the value; so do we
            i = self.tmp("_i")
            self.emit(f"{i} = {slot}")
            slot = i
        decl = self.comp._counter_decl(tgt)
        value = self.src(st.value)
        if decl.is_flag:
            if isinstance(st.value, A.BoolLit):
                self.emit(f"s.counters[{slot}] = {int(st.value.value)}")
            else:
                self.emit(f"s.counters[{slot}] = 1 if {value} else 0")
            self.note((slot,))
            return
        lo, hi = decl.lo, decl.hi
        if st.op == "=" and lo is None and hi is None:
            grid = kept.grid_name(tgt)
            if grid is not None and kept.recorded(self.gen, grid):  # a shrinking choice's filter reads the fills
                v = self.tmp()
                self.assign_value(f"{v} = ", value)
                self.emit(kept.fill_note(slot, grid))
                value = v
            self.emit(f"s.counters[{slot}] = {value}")
            self.note((slot,))
            return
        if st.op == "=" and isinstance(st.value, A.IntLit) and not isinstance(st.value.value, bool):
            k = st.value.value  # a constant clamped once, here
            k = k if lo is None or k >= lo else lo
            k = k if hi is None or k <= hi else hi
            self.emit(f"s.counters[{slot}] = {k!r}")
            self.note((slot,))
            return
        v = self.tmp()
        if st.op != "=" and (isinstance(st.value, A.IntLit) or value not in self.gen.let_forms):
            # the value cannot write counters (only statements do), so reading the old value first is the same
            self.emit(f"{v} = s.counters[{slot}] {'+' if st.op == '+=' else '-'} ({value})")
        else:
            self.assign_value(f"{v} = ", value)
            if st.op != "=":
                self.emit(f"{v} = s.counters[{slot}] {'+' if st.op == '+=' else '-'} {v}")
        low, high = clampgen.clamp_tests(decl, st.op, clampgen.value_bounds(self.gen, st.value, self.cell_facts))
        if low:
            self.emit(f"if {v} < {lo!r}:")
            self.emit(f"    {v} = {lo!r}")
        if high:
            self.emit(f"{'elif' if low else 'if'} {v} > {hi!r}:")
            self.emit(f"    {v} = {hi!r}")
        self.emit(f"s.counters[{slot}] = {v}")
        self.note((slot,))

    def slot(self, e: A.Expr) -> str:
        return self.gen.slot(e)

    def move(self, st: A.Move) -> None:
        movegen.move(self, st)

    def reveal_to(self, st: A.Reveal) -> None:
        """`reveal … to PLAYERS`: runtime/moves.py's `reveal_to`, as the closures call it."""
        to = f"_players_mask({self.src(st.to)})" if st.to is not None else "0"
        if st.target.ty is not None and st.target.ty.kind == "zone":
            self.emit(f"_reveal_to(s, s.zones[{self.zone(st.target)}], {to})")
        else:
            c = self.tmp("_c")
            self.emit(f"if ({c} := {self.src(st.target)}) is not None:")
            self.emit(f"    _reveal_to(s, ({c},), {to})")

    def transfer(self, st: A.Transfer) -> None:
        a, b, have, n = self.tmp("_i"), self.tmp("_i"), self.tmp("_h"), self.tmp("_n")
        self.emit(f"{a} = {self.slot(st.source)}")
        self.emit(f"{b} = {self.slot(st.dest)}")
        self.emit(f"{have} = s.counters[{a}]")
        self.emit(f"{n} = {have if st.amount is None else self.src(st.amount)}")
        if st.amount is not None:  # `all` is exactly what the source holds
            self.emit(f"if {n} > {have}:")
            self.emit(f"    {n} = {have}")
        self.emit(f"if {n} < 0:")
        self.emit(f"    {n} = 0")
        self.emit(f"s.counters[{a}] = {have} - {n}")
        self.emit(f"s.counters[{b}] += {n}")
        self.note((a, b))
        if st.bind is not None:
            self.emit(f"{self.write(st.bind)}{n}")

    def args_dict(self, params: Sequence[str], args: Sequence[A.Expr], card: str | None = None) -> str:
        """A dict display binding parameters to arguments, evaluated left to right like the closures' dict
        (then ``'self'``: ``card``, as the closures set it after the arguments)."""
        items = [f"{p!r}: {self.src(a)}" for p, a in zip(params, args, strict=True)]
        if card is not None:
            items.append(f"'self': {card}")
        return "{" + ", ".join(items) + "}"

    def do(self, st: A.Do) -> None:
        call = st.call
        assert isinstance(call, A.Call)
        ref = A.ref_of(call)
        comp = self.comp
        if ref[0] == "call_proc":
            target = comp.procs[ref[1].name]
            self.charge_call(f"proc:{ref[1].name}", f"calling `{ref[1].name}` at line {st.span.line}")
            if target.code is None and target.fast is not None:  # compiled already: its positional body
                if not procinline.write(self, target, ref[1].name, call.args):  # its text in place, or a call
                    self.emit(f"{self.const(target.fast)}({', '.join(['s', *(self.src(a) for a in call.args)])})")
                return
            self.emit(f"{self.const(target)}.pure(s, {self.args_dict(target.params, call.args)})")
            return
        assert isinstance(call.func, A.Attr)
        fname = call.func.name
        params = comp._field_params(fname)
        if params is None:  # card kinds declare `fname` with different parameters: the closure binds by kind
            self.emit(f"{self.const(comp.stmt(st))}(s, env)")
            self.invalidate()
            return
        table, card_def = self.const(comp.effects[fname]), self.const(comp.card_def)
        c, eff, env2 = self.tmp("_c"), self.tmp("_f"), self.tmp("_env")
        obj = self.src(call.func.obj)
        if self.gen.is_nonnull(obj) or proven(self.gen, call.func.obj):
            self.emit(f"{c} = {obj}")
        else:
            self.emit(f"if ({c} := {obj}) is None:")
            self.emit(f"    raise _RuleError({f'`{fname}` of no card'!r})")
            self.checked(obj)
        self.emit(f"if ({eff} := {table}[{card_def}[{c}]]) is not None:")
        self.depth += 1
        self.charge_call(f"field:{fname}", f"at line {st.span.line}")
        if comp.direct_calls:  # the card's body by position where it has one (then `pure` is there too)
            fast = self.tmp("_q")
            self.emit(f"if ({fast} := {eff}.fast) is not None:")
            self.emit(f"    {fast}({', '.join(['s', *(self.src(a) for a in call.args), c])})")
            self.emit("else:")
            self.depth += 1
        self.emit(f"{env2} = {self.args_dict(params, call.args, c)}")
        pure = self.tmp("_p")
        self.emit(f"if ({pure} := {eff}.pure) is None:")
        self.emit(f"    raise _RuleError({eff}.name + ' asks for a decision where none can be made')")
        self.emit(f"{pure}(s, {env2})")
        self.depth -= 2 if comp.direct_calls else 1

    def fire_args(self, st: A.Fire) -> list[str]:
        """Evaluate a `fire`'s arguments into temporaries, in order; their names."""
        names = []
        for a in st.args:
            v = self.tmp("_a")
            self.emit(f"{v} = {self.src(a)}")
            names.append(v)
        return names

    def handler_env(self, params: Sequence[str], args: Sequence[str]) -> str:
        # the closures pair a handler's parameters with the window's by position; the checker makes them match
        return "{" + ", ".join(f"{p!r}: {a}" for p, a in zip(params, args, strict=False)) + "}"

    def fire(self, st: A.Fire) -> None:
        """A pure `fire`: every handler in declaration order, inside the fire stack's depth check."""
        from liturgy.interpreter.compiler.code import MAX_FIRE_DEPTH

        name = repr(st.window)
        self.charge_call(f"window:{st.window}", f"firing `{st.window}` at line {st.span.line}")
        deep = f"trigger chain deeper than {MAX_FIRE_DEPTH} windows: "
        self.emit(f"if len(s.fire_stack) >= {MAX_FIRE_DEPTH}:")
        self.emit(f"    raise _RuleError({deep!r} + ' -> '.join(_fire_chain(s.frames, s.fire_stack, {name})))")
        # the stack is read only by a `fire` nested inside these handlers (its depth and the chain it names): when
        # none can fire again (no `fire`, no `do` in their bodies), pushing this window would never be seen
        leaf = all(not isinstance(x, A.Fire | A.Do) for h in self.comp.prog.handlers.get(st.window, [])
                   for x in statements(h.body))
        if leaf:
            self.fire_calls(st, self.fire_args(st))
            return
        self.emit(f"s.fire_stack.append({name})")
        self.emit("try:")
        self.depth += 1
        self.fire_calls(st, self.fire_args(st))
        self.emit("pass")
        self.depth -= 1
        self.emit("finally:")
        self.emit("    s.fire_stack.pop()")

    def fire_calls(self, st: A.Fire, args: list[str]) -> None:
        """Call every handler of the window, in declaration order, with the arguments held in ``args``."""
        for h in self.comp.handlers.get(st.window, []):
            if h.code is None and h.fast is not None and len(h.params) == len(args):
                self.emit(f"{self.const(h.fast)}({', '.join(['s', *args])})")  # compiled already: by position
                continue
            k = self.const(h)
            pure = self.tmp("_p")
            self.emit(f"if ({pure} := {k}.pure) is not None:")
            self.emit(f"    {pure}(s, {self.handler_env(h.params, args)})")

    # ------------------------------------------------------------ step-machine instructions
    def _instruction(self, body: Any, origin: Span | None = None) -> Ins:
        """Compile ``def _sN(s, fr): env = fr[2]; <body()>``; ``body`` writes the rest, ``return`` included."""
        saved = self.lines, self.depth, self.loops, self.locals, self.cell_facts
        self.lines, self.depth, self.loops, self.locals, self.cell_facts = [], 1, 0, None, {}
        try:
            self.emit("env = fr[2]")
            with self.gen.fresh(None):
                body()
            name = self.gen._name("_s")
            code = f"def {name}(s, fr):\n" + "\n".join(self.lines) + "\n"
            ins: Ins = self.gen.sources.load(self.gen.ns, name, "stmt", code, origin)
            return ins
        finally:
            self.lines, self.depth, self.loops, self.locals, self.cell_facts = saved

    def branch(self, cond: A.Expr, then_pc: int, else_pc: int) -> Ins:
        """Jump to ``then_pc`` when ``cond`` holds, else to ``else_pc`` (the step machine's `if`/`repeat while`)."""
        src: list[str] = []

        def body() -> None:
            src.append(self.gen.cond(cond))
            self.emit(f"fr[1] = {then_pc} if {src[0]} else {else_pc}")
            self.emit("return False")
        return self.comp.note(self._instruction(body, cond.span), "branch", src[0], then_pc, else_pc)

    def for_init(self, iterable: A.Expr, key: str) -> Ins:
        """Start a step-machine `for`: a snapshot of the items and the next position, kept in the frame's locals."""
        return seatgate.for_init(self, iterable, key)  # the items' loop written there where it can be

    def for_next(self, key: str, names: tuple[str, ...], end: int) -> Ins:
        """Bind the next item (a (player, choice) pair for `simultaneously`) or leave the loop for ``end``."""
        def body() -> None:
            self.emit(f"items, i = env[{key!r}]")
            self.emit("if i >= len(items):")
            self.emit(f"    del env[{key!r}]")
            self.emit(f"    fr[1] = {end}")
            self.emit("    return False")
            if len(names) == 1:
                self.emit(f"env[{names[0]!r}] = items[i]")
            else:  # the closures' zip(strict=True): a pair of the wrong length is an error either way
                self.emit(f"{', '.join(f'env[{n!r}]' for n in names)}, = items[i]")
            self.emit(f"env[{key!r}] = (items, i + 1)")
            self.emit("fr[1] += 1")
            self.emit("return False")
        return self.comp.note(self._instruction(body), "for_next", key, names, end)

    def invoke(self, target: str, env2: str) -> None:
        """Run a proc, handler or effect held in ``target``: push its code, or call its pure function."""
        self.emit(f"if {target}.code is not None:")
        self.emit(f"    _push(s, {target}.code, {env2})")
        self.emit("else:")
        self.emit(f"    {target}.pure(s, {env2})")

    def do_instruction(self, st: A.Do) -> Ins | None:
        """`do` of a proc or card effect that may ask for a decision (None: left to the closure compiler)."""
        call = st.call
        assert isinstance(call, A.Call)
        comp = self.comp
        by_field = A.ref_of(call)[0] != "call_proc" and isinstance(call.func, A.Attr)
        if by_field and isinstance(call.func, A.Attr) and comp._field_params(call.func.name) is None:
            return None  # card kinds declare the effect with different parameters: the closure binds by kind

        pushed: list[tuple[list[str], str]] = []

        def body() -> None:
            ref = A.ref_of(call)
            env2 = self.tmp("_env")
            if ref[0] == "call_proc":
                target = comp.procs[ref[1].name]
                self.emit(f"{env2} = {self.args_dict(target.params, call.args)}")
                pushed.append((self.lines[1:], env2))  # what builds the callee's environment (after `env = fr[2]`)
                self.emit("fr[1] += 1")
                self.invoke(self.const(target), env2)
                self.emit("return False")
                return
            assert isinstance(call.func, A.Attr)
            fname = call.func.name
            params = comp._field_params(fname)
            assert params is not None
            table, card_def = self.const(comp.effects[fname]), self.const(comp.card_def)
            c, eff = self.tmp("_c"), self.tmp("_f")
            self.emit(f"if ({c} := {self.src(call.func.obj)}) is None:")
            self.emit(f"    raise _RuleError({f'`{fname}` of no card'!r})")
            self.emit(f"if ({eff} := {table}[{card_def}[{c}]]) is None:")
            self.emit("    fr[1] += 1")
            self.emit("    return False")
            self.emit(f"{env2} = {self.args_dict(params, call.args, c)}")
            self.emit("fr[1] += 1")
            self.invoke(eff, env2)
            self.emit("return False")

        ins = self._instruction(body, st.span)
        if pushed:
            self.call_texts[id(ins)] = (ins, pushed[0][0], pushed[0][1])
        return ins

    def fire_instruction(self, st: A.Fire) -> Ins:
        """`fire` of a window whose handlers may ask for decisions: their frames, pushed in reverse."""
        def body() -> None:
            args = self.fire_args(st)
            self.emit("fr[1] += 1")
            for h in reversed(self.comp.handlers.get(st.window, [])):
                env2 = self.tmp("_env")
                self.emit(f"{env2} = {self.handler_env(h.params, args)}")
                self.invoke(self.const(h), env2)
            self.emit("return False")
        return self._instruction(body, st.span)

    def log(self, st: A.Log) -> None:
        loggen.log(self, st)


# The statement generator's writer for every statement kind (tests/test_registry.py checks it covers the
# registry). Spelled out where the generated code does not write a kind itself:
#   ModeSwitch, GraphLink: the closure compiler's function, called from the generated code (StmtGen._closure);
#   Choose, Simultaneous: never here, they always suspend (the step machine and choicegen.py write them).
STMT_WRITERS: dict[type[A.Stmt], Any] = {
    A.Let: StmtGen._let, A.Assign: StmtGen.assign, A.If: StmtGen._if, A.For: StmtGen._for,
    A.RepeatWhile: StmtGen._repeat, A.Break: StmtGen._break, A.Move: StmtGen.move, A.Transfer: StmtGen.transfer,
    A.Shuffle: StmtGen._shuffle, A.Reveal: StmtGen._reveal, A.Log: StmtGen.log, A.Do: StmtGen.do,
    A.EndGame: StmtGen._end, A.SkipTo: StmtGen._skip, A.Fire: StmtGen.fire,
    A.ModeSwitch: StmtGen._closure, A.GraphLink: StmtGen._closure,
    A.Choose: StmtGen._suspending, A.Simultaneous: StmtGen._suspending,
}

