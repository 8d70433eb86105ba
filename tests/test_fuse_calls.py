"""A fused call that runs through a `do` into the callee and back (interpreter/codegen/fuse.py, session 17).

A proc's `do` pushes the callee's frame and the fused function goes on in it: the callee's `choose` is called
there, and after the decision the body's `return` goes on into the caller's code (the frame carries the call
site's copy of the callee's Code, which knows where its caller goes on). None of it may show: after every
decision the step count and the whole save (frames, pcs and environments) equal the unfused game's, and so do
the step-limit errors, the rule errors raised inside a callee, clones and random playouts.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

from conftest import ROOT
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset, load_ruleset
from test_fuse import _clone_midway, _generated_calls, _play, _record

CALLS = """game "Calls" {
  players 2..3
  step_limit 5000
}

enum Move { low, high, stop }

counter per player pts 0..50
counter turns 0..100

proc ask(p: player) {
  choose m from Move by p {
    if m == high { p.pts += 2 }
    if m == low { p.pts += 1 }
    let q = 60 / (17 - p.pts)
    turns += 1
    log "{} plays {}", p, m
  }
}

proc chain(p: player, n: int) {
  if n > 0 {
    do ask(p)
    do chain(p, n - 1)
  }
}

round {
  step play "Play" {
    for p in players {
      do ask(p)
      if p.pts > 3 { do ask(p) }
    }
    do chain(players[0], 2)
    if turns > 30 { end game }
  }
}

score(p) = p.pts
"""


def _pair(path: str) -> tuple[Ruleset, Ruleset]:
    program, _ = check_file(path)
    assert program is not None
    return Ruleset(program), Ruleset(program, fuse=False)


def test_calls_run_through_are_invisible(write_ruleset: Callable[..., str]) -> None:
    """Two call sites of `ask` in a loop, one in a recursive proc, a rule error inside the callee's body on some
    seeds: saves after every decision, digests, errors and step counts equal the unfused game's."""
    fused, plain = _pair(write_ruleset(CALLS))
    statuses = set()
    for seed in range(16):
        for players in (2, 3):
            runs = []
            for rules in (fused, plain):
                runs.append(_record(rules, players, seed, check=seed % 2 == 0))
            assert runs[0] == runs[1], (seed, players)
            statuses.add(runs[0][2])
    assert statuses == {"finished", "aborted"}  # both the end and the division by zero inside `ask` are reached
    assert fused.compiled.call_sites  # `ask` was entered through its call sites' copies


def test_step_limits_inside_callees(write_ruleset: Callable[..., str]) -> None:
    """Every step limit up to the game's length: the limit error comes at the same step, inside the callee or in
    the caller after its return, fused or not."""
    fused, plain = _pair(write_ruleset(CALLS))
    game, _ = _play(plain, 2, 3, check=False)
    total = game.state.steps
    assert total > 40
    for limit in range(1, total + 2):
        runs = []
        for rules in (fused, plain):
            rules.step_limit = limit
            runs.append(_record(rules, 2, 3, check=False))
        assert runs[0] == runs[1], limit


def test_clones_and_playouts_inside_a_callee(write_ruleset: Callable[..., str]) -> None:
    """A game suspended inside `ask` (its frame a call site's copy) clones, plays on and plays out exactly as the
    unfused one."""
    fused, plain = _pair(write_ruleset(CALLS))
    for seed in range(6):
        ends = []
        for rules in (fused, plain):
            game, copy = _clone_midway(rules, 2, seed, 4)
            copy.random_playout(random.Random(seed + 100))
            game.random_playout(random.Random(seed + 100))
            assert copy.digest() == game.digest()
            ends.append((game.digest(), game.state.steps, game.error, copy.to_json()))
        assert ends[0] == ends[1], seed


