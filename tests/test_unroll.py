"""Small aggregates over constant items written out item by item (interpreter/codegen/unroll.py), and a choice's
variable known to stay in its constant `range` (codegen/choicegen.py ``ChoiceGen.body``): the generated text has
no loop function and no bounds test there, and every compile mode plays the same games and stops with the same
errors."""
from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

from liturgy.interpreter.engine import load_ruleset
from mode_helpers import MODES, compiled, played_in_every_mode

RULES = '''game "Unrolled" { players 2..2
  step_limit 3000 }
grid board 5 by 4 of player
grid heat 5 by 4 of int
counter total 0..1000000
counter seen 0..1000000
fn full(c: int) -> bool = board[c, height(board) - 1] != none
round {
  step drop "Drop" {
    for p in players {
      choose c from range(width(board)) where not full(c) by p {
        let r = count(y for y in range(height(board)) where board[c, y] != none)
        board[c, r] = p
        heat[c, r] = heat[c, r] + r + 1
        total += count(k for k in range(-2, 3) where on_grid(board, c + k, r) and board[c + k, r] == p)
        if any(heat[c + dx(d), r + dy(d)] > 2 for d in hex where on_grid(heat, c + dx(d), r + dy(d))) {
          seen += 1
        }
        if all(board[c + dx(d), r + dy(d)] != none for d in orthogonal where on_grid(board, c + dx(d), r + dy(d))) {
          seen += 10
        }
        if any(heat[x, r] >= 3 for x in range(width(board))) { seen += 100 }
        if all(heat[x, 0] > 0 for x in range(width(board))) { seen += 1000 }
        total += sum(heat[x, r] for x in range(width(board)))
        if seen >= 4000 { end game }
      } otherwise { end game }
    }
  }
}
score(p) = total + seen
'''


