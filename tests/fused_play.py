"""Fused against single-stepped play of one program, move by move: what tests/test_fuse_pairs.py (loop pairs in
Python locals) and tests/test_fuse_vars.py (loop variables in Python locals) both check.

A fused function holds step-machine state in Python locals and writes it back only where something can see it;
single-stepped play (`Ruleset(program, fuse=False)`) runs one instruction at a time. The two must agree on every
save after every decision, the digest, the end (finished, aborted and its error) and the step count, and must
stop at the same step under every step limit, since the limit cuts a fused run at any instruction.
"""

from __future__ import annotations

import random

from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Game, Ruleset

Run = tuple[object, ...]


def fused_and_plain(path: str) -> tuple[Ruleset, Ruleset]:
    """The ruleset at ``path`` compiled fused and single-stepped."""
    program, _ = check_file(path)
    assert program is not None
    return Ruleset(program), Ruleset(program, fuse=False)


def play(rules: Ruleset, seed: int, counter: int | None = None) -> Run:
    """A 2-player game with seeded random choices: every save, the digest, status, error and step count (index 4),
    and the game's counter slot ``counter`` at the end when given."""
    game: Game = rules.new_game(2, seed)
    rng = random.Random(seed)
    seen: list[object] = [game.to_json()]
    while not game.finished:
        for p in game.waiting_for():
            game.apply(rng.randrange(game.option_count(p)), p)
            seen.append(game.to_json())
    end = () if counter is None else (game.state.counters[counter],)
    return (seen, game.digest(), game.state.status, game.error, game.state.steps, *end)


def assert_same_at_step_limits(fused: Ruleset, plain: Ruleset, seed: int, stride: int = 1,
                               counter: int | None = None) -> None:
    """Fused and single-stepped play agree under every ``stride``-th step limit up to one past the game's length."""
    total = play(plain, seed, counter)[4]
    assert isinstance(total, int)
    for limit in range(1, total + 2, stride):
        runs = []
        for rules in (fused, plain):
            rules.step_limit = limit
            try:
                runs.append(play(rules, seed, counter))
            finally:
                rules.step_limit = 100000
        assert runs[0] == runs[1], (seed, limit)
