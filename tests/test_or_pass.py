"""`choose … { … } or pass ["LABEL"]` (issue 33): pass only when there is no other option.

Othello's rule, and many others': a player with a legal move must make one, and a player without one passes.
`optional` always offers `pass`, and a plain choice with nothing to choose is a rule error (or, with
`otherwise`, passes without asking), so neither says it.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Game, Ruleset
from liturgy.interpreter.tools.simulate import global_counters

RACE = """game "G" {{ players 2..2 }}
counter total
counter passes
round {{ step s "S" {{
  for p in players {{
    choose n from [1, 2, 3] where n > total by p prompt "{{}}: how far?", p {{
      total += n
    }} or pass{label} otherwise {{
      passes += 1
      log "{{}} has no move", p
    }}
  }}
  if passes >= 2 {{ end game }}
}} }}
score(p) = total
"""


def _game(tmp_path: Path, text: str, codegen: bool = True) -> Game:
    (tmp_path / "game.rules").write_text(text, encoding="utf-8")
    program, diags = check_file(str(tmp_path / "game.rules"))
    assert program is not None and not diags, "\n".join(map(str, diags))
    return Ruleset(program, codegen=codegen).new_game(2, seed=1)


@pytest.mark.parametrize("codegen", [False, True])
@pytest.mark.parametrize(("label", "shown"), [("", "pass"), (' "stay"', "stay")])
def test_pass_is_offered_only_when_nothing_qualifies(tmp_path: Path, codegen: bool, label: str, shown: str) -> None:
    g = _game(tmp_path, RACE.format(label=label), codegen)
    asked: list[tuple[int, tuple[str, ...]]] = []
    while g.decision is not None:
        p = g.decision.players[0]
        asked.append((p, g.decision.options[p]))
        g.apply(len(g.decision.options[p]) - 1, p)  # the last option: 3 when there are moves
    # P1 must move (no pass among its options); then nobody can beat 3: each is asked, with only the pass
    assert asked == [(0, ("1", "2", "3")), (1, (shown,)), (0, (shown,)), (1, (shown,))]
    assert global_counters(g) == {"total": 3, "passes": 3}
    assert g.result is not None and g.error is None


def test_or_pass_plays_like_the_same_game_compiled_each_way(tmp_path: Path) -> None:
    """Closures and generated code give the same digest over random games."""
    digests = []
    for codegen in (False, True):
        g = _game(tmp_path, RACE.format(label=""), codegen)
        g.random_playout(random.Random(5))
        digests.append(g.digest())
    assert digests[0] == digests[1]


def test_optional_and_or_pass_together_is_e174(tmp_path: Path) -> None:
    text = RACE.format(label="").replace("by p prompt", "by p optional prompt")
    (tmp_path / "game.rules").write_text(text, encoding="utf-8")
    _, diags = check_file(str(tmp_path / "game.rules"))
    assert [(d.code, d.span.line) for d in diags] == [("E174", 8)]


def test_pass_stays_a_name(tmp_path: Path) -> None:
    """`pass` is a word of the grammar only after `} or`: it still names a counter, a fn and a local."""
    text = """game "G" { players 2..2 }
counter pass
fn passed(x: int) -> int = x
round { step s "S" { let pass_now = 1  pass += passed(pass_now)  end game } }
score(p) = pass
"""
    g = _game(tmp_path, text)
    assert global_counters(g)["pass"] == 1