def test_small_constant_loops_are_written_out_and_play_as_loops(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(RULES)
    gen = compiled(path, {}).compiled.gen
    assert gen is not None
    text = gen.sources.dump()
    loops = [t for t in text.split("\n\n") if "liturgy loop" in t]
    # only `sum` stays a loop (it is not written out); the counts, `any`s and `all`s are inline expressions
    assert len(loops) == 1 and "_r += " in loops[0], loops
    assert "(1 if (" in text and "(True if " in text and "(False if " in text, text
    assert "1 if ((_cs[(4 + _E" in text  # board[c, 0] is slot 4 + c: no test for the chosen column
    for seed in range(6):
        seen = played_in_every_mode(lambda mode: compiled(path, mode), seed)
        assert all(x == seen[0] for x in seen), seed
        assert seen[0][1] is None, seen[0][1]


# a cell off the grid at the third item: the same error, at the same item, in every mode
FAILING = '''game "Off" { players 2..2
  step_limit 100 }
grid board 4 by 4 of int
counter n 0..100
round {
  step s "S" {
    for p in players {
      choose c from range(3) by p {
        n = count(k for k in range(4) where board[c + k, 0] == 0)
        end game
      }
    }
  }
}
score(p) = n
'''


def test_an_item_off_the_grid_fails_as_the_loop_does(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(FAILING)
    for seed in range(4):
        errors = []
        for mode in MODES:
            game = compiled(path, mode).new_game(2, seed)
            game.random_playout(random.Random(seed))
            errors.append((game.error, game.digest()))
        assert all(x == errors[0] for x in errors), errors
        chosen = errors[0][0]
        assert chosen is None or "outside grid board" in chosen


# the chosen value is written in the body: its range is not assumed, the bounds test stays
REBOUND = '''game "Rebound" { players 2..2
  step_limit 100 }
grid board 4 by 4 of int
round {
  step s "S" {
    for p in players {
      choose c from range(4) by p {
        c = c + 2
        board[c, 1] = 1
        end game
      }
    }
  }
}
score(p) = board[1, 1]
'''


def test_a_chosen_value_written_in_the_body_keeps_its_test(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(REBOUND)
    gen = compiled(path, {}).compiled.gen
    assert gen is not None
    assert "_off_grid('board', 4, 4" in gen.sources.dump()
    outcomes = set()
    for seed in range(8):
        seen = [(g.error, g.digest()) for g in (compiled(path, mode).new_game(2, seed) for mode in MODES)
                if g.random_playout(random.Random(seed)) >= 0]
        assert all(x == seen[0] for x in seen), seen
        outcomes.add(seen[0][0] is None)
    assert outcomes == {True, False}  # some games step off the grid (c = 2, 3), some do not


def test_hex_touches_reads_the_cell_fields_once() -> None:
    """Hex's `touches(p, m.c, m.r, k)`: six directions written out, `m.c` and `m.r` read from their tables once
    before them (bound first: a list is always true), `dx`/`dy` folded to numbers."""
    rules = load_ruleset(str(Path(__file__).resolve().parent.parent / "rulesets" / "classic" / "hex.rules"))
    gen = rules.compiled.gen
    assert gen is not None
    text = gen.sources.dump()
    binds = re.findall(r"else False\)+ if \[\(_u[0-9]+ := \(_k[0-9]+\[_E[0-9]+\]\)\), \(_u[0-9]+ := ", text)
    assert len(binds) >= 2, text  # both `touches` calls
    assert re.search(r":= \(_u[0-9]+ \+ -1\)\)", text), text  # `m.c + dx(west)`: the bound value, minus 1
    # the cell on the grid (always, in Hex): each neighbour's test one read of its step's table, its slots folded
    assert re.search(r"\(_k[0-9]+\[(_u[0-9]+)\] and \(_cs\[\(\1 \+ 3\)\] == ", text), text
    # the base cell's index read from a per-card table of `c + 11 * r` (None off the grid: the items as before)
    assert re.search(r"if \(_u[0-9]+ := _k[0-9]+\[_E[0-9]+\]\) is not None else \(\(True if ", text), text


PICKS = '''game "Picks" { players 2..2
  step_limit 400 }
grid board 5 by 4 of player
counter moved 0..1000
round {
  step s "S" {
    for p in players {
      choose c from range(width(board)) where board[c, height(board) - 1] == none and (c != 2 or moved % 3 == 0)
          by p {
        let r = count(y for y in range(height(board)) where board[c, y] != none)
        board[c, r] = p
        moved += 1
        choose d from hex where on_grid(board, c + dx(d), r + dy(d)) by p { moved += 1 }
      } otherwise { end game }
    }
  }
}
score(p) = moved
'''


def test_a_choice_over_a_few_constant_items_tests_each_item_in_place(write_ruleset: Callable[..., str]) -> None:
    """`choose c from range(5) where …` and `choose d from hex where …`: one test per item, the item folded in
    (column 2's top cell is slot 20), paired with the items by `compress`: no comprehension, the same options."""
    path = write_ruleset(PICKS)
    gen = compiled(path, {}).compiled.gen
    assert gen is not None
    filters = [t for t in gen.sources.dump().split("\n\n") if "liturgy filter" in t]
    assert len(filters) == 2 and all("(items, (" in t and " for " not in t for t in filters), filters
    assert "(_cs[20] is None) and ((2 != 2)" in filters[0], filters[0]
    for seed in range(6):
        seen = played_in_every_mode(lambda mode: compiled(path, mode), seed)
        assert all(x == seen[0] for x in seen), seed


def test_an_item_off_the_grid_in_a_choice_fails_as_the_comprehension_does(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(PICKS.replace("range(width(board)) where board[c, height(board) - 1] == none",
                                       "range(-1, 4) where board[c + 1, 3] == none and board[c, 0] == none"))
    errors = []
    for mode in MODES:
        game = compiled(path, mode).new_game(2, 0)
        game.random_playout(random.Random(0))
        errors.append((game.error, game.digest()))
    assert all(x == errors[0] for x in errors), errors
    assert errors[0][0] is not None and "cell [-1, 0] is outside grid board" in errors[0][0]
