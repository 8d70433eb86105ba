"""Log lines come before the change they describe (issue 32): narration with causes says each change under the
last line written before it, so a line written after its change leaves the change under the wrong cause.

interpreter/tools/logorder.py finds such lines from the checked program alone; this holds what it finds and does
not find, and that the shipped rulesets it was run over and fixed (Bloodborne, Fury of Dracula, Betrayal) have
none.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.engine.causes import narrate_caused, watch
from liturgy.interpreter.tools.logorder import late_log_lines

ROOT = Path(__file__).resolve().parent.parent

RULES = """\
game "Wounds" { players 2..2 }
counter per player health 0..20 = 10
counter per player deaths 0..9
flag per player down
counter tally 0..99
proc hurt(p: player, n: int) {
  p.health -= n
  log "{} is hurt", p
}
proc count(p: player) {
  p.health -= 1
  log "{} now has {} health", p, p.health
  tally += 1
  log "the tally is at {}", tally
  p.down = true
  log "{} is down", p
  p.deaths += 1
  if p.deaths > 1 { log "again" }
  log "{} falls", p
}
round { step s "S" {
  choose k from [1, 2] by players[0] { do hurt(players[1], k)  do count(players[1]) }
  if round >= 2 { end game }
} }
score(p) = p.health
"""


def _program(tmp_path: Path, text: str = RULES) -> Path:
    path = tmp_path / "wounds.rules"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_line_after_the_counter_change_it_names_is_found(tmp_path: Path) -> None:
    prog, diags = check_file(str(_program(tmp_path)))
    assert prog is not None, diags
    found = late_log_lines(prog)
    # found: "is hurt" names p after p.health changed. Not found: a line printing the new value (a result), one
    # after a global counter it prints, one after a flag (narration does not tell flags), one after a branch
    assert [(f.line, f.text, f.counters) for f in found] == [(8, "{} is hurt", ("p.health",))]
    assert "narration would quote the line before it" in str(found[0])


def test_the_line_moved_up_is_not_found_and_names_the_change(tmp_path: Path) -> None:
    fixed = RULES.replace('  p.health -= n\n  log "{} is hurt", p\n', '  log "{} is hurt", p\n  p.health -= n\n')
    prog, diags = check_file(str(_program(tmp_path, fixed)))
    assert prog is not None, diags
    assert late_log_lines(prog) == []
    told = {}
    for name, text in (("late", RULES), ("fixed", fixed)):
        game = load_ruleset(str(_program(tmp_path, text))).new_game(2, seed=1)
        before = game.view(1)
        watch(game, 1)
        game.apply(1, 0)  # P1 hurts P2 by 2; `count` then takes 1 more before printing the health left
        told[name] = narrate_caused(game, 1, before)[0]
    # written late, the 2 lost are told before any line; moved up, under the line that says what happened (with the
    # 1 `count` takes before it prints what is left: a line printing a result stays after its change)
    assert told["late"][0] == (None, ["You lose 2 health (now 8)"])
    assert told["fixed"][0] == (None, []) and told["fixed"][1] == ("P2 is hurt", ["You lose 3 health (now 7)"])


@pytest.mark.parametrize("path", ["rulesets/bloodborne.rules", "rulesets/fury_of_dracula.rules",
                                  "rulesets/betrayal.rules", "rulesets/slay_the_spire.rules"])
def test_the_shipped_rulesets_log_before_they_change(path: str) -> None:
    prog, diags = check_file(str(ROOT / path))
    assert prog is not None, diags
    assert [str(f) for f in late_log_lines(prog)] == []
