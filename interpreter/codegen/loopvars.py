"""A generated `for` loop's variable written to ``env`` once, when the loop ends, instead of on every turn.

Generated statement code keeps each rule variable in a Python local and in ``env`` (the frame's dict, which
saves and clones carry). Inside a loop whose body never reads ``env`` (every read is from a local, and
nothing it calls is handed ``env`` or the frame), the per-turn ``env['k'] = item`` is a dict store no one
reads: only the value left when the loop ends can be seen, by a later instruction, a save or a clone. So the
loop is written

    _x = _NOTHING
    try:
        for _x in items:
            k_local = _x
            ...
    finally:
        if _x is not _NOTHING:
            env['k'] = _x

(over a constant sequence that is never empty, ``for k_local in items:`` and ``env['k'] = k_local`` in the
``finally``: the loop always binds the local before its body runs, and the body never writes it, so the local
holds the last item on every exit, as ``_x`` would)

which leaves ``env`` exactly as the per-turn writes would, on every exit: the end of the loop, a `break`,
and an error or `end game` raised inside it (``try`` costs nothing in Python 3.11 until something raises).
Where the body writes the variable itself (its own ``env`` write would be overwritten), or reads ``env`` in
any way, the loop is left as it was. tests/test_loopvars.py compares saves and digests across compile modes.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from liturgy.dsl.frontend import ast as A

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.stmtgen import StmtGen

# A line that only writes a rule variable to ``env`` (allowed in the body), and any other use of ``env`` or
# of the frame (which holds ``env``).
_ENV_WRITE = re.compile(r"^(\s*)env\['[A-Za-z_][A-Za-z0-9_]*'\] = ")
_READS_ENV = re.compile(r"\b(env|fr)\b")

# Python allows 20 nested blocks (loops and `try`s) in a function; each loop written this way is two, and a
# fused function adds its own `try`. A loop whose nest (the loops around it, itself, the deepest chain of loops
# in its body) is deeper than this keeps the per-turn write, so every text that compiled before still does.
_MAX_NEST = 8


def nest(stmts: Sequence[A.Stmt]) -> int:
    """The deepest chain of `for` and `repeat while` loops in ``stmts``."""
    deepest = 0
    for st in stmts:
        if isinstance(st, A.For | A.RepeatWhile):
            deepest = max(deepest, 1 + nest(st.body))
        elif isinstance(st, A.If):
            deepest = max(deepest, *(nest(b) for _, b in st.branches), nest(st.orelse))
    return deepest

NOTHING = object()  # ``_NOTHING`` in generated code: the loop ran no turn


def defer(gen: StmtGen, start: int, var: str, x: str, written: set[str], body_stmts: Sequence[A.Stmt],
          nonempty: bool = False) -> None:
    """Rewrite the loop that ``gen.lines[start]`` opens (``for x in …:``, then the line writing ``var``, then
    the body, to the end of ``gen.lines``) as the module's docstring says, when that is safe. ``nonempty``: the
    items are a constant sequence that is never empty (``range(8)``), so the loop always binds ``x`` before
    anything in it can raise, and the marker for "no turn" is not needed."""
    lines = gen.lines
    head = lines[start + 1].lstrip()
    prefix = f"env[{var!r}] = "
    if var in written or gen.loops + 1 + nest(body_stmts) > _MAX_NEST:
        return  # written by the body, or in a nest of loops too deep
    if not head.startswith(prefix) or head.count(" = ") != 2:
        return  # not a write to a local as well
    for line in lines[start + 2:]:
        if _READS_ENV.search(_ENV_WRITE.sub("", line)):
            return
    pad = "    " * gen.depth
    lines[start + 1] = lines[start + 1].replace(prefix, "", 1)
    target = head[len(prefix):].split(" = ")[0]
    if nonempty and target.startswith("\x00") and target.endswith("\x00"):
        # the loop binds the variable's local itself (the body never writes it): no copy per turn
        lines[start] = lines[start].replace(f"for {x} in ", f"for {target} in ", 1)
        del lines[start + 1]
        x = target
    body = ["    " + line for line in lines[start:]]
    del lines[start:]
    if not nonempty:
        lines.append(f"{pad}{x} = _NOTHING")
    lines.append(f"{pad}try:")
    lines.extend(body)
    lines.append(f"{pad}finally:")
    if nonempty:
        lines.append(f"{pad}    {prefix}{x}")
    else:
        lines.append(f"{pad}    if {x} is not _NOTHING:")
        lines.append(f"{pad}        {prefix}{x}")
