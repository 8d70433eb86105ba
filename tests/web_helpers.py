"""Shared by the web tests: which cards each seat was entitled to see at each move (the leak check's rule)."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from liturgy.interpreter.engine import Game
from liturgy.interpreter.tools.leaks import LeakCheck, _sentinel_tables

SENTINEL = re.compile(r"‹card#(\d+)›")
# keys of a save / the full state that must never reach a seat
STATE_KEYS = ('"seed"', '"rng"', '"frames"', '"pending"', '"commits"', '"digest"', '"decisions"', '"face_up"')


def entitlement(game: Game) -> list[list[int]]:
    """Per move (number of decisions made): per card, the mask of viewers entitled to it so far.

    Replays ``game`` from its seed, options and decisions with the leak check following it, so the
    entitlement is computed independently of the server's rendering (bit ``n`` is the spectator).
    """
    fresh = game.ruleset.new_game(game.players, game.seed, False, options=dict(game.options) or None)
    check = LeakCheck(fresh)
    out = [list(check.seen)]
    for p, c in game.state.decisions:
        fresh.apply(c, p)
        check._learn(fresh.state)
        out.append(list(check.seen))
    return out


def leaks_in(text: str, seat: int | None, move: int, seen: list[list[int]], players: int) -> list[str]:
    """The sentinel cards in ``text`` that ``seat`` (None: spectator) was not entitled to at ``move``,
    and any full-state key that appears in it."""
    bit = 1 << (players if seat is None else seat)
    bad = [f"card#{m.group(1)}" for m in SENTINEL.finditer(text) if not seen[move][int(m.group(1))] & bit]
    return bad + [k for k in STATE_KEYS if k in text]


def frame_leaks(frames: list[str], seat: int | None, seen: list[list[int]], players: int) -> list[str]:
    """Check every frame a connection received; the move a frame shows is the one it is checked at."""
    problems = []
    move = 0
    for text in frames:
        data: Any = json.loads(text)
        if isinstance(data, dict) and isinstance(data.get("move"), int):
            move = data["move"]
        # the frame as its reader decodes it: JSON may spell ‹ as \u2039
        plain = json.dumps(data, ensure_ascii=False)
        problems += [f"move {move}: {b}" for b in leaks_in(plain, seat, move, seen, players)]
    return problems


def sentinels(frames: list[str]) -> int:
    """How many sentinel names the frames hold in all (a check that found none proved nothing)."""
    return sum(len(SENTINEL.findall(json.dumps(json.loads(t), ensure_ascii=False))) for t in frames)


def sentinel_logs(game: Game, moves: int) -> dict[int | None, list[str]]:
    """Each viewer's whole log (None: the spectator's) after ``moves`` decisions of ``game``, replayed apart from
    the server and rendered with the sentinel names the server uses: what a page must hold once it has every
    state up to that move, however the lines were split between messages."""
    fresh = game.ruleset.new_game(game.players, game.seed, False, options=dict(game.options) or None)
    for p, c in list(game.state.decisions)[:moves]:
        fresh.apply(c, p)
    fresh.state.tables = _sentinel_tables(fresh.state.tables)  # this copy is never played on
    return {viewer: fresh.log_lines(viewer) for viewer in [*range(game.players), None]}


class Clock:
    """A monotonic clock a test moves by hand (patched over a web module's ``time``): rate limits and idle times
    are checked without waiting and without depending on the machine's speed. CPU clocks stay real."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return time.time()

    def thread_time(self) -> float:
        return time.thread_time()

    def process_time(self) -> float:
        return time.process_time()
