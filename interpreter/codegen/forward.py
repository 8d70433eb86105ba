"""A counter read right after the statement that wrote it: the value just written, not the slot read again.

Bloodborne's `p.health -= n` then `if p.health == 0 { … }` (a hunter's damage, 88 calls a game) wrote the new
value from a local (``s.counters[_i] = _v``, after its clamp) and the `if` read it back from the list at once
(``s.counters[_Ks126[_E211]]``: the seat's slot from its table again, then the list). Here the `if`'s first test
reads ``_v`` instead, where the text proves the read names the slot just written and nothing ran in between.

Why this is exact, from the statement text :mod:`.stmtgen` wrote (``StmtGen.assign``), checked line by line:

* the line just before the `if` (the test wrote no lines of its own) is the store ``s.counters[S] = V``, ``V`` a
  local or an integer literal, at the `if`'s indentation: nothing else runs between the store and the test;
* ``S`` is a constant slot, or a temporary ``_iN`` bound by ``_iN = E`` earlier at that indentation, with only
  the assignment's own lines between (``_vM = …`` computing the value, its clamp ``if``/``elif`` and their
  bodies, all assigning ``_vM`` alone, which the store then writes); ``E`` has no ``:=`` and no name of ``E``
  is bound by a ``:=`` in those lines (an expression binds no other Python local), so ``E`` still denotes slot
  ``_iN``, and the test's ``s.counters[E]`` reads exactly that slot;
* the counters are a plain list of ints (runtime/state.py): reading a slot right after storing ``V`` gives ``V``.

An invariant-checked build writes a note after each store (``StmtGen.note``), so there the test reads the list
as before. Anything the lines do not match exactly is left as it was.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.stmtgen import StmtGen

_STORE = re.compile(r"( *)s\.counters\[(\d+|_i\d+)\] = (_v\d+|-?\d+)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def counter_read(sg: StmtGen, emitted: int, test: str) -> str:
    """``test``, an `if`'s first test written with ``emitted`` lines of the statement already there (it wrote none
    of its own when that is still their count), with its reads of the slot the line before just wrote replaced by
    the value written; else ``test`` as it is."""
    lines = sg.lines
    if emitted != len(lines) or not lines:
        return test
    store = _STORE.fullmatch(lines[-1])
    pad = "    " * sg.depth
    if store is None or store.group(1) != pad or "s.counters[" not in test:
        return test
    slot, value = store.group(2), store.group(3)
    if not slot.isdigit():
        bound = _bound(lines, pad, slot, value)
        if bound is None:
            return test
        slot = bound
    read = f"s.counters[{slot}]"
    if read not in test or any(f"{name} :=" in test for name in {value, *_NAME.findall(slot)}):
        return test
    return test.replace(read, value if not value.startswith("-") else f"({value})")


def _bound(lines: list[str], pad: str, temp: str, value: str) -> str | None:
    """The slot source ``E`` of ``temp = E``, the line that starts the store's assignment, where only that
    assignment's own lines (the value ``value`` computed and clamped) come between it and the store; else None."""
    own = (f"{pad}{value} = ", f"{pad}if {value} < ", f"{pad}elif {value} > ", f"{pad}    {value} = ")
    between: list[str] = []
    for line in reversed(lines[:-1]):
        if line.startswith(f"{pad}{temp} = "):
            source = line[len(pad) + len(temp) + 3:]
            names = set(_NAME.findall(source))
            if ":=" in source or any(f"{name} :=" in text for text in between for name in names):
                return None
            return source
        if not line.startswith(own):
            return None
        between.append(line)
    return None
