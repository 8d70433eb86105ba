"""Fused step-machine instructions: one generated call runs a whole path of the original ones.

The step machine (:mod:`.engine`) runs one instruction per loop turn: a run of statements, a
branch, a jump, a loop's next step, a call.  Most turns do very little, so the loop and the call
around each cost as much as the work.  Here each place where execution enters a stretch of
instructions gets a *fused* instruction: one Python function that does what the instructions
from there do, one after another, following branches and jumps in Python control flow, until
it meets one that may ask for a decision (`choose`, `simultaneously`: called at the end of the
path, it returns True when it asks), a return to a caller it does not know, a call it does not
run into (`fire`, a card effect's `do`), a path of ``MAX_PATH`` instructions, or an instruction
it already passed ``MAX_TURNS`` times on this path (a loop's later turns start a new call).

Loop turns (session 18): a jump back to the function's own head in its own frame (a loop that
starts where the function does: a `for`'s next step entered after a call or a choice, an outer
loop coming back to an inner `for`) runs the next turn in the same call, a ``while True`` around
the body, while the turns stay within ``MAX_CALL`` instructions. A `for` loop's (items, next
index) pair, which the step machine keeps in the frame (``env['#n']``), is held in the function's
Python locals across its turns, and written to the frame only where something can see it: where
the function returns to the engine, before a call or a choice, and, on an error, by the handler.
Session 19: so are the loop's variables (codegen/locals.py ``HeldVars``), and the texts written
in read and write their locals; and the pc and count a raise would need are one local, ``_Fq``.

Calls (session 17): a proc's `do` pushes the callee's frame and the function goes on in it,
through the callee's instructions (in its frame, with its environment); the callee's `return`
pops it and the function goes on in the caller after the call. When the callee asks for a
decision the path ends there, and the frame the `do` pushed holds the *call site's copy* of the
callee's Code: the same id, name and instructions (saves store the id; the single-stepping
engine reads the instructions), with fused functions of its own whose `return` runs on into this
caller. So after a decision the callee's body, the return and the caller's next turn up to the
next decision are one call: Kuhn poker's `do act(p)` in a loop costs one generated call a
decision (it was three: the callee's body, the caller's continuation, the `choose`).

Nothing a game can observe changes:

* **Step counts.** A fused call returns how many original instructions it ran, minus one (an
  ``int``, never ``True``, which still means "suspended"), and the engine adds that to the count.
  If one raises (a rule error, `end game`, `skip to`), it first adds the instructions completed
  before it to ``s.steps``, so the count is what single-stepping gives. A function that turns keeps
  its completed turns' instructions in ``_Fn`` and adds them to both. An `end game` in a statement
  run written into the function returns ``GAME_ENDED`` instead of raising (session 18), after adding
  the same count: the engine scores the game as if it had caught the raise, and scoring clears the
  frames first, so the loop pairs and variables held in locals are not written back (session 20).
* **The step limit.** A fused call runs at most ``MAX_PATH`` instructions on one path, and at most
  ``MAX_CALL`` with its turns (a turn is taken only while a longest next one still fits): that is
  the engine's margin, since paths are walked on their first call. The engine only runs the fused
  array while that many steps cannot pass the limit; near it, it single-steps the original
  instructions, so the limit error comes at the same step, at the same place.
* **The frame's environment.** A loop pair or variable held in locals is in the frame (a pair's
  copy deleted, at the loop's end) at every return, call, choice and error, and before a function
  handed ``env`` reads it, so saves, clones, views and errors see the step machine's frame; the
  locals are unbound when the frame changes (a call run into, a return), so the error handler,
  which writes back every bound one, writes each into its own frame.
* **Program counters.** The fused code writes the frame's pc whenever an original instruction
  would be seen with it: before anything that reads it (a call, a choice) and on leaving; before
  this function's own text that may raise, ``_Fq`` names the pc and count and the handler writes
  them. Every exit is an original instruction's pc, never inside one, and no fused call spans a
  decision, so saved games (which store frames' pcs) and error positions are the same.
* **Frames.** A call run into pushes and pops exactly the frames the `do` and the `return` do,
  with the same environments; the only difference is the Code object in a frame (a call site's
  copy), which nothing that saves, clones, digests or reports reads beyond its id and name.
  A suspended `choose` inside a callee leaves that frame on top, as single-stepping does (the
  engine's in-loop pick binds the top frame).

The original arrays (``Code.ins``) are kept unchanged; ``Code.fast`` is a copy with a stand-in at
every entry point, which walks the path on its first call, then compiles it (a game reaches only
some entries, and a large ruleset has thousands: walking them all as it loads cost Slay the Spire
more than its games' first calls do); session 24: the walk is kept between processes as its compiled code is
(:mod:`.tracecache`: a process's first games build what another walked), and what a walk names is named after its
entry, not by the compile's counter, so the text is the same in every process. Safety, as in :mod:`.stmtgen`: the
text is built from this module's templates, integer pcs, the condition and sequence sources :mod:`.codegen` wrote
for the original instructions, and the statement runs' text :mod:`.stmtgen` wrote; the original instructions are
passed by name.

This module is the fuser's ruleset-wide part: the stand-ins at the entries, the call sites' copies of callees,
and compiling the text. One function's text is written by :mod:`.fusewalk` (the walk, kind by kind) on the
bookkeeping of :mod:`.fusebook` (lines, error positions, loop pairs in locals), within :mod:`.fuselimits`.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from liturgy.interpreter.codegen import codecache
from liturgy.interpreter.codegen.fuselimits import FUSED, MAX_CALL, MAX_CALLEE, MAX_RUN_LINES
from liturgy.interpreter.codegen.fusewalk import Trace
from liturgy.interpreter.codegen.locals import Effects
from liturgy.interpreter.codegen.source import Refused
from liturgy.interpreter.codegen.tracecache import Traces
from liturgy.interpreter.compiler.code import Code

if TYPE_CHECKING:
    from liturgy.interpreter.compiler.code import Ins
    from liturgy.interpreter.compiler.compiler import Compiler


class Fuser:
    """Fuses the instructions of every compiled code block of one ruleset."""

    def __init__(self, comp: Compiler) -> None:
        from liturgy.interpreter.compiler.instructions import _ret

        assert comp.gen is not None
        self.comp = comp
        self.ns = comp.gen.ns
        self._ret = _ret
        # a call site's copy of a callee's Code: id(copy) -> (the caller's Code, where it goes on); and the
        # ruleset's Code each copy stands for. Copies by (callee, caller, return pc): finitely many.
        self.sites: dict[int, tuple[Code, int]] = {}
        self.base: dict[int, Code] = {}
        self.copies: dict[tuple[int, int, int], Code] = {}
        self.done: set[tuple[int, int]] = set()
        self.asking: dict[int, bool] = {}  # id(Code) -> worth a copy per call site (:meth:`asks`)
        # what the generated functions a text calls with ``env`` read and write there (codegen/locals.py)
        sources = comp.gen.sources
        self.effects = Effects(self.ns, lambda: {g.filename: g.text for g in sources.items})
        # the compile's stored bundle: a trace compiled later, while a game runs, goes to its late bundle
        self.bundle = codecache.stored_bundle()
        # the names the walks give what they name, and their records kept between processes (codegen/tracecache.py)
        self.traces = Traces(self, self.bundle, codecache.trail())
        # one trace at a time: a walk names what it makes after its entry (Traces), and the web server restores a saved
        # game in a thread (web/tables.py) while its event loop plays games of the same ruleset
        self.lock = threading.RLock()

    def build(self, name: str, text: str, code: Code, head: int, inlined: bool, digest: str | None = None) -> Ins:
        """Compile a fused function's text (``digest``: its SHA-256, kept with a replayed walk); if Python refuses
        it, the same trace calling its statement runs."""
        try:
            with codecache.late(self.bundle):  # the traces' bytecode kept between processes too
                gen = self.comp.gen
                fn: Ins = gen.sources.load(self.ns, name, "fused", text, None, digest)  # type: ignore[union-attr]
        except Refused:  # runs' nested blocks past Python's limit of 20
            if not inlined:
                raise
            made = Trace(self, code, head, inline=False).source(turns=False)
            assert made is not None  # the same walk, with calls in place of the runs' text (and no loop)
            return self.build(made[0], made[1], code, head, False)
        return fn

    def info(self, fn: Ins) -> tuple[Any, ...] | None:
        if fn is self._ret:
            return (fn, "ret")
        got = self.comp.ins_info.get(id(fn))
        return got if got is not None and got[0] is fn else None

    def const(self, value: Any) -> str:
        return self.traces.const(value)

    def name(self) -> str:
        """The name of a fused function (its text defines it)."""
        return self.traces.name()

    def run_text(self, fn: Ins) -> list[str] | None:
        """The lines of generated statement run ``fn`` at one indentation level, or None to call it instead."""
        sgen = self.comp.sgen
        got = sgen.run_texts.get(id(fn)) if sgen is not None else None
        if got is None or got[0] is not fn or sgen is None:
            return None
        lines = got[1].rstrip("\n").split("\n")
        leaves = any(line.lstrip().startswith(("return", "yield")) for line in lines)
        if len(lines) - self.spliced(fn) > MAX_RUN_LINES or leaves:  # a proc body written in: its call's line
            return None
        return lines

    def spliced(self, fn: Ins) -> int:
        """The lines of proc bodies written into run ``fn``'s text in place of their calls (codegen/procinline.py),
        less the calls' own lines: the fuser's line limits (a run's, a function's) count each as the call it stands
        for, so a run is written into a fused function where it was before. Each such body is at most
        ``procinline.MAX_LINES`` lines, and its locals are the same names wherever it is written."""
        sgen = self.comp.sgen
        return sgen.run_inlined.get(id(fn), 0) if sgen is not None else 0

    def choice_text(self, fn: Ins) -> list[str] | None:
        """The lines of a generated `choose` or `simultaneously` (None: call it). Every path through them ends in
        ``return True`` (asked), ``return False`` (no option: the pc moved on) or a raise."""
        cgen = self.comp.cgen
        got = cgen.texts.get(id(fn)) if cgen is not None else None
        if got is None or got[0] is not fn or len(got[1]) > MAX_RUN_LINES:
            return None
        return got[1]

    def call_text(self, fn: Ins) -> tuple[list[str], str] | None:
        """The lines of a proc's generated `do` that bind the callee's environment, and its name (None: call it)."""
        sgen = self.comp.sgen
        got = sgen.call_texts.get(id(fn)) if sgen is not None else None
        if got is None or got[0] is not fn or len(got[1]) > MAX_RUN_LINES:
            return None
        return got[1], got[2]

    def asks(self, callee: Code) -> bool:
        """Is ``callee`` worth a copy per call site: at most ``MAX_CALLEE`` instructions, one of them a `choose`
        or `simultaneously` of its own (where the decision's body can then return into the caller in one call;
        a callee that only calls others that ask is called as before)."""
        got = self.asking.get(id(callee))
        if got is None:
            got = self.asking[id(callee)] = len(callee.ins) <= MAX_CALLEE and any(
                (info := self.info(fn)) is not None and info[1] == "stop" for fn in callee.ins)
        return got

    def call_site(self, callee: Code, caller: Code, ret: int) -> Code:
        """The copy of ``callee``'s Code for a call from ``caller`` that goes on at ``ret``: same id, name and
        instructions (saves, errors and the single-stepping engine cannot tell it from the callee), its own
        fused functions, whose `return` runs on into the caller."""
        key = (id(callee), id(caller), ret)
        site = self.copies.get(key)
        if site is None:
            site = Code(callee.id, callee.name)
            site.ins = callee.ins
            site.fast = list(callee.ins)
            self.copies[key] = site
            self.sites[id(site)] = (caller, ret)
            self.base[id(site)] = callee
            self.comp.call_sites.append(site)
            for pc in self.entries(callee):
                site.fast[pc] = self.lazy(site, pc)
        return site

    def lazy(self, code: Code, pc: int) -> Ins:
        """A stand-in that traces ``code`` at ``pc`` on its first call, then compiles and runs the trace.

        Tracing waits for a game to get there: a large ruleset has thousands of entries (a call site's copy of
        a callee has all of the callee's), and its games reach few of them, so walking every one as the ruleset
        loads would cost more than the games that follow (Slay the Spire: 1.0 s of a 1.8 s compile). The
        engine's margin cannot wait for these paths: :meth:`fuse_all` reports ``MAX_CALL``, which every call is
        within.
        """
        def traced() -> Ins:
            with self.lock:
                if (id(code), pc) in self.done and code.fast[pc] is not first_trace:  # by another thread meanwhile
                    return code.fast[pc]
                return trace_now()

        def trace_now() -> Ins:
            self.done.add((id(code), pc))
            with self.traces.tracing(code, pc):
                # the walk another process made of this entry of the same compile (codegen/tracecache.py), else
                # the walk, noted for the next process
                got = self.traces.replay()
                made: tuple[str, str, bool, str | None] | None
                if got is None:
                    trace = Trace(self, code, pc)
                    source = trace.source()
                    made = None if source is None else (source[0], source[1], trace.inlined > 0 or trace.looped, None)
                    exits, walked = trace.exits, len(self.traces.made)
                else:
                    made, exits = got
                fn = code.ins[pc] if made is None else self.build(*made[:2], code, pc, made[2], made[3])
                if got is None and len(self.traces.made) == walked:  # not a text Python refused
                    self.traces.keep(None if made is None else made[1], made is not None and made[2], exits)
            code.fast[pc] = fn
            self.enter(exits)
            return fn

        def first_trace(s: Any, fr: list[Any]) -> bool:
            return traced()(s, fr)

        first_trace.build = traced  # type: ignore[attr-defined]  # `liturgy dump` traces and compiles it up front
        return first_trace

    def entries(self, code: Code) -> set[int]:
        """Where execution enters ``code`` other than by falling through: its start, after calls and choices."""
        found = {0}
        for pc, fn in enumerate(code.ins):
            info = self.info(fn)
            if info is None:
                continue
            if info[1] == "call_end":
                found.add(pc + 1)
            elif info[1] == "stop":
                found.update(info[2:])
        if code is self.comp.main:
            found.update(self.comp.step_pcs.values())  # `skip to`
        return {pc for pc in found if pc < len(code.ins)}

    def enter(self, where: list[tuple[Code, int]]) -> None:
        """Fuse these (code, pc) entries on their first call (see :meth:`lazy`)."""
        for code, pc in where:
            if (id(code), pc) in self.done:
                continue
            if code.fast is code.ins:
                code.fast = list(code.ins)
            if code.fast[pc] is code.ins[pc]:
                code.fast[pc] = self.lazy(code, pc)

    def fuse_all(self) -> int:
        """Put a stand-in at every entry of every code block; the engine's margin (0: nothing to fuse).

        Every kind met is checked against :data:`FUSED` now, so a kind without a rule fails as the ruleset is
        compiled, not in a game.
        """
        for code in self.comp.codes:
            for fn in code.ins:
                info = self.info(fn)
                if info is not None and info[1] not in FUSED:
                    raise AssertionError(f"fuse has no rule for the instruction kind {info[1]!r}: declare it in FUSED")
            if len(code.ins) > 1:
                self.enter([(code, pc) for pc in sorted(self.entries(code))])
        return MAX_CALL if any(code.fast is not code.ins for code in self.comp.codes) else 0


def build_all(comp: Compiler) -> int:
    """Compile every fused function not yet called (for a complete ``liturgy dump``); how many were built."""
    built = more = 0
    while True:  # a call site's copy is traced as it is built, which may add stand-ins for its exits
        for code in [*comp.codes, *comp.call_sites]:
            for fn in list(code.fast):
                build = getattr(fn, "build", None)
                if build is not None:
                    build()
                    more += 1
        if more == built:
            return built
        built = more


def fuse_codes(comp: Compiler) -> int:
    """Fuse every code block of ``comp``; the engine's margin (longest fused path), 0 when nothing fused."""
    return Fuser(comp).fuse_all()
