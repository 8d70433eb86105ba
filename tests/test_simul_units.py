"""`simultaneously … by`: one secret choice per unit, several units per player (issue 14, item 6).

docs/examples/scouts.rules: every scout card in the shared camp is sent, in secret, to a site, decided by the
leader of its crew. A player with two scouts is asked twice, one scout after the other; nobody learns another's
pending choice; the body binds the scout. Played in every compile mode, saved and loaded mid-collection, and
the random-playout shortcut makes the choices the driver loop makes.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.runtime.errors import IllegalChoice
from liturgy.interpreter.tools.leaks import LeakCheck

ROOT = Path(__file__).resolve().parents[1]
SCOUTS = ROOT / "docs" / "examples" / "scouts.rules"
MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]


def _game(players: int = 2, seed: int = 1, **mode: bool) -> Game:
    program, diags = check_file(str(SCOUTS))
    assert program is not None and diags == []
    return Ruleset(program, **mode).new_game(players, seed, check_invariants=True)


def _drive(game: Game, rng: random.Random) -> None:
    while not game.finished:
        for p in game.waiting_for():
            game.apply(rng.randrange(game.option_count(p)), p)


def test_each_player_decides_each_of_their_units_in_turn() -> None:
    game = _game()
    d = game.decision
    assert d is not None and d.simultaneous and d.players == (0, 1)
    assert d.options[0] == ("ford", "ridge", "ruin", "grove")
    assert d.prompt_for(0) == "Where does Owl go tonight?"
    assert d.prompt_for(1) == "Where does Fox go tonight?"
    game.apply(2, 0)  # Owl to the ruin
    d = game.decision
    assert d is not None and d.players == (0, 1)
    assert d.prompt_for(0) == "Where does Hawk go tonight?"  # P1's next scout
    # P2 learns nothing of P1's pending choice: not even that P1 has chosen all (P1 has not)
    assert game.view(1)["decision"]["committed"] == []
    game.apply(2, 0)  # Hawk to the ruin too
    assert game.view(1)["decision"]["committed"] == ["P1"]
    assert game.waiting_for() == (1,)
    with pytest.raises(IllegalChoice, match="already chosen"):
        game.apply(0, 0)
    game.apply(0)  # Fox (the only waiting player need not be named)
    assert game.decision is not None and game.decision.prompt_for(1) == "Where does Hare go tonight?"
    view = game.view(0)
    assert view["decision"]["committed"] == ["P1"] and "your_options" not in view["decision"]
    before = len(game.state.log)
    game.apply(1, 1)  # Hare to the ridge
    lines = [game.log_lines(None)[i] for i in range(before, before + 4)]
    assert lines == ["Owl reaches the ruin", "Hawk reaches the ruin", "Fox reaches the ford", "Hare reaches the ridge"]
    # ford and ridge each reached by one scout: P2 finds 2 + 1; the ruin was crowded
    assert game.view(None)["counters"]["finds"] == {"P1": 0, "P2": 3}
    assert game.state.decisions[:4] == [(0, 2), (0, 2), (1, 0), (1, 1)]


def test_every_compile_mode_plays_the_same_games() -> None:
    for players in (2, 3):
        for seed in range(3):
            seen = set()
            for mode in MODES:
                game = _game(players, seed, **mode)
                _drive(game, random.Random(seed))
                assert game.state.status == "finished", game.error
                seen.add((game.digest(), tuple(tuple(game.log_lines(v)) for v in (None, *range(players)))))
            assert len(seen) == 1


def test_random_playout_makes_the_driver_loops_choices() -> None:
    for seed in range(4):
        a, b = _game(3, seed), _game(3, seed)
        _drive(a, random.Random(seed))
        b.random_playout(random.Random(seed))
        assert a.digest() == b.digest() and a.state.decisions == b.state.decisions


def test_save_and_load_between_one_players_units() -> None:
    game = _game(3, 5)
    game.apply(1, 0)
    game.apply(3, 2)
    copy = load_ruleset(str(SCOUTS)).load_game(game.to_json())
    assert copy.decision == game.decision
    rng = random.Random(9)
    _drive(game, rng)
    _drive(copy, random.Random(9))
    assert copy.digest() == game.digest()


def test_no_view_or_log_leaks_a_pending_choice() -> None:
    """A commit changes nothing another player sees but who is still waiting; the card leak check stays quiet."""
    for seed in range(3):
        game = _game(3, seed)
        check = LeakCheck(game)
        rng = random.Random(seed)
        while not game.finished:
            assert check.check(game) is None
            p = game.waiting_for()[0]
            before = [game.view(v) for v in (None, *range(3))]
            game.apply(rng.randrange(game.option_count(p)), p)
            if game.state.pending is None or game.state.commits == {}:
                continue  # the last commit ran the body: the choices are out, by design
            for v, old in zip((None, *range(3)), before, strict=True):
                if v == p:
                    continue
                new = game.view(v)
                for view in (old, new):
                    view["decision"].pop("waiting_for")
                    view["decision"].pop("committed")
                assert new == old
        assert game.state.status == "finished"


UNITS = """
game "U" { players 2..2  step_limit 50 }
round {
  step s "S" {
    simultaneously k in [1, 2, 3] choose x from [10, 20] where x > k by NOBODY {
      log "{} {}", k, x
    }
    end game
  }
}
score(p) = 0
"""


def test_by_names_a_player_and_none_stops_the_game(tmp_path: Path) -> None:
    path = tmp_path / "u.rules"
    path.write_text(UNITS.replace("NOBODY", "1"), encoding="utf-8")
    _, diags = check_file(str(path))
    assert [d.code for d in diags] == ["E140"]
    for mode in MODES:
        path.write_text(UNITS.replace("NOBODY", "if k == 2 then none else players[0]"), encoding="utf-8")
        program, diags = check_file(str(path))
        assert program is not None and not [d for d in diags if d.is_error]
        game = Ruleset(program, **mode).new_game(2, 1)
        assert game.state.status == "aborted" and "no player to make the choice" in (game.error or "")
