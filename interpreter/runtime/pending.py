"""The decision a suspended game waits for: typed records that cost one tuple.

A choice instruction stops the step machine and leaves one of these in ``GameState.pending``; ``Game.apply``
and the views read it back.  They are tuples typed member by member, not NamedTuples or classes, because one is
built at every decision of every simulated game: a NamedTuple cost 5–7% of Crazy Eights' games/s (measured in
issue 13), a typed tuple costs nothing, and mypy narrows the union on ``pending[0] == "choose"`` just as well.
The generated code (interpreter/codegen/choicegen.py) builds the same shapes as the closures
(interpreter/compiler/machine.py); saves store them as JSON lists, read back by :func:`pending_from_json`.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

# Option values are values of the rules language (int, text, bool, player, card id, list tuple or none): their
# static type is the checker's, per choice, so here they are Any.
Options: TypeAlias = tuple[Any, ...]

# ("choose", player, options, variable, body_pc, none_pc, format_id): one player picks one option; the body
# runs from body_pc with the variable bound, or execution goes to none_pc when `none` (the `otherwise`) is picked.
ChoosePending: TypeAlias = tuple[Literal["choose"], int, Options, str, int, int, int]

# ("simul", ((player, options), ...), key, next_pc, format_id): every listed player commits a choice in secret;
# when all have, the picks are revealed together and the loop at next_pc runs over them under ``key``.
SimulPending: TypeAlias = tuple[Literal["simul"], tuple[tuple[int, Options], ...], str, int, int]

Pending: TypeAlias = ChoosePending | SimulPending


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"corrupt save: the pending decision's {what} is {value!r}, not an integer")
    return value


def _options(value: Any, what: str) -> Options:
    if not isinstance(value, tuple):
        raise ValueError(f"corrupt save: the pending decision's {what} is {value!r}, not a list")
    return value


def pending_from_json(value: Any) -> Pending | None:
    """The pending decision of a save, its lists already frozen to tuples; ``ValueError`` names what is wrong.

    A save is untrusted input: a hand-edited pending decision must not reach the step machine as a shape it
    would only trip over later, mid-game.
    """
    if value is None:
        return None
    if not isinstance(value, tuple) or not value:
        raise ValueError(f"corrupt save: the pending decision is {value!r}")
    if value[0] == "choose" and len(value) == 7:
        _, p, options, var, body_pc, none_pc, fmt_id = value
        if not isinstance(var, str):
            raise ValueError(f"corrupt save: the pending choice's variable is {var!r}")
        return ("choose", _int(p, "player"), _options(options, "options"), var, _int(body_pc, "resume point"),
                _int(none_pc, "`otherwise` point"), _int(fmt_id, "format"))
    if value[0] == "simul" and len(value) == 5:
        _, per, key, next_pc, fmt_id = value
        if not isinstance(key, str) or not isinstance(per, tuple):
            raise ValueError(f"corrupt save: the pending simultaneous choice is {value!r}")
        seats: list[tuple[int, Options]] = []
        for entry in per:
            if not (isinstance(entry, tuple) and len(entry) == 2):
                raise ValueError(f"corrupt save: a chooser of the simultaneous choice is {entry!r}")
            seats.append((_int(entry[0], "chooser"), _options(entry[1], "options")))
        return ("simul", tuple(seats), key, _int(next_pc, "resume point"), _int(fmt_id, "format"))
    raise ValueError(f"corrupt save: unknown pending decision {value[0]!r} (of {len(value)} items)")
