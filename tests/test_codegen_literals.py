"""Ruleset strings that look like the generator's helper names stay what they are in every compile mode.

Regression: the generator renamed its helper variables (``_x4``…) with a word-boundary regex over text that
also held the ruleset's string literals, so ``hits(z, "_x7")`` inside a loop whose Python local was ``_x7``
compared with the loop variable instead of the text: generated code counted 117 where the closures counted 118.
"""
from __future__ import annotations

from collections.abc import Callable

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset

MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]

NAMES = [f"_x{i}" for i in range(1, 60)] + [f"_E{i}" for i in range(1, 60)] + ["_P0", "_Pself", "_k1", "env", "s"]


def _rules() -> str:
    lits = ", ".join(f'"{n}"' for n in NAMES)
    chunks = [NAMES[i:i + 30] for i in range(0, len(NAMES), 30)]  # sums of 30 calls: well within E003's depth
    sums = "\n".join(f"  b += sum({' + '.join(f'hits(z, {n!r})'.replace(chr(39), chr(34)) for n in chunk)} "
                     f"for z in [{lits}])" for chunk in chunks)
    return f"""game "G" {{ players 2..2 }}
counter b 0..99999
counter c 0..99999
fn hits(t: text, u: text) -> int = count(x for x in [t, "q"] where x == u)
round {{ step s "S" {{
  let _x7 = "_x7"
  let _P0 = "_E3"
{sums}
  c += count(y for y in [{lits}] where y == _x7 or y == _P0)
  log "{{}} {{}} {{}}", _x7, _P0, "_x4"
  end game }} }}
score(p) = b + c
"""


@pytest.mark.parametrize("mode", MODES, ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items()) or "default")
def test_literals_that_look_like_generated_names(write_ruleset: Callable[..., str], mode: dict[str, bool]) -> None:
    program, diags = check_file(write_ruleset(_rules()))
    assert program is not None, diags
    game = Ruleset(program, **mode).new_game(2, 1)
    assert game.error is None and game.finished
    lay = game.ruleset.compiled.layout
    # each of the names matches exactly one argument; `c` counts "_x7" and "_E3"
    assert [game.state.counters[lay.global_slots[n]] for n in "bc"] == [len(NAMES), 2]
    assert "_x7 _E3 _x4" in game.log_lines(None)
