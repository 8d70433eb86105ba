"""A checked game picked in place (`random_playout`) stops at an invariant violation exactly as the apply loop does.

The step loop checks invariants at each decision before picking in place (interpreter/engine/game.py); a
violation there must leave the same error, step count, decisions and digest as the driver loop
``for p in waiting_for(): apply(rng.randrange(option_count(p)), p)``, in every compile mode.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset

MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]

RULES = '''game "V" { players 2..3
  step_limit 5000 }
counter per player pts 0..99
invariant "nobody reaches 7 points": all(p.pts < 7 for p in players)
round {
  step s "S" {
    for p in players {
      choose n from range(4) by p { p.pts += n }
    }
    if round >= 20 { end game }
  }
}
score(p) = p.pts
'''


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_a_violation_found_while_picking_in_place_stops_the_game_as_the_apply_loop_does(
        tmp_path: Path, mode: dict[str, bool]) -> None:
    path = tmp_path / "v.rules"
    path.write_text(RULES, encoding="utf-8")
    program, diags = check_file(str(path))
    assert program is not None, diags
    rules = Ruleset(program, **mode)
    stopped = 0
    for seed in range(6):
        fast = rules.new_game(2 + seed % 2, seed, check_invariants=True)
        fast.random_playout(random.Random(seed))
        slow = rules.new_game(2 + seed % 2, seed, check_invariants=True)
        rng = random.Random(seed)
        while not slow.finished:
            for p in slow.waiting_for():
                slow.apply(rng.randrange(slow.option_count(p)), p)
        assert (fast.error, fast.state.steps, fast.state.decisions, fast.digest()) == (
            slow.error, slow.state.steps, slow.state.decisions, slow.digest())
        stopped += fast.error is not None and "nobody reaches 7 points" in fast.error
    assert stopped >= 3  # the invariant does fail in these games
