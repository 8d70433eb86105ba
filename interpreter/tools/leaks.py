"""Does a player's view or log ever name a card that player was never shown?

The fuzz harness renders every view twice over: once for the game, once with
each card's display name replaced by a unique sentinel (``‹card#17›``).  Any
sentinel in a player's rendered output must belong to a card that player was
entitled to see:

* cards shown in zones must be visible to the viewer *now*;
* cards named in the log, in decision options or in per-card counters must
  have been visible to the viewer at some point so far.

Entitlement is recomputed here from the declared zone visibilities (a `visible to`
zone's group by its own expression) and the revealed and shown sets, independently
of the rendering code under test.  A card that is
shown only for a moment inside a step (revealed, then put back) is known from
the log entry that recorded it, whose "everyone who may read every card in
this line" mask is taken as the entitlement at that moment.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from liturgy.interpreter.engine import Game
from liturgy.interpreter.runtime.state import GameState, Tables

SENTINEL = re.compile(r"‹card#(\d+)›")


def _sentinel_tables(tables: Tables) -> Tables:
    names = [f"‹card#{i}›" for i in range(len(tables.card_names))]
    return dataclasses.replace(tables, card_names=names)


def _strings(value: Any, where: str, out: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    """Every string inside a view that holds a sentinel (no other string can name a card), with a path saying
    where it sits, in the view's order. A list filled in place rather than nested generators, and a leaf's path
    written only when the leaf holds a sentinel: the fuzz harness walks every view of every probe this way, and
    the walk itself was a tenth of a fuzzed game's CPU."""
    found: list[tuple[str, str]] = [] if out is None else out
    if isinstance(value, str):
        if "‹" in value:
            found.append((where, value))
    elif isinstance(value, dict):
        for k, v in value.items():
            key = str(k)
            if "‹" in key:
                found.append((where, key))
            if isinstance(v, str):
                if "‹" in v:
                    found.append((f"{where}.{k}", v))
            elif isinstance(v, dict | list | tuple):
                _strings(v, f"{where}.{k}", found)
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            if isinstance(v, str):
                if "‹" in v:
                    found.append((f"{where}[{i}]", v))
            elif isinstance(v, dict | list | tuple):
                _strings(v, f"{where}[{i}]", found)
    return found


def _view_strings(view: dict[str, Any], bit: int, now: list[int]) -> list[tuple[str, str]]:
    """:func:`_strings` of a view, or none when no card it names could be a leak: every sentinel in the view's
    JSON text (C-speed, where the walk was a tenth of a fuzzed game's CPU) names a card the viewer (``bit``) is
    entitled to see *now*. That entitlement is the stricter one (what a viewer may see now it has also seen:
    ``_learn`` adds it first), so no string of the view can be reported, and leaving them out changes no
    verdict and no report; any other view is walked as before."""
    try:
        text = json.dumps(view, ensure_ascii=False)
    except (TypeError, ValueError):
        return _strings(view, "view")
    if all(int(c) < len(now) and now[int(c)] & bit for c in set(SENTINEL.findall(text))):
        return []
    return _strings(view, "view")


class LeakCheck:
    """Follows one game and reports the first card identity shown to a player who never saw it.

    Viewer ``n`` (one past the last player) is the spectator, who is entitled
    only to cards visible to everyone.
    """

    def __init__(self, game: Game) -> None:
        t = game.state.tables
        self.n = t.n
        self.card_args = [f.card_args for f in game.ruleset.compiled.log_formats]
        self.tables = _sentinel_tables(t)
        self.seen = [0] * len(t.card_names)  # card -> bitmask of viewers who have seen it
        self.log_done = 0
        self._learn(game.state)

    # ------------------------------------------------------------ entitlement
    def _now(self, s: GameState) -> list[int]:
        """Who may see each card right now, from the declared zone visibilities."""
        t = s.tables
        spectator = 1 << self.n
        everyone = (1 << self.n) - 1 | spectator
        now = [0] * len(t.card_names)
        for zi, cards in enumerate(s.zones):
            vis = t.zone_vis[zi]
            owner = self._owner(s, zi)
            if vis == "public":
                mask = everyone
            elif vis in ("owner", "secret") and owner >= 0:
                mask = 1 << owner
            elif vis == "group":  # the ruleset's own `visible to` expression, evaluated on this state
                mask = t.zone_group[zi](s)
            else:
                continue
            for c in cards:
                now[c] = mask
        for c, mask in s.shown.items():  # `reveal … to`: shown to those players until it moves
            now[c] |= mask
        for c in s.face_up:
            now[c] = everyone
        return now

    @staticmethod
    def _owner(s: GameState, zi: int) -> int:
        """Who owns zone ``zi`` now: a zone per card `as host` takes the owner of the zone its host lies in."""
        t = s.tables
        seen = set()
        while t.zone_host and t.zone_host[zi] >= 0 and zi not in seen:
            seen.add(zi)
            zi = s.card_zone[t.zone_host[zi]]
        return -1 if zi in seen else t.zone_owner[zi]

    def _learn(self, s: GameState) -> None:
        seen = self.seen
        for c, mask in enumerate(self._now(s)):
            if mask:
                seen[c] |= mask
        for mask, full, fmt_id, values in s.log[self.log_done:]:
            if fmt_id < 0:
                continue
            shown = mask & full  # bit n is the spectator: set on public lines whose cards everyone may see
            for i in self.card_args[fmt_id]:
                v = values[i]
                for c in v if isinstance(v, tuple) else (v,):
                    if isinstance(c, int):
                        seen[c] |= shown

    # ------------------------------------------------------------ the check
    def check(self, game: Game, full_view: bool = True) -> str | None:
        """Update what each viewer has seen, then look for leaks.

        New log lines and the current options are checked every time; the
        whole ``view`` (zones and per-card counters, which are a function of
        the current state alone) only when ``full_view`` is set, because
        rendering every viewer's full view after every decision would cost
        several times the game itself.
        """
        s = game.state
        self._learn(s)
        probe = game.clone()
        probe.state.tables = self.tables
        probe.state.log = s.log[self.log_done:]
        self.log_done = len(s.log)
        now = self._now(s) if full_view else []
        decision = probe.decision
        for viewer in range(self.n + 1):
            player = None if viewer == self.n else viewer
            shown: list[tuple[str, str]] = [("log", line) for line in probe.log_lines(player)]
            if full_view:
                shown += _view_strings(probe.view(player, asked=(decision,)), 1 << viewer, now)
            if decision is not None and player in decision.options:
                shown += [("options", label) for label in decision.options[player]]
            problem = self._leak(game, viewer, shown, now)
            if problem:
                return problem
        return None

    def _leak(self, game: Game, viewer: int, shown: list[tuple[str, str]], now: list[int]) -> str | None:
        bit = 1 << viewer
        who = "the spectator" if viewer == self.n else f"P{viewer + 1}"
        for where, text in shown:
            for m in SENTINEL.finditer(text):
                c = int(m.group(1))
                current = where.startswith(("view.zones", "view.counters"))
                if not (now[c] if current else self.seen[c]) & bit:
                    name = game.state.tables.card_names[c]
                    return (f"{who} is shown {name} (card {c}) in {where}, but was never entitled to see it: "
                            f"{text!r} (step {game.step_name() or 'setup'})")
        return None
