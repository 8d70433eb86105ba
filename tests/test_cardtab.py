"""Per-card tables (interpreter/codegen/cardtab.py): an expression of one card's printed fields read as one lookup.

Each case plays the same in every compile mode (same digest, error and logs). The generated text uses a table
exactly where every card gives a value; where one card would fail (a field another kind lacks, a cell off the
grid, an overflow), the expression is written as before and fails as the closures do.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from liturgy.dsl.diagnostics import NOWHERE
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import cardtab
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


def _random_expr(rng: random.Random, depth: int) -> A.Expr:
    """An expression of the tabulated subset over the card ``m``, some parts of which refuse for some cards."""
    if depth == 0 or rng.random() < 0.25:
        leaf = rng.randrange(6)
        if leaf == 0:
            return A.IntLit(NOWHERE, rng.choice([0, 1, -3, 7, 1 << 62]))
        if leaf == 1:
            return A.BoolLit(NOWHERE, rng.random() < 0.5)
        if leaf == 2:
            return A.StrLit(NOWHERE, rng.choice(["a", "b"]))
        if leaf == 3:
            return A.NoneLit(NOWHERE)
        return A.Attr(NOWHERE, A.Name(NOWHERE, "m"), rng.choice(["n", "big", "word", "maybe", "flag"]))
    kind = rng.randrange(4)
    if kind == 0:
        return A.Unary(NOWHERE, rng.choice(["-", "not"]), _random_expr(rng, depth - 1))
    if kind == 1:
        return A.Cond(NOWHERE, *(_random_expr(rng, depth - 1) for _ in range(3)))
    op = rng.choice(["+", "-", "*", "==", "!=", "<", "<=", ">", ">=", "and", "or"])
    return A.Binary(NOWHERE, op, _random_expr(rng, depth - 1), _random_expr(rng, depth - 1))


def test_a_table_made_at_once_holds_what_each_card_gives() -> None:
    """``cardtab._column`` (one pass of the expression for all cards) against ``cardtab._eval`` (the reference,
    card by card) on random expressions and card data: the same values, and a refusal exactly where some card
    refuses (a field holding a list, an overflow, an ordering with none), including refusals only a branch or the
    right side of `and`/`or` would meet for some cards."""
    rng = random.Random(29)
    columns: dict[str, list[Any]] = {
        "n": [rng.randrange(-5, 6) for _ in range(40)],
        "big": [rng.choice([0, 3, 1 << 62, -(1 << 62)]) for _ in range(40)],
        "word": [rng.choice(["a", "b", "c"]) for _ in range(40)],
        "maybe": [rng.choice([None, 0, 2]) for _ in range(40)],
        "flag": [rng.choice([True, False, (1, 2)]) for _ in range(40)],  # a tuple: not a plain value
    }

    def fields(name: str) -> list[Any]:
        return columns[name]

    agreed = refused = 0
    for _ in range(600):
        e = _random_expr(rng, 4)
        cids = sorted(rng.sample(range(40), rng.randrange(1, 41)))
        try:
            want: list[Any] | None = [cardtab._eval(e, "m", c, fields) for c in cids]
        except cardtab._Refused:
            want = None
        try:
            got: list[Any] | None = cardtab._column(e, "m", cids, fields)
        except cardtab._Refused:
            got = None
        assert got == want and [type(v) for v in got or []] == [type(v) for v in want or []], e
        agreed += want is not None
        refused += want is None
    assert agreed > 100 and refused > 100  # both outcomes well exercised
