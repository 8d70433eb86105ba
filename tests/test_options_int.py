"""Whole-number options (`option NAME: int LO..HI = N`): checked when declared (E153), refused with their range
when a value is wrong, recorded in saves and logs in one spelling, and read by the rules as an int."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from liturgy.dsl.diagnostics import Diagnostic
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.tools.cli import main as cli_main

COUNT = """game "Count" { players 1..2 }
option goal: int 1..20 = 3
option bias: int -5..5 = -2
counter n 0..100
round {
  step s "S" {
    n += 1
    log "count {} of {}", n, goal
    if n >= goal { end game }
  }
}
score(p) = n + bias
"""


@pytest.fixture()
def count(tmp_path: Path) -> str:
    path = tmp_path / "count.rules"
    path.write_text(COUNT)
    return str(path)


def test_default_and_chosen_values_are_read_as_numbers(count: str) -> None:
    rs = load_ruleset(count)
    game = rs.new_game(1, 1)
    assert game.finished and game.result is not None and game.result["scores"] == [1]  # 3 + (-2)
    game = rs.new_game(1, 1, options={"goal": "12", "bias": "-5"})
    assert game.result is not None and game.result["scores"] == [7]
    assert rs.option_values()["bias"] == ("-5", "-4", "-3", "-2", "-1", "0", "1", "2", "3", "4", "5")


def test_one_spelling_per_value(count: str) -> None:
    rs = load_ruleset(count)
    a, b = rs.new_game(1, 1, options={"goal": "07"}), rs.new_game(1, 1, options={"goal": "7"})
    assert a.options == b.options == {"goal": "7"} and a.digest() == b.digest()
    loaded = rs.load_game(json.loads(json.dumps(a.to_json())))
    assert loaded.options == {"goal": "7"} and loaded.digest() == a.digest()


@pytest.mark.parametrize("value", ["99", "0", "x", "", "1_0", "٣", "7.0", "1" * 12, "--3"])
def test_values_outside_the_range_are_refused_naming_it(count: str, value: str) -> None:
    with pytest.raises(ValueError, match=r"option `goal` takes a whole number from 1 to 20, not"):
        load_ruleset(count).new_game(1, 1, options={"goal": value})


def test_cli_names_the_range(count: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["simulate", count, "--players", "1", "--games", "1", "--option", "goal=99"]) == 2
    assert "takes a whole number from 1 to 20, not `99`" in capsys.readouterr().err
    assert cli_main(["simulate", count, "--players", "1", "--games", "3", "--option", "goal=5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["counter_totals"]["n"] == 15


@pytest.mark.parametrize("decl, message", [
    ("int 1..20 = 30", "the default of option `goal` must be a whole number in 1..20"),
    ("int 1..20 = goal", "the default of option `goal` must be a whole number in 1..20"),
    ("int 5..1 = 3", "option `goal` has the range 5..1: it must hold 1 to 1000 values"),
    ("int 0..5000 = 3", "option `goal` has the range 0..5000: it must hold 1 to 1000 values"),
])
def test_bad_declarations_are_e153(tmp_path: Path, decl: str, message: str) -> None:
    errors = _errors(tmp_path, COUNT.replace("int 1..20 = 3", decl))
    assert [d.code for d in errors] == ["E153"] and message in errors[0].message


def test_an_int_option_cannot_be_assigned(tmp_path: Path) -> None:
    assert [d.code for d in _errors(tmp_path, COUNT.replace("n += 1", "n += 1\n    goal = 2"))] == ["E152"]


def _errors(tmp_path: Path, text: str) -> list[Diagnostic]:
    path = tmp_path / "g.rules"
    path.write_text(text)
    return [d for d in check_file(str(path))[1] if d.severity == "error"]


def test_the_formatter_keeps_the_declaration(count: str) -> None:
    assert cli_main(["fmt", "--check", count]) == 0
