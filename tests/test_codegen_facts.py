"""Checks the statement generator leaves out because it can prove them idle, and those it must keep.

* A statement `for` over a constant `range` gives its variable that range where the body never writes it: a
  grid cell and arithmetic on it are written without their tests; a body that assigns the variable keeps them.
  A constant loop's size is known when compiling: a small one writes no work test at all.
* A `fire` whose handlers can fire nothing (no `fire`, no `do` in their bodies) does not push the window on the
  fire stack (only a nested `fire` reads it); a chain of windows that fire each other still stops at the depth
  limit with the same error.

Every case plays the same in every compile mode (digest, error, logs).
"""
from __future__ import annotations

import random
from collections.abc import Callable

from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset
from mode_helpers import MODES, compiled, played_in_every_mode

HEAD = '''game "Facts" { players 2..2
  step_limit 2000 }
grid board 4 by 4 of int
counter total 0..1000000
window scored(p: player, n: int)
window ping(n: int)
counter per player points 0..1000000
on scored(p: player, n: int) { p.points += n }
'''

LOOPS = '''
round {
  step s "S" {
    for p in players {
      choose k from range(3) by p {
        for c in range(4) {
          for r in range(4) { if k > 0 { board[c, r] = (c * 3 + r + total % 7) % 5 } }
        }
        for c in range(4) { fire scored(p, board[c, c] % 5) }
        total += board[3, 3]
        log "{} {}", p, total
      }
    }
    if round >= 3 { end game }
  }
}
score(p) = p.points
'''

WRITES = LOOPS.replace("for r in range(4) { if k > 0 { board[c, r] = (c * 3 + r + total % 7) % 5 } }",
                       "for r in range(4) { board[c, r] = (c * 3 + r + total % 7) % 5\n c = c + 1 }")

CHAIN = '''
on ping(n: int) { total += 1
  fire ping(n + 1) }
round {
  step s "S" {
    for p in players {
      choose k from range(2) by p { fire ping(k) }
    }
  }
}
score(p) = total
'''


def _rules(write_ruleset: Callable[..., str], body: str, mode: dict[str, bool]) -> Ruleset:
    return compiled(write_ruleset(HEAD + body), mode)


def _play(write_ruleset: Callable[..., str], body: str, seed: int) -> list[object]:
    return played_in_every_mode(lambda mode: _rules(write_ruleset, body, mode), seed)


def _text(write_ruleset: Callable[..., str], body: str) -> str:
    gen = _rules(write_ruleset, body, {}).compiled.gen
    assert gen is not None
    return gen.sources.dump()


def test_constant_loops_drop_their_tests(write_ruleset: Callable[..., str]) -> None:
    text = _text(write_ruleset, LOOPS)
    assert "_off_grid" not in text and "_overflow" not in text and "len(_i" not in text
    assert "fire_stack.append" not in text  # the handler fires nothing: no push
    for seed in range(3):
        seen = _play(write_ruleset, LOOPS, seed)
        assert all(x == seen[0] for x in seen), seed
        assert seen[0][1] is None


def test_a_loop_variable_written_in_the_body_keeps_its_tests(write_ruleset: Callable[..., str]) -> None:
    assert "_off_grid" in _text(write_ruleset, WRITES)
    seen = _play(write_ruleset, WRITES, 1)
    assert all(x == seen[0] for x in seen)
    assert "board" in str(seen[0][1])  # c reaches 4: off the grid, in every mode


def test_a_chain_of_fires_still_stops_at_the_depth_limit(write_ruleset: Callable[..., str]) -> None:
    assert "fire_stack.append" in _text(write_ruleset, CHAIN)
    seen = _play(write_ruleset, CHAIN, 2)
    assert all(x == seen[0] for x in seen)
    assert "trigger chain deeper than" in str(seen[0][1])


