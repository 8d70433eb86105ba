"""Generated choice instructions (interpreter/choicegen.py) against the closures they replace.

Every `choose` shape (plain, `where`, `optional`, a named option offered with no items, `otherwise`, no
option and no `otherwise`, no chooser) and `simultaneously` (with and without `where`, a player with no
option, nobody choosing) is played three ways; after every decision the pending choice and the saved game
must be the same, and at the end the digest, status and error.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest
from liturgy.interpreter.engine import Ruleset
from test_codegen import _three_ways

CHOICES = '''\
game "Choices" { players 2..3
  step_limit 100000 }
card Tok { v: int }
cards "tok.yaml"
zone bag: deck hidden of Tok
zone row: row public of Tok
zone hand: per player set owner of Tok
enum Pace { slow, fast }
counter turns
counter mode 0..9
counter per player pts 0..99
setup { shuffle bag }
round {
  step s "S" {
    turns += 1
    choose k from [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] by first { mode = k }
    choose q from Pace by first { if q == fast { first.pts += 1 } }
    choose q from Pace by next_player(first) optional { first.pts += 1 }
    for p in players {
      choose c from bag by p optional { move c to p.hand }
      choose c from p.hand where c.v > 1 by p optional "keep" { move c to row } otherwise { p.pts += 1 }
    }
    if mode == 1 {
      choose c from row where c.v == 9 by first { first.pts += 1 }
    } elif mode == 2 {
      choose c from [c for c in row where c.v > 1] by none { first.pts += 1 }
    } elif mode == 3 {
      simultaneously p in players choose c from p.hand where c.v == 9 { p.pts += 1 }
    } elif mode == 4 {
      simultaneously p in [q for q in players where q.pts > 50] choose c from p.hand { p.pts += 1 }
    } elif mode == 5 and size(row) == 0 {
      choose c from row by first optional "skip" { first.pts += 2 }
    } else {
      simultaneously p in players choose c from p.hand + [none] where c == none or c.v >= 1 {
        if c != none { move c to row }
      }
      simultaneously p in players choose n from [1, 2, 3] { p.pts += n }
    }
    first = next_player(first)
    if turns >= 10 { end game }
  }
}
score(p) = p.pts
'''

CHOICES_CARDS = '''\
kind: Tok
start: bag
cards:
  - name: One
    count: 6
    v: 1
  - name: Two
    count: 6
    v: 2
'''


def _generated_choices(rules: Ruleset) -> int:
    return sum(1 for code in rules.codes for ins in code.ins
               if ins.__code__.co_filename.startswith("<liturgy choice"))


def test_generated_choices_play_like_closures(write_ruleset: Callable[..., str]) -> None:
    variants = _three_ways(write_ruleset(CHOICES, {"tok.yaml": CHOICES_CARDS}))
    assert _generated_choices(variants[0]) == 12 and _generated_choices(variants[2]) == 0
    # an enum's values are a constant tuple that is never empty: offered as they are, with no emptiness test
    texts = [lines for _, lines in variants[0].compiled.cgen.texts.values()]  # type: ignore[union-attr]
    fixed = [lines for lines in texts if any(re.fullmatch(r"options = _k[0-9]+", line) for line in lines)]
    assert len(fixed) == 2 and not any("if not options:" in lines for lines in fixed)
    errors = set()
    for players in (2, 3):
        for seed in range(30):
            games = [rules.new_game(players, seed) for rules in variants]
            rng = random.Random(seed)
            while True:
                seen = [(g.state.pending, g.to_json(), g.finished) for g in games]
                assert seen[0] == seen[1] == seen[2], (players, seed)
                if games[0].finished:
                    break
                for p in games[0].waiting_for():
                    decisions = [g.decision for g in games]
                    assert decisions[0] == decisions[1] == decisions[2]
                    choice = rng.randrange(games[0].option_count(p))
                    for g in games:
                        g.apply(choice, p)
            ends = [(g.digest(), g.state.status, g.error) for g in games]
            assert ends[0] == ends[1] == ends[2], (players, seed)
            if ends[0][2] is not None:
                errors.add(ends[0][2].split(" [")[0])
    assert any("and no `otherwise` branch" in e for e in errors), errors
    assert any("no player to make the choice" in e for e in errors), errors
    assert any("has no legal option" in e for e in errors), errors


@pytest.mark.parametrize("players", [2, 3])
def test_generated_choices_random_playout_matches_the_apply_loop(
        write_ruleset: Callable[..., str], players: int) -> None:
    (rules,) = _three_ways(write_ruleset(CHOICES, {"tok.yaml": CHOICES_CARDS}))[:1]
    for seed in range(20):
        a, b = rules.new_game(players, seed), rules.new_game(players, seed)
        a.random_playout(random.Random(seed))
        rng = random.Random(seed)
        while not b.finished:
            for p in b.waiting_for():
                b.apply(rng.randrange(b.option_count(p)), p)
        assert (a.digest(), a.error) == (b.digest(), b.error)
