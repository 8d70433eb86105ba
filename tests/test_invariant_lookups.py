"""A loop function's constant table reads at a variable it reads from ``env``, read once before the loop
(interpreter/codegen/hoist.py's invariant_lookups): Hex's `touches` reads `m.c` and `m.r` from their field lists
once per call, not three times per direction. The same games in every compile mode.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from liturgy.dsl.loader import check_file
from liturgy.interpreter.codegen import unroll
from liturgy.interpreter.engine import Ruleset
from mode_helpers import MODES, compiled, played_in_every_mode

HEX = str(Path(__file__).resolve().parent.parent / "rulesets" / "classic" / "hex.rules")

RULES = '''game "Lookups" { players 2..2
  step_limit 2000 }
card Spot { c: int
  r: int }
cards "spots.yaml"
zone spots: row public of Spot
grid board 3 by 3 of int
counter total 0..1000000
fn near(c: int, r: int) -> int =
    count(d for d in compass where on_grid(board, c + dx(d), r + dy(d)) and board[c + dx(d), r + dy(d)] > 0)
round {
  step s "S" {
    for p in players {
      choose m from spots by p {
        board[m.c, m.r] = board[m.c, m.r] + 1
        total += near(m.c, m.r)
        log "{} {}", p, total
      }
    }
    if round >= 6 { end game }
  }
}
score(p) = total
'''
SPOTS = "kind: Spot\nstart: spots\ncards:\n" + "".join(
    f"  - name: \"s{c}{r}\"\n    c: {c}\n    r: {r}\n" for c in range(3) for r in range(3))


def test_field_reads_leave_the_loop(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(RULES, {"spots.yaml": SPOTS})
    unroll.ENABLED = False  # eight constant directions are written out item by item (codegen/unroll.py) otherwise
    try:
        gen = compiled(path, {}).compiled.gen
    finally:
        unroll.ENABLED = True
    assert gen is not None
    loops = [t for t in gen.sources.dump().split("\n\n") if "liturgy loop" in t]
    # `near` inlined in the choice's body: `m.c`, `m.r` read once per call (the fn's own function reads c, r)
    assert any(t.count(" else None\n") == 2 for t in loops), loops
    for seed in range(4):
        seen = played_in_every_mode(lambda mode: compiled(path, mode), seed)
        assert all(x == seen[0] for x in seen), seed
        assert seen[0][1] is None


def test_hex_plays_alike_in_every_mode() -> None:
    program, _ = check_file(HEX)
    assert program is not None
    unroll.ENABLED = False  # `touches` is written out item by item (codegen/unroll.py) otherwise
    try:
        text = Ruleset(program).compiled.gen.sources.dump()  # type: ignore[union-attr]
    finally:
        unroll.ENABLED = True
    assert text.count(" else None\n") >= 4  # `m.c`, `m.r` in each of the two `touches` loops
    assert "(True if " in Ruleset(program).compiled.gen.sources.dump()  # type: ignore[union-attr]
    for seed in range(3):
        seen = []
        for mode in MODES:
            game = Ruleset(program, **mode).new_game(2, seed)
            game.random_playout(random.Random(seed))
            seen.append((game.digest(), game.error, game.result))
        assert all(x == seen[0] for x in seen), seed
