"""Neighbours of a cell on the grid in generated code (interpreter/codegen/gridgen.py ``Around``, codegen/unroll.py):
an `any` over a direction set and a statement `for d in DIRS` whose body starts with ``let nx = X + dx(d)``,
``let ny = Y + dy(d)`` test each neighbour with one read of a per-step table and read its cells at ``base + K``,
where (X, Y) is on the grid; elsewhere (a base off the grid) the items are written as before. Every compile mode
plays the same games and stops with the same errors, with bases on and off the grid."""
from __future__ import annotations

import random
import re
from collections.abc import Callable

from liturgy.interpreter.codegen import unroll
from liturgy.interpreter.runtime.grids import GridInfo
from mode_helpers import compiled, played_in_every_mode

RULES = '''game "Around" { players 2..2
  step_limit 3000 }
grid board 5 by 4 of player
grid mark 5 by 4 of int
counter total 0..1000000
counter moves 0..1000
fn free(i: int) -> bool = i % 6 == 0 or board[i % 6 - 1, i / 6] == none
fn touches(p: player, c: int, r: int) -> bool =
    any(mark[c + dx(d), r + dy(d)] > 1 for d in hex
        where on_grid(board, c + dx(d), r + dy(d)) and board[c + dx(d), r + dy(d)] == p)
proc flood(p: player, c: int, r: int) {
  let todo = [c + width(board) * r]
  let next = 0
  repeat while next < size(todo) {
    let cell = todo[next]
    next = next + 1
    let x = cell % width(board)
    let y = cell / width(board)
    for d in hex {
      let nx = x + dx(d)
      let ny = y + dy(d)
      if on_grid(board, nx, ny) and board[nx, ny] == p and mark[nx, ny] == 0 {
        mark[nx, ny] = mark[x, y] + 1
        todo = todo + [nx + width(board) * ny]
        total += 1
      }
    }
  }
}
proc shifted(c: int, r: int) {
  let x = c
  for d in orthogonal {
    let nx = x + dx(d)
    let ny = r + dy(d)
    if on_grid(mark, nx, ny) and mark[nx, ny] > 0 { total += 1000 }
    x = x + 0
  }
}
round {
  step place "Place" {
    for p in players {
      choose i from range(24) where free(i) by p {
        let c = i % 6 - 1
        let r = i / 6
        moves += 1
        if touches(p, c, r) { total += 100 }
        for d in hex {
          let nx = c + dx(d)
          let ny = r + dy(d)
          if on_grid(board, nx, ny) and board[nx, ny] != none { total += 10 }
        }
        do shifted(c, r)
        if on_grid(board, c, r) {
          board[c, r] = p
          mark[c, r] = 1
          do flood(p, c, r)
        }
        if moves >= 40 { end game }
      } otherwise { end game }
    }
  }
}
score(p) = total
'''

GUARD = re.compile(r"if \(0 <= \S+ < 5\) and \(0 <= \((_u[0-9]+) := \S+ \+ 5 \* \S+\) < 20\)")


