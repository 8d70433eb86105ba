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
  the same count and writing back the loop pairs the raise's handler would: the engine scores the
  game as if it had caught the raise.
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
more than its games' first calls do). Safety, as in :mod:`.stmtgen`: the text is built from this
module's templates, integer pcs, the condition and sequence sources :mod:`.codegen` wrote for the
original instructions, and the statement runs' text :mod:`.stmtgen` wrote; the original
instructions are passed by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from liturgy.interpreter.codegen.locals import Effects, HeldVars, direct_writes
from liturgy.interpreter.codegen.source import Refused
from liturgy.interpreter.compiler.code import Code
from liturgy.interpreter.compiler.instructions import MAX_FRAMES, _push
from liturgy.interpreter.runtime.errors import GAME_ENDED

if TYPE_CHECKING:
    from liturgy.interpreter.compiler.code import Ins
    from liturgy.interpreter.compiler.compiler import Compiler

# The most original instructions on one path through a fused function.
MAX_PATH = 16
# The most original instructions one call runs, a loop's turns in one call included (the engine's margin).
MAX_CALL = 4 * MAX_PATH
# The most original instructions written into one fused function (branches copy what follows).
MAX_NODES = 48
# A generated statement run with more lines than this is called from the fused function, not written into it.
MAX_RUN_LINES = 40
# The most statement-run lines written into one fused function (each copy counts); past it, runs are called.
MAX_INLINE_LINES = 240
# How many times one path through a fused function may pass the same instruction (a loop's next turn is written
# into the same function up to this many times; past it, a new call starts there).
MAX_TURNS = 2
# The most instructions of a callee a fused function runs on into: each call site of it gets a copy of its code,
# with fused functions of its own (compiled when a game gets there), so a long callee is called as before.
MAX_CALLEE = 8
# The most calls one fused function runs on into (a `do` inside a callee it entered counts twice).
MAX_CALLS = 2


# Every instruction kind the step machine notes (compiler/core.py ``note``) and what a fused function does with
# it, spelled out (tests/test_registry.py compiles every construct's samples and checks each kind met is here;
# :meth:`_Path.walk` refuses any other). A statement reaches fuse only through these: pure statements are
# "run" instructions, control flow is branches, jumps and loop steps, `do`/`fire` end in "call_end", and
# `choose`/`simultaneously` are "stop".
FUSED: dict[str, str] = {
    "run": "its statements inlined (their generated text) or called",
    "goto": "followed",
    "branch": "an if/else, both ways followed",
    "for_init": "the loop's items stored in the frame",
    "for_next": "the loop's next item, or its end",
    "call_end": "called (it pushes the callee's frame); a proc's call runs on into the callee (its call site's "
                "copy of the callee's Code), while a card effect's, a `fire`, a recursive call and calls nested "
                "past MAX_CALLS end the path",
    "ret": "the frame popped; on into the caller's code where the caller is known (a call this function ran "
           "into, or a call site's copy), else the path ends",
    "stop": "at a path's head the engine runs it; after other instructions it is called here and the path ends "
            "(True: the decision is asked for, the instructions before it counted)",
}


class _At(NamedTuple):
    """Where a trace stands: the code whose instructions it reads, and what the engine would run next there."""

    code: Code  # the ruleset's Code (a call site's copy shares its instructions)
    fast: Code | None  # the Code object in the frame (its ``fast`` is run at an exit); None: base or a copy
    up: _At | None  # the caller, when this trace knows it (a `do` it ran through, or a call site's copy)
    ret: int  # where the caller goes on after the call

    def depth(self) -> int:
        return 0 if self.up is None else 1 + self.up.depth()

    def chain(self) -> set[int]:
        return {id(self.code)} | (self.up.chain() if self.up is not None else set())


