"""Expression conveniences (issue 14 item 7), each played in every compile mode.

Integer ranges, `sort` (plain and `by KEY`, stable), `text(x)` / `text("FORMAT", v…)`, `join`, `let` in a
`fn` body (including the inlining capture case), `for … where` as a statement (with `break` and a decision
inside), `describe int`, and the errors E300–E303. The closures are the reference: every mode of
tests/test_compile_modes_fuzz.py must produce the same digest, steps, error and every viewer's log.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Game, Ruleset

MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]
ROOT = Path(__file__).resolve().parents[1]

HEAD = '''game "C" { players 2..3 }
enum Suit { suns, moons, stars }
card Tok { rank: int  suit: Suit }
cards "toks.yaml"
zone bag: deck public of Tok
zone hand: per player row owner of Tok
counter per player pts 0..100
counter total -1000..1000
'''
CARDS = '''kind: Tok
start: bag
cards:
  - {name: Ace, rank: 3, suit: stars}
  - {name: Bee, rank: 1, suit: moons}
  - {name: Cat, rank: 3, suit: suns}
  - {name: Dot, rank: 2, suit: moons}
'''

EXPRESSIONS = HEAD + '''
fn twice(x: int) -> int {
  let y = x * 2
  let z = y + x
  return y + z
}
fn shadow(x: int) -> int {
  let x = x + 100
  return x
}
fn capture(k: int) -> int {
  let x = 5
  return x + k
}
fn once() -> int {
  let r = random([1, 2, 3, 4, 5, 6])
  return r * 10 + r
}
fn by_rank() -> list of card Tok = sort(c for c in bag by c.rank)
fn by_suit() -> list of text = sort(c.name for c in bag where c.rank > 1 by c.suit)
fn seats() -> list of player = sort(p for p in players by -p.pts)
fn count_down(n: int) -> list of int = sort(i for i in range(n) by -i)

setup {
  log "{}", range(4)
  log "{}", range(-2, 2)
  log "{} | {} | {}", size(range(0)), size(range(3, 1)), size(range(-1))
  log "{}", sort([3, -1, 2, -1])
  log "{}", sort(["pear", "apple", "fig"])
  log "{}", sort([players[1], players[0]])
  log "{}", by_rank()
  log "{}", by_suit()
  log "{}", sort(b for b in [true, false, true] by b)
  log "{}", count_down(4)
  log "{}", sort(s for s in Suit by s)
  log "{}", [text(x) for x in [text(7), text(true), text(moons), text(players[1]), text(top(bag))]]
  log "{}", text(bag) + " / " + text(range(3)) + " / " + text(range(0))
  log "{}", text("{} has {} of {}", players[0], 2, suns)
  log "[{}] [{}] [{}]", join(["a", "b", "c"], "-"), join([], ", "), join([c.name for c in bag where c.rank == 3], "+")
  let x = 1
  log "{} {} {}", twice(x), shadow(x), capture(x)
  total = once()
  log "{}", total
  log "{}", if x > 0 then text("{} up", x) else "down"
  end game
}
round { step s { end game } }
score(p) = p.pts
'''


def _write(tmp_path: Path, text: str) -> str:
    (tmp_path / "toks.yaml").write_text(CARDS, encoding="utf-8")
    path = tmp_path / "c.rules"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _games(path: str, players: int, seed: int) -> list[Game]:
    out = []
    for mode in MODES:
        program, diags = check_file(path)
        assert program is not None, "\n".join(map(str, diags))
        assert not [d for d in diags if d.is_error]
        game = Ruleset(program, **mode).new_game(players, seed)
        game.random_playout(random.Random(seed))
        out.append(game)
    return out


def _same_in_every_mode(games: list[Game]) -> list[str]:
    seen = [(g.digest(), g.error, g.state.steps, [g.log_lines(v) for v in (None, *range(g.players))])
            for g in games]
    for mode, other in zip(MODES[1:], seen[1:], strict=True):
        assert other == seen[0], f"mode {mode} differs from the closures"
    assert games[0].error is None, games[0].error
    return games[0].log_lines(None)


def test_expressions_give_documented_values_in_every_mode(tmp_path: Path) -> None:
    log = _same_in_every_mode(_games(_write(tmp_path, EXPRESSIONS), 2, 3))
    assert log[:11] == [
        "0, 1, 2, 3",
        "-2, -1, 0, 1",
        "0 | 0 | 0",
        "-1, -1, 2, 3",
        "apple, fig, pear",
        "P1, P2",
        "Bee, Dot, Ace, Cat",  # stable: Ace before Cat (both rank 3), in the bag's order
        "Cat, Dot, Ace",  # by suit in declaration order: suns, moons, stars
        "no, yes, yes",
        "3, 2, 1, 0",
        "suns, moons, stars",
    ]
    assert log[11] == "7, yes, moons, P2, Dot"
    assert log[12] == "Ace, Bee, Cat, Dot / 0, 1, 2 / nothing"
    assert log[13] == "P1 has 2 of suns"
    assert log[14] == "[a-b-c] [] [Ace+Cat]"
    assert log[15] == "5 101 6"  # capture(x): the fn's own `x` never captures the caller's argument
    total = int(log[16])
    assert total % 11 == 0 and 11 <= total <= 66  # the `let` is drawn once, not once per use
    assert log[17] == "1 up"


FOR_WHERE = HEAD + '''
setup {
  total = 0
  for c in bag where c.rank == 3 { total += 1 }
  for i in range(10) where i % 2 == 1 {
    if i > 5 { break }
    total += i * 10
  }
  log "total {}", total
}
round {
  step deal {
    for p in players where size(bag) > 0 {
      choose c from bag where c.rank >= 2 or size(bag) == 1 by p {
        move c to p.hand
        p.pts += c.rank
        log "{} takes {}", p, c
      }
    }
    if size(bag) == 0 { end game }
  }
}
score(p) = p.pts
'''


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_for_where_statement_with_break_and_decisions_in_every_mode(tmp_path: Path, seed: int) -> None:
    log = _same_in_every_mode(_games(_write(tmp_path, FOR_WHERE), 2 + seed % 2, seed))
    assert log[0] == "total 92"  # 2 cards of rank 3, then 1*10 + 3*10 + 5*10 before the break at 7
    assert sum(line.count(" takes ") for line in log) == 4


def test_tally_example_plays_alike_in_every_mode_and_describes_bids() -> None:
    path = str(ROOT / "docs" / "examples" / "tally.rules")
    for seed in range(3):
        _same_in_every_mode(_games(path, 2 + seed % 3, seed))
    program, _ = check_file(path)
    assert program is not None
    game = Ruleset(program).new_game(2, 1)
    assert game.option_details(0)[:3] == ["0 (leaves 9 coins)", "1 (leaves 8 coins)", "2 (leaves 7 coins)"]
    assert len(game.option_details(0)) == 10


@pytest.mark.parametrize(("body", "code"), [
    # `score += 1` and `winner = 1` parse: only a name fits there (tests/test_reserved_words.py)
    ("let end = 0\n end += 1", "E300"),
    ("let log = 0\n log = 1", "E300"),
    ("let move = 1\n move -= 1", "E300"),
    ('log "{}", max(i for i in range(3) by i)', "E301"),
    ('log "{}", sort([true])', "E302"),
    ('log "{}", sort(c for c in bag)', "E302"),
    ('log "{}", sort(c for c in bag by c.suit == moons)', ""),
    ('log "{}", sort(c for c in bag by [c.rank])', "E302"),
    ('log "{}", text(Suit)', "E303"),
    ('log "{}", text(total, 1)', "E303"),
    ('log "{}", text("{} {}", 1)', "E134"),
    ('log "{}", join([1], ",")', "E140"),
])
def test_convenience_errors(tmp_path: Path, body: str, code: str) -> None:
    text = HEAD + "round { step s {\n " + body + "\n end game } }\nscore(p) = p.pts\n"
    program, diags = check_file(_write(tmp_path, text))
    errors = [d for d in diags if d.is_error]
    if not code:
        assert program is not None and not errors
        return
    assert program is None and [d.code for d in errors] == [code], "\n".join(map(str, diags))
    assert errors[0].span.line >= 10 and (errors[0].hint or code == "E140")


def test_reserved_word_error_is_not_given_for_a_missing_brace(tmp_path: Path) -> None:
    text = HEAD + "round { step s {\n end game\n}\nscore(p) = p.pts\n"
    _, diags = check_file(_write(tmp_path, text))
    assert [d.code for d in diags] == ["E001"]


def test_let_in_fn_errors(tmp_path: Path) -> None:
    bad = HEAD + '''fn f(x: int) -> int {
  let round = 1
  let y = x + 1
  return "text"
}
round { step s { total = f(1)  end game } }
score(p) = p.pts
'''
    _, diags = check_file(_write(tmp_path, bad))
    # `let round = 1` shadows the built-in `round` for the rest of the body (W080, issue 33); it was E104
    assert sorted((d.code, d.span.line) for d in diags if d.code != "W001") == [("E140", 12), ("W080", 10)]
