"""A counter an `if` tests right after the statement that wrote it is read as the value written
(interpreter/codegen/forward.py): the generated text reads the local, and every compile mode, and the invariant-checked
build (which notes each write, so it reads the list as before), plays the same games and stops with the same errors."""
from __future__ import annotations

import random
import re
from collections.abc import Callable

from mode_helpers import compiled_once, played_in_every_mode

RULES = '''game "Forward" { players 2..3
  step_limit 4000 }
counter per player hp 0..6 = 6
flag per player down
counter hits 0..5
counter level -3..3
counter total 0..100000
round {
  step s "S" {
    for p in players {
      choose k from range(4) by p {
        p.hp -= k
        if p.hp == 0 { p.down = true }
        if p.down { total += 1 }
        hits += 1
        if hits >= 5 and p.hp < 3 { hits = 0 }
        level = 0 - k
        if level < -2 { level = 1 }
        if k == 3 {
          level = -3
          if level < -2 { total += 4 }
        }
        if k == 2 {
          hits = 4
          if hits > 3 { total += 5 }
        }
        if k == 1 { hits = 3 }
        if hits == 3 { total += 7 }
        p.hp += 1
        if players[0].hp > 4 { total += 2 }
        total += 3 / (p.hp + level)
        log "{} has {} and {}", p, p.hp, level
      }
    }
    if round >= 6 { end game }
  }
}
score(p) = p.hp + total
'''


def test_a_counter_tested_after_its_write_reads_the_value_written(write_ruleset: Callable[..., str]) -> None:
    """`p.hp -= k` then `if p.hp == 0` (a seat's slot, clamped), `hits += 1` then a test of it beside another
    counter, `level = 0 - k`, `level = -3` and `hits = 4` (a constant) then a test: the `if` reads the value
    written; a flag or `hits` set inside the `if` before (not on every path) and `players[0].hp` (another slot)
    are read from the list. Some games stop dividing by zero."""
    path = write_ruleset(RULES)

    rules = compiled_once(path)

    gen = rules({}).compiled.gen
    assert gen is not None
    step = next(b for b in gen.sources.dump().split("\n\n") if "<liturgy stmt" in b and "_cs[4] + (4)" in b)
    for forwarded in (r"if \(_v\d+ == 0\):", r"if \(\(_v\d+ >= 5\) and \(_cs\[", r"if \(_v\d+ < \(-2\)\):",
                      r"_v(\d+) = \(-3\)\n +_cs\[3\] = _v\1\n +if \(_v\1 < \(-2\)\):",
                      r"_cs\[2\] = 4\n +if \(4 > 3\):"):
        assert re.search(forwarded, step), (forwarded, step)
    # the flag and `hits` set inside the `if` before, another seat's slot: read from the list
    assert re.search(r"\n    if _cs\[_Ks\d+\[_E\d+\]\]:", step) and "if (_cs[5] > 4):" in step, step
    assert "\n    if (_cs[2] == 3):" in step, step
    errors = set()
    for seed in range(8):
        seen = played_in_every_mode(rules, seed)
        assert all(x == seen[0] for x in seen), seed
        checked = rules({}).new_game(2, seed, check_invariants=True)
        checked.random_playout(random.Random(seed))
        assert (checked.digest(), checked.error) == seen[0][:2]  # type: ignore[index]
        errors.add(seen[0][1])  # type: ignore[index]
    assert None in errors and any(e is not None and "zero" in e for e in errors), errors
