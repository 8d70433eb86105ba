"""A generated `for` loop writes its variable to ``env`` once, when it ends (interpreter/codegen/loopvars.py).

``env`` is part of every save, so the frame must hold what the per-turn writes leave: the last item after a
full loop, the item of a `break`, nothing new after a loop of no turns, and the item being run when the game
ends inside the loop. Each case compares the whole saved game (``Game.to_json``, frames included) across every
compile mode, at a decision that follows the loops. A frame holds only the variables some instruction may read
(compiler/liveness.py): step ``t``'s loops, which suspend, make ``c``, ``k`` and ``e`` such variables (step ``s``
ends the game before ``t`` runs).
"""
from __future__ import annotations

from collections.abc import Callable

from liturgy.interpreter.engine import Ruleset
from mode_helpers import MODES, compiled

LOOPS = '''game "Loops" { players 2..2
  step_limit 50 }
grid board 4 by 4 of int
counter total 0..100000
round {
  step s "S" {
    for c in range(4) {
      for r in range(4) { board[c, r] = c * 4 + r }
    }
    for k in range(10) {
      if k == 6 { break }
      total += k
    }
    for e in range(0) { total += 100 }
    for c in range(4) {
      for r in range(4) {
        if board[c, r] > 13 { total += board[c, r] }
      }
    }
    choose n from range(3) by players[0] { total += n }
    for k in range(5) {
      total += k
      if total > LIMIT { end game }
    }
    end game
  }
  step t "T" {
    for c in range(2) {
      for k in range(2) { choose z from range(2) by players[1] { total += z } }
    }
    for e in range(1) { choose z from range(2) by players[1] { total += z } }
  }
}
score(p) = total
'''


def _game(write_ruleset: Callable[..., str], text: str, mode: dict[str, bool]) -> Ruleset:
    return compiled(write_ruleset(text), mode)


def test_saves_hold_the_loop_variables_of_every_mode(write_ruleset: Callable[..., str]) -> None:
    text = LOOPS.replace("LIMIT", "1000")
    gen = _game(write_ruleset, text, {}).compiled.gen
    assert gen is not None and "_NOTHING" in gen.sources.dump()  # the loops are written the new way
    saves = [_game(write_ruleset, text, mode).new_game(2, 0).to_json() for mode in MODES]
    assert all(save == saves[0] for save in saves)
    envs = [frame[2] for frame in saves[0]["frames"] if "k" in frame[2]]
    assert envs and envs[0]["k"] == 6 and envs[0]["c"] == 3 and "e" not in envs[0]  # break at 6; no turn of e


def test_end_game_inside_a_loop_leaves_the_same_game(write_ruleset: Callable[..., str]) -> None:
    text = LOOPS.replace("LIMIT", "50")  # 44 before the choice, + 2: ends at k = 3
    ends = []
    for mode in MODES:
        game = _game(write_ruleset, text, mode).new_game(2, 0)
        game.apply(2)
        assert game.state.status == "finished" and "P1 52" in game.log_lines(None)[-1]  # 44 + 2 + 0 + 1 + 2 + 3
        ends.append((game.to_json(), game.digest()))
    assert all(end == ends[0] for end in ends)
