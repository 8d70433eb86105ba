"""Generated expression code and the closure compiler must play every game identically (digest for digest)."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ROOT
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset

RULESETS = sorted(str(p) for p in (ROOT / "rulesets").rglob("*.rules")) + sorted(
    str(p) for p in (ROOT / "docs" / "examples").glob("*.rules"))


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: Path(p).stem)
def test_codegen_and_closures_agree(path: str) -> None:
    program, _ = check_file(path)
    assert program is not None
    fast = Ruleset(program, codegen=True)
    program2, _ = check_file(path)
    assert program2 is not None
    plain = Ruleset(program2, codegen=False)
    players = max(fast.min_players, min(4, fast.max_players))
    for seed in range(12):
        digests = []
        for rules in (fast, plain):
            game = rules.new_game(players, seed, check_invariants=True)
            rng = random.Random(seed)
            while not game.finished:
                for p in game.waiting_for():
                    game.apply(rng.randrange(game.option_count(p)), p)
            digests.append((game.digest(), game.state.status, game.error))
        assert digests[0] == digests[1], (path, seed)


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
