"""Fused step-machine instructions: one generated call runs a whole path of the original ones.

The step machine (:mod:`.engine`) runs one instruction per loop turn: a run of statements, a
branch, a jump, a loop's next step, a call.  Most turns do very little, so the loop and the call
around each cost as much as the work.  Here, once per ruleset, each place where execution enters
a stretch of instructions gets a *fused* instruction: one Python function that does what the
instructions from there do, one after another, following branches and jumps in Python control
flow, until it meets one that may ask for a decision (`choose`, `simultaneously`), a call that
pushes a frame (`do`, `fire`: called, then it returns), a return, a path of ``MAX_PATH``
instructions, or a jump back to an instruction already on its path.  A jump back to the function's
own entry (the next turn of a loop that starts there: a `for` whose body did not call, choose or
return) runs that turn in the same call, as long as the turns together stay within ``MAX_CALL``
instructions; any other jump back starts a new call.

Nothing a game can observe changes:

* **Step counts.** A fused call returns how many original instructions it ran, minus one (an
  ``int``, never ``True``, which still means "suspended"), and the engine adds that to the count.
  If one raises (a rule error, `end game`, `skip to`), it first adds the instructions completed
  before it to ``s.steps``, so the count is what single-stepping gives.  A function that turns back
  to its entry keeps the instructions of its completed turns in ``_Fn`` and adds them to both.
* **The step limit.** A fused call runs at most ``MAX_PATH`` instructions, or ``MAX_CALL`` when it
  turns back to its entry (a turn is taken only when the longest path through the function still fits).
  The engine only runs the fused array while that many steps cannot pass the limit; near it, it
  single-steps the original instructions, so the limit error comes at the same step, at the same place.
* **Program counters.** The fused code writes the frame's pc whenever an original instruction
  would be seen with it: before anything that may raise or reads it, and on leaving. Every exit is
  an original instruction's pc, never inside one, and no fused call spans a decision, so saved
  games (which store frames' pcs) and error positions are the same.

The original arrays (``Code.ins``) are kept unchanged; ``Code.fast`` is a copy with fused functions
at the entry points, each compiled on its first call (a game reaches only some of them).  Safety, as
in :mod:`.stmtgen`: the text is built from this module's templates, integer pcs, the condition and
sequence sources :mod:`.codegen` wrote for the original instructions, and the statement runs' text
:mod:`.stmtgen` wrote; the original instructions are passed by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from liturgy.interpreter.codegen.source import Refused

if TYPE_CHECKING:
    from liturgy.interpreter.compiler.code import Code, Ins
    from liturgy.interpreter.compiler.compiler import Compiler

# The most original instructions on one path through a fused function (the engine's margin).
MAX_PATH = 16
# The most original instructions one call runs, turns back to its entry included (the engine's margin then).
MAX_CALL = 4 * MAX_PATH
# The most original instructions written into one fused function (branches copy what follows).
MAX_NODES = 48
# A generated statement run with more lines than this is called from the fused function, not written into it.
MAX_RUN_LINES = 40
# The most statement-run lines written into one fused function (each copy counts); past it, runs are called.
MAX_INLINE_LINES = 240


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
    "call_end": "called (it pushes the callee's frame); the path ends",
    "ret": "the frame popped; the path ends",
    "stop": "the path ends before it: it may ask for a decision, the engine runs it",
}


class _Trace:
    """Writes one fused function, entered at ``head`` of ``code``."""

    def __init__(self, fuser: Fuser, code: Code, head: int, inline: bool = True, turn: int = 0) -> None:
        self.fuser = fuser
        self.code = code
        self.head = head
        self.inline = inline  # write statement runs' text into the function (else: call them)
        # > 0: a jump back to ``head`` runs the next turn in this call (``while True``), this being the longest
        # path of one turn (the first walk's); 0: it leaves, as every other jump back does
        self.turn = turn
        self.back = False  # a path ended at a jump back to ``head`` (a loop that starts where the function does)
        self.looped = False  # the text is the walk again with those jumps turned into a loop's next turn
        self.inlined = 0  # lines of statement runs written so far
        self.lines: list[str] = []
        self.depth = 2
        self.nodes = 0
        self.longest = 0
        self.exits: set[int] = set()
        self.tmp = 0

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def name(self, prefix: str) -> str:
        self.tmp += 1
        return f"_F{prefix}{self.tmp}"

    def done(self, k: int) -> str:
        """The return value after ``k`` instructions of this turn: with the completed turns' count in a loop."""
        return f"_Fn + {k}" if self.turn else str(k)

    def leave(self, pc: int, k: int, frpc: int, kv: int = 0) -> None:
        """Stop before instruction ``pc`` after ``k`` instructions: the engine runs ``pc`` next.

        A jump back to the function's own entry instead runs the next turn here when the turns so far, this
        one and a longest next one stay within ``MAX_CALL``: the engine's call and dispatch per turn of a
        loop whose body neither calls nor chooses (a filter over a hand that mostly does nothing) cost more
        than the turn itself.  The pc and completed count are set as a fresh call would find them."""
        if pc == self.head and k > 0:
            self.back = True
            room = MAX_CALL - self.turn - k
            if self.turn and room >= 0:
                self.emit(f"if _Fn <= {room}:")
                self.emit(f"    _Fn += {k}")
                if frpc != pc:
                    self.emit(f"    fr[1] = {pc}")
                if kv:
                    self.emit("    _Fk = 0")
                self.emit("    continue")
        if frpc != pc:
            self.emit(f"fr[1] = {pc}")
        self.emit(f"return {self.done(k - 1)}")
        self.exits.add(pc)
        self.longest = max(self.longest, k)

    def sync(self, pc: int, k: int, frpc: int, kv: int) -> int:
        """Make the frame's pc and the completed count right before something that may raise."""
        if frpc != pc:
            self.emit(f"fr[1] = {pc}")
        if kv != k:
            self.emit(f"_Fk = {k}")
        return k

    def walk(self, pc: int, k: int, frpc: int, kv: int, path: frozenset[int]) -> None:
        """Write instruction ``pc`` and what follows; ``k`` instructions done, ``frpc`` in the frame."""
        fuser = self.fuser
        fn = self.code.ins[pc]
        info = fuser.info(fn)
        if info is None or k >= MAX_PATH or pc in path or self.nodes >= MAX_NODES:
            self.leave(pc, k, frpc, kv)
            return
        self.nodes += 1
        kind = info[1]
        path = path | {pc}
        if kind == "run":
            kv = self.sync(pc, k, frpc, kv)
            body = fuser.run_text(fn) if self.inline else None
            if body is not None and self.inlined + len(body) <= MAX_INLINE_LINES:
                # The run's own statements, in this function's locals: its temporaries have names unique in
                # the ruleset, it reads ``env`` and ``s`` like this function, and it leaves the pc alone
                # (the run function's closing ``fr[1] += 1`` is written when this function stops or syncs).
                self.inlined += len(body)
                pad = "    " * (self.depth - 1)
                self.lines.extend(pad + line for line in body)
                self.walk(pc + 1, k + 1, pc, kv, path)
            else:
                self.emit(f"{fuser.const(fn)}(s, fr)")
                self.walk(pc + 1, k + 1, pc + 1, kv, path)
        elif kind == "goto":
            self.walk(info[2], k + 1, frpc, kv, path)
        elif kind == "branch":
            _, _, cond, then_pc, else_pc = info
            kv = self.sync(pc, k, frpc, kv)
            self.emit(f"if {cond}:")
            self.depth += 1
            self.walk(then_pc, k + 1, pc, kv, path)
            self.depth -= 1
            self.emit("else:")
            self.depth += 1
            self.walk(else_pc, k + 1, pc, kv, path)
            self.depth -= 1
        elif kind == "for_init":
            _, _, seq, key = info
            kv = self.sync(pc, k, frpc, kv)
            self.emit(f"env[{key!r}] = (tuple({seq}), 0)")
            self.walk(pc + 1, k + 1, pc, kv, path)
        elif kind == "for_next":
            _, _, key, names, end = info
            if len(names) > 1:  # unpacking a pair may raise, as in the original
                kv = self.sync(pc, k, frpc, kv)
                frpc = pc
            items, i = self.name("items"), self.name("i")
            self.emit(f"{items}, {i} = env[{key!r}]")
            self.emit(f"if {i} >= len({items}):")
            self.depth += 1
            self.emit(f"del env[{key!r}]")
            self.walk(end, k + 1, frpc, kv, path)
            self.depth -= 1
            if len(names) == 1:
                self.emit(f"env[{names[0]!r}] = {items}[{i}]")
            else:
                self.emit(f"{', '.join(f'env[{n!r}]' for n in names)}, = {items}[{i}]")
            self.emit(f"env[{key!r}] = ({items}, {i} + 1)")
            self.walk(pc + 1, k + 1, frpc, kv, path)
        elif kind == "call_end":  # `do`/`fire`: it moves the pc on itself, then pushes the callee's frame
            self.sync(pc, k, frpc, kv)
            self.emit(f"{fuser.const(fn)}(s, fr)")
            self.emit(f"return {self.done(k)}")
            self.longest = max(self.longest, k + 1)
        elif kind == "ret":
            self.emit("s.frames.pop()")
            self.emit(f"return {self.done(k)}")
            self.longest = max(self.longest, k + 1)
        elif kind == "stop":  # may ask for a decision, so the engine runs it
            self.nodes -= 1
            self.leave(pc, k, frpc, kv)
        else:
            raise AssertionError(f"fuse has no rule for the instruction kind {kind!r}: declare it in FUSED")

    def source(self, turns: bool = True) -> tuple[str, str, int] | None:
        """The fused function's name, text and longest run of one call, or None when it would run a single
        instruction.  With ``turns``, a function some of whose paths jump back to its entry is walked again
        with those jumps turned into the next turn of a ``while`` loop (:meth:`leave`); its calls then run up
        to ``MAX_CALL`` instructions, which is what it reports as its longest."""
        self.walk(self.head, 0, self.head, 0, frozenset())
        if self.longest < 2:
            return None
        if turns and self.back and not self.turn and MAX_CALL - 2 * self.longest >= 0:
            again = _Trace(self.fuser, self.code, self.head, self.inline, turn=self.longest)
            made = again.source(turns=False)
            assert made is not None and again.exits == self.exits  # the same walk, the same ways out
            self.inlined = again.inlined
            self.looped = True
            return made
        gen = self.fuser.comp.gen
        name = gen._name("_fused") if gen is not None else "_fused"
        if self.turn:
            body = "\n".join("    " + line for line in self.lines)
            text = (f"def {name}(s, fr):\n    env = fr[2]\n    _Fk = _Fn = 0\n    try:\n        while True:\n"
                    + body + "\n    except BaseException:\n        s.steps += _Fn + _Fk\n        raise\n")
            return name, text, MAX_CALL
        text = (f"def {name}(s, fr):\n    env = fr[2]\n    _Fk = 0\n    try:\n" + "\n".join(self.lines)
                + "\n    except BaseException:\n        s.steps += _Fk\n        raise\n")
        return name, text, self.longest

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
        # what Python may refuse (nesting past its limit) and a plain walk may not: runs written in, the loop
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

    def build(self, name: str, text: str, code: Code, head: int, inlined: bool) -> Ins:
        """Compile a fused function's text; if Python refuses it, the same trace calling its statement runs
        (and leaving at a jump back to its entry: the ``while`` is one more nested block)."""
        try:
            fn: Ins = self.comp.gen.sources.load(self.ns, name, "fused", text)  # type: ignore[union-attr]
        except Refused:  # runs' nested blocks past Python's limit of 20
            if not inlined:
                raise
            made = _Trace(self, code, head, inline=False).source(turns=False)
            assert made is not None  # the same walk, with calls in place of the runs' text
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

    def fuse(self, code: Code) -> int:
        """Fill ``code.fast``; the longest path of any fused function in it (0: none)."""
        fast = list(code.ins)
        todo = sorted(self.entries(code))
        done: set[int] = set()
        longest = 0
        while todo:
            pc = todo.pop()
            if pc in done or pc >= len(code.ins):
                continue
            done.add(pc)
            trace = _Trace(self, code, pc)
            made = trace.function()
            if made is None:
                continue
            fast[pc], span = made
            longest = max(longest, span)
            todo.extend(x for x in trace.exits if x not in done)
        if longest:
            code.fast = fast
        return longest


def build_all(comp: Compiler) -> int:
    """Compile every fused function not yet called (for a complete ``liturgy dump``); how many were built."""
    built = 0
    for code in comp.codes:
        for fn in list(code.fast):
            build = getattr(fn, "build", None)
            if build is not None:
                build()
                built += 1
    return built


def fuse_codes(comp: Compiler) -> int:
    """Fuse every code block of ``comp``; the engine's margin (longest fused path), 0 when nothing fused."""
    fuser = Fuser(comp)
    return max((fuser.fuse(code) for code in comp.codes), default=0)