def test_neighbours_from_step_tables_where_the_base_is_on_the_grid(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(RULES)
    gen = compiled(path, {}).compiled.gen
    assert gen is not None
    text = gen.sources.dump()
    # `touches` (an expression), the step's loop, and `flood`'s loop in both of its functions; `shifted` writes
    # its base `x` in the body, so its loop is written out without the guard
    guards = GUARD.findall(text)
    assert len(guards) == 4, text
    for name in guards:  # each neighbour: its step's table read at the base, its cells at base + K
        assert re.search(rf"_k[0-9]+\[{name}\] and \(_cs\[\({name} \+ [0-9]+\)\]", text), name
    assert "for d in" not in text and "in _k" not in text.split("def _sp")[-1].split("\n\n")[0]
    # flood's copies know x and y on the grid: `mark[x, y] + 1` reads its slot with no bounds test
    assert "_off_grid('mark'" not in text.split("def _sp")[-1].split("\n\n")[0]


def test_every_mode_plays_the_same_with_bases_on_and_off_the_grid(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(RULES)
    off = on = 0
    for seed in range(6):
        seen = played_in_every_mode(lambda mode: compiled(path, mode), seed)
        assert all(x == seen[0] for x in seen), seed
        game = compiled(path, {}).new_game(2, seed)
        rng = random.Random(seed)
        while not game.finished:  # the same choices again, to see where the bases fell
            _, player, options, *_ = game.state.pending
            choice = rng.randrange(len(options))
            off, on = (off + 1, on) if options[choice] % 6 == 0 else (off, on + 1)
            game.apply(choice, player)
        assert game.digest() == seen[0][0]  # type: ignore[index]
    assert off and on  # the guard's two sides both ran


def test_the_same_with_writing_out_off(write_ruleset: Callable[..., str]) -> None:
    """Against the loops the items replace (unrolling off): the same digests, errors and logs."""
    path = write_ruleset(RULES)
    for seed in range(3):
        game = compiled(path, {}).new_game(2, seed)
        game.random_playout(random.Random(seed))
        unroll.ENABLED = False
        try:
            loops = compiled(path, {}).new_game(2, seed)
            loops.random_playout(random.Random(seed))
        finally:
            unroll.ENABLED = True
        assert (game.digest(), game.error, game.log_lines(None)) == (loops.digest(), loops.error,
                                                                       loops.log_lines(None))


def test_steps_on_tables() -> None:
    g = GridInfo("g", 7, 3, 2)
    assert g.steps_on(1, 0) == (True, True, False, True, True, False)
    assert g.steps_on(-1, 1) == (False, True, True, False, False, False)
    assert g.steps_on(0, 0) == (True,) * 6
    assert g.steps_on(1, 0) is g.steps_on(1, 0)  # made once per grid and step


DEEP = '''game "Deep" { players 2..2
  step_limit 3000 }
grid board 4 by 4 of player
counter total 0..1000000
proc look(c: int, r: int) {
  for d in hex {
    let nx = c + dx(d)
    let ny = r + dy(d)
    if on_grid(board, nx, ny) {
''' + "".join("      " + "  " * k + "if true {\n" for k in range(14)) + '''
''' + "      " + "  " * 14 + "if board[nx, ny] != none { total += 1 }\n" + "".join(
    "      " + "  " * k + "}\n" for k in reversed(range(14))) + '''    }
  }
}
round {
  step place "Place" {
    for p in players {
      choose i from range(16) where board[i % 4, i / 4] == none by p {
        board[i % 4, i / 4] = p
        do look(i % 4, i / 4)
      } otherwise { end game }
    }
  }
}
score(p) = total
'''


def test_a_body_nested_past_a_function_s_depth(write_ruleset: Callable[..., str]) -> None:
    """Ifs nested deeper than one generated function holds are written as a function of their own, where the base
    cell's local does not exist: the cells there are written as before (and every mode agrees)."""
    path = write_ruleset(DEEP)
    gen = compiled(path, {}).compiled.gen
    assert gen is not None
    text = gen.sources.dump()
    assert re.search(r"if \(0 <= \S+ < 4\) and \(0 <= \(_u[0-9]+ := ", text), text  # written out around the cell
    assert text.count("def _s") > 8, text  # the deepest ifs: functions of their own
    for seed in range(3):
        seen = played_in_every_mode(lambda mode: compiled(path, mode), seed)
        assert all(x == seen[0] for x in seen), seed


CARDS = '''game "Cards around" { players 2..2
  step_limit 3000 }
card Spot {
  c: int
  r: int
}
cards "spots.yaml"
zone spots: row public of Spot
grid board 3 by 3 of player
counter total 0..1000000
counter moves 0..100
fn near(p: player, c: int, r: int) -> bool =
    any(board[c + dx(d), r + dy(d)] == p for d in hex where on_grid(board, c + dx(d), r + dy(d)))
round {
  step place "Place" {
    for p in players {
      choose m from spots by p {
        moves += 1
        if near(p, m.c, m.r) { total += 1 }
        if on_grid(board, m.c, m.r) { board[m.c, m.r] = p } else { log "off the board: {}", m }
        if moves >= 24 { end game }
      } otherwise { end game }
    }
  }
}
score(p) = total
'''
SPOTS = "kind: Spot\nstart: spots\ncards:\n" + "".join(
    f'  - name: "s{c + 1}{r}"\n    c: {c}\n    r: {r}\n' for c in range(-1, 4) for r in range(3))


def test_a_card_s_cell_index_from_a_per_card_table(write_ruleset: Callable[..., str]) -> None:
    """`near(p, m.c, m.r)`: the base cell's index is one read of a per-card table of `c + 3 * r`, None for the
    cards off the board (columns -1 and 3 here), where the items are written as before; every mode agrees."""
    path = write_ruleset(CARDS, {"spots.yaml": SPOTS})
    gen = compiled(path, {}).compiled.gen
    assert gen is not None
    text = gen.sources.dump()
    found = re.search(r"if \((_u[0-9]+) := (_k[0-9]+)\[_E[0-9]+\]\) is not None else ", text)
    assert found, text
    index = gen.ns[found.group(2)]
    assert sorted(i for i in index if i is not None) == list(range(9)) and index.count(None) == 6
    offs = 0
    for seed in range(6):
        seen = played_in_every_mode(lambda mode: compiled(path, mode), seed)
        assert all(x == seen[0] for x in seen), seed
        offs += sum("off the board" in line for line in seen[0][2][0])  # type: ignore[index]
    assert offs  # some bases were off the board


def test_items_that_read_another_bound_field_keep_the_guard(write_ruleset: Callable[..., str]) -> None:
    """A third printed field read by the items (`w`, bound once before them like `c` and `r`) is bound only on the
    path that binds them all: there the base cell's index comes from the guard on c and r instead."""
    rules = CARDS.replace("  r: int\n}", "  r: int\n  w: int\n}").replace(
        "fn near(p: player, c: int, r: int) -> bool =\n    any(board[c + dx(d), r + dy(d)] == p for d",
        "fn near(p: player, c: int, r: int, w: int) -> bool =\n"
        "    any(board[c + dx(d), r + dy(d)] == p and w > 0 for d",
    ).replace("near(p, m.c, m.r)", "near(p, m.c, m.r, m.w)")
    spots = SPOTS.replace("    r: 0\n", "    r: 0\n    w: 0\n").replace("    r: 1\n", "    r: 1\n    w: 1\n").replace(
        "    r: 2\n", "    r: 2\n    w: 2\n")
    path = write_ruleset(rules, {"spots.yaml": spots})
    gen = compiled(path, {}).compiled.gen
    assert gen is not None
    text = gen.sources.dump()
    assert "is not None else ((True if" not in text and re.search(
        r"if \(0 <= _u[0-9]+ < 3\) and \(0 <= \(_u[0-9]+ := _u[0-9]+ \+ 3 \* _u[0-9]+\) < 9\)", text), text
    for seed in range(4):
        seen = played_in_every_mode(lambda mode: compiled(path, mode), seed)
        assert all(x == seen[0] for x in seen), seed
