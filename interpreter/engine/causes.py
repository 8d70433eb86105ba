"""Narration with its causes: what changed for a player, each change under the log line the player saw before it.

Why split at log lines: narration (engine/narration.py) compares two views, so it says *what* changed but not
*why* ("You lose 5 health", while the log said "P3 rolls the red die: 4 damage" and nothing about the other 1).
The engine already writes every log entry with its visibility, at the moment the rules reach it; so if the
state is copied just before each log entry a narrating seat may see is written, the changes between the seat's
views of two such copies happened after that line and before the next one: the line is the cause the player saw ("P3
rolls the red die: 4 damage" → "You lose 4 health"), and a change with no line of its own (a poison that logs
nothing) is still said, under the last line before it.

Why it leaks nothing: the timeline is split only at entries the player may see, each part compares the
player's own views at those moments; a line only another seat sees neither splits the narration nor names a
cause. The fuzz's noninterference probe compares the caused narration in both worlds (tools/noninterference.py).

Why a list subclass and not a hook in the executors: the log is appended to by compiled closures and by generated
code alike (`s.log.append(...)`); a :class:`WatchedLog` put in place of a game's log by a narrating front end
(the terminal, the web page, the probe) sees both, and games nobody narrates (simulate, bench, bots) keep the
plain list and its speed. A clone of the state copies the entries into a plain list, so a bot's copy never
copies states.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from liturgy.interpreter.engine.narration import narrate
from liturgy.interpreter.engine.viewdelta import derive_view

if TYPE_CHECKING:
    from liturgy.interpreter.engine.game import Game
    from liturgy.interpreter.runtime.state import GameState

# one part of a narration: the log line it follows (None: no line the player saw came before it) and its changes
Caused = tuple[str | None, list[str]]
# at most this many changes in a timeline: more than one narration's (engine/narration.py), since a timeline does
# not net out (a card played, then moved on), yet a whole round of a 5-player game must fit above the question
TIMELINE_LINES = 24
# at most this many state copies kept per game: a seat that is watched but not narrated to (a page closed) would
# otherwise keep one per line to the game's end; past it, the oldest lines' changes are said with the first part
MAX_COPIES = 256


class WatchedLog(list[tuple[Any, ...]]):
    """A game's log that, just before an entry some watching seat may see is written, keeps a copy of the state.

    One copy serves every watching seat (a seat's view of it is built only when that seat is narrated to), and a
    copy is the state's counters and zones, not its log: some 20 times cheaper than a view, so a web table with
    several seats watching pays little per line."""

    def __init__(self, entries: list[tuple[Any, ...]], game: Game) -> None:
        super().__init__(entries)
        self.game = game
        # (the index of an entry, the state just before it was written), for entries some watcher may see
        self.snaps: list[tuple[int, GameState]] = []
        # per watching seat (None: a spectator): its visibility bit, and where in ``snaps`` its narration starts
        self.bits: dict[int | None, int] = {}
        self.since: dict[int | None, int] = {}
        # per watching seat: the state when it was last watched (its narration's baseline, whose view the caller
        # holds): a first line logged before anything changed needs no view of its own
        self.base: dict[int | None, GameState] = {}

    def append(self, entry: tuple[Any, ...], /) -> None:
        if self.bits and (entry[2] == -1 or any((entry[0] >> b) & 1 for b in self.bits.values())):
            if len(self.snaps) >= MAX_COPIES:  # a seat nobody narrates to any more must not hold memory for ever
                del self.snaps[0]
                self.since = {k: max(v - 1, 0) for k, v in self.since.items()}
            self.snaps.append((len(self), _copy(self.game.state)))
        super().append(entry)

    def __reduce__(self) -> Any:  # saved or pickled as the plain list of entries it is
        return (list, (list(self),))


def _copy(s: GameState) -> GameState:
    """What a view reads of a state (counters, zones, cards' places and faces, the pending choice), copied as
    :meth:`GameState.clone` copies it, without the log, the decisions and the call frames a view does not read."""
    c = copy.copy(s)
    c.counters = s.counters[:]
    c.zones = [z[:] for z in s.zones]
    c.card_zone = s.card_zone[:]
    c.face_up = set(s.face_up)
    c.shown = dict(s.shown)
    c.commits = dict(s.commits)
    c.log = []
    # narration reads a copy's zones and counters only: without its pending question, a view of it skips the
    # question's labels and prompt (a third of a view's cost in some games), and the zones and counters are
    # built exactly as from the state itself
    c.pending = None
    return c


def watch(game: Game, player: int | None, base: GameState | None = None) -> None:
    """From now on, keep what ``player`` (None: a spectator) sees before each log entry they may see (the
    narration's baseline is their view now). Cheap to call at every question: the watched log is put in place
    once per game state, and copies no seat needs any more are let go. ``base``: a :func:`_copy` of the state
    now that the caller has made and keeps unchanged (the noninterference probe keeps one as its own baseline),
    taken as the baseline instead of a second copy alike."""
    if not game.ruleset.program.narration_causes:  # `describe narration { causes = "off" }`: no copies at all
        return
    log = game.state.log
    if not isinstance(log, WatchedLog) or log.game is not game:
        log = WatchedLog(log, game)
        game.state.log = log
    log.bits[player] = game.state.tables.n if player is None else player
    log.since[player] = len(log.snaps)
    log.base[player] = _copy(game.state) if base is None else base
    drop = min(log.since.values())
    if drop:
        del log.snaps[:drop]
        log.since = {k: v - drop for k, v in log.since.items()}


def _seen(game: Game, log: WatchedLog, player: int | None, before: dict[str, Any],
          now: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """``player``'s view just before each entry they may see, logged since :func:`watch` was last called.

    Narration reads a view's zones and counters, which a state's counters and cards decide: a copy alike to the
    one before it (nothing happened between two lines) shares its view, one alike to the baseline (a line
    logged before anything changed) shares ``before``, and one alike to the state now shares ``now``. Only the
    others are viewed, each built from the view before it (engine/viewdelta.py: only the zones and counters that
    changed are built again), since a view is the costliest part of narration and each seat needs its own."""
    if player not in log.since:
        return []
    bit = log.bits[player]
    out: list[tuple[int, dict[str, Any]]] = []
    last = log.base.get(player)
    # the state ``view`` is of (the baseline copy, a copy, or the game's state for ``now``: its names are the ones
    # the view was built with) and which cards the viewer sees there, once known
    basis, seen = last, None
    view = before
    for index, state in log.snaps[log.since[player]:]:
        if log[index][2] == -1 or (log[index][0] >> bit) & 1:
            if last is None or not _alike(last, state):
                if _alike(state, game.state):
                    view, basis, seen = now, game.state, None
                elif basis is None:
                    shell = copy.copy(game)
                    shell.state = state
                    view, basis, seen = shell.view(player), state, None
                else:  # built from the view before it: only what changed (engine/viewdelta.py)
                    view, seen = derive_view(game.ruleset, player, state, basis, view, seen)
                    basis = state
                last = state
            out.append((index, view))
    return out


def _alike(a: GameState, b: GameState) -> bool:
    """Whether two copies hold the same counters and cards (compared in C, far cheaper than a view): lines
    logged one after another with nothing done between them share one view."""
    return a.counters == b.counters and a.zones == b.zones and a.face_up == b.face_up and a.shown == b.shown


def narrate_caused(game: Game, player: int | None, before: dict[str, Any] | None,
                   now: dict[str, Any] | None = None) -> tuple[list[Caused], dict[str, Any]]:
    """What changed for ``player`` since ``before`` (their view when :func:`watch` was last called for them), as
    a timeline: first the changes before any log line they saw (cause None), then one part per visible line
    logged since, in order, with the changes after it and before the next (often none); and their view now (the
    next baseline; ``now`` when the caller has it). Without copies (the log was not watched since ``before``) it
    is the one first part, as plain narration. No narration at all (an empty list) when there is no ``before``
    or nothing changed."""
    prog = game.ruleset.program
    log = game.state.log
    if now is None:
        now = game.view(player, log_from=len(log))
    if before is None:
        return [], now
    seen = _seen(game, log, player, before, now) if isinstance(log, WatchedLog) else []
    parts: list[Caused] = []
    prev, cause = before, None
    for index, view in [*seen, (len(log), now)]:
        parts.append((cause, [] if view is prev else narrate(prog, prev, view)))
        if index < len(log):
            cause = game.log_line(index, player)
        prev = view
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