NEAR = '''
fn near(p: player, c: int, r: int) -> int =
    count(d for d in compass where on_grid(board, c + dx(d), r + dy(d)) and board[c + dx(d), r + dy(d)] > 1)
fn edge(c: int, r: int) -> bool = any(on_grid(board, c + dx(d), r) and board[c + dx(d), r + 1] > 2 for d in compass)
round {
  step s "S" {
    for p in players {
      choose k from range(16) by p {
        board[k % 4, k / 4] = board[k % 4, k / 4] + 1
        log "{} {} {}", p, near(p, k % 4, k / 4), edge(k % 4, k / 4)
      }
    }
    if round >= 8 { end game }
  }
}
score(p) = total
'''


def test_a_coordinate_proven_on_the_grid_by_its_shape(write_ruleset: Callable[..., str]) -> None:
    text = _text(write_ruleset, NEAR)
    loops = [t for t in text.split("\n\n") if "compass" not in t and "def _a" in t]
    near = [t for t in loops if "> 1)" in t]
    edge = [t for t in loops if "> 2)" in t]
    assert near and all("_off_grid" not in t for t in near)  # `on_grid(…)` proved the same coordinates
    assert edge and all("_off_grid" in t for t in edge)  # the row `r + 1` was not tested: its check stays
    for seed in range(4):
        seen = _play(write_ruleset, NEAR, seed)
        assert all(x == seen[0] for x in seen), seed


MOVES = '''
card Tok { v: int }
cards "tok.yaml"
zone deck: deck hidden of Tok
zone pile: pile public of Tok
zone trash: pile public final of Tok
zone hand: per player row owner of Tok
setup { shuffle deck }
round {
  step s "S" {
    for p in players {
      choose k from range(3) by p {
        move top(deck) to p.hand
        if k == 1 { move top(p.hand) to pile bottom }
        if k == 2 { move top(p.hand) to trash }
        total += size(trash) * 10 + size(pile)
        log "{} {} {}", p, size(p.hand), top(pile)
      }
    }
  }
}
score(p) = size(p.hand)
'''


def test_moves_from_the_top_play_alike(write_ruleset: Callable[..., str]) -> None:
    toks = "kind: Tok\nstart: deck\ncards:\n" + "".join(f"  - {{name: t{i}, v: {i}}}\n" for i in range(9))
    program, diags = check_file(write_ruleset(HEAD + MOVES, {"tok.yaml": toks}))
    assert program is not None, "\n".join(map(str, diags))
    gen = Ruleset(program).compiled.gen
    assert gen is not None and ".pop()" in gen.sources.dump() and "_l" in gen.sources.dump()
    for seed in range(4):
        seen = []
        for mode in MODES:
            game = Ruleset(program, **mode).new_game(2, seed)
            game.random_playout(random.Random(seed))
            seen.append((game.digest(), game.error, game.state.removed_count,
                         [game.log_lines(v) for v in (None, 0, 1)]))
        assert all(x == seen[0] for x in seen), seed
        assert "nothing to move" in str(seen[0][1])  # the deck runs out: the same error in every mode


def test_moves_into_a_zone_with_a_capacity_play_alike(write_ruleset: Callable[..., str]) -> None:
    toks = "kind: Tok\nstart: deck\ncards:\n" + "".join(f"  - {{name: t{i}, v: {i}}}\n" for i in range(9))
    body = MOVES.replace("zone pile: pile public of Tok",
                         "zone pile: pile public of Tok\nzone held: slot public of Tok")
    body = body.replace("if k == 1 { move top(p.hand) to pile bottom }",
                        "if k == 1 { move top(p.hand) to held }\n"
                        "        if k == 0 and size(held) > 0 { move top(held) to p.hand }")
    program, diags = check_file(write_ruleset(HEAD + body, {"tok.yaml": toks}))
    assert program is not None, "\n".join(map(str, diags))
    errors = set()
    for seed in range(8):
        seen = []
        for mode in MODES:
            game = Ruleset(program, **mode).new_game(2, seed)
            game.random_playout(random.Random(seed))
            seen.append((game.digest(), game.error, [game.log_lines(v) for v in (None, 0, 1)]))
        assert all(x == seen[0] for x in seen), seed
        errors.add(str(seen[0][1]).split(" (")[0].split(" [")[0])
    assert any("is full" in e for e in errors), errors  # a second card into the slot: the same error everywhere
