"""Views built from the view before them (engine/viewdelta.py, issue 32's cost on the web server) are the views
:meth:`GameViews.view` builds, part for part and in the same order, for every seat and a spectator.

Why so many games: a part is taken from the earlier view only when its inputs are equal in both states, and each
kind of input has its own game here: zones per card whose sight follows a host with card backs (smugglers), zones
`visible to` a computed group and `reveal … to` (whispers), counters `visible to owner` indexed by an enum
(sealed gardens), `size hidden` zones and counters `visible to` a group (small rulesets below), and the four seed
games (hundreds of cards, per-card counters, typed counters holding cards). The derivation is checked at each
state copy narration takes (before each log line) and across whole moves, and must share parts: a derivation that
built everything again would pass the equality and cut nothing.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.engine.causes import WatchedLog, _copy, watch
from liturgy.interpreter.engine.viewdelta import derive_view
from liturgy.interpreter.runtime.state import GameState

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"

SIZE_HIDDEN = """\
game "G" { players 2..2 }
card Gem { }
cards "cards.yaml"
zone pile: pile hidden of Gem size hidden
zone hand: per player set owner of Gem size hidden
zone shown: per player row owner of Gem
counter per card polish 0..9
round { step s "S" {
  for p in players {
    choose k from ["draw", "show"] by p {
      if k == "draw" { log "{} draws", p  move top(pile) to p.hand }
      else { log "{} shows a gem", p  move top(p.hand) to p.shown }
    }
    log "{} polishes", p
    for g in p.shown { g.polish += 1 }
  }
  if round >= 6 { end game }
} }
score(p) = size(p.hand)
"""

GROUPS = """\
game "G" { players 3..3 }
counter per player team 0..1
counter per player plan 0..9 = 5 visible to [q for q in players where q.team == owner.team]
counter war_chest 0..99 = 7 visible to [q for q in players where q.team == 1]
setup { players[1].team = 1  players[2].team = 1 }
round { step s "S" {
  for p in players {
    choose n from [0, 1] by p prompt "Change sides?" {
      log "{} picks a side", p
      p.team = n
      log "{} plans", p
      p.plan += 1
      war_chest += 1
    }
  }
  if round >= 5 { end game }
} }
score(p) = p.plan
"""


def _full(game: Game, state: GameState, player: int | None) -> dict[str, Any]:
    shell = copy.copy(game)
    shell.state = state
    return shell.view(player)


def _same(derived: dict[str, Any], full: dict[str, Any]) -> None:
    """Equal, in the same order (narration walks a view in its order: json.dumps keeps it)."""
    for part in ("zones", "counters"):
        assert json.dumps(derived[part]) == json.dumps(full[part]), part
    assert derived["viewer"] == full["viewer"]


def _shared(derived: dict[str, Any], before: dict[str, Any]) -> int:
    """How many zones and counters ``derived`` took from ``before`` as they were (the same object)."""
    return sum(derived[part][k] is before[part].get(k) for part in ("zones", "counters") for k in derived[part]
               if isinstance(derived[part][k], (dict, list)))


def _check(game: Game, moves: int, seed: int) -> int:
    """Play ``moves`` random decisions, deriving every seat's and a spectator's view at each state copy narration
    takes and across each move, checked against the full view; how many parts were shared."""
    rng = random.Random(seed)
    seats: list[int | None] = [*range(game.players), None]
    shared = 0
    for _ in range(moves):
        d = game.decision
        if d is None or game.finished:
            break
        for p in seats:
            watch(game, p)
        log = game.state.log
        assert isinstance(log, WatchedLog)
        start = {p: log.base[p] for p in seats}
        p0 = d.players[0]
        game.apply(rng.randrange(len(d.options[p0])), p0)
        log = game.state.log
        assert isinstance(log, WatchedLog)
        now = _copy(game.state)
        for p in seats:
            basis = start[p]
            view = _full(game, basis, p)
            across, _ = derive_view(game.ruleset, p, now, basis, view)  # a whole move at once
            _same(across, _full(game, now, p))
            seen = None
            for _, state in [*log.snaps[log.since.get(p, len(log.snaps)):], (len(log), now)]:
                derived, seen = derive_view(game.ruleset, p, state, basis, view, seen)
                _same(derived, _full(game, state, p))
                shared += _shared(derived, view)
                basis, view = state, derived
    return shared


@pytest.mark.parametrize("example,players", [("smugglers.rules", 2), ("whispers.rules", 4),
                                              ("sealed_gardens.rules", 2)])
def test_derived_views_are_the_views_in_the_examples(example: str, players: int) -> None:
    game = load_ruleset(str(EXAMPLES / example)).new_game(players, seed=3)
    assert _check(game, 60, seed=5) > 20


def test_derived_views_of_zones_whose_size_is_hidden(tmp_path: Path) -> None:
    (tmp_path / "cards.yaml").write_text("kind: Gem\nstart: pile\ncards:\n  - name: Ruby\n    count: 6\n"
                                         "  - name: Opal\n    count: 6\n", encoding="utf-8")
    path = tmp_path / "g.rules"
    path.write_text(SIZE_HIDDEN, encoding="utf-8")
    game = load_ruleset(str(path)).new_game(2, seed=1)
    assert _check(game, 40, seed=2) > 20
    assert game.view(1)["zones"]["hand"]["P1"] == "?"  # what was checked: a size another seat may not see


def test_derived_views_of_counters_visible_to_a_group(tmp_path: Path) -> None:
    path = tmp_path / "g.rules"
    path.write_text(GROUPS, encoding="utf-8")
    game = load_ruleset(str(path)).new_game(3, seed=1)
    assert _check(game, 40, seed=4) > 5
    plans = [game.view(p)["counters"]["plan"] for p in range(3)]
    assert any(v == "?" for plan in plans for v in plan.values())  # some plan was hidden from someone


@pytest.mark.parametrize("path,players,options,moves", [
    ("rulesets/bloodborne.rules", 3, {}, 60),
    ("rulesets/slay_the_spire.rules", 2, {"acts": "1"}, 25),
    ("rulesets/fury_of_dracula.rules", 3, {"length": "skirmish"}, 40),
    ("rulesets/betrayal.rules", 3, {}, 40),
])
def test_derived_views_are_the_views_in_the_seed_games(path: str, players: int, options: dict[str, str],
                                                       moves: int) -> None:
    game = load_ruleset(str(ROOT / path)).new_game(players, seed=7, options=options)
    assert _check(game, moves, seed=8) > 50


def test_other_names_are_built_whole() -> None:
    """A view built with other card names (the web's leak tests render with sentinel names) shares nothing with
    a state holding the game's own names."""
    game = load_ruleset(str(EXAMPLES / "smugglers.rules")).new_game(2, seed=3)
    basis = _copy(game.state)
    view = _full(game, basis, 0)
    renamed = _copy(game.state)
    renamed.tables = copy.copy(renamed.tables)
    renamed.tables.card_names = [f"‹card#{i}›" for i in range(len(renamed.tables.card_names))]
    derived, _ = derive_view(game.ruleset, 0, renamed, basis, view)
    _same(derived, _full(game, renamed, 0))
    assert _shared(derived, view) == 0 or not any(c for z in view["zones"].values() for c in
                                                  (z.values() if isinstance(z, dict) else [z]) if c)


@pytest.mark.parametrize("name,moves", [("bloodborne", 60), ("fury_of_dracula", 40), ("betrayal", 30)])
def test_the_view_a_seat_is_sent_is_built_from_its_last_and_is_the_view(name: str, moves: int) -> None:
    """The web server builds each seat's view from the one it last sent that seat (seatview.seat_view): what
    every seat and a spectator is sent is, move after move, the view built whole."""
    from liturgy.interpreter.web.tables import render
    from narration_frames import GAMES, new_table

    table = new_table(name)
    game = table.game
    rng = random.Random(GAMES[name][3])
    online = set(range(game.players))
    log_at: dict[int | None, int] = {}
    for _ in range(moves):
        d = game.decision
        for seat in [*range(game.players), None]:
            sent = render(table, seat, online, d, log_at.get(seat, 0))["view"]
            assert json.dumps(sent) == json.dumps(game.view(seat, log_at.get(seat, 0))), (seat, len(game.state.log))
            log_at[seat] = len(game.state.log)
        if d is None or game.finished:
            break
        p = d.players[0]
        game.apply(rng.randrange(len(d.options[p])), p)
