"""Generated code and the closure compiler must play every game identically (digest for digest).

Three ways to compile one ruleset: closures only (``codegen=False``), generated expressions with
statement closures (``stmtgen=False``), and generated expressions and statement blocks (the default).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, compiled_in, load_ruleset
from harness_options import short_options
from liturgy.dsl.frontend.includes import main_rulesets
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset

RULESETS = main_rulesets(sorted(str(p) for p in (ROOT / "rulesets").rglob("*.rules"))) + sorted(
    str(p) for p in (ROOT / "docs" / "examples").glob("*.rules"))


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: Path(p).stem)
def test_codegen_and_closures_agree(path: str) -> None:
    # Every compile is conftest's shared copy of its mode (the default is ``load_ruleset``'s): compiling a large
    # game costs 1-2 s of CPU per mode, as much again for the noted variant these checked games run, and
    # test_pending.py plays the same two other modes. Shared copies warmed by other tests must still play alike.
    variants = [load_ruleset(path)]
    for codegen, stmtgen in ((True, False), (False, False)):
        variants.append(compiled_in(path, codegen=codegen, stmtgen=stmtgen))
    fast = variants[0]
    assert fast.compiled.generators is not None and fast.compiled.sgen is not None
    players = max(fast.min_players, min(4, fast.max_players))
    for seed in range(12):
        digests = []
        for rules in variants:
            game = rules.new_game(players, seed, check_invariants=True, options=short_options(path, seed))
            rng = random.Random(seed)
            while not game.finished:
                for p in game.waiting_for():
                    game.apply(rng.randrange(game.option_count(p)), p)
            digests.append((game.digest(), game.state.status, game.error))
        assert digests[0] == digests[1] == digests[2], (path, seed)


def test_generated_code_reports_missing_cards_like_closures(write_ruleset: Callable[..., str]) -> None:
    """`.field` of no card raises the same rule error from generated code."""
    import textwrap

    path = write_ruleset(textwrap.dedent('''\
        game "G" { players 2..2 }
        card C { v: int = 1 }
        zone pile: deck hidden of C
        counter n 0..9
        round { step s "S" { n = top(pile).v + 1
                             end game } }
        score(p) = n
        '''))
    errors = []
    for codegen in (True, False):
        program, _ = check_file(path)
        assert program is not None
        game = Ruleset(program, codegen=codegen).new_game(2, 1)
        errors.append((game.state.status, game.error))
    assert errors[0] == errors[1] and errors[0][0] == "aborted" and "of no card" in str(errors[0][1])


STATEMENTS_CARDS = '''\
kind: Tok
start: bag
cards:
  - name: Red
    count: 3
    v: 2
    zap: "p.score += 1"
  - name: Blue
    count: 14
    v: 1
  - name: Green
    count: 2
    v: 3
    zap: "move self to trash"
'''

# Every statement shape statement generation writes: loops with `break` (native and inside `if`),
# clamped, flag, indexed, per-card and local assignments, moves of one card, a list and a zone,
# `transfer … as`, `reveal`, `log` and `log to` with card, list and zone arguments, procs, effects,
# `fire`, `skip to`, `end game`, `shuffle`.
STATEMENTS = '''\
game "Statements" { players 2..3
  step_limit 100000 }
enum Color { red, blue }
card Tok { v: int
  zap: effect(p: player) = none }
cards "tok.yaml"
zone bag: deck hidden of Tok
zone row: row public of Tok
zone trash: pile public final of Tok
zone hand: per player set owner of Tok
counter per player score 0..12
counter per card heat -2..3
counter per player tint[Color] 0..5
flag per player hot reset each round
counter total
pool gems { bank: 9
  per player purse }
window poked(p: player)
on poked(p: player) { p.score -= 1 }
window asked(p: player, k: int)
on asked(q: player, k: int) {
  choose c from q.hand where c.v >= k and not (c.heat > 2) by q optional { move c to bag bottom }
}
on asked(p: player, n: int) { p.score += n }
fn worth(c: Tok) -> int = c.v + count(d for d in bag where d.v == c.v)
proc spread(p: player, n: int) {
  let i = 0
  repeat while true {
    i += 1
    if i > n { break }
    if size(bag) == 0 { break }
    move top(bag) to p.hand bottom
  }
  for c in p.hand {
    c.heat += c.v
    if c.heat >= 3 { break }
    elif c.v == 1 { c.heat -= 5 }
    else { c.heat = c.heat }
  }
}
setup {
  shuffle bag
  move top(bag, 2) to row
  reveal top(bag)
  reveal row
  log "row: {}; bag: {}", row, [c for c in bag where c.v > 1]
}
round {
  step deal "Deal" {
    for p in players {
      do spread(p, round % 3 + 1)
      p.tint[red] += size(p.hand)
      p.tint[blue] = p.tint[red] - 1
      p.hot = p.tint[red] > 2
      transfer 2 from bank to p.purse as got
      log to p "{} got {} gem(s) and holds {}", p, got, p.hand
      total += got
      if size(p.hand) > 0 {
        let c = top(p.hand)
        do c.zap(p)
        fire poked(p)
      }
    }
  }
  step play "Play" {
    fire asked(first, round % 3)
    simultaneously p in players choose c from p.hand + [none] where c == none or worth(c) > 1 {
      if c != none { c.heat += 1 }
    }
    for p in players_from(first) {
      choose c from p.hand by p optional {
        move c to row
        log "{} plays {}", p, c
      }
    }
    if size(row) > 4 { move row to trash }
    move [c for c in bag where c.v == 3] to trash
    first = next_player(first)
    for p in players { transfer all from p.purse to bank }
    if round % 2 == 0 { skip to tail }
    log "odd round {}", round
  }
  step tail "Tail" {
    if round >= 5 { end game }
  }
}
finish {
  for p in players { if p.hot { p.score += 2 } else { p.score += total } }
}
score(p) = p.score + p.purse
'''


def _three_ways(path: str) -> list[Ruleset]:
    rulesets = []
    for codegen, stmtgen in ((True, True), (True, False), (False, False)):
        program, _ = check_file(path)
        assert program is not None
        rulesets.append(Ruleset(program, codegen=codegen, stmtgen=stmtgen))
    return rulesets


def played_alike(variants: list[Ruleset], players: int, seed: int) -> tuple[Any, ...]:
    """Play one random game on each variant; assert they agree (digest, error, steps, every log view); return it."""
    seen = []
    for rules in variants:
        game = rules.new_game(players, seed, check_invariants=True)
        game.random_playout(random.Random(seed))
        seen.append((game.digest(), game.error, game.state.steps,
                     [game.log_lines(v) for v in (None, *range(players))]))
    assert all(other == seen[0] for other in seen[1:]), (players, seed)
    return seen[0]


def _generated(rules: Ruleset) -> int:
    """How many step-machine instructions are generated statement functions."""
    return sum(1 for code in rules.codes for ins in code.ins if ins.__code__.co_filename.startswith("<liturgy stmt"))


def test_statement_generation_plays_like_closures(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(STATEMENTS, {"tok.yaml": STATEMENTS_CARDS})
    variants = _three_ways(path)
    assert _generated(variants[0]) > 0 and _generated(variants[1]) == 0 == _generated(variants[2])
    for players in (2, 3):
        for seed in range(25):
            assert played_alike(variants, players, seed)[1] is None


RUN_TIME_ERRORS = {
    "nothing to move": 'zone a: pile public of C\nzone b: pile public of C\n'
                       'round { step s "S" { move top(a) to b\n move top(a) to b\n end game } }',
    "repeat while": 'zone a: pile public of C\ncounter n\n'
                    'round { step s "S" { repeat while true { n += 1 } } }',
    "of no card": 'zone a: pile public of C\nzone b: pile public of C\n'
                  'round { step s "S" { move a to b\n do top(a).go()\n end game } }',
    "random() of an empty list": 'zone a: pile public of C\nzone b: pile public of C\n'
                                 'round { step s "S" { move random([c for c in b]) to a } }',
    "trigger chain": 'zone a: pile public of C\nwindow w(k: int)\non w(k: int) { fire w(k + 1) }\n'
                     'round { step s "S" { fire w(0) } }',
}


@pytest.mark.parametrize("what", sorted(RUN_TIME_ERRORS))
def test_generated_statements_fail_like_closures(what: str, write_ruleset: Callable[..., str]) -> None:
    """Rule errors raised inside generated statements carry the closures' messages and positions."""
    head = 'game "G" { players 2..2\n step_limit 1000000 }\ncard C { v: int = 1\n go: effect = none }\n' \
           'cards "c.yaml"\n'
    path = write_ruleset(head + RUN_TIME_ERRORS[what] + "\nscore(p) = 0\n",
                         {"c.yaml": "kind: C\nstart: a\ncards:\n  - name: X\n"})
    seen = []
    for rules in _three_ways(path):
        game = rules.new_game(2, 1)
        seen.append((game.state.status, game.error, game.digest()))
    assert seen[0] == seen[1] == seen[2]
    assert seen[0][0] == "aborted" and what in str(seen[0][1])


