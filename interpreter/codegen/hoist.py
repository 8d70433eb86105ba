"""Where a generated function reads a rule's variables from: hoisted ``env`` loads, or Python parameters.

The expression and let generators (:mod:`.exprgen`, :mod:`.letgen`) write a variable's read as whatever the
current reader returns, so one expression's text serves a function that loads ``env`` once at its top
(:class:`Hoist`) and a card function whose variables are its own Python parameters (:class:`Params`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from liturgy.interpreter.codegen.text import rename

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen

_CS = re.compile(r"\b_cs\b")
_LOOKUP = re.compile(r"(?<![A-Za-z0-9_])(_k[0-9]+)\[(\x00_E[0-9]+\x00)\]")
_LOOP = re.compile(r"\b(for|while)\b")
_NAME = re.compile(r"\(*(?:[A-Za-z_][A-Za-z0-9_]*|\x00L?_E[0-9]+\x00)\)*")


def bare(src: str) -> str:
    """``src`` without parentheses around a plain name (an inlined `fn` parameter's source)."""
    while src.startswith("(") and src.endswith(")") and _NAME.fullmatch(src[1:-1]):
        src = src[1:-1]
    return src


class Hoist:
    """Reads of a rule's local variables, gathered so a generated function reads each from ``env`` once.

    Each read returns a marker; :meth:`finish` turns the markers of a variable read at least twice (a
    read inside a loop counts twice) into one Python local, loaded from ``env`` at the top of the
    function, and the others back into ``env[...]``.  Only valid where nothing the function calls can
    rebind a variable it reads: generated expressions and aggregates (a closure called from them may
    bind an aggregate's loop variable, but puts the old value back before it returns) and the
    statement functions of :mod:`.stmtgen`, which track their own writes.  A variable in scope is
    always bound in ``env`` (the checker scopes names lexically), so an early load never fails.
    """

    def __init__(self, gen: ExprGen, exclude: frozenset[str] = frozenset(), eager: bool = False) -> None:
        self.gen = gen
        self.exclude = exclude
        self.eager = eager  # a loop's function: load every variable it reads (most reads are in the loop)
        self.names: dict[str, str] = {}  # variable -> marker

    def read(self, var: str) -> str:
        if var in self.exclude:
            return f"env[{var!r}]"
        marker = self.names.get(var)
        if marker is None:
            marker = self.names[var] = f"\x00{self.gen._name('_E')}\x00"
            self.gen.plain.add(marker)
        return marker

    adopt = read  # an enclosing function's read of ``var`` carried into this one (an inlined parameter)

    def is_nonnull(self, src: str) -> bool:
        return False

    def export(self, src: str, into: Callable[[str], str]) -> str:
        """``src`` for use in another generated function, whose reads of variable ``v`` are ``into(v)``."""
        for var, marker in self.names.items():
            if marker in src:
                src = src.replace(marker, into(var))
        return src

    def finish(self, text: str) -> tuple[list[str], str]:
        """The load lines for the function's top, and ``text`` with every marker replaced."""
        loads = []
        for var, marker in self.names.items():
            if text.count(marker) >= (1 if self.eager else 2):
                name = marker.strip("\x00")
                loads.append(f"{name} = env[{var!r}]")
                text = text.replace(marker, name)
            else:
                text = text.replace(marker, f"env[{var!r}]")
        return loads, text


class Params:
    """Reads of a card function's parameters and ``self``: the generated function's Python parameters."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names

    def read(self, var: str) -> str:
        return self.names.get(var, f"env[{var!r}]")  # another name: the caller falls back to an env dict

    def is_nonnull(self, src: str) -> bool:
        return src == "_Pself"  # a card's own function runs only for a card

    def export(self, src: str, into: Callable[[str], str]) -> str:
        for var, name in self.names.items():
            src = rename(src, name, into(var))
        return src


def invariant_lookups(hoist: Hoist, lines: list[str]) -> list[str]:
    """``lines`` of a function that loops, with each constant table read at a variable the function reads from
    ``env`` (``_kT[m]``: a card's field or per-card table, a constant tuple at a proven index) read once, before
    the loop, into a local.

    Why it is exact: a :class:`Hoist` variable does not change while the function runs (the class's contract), and
    the table is a constant tuple or a printed field's list of card values (card data: never changed while a game
    runs), so every read gives the value read first. The read before the loop is guarded
    (an int index inside the tuple, else None) because the generator writes an unguarded read only where it proved
    the index valid at that point, which may be inside the loop (behind a test); where the read in the loop runs,
    the index is valid and the local holds its value. Hex's `touches` read `m.c` and `m.r` three times in each of
    six turns."""
    markers = set(hoist.names.values())
    text = "\n".join(lines)
    if not markers or not _LOOP.search(text):
        return lines
    ns = hoist.gen.ns
    fields = {id(v) for v in getattr(hoist.gen.comp, "field_lists", {}).values()}
    found: dict[str, tuple[str, str]] = {}
    for m in _LOOKUP.finditer(text):
        table, marker = m.group(1), m.group(2)
        value = ns.get(table)
        if marker in markers and (type(value) is tuple or (type(value) is list and id(value) in fields)):
            found.setdefault(m.group(0), (table, marker))
    head = []
    for lookup, (table, marker) in found.items():
        name = hoist.gen._name("_h")
        head.append(f"{name} = {table}[{marker}] if {marker}.__class__ is int and 0 <= {marker} < len({table}) "
                    "else None")
        lines = [line.replace(lookup, name) for line in lines]
    return head + lines


def function_text(head: str, hoist: Hoist, lines: list[str]) -> str:
    """A generated function's source: ``head``, the hoisted loads, then ``lines``, markers resolved; the state's
    counter list read once at the top where the text reads it three times or more (locals.hoist_counters: an
    aggregate's or a filter's loop then indexes a local, not an attribute, for each item)."""
    from liturgy.interpreter.codegen.locals import hoist_counters

    if isinstance(hoist, Hoist):
        lines = invariant_lookups(hoist, lines)
    loads, body = hoist.finish("".join(f"    {line}\n" for line in lines))
    if not _CS.search(body):  # a text that names ``_cs`` itself (a kept filter) reads its counters its own way
        loads, body = hoist_counters(loads, body, 1 if _LOOP.search(body) else 3)
    text = head + "\n" + "".join(f"    {line}\n" for line in loads) + body
    assert "\x00" not in text, text  # every marker belongs to this function
    return text
