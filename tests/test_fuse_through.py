"""A fused call that goes on past a card effect's `do` whose effect is a plain function, and walks a loop's next
turn before its end (interpreter/codegen/fusewalk.py ``through`` and ``for_next``, session 23).

Which effect a card's `do` runs is known only per call: one that may ask for a decision pushes a frame (the path
ends there, as before), a plain one runs inside the instruction and the fused function goes on after it. None of
it may show: after every decision the step count and the whole save equal the unfused game's, and so do the
step-limit errors, a rule error raised inside a plain effect, `end game` after one, clones and playouts.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset
from test_fuse import _clone_midway, _generated_calls, _play, _record

EFFECTS = """game "Effects" { players 2..3
  step_limit 5000 }
enum Move { low, high }
card Rune { v: int
  on_play: effect(p: player) = none }
cards "rune.yaml"
zone bag: deck hidden of Rune
zone played: per player set public of Rune
counter per player pts 0..99
counter turns 0..500
window scored(p: player, n: int)
on scored(q: player, n: int) {
  if n > 40 { choose m from Move by q { if m == high { q.pts += 1 } } }
}
setup {
  shuffle bag
  for p in players { move top(bag) to p.played
                     move top(bag) to p.played }
}
round {
  step play "Play" {
    for p in players {
      for c in p.played {
        if c.v >= 0 { do c.on_play(p) }
      }
      turns += 1
    }
    for p in players {
      choose m from Move by p { if m == high { p.pts += 2 } }
    }
    if round % 4 == 0 { fire scored(players[0], turns) }
    if turns > 90 or round >= 10 { end game }
    if size(bag) > 0 { move top(bag) to players[round % player_count].played }
  }
}
score(p) = p.pts
"""

RUNES = """kind: Rune
start: bag
cards:
  - name: Ash
    count: 3
    v: 1
    on_play: "p.pts += 1"
  - name: Bone
    count: 3
    v: 2
    on_play: "turns += 2 / (p.pts - 11)"
  - name: Cinder
    count: 1
    v: 3
    on_play: "choose m from Move by p { if m == low { p.pts += 1 } }"
  - name: Dust
    count: 2
    v: 0
"""


def _pair(write_ruleset: Callable[..., str]) -> tuple[Ruleset, Ruleset]:
    program, _ = check_file(write_ruleset(EFFECTS, {"rune.yaml": RUNES}))
    assert program is not None
    return Ruleset(program), Ruleset(program, fuse=False)


def test_plain_effects_run_through_are_invisible(write_ruleset: Callable[..., str]) -> None:
    """Plain and asking effects called from a loop, a division by zero inside a plain one on some seeds: saves
    after every decision, digests, errors and step counts equal the unfused game's; then clones and playouts."""
    fused, plain = _pair(write_ruleset)
    statuses = set()
    for seed in range(6):
        for players in (2, 3):
            runs = []
            for rules in (fused, plain):
                runs.append(_record(rules, players, seed, check=seed % 2 == 0))
            assert runs[0] == runs[1], (seed, players)
            statuses.add(runs[0][2])
    assert statuses == {"finished", "aborted"}  # the end and the division by zero inside a plain effect
    for seed in range(4):
        ends = []
        for rules in (fused, plain):
            game, copy = _clone_midway(rules, 3, seed, 5)
            copy.random_playout(random.Random(seed + 100))
            ends.append((copy.digest(), copy.state.steps, copy.error, game.to_json()))
        assert ends[0] == ends[1], seed


def test_step_limits_around_plain_effects(write_ruleset: Callable[..., str]) -> None:
    """Step limits over a whole game (every one near its start and end, and every eleventh between): the limit
    error comes at the same step, fused or not, in a playout and (one limit in five) in the apply loop."""
    fused, plain = _pair(write_ruleset)
    game, _ = _play(plain, 2, 1, check=False)
    total = game.state.steps
    assert total > 300 and game.state.status == "finished"
    span = fused.compiled.fuse_span
    limits = set(range(1, span + 2)) | set(range(1, total, 11)) | set(range(total - span, total + 2))
    for limit in sorted(limits):
        runs = []
        for rules in (fused, plain):
            rules.step_limit = limit
            game = rules.new_game(2, 1)
            game.random_playout(random.Random(limit))
            runs.append((game.digest(), game.state.status, game.error, game.state.steps, len(game.state.decisions)))
            if limit % 5 == 0:
                game, seen = _play(rules, 2, 1, check=False)
                runs.append((seen, game.digest(), game.state.status, game.error, game.state.steps))
        assert runs[: len(runs) // 2] == runs[len(runs) // 2:], limit


def test_a_plain_effect_does_not_end_the_call(write_ruleset: Callable[..., str]) -> None:
    """After the first games (which trace and compile), the loop over the played cards, their plain effects and
    the choices after it take about one generated call a decision: a plain effect's `do` no longer ends the call
    (each one did), and the loop's next turn is written before its end (the end's tail took the budget)."""
    fused, _ = _pair(write_ruleset)
    calls, decisions = _generated_calls(fused, 2, range(3, 13))
    assert decisions > 100 and calls <= 2 * decisions, (calls, decisions)  # 3.5 a decision before
