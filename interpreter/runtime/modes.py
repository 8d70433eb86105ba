"""Rule modes at run time: each mode's on/off flag is a global counter slot (dsl/checker/modes.py), and a mode
value is the mode's name. `enter` and `leave` set and clear the flag, `active(m)` reads it; the closures and
generated code (which calls the closures for these) share these functions.

Entering a mode that is already active, or leaving one that is not, is a rule error: a mode's handlers and
steps are either on or off, and a second `enter` almost always means two events both thought they began it.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from liturgy.interpreter.runtime.errors import RuleError
from liturgy.interpreter.runtime.state import GameState, note_slot

ExprFn = Callable[[GameState, dict[str, Any]], Any]
StmtFn = Callable[[GameState, dict[str, Any]], None]


def _slot(slots: Mapping[str, int], mode: Any) -> int:
    slot = slots.get(mode) if isinstance(mode, str) else None
    if slot is None:
        raise RuleError("no mode to enter or leave (`none`)" if mode is None else f"no mode named {mode!r}")
    return slot


def switch(slots: Mapping[str, int], mode_of: ExprFn, enter: bool, line: int) -> StmtFn:
    """`enter MODE` (``enter``) or `leave MODE` at ``line``: set or clear the mode's flag."""
    want = 1 if enter else 0

    def run(s: GameState, env: dict[str, Any]) -> None:
        mode = mode_of(s, env)
        slot = _slot(slots, mode)
        if s.counters[slot] == want:
            state = "already active" if enter else "not active"
            raise RuleError(f"mode `{mode}` is {state} (`{'enter' if enter else 'leave'}` at line {line})")
        s.counters[slot] = want
        note_slot(s, slot)

    return run


def active(slots: Mapping[str, int], mode_of: ExprFn, constant: str | None) -> ExprFn:
    """`active(MODE)`: a constant mode reads its slot directly."""
    if constant is not None:
        slot = slots[constant]
        return lambda s, env: s.counters[slot] == 1

    def read(s: GameState, env: dict[str, Any]) -> bool:
        return bool(s.counters[_slot(slots, mode_of(s, env))] == 1)

    return read


def active_names(slots: Mapping[str, int], counters: list[Any]) -> list[str]:
    """The active modes, in declaration order: what views show."""
    return [m for m, slot in slots.items() if counters[slot] == 1]
