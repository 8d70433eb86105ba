"""Every type the reference names works where a type is written (issue 33): `direction` as a parameter, a card
field, a list item; an unknown type is reported once however often it is resolved; `check`'s summary line
stands apart from the diagnostics."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset
from liturgy.interpreter.tools.cli import main as cli_main
from liturgy.interpreter.tools.simulate import global_counters

ARROWS = """game "G" { players 2..2 }
card Arrow { facing: direction  turns: list of direction = [] }
cards "arrows.yaml"
zone pile: deck public of Arrow
counter total
fn step_from(c: int, d: direction) -> int = c + dx(d)
fn back(ds: list of direction) -> list of direction = [opposite(d) for d in ds]
round { step s "S" {
  total = step_from(1, east) + 10 * size(back([north, south]))
  for a in pile { total += 100 * dy(a.facing) + 1000 * size(a.turns) }
  choose d from back(bottom(pile).turns) by first prompt "Go which way?" {
    if d == west { total += 5 }
  }
  end game
} }
score(p) = total
"""
CARDS = """kind: Arrow
start: pile
cards:
  - {name: Up, facing: north, turns: [east]}
  - {name: Down, facing: south}
"""


@pytest.mark.parametrize("codegen", [False, True])
def test_direction_is_a_parameter_field_and_list_type(tmp_path: Path, codegen: bool) -> None:
    (tmp_path / "arrows.yaml").write_text(CARDS, encoding="utf-8")
    (tmp_path / "game.rules").write_text(ARROWS, encoding="utf-8")
    program, diags = check_file(str(tmp_path / "game.rules"))
    assert program is not None and not diags, "\n".join(map(str, diags))
    game = Ruleset(program, codegen=codegen).new_game(2, seed=1)
    game.random_playout(random.Random(1))
    assert game.error is None
    # 1 + east's step, two reversed directions, north's and south's rows cancel, one turn on Up, west chosen
    assert global_counters(game)["total"] == 2 + 20 + 1000 + 5


def test_a_card_value_that_is_no_direction_is_refused(tmp_path: Path) -> None:
    (tmp_path / "arrows.yaml").write_text(CARDS.replace("facing: north", "facing: up"), encoding="utf-8")
    (tmp_path / "game.rules").write_text(ARROWS, encoding="utf-8")
    _, diags = check_file(str(tmp_path / "game.rules"))
    assert [(d.code, Path(d.span.file).name, d.span.line) for d in diags] == [("E209", "arrows.yaml", 4)]
    assert "north" in diags[0].hint


def test_an_unknown_type_is_reported_once(tmp_path: Path) -> None:
    """A parameter's type is resolved at its declaration and at every call: one E101 all the same."""
    text = """game "G" { players 2..2 }
counter total
fn f(x: wibble) -> int = 1
proc g(y: wobble) { total += 1 }
round { step s "S" { total = f(1) + f(2) + f(3)  do g(1)  do g(2)  end game } }
score(p) = total
"""
    (tmp_path / "game.rules").write_text(text, encoding="utf-8")
    _, diags = check_file(str(tmp_path / "game.rules"))
    assert [(d.code, d.span.line, d.message) for d in diags if d.is_error] == [
        ("E101", 3, "unknown type `wibble`"), ("E101", 4, "unknown type `wobble`")]


def test_the_summary_is_apart_from_the_last_caret(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The summary goes to stderr after a blank line, and stdout is flushed first, so it cannot run onto the
    last diagnostic's caret line when both streams reach one terminal."""
    (tmp_path / "game.rules").write_text('game "G" { players 2..2 }\nfn f(x: wibble) -> int = 1\n'
                                         'round { step s "S" { end game } }\nscore(p) = f(1)\n', encoding="utf-8")
    assert cli_main(["check", str(tmp_path / "game.rules")]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[-1].strip() == "^" * len("wibble")  # stdout ends with the caret line
    assert err.startswith("\nFAILED: 1 ruleset(s), 1 error(s)")