def test_deeply_nested_blocks_still_run(write_ruleset: Callable[..., str]) -> None:
    """Past Python's limit of 20 nested loops, generation steps aside for closures; deep `if`s are split off."""
    loops = "".join(f"for x{i} in [1] {{ " for i in range(24)) + "n += 1" + " }" * 24
    ifs = "".join(f"if n > {-i} {{ m += 1\n " for i in range(40)) + "m += 1" + " }" * 40
    path = write_ruleset('game "G" { players 2..2 }\ncounter n\ncounter m\n'
                         f'round {{ step s "S" {{ {loops} }}\nstep t "T" {{ {ifs}\nend game }} }}\nscore(p) = n + m\n')
    seen = []
    for rules in _three_ways(path):
        game = rules.new_game(2, 1)
        seen.append((game.state.status, game.digest(), game.result))
    assert seen[0] == seen[1] == seen[2]
    assert seen[0][0] == "finished" and seen[0][2] is not None and seen[0][2]["scores"] == [42, 42]


def test_moving_many_cards_at_once_matches_one_by_one(write_ruleset: Callable[..., str]) -> None:
    """`move_all` (one pass per source zone) and the in-place source of generated code (`OPEN_MOVE`, for a
    destination without capacity) leave exactly the state, or raise exactly the error, of moving each card in
    turn with `move_card`, whatever the mix of source zones, final zones, duplicates and places."""
    from liturgy.interpreter.runtime.errors import RuleError
    from liturgy.interpreter.runtime.moves import move_all, move_card, open_move_source, unmark

    def written_out(place: str, final: bool) -> Callable[..., None]:
        lines = open_move_source("c", "d", "o", "z", place, final)
        namespace: dict[str, Any] = {"_move": move_card, "_unmark": unmark}
        exec("def move(s, c, d):\n" + "".join(f"    {line}\n" for line in lines), namespace)
        return namespace["move"]  # type: ignore[no-any-return]

    path = write_ruleset(STATEMENTS, {"tok.yaml": STATEMENTS_CARDS})
    program, _ = check_file(path)
    assert program is not None
    rules = Ruleset(program)
    rng = random.Random(7)
    for seed in range(300):
        game = rules.new_game(3, seed)
        if seed % 3 == 0:
            game.random_playout(random.Random(seed))
        s = game.state
        ncards = len(s.card_zone)
        dst = rng.randrange(len(s.zones))
        place = rng.choice(["", "top", "bottom"])
        pool = list(range(ncards))
        if seed % 2:  # mostly lists that can move in one pass: no final zone, not already in `dst`
            pool = [c for c in pool if s.card_zone[c] != dst and not s.tables.zone_final[s.card_zone[c]]]
        cards = tuple(rng.choice(range(ncards)) if rng.random() < 0.02 else c
                      for c in rng.sample(pool, rng.randint(0 if seed % 4 else min(8, len(pool)), len(pool))))
        outcomes = []
        in_place = written_out(place, s.tables.zone_final[dst])
        for mover in ("all", "one by one", "written out"):
            s2 = s.clone()
            try:
                if mover == "all":
                    move_all(s2, cards, dst, place)
                elif mover == "one by one" or s.tables.zone_capacity[dst] is not None:
                    for c in cards:
                        move_card(s2, c, dst, place)
                else:
                    for c in cards:
                        in_place(s2, c, dst)
                error = None
            except RuleError as err:
                error = str(err)
            outcomes.append((error, s2.zones, s2.card_zone, s2.face_up, s2.removed_count))
        assert outcomes[0] == outcomes[1] == outcomes[2], seed


