"""Group visibility (issue 14, item 4): zones `visible to` a computed group, `log to` a group, `reveal … to`.

Played on docs/examples/whispers.rules (heroes and a traitor chosen in round 2) and on small rulesets written
here: what each player's view and log show, how the group follows the state, that every compile mode agrees,
that saves and digests carry the cards shown to a group, and that the leak check both passes the real views
and catches a view that shows a group's cards to someone outside it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.tools.leaks import LeakCheck

ROOT = Path(__file__).resolve().parent.parent
WHISPERS = ROOT / "docs" / "examples" / "whispers.rules"
MODES: list[dict[str, bool]] = [{}, {"inline_fns": False}, {"stmtgen": False},
                                {"codegen": False, "stmtgen": False}, {"fuse": False}]

SIDES = '''game "Sides" { players 3..4 }
card Note { n: int }
cards "notes.yaml"
counter per player side 0..1
fn team(q: player) -> list of player = [p for p in players where p.side == q.side]
zone pile: deck hidden of Note
zone board: set of Note visible to [p for p in players where p.side == 0]
zone pocket: per player set of Note visible to team(owner)
setup {
  move top(pile) to board
  for p in players { move top(pile) to p.pocket }
}
round {
  step go {
    choose q from players by first prompt "Who turns?" {
      q.side = 1
      let c = top(pile)
      reveal c to team(q)
      log to team(q) "{} whispers {}", q, c
      log "{} turned", q
    }
    choose keep from [true, false] by first {
      if keep { move top(pile) to board }
    }
    end game
  }
}
score(p) = p.side
'''
NOTES = "kind: Note\nstart: pile\ncards:\n" + "".join(f"  - {{name: N{i}, n: {i}}}\n" for i in range(12))


@pytest.fixture
def sides(tmp_path: Path) -> Callable[..., Game]:
    (tmp_path / "sides.rules").write_text(SIDES, encoding="utf-8")
    (tmp_path / "notes.yaml").write_text(NOTES, encoding="utf-8")

    def new(players: int = 3, seed: int = 1, **mode: bool) -> Game:
        program, diags = check_file(str(tmp_path / "sides.rules"))
        assert program is not None, diags
        return Ruleset(program, **mode).new_game(players, seed)

    return new


def _zone(game: Game, viewer: int | None, name: str) -> Any:
    return game.view(viewer)["zones"][name]


def test_a_group_zone_is_seen_by_the_group_as_it_is_now(sides: Callable[..., Game]) -> None:
    game = sides()
    board = _zone(game, 0, "board")
    assert board != ["?"] and all(_zone(game, p, "board") == board for p in range(3))  # everyone is side 0
    assert _zone(game, None, "board") == ["?"]  # the spectator is in no group
    assert _zone(game, 1, "pocket")["P3"] != ["?"]  # one side: every pocket is seen by all
    game.apply(2)  # P3 turns
    assert _zone(game, 2, "board") == ["?"] and _zone(game, 0, "board") == board  # P3 left the group at once
    pockets = _zone(game, 2, "pocket")
    assert pockets["P1"] == ["?"] and pockets["P2"] == ["?"] and pockets["P3"] != ["?"]
    assert _zone(game, 0, "pocket")["P3"] == ["?"] and _zone(game, 0, "pocket")["P2"] != ["?"]


def test_log_and_reveal_to_a_group(sides: Callable[..., Game]) -> None:
    game = sides(players=4)
    game.apply(3)  # P4 turns: its team is P4 alone
    whisper = [line for line in game.log_lines(3) if "whispers" in line]
    assert len(whisper) == 1 and "a hidden card" not in whisper[0]
    for p in (0, 1, 2, None):
        assert not any("whispers" in line for line in game.log_lines(p))
        assert any("turned" in line for line in game.log_lines(p))
    shown = dict(game.state.shown)
    assert list(shown.values()) == [1 << 3]  # the card is shown to P4 only until it moves
    (card,) = shown
    game.apply(0)  # keep: the top card moves to the board, and no longer shown to P4 alone
    assert card not in game.state.shown


def test_every_compile_mode_agrees(sides: Callable[..., Game]) -> None:
    for seed in range(12):
        seen = []
        for mode in MODES:
            game = sides(3 + seed % 2, seed, **mode)
            game.random_playout(random.Random(seed))
            seen.append((game.digest(), [game.log_lines(v) for v in (None, 0, 1, 2)],
                         [game.view(v)["zones"] for v in (None, 0, 1, 2)]))
        assert all(other == seen[0] for other in seen[1:]), seed
    program, _ = check_file(str(WHISPERS))
    assert program is not None
    for seed in range(8):
        digests = set()
        for mode in MODES:
            game = Ruleset(program, **mode).new_game(3 + seed % 3, seed)
            game.random_playout(random.Random(seed))
            assert game.error is None
            digests.add(game.digest())
        assert len(digests) == 1, seed


def test_a_save_keeps_the_cards_shown_to_a_group(sides: Callable[..., Game]) -> None:
    game = sides(players=4)
    game.apply(1)
    assert game.state.shown
    data = json.loads(json.dumps(game.to_json()))
    loaded = game.ruleset.load_game(data)
    assert loaded.state.shown == game.state.shown and loaded.digest() == game.digest()
    assert loaded.view(1) == game.view(1)
    twin = game.clone()
    twin.apply(0)
    assert game.state.shown and not twin.state.shown  # a clone's shown cards are its own


def test_the_digest_counts_cards_shown_to_a_group(sides: Callable[..., Game]) -> None:
    game = sides(players=4)
    game.apply(1)
    before = game.digest()
    game.state.shown.clear()
    assert game.digest() != before


@pytest.mark.parametrize("seed", range(6))
def test_the_leak_check_passes_whispers(seed: int) -> None:
    rules = load_ruleset(str(WHISPERS))
    game = rules.new_game(3 + seed % 3, seed)
    leaks = LeakCheck(game)
    rng = random.Random(seed)
    while not game.finished:
        for p in game.waiting_for():
            game.apply(rng.randrange(game.option_count(p)), p)
        assert leaks.check(game) is None


def test_the_leak_check_catches_a_group_zone_shown_to_everyone(sides: Callable[..., Game]) -> None:
    game = sides()
    leaks = LeakCheck(game)
    game.apply(2)  # P3 turns; from now on it must not see the board
    assert leaks.check(game) is None
    board = game.state.tables.zone_names.index("board")
    game.state.tables.zone_vis_mask[board] = (2 << 3) - 1  # a broken renderer: the board shown to all
    problem = leaks.check(game)
    assert problem is not None and "P3 is shown" in problem


@pytest.mark.parametrize(("text", "code"), [
    ('zone z: set visible to 3\nround { step s { move top(z) to z  end game } }', "E390"),
    ('zone z: set visible to [true]\nround { step s { move top(z) to z  end game } }', "E390"),
    ('zone z: set public\nround { step s { reveal z to "P1"  end game } }', "E390"),
    ('zone z: set visible to [random(players)]\nround { step s { move top(z) to z  end game } }', "E171"),
    ('zone z: set visible to owner\nround { step s { move top(z) to z  end game } }', "E102"),  # shared: no owner
])
def test_a_wrong_group_is_refused(tmp_path: Path, text: str, code: str) -> None:
    path = tmp_path / "g.rules"
    path.write_text('game "G" { players 2..3 }\n' + text + "\nscore(p) = 0\n", encoding="utf-8")
    program, diags = check_file(str(path))
    assert program is None
    assert [d.code for d in diags if d.is_error] == [code], diags
