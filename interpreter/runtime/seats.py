"""Seats that are not playing: a game's `absent_while FLAG` (docs/language.md, "Seats that join later").

A ruleset may declare that a seat sits out while one of its per-player flags is true: a player who joins at
the start of a later Act, or one who waits for a point of the game. The flag is ordinary state (saved, cloned,
digested, seen by everyone), so a game without the declaration runs exactly as before and an old save loads
unchanged; this module holds what reads it. The compiled `players` and `player_count` leave an absent seat out
(the built-in `seats` lists every seat), the engine's checked games report a decision asked of an absent seat
as a violation, and views, the terminal and the web page name absent seats so nobody waits for them.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from liturgy.interpreter.runtime.state import GameState

# the built-in invariant's name, as a violation reports it
ASKED = "no decision is asked of an absent seat"


def present_fn(base: int, stride: int, count: bool) -> Callable[[GameState, dict[str, Any]], Any]:
    """The closure of `players` (``count``: of `player_count`) under `absent_while`: the seats whose flag, at
    ``base + seat * stride``, is false now, in seat order."""
    if count:
        def how_many(s: GameState, env: dict[str, Any]) -> int:
            c = s.counters
            return sum(1 for p in s.tables.players if not c[base + p * stride])

        return how_many

    def present(s: GameState, env: dict[str, Any]) -> tuple[int, ...]:
        c = s.counters
        return tuple(p for p in s.tables.players if not c[base + p * stride])

    return present


def present_of(s: GameState, base: int, stride: int) -> tuple[int, ...]:
    """The seats playing now (the generated code's `players` under `absent_while`)."""
    c = s.counters
    return tuple([p for p in s.tables.players if not c[base + p * stride]])


def source(which: str, lay: Any, const: Callable[[Any], str]) -> str:
    """The generated code's text for `players`, `seats` or `player_count` (``lay``: the compiled layout;
    ``const``: names a value for the generated module): the fixed seats, unless `absent_while` leaves some out."""
    if which == "seats" or lay.absent_offset is None:
        return "s.tables.n" if which == "player_count" else "s.tables.players"
    call = f"{const(present_of)}(s, {lay.player_base + lay.absent_offset}, {lay.player_stride})"
    return f"len({call})" if which == "player_count" else call


def absent(s: GameState) -> tuple[int, ...]:
    """The seats that are not playing now (none when the ruleset declares no `absent_while`)."""
    slots = s.tables.absent_slots
    if not slots:
        return ()
    c = s.counters
    return tuple(p for p, slot in enumerate(slots) if c[slot])


def asked(s: GameState) -> list[int]:
    """The absent seats the pending decision asks (a ruleset bug the checked engine reports)."""
    pend = s.pending
    gone = absent(s)
    if pend is None or not gone:
        return []
    if pend[0] == "choose":
        return [pend[1]] if pend[1] in gone else []
    return [p for p, _ in pend[1] if p in gone]


def violations(s: GameState, out: list[tuple[str, str]]) -> None:
    """Add the violation of :data:`ASKED`, if the pending decision asks an absent seat."""
    bad = asked(s)
    if bad:
        who = ", ".join(f"P{p + 1}" for p in bad)
        out.append((ASKED, f"{who} {'is' if len(bad) == 1 else 'are'} asked to decide while not playing"))
