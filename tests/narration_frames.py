"""Every seat's narration frames over whole games, rendered as `liturgy serve` renders them (issue 32's cost).

Why a recorder: narration is the costliest part of a state the web server sends (each seat's views before every
log line it may see), and making it cheaper must not change a word any seat is told. ``frames`` plays a game with
seeded random choices and, after each decision, renders every watcher's state with :func:`render` exactly as
:meth:`Lobby.broadcast` does (every seat connected, and spectators), so a test can compare what each seat was
told, move by move, with what it was told before a change (tests/test_narration_frames.py).
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import json
import random
from typing import Any

from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.web.tables import Table, render

# the four seed games, as the frames test plays them: (ruleset, players, options, seed, decisions at most)
GAMES: dict[str, tuple[str, int, dict[str, str], int, int]] = {
    "bloodborne": ("rulesets/bloodborne.rules", 3, {}, 11, 5000),
    "slay_the_spire": ("rulesets/slay_the_spire.rules", 2, {"acts": "1"}, 12, 5000),
    "fury_of_dracula": ("rulesets/fury_of_dracula.rules", 3, {"length": "skirmish"}, 13, 5000),
    "betrayal": ("rulesets/betrayal.rules", 3, {}, 2, 5000),
}


_TABLES = itertools.count()


def new_table(name: str) -> Table:
    """A table of the named seed game at its first decision, every seat a person's."""
    path, players, options, seed, _ = GAMES[name]
    game: Game = load_ruleset(path).new_game(players, seed=seed, options=options)
    # a table id of its own per call: the narration sent to each (table, seat) is remembered per process
    return Table(id=f"frames-{name}-{next(_TABLES)}", key=name, game=game, seats=["human"] * players, seat_hashes=[],
                 host_hash="", created=0.0)


def frames(name: str, spectators: int = 1) -> dict[str, list[list[str]]]:
    """Per watcher ("P1"…, "spectator"), the narration of every state it was sent, one list per decision."""
    table = new_table(name)
    game = table.game
    rng = random.Random(GAMES[name][3])
    watchers: list[int | None] = [*range(game.players), *([None] * spectators)]
    online = set(range(game.players))
    log_at = dict.fromkeys(range(len(watchers)), 0)
    out: dict[str, list[list[str]]] = {("spectator" if s is None else f"P{s + 1}"): [] for s in watchers}
    for _ in range(GAMES[name][4]):
        d = game.decision
        made: dict[tuple[int | None, int], dict[str, Any]] = {}
        for i, s in enumerate(watchers):  # as Lobby.broadcast: one rendering per (seat, log lines it has)
            msg = made.get((s, log_at[i]))
            if msg is None:
                msg = made[s, log_at[i]] = render(table, s, online, d, log_at[i])
            log_at[i] = len(game.state.log)
            if i < game.players or i == game.players:  # the spectators are alike: record one
                out["spectator" if s is None else f"P{s + 1}"].append(msg["narration"])
        if d is None or game.finished:
            break
        p = d.players[0]
        game.apply(rng.randrange(len(d.options[p])), p)
    return out


def digest(recorded: dict[str, list[list[str]]]) -> str:
    """One hash of everything recorded, to pin in a test."""
    return hashlib.sha256(json.dumps(recorded, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def record(path: str) -> None:
    """Write every seed game's frames to ``path`` (gzip, JSON): the recording tests/test_narration_frames.py
    compares with. Re-record only for a change that is meant to change what seats are told, and say why."""
    data = json.dumps({name: frames(name, spectators=2) for name in GAMES}, sort_keys=True, ensure_ascii=False)
    with open(path, "wb") as f:
        f.write(gzip.compress(data.encode(), mtime=0))


if __name__ == "__main__":  # python tests/narration_frames.py tests/narration_frames.json.gz
    import sys

    record(sys.argv[1])
