"""A fused function's bookkeeping while its text is written: lines, error positions, loop pairs held in locals.

:mod:`.fusewalk` walks the instructions and decides what to write; this is the state that walk carries along a
path, and the small writers every kind uses: indentation, where the frame's pc and the completed count stand for
the error handler (``_Fq``), which loop pairs (``#n``) live in Python locals and whether ``env`` holds them too,
and leaving to the engine. It is apart from the walk so that the rules for what the frame must hold at each
exit (written back, dropped on a frame change, restored across a branch) are in one place, each a method.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from liturgy.interpreter.codegen.locals import HeldVars
from liturgy.interpreter.compiler.code import Code

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.fuse import Fuser


class At(NamedTuple):
    """Where a trace stands: the code whose instructions it reads, and what the engine would run next there."""

    code: Code  # the ruleset's Code (a call site's copy shares its instructions)
    fast: Code | None  # the Code object in the frame (its ``fast`` is run at an exit); None: base or a copy
    up: At | None  # the caller, when this trace knows it (a `do` it ran through, or a call site's copy)
    ret: int  # where the caller goes on after the call

    def depth(self) -> int:
        return 0 if self.up is None else 1 + self.up.depth()

    def chain(self) -> set[int]:
        return {id(self.code)} | (self.up.chain() if self.up is not None else set())


class TraceBook:
    """The state of one fused function being written, entered at ``head`` of ``code`` (a ruleset's Code or a call
    site's copy), and the writers that keep the frame right: the walk (:class:`.fusewalk.Trace`) extends it."""

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
        self.root: At | None = None
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

    def leave(self, at: At, pc: int, k: int, frpc: int) -> None:
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
