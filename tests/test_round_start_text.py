"""The round's first instruction as text the fuser writes in place, and the Ruleset's attributes kept specializable
(docs/performance.md, "Session 21: Kuhn's generic attribute loads, and the round's start inline")."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from conftest import played_plain_and_checked
from liturgy.dsl.checkcache import check_cached
from liturgy.interpreter.compiler.code import ROUND_SLOT
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.engine.game import Game
from liturgy.interpreter.engine.ruleset import Ruleset

RULES = """
game "Rounds" {
  players 2..3
  seats clockwise
  step_limit 400
}

counter per player coins 0..9 = 0
counter per player spent 0..3 = 0 RESET

round {
  step take "Take coins" {
    for p in players {
      choose n from range(3) by p prompt "How many coins?" {
        p.coins += n
        p.spent += n
        log "{} spends {}", p, p.spent
      }
    }
    if round >= 3 { end game }
  }
}

score(p) = p.coins
"""
MODES: list[dict[str, bool]] = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False}, {"fuse": False}]


def _round_texts(rules: Ruleset) -> list[str]:
    sgen = rules.compiled.sgen
    assert sgen is not None
    return [text for _, text in sgen.run_texts.values() if text.startswith(f"    s.counters[{ROUND_SLOT}] += 1\n")]


@pytest.mark.parametrize("reset", [True, False])
def test_round_start_is_a_run_text_and_plays_as_the_call(tmp_path: Path, reset: bool) -> None:
    path = tmp_path / "rounds.rules"
    path.write_text(RULES.replace("RESET", "reset each round" if reset else ""))
    texts = _round_texts(load_ruleset(str(path)))
    assert len(texts) == 1
    # the reset slots' loop only where a counter resets each round
    assert ("reset_runs" in texts[0]) is reset
    program, _ = check_cached(str(path))
    assert program is not None
    # the checked compile notes its writes: its round start stays the noting function, not a text
    assert _round_texts(Ruleset(program, notes=True)) == []
    for players in (2, 3):
        seen = []
        for kw in MODES:
            rules = Ruleset(program, **kw)
            runs = []
            for seed in range(4):
                g, c = played_plain_and_checked(rules, players, seed)
                assert c.digest() == g.digest()
                runs.append((g.digest(), g.state.steps, g.state.counters[ROUND_SLOT], g.result, len(g.state.log)))
            seen.append(runs)
        assert all(r == seen[0] for r in seen), "every compile mode plays the same games"


def test_no_cached_property_on_hot_classes() -> None:
    # functools.cached_property reads the instance's __dict__: in Python 3.11 that splits the inline attribute
    # values into a dictionary every specialized attribute load then misses (the step loop's `self.ruleset.compiled`)
    for cls in (Ruleset, Game):
        assert not [n for n, v in vars(cls).items() if isinstance(v, functools.cached_property)], cls