def test_suspending_effects_of_a_field_shared_by_kinds_with_different_parameters(
        write_ruleset: Callable[..., str]) -> None:
    """A `do` that may ask for a decision, of an effect two kinds declare with their own parameters, binds the
    arguments by the called card's kind in the step machine too (generated instructions leave it to closures)."""
    path = write_ruleset("""
game "Shared effect" { players 1..1 }
card Coin { go: effect(p: player, n: int) = none }
card Gem { go: effect(q: player) = none }
zone purse: set public of Coin
zone box: set public of Gem
counter per player total 0..99
cards "c.yaml"
cards "g.yaml"
round {
  step s "S" {
    for c in purse { do c.go(players[0], 2) }
    for g in box { do g.go(players[0]) }
    end game
  }
}
score(p) = p.total
""", {"c.yaml": 'kind: Coin\nstart: purse\ncards:\n'
                '  - {name: Penny, go: "choose k from [n, n + 1] by p { p.total += k }"}\n',
      "g.yaml": 'kind: Gem\nstart: box\ncards:\n  - {name: Ruby, go: "choose k from [1, 2] by q { q.total += k }"}\n'})
    seen = []
    for rules in _three_ways(path):
        game = rules.new_game(1, 0)
        while not game.finished:
            game.apply(1, 0)
        seen.append((game.digest(), game.error, game.result))
    assert seen[0] == seen[1] == seen[2]
    assert seen[0][1] is None and seen[0][2] is not None and seen[0][2]["scores"] == [5]
