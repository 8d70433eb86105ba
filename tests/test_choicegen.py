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
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Game, Ruleset
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


def _playout_and_applied(rules: Ruleset, players: int, seed: int) -> tuple[Game, Game]:
    """One seed's game twice: by ``random_playout`` (choices picked inside the generated code) and by the apply
    loop with the same draws (each choice suspended and answered), for the two to be compared."""
    a, b = rules.new_game(players, seed), rules.new_game(players, seed)
    a.random_playout(random.Random(seed))
    rng = random.Random(seed)
    while not b.finished:
        for p in b.waiting_for():
            b.apply(rng.randrange(b.option_count(p)), p)
    return a, b


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
        a, b = _playout_and_applied(rules, players, seed)
        assert (a.digest(), a.error) == (b.digest(), b.error)


FILTERED = '''\
game "Filtered" { players 2..3
  step_limit 100000 }
counter per player pts
counter per player shift
counter rounds
round {
  step s "S" {
    rounds += 1
    simultaneously p in players choose c from [1, 2, 3, 4]
        where c != rounds or any(q.pts >= c for q in players) {
      p.pts += c
    }
    choose c from [1, 2, 3] where [5, 6, 7, 8, 9, 10, 11, 12, 13][c + rounds] > 6 by players[1] {
      players[1].pts += c
    }
    simultaneously p in players choose c from [1, 2, 3, 4] where [5, 6, 7, 8, 9][c + p.shift] > 0 {
      if p != players[0] { p.shift += c }
      p.pts += 1
    }
    if rounds >= 5 { end game }
  }
}
score(p) = p.pts
'''


def test_an_option_filter_is_written_into_the_choice(write_ruleset: Callable[..., str]) -> None:
    """A `simultaneously`'s `where` (codegen/scans.py ``plain_filter``, choicegen.py ``collect``) runs as lines of
    the choice's own loop, not as a filter function called per player, and a `choose`'s written as a loop (its
    test binds a temporary: not a comprehension) as lines of the choice. The games are the same in every mode, and
    where the filter fails (an index out of range for the second player) the game stops with the same error and the
    same frame: ``c`` holds what the first player's filter left (the loop's last item, bound once the loop ends,
    as the filter function bound it), ``p`` the failing player."""
    program, diags = check_file(write_ruleset(FILTERED))
    assert program is not None and diags == []
    variants = [Ruleset(program, **mode) for mode in ({}, {"fuse": False}, {"inline_fns": False})]
    gen = variants[0].compiled.gen
    assert gen is not None
    blocks = [b for b in gen.sources.dump().split("\n\n") if "<liturgy choice _c" in b]
    assert len(blocks) == 3 and all("options = tuple(_o" in b and "options = _k" not in b for b in blocks), blocks
    ends = []
    for rules in variants:
        for players in (2, 3):
            for seed in range(3):
                a, b = _playout_and_applied(rules, players, seed)
                frames = [(f[1], sorted(f[2].items())) for f in a.state.frames]
                assert (a.digest(), a.error, a.state.steps, frames) == (
                    b.digest(), b.error, b.state.steps, [(f[1], sorted(f[2].items())) for f in b.state.frames])
                ends.append((a.digest(), a.state.status, a.error, a.state.steps, frames))
    assert ends[:6] == ends[6:12] == ends[12:]
    # every game stops at P2's filter in round 2, with ``c`` the last item of P1's options' loop
    assert {(e[1], e[2], repr(e[4])) for e in ends} == {
        ("aborted", "list index 5 out of range (size 5) [round 2, step s]", "[(9, [('c', 4), ('p', 1)])]")}
