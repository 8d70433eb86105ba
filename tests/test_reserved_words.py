"""Reserved words as names (issue 14, item 7): a word of the language names a variable wherever only a name
fits, even where LALR's shared states first read it as the word; where the word itself can start a statement
the error says so (E300) instead of "unexpected `=`"."""

from __future__ import annotations

from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import load_ruleset


def _write(tmp_path: Path, body: str) -> str:
    path = tmp_path / "g.rules"
    path.write_text(f'game "G" {{ players 1..2 }}\nround {{ step s "S" {{ {body}  end game }} }}\nscore(p) = 0\n',
                    encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("word", "op", "want"), [
    ("winner", "=", "2"), ("score", "+=", "3"), ("show", "=", "2"), ("game", "=", "2"), ("finish", "-=", "-1"),
    ("display", "=", "2"), ("tiebreak", "=", "2"), ("invariant", "=", "2"), ("setup", "=", "2"),
])
def test_a_reserved_word_can_name_a_variable_where_only_a_name_fits(tmp_path: Path, word: str, op: str,
                                                                    want: str) -> None:
    path = _write(tmp_path, f'let {word} = 1  {word} {op} 2  log "{{}}", {word}')
    program, diags = check_file(path)
    assert program is not None, diags
    game = load_ruleset(path).new_game(1, 1)
    assert game.log_lines(None)[0] == want


@pytest.mark.parametrize("word", ["end", "move", "log", "shuffle", "reveal", "fire"])
def test_a_word_that_starts_a_statement_is_a_clear_error(tmp_path: Path, word: str) -> None:
    program, diags = check_file(_write(tmp_path, f"let {word} = 1  {word} = 2"))
    assert program is None
    (d,) = diags
    assert d.code == "E300" and f"`{word}` is a reserved word" in d.message
    assert d.span.column == len(f'round {{ step s "S" {{ let {word} = 1  ') + 1
