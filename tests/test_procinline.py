"""A pure proc's body written at its `do` (interpreter/codegen/procinline.py): no call of its positional function
where the body has no environment, no cell and no recursion; the same games in every compile mode, and with the
rule off."""
from __future__ import annotations

import random
import re
from collections.abc import Callable

from liturgy.interpreter.codegen import procinline
from mode_helpers import compiled_once, errors_in_every_mode

RULES = '''game "Proc bodies" { players 2..3
  step_limit 4000 }
counter per player hp 0..20 = 12
counter per player falls 0..100
counter total 0..100000
counter depth 0..1000
window fell(p: player)
on fell(p: player) { total += 1 }

proc hurt(p: player, n: int) {
  if n > 0 and p.hp > 0 {
    p.hp -= n
    if p.hp == 0 {
      log "{} falls", p
      p.falls += 1
      fire fell(p)
      p.hp = 12
    }
  }
}

proc twice(p: player, n: int) {
  do hurt(p, n)
  do hurt(p, n + 1)
}

proc count_down(n: int) {
  if n > 0 {
    depth += 1
    do count_down(n - 1)
  }
}

proc split(k: int) {
  if k == 4 { total += 60 / (round - 3) }
}

proc stop_if(p: player) {
  if total > 300 or p.falls > 6 { end game }
}

round {
  step s "S" {
    for p in players {
      choose k from range(5) by p {
        do hurt(p, k)
        do twice(p, k - 1)
        for q in players {
          if q != p { do split(k) }
          do count_down(k)
        }
        log "{} picks {}", p, k
      }
    }
    for p in players {
      do hurt(p, 2)
      do stop_if(p)
      do hurt(p, 1)
    }
    if round >= 9 { end game }
  }
}
score(p) = p.hp + p.falls * 3 + total + depth
'''


def test_a_pure_procs_body_is_written_where_it_is_done(write_ruleset: Callable[..., str]) -> None:
    """In a loop of a step-machine run, `hurt` (a clamp, a log, a `fire`), `split` (a division by zero in some
    games: the error leaves the written lines as it left the call) and `stop_if` (an `end game`) are written in
    place (`hurt` twice in one loop: its lines twice, with the same names); `count_down` calls itself and is
    called; `twice` (two `do hurt`s in a proc's body, which is no run: called there) is longer than MAX_LINES and
    is called; `hurt` outside any loop of its run is called. Every compile mode plays each seed alike, the games
    that stop and the ones that end, and the full mode with the rule off plays them alike too."""
    path = write_ruleset(RULES)
    rules = compiled_once(path)
    gen = rules({}).compiled.gen
    assert gen is not None
    text = gen.sources.dump()
    for name in ("hurt", "split", "stop_if"):
        assert f"# proc {name}: its body, written in place" in text, name
    assert "# proc count_down" not in text and "# proc twice" not in text  # it calls itself; past MAX_LINES
    assert text.count("# proc hurt: its body") == 2 and text.count("# proc split: its body") == 1
    # no call of hurt's positional body where it is done (the card of `fell`'s handler is a window, not a proc)
    procs = rules({}).compiled.procs
    hurt, twice = procs["hurt"].fast, procs["twice"].fast
    assert hurt is not None and twice is not None

    def calls(fn: object) -> list[str]:
        return [name for name, value in gen.ns.items() if value is fn and re.search(rf"\b{name}\(s, ", text)]
    assert calls(hurt) and calls(twice) and calls(procs["count_down"].fast)
    errors = errors_in_every_mode(rules, 8)
    assert None in errors and any(e is not None and "zero" in e for e in errors), errors
    try:
        procinline.ENABLED = False
        off = compiled_once(path)({})
        assert "written in place" not in (off.compiled.gen.sources.dump() if off.compiled.gen else "")
    finally:
        procinline.ENABLED = True
    for seed in range(8):
        games = [r.new_game(2, seed) for r in (rules({}), off)]
        for g in games:
            g.random_playout(random.Random(seed))
        assert games[0].digest() == games[1].digest() and games[0].error == games[1].error, seed
