"""Per-card tables (interpreter/codegen/cardtab.py): an expression of one card's printed fields read as one lookup.

Each case plays the same in every compile mode (same digest, error and logs). The generated text uses a table
exactly where every card gives a value; where one card would fail (a field another kind lacks, a cell off the
grid, an overflow), the expression is written as before and fails as the closures do.
"""
from __future__ import annotations

from collections.abc import Callable

from liturgy.interpreter.engine import Ruleset
from mode_helpers import compiled, played_in_every_mode

HEAD = '''game "Tables" { players 2..2
  step_limit 2000 }
card Step { fc: int
  fy: int
  tc: int
  ty: int }
cards "steps.yaml"
zone steps: row public of Step
grid board 4 by 4 of player
counter moves 0..100
'''

STEPS = "kind: Step\nstart: steps\ncards:\n" + "".join(
    f"  - {{name: s{c}{r}{d}, fc: {c}, fy: {r}, tc: {c + d}, ty: {r + 1}}}\n"
    for c in range(4) for r in range(3) for d in (-1, 0, 1) if 0 <= c + d < 4)

BODY = '''
fn can(p: player, m: card Step) -> bool =
    board[m.tc, m.ty] == none and (m.tc != m.fc or m.fy + 1 == m.ty) and -m.fc * 2 + 3 * m.fy < 9
round {
  step s "S" {
    for p in players {
      choose m from steps where can(p, m) and (if m.fc > 1 then m.fy * 4 else 1) != 5 by p {
        board[m.tc, m.ty] = p
        moves += 1
        log "{} {}", p, m
      } otherwise { end game }
    }
    if moves >= 12 { end game }
  }
}
score(p) = count(m for m in steps where board[m.fc, m.fy] == p and m.tc - m.fc >= 0)
'''


def _rules(write_ruleset: Callable[..., str], body: str, cards: str, mode: dict[str, bool]) -> Ruleset:
    return compiled(write_ruleset(HEAD + body, {"steps.yaml": cards}), mode)


def _play(write_ruleset: Callable[..., str], body: str, cards: str = STEPS, seed: int = 3) -> list[object]:
    return played_in_every_mode(lambda mode: _rules(write_ruleset, body, cards, mode), seed)


def test_tables_in_the_filter_and_every_mode_agrees(write_ruleset: Callable[..., str]) -> None:
    dump = _rules(write_ruleset, BODY, STEPS, {}).compiled.gen
    assert dump is not None
    text = dump.sources.dump()
    # the filter reads the cell and the field tests from tables: no field lookups or slot arithmetic per card
    filt = text[text.index("items):"):].split("\n\n")[0]
    # (the counter list read once into `_cs` before the loop: codegen/hoist.py's function_text)
    assert "_cs[_k" in filt and "+ 4 *" not in filt and "_no_card" not in filt, filt
    for seed in (1, 2, 3):
        seen = _play(write_ruleset, BODY, seed=seed)
        assert all(x == seen[0] for x in seen), seed
        assert seen[0][1] is None and seen[0][3] is not None


def test_no_table_where_one_card_is_off_the_grid(write_ruleset: Callable[..., str]) -> None:
    # one step leads off the board: its cell would fail, so the slot keeps its bounds test and the game stops
    # with the closures' message when that card is tested
    cards = STEPS + "  - {name: edge, fc: 3, fy: 2, tc: 4, ty: 3}\n"
    gen = _rules(write_ruleset, BODY, cards, {}).compiled.gen
    assert gen is not None
    filt = gen.sources.dump()
    filt = filt[filt.index("items):"):].split("\n\n")[0]
    assert "_off_grid" in filt
    seen = _play(write_ruleset, BODY, cards)
    assert all(x == seen[0] for x in seen)
    assert seen[0][1] is not None and "board" in str(seen[0][1])


def test_no_table_where_the_arithmetic_overflows(write_ruleset: Callable[..., str]) -> None:
    cards = STEPS + "  - {name: big, fc: 0, fy: 4611686018427387904, tc: 1, ty: 0}\n"
    body = BODY.replace("3 * m.fy < 9", "3 * m.fy < 9 + m.ty")
    seen = _play(write_ruleset, body, cards)
    assert all(x == seen[0] for x in seen)
    assert "64-bit" in str(seen[0][1]), seen[0][1]
