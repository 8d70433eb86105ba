"""How far one fused function reaches, and what it does with each instruction kind (the registry).

The limits are the engine's margin and the size of the generated text: the engine runs fused instructions only
while ``MAX_CALL`` more steps cannot pass the step limit, and Python refuses functions nested too deep. They are
apart from the walk (:mod:`.fusewalk`) and the fuser (:mod:`.fuse`) because both read them, and so does
tests/test_registry.py (:data:`FUSED`), without either module's machinery.
"""

from __future__ import annotations

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
# :meth:`.fusewalk.Trace.walk` refuses any other). A statement reaches fuse only through these: pure statements are
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
                "past MAX_CALLS end the path (a card effect's or a `fire` only when it pushed a frame: a plain "
                "effect, or none, runs inside the instruction and the path goes on after it)",
    "ret": "the frame popped; on into the caller's code where the caller is known (a call this function ran "
           "into, or a call site's copy), else the path ends",
    "stop": "at a path's head the engine runs it; after other instructions it is called here and the path ends "
            "(True: the decision is asked for, the instructions before it counted; in an unchecked playout its "
            "text picks in place and the path ends at the chosen body: codegen/fusepick.py)",
}
