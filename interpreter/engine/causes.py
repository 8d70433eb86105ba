"""Narration with its causes: what changed for a player, each change under the log line the player saw before it.

Why split at log lines: narration (engine/narration.py) compares two views, so it says *what* changed but not
*why* ("You lose 5 health", while the log said "P3 rolls the red die: 4 damage" and nothing about the other 1).
The engine already writes every log entry with its visibility, at the moment the rules reach it; so if the
narrating seat's view is snapshotted just before each log entry it may see is written, the changes between two
such snapshots happened after that line and before the next one: the line is the cause the player saw ("P3
rolls the red die: 4 damage" → "You lose 4 health"), and a change with no line of its own (a poison that logs
nothing) is still said, under the last line before it.

Why it leaks nothing: a snapshot is taken only at an entry the player may see, and is the player's own view at
that moment; a line only another seat sees neither splits the narration nor names a cause. The fuzz's
noninterference probe compares the caused narration in both worlds (tools/noninterference.py).

Why a list subclass and not a hook in the executors: the log is appended to by compiled closures and by generated
code alike (`s.log.append(...)`); a :class:`WatchedLog` put in place of a game's log by a narrating front end
(the terminal, the web page, the probe) sees both, and games nobody narrates (simulate, bench, bots) keep the
plain list and its speed. A clone of the state copies the entries into a plain list, so a bot's copy never
snapshots.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from liturgy.interpreter.engine.narration import narrate

if TYPE_CHECKING:
    from liturgy.interpreter.engine.game import Game

# one part of a narration: the log line it follows (None: no line the player saw came before it) and its changes
Caused = tuple[str | None, list[str]]
# at most this many changes in a timeline: more than one narration's (engine/narration.py), since a timeline does
# not net out (a card played, then moved on), yet a whole round of a 5-player game must fit above the question
TIMELINE_LINES = 24


class WatchedLog(list[tuple[Any, ...]]):
    """A game's log that snapshots each watching player's view just before an entry that player may see."""

    def __init__(self, entries: list[tuple[Any, ...]], game: Game) -> None:
        super().__init__(entries)
        self.game = game
        # per watching player: (the index of a visible entry, the player's view just before it was written)
        self.snaps: dict[int, list[tuple[int, dict[str, Any]]]] = {}

    def append(self, entry: tuple[Any, ...], /) -> None:
        if self.snaps:
            mask, n = entry[0], len(self)
            for p, snaps in self.snaps.items():
                if entry[2] == -1 or (mask >> p) & 1:  # -1: the game-over line, which everyone reads
                    snaps.append((n, self.game.view(p, log_from=n)))
        super().append(entry)

    def __reduce__(self) -> Any:  # saved or pickled as the plain list of entries it is
        return (list, (list(self),))


def watch(game: Game, player: int) -> None:
    """From now on, snapshot ``player``'s view before each log entry they may see (the narration's baseline is
    their view now). Cheap to call at every question: the watched log is put in place once per game state."""
    log = game.state.log
    if not isinstance(log, WatchedLog) or log.game is not game:
        log = WatchedLog(log, game)
        game.state.log = log
    log.snaps[player] = []


def narrate_caused(game: Game, player: int, before: dict[str, Any] | None) -> tuple[list[Caused], dict[str, Any]]:
    """What changed for ``player`` since ``before`` (their view when :func:`watch` was last called for them), as
    a timeline: first the changes before any log line they saw (cause None), then one part per visible line
    logged since, in order, with the changes after it and before the next (often none); and their view now (the
    next baseline). Without snapshots (the log was not watched since ``before``) it is the one first part, as
    plain narration. No narration at all (an empty list) when there is no ``before`` or nothing changed."""
    prog = game.ruleset.program
    log = game.state.log
    snaps = log.snaps.get(player, []) if isinstance(log, WatchedLog) else []
    now = game.view(player, log_from=len(log))
    if before is None:
        snaps.clear()
        return [], now
    parts: list[Caused] = []
    prev, cause = before, None
    for index, snap in [*snaps, (len(log), now)]:
        parts.append((cause, narrate(prog, prev, snap)))
        if index < len(log):
            cause = game.log_line(index, player)
        prev = snap
    snaps.clear()
    return (_bounded(parts) if any(lines for _, lines in parts) else []), now


def _bounded(parts: list[Caused]) -> list[Caused]:
    """At most :data:`TIMELINE_LINES` changes in all (a whole round of a 5-player game must fit above the question):
    the changes past it are left out, and the last part kept says how many."""
    total = sum(len(lines) for _, lines in parts)
    if total <= TIMELINE_LINES:
        return parts
    out: list[Caused] = []
    room = TIMELINE_LINES - 1
    for cause, lines in parts:
        out.append((cause, lines[:max(room, 0)]))
        room -= len(out[-1][1])
    last = max(i for i, (_, lines) in enumerate(out) if lines)
    out[last][1].append(f"… and {total - TIMELINE_LINES + 1} more changes")
    return out


def caused_lines(parts: list[Caused]) -> list[str]:
    """A timeline as lines to read where the log is not beside it (the web page's narration, the fuzz's probe):
    each visible line followed by changes is quoted before them ("After “P3 rolls the red die: 4 damage”:",
    then "  You lose 4 health (4 left)"); changes before any line come first, unheaded."""
    out: list[str] = []
    for cause, lines in parts:
        if cause is None:
            out.extend(lines)
        elif lines:
            out.append(f"After “{cause}”:")
            out.extend(f"  {line}" for line in lines)
    return out
