"""A ruleset's own names shadow the language's built-ins (issue 33, compatibility).

Every new built-in (`height`, `line`, `neighbours`, `dx`, `dy`, `active`, …) used to break each ruleset that
already had a `fn` of that name (E104). Now the ruleset's declaration wins in that ruleset, with a note (W080)
that `--strict` does not fail on. These tests hold that promise for every built-in the language has, so adding
one that a user's name cannot shadow fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from liturgy.dsl.checker.program import AGGREGATES, BUILTIN_FUNCS, BUILTIN_VALUES
from liturgy.dsl.constructs.grids import DIRECTION_SETS, DIRECTIONS
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset
from liturgy.interpreter.tools.cli import main as cli_main
from liturgy.interpreter.tools.simulate import global_counters

EVERY_BUILTIN = sorted(BUILTIN_VALUES | BUILTIN_FUNCS | AGGREGATES)


def _run(path: str, codegen: bool) -> dict[str, int]:
    """Check, compile (closures only, or with generated code) and play the game; its global counters."""
    program, diags = check_file(path)
    assert program is not None, "\n".join(map(str, diags))
    game = Ruleset(program, codegen=codegen).new_game(2, seed=3)
    assert game.result is not None and game.error is None
    return global_counters(game)


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "game.rules"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("name", EVERY_BUILTIN)
@pytest.mark.parametrize("codegen", [False, True])
def test_a_user_fn_shadows_every_builtin(tmp_path: Path, name: str, codegen: bool) -> None:
    """`fn NAME` for every built-in NAME: the ruleset checks with one W080 at the declaration, and a call runs
    the user's function, not the built-in."""
    text = f"""game "G" {{ players 2..2 }}
counter total
fn {name}(x: int) -> int = x + 7
round {{ step s "S" {{ total += {name}(1)  end game }} }}
score(p) = total
"""
    path = _write(tmp_path, text)
    _, diags = check_file(path)
    assert [(d.code, d.span.line) for d in diags] == [("W080", 3)]
    assert f"`{name}`" in diags[0].message
    assert _run(path, codegen)["total"] == 8


@pytest.mark.parametrize("name", sorted(BUILTIN_VALUES))
@pytest.mark.parametrize("codegen", [False, True])
def test_a_user_counter_shadows_every_builtin_value(tmp_path: Path, name: str, codegen: bool) -> None:
    """A counter named like a built-in value (`players`, `first`, `player_count`, `round`) is read as the
    counter wherever the name appears, not as the built-in."""
    text = f"""game "G" {{ players 2..2 }}
counter {name} = 40
counter total
round {{ step s "S" {{ {name} += 1  total = {name} + 1  end game }} }}
score(p) = total
"""
    path = _write(tmp_path, text)
    _, diags = check_file(path)
    assert [(d.code, d.span.line) for d in diags] == [("W080", 2)]
    assert _run(path, codegen)["total"] == 42


@pytest.mark.parametrize("name", sorted(BUILTIN_VALUES))
def test_a_let_shadows_a_builtin_value_for_its_block(tmp_path: Path, name: str) -> None:
    """`let players = 3` names a local: the rest of the block reads 3 (it was E104)."""
    text = f"""game "G" {{ players 2..2 }}
counter total
round {{ step s "S" {{
  let {name} = 3
  total = {name} * 2
  end game
}} }}
score(p) = total
"""
    path = _write(tmp_path, text)
    _, diags = check_file(path)
    assert [(d.code, d.span.line) for d in diags] == [("W080", 4)]
    assert _run(path, True)["total"] == 6


def test_the_user_style_names_of_the_report(tmp_path: Path) -> None:
    """The names new users reached for (issue 33): their own grid helpers next to a real grid, whose built-ins
    they no longer reach by those names."""
    text = """game "G" { players 2..2 }
grid board 3 by 2 of int
counter total
fn height(x: int) -> int = x * 2
fn line(a: int, b: int) -> int = a + b
fn neighbours(x: int) -> int = x + 1
fn dx(x: int) -> int = x - 1
fn dy(x: int) -> int = x + 10
fn active(p: player) -> bool = p == first
round { step s "S" {
  total = height(2) + line(1, 2) + neighbours(0) + dx(5) + dy(0) + width(board)
  if active(first) { total += 100 }
  end game
} }
score(p) = total
"""
    path = _write(tmp_path, text)
    _, diags = check_file(path)
    assert sorted(d.code for d in diags) == ["W080"] * 6
    assert _run(path, False)["total"] == _run(path, True)["total"] == 4 + 3 + 1 + 4 + 10 + 3 + 100


def test_self_stays_reserved(tmp_path: Path) -> None:
    """`self` is the card whose effect runs, not a built-in that a name could replace: still E104."""
    text = 'game "G" { players 2..2 }\nround { step s "S" { let self = 2  end game } }\nscore(p) = 0\n'
    _, diags = check_file(_write(tmp_path, text))
    assert [d.code for d in diags if d.is_error] == ["E104"]


