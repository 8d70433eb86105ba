"""The decision a game is waiting for, as typed records (they are tuples: cheap to clone, saved as lists).

A suspended step machine leaves one of these in ``GameState.pending``: the compiler (closures) and the code
generator build them, the engine reads them to expose a :class:`~liturgy.interpreter.engine.decision.Decision`
and to apply a choice. Saves keep the list form they always had (``kind`` first); :func:`pending_from_json`
reads it back, refusing anything that is not one of these shapes.
"""
from __future__ import annotations

from typing import Any, NamedTuple


class PendingChoice(NamedTuple):
    """`choose`: one player picks one of ``options``; the value is bound to ``var`` in the frame."""

    kind: str  # always "choose"
    player: int
    options: tuple[Any, ...]
    var: str
    body_pc: int  # where the frame goes on with a value
    none_pc: int  # where it goes when the chosen value is `none` (a skipped optional choice)
    fmt_id: int  # which choice this is (its label format, prompt, `describe` type)


class PendingSimultaneous(NamedTuple):
    """`simultaneously … choose`: every listed player picks secretly; revealed together once all committed."""

    kind: str  # always "simul"
    per: tuple[tuple[int, tuple[Any, ...]], ...]  # (player, their options), in seat order
    key: str  # the frame variable that receives {player: value}
    next_pc: int
    fmt_id: int


Pending = PendingChoice | PendingSimultaneous


def pending_from_json(value: Any) -> Pending | None:
    """The pending decision of a save (already frozen into tuples), as its typed record."""
    if value is None:
        return None
    if not isinstance(value, tuple) or not value:
        raise ValueError("the save's pending decision is not a list")
    if value[0] == "choose" and len(value) == len(PendingChoice._fields):
        return PendingChoice(*value)
    if value[0] == "simul" and len(value) == len(PendingSimultaneous._fields):
        return PendingSimultaneous(*value)
    raise ValueError(f"the save's pending decision has an unknown shape ({value[0]!r}, {len(value)} fields)")
