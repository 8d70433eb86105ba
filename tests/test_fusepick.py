"""Choices picked inside the generated code in an unchecked random playout (interpreter/codegen/fusepick.py).

A fused function that reaches a `choose` (in a callee it ran into, optional or not) or a `simultaneously`
without `by` asks the playout's picker itself and returns at the chosen body, where the engine would have
suspended and picked. The game must be the apply loop's to the last step, under every step limit (a fused
call now ends at the body, so the engine's margin and the step count are both in play), and only the choice
with `by` (whose units wait for the engine's pick) still suspends.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Game, Ruleset

RULES = """game "Picks" { players 2..3
 step_limit 100000 }
enum Move { low, high }
counter per player pts
counter rounds
counter passes
proc act(p: player) {
  choose m from Move by p {
    if m == high { p.pts += 2 } else { p.pts += 1 }
  }
}
round {
  step s "S" {
    rounds += 1
    for p in players { do act(p) }
    for p in players {
      choose k from [q for q in [1, 2, 3, 4] where q > rounds] by p optional "pass" {
        p.pts += k
      } otherwise { passes += 1 }
    }
    simultaneously p in players choose c from [1, 2, 3] {
      p.pts += c
    }
    simultaneously k in [1, 2] choose x from [10, 20] by players[0] {
      players[0].pts += x + k
    }
    if rounds == 3 and passes >= 4 {
      choose z from [q for q in [1, 2] where q > rounds] by players[0] { passes += 1 }
    }
    if rounds >= 4 { end game }
  }
}
score(p) = p.pts
"""


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> tuple[Ruleset, Ruleset]:
    """The program fused, and single-stepped (``fuse=False``: no generated text picks, every choice suspends)."""
    path = tmp_path_factory.mktemp("picks") / "picks.rules"
    path.write_text(RULES)
    program, diags = check_file(str(path))
    assert program is not None and diags == []
    return Ruleset(program), Ruleset(program, fuse=False)


@pytest.fixture(scope="module")
def rules(both: tuple[Ruleset, Ruleset]) -> Ruleset:
    return both[0]


def _loop(game: Game, rng: random.Random) -> None:
    while not game.finished:
        for p in game.waiting_for():
            game.apply(rng.randrange(game.option_count(p)), p)


def _run(rules: Ruleset, players: int, seed: int, play: Callable[[Game, random.Random], object],
         check: bool = False) -> tuple[object, ...]:
    game = rules.new_game(players, seed, check_invariants=check)
    rng = random.Random(seed)
    play(game, rng)
    s = game.state
    assert s.pick is None  # the picker is the playout's alone
    return (game.digest(), s.status, game.error, s.steps, s.decisions, s.log, rng.random(), game.fields())


def test_picked_in_place_as_the_apply_loop_picks(both: tuple[Ruleset, Ruleset]) -> None:
    """The same game, save and draws as the single-stepped apply loop, also where a choice with no legal option
    and no `otherwise` stops it (the frame keeps the pc the choice's text set before raising)."""
    rules, plain = both
    ends = set()
    for players in (2, 3):
        for seed in range(6):
            loop = _run(plain, players, seed, _loop)
            ends.add(loop[1])
            assert _run(rules, players, seed, Game.random_playout) == loop, (players, seed)
            assert _run(rules, players, seed, _loop) == loop, (players, seed)
            assert _run(rules, players, seed, Game.random_playout, check=True)[3:7] == loop[3:7]
    assert ends == {"finished", "aborted"}


def test_only_the_choice_with_units_suspends(rules: Ruleset) -> None:
    """In an unchecked playout, the generated code returns True (suspended) only at the `by` choice, whose two
    units are P1's: every other choice was picked where it stands."""
    rules.new_game(3, 0).random_playout(random.Random(0))  # traced and compiled first
    game = rules.new_game(3, 2)
    seen: list[tuple[str, int]] = []

    def spy(frame: FrameType, event: str, arg: Any) -> None:
        if event == "return" and arg is True and frame.f_code.co_filename.startswith("<liturgy"):
            pend = game.state.pending
            assert pend is not None
            seen.append((pend[0], len(pend[1]) if pend[0] == "simul" else 0))

    sys.setprofile(spy)
    try:
        game.random_playout(random.Random(2))
    finally:
        sys.setprofile(None)
    assert game.finished and seen == [("simul", 2)] * 4


def test_every_step_limit_stops_where_the_apply_loop_stops(rules: Ruleset) -> None:
    total = _run(rules, 2, 2, _loop)[3]
    assert isinstance(total, int)
    try:
        for limit in range(1, total + 2, 3):
            rules.step_limit = limit
            assert _run(rules, 2, 2, Game.random_playout) == _run(rules, 2, 2, _loop), limit
    finally:
        rules.step_limit = 100000