def test_strict_check_does_not_fail_on_a_shadowing_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """W080 is a note: a ruleset that passed `check --strict` keeps passing when a built-in of its name is
    added, while a real warning (W001, an unused fn) still fails it."""
    base = 'game "G" { players 2..2 }\ncounter total\nfn height(x: int) -> int = x\n'
    ok = _write(tmp_path, base + 'round { step s "S" { total = height(1)  end game } }\nscore(p) = total\n')
    assert cli_main(["check", "--strict", ok]) == 0
    (tmp_path / "unused.rules").write_text(base + 'fn spare() -> int = 1\nround { step s "S" { total = height(1)  '
                                           'end game } }\nscore(p) = total\n', encoding="utf-8")
    assert cli_main(["check", "--strict", str(tmp_path / "unused.rules")]) == 1
    capsys.readouterr()


def test_a_mode_fn_and_counter_shadow_builtins_inside_the_mode(tmp_path: Path) -> None:
    """Inside a rule mode its own `fn height` and `counter first` win over the built-ins; outside the mode
    `first` is still the first player."""
    text = """game "G" { players 2..2 }
counter total
mode tall {
  counter first = 5
  fn height(x: int) -> int = x + first
  step grow after s "Grow" { total += height(1) + 100 * size(players) }
}
round { step s "S" {
  enter tall
  if first == players[0] { total += 1000 }
} step e "E" { if total > 0 { end game } } }
score(p) = total
"""
    path = _write(tmp_path, text)
    _, diags = check_file(path)
    assert sorted((d.code, d.span.line) for d in diags) == [("W080", 4), ("W080", 5)]
    assert _run(path, False)["total"] == _run(path, True)["total"] == 1000 + 6 + 200


@pytest.mark.parametrize("name", sorted(BUILTIN_VALUES))
def test_an_enum_value_shadows_a_builtin_value(tmp_path: Path, name: str) -> None:
    """`enum Seat { first, second }`: `first` is the enum value wherever the ruleset writes it (it used to be
    the built-in player there, silently), with W080 at the value."""
    text = f"""game "G" {{ players 2..2 }}
enum Seat {{ {name}, second }}
counter total
round {{ step s "S" {{ total = ord({name}) + 10 * ord(second)  end game }} }}
score(p) = total
"""
    path = _write(tmp_path, text)
    _, diags = check_file(path)
    assert [(d.code, d.span.line) for d in diags] == [("W080", 2)]
    assert _run(path, True)["total"] == 10


# Directions (`north`, …) and direction sets (`compass`, `hex`, …) are built-in values of the grids (language.md
# §1.15) outside BUILTIN_VALUES: names as common as a user's `enum Wind { north, … }` or Betrayal's own
# `fn compass`. They are shadowed silently (no note): the same promise, held here name by name.
DIRECTION_NAMES = sorted(set(DIRECTIONS) | set(DIRECTION_SETS))


def _grid_user(name: str, decl: str, use: str) -> str:
    """A ruleset with a grid that still uses a built-in direction other than ``name``, plus the user's ``decl``
    and ``use`` of ``name``: the shadowing must not disturb the built-ins it leaves alone."""
    other = "south" if name in ("north", "orthogonal", "compass", "axes", "hex") else "north"
    return f"""game "G" {{ players 2..2 }}
grid board 3 by 3 of int
counter total
{decl}
round {{ step s "S" {{
  total = 1000 * dy({other}) + width(board) - 3
  {use}
  end game
}} }}
score(p) = total
"""


@pytest.mark.parametrize("name", DIRECTION_NAMES)
@pytest.mark.parametrize("codegen", [False, True])
def test_a_user_fn_and_parameter_shadow_every_direction_name(tmp_path: Path, name: str, codegen: bool) -> None:
    """`fn north(…)` is called by `north(…)`, and a parameter named `east` is the argument, not the direction."""
    base = 1000 * (-1 if name in ("north", "orthogonal", "compass", "axes", "hex") else 1)
    path = _write(tmp_path, _grid_user(name, f"fn {name}({name}: int) -> int = {name} + 7",
                                       f"total += {name}(1)"))
    _, diags = check_file(path)
    assert [d.code for d in diags if d.is_error or d.code != "W080"] == []
    assert _run(path, codegen)["total"] == base + 8


@pytest.mark.parametrize("name", DIRECTION_NAMES)
def test_a_counter_enum_value_and_let_shadow_every_direction_name(tmp_path: Path, name: str) -> None:
    """A counter, an enum value and a `let` named like a direction (or a set of them) are read as the user's."""
    base = 1000 * (-1 if name in ("north", "orthogonal", "compass", "axes", "hex") else 1)
    cases = [
        (f"counter {name} = 40", f"{name} += 1  total += {name}", base + 41),
        (f"enum Wind {{ calm, {name} }}", f"total += ord({name}) + size(Wind)", base + 3),
        ("", f"let {name} = 5  total += {name} * 2", base + 10),
    ]
    for decl, use, expected in cases:
        path = _write(tmp_path, _grid_user(name, decl, use))
        _, diags = check_file(path)
        assert [d.code for d in diags if d.is_error or d.code != "W080"] == [], (decl, [str(d) for d in diags])
        assert _run(path, True)["total"] == expected, decl
