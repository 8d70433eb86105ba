"""Deep expressions are refused by the checker with a located E003, or they run alike in every compile mode.

Regression: about 200–340 chained `+`, 300 `not` or 300 nested `if … then … else` passed `liturgy check` and
then crashed generated code with ``SyntaxError: too many nested parentheses`` at play, simulate or load.
"""
from __future__ import annotations

from collections.abc import Callable

import pytest
from liturgy.dsl.checker.program import MAX_EXPR_DEPTH
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset
from liturgy.interpreter.tools.cli import main

MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]


def _chain(kind: str, n: int) -> str:
    """An expression ``n`` levels deep of one shape."""
    if kind == "plus":
        return " + ".join(["a"] * n)
    if kind == "not":
        return "not " * n + "a > 0"
    return "if a > 0 then " * n + "1" + " else 2" * n


def _rules(kind: str, n: int) -> str:
    target = "f" if kind == "not" else "b"
    return (f'game "G" {{ players 2..2 }}\ncounter a 0..9\ncounter b 0..99999\nflag f\n'
            f'round {{ step s "S" {{\n  a = 1\n  {target} = {_chain(kind, n)}\n  end game }} }}\nscore(p) = b\n')


@pytest.mark.parametrize("kind", ["plus", "not", "if"])
def test_deepest_accepted_expression_runs_alike_in_every_mode(write_ruleset: Callable[..., str], kind: str) -> None:
    depth = MAX_EXPR_DEPTH - 2  # `b = …` and a comparison sit above the chain
    seen = set()
    for mode in MODES:
        program, diags = check_file(write_ruleset(_rules(kind, depth)))
        assert program is not None, diags
        game = Ruleset(program, **mode).new_game(2, 1)
        assert game.error is None and game.finished
        seen.add(game.digest())
    assert len(seen) == 1


@pytest.mark.parametrize("kind", ["plus", "not", "if"])
@pytest.mark.parametrize("n", [MAX_EXPR_DEPTH + 1, 340, 5000])
def test_deeper_expressions_get_a_located_e003(write_ruleset: Callable[..., str], kind: str, n: int,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = write_ruleset(_rules(kind, n))
    program, diags = check_file(path)
    assert program is None
    assert [d.code for d in diags if d.severity == "error"] == ["E003"]
    if n < 1000:  # the checker's limit, at the expression itself (the parser's, for thousands, says line 1)
        assert next(d for d in diags if d.code == "E003").span.line == 7
    assert main(["simulate", path, "--games", "1", "--players", "2"]) != 0
    assert "Traceback" not in capsys.readouterr().err