class _Trace:
    """Writes one fused function, entered at ``head`` of ``code`` (a ruleset's Code or a call site's copy)."""

    def __init__(self, fuser: Fuser, code: Code, head: int, inline: bool = True, turn: int = 0,
                 hold_head: bool = True) -> None:
        self.fuser = fuser
        self.code = code
        self.head = head
        self.inline = inline  # write statement runs' text into the function (else: call them)
        # > 0: a jump back to ``head`` in the function's own frame runs the next turn in this call (``while
        # True``), this being the longest path of one turn (the first walk's); 0: the walk unrolls it as any
        # other jump back (MAX_TURNS). ``back``: some path jumped back to ``head`` so (the first walk's finding);
        # ``looped``: the text is the second walk's, with a loop; ``root``: where the walk starts
        self.turn, self.back, self.looped = turn, False, False
        self.root: _At | None = None
        self.inlined = 0  # lines of statement runs written so far
        self.lines: list[str] = []
        self.depth, self.nodes, self.longest = 2, 0, 0
        self.exits: list[tuple[Code, int]] = []
        self.qs: dict[tuple[int | None, int], int] = {(None, 0): 0}  # positions (:meth:`sync`): the head's is 0
        self.tmp = 0
        # Loops' `#n` pairs held in Python locals (:meth:`pair`): in the current frame, on the path being written,
        # key -> "clean" (env holds the same pair), "dirty" (env's is older) or "fresh" (dirty, and env may hold
        # no pair or a stale one left by a `break`); ``bound``: keys whose items local is bound (the handler
        # writes those back on an error); ``pairs``: every key's number in this function
        self.held: dict[str, str] = {}
        self.bound: set[str] = set()
        # of those, the ones whose length local is set (else a test reads ``len``: a pair read from the frame and
        # tested once costs less so), and the ones whose index is known to be 0 (just started)
        self.lens: set[str] = set()
        self.zero: set[str] = set()
        self.pairs: dict[str, int] = {}
        # the loops' variables held in Python locals (session 19: codegen/locals.py HeldVars); ``hold_head``: a
        # turning function keeps its head loop's variables in locals from turn to turn (``mixed``: some way back
        # to the head does not hold them, so the function is written again with ``hold_head`` off)
        self.vars, self.hold_head, self.mixed = HeldVars(), hold_head, False

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def name(self, prefix: str) -> str:
        self.tmp += 1
        return f"_F{prefix}{self.tmp}"

    def pair(self, key: str) -> tuple[str, str, str]:
        """The Python locals that hold loop pair ``key`` in this function: its items, next index and length."""
        n = self.pairs.setdefault(key, len(self.pairs) + 1)
        return f"_Fa{n}", f"_Fb{n}", f"_Fc{n}"

    def emits(self, lines: list[str]) -> None:
        self.lines.extend("    " * self.depth + line for line in lines)

    def flush(self, variables: bool = True) -> None:
        """Write every pair (and ``variables``: every variable) held dirty back to ``env``: before the engine, a
        callee or a choice can see the frame."""
        if variables:
            self.emits(self.vars.flush())
        for key, how in self.held.items():
            if how != "clean":
                items, i, _ = self.pair(key)
                self.emit(f"env[{key!r}] = ({items}, {i})")
                self.held[key] = "clean"

    def drop(self) -> None:
        """The frame changes (a call pushed, a return popped): its pairs are written back (:meth:`flush`, by the
        caller where the frame lives on) and their locals unbound, so the error handler, which writes every bound
        pair to the current ``env``, never writes one into another frame's."""
        if self.bound:
            self.emit("del " + ", ".join(self.pair(key)[0] for key in sorted(self.bound)))
        self.emits(self.vars.forget())
        self.held = {}
        self.bound = set()
        self.lens = set()
        self.zero = set()

    def snapshot(self) -> tuple[Any, ...]:
        return dict(self.held), set(self.bound), set(self.lens), set(self.zero), self.vars.snapshot()

    def restore(self, snap: tuple[Any, ...]) -> None:
        self.held, self.bound, self.lens, self.zero = dict(snap[0]), set(snap[1]), set(snap[2]), set(snap[3])
        self.vars.restore(snap[4])

    def leave(self, at: _At, pc: int, k: int, frpc: int) -> None:
        """Stop before instruction ``pc`` after ``k`` instructions: the engine runs ``pc`` next."""
        self.flush()
        if frpc != pc:
            self.emit(f"fr[1] = {pc}")
        self.emit(f"return {self.done(k - 1)}")
        self.exits.append((at.fast if at.fast is not None else at.code, pc))
        self.longest = max(self.longest, k)

    def done(self, k: int) -> str:
        """The count a return reports after ``k`` instructions of this turn: with the completed turns' ones."""
        return f"_Fn + {k}" if self.turn else str(k)

    def entry_pair(self) -> str | None:
        """The loop pair held at the top of every turn of a looping function: the head's, when it is a `for`'s
        next step (loaded before the ``while``, then carried in locals from turn to turn)."""
        info = self.fuser.info(self.code.ins[self.head])
        return info[2] if self.turn and info is not None and info[1] == "for_next" else None

    def next_turn(self, k: int, frpc: int, kv: int) -> None:
        """A jump back to the head in the function's own frame: run the next turn in this call (``continue``)
        when the turns done, this one (``k``) and a longest next one stay within ``MAX_CALL`` instructions.

        The engine's call and dispatch per turn of a loop whose body mostly neither calls nor chooses (a pass
        over the players that acts for a few) cost more than the turn; and the loop's pair then lives in locals
        for the whole call. The next turn starts as a fresh call would find the frame: its pc at the head, the
        pairs other than the head's written back and unbound, the head's held (reloaded if a call dropped it).
        """
        room = MAX_CALL - self.turn - k
        if room < 0:
            return
        snap = self.snapshot()
        self.emit(f"if _Fn <= {room}:")
        self.depth += 1
        self.emit(f"_Fn += {k}")
        if frpc != self.head:
            self.emit(f"fr[1] = {self.head}")
        if kv:
            self.emit("_Fq = 0")
        key = self.entry_pair()
        others = sorted(self.bound - {key})
        kept = key in self.held
        self.held = {other: how for other, how in self.held.items() if other != key}
        names = self.head_names() if self.hold_head else ()
        self.mixed = self.mixed or any(var not in self.vars.held for var in names)
        self.emits(self.vars.keep(names))  # the head's variables stay in locals
        self.flush(variables=False)
        if others:
            self.emit("del " + ", ".join(self.pair(other)[0] for other in others))
        if key is not None and not kept:
            self.load(key, length=True)
        elif key is not None and key not in self.lens:  # the turns test the length local
            items, _, n = self.pair(key)
            self.emit(f"{n} = len({items})")
        self.emit("continue")
        self.depth -= 1
        self.restore(snap)

    def head_names(self) -> tuple[str, ...]:
        """The variables the head's `for` step binds, in a function that turns through that loop."""
        info = self.fuser.info(self.code.ins[self.head])
        return tuple(info[3]) if self.turn and info is not None and info[1] == "for_next" else ()

    def load(self, key: str, length: bool = False) -> None:
        """Read loop pair ``key`` from the frame into its locals (``length``: and set its length local)."""
        items, i, n = self.pair(key)
        self.emit(f"{items}, {i} = env[{key!r}]")
        if length:
            self.emit(f"{n} = len({items})")

    def sync(self, pc: int, k: int, frpc: int, kv: int, lazy: bool = False) -> tuple[int, int]:
        """Make the frame's pc and the completed count right before something that may raise: ``_Fq``, the
        position's number in the function's table of (pc or None, count), which the error handler reads (session
        19: one local store where there were a list store and a local store). ``lazy``: what follows until the
        next sync is this function's own text, which never reads the pc, so the frame's is written only by the
        handler (the table's pc; None: the frame holds it). The position's number and the frame's pc after it."""
        if frpc != pc and not lazy:
            self.emit(f"fr[1] = {pc}")
            frpc = pc
        q = self.qs.setdefault((pc if frpc != pc else None, k), len(self.qs))
        if q != kv:
            self.emit(f"_Fq = {q}")
        return q, frpc

    def walk(self, at: _At, pc: int, k: int, frpc: int, kv: int, path: frozenset[tuple[int, int, int, int]]) -> None:
        """Write instruction ``pc`` of ``at.code`` and what follows; ``k`` instructions done, ``frpc`` in the frame."""
        fuser = self.fuser
        if at is self.root and pc == self.head and k > 0:  # the next turn of a loop the function starts at
            self.back = True
            if self.turn:
                self.next_turn(k, frpc, kv)
                self.leave(at, pc, k, frpc)  # past the room: the engine calls the function again
                return
        fn = at.code.ins[pc]
        info = fuser.info(fn)
        # an instruction is written at most MAX_TURNS times on one path: a loop's body that many turns
        turn = next((n for n in range(MAX_TURNS) if (id(at.code), pc, at.depth(), n) not in path), None)
        if info is None or k >= MAX_PATH or turn is None or self.nodes >= MAX_NODES:
            self.leave(at, pc, k, frpc)
            return
        self.nodes += 1
        kind = info[1]
        path = path | {(id(at.code), pc, at.depth(), turn)}
        if kind == "run":
            body = fuser.run_text(fn) if self.inline else None
            if body is not None and self.inlined + len(body) <= MAX_INLINE_LINES:
                kv, frpc = self.sync(pc, k, frpc, kv, lazy=True)
                # The run's own statements, in this function's locals: its temporaries have names unique in
                # the ruleset, it reads ``env`` and ``s`` like this function, and it leaves the pc alone
                # (the run function's closing ``fr[1] += 1`` is written when this function stops or syncs).
                # It reads and writes the held variables' locals (or they are written back first).
                self.inlined += len(body)
                pre, text = self.vars.rewrite("\n".join(body), False, self.fuser.effects)
                self.emits(pre)
                body = text.split("\n")
                pad = "    " * (self.depth - 1)
                self.lines.extend(pad + line for line in self.ended(body, k))
                self.walk(at, pc + 1, k + 1, frpc, kv, path)
            else:
                kv, _ = self.sync(pc, k, frpc, kv)  # the run's function moves the frame's pc on
                self.emits(self.vars.release())
                self.emit(f"{fuser.const(fn)}(s, fr)")
                self.walk(at, pc + 1, k + 1, pc + 1, kv, path)
        elif kind == "goto":
            self.walk(at, info[2], k + 1, frpc, kv, path)
        elif kind == "branch":
            _, _, cond, then_pc, else_pc = info
            kv, frpc = self.sync(pc, k, frpc, kv, lazy=True)
            pre, cond = self.vars.rewrite(cond, True, self.fuser.effects)
            self.emits(pre)
            self.emit(f"if {cond}:")
            self.depth += 1
            snap = self.snapshot()
            self.walk(at, then_pc, k + 1, frpc, kv, path)
            self.restore(snap)
            self.depth -= 1
            self.emit("else:")
            self.depth += 1
            self.walk(at, else_pc, k + 1, frpc, kv, path)
            self.depth -= 1
        elif kind == "for_init":
            _, _, seq, key = info
            kv, frpc = self.sync(pc, k, frpc, kv, lazy=True)
            # the loop's pair in this function's locals, written to ``env`` only where the frame can be seen
            items, i, _ = self.pair(key)
            pre, seq = self.vars.rewrite(seq, True, self.fuser.effects)
            self.emits(pre)
            self.emit(f"{items} = tuple({seq})")
            self.emit(f"{i} = 0")
            self.held[key] = "fresh"
            self.bound.add(key)
            self.lens.discard(key)
            self.zero.add(key)
            self.walk(at, pc + 1, k + 1, frpc, kv, path)
        elif kind == "for_next":
            self.for_next(at, pc, k, frpc, kv, path, info)
        elif kind == "call_end":  # `do`/`fire`: it moves the pc on itself, then pushes the callee's frame
            self.call(at, pc, k, frpc, kv, path, info)
        elif kind == "ret":
            if at.up is None:  # the frame is gone, its pairs and variables with it
                self.held, self.bound, self.lens, self.zero = {}, set(), set(), set()
                self.vars.held = {}
                self.emit("s.frames.pop()")
                self.emit(f"return {self.done(k)}")
                self.longest = max(self.longest, k + 1)
                return
            # the caller is known: on into its code after the call, in its frame
            self.drop()
            self.emit("s.frames.pop()")
            self.emit("fr = s.frames[-1]")
            self.emit("env = fr[2]")
            self.walk(at.up, at.ret, k + 1, at.ret, kv, path)
        elif kind == "stop":  # may ask for a decision: the engine runs it at a path's head
            self.stop(at, pc, k, frpc, kv)
        else:
            raise AssertionError(f"fuse has no rule for the instruction kind {kind!r}: declare it in FUSED")

    def ended(self, body: list[str], k: int) -> list[str]:
        """A run's lines with each `end game` (``raise _GameOver`` on a line of its own) made this function's
        return of ``GAME_ENDED``, after adding the instructions completed before the run to the step count, as the
        raise's handler below would (statement text holds no handler that could catch the raise, and a
        ``finally`` runs on a return as on a raise). Every finished game used to pay the exception."""
        count = f"_Fn + {k}" if self.turn else str(k)
        out = []
        for line in body:
            code = line.lstrip()
            if code == "raise _GameOver":
                pad = line[:len(line) - len(code)]
                back = [f"{pad}env[{key!r}] = ({self.pair(key)[0]}, {self.pair(key)[1]})"
                        for key, how in self.held.items() if how != "clean"]
                back += [pad + line for line in self.vars.back()]
                # (the pc is not written: a finished game's frames are cleared)
                out += [f"{pad}s.steps += {count}", *back, f"{pad}return {self.fuser.const(GAME_ENDED)}"]
            else:
                out.append(line)
        return out

    def for_next(self, at: _At, pc: int, k: int, frpc: int, kv: int, path: frozenset[tuple[int, int, int, int]],
                 info: tuple[Any, ...]) -> None:
        """A loop's next item (into the frame's variable, as the original does), or its end."""
        _, _, key, names, end = info
        if len(names) > 1:  # unpacking a pair may raise, as in the original
            kv, frpc = self.sync(pc, k, frpc, kv, lazy=True)
        items, i, n = self.pair(key)
        how = self.held.get(key)
        if how is None:  # from the frame (the loop started before this call, or a callee ran in between)
            self.load(key)
            how = self.held[key] = "clean"
            self.bound.add(key)
        zero = key in self.zero
        if zero:
            self.emit(f"if not {items}:")
        else:
            self.emit(f"if {i} >= {n if key in self.lens else f'len({items})'}:")
        self.depth += 1
        # the loop's end: the frame's pair goes (one a `break` left behind too, where this function's was never
        # written), and so does the local, so that the error handler does not write it back
        self.emit(f"del env[{key!r}], {items}" if how != "fresh" else f"env.pop({key!r}, None)")
        if how == "fresh":
            self.emit(f"del {items}")
        snap = self.snapshot()
        self.emits(self.vars.resolve())  # an earlier turn's variables, at the head of a function that turns
        del self.held[key]
        self.bound.discard(key)
        self.lens.discard(key)
        self.zero.discard(key)
        self.walk(at, end, k + 1, frpc, kv, path)
        self.restore(snap)
        self.depth -= 1
        at_i = "0" if zero else i
        self.emit(f"{self.vars.bind(names)} = {items}[{at_i}]")  # written to ``env`` where it can be seen
        self.emit(f"{i} = 1" if zero else f"{i} += 1")
        self.zero.discard(key)
        if how == "clean":
            self.held[key] = "dirty"
        self.walk(at, pc + 1, k + 1, frpc, kv, path)

    def call(self, at: _At, pc: int, k: int, frpc: int, kv: int, path: frozenset[tuple[int, int, int, int]],
             info: tuple[Any, ...]) -> None:
        """A `do` or `fire`: the instruction pushes the callee's frame. A proc's call runs on into the callee.

        The callee's frame is the one the instruction pushed (same pc, same environment: saves and errors see
        the step machine's frames), given the call site's copy of the callee's Code, whose fused functions
        return into this caller's code after the call rather than to the engine. A card effect's call (its
        callee is found per call), a `fire`, a callee not worth a copy per call site (:meth:`Fuser.asks`), a
        recursive call and calls nested past ``MAX_CALLS`` end the path.
        """
        fuser = self.fuser
        kv, _ = self.sync(pc, k, frpc, kv)
        self.flush()  # the callee's frame (and the engine, after it) sees this one's
        target = info[2].code if len(info) > 2 else None
        if (target is None or not fuser.asks(target) or at.depth() >= MAX_CALLS or id(target) in at.chain()):
            self.emits(self.vars.forget())
            self.emit(f"{fuser.const(info[0])}(s, fr)")
            self.emit(f"return {self.done(k)}")
            self.longest = max(self.longest, k + 1)
            return
        site = fuser.call_site(target, at.code, pc + 1)
        self.drop()
        pushed = fuser.call_text(info[0]) if self.inline else None
        if pushed is not None and self.inlined + len(pushed[0]) <= MAX_INLINE_LINES:
            # the instruction's own lines bind the callee's environment; then what it does, the frame pushed here
            # (past the deepest chain, ``_push`` raises the same error)
            lines, env2 = pushed
            self.inlined += len(lines)
            pad = "    " * (self.depth - 1)
            self.lines.extend(pad + line for line in lines)
            self.emit(f"fr[1] = {pc + 1}")
            self.emit(f"if len(s.frames) > {MAX_FRAMES}:")
            self.emit(f"    {fuser.const(_push)}(s, {fuser.const(target)}, {env2})")
            self.emit(f"fr = [{fuser.const(site)}, 0, {env2}]")
            self.emit("s.frames.append(fr)")
            self.emit(f"env = {env2}")
        else:
            self.emit(f"{fuser.const(info[0])}(s, fr)")
            self.emit("fr = s.frames[-1]")
            self.emit(f"fr[0] = {fuser.const(site)}")
            self.emit("env = fr[2]")
        self.walk(_At(target, site, at, pc + 1), 0, k + 1, 0, kv, path)

    def stop(self, at: _At, pc: int, k: int, frpc: int, kv: int) -> None:
        """A `choose` or `simultaneously` after other instructions: run it here rather than return to the engine.

        It returns True when it asks for a decision: it ran no instruction (the engine takes back the call's
        turn), so the ``k`` before it are added to the step count here. Otherwise it moved the frame's pc (no
        option: on to its `otherwise` or its end), one more instruction; the engine runs on from there.
        """
        if k == 0:  # at the head: the engine runs it as it is
            self.nodes -= 1
            self.leave(at, pc, k, frpc)
            return
        self.sync(pc, k, frpc, kv)
        self.flush()  # a suspended frame is saved, cloned and viewed as the step machine's
        self.emits(self.vars.forget())  # the choice's text uses ``env`` itself
        self.longest = max(self.longest, k + 1)
        lines = self.fuser.choice_text(at.code.ins[pc]) if self.inline else None
        if lines is not None and self.inlined + len(lines) <= MAX_INLINE_LINES:
            # the choice's own text (it reads ``env``, ``fr`` and ``s`` like this function), its returns made ours
            self.inlined += len(lines)
            for line in lines:
                body = line.lstrip()
                pad = "    " * self.depth + line[:len(line) - len(body)]
                if body == "return True":
                    self.lines += [f"{pad}s.steps += {self.done(k)}", f"{pad}return True"]
                elif body == "return False":
                    self.lines.append(f"{pad}return {self.done(k)}")
                else:
                    self.lines.append(pad + body)
            return
        self.emit(f"if {self.fuser.const(at.code.ins[pc])}(s, fr):")
        self.emit(f"    s.steps += {self.done(k)}")
        self.emit("    return True")
        self.emit(f"return {self.done(k)}")

    def source(self, turns: bool = True) -> tuple[str, str, int] | None:
        """The fused function's name, text and longest run of one call, or None when it would run a single
        instruction. With ``turns``, a function some of whose paths jump back to its head in its own frame is
        walked again with those jumps turned into the next turn of a ``while`` loop (:meth:`next_turn`): its
        calls then run up to ``MAX_CALL`` instructions, which is what it reports as its longest."""
        code = self.code
        site = self.fuser.sites.get(id(code))
        up = _At(site[0], None, None, 0) if site is not None else None
        base = self.fuser.base.get(id(code), code)
        self.root = _At(base, code, up, site[1] if site is not None else 0)
        key = self.entry_pair()
        self.vars.maybe = self.head_names() if self.hold_head else ()
        if key is not None:  # the head's pair, loaded once before the loop and carried from turn to turn
            # "fresh": a later turn may come back here from the loop's own `for` start (an outer loop's next
            # turn), whose pair the frame does not hold yet
            self.load(key, length=True)
            self.held[key] = "fresh"
            self.bound.add(key)
            self.lens.add(key)
            self.emit("while True:")
            self.depth += 1
        elif self.turn:
            self.emit("while True:")
            self.depth += 1
        self.walk(self.root, self.head, 0, self.head, 0, frozenset())
        if self.longest < 2:
            return None
        if self.mixed:  # the head loop's variables are not held on every way back: released there instead
            again = _Trace(self.fuser, code, self.head, self.inline, self.turn, hold_head=False)
            made = again.source(turns=False)
            self.exits, self.inlined, self.looped = again.exits, again.inlined, again.looped
            return made
        if turns and self.back and not self.turn and 2 * self.longest <= MAX_CALL:
            again = _Trace(self.fuser, code, self.head, self.inline, turn=self.longest)
            made = again.source(turns=False)
            assert made is not None  # the same walk up to the jumps back: it runs at least as far
            self.exits, self.inlined, self.looped = again.exits, again.inlined, True
            return made
        gen = self.fuser.comp.gen
        name = gen._name("_fused") if gen is not None else "_fused"
        # on an error, the pairs still held in locals are written back (an unbound one is not held: its loop
        # ended, or the frame changed after it was written back, or it was never read)
        back = "".join(f"        try:\n            env[{key!r}] = (_Fa{n}, _Fb{n})\n        except NameError:\n"
                       "            pass\n" for key, n in self.pairs.items()) + self.vars.handler()
        start, count = ("_Fq = _Fn = 0", "_Fn + _Fk") if self.turn else ("_Fq = 0", "_Fk")
        table = [where for where, _ in sorted(self.qs.items(), key=lambda item: item[1])]
        at = ("        if _Fp is not None:\n            fr[1] = _Fp\n" if any(pc is not None for pc, _ in table)
              else "")
        text = (f"def {name}(s, fr):\n    env = fr[2]\n    {start}\n    try:\n" + "\n".join(direct_writes(self.lines))
                + f"\n    except BaseException:\n        _Fp, _Fk = {self.fuser.const(tuple(table))}[_Fq]\n" + at
                + f"        s.steps += {count}\n" + back + "        raise\n")
        return name, text, MAX_CALL if self.turn else self.longest

    def function(self) -> tuple[Ins, int] | None:
        """A stand-in for the fused function and its longest path, or None when it would run a single instruction.

        Compiling the text is most of the cost of fusing (a large ruleset has hundreds of fused functions, and
        a game reaches only some of them), so the stand-in compiles it on its first call, puts the compiled
        function in its place in ``Code.fast`` and runs it: from then on the engine calls the function itself.
        The walk (the path lengths the engine's margin needs, and where the traces stop) is done here, now.
        """
        made = self.source()
        if made is None:
            return None
        name, text, longest = made
        # what Python may refuse (blocks nested past its limit) and a plain walk may not: runs written in, the loop
        fuser, code, head, inlined = self.fuser, self.code, self.head, self.inlined > 0 or self.looped

        def build() -> Ins:
            fn = fuser.build(name, text, code, head, inlined)
            code.fast[head] = fn
            return fn

        def first_call(s: Any, fr: list[Any]) -> bool:
            return build()(s, fr)

        first_call.build = build  # type: ignore[attr-defined]  # `liturgy dump` compiles every one up front
        return first_call, longest


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

    def build(self, name: str, text: str, code: Code, head: int, inlined: bool) -> Ins:
        """Compile a fused function's text; if Python refuses it, the same trace calling its statement runs."""
        try:
            fn: Ins = self.comp.gen.sources.load(self.ns, name, "fused", text)  # type: ignore[union-attr]
        except Refused:  # runs' nested blocks past Python's limit of 20
            if not inlined:
                raise
            made = _Trace(self, code, head, inline=False).source(turns=False)
            assert made is not None  # the same walk, with calls in place of the runs' text (and no loop)
            return self.build(made[0], made[1], code, head, False)
        return fn

    def info(self, fn: Ins) -> tuple[Any, ...] | None:
        if fn is self._ret:
            return (fn, "ret")
        got = self.comp.ins_info.get(id(fn))
        return got if got is not None and got[0] is fn else None

    def const(self, value: Any) -> str:
        assert self.comp.gen is not None
        return self.comp.gen.const(value)

    def run_text(self, fn: Ins) -> list[str] | None:
        """The lines of generated statement run ``fn`` at one indentation level, or None to call it instead."""
        sgen = self.comp.sgen
        got = sgen.run_texts.get(id(fn)) if sgen is not None else None
        if got is None or got[0] is not fn:
            return None
        lines = got[1].rstrip("\n").split("\n")
        if len(lines) > MAX_RUN_LINES or any(line.lstrip().startswith(("return", "yield")) for line in lines):
            return None
        return lines

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
            self.done.add((id(code), pc))
            trace = _Trace(self, code, pc)
            made = trace.function()
            fn: Ins = code.ins[pc] if made is None else made[0].build()  # type: ignore[attr-defined]
            code.fast[pc] = fn
            self.enter(trace.exits)
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