def test_a_kuhn_decision_is_one_generated_call() -> None:
    """Kuhn poker's `do act(p)`: after the first game (which traces and compiles), the engine makes one call a
    decision in a random playout: the body of the decision, the return into the round and the next `choose`
    are one generated function (it was three calls: the body, the caller's continuation, the `choose`)."""
    rules = load_ruleset(str(ROOT / "rulesets" / "classic" / "kuhn_poker.rules"))
    calls, decisions = _generated_calls(rules, 2, range(20))
    assert decisions > 20 and calls == decisions


def test_the_deepest_call_chain_stops_the_same(write_ruleset: Callable[..., str]) -> None:
    """A recursive proc calling a proc that asks: the frames grow until the chain passes 500 frames, and the
    fused call that pushes the frame past it (written into the function, not the `do` instruction) stops the game
    with the step machine's error, at the same step and with the same frames."""
    path = write_ruleset('game "Deep" { players 2..2\n step_limit 100000 }\nenum Move { a, b }\ncounter turns\n'
                         'proc ask(p: player) {\n  choose m from Move by p { turns += 1 }\n}\n'
                         'proc deep(p: player) {\n  do ask(p)\n  do deep(p)\n}\n'
                         'round { step play "Play" { do deep(players[0]) } }\nscore(p) = turns\n')
    fused, plain = _pair(path)
    runs = []
    for rules in (fused, plain):
        game = rules.new_game(2, 0)
        n = game.random_playout(random.Random(0))
        runs.append((n, game.state.steps, game.error, game.to_json()))
    assert runs[0] == runs[1]
    assert runs[0][2] is not None and "call chain deeper than 500 frames" in runs[0][2]


ENDS = """game "Ends" {
  players 2..3
  step_limit 5000
}

enum Move { low, high }

counter per player pts 0..40
counter turns 0..100

round {
  step play "Play" {
    for p in players {
      choose m from Move by p {
        if m == high { p.pts += 3 } else { p.pts += 1 }
        turns += 1
      }
    }
    for p in players {
      if p.pts > 12 {
        log "{} reaches {}", p, p.pts
        end game
      }
    }
    if turns > 20 { end game }
  }
}

score(p) = p.pts
"""


def _game_overs(run: Callable[[], object]) -> int:
    """How many frames a GameOver passes through (raised or re-raised) while ``run`` runs."""
    from liturgy.interpreter.runtime.errors import GameOver

    raised = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal raised
        if event == "exception" and arg[0] is GameOver:
            raised += 1
        return trace

    sys.settrace(trace)
    try:
        run()
    finally:
        sys.settrace(None)
    return raised


def test_end_game_in_a_fused_body_is_a_return(write_ruleset: Callable[..., str]) -> None:
    """`end game` written into a fused function returns GAME_ENDED instead of raising GameOver (inside a loop over
    the players, whose variable is written back on the way out, and at the step's end): the games, their step
    counts, saves after every decision and digests equal the unfused game's, checked and not, and a fused
    playout raises no GameOver while the unfused one does."""
    fused, plain = _pair(write_ruleset(ENDS))
    for seed in range(12):
        for players in (2, 3):
            runs = []
            for rules in (fused, plain):
                game, seen = _play(rules, players, seed, check=seed % 2 == 0)
                runs.append((seen, game.digest(), game.state.status, game.error, game.state.steps, game.result))
            assert runs[0] == runs[1], (seed, players)
            assert runs[0][2] == "finished"
    for rules, raises in ((fused, False), (plain, True)):
        for seed in range(6):
            rules.new_game(2, 100).random_playout(random.Random(0))  # fused functions compiled before counting
            game = rules.new_game(2, seed)
            assert (_game_overs(lambda: game.random_playout(random.Random(seed))) > 0) == raises  # noqa: B023
            assert game.state.status == "finished"
    kuhn = load_ruleset(str(ROOT / "rulesets" / "classic" / "kuhn_poker.rules"))
    kuhn.new_game(2, 100).random_playout(random.Random(0))
    for seed in range(6):
        game = kuhn.new_game(2, seed)
        assert _game_overs(lambda: game.random_playout(random.Random(seed))) == 0  # noqa: B023
        assert game.state.status == "finished" and game.result is not None
