"""Grids (docs/language.md §1.15): cells, directions and the grid built-ins agree in every compile mode, are
plain data in saves, digests and views, and draw at the terminal when a ruleset has no `display`."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.agents.terminal import status_text
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.interop.common import ViewEncoder
from liturgy.interpreter.runtime.grids import render

ROOT = Path(__file__).resolve().parent.parent
CONNECT_FOUR = ROOT / "rulesets" / "classic" / "connect_four.rules"
HEX_CLAIM = ROOT / "docs" / "examples" / "hex_claim.rules"
MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]

# every grid built-in and direction set, a grid held in a local (the closures' path in generated code too),
# enum and int cells, and a cell written off the grid on purpose when the last column fills
EVERYTHING = """
game "Grid test" { players 2..2  step_limit 5000 }
enum Mark { ring, cross }
grid board 4 by 3 of player
grid marks 4 by 3 of Mark
grid heat 4 by 3 of int
counter checks 0..100000

fn top_free(c: int) -> bool = board[c, height(board) - 1] == none

round {
  step play "Play" {
    for p in players {
      choose c from range(width(board)) where top_free(c) by p {
        let r = count(y for y in range(height(board)) where board[c, y] != none)
        board[c, r] = p
        marks[c, r] = if p == first then ring else cross
        heat[c, r] += 2
        let g = board
        checks += sum(line(g, c, r, d) for d in compass) + sum(span(board, c, r, d) for d in axes)
        checks += count(d for d in orthogonal + diagonal + hex where on_grid(g, c + dx(d), r + dy(d)))
        checks += size([d for d in compass where opposite(opposite(d)) == d]) + width(g) * height(g)
        for d in orthogonal {
          if on_grid(heat, c + dx(d), r + dy(d)) { heat[c + dx(d), r + dy(d)] += 1 }
        }
        log "{} plays {} at {} {}, {} {}", p, marks[c, r], c, r, heat[c, r], northeast
        if r == 2 and c == 3 and checks % 3 == 0 { heat[c + 1, r] = 1 }
      } otherwise { end game }
    }
  }
}

