"""A global counter updated in a generated loop kept in a Python local for the loop's duration.

``total += board[c, r]`` in a loop reads and writes ``s.counters[2]`` on every turn, where plain Python adds to a
local. When nothing else in the loop can read or write that slot, the loop is written

    _t = s.counters[2]
    try:
        for …:
            … _t = _t + v (clamped as before) …
    finally:
        s.counters[2] = _t

(the slot noted for the invariant certificate once, in the ``finally``, not on every turn: runtime/state.py's
``noted_source``), which leaves the counter list exactly as the per-turn writes would, on every exit (the end,
`break`, an error, `end game`: ``try`` costs nothing in Python 3.11 until something raises).

Why nothing else can reach the slot: every other counter access in generated code is either a literal slot (a
different declared counter) or a computed one inside the block of its own declaration (a grid's cell behind its
bounds test or a range proof, a player's or a card's counter at a valid index); a whole-list use (a slice, the
list passed to a function) or a call of anything that might read counters (a closure, a procedure, a handler)
leaves the loop as it was. Checked on the loop's text: only ``len``, ``tuple``, ``min``, ``max``, ``abs`` and the
error-raising helpers may be called, and ``s.counters`` must always be indexed, never sliced; a string literal
holding the slot's text (a ruleset's own text) also leaves it. tests/test_promote.py plays the forms and the
cases that keep the per-turn writes in every compile mode.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen.loopvars import nest
from liturgy.interpreter.runtime.state import noted_source

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.stmtgen import StmtGen

_WRITE = re.compile(r"^\s*s\.counters\[([0-9]+)\] = ", re.MULTILINE)
_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|[\])])\s*\(")
_SAFE_CALLS = frozenset({"len", "tuple", "min", "max", "abs", "_over_work", "_overflow", "_RuleError"})
_STRING = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
# the line that notes a write or a moved card for the invariant certificate (runtime/state.py's noted_source and
# moved_source): an append to the game's record, which reads no counter, so not a call that disqualifies the loop
_NOTE = re.compile(r"^\s*if \((?:_wr := s\.wrote|_mv := s\.moved)\) is not None: .*$", re.MULTILINE)
_KEYWORDS = frozenset({"if", "elif", "while", "for", "in", "not", "and", "or", "return", "is", "else", "raise"})

# The `try` adds a block to the loop's nest; deeper nests keep the per-turn writes (Python allows 20 blocks).
_MAX_NEST = 5


def _indexed_only(text: str) -> bool:
    """Whether every ``s.counters`` in ``text`` is indexed by one slot (``s.counters[…]`` with no ``:`` in it)."""
    at = text.find("s.counters")
    while at >= 0:
        i = at + len("s.counters")
        if text[i:i + 1] != "[":
            return False
        depth = 0
        for j in range(i, len(text)):
            ch = text[j]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth == 0:
                    break
            elif ch == ":" and depth == 1:
                return False
        at = text.find("s.counters", at + 1)
    return True


def _calls_only_safe(text: str) -> bool:
    for m in _CALL.finditer(text):
        name = m.group(1)
        if name in _KEYWORDS:
            continue  # `if (…)`, `not (…)`: parentheses, not a call
        if name not in _SAFE_CALLS:
            return False
    return True


def promote(gen: StmtGen, start: int, body_stmts: Sequence[A.Stmt]) -> None:
    """Keep the global counters the loop at ``gen.lines[start:]`` writes in locals, as the module's docstring says,
    when that is provably safe and the loop is not inside another; else leave the lines as they are."""
    if gen.loops or 1 + nest(body_stmts) > _MAX_NEST:
        return  # inside another loop (the outermost one keeps the local: one read and one write in all)
    lines = gen.lines
    text = "\n".join(lines[start:])
    # only a global counter of one slot: no computed index reaches it (a player's or a grid's block may have a
    # literal slot too, `players[0].points`, that `p.points` for a variable `p` also reaches)
    slots = sorted({n for n in _WRITE.findall(text) if int(n) in gen.scalar_slots}, key=int)
    if not slots:
        return
    code = _STRING.sub("''", text)
    if not _indexed_only(code) or not _calls_only_safe(_NOTE.sub("", code)):
        return
    if any(text.count(f"s.counters[{n}]") != code.count(f"s.counters[{n}]") for n in slots):
        return  # a string literal holds the slot's text
    pad = lines[start][:len(lines[start]) - len(lines[start].lstrip())]
    names = {n: gen.tmp("_t") for n in slots}
    body = []
    once = {noted_source((n,)) for n in names}  # a promoted slot is written once, after the loop: noted there
    for line in lines[start:]:
        if line.strip() in once:
            continue
        for n, t in names.items():
            line = line.replace(f"s.counters[{n}]", t)
        body.append("    " + line)
    del lines[start:]
    lines.extend(f"{pad}{t} = s.counters[{n}]" for n, t in names.items())
    lines.append(f"{pad}try:")
    lines.extend(body)
    lines.append(f"{pad}finally:")
    lines.extend(f"{pad}    s.counters[{n}] = {t}" for n, t in names.items())
    if gen.comp.notes:  # the checked variant (runtime/state.py): unchecked code notes nothing
        lines.append(f"{pad}    {noted_source(tuple(names))}")
