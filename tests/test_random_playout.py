"""`Game.random_playout` must play exactly like the apply loop it replaces (digest for digest)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import ROOT, load_ruleset
from harness_options import short_options
from liturgy.dsl.frontend.includes import main_rulesets
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Game, Ruleset

RULESETS = main_rulesets(sorted(str(p) for p in (ROOT / "rulesets").rglob("*.rules"))) + sorted(
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
    rules = load_ruleset(path)  # conftest's shared compile: a large game's costs 1-2 s of CPU
    counts = sorted({rules.min_players, min(4, rules.max_players)})
    for players in counts:
        for seed in range(8):
            check = seed % 2 == 0
            runs = []
            for play in (_loop, Game.random_playout):
                game = rules.new_game(players, seed, check_invariants=check, options=short_options(path, seed))
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


def test_playout_asks_each_entry_of_a_simultaneous_choice_in_turn() -> None:
    """`playout(pick)` asks while the choice is pending and records each answer before the next question, also
    for the entries of a simultaneous choice picked inside the step loop: a picker that reads the game sees the
    decisions one by one, as the apply loop would show them, and the game ends as the apply loop's does."""
    program, _ = check_file(str(ROOT / "rulesets" / "classic" / "goofspiel.rules"))
    assert program is not None
    rules = Ruleset(program)
    game = rules.new_game(2, 4)
    rng = random.Random(4)
    seen: list[tuple[int, bool]] = []

    def pick(n: int) -> int:
        seen.append((len(game.state.decisions), game.state.pending is not None))
        return rng.randrange(n)

    game.playout(pick)
    other = rules.new_game(2, 4)
    _loop(other, random.Random(4))
    assert seen == [(i, True) for i in range(len(game.state.decisions))]
    assert game.digest() == other.digest() and game.state.decisions == other.state.decisions


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


@pytest.mark.parametrize("stem", ["kuhn_poker", "goofspiel"])
def test_step_limit_boundary_is_the_same_in_both_drivers(stem: str) -> None:
    """A game that needs exactly N steps finishes under a limit of N and stops under N - 1, in both drivers.

    ``random_playout`` picks inside the step loop, so its step count must match the apply loop's
    (a suspension at a choice is not a step) to the last instruction.
    """
    program, _ = check_file(str(ROOT / "rulesets" / "classic" / f"{stem}.rules"))
    assert program is not None
    rules = Ruleset(program)
    game = rules.new_game(2, 7)
    game.random_playout(random.Random(7))
    assert game.state.status == "finished"
    needed = game.state.steps
    for limit, status in ((needed, "finished"), (needed - 1, "aborted")):
        rules.step_limit = limit
        outcomes = []
        for play in (_loop, Game.random_playout):
            game = rules.new_game(2, 7)
            play(game, random.Random(7))
            outcomes.append((game.state.status, game.state.steps, game.error, game.digest()))
        assert outcomes[0] == outcomes[1]
        assert outcomes[0][0] == status, (limit, outcomes[0])
        if status == "aborted":
            assert outcomes[0][1] == limit + 1 and f"step limit of {limit}" in str(outcomes[0][2])