score(p) = sum(heat[c, 0] for c in range(width(heat)) where board[c, 0] == p) + checks % 7
"""


def _play(rules: Ruleset, seed: int) -> Game:
    game = rules.new_game(2, seed, check_invariants=True)
    game.random_playout(random.Random(seed))
    return game


def _modes(path: Path) -> list[Ruleset]:
    out = []
    for mode in MODES:
        program, diags = check_file(str(path))
        assert program is not None, diags
        out.append(Ruleset(program, **mode))
    return out


@pytest.mark.parametrize("path", [CONNECT_FOUR, HEX_CLAIM, "everything"], ids=["connect_four", "hex_claim", "all"])
def test_grids_play_alike_in_every_compile_mode(path: Path | str, tmp_path: Path) -> None:
    if path == "everything":
        path = tmp_path / "everything.rules"
        path.write_text(EVERYTHING, encoding="utf-8")
    assert isinstance(path, Path)
    rulesets = _modes(path)
    errors = 0
    for seed in range(12):
        seen = []
        for rules in rulesets:
            g = _play(rules, seed)
            seen.append((g.digest(), g.error, g.state.steps, g.log_lines(None), g.log_lines(0)))
        assert all(s == seen[0] for s in seen[1:]), f"seed {seed}"
        errors += seen[0][1] is not None
    if path.name == "everything.rules":
        assert 0 < errors < 12  # some games fill the last column and write off the grid: the same error everywhere


def test_off_the_grid_is_a_located_rule_error(tmp_path: Path) -> None:
    path = tmp_path / "everything.rules"
    path.write_text(EVERYTHING, encoding="utf-8")
    messages = set()
    for rules in _modes(path):
        for seed in range(12):
            g = _play(rules, seed)
            if g.error:
                messages.add(g.error)
    assert any("cell [4, 2] is outside grid heat (4 columns by 3 rows)" in m for m in messages), messages


def test_a_cell_reads_what_was_written_and_lines_count(write_ruleset: Callable[..., str]) -> None:
    rules = load_ruleset(str(CONNECT_FOUR))
    game = rules.new_game(2, 1)
    for col in (3, 3, 4, 4, 5, 5):  # P1 three across the bottom row, P2 on top of them
        game.apply(game.decision.options[game.decision.players[0]].index(str(col)), game.decision.players[0])
    lay = rules.compiled.layout.grids["board"]
    assert lay.line(game.state.counters, 3, 0, "east") == 3
    assert lay.span(game.state.counters, 4, 0, "west") == 3
    assert lay.line(game.state.counters, 3, 1, "south") == 1
    assert lay.line(game.state.counters, 9, 0, "east") == 0
    assert not game.finished
    game.apply(game.decision.options[0].index("6"), 0)  # four in a row
    assert game.finished and game.result is not None and game.result["scores"] == [1, -1]


def test_grids_are_in_views_saves_and_digests() -> None:
    rules = load_ruleset(str(CONNECT_FOUR))
    game = rules.new_game(2, 5)
    before = game.digest()
    game.apply(2, 0)  # P1 drops in column 2
    assert game.digest() != before
    for viewer in (None, 0, 1):
        rows = game.view(viewer)["grids"]["board"]
        assert len(rows) == 6 and all(len(r) == 7 for r in rows)
        assert rows[-1][2] == "P1" and rows[-1].count(None) == 6 and rows[0] == [None] * 7
    loaded = rules.load_game(game.to_json())
    assert loaded.digest() == game.digest() and loaded.view(0)["grids"] == game.view(0)["grids"]
    clone = game.clone()
    clone.apply(0, 1)
    assert game.view(0)["grids"]["board"][-1][0] is None  # a clone's moves do not reach the original


def test_rulesets_without_grids_keep_their_views() -> None:
    rules = load_ruleset(str(ROOT / "rulesets" / "classic" / "kuhn_poker.rules"))
    assert "grids" not in rules.new_game(2, 1).view(0)


def test_the_terminal_draws_a_grid_without_a_display() -> None:
    rules = load_ruleset(str(CONNECT_FOUR))
    game = rules.new_game(2, 5)
    game.apply(3, 0)
    text = status_text(game, 1)
    assert "board:" in text
    assert "    0  .  .  . P1  .  .  ." in text and "       0  1  2  3  4  5  6" in text
    assert render("g", [[None, 1], ["wood", None]]) == ["g:", "  1    .    1", "  0 wood    .", "       0    1"]


def test_the_observation_vector_encodes_cells() -> None:
    rules = load_ruleset(str(CONNECT_FOUR))
    game = rules.new_game(2, 5)
    game.apply(1, 0)
    game.apply(1, 1)
    enc = ViewEncoder(rules, 2)
    vec = enc.encode(game.view(0), 0)
    base = enc.grid_slots["board"][0]
    assert list(vec[base + 2: base + 4]) == [1.0, 0.0]           # cell (1, 0): P1
    assert list(vec[base + 7 * 2 + 2: base + 7 * 2 + 4]) == [0.0, 1.0]  # cell (1, 1): P2


@pytest.mark.parametrize(("decl", "code"), [
    ("grid g 0 by 2 of int", "E310"),
    ("grid g 200 by 200 of int", "E310"),
    ("grid g 2 by 2 of bool", "E311"),
    ("grid g 2 by 2 of int\ncounter k 0..3", "E312"),
])
def test_grid_declarations_are_checked(write_ruleset: Callable[..., str], decl: str, code: str) -> None:
    use = "k[0, 1] = 1" if "counter k" in decl else "g[0, 0] = 1"
    path = write_ruleset(f'game "G" {{ players 1..2 }}\n{decl}\nround {{ step s "S" {{ {use}  end game }} }}\n'
                         "score(p) = 0\n")
    _, diags = check_file(path)
    assert code in {d.code for d in diags if d.is_error}, diags


def test_an_unused_grid_and_a_constant_off_the_grid_are_warned(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset('game "G" { players 1..2 }\ngrid g 2 by 2 of int\ngrid unused 2 by 2 of int\n'
                         'round { step s "S" { g[2, -1] = 1  end game } }\nscore(p) = 0\n')
    _, diags = check_file(path)
    codes = [d.code for d in diags]
    assert codes.count("W045") == 2 and "W001" in codes and not any(d.is_error for d in diags)


def test_a_rulesets_own_names_hide_the_directions(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset('game "G" { players 1..2 }\nenum Wind { north, south }\ncounter k 0..9\n'
                         'round { step s "S" { let hex = 3  if north == north { k = hex }  end game } }\n'
                         "score(p) = k\n")
    program, diags = check_file(path)
    assert program is not None and not [d for d in diags if d.is_error]
    game = Ruleset(program).new_game(1, 1)
    assert game.finished and game.result is not None and game.result["scores"] == [3]
