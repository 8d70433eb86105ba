"""`Game.random_playout` must play exactly like the apply loop it replaces (digest for digest)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import ROOT
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Game, Ruleset

RULESETS = sorted(str(p) for p in (ROOT / "rulesets").rglob("*.rules")) + sorted(
    str(p) for p in (ROOT / "docs" / "examples").glob("*.rules"))


def _loop(game: Game, rng: random.Random) -> int:
    n = 0
    while not game.finished:
        for p in game.waiting_for():
            game.apply(rng.randrange(game.option_count(p)), p)
            n += 1
    return n


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: Path(p).stem)
def test_random_playout_matches_the_apply_loop(path: str) -> None:
    program, _ = check_file(path)
    assert program is not None
    rules = Ruleset(program)
    counts = sorted({rules.min_players, min(4, rules.max_players)})
    for players in counts:
        for seed in range(8):
            check = seed % 2 == 0
            runs = []
            for play in (_loop, Game.random_playout):
                game = rules.new_game(players, seed, check_invariants=check)
                rng = random.Random(seed)
                n = play(game, rng)
                runs.append((n, game.digest(), game.state.status, game.error, rng.random()))
            assert runs[0] == runs[1], (path, players, seed)
            assert runs[0][0] == len(game.state.decisions)


def test_random_playout_continues_a_game_half_decided() -> None:
    """Started after some choices (a simultaneous one half-committed), it finishes like the loop."""
    program, _ = check_file(str(ROOT / "rulesets" / "classic" / "goofspiel.rules"))
    assert program is not None
    rules = Ruleset(program)
    digests = []
    for fast in (False, True):
        game = rules.new_game(2, 3)
        rng = random.Random(5)
        game.apply(rng.randrange(game.option_count(0)), 0)  # P1 commits, P2 has not yet
        assert game.waiting_for() == (1,)
        if fast:
            game.random_playout(rng)
        else:
            _loop(game, rng)
        digests.append(game.digest())
    assert digests[0] == digests[1]


def test_new_games_do_not_share_state() -> None:
    """`new_game` clones one template per player count and options: games must stay independent."""
    program, _ = check_file(str(ROOT / "rulesets" / "classic" / "kuhn_poker.rules"))
    assert program is not None
    rules = Ruleset(program)
    first = rules.new_game(2, 1)
    first_digest = first.digest()
    other = rules.new_game(2, 2)
    other.random_playout(random.Random(0))
    assert first.digest() == first_digest
    again = rules.new_game(2, 1)
    assert again.digest() == first_digest and again.state.zones == first.state.zones
