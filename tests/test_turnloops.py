"""Aggregates in a loop function's element written into its turn (interpreter/codegen/turnloops.py): the text has
their loops in the outer loop, not calls; an element with a checked operation keeps its calls; and checked games
play, report and fail the same with the writing-in on and off."""
from __future__ import annotations

import random
import re
from collections.abc import Callable

from liturgy.interpreter.codegen import turnloops
from liturgy.interpreter.runtime.errors import InvariantViolation
from mode_helpers import compiled

RULES = '''game "Turns" { players 2..3
  step_limit 2000 }
card Tok { v: int }
cards "tok.yaml"
zone bag: deck hidden of Tok
zone hand: per player set owner of Tok
zone pile: per player pile public of Tok
counter seen 0..100000
counter per player big
invariant "marked": all(count(c for c in p.hand where c.v == 2) + count(c for c in p.pile where c.v == 2) <= 2
    for p in players)
invariant "any held": any(not count(c for c in p.hand) == 0 or 0 == 0 for p in players)
invariant "big": all(sum(c.v for c in p.hand) * 2305843009213693952 + count(c for c in p.hand) >= 0 for p in players)
round {
  step deal "Deal" {
    for p in players {
      choose k from range(0, 3) by p {
        if k == 0 { move top(bag) to p.hand }
        if k == 1 { if size(p.hand) > 0 { move top(p.hand) to p.pile } }
        if k == 2 { p.big += 1 }
      }
    }
    if all(count(c for c in p.hand where c.v == 1) - count(c for c in p.pile) >= -20 for p in players) { seen += 1 }
    if size(bag) == 0 { end game }
  }
}
score(p) = size(p.pile)
'''

TOK = "kind: Tok\nstart: bag\ncards:\n" + "".join(
    f"  - name: T{i}\n    count: 1\n    v: {i % 3}\n" for i in range(24))


def _play(path: str) -> list[object]:
    rules = compiled(path, {})
    out: list[object] = []
    for seed in range(4):
        game = rules.new_game(3, seed, check_invariants=True)
        rng = random.Random(seed)
        try:
            while game.state.status == "running":
                for p in game.waiting_for():
                    game.apply(rng.randrange(game.option_count(p)), p)
        except InvariantViolation as err:
            out.append(str(err))
        out.append((game.digest(), game.state.status, game.state.error, game.violations()))
    return out


def test_the_counts_are_written_into_the_turn(write_ruleset: Callable[..., str]) -> None:
    gen = compiled(write_ruleset(RULES, {"tok.yaml": TOK}), {}).compiled.gen
    assert gen is not None
    text = gen.sources.dump()
    # "marked": the two counts' loops first in each player's turn, then the test of their sum
    assert re.search(r"for _x\d+ in _it:\n +_r(\d+) = 0\n +for _x\d+ in s\.zones\[.*\n(?: .*\n)+? +_r(\d+) = 0\n"
                     r"(?: .*\n)+? +if not \(\(_r\1 \+ _r\2\) <= 2\):", text), text
    # "big": a multiplication checked for overflow between the sum and the count: both stay calls, in their order
    assert re.search(r"\(_k\d+\(s, env, _x\d+\) \* 2305843009213693952\)\) <= 9223372036854775807 else "
                     r"_overflow\(_t\d+, 'at line 13'\)\) \+ _k\d+\(s, env, _x\d+\)", text), text


def test_written_in_plays_and_fails_as_the_calls(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(RULES, {"tok.yaml": TOK})
    saved = turnloops.ENABLED
    try:
        runs = []
        for on in (True, False):
            turnloops.ENABLED = on
            runs.append(_play(path))
    finally:
        turnloops.ENABLED = saved
    assert runs[0] == runs[1]
    reports = str(runs[0])
    assert "big (could not evaluate: integer overflow" in reports and "marked" in reports, reports  # both reached
