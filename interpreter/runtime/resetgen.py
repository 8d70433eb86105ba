"""A checked game's round start, its resets written for one table's reset slots.

At the start of every round the checked variant's instruction (interpreter/compiler/compiler.py
``start_round_noted``) puts each `reset each round` slot back to its initial value and notes the slots it changed
for the invariant certificate: a loop over the tables' ``(slot, initial)`` pairs that unpacked each pair and
compared the slot's value with its initial one by identity, about ten bytecodes a slot whatever it held (Bloodborne
with four players: 13 slots, about 23 rounds and 5.5 k bytecodes a game). Here the same loop is written out for one
table's pairs: each slot a constant index, each initial value a default argument (a local), so a slot that still
holds its initial value costs its test only (six bytecodes), in the pairs' order.

Why it does what the loop did: the text is the loop's body once per pair, in the pairs' order, with the pair's slot
as a literal and its initial value bound to the very object (identity, as the loop compared: an equal value that is
another object is written and noted, as before). The unchecked variant's slice writes and a game whose record is
off are not touched. tests/test_resetgen.py compares the written function with the loop on counters that hold the
initial objects, equal objects that are not them, and other values.
"""

from __future__ import annotations

from collections.abc import Callable
from types import CodeType
from typing import Any

from liturgy.interpreter.runtime.state import Tables

Reset = Callable[[list[Any], list[int]], None]

MAX_SLOTS = 200  # past this many reset slots the loop stays (the text would grow with them)
_CODE: dict[str, CodeType] = {}  # generated text -> its compiled code (the suite builds the same tables many times)


def of(t: Tables) -> Reset:
    """The resets of ``t`` (``reset(counters, record)``): written once per tables, the loop past :data:`MAX_SLOTS`."""
    made = t.noted_reset
    if made is None:
        made = t.noted_reset = make(t.reset_slots)
    return made  # type: ignore[no-any-return]


def loop(slots: tuple[tuple[int, Any], ...]) -> Reset:
    """The generic resets: every slot not holding its initial value (the very object) set to it and noted."""

    def reset(c: list[Any], w: list[int]) -> None:
        for slot, initial in slots:
            if c[slot] is not initial:
                c[slot] = initial
                w.append(slot)

    return reset


def source(slots: tuple[tuple[int, Any], ...]) -> str:
    """The text of the written resets for ``slots`` (the initial values are the defaults ``_r0``, ``_r1``, …)."""
    w = ["def reset(c, w, " + ", ".join(f"_r{k}=_r{k}" for k in range(len(slots))) + "):"]
    for k, (slot, _) in enumerate(slots):
        w += [f"    if c[{slot}] is not _r{k}:", f"        c[{slot}] = _r{k}", f"        w.append({slot})"]
    return "\n".join(w) + "\n"


def make(slots: tuple[tuple[int, Any], ...]) -> Reset:
    """The resets for ``slots``: written out, or :func:`loop` when there are none, too many, or a slot that is no
    plain int."""
    if not slots or len(slots) > MAX_SLOTS or not all(type(slot) is int for slot, _ in slots):
        return loop(slots)
    text = source(slots)
    code = _CODE.get(text)
    if code is None:
        code = _CODE[text] = compile(text, "<liturgy round resets>", "exec")
    ns: dict[str, Any] = {f"_r{k}": initial for k, (_, initial) in enumerate(slots)}
    exec(code, ns)  # noqa: S102 - our own text: int slot indices and names, nothing a ruleset wrote
    fn: Reset = ns["reset"]
    return fn
