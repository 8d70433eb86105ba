"""The checked round start's resets written for a table's reset slots (interpreter/runtime/resetgen.py) do what
the loop over the slots did: the same slots set to the very initial objects, the same notes in the same order."""
from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.runtime import resetgen

RULES = '''\
game "Resets" { players 2..3
  step_limit 100000 }
card Tok { v: int }
cards "tok.yaml"
zone bag: deck hidden of Tok
zone hand: per player set owner of Tok
counter per player tries 0..5 reset each round
counter per player big 0..100000 reset each round
counter flag 0..1 reset each round
counter total
invariant "hands": all(size(p.hand) <= 30 for p in players)
setup { }
round {
  step s "S" {
    for p in players {
      choose k from range(0, 3) by p {
        if k == 0 { p.tries += 1 }
        if k == 1 { p.big += 1 }
        if k == 2 { flag = 1
          if size(bag) > 0 { move top(bag) to p.hand } }
      }
    }
    total += 1
    if total > 6 { end game }
  }
}
score(p) = p.tries
'''

TOK = "kind: Tok\nstart: bag\ncards:\n" + "".join(f"  - name: T{i}\n    count: 1\n    v: {i % 3}\n" for i in range(40))


def test_the_written_resets_do_what_the_loop_did(write_ruleset: Callable[..., str]) -> None:
    big = 10**6  # an initial value that is no cached small int: an equal value may be another object
    slots = ((3, 0), (5, big), (8, None), (9, "x"), (12, 0))
    written, loop = resetgen.make(slots), resetgen.loop(slots)
    assert written.__code__.co_filename == "<liturgy round resets>"
    rng = random.Random(0)
    for _ in range(200):
        values: list[Any] = [rng.choice((0, 1, big, int(str(big)), None, "x", "".join("xy"[:1]), 7)) for _ in range(14)]
        a, b = values[:], values[:]
        wa: list[int] = [-1]
        wb: list[int] = [-1]
        written(a, wa)
        loop(b, wb)
        assert wa == wb and a == b and all(x is y for x, y in zip(a, b, strict=True))
    assert resetgen.make(()).__code__.co_filename != "<liturgy round resets>"  # nothing to write: the loop
    # a checked game of a ruleset with per-player and global resets ends as the unchecked one, its record kept
    rules = load_ruleset(write_ruleset(RULES, {"tok.yaml": TOK}))
    for players in (2, 3):
        for seed in range(3):
            games = [rules.new_game(players, seed, check_invariants=check) for check in (False, True)]
            for g in games:
                r = random.Random(seed)
                while g.state.status == "running":
                    for p in g.waiting_for():
                        g.apply(r.randrange(g.option_count(p)), p)
            assert games[0].digest() == games[1].digest()
            assert games[1].state.tables.incremental_checks and games[1].state.tables.noted_reset is not None
