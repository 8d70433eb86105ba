"""The flow check follows hidden values into procedures, handlers and functions, and checks `log to` lines.

A face-down tile passed as an argument makes the parameter secret in the called body: a log line, a public
counter or a choice there that reads its field is reported at the argument, naming the parameter and the body's
line (W075–W078 by the sink). A `log to P` line may read only what P may see: P's own zones, a zone visible to a
group it is logged to, a card revealed to P before. Each case has its clean twin.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file

TILES = "kind: Tile\nstart: bag\ncards:\n" + "".join(f"  - {{name: T{i}, rank: {i}}}\n" for i in range(8))

GAME = """game "G" { players 2..2 }
card Tile { rank: int }
cards "tiles.yaml"
zone bag: deck hidden of Tile
zone hand: per player set owner of Tile
zone table: pile public of Tile
zone pact: set of Tile visible to firsts()
counter shown 0..99
fn firsts() -> list of player = [q for q in players where q == players[0]]
fn worth(t: card Tile) -> int = t.rank * 2
fn same(n: int) -> int = n
proc tell(t: card Tile) { log "a tile of rank {}", t.rank }
proc keep(t: card Tile) { shown = worth(t) }
proc relay(t: card Tile) { do tell(t) }
proc tell_to(p: player, t: card Tile) { log to p "your tile has rank {}", t.rank }
proc again(t: card Tile, n: int) { if n > 0 { do again(t, n - 1) } else { log "rank {}", t.rank } }
window dropped(t: card Tile)
on dropped(t: card Tile) { log "dropped rank {}", t.rank }
setup {
  shuffle bag
  for p in players { move top(bag, 2) to p.hand }
  move top(bag) to table
  move top(bag) to pact
}
round {
  step s "S" {
    BODY
    end game
  }
}
score(p) = shown
"""


def _flow(tmp_path: Path, body: str) -> list[tuple[str, str]]:
    (tmp_path / "tiles.yaml").write_text(TILES, encoding="utf-8")
    path = tmp_path / "g.rules"
    path.write_text(GAME.replace("BODY", body), encoding="utf-8")
    program, diags = check_file(str(path))
    assert program is not None, [str(d.message) for d in diags]
    return [(d.code, d.message) for d in diags if d.code in ("W075", "W076", "W077", "W078")]


LEAKY = {
    "a hidden tile into a procedure that logs its rank": ("do tell(top(bag))", "W076", "parameter `t` of `tell`"),
    "through two procedures": ("do relay(top(players[0].hand))", "W076", "parameter `t` of `relay`"),
    "into a procedure that copies it into a counter through a function": ("do keep(top(bag))", "W075",
                                                                           "parameter `t` of `keep`"),
    "into a function, into a counter": ("shown = worth(top(bag))", "W075", "parameter `t` of `worth`"),
    "into a function, into a log line": ('log "worth {}", worth(top(players[1].hand))', "W076",
                                         "parameter `t` of `worth`"),
    "into a handler": ("fire dropped(top(bag))", "W076", "parameter `t` of `dropped`"),
    "into a procedure that calls itself": ("do again(top(bag), 3)", "W076", "parameter `t` of `again`"),
    "another player's tile logged to a player": ('log to players[0] "P2 holds {}", top(players[1].hand).rank',
                                                 "W076", "`players[0]` cannot see"),
    "a hidden tile into a procedure that logs it to a player": ("do tell_to(players[0], top(players[1].hand))",
                                                               "W076", "parameter `t` of `tell_to`"),
    "a group's zone logged to another player": ('log to players[1] "pact {}", top(pact).rank', "W076",
                                                "`players[1]` cannot see"),
}

CLEAN = {
    "a public tile into the procedure": "do tell(top(table))",
    "a revealed tile into the procedure": "let c = top(bag)\n    reveal c\n    do tell(c)",
    "a public tile into the function": "shown = worth(top(table))",
    "a number that reads no card into the function": "shown = same(3)",
    "a player's own tile logged to that player": 'log to players[0] "you hold {}", top(players[0].hand).rank',
    "a player's own tile into a procedure that logs it to that player":
        "do tell_to(players[0], top(players[0].hand))",
    "a tile revealed to a player, then logged to it":
        'let c = top(players[1].hand)\n    reveal c to players[0]\n    log to players[0] "P2 holds {}", c.rank',
    "a group's zone logged to that group": 'log to firsts() "pact {}", top(pact).rank',
    "a revealed tile moved out of sight, then followed": "let c = top(bag)\n    reveal c\n    move c to bag\n"
                                                         "    do tell(c)",
}


@pytest.mark.parametrize("case", list(LEAKY))
def test_a_hidden_value_followed_into_a_call_or_a_log_to_line_warns(tmp_path: Path, case: str) -> None:
    body, code, named = LEAKY[case]
    found = _flow(tmp_path, body)
    assert [c for c, _ in found] == [code], found
    assert named in found[0][1], found


@pytest.mark.parametrize("case", list(CLEAN))
def test_the_same_calls_and_lines_without_a_leak_are_clean(tmp_path: Path, case: str) -> None:
    assert _flow(tmp_path, CLEAN[case]) == []


def test_the_warning_sits_at_the_argument_and_names_the_line_in_the_body(tmp_path: Path) -> None:
    (tmp_path / "tiles.yaml").write_text(TILES, encoding="utf-8")
    path = tmp_path / "g.rules"
    path.write_text(GAME.replace("BODY", "do tell(top(bag))"), encoding="utf-8")
    _, diags = check_file(str(path))
    [d] = [d for d in diags if d.code == "W076"]
    line = GAME.replace("BODY", "do tell(top(bag))").splitlines()[d.span.line - 1]
    assert line[d.span.column - 1:].startswith("top(bag)")
    tell = 1 + next(i for i, text in enumerate(GAME.splitlines()) if text.startswith("proc tell("))
    assert f"(line {tell})" in d.message


def test_the_issues_place_leak_is_flagged_and_its_clean_twin_is_not(tmp_path: Path) -> None:
    """`log "{} goes to {}", d, c.place` of a card just played face down (issue 17's first example): W076."""
    from test_noninterference import CHASE, PLACE_LEAK, ROADS

    (tmp_path / "roads.yaml").write_text(ROADS, encoding="utf-8")
    found = {}
    for name, text in (("clean", CHASE), ("leaky", CHASE.replace(*PLACE_LEAK))):
        path = tmp_path / f"{name}.rules"
        path.write_text(text, encoding="utf-8")
        program, diags = check_file(str(path))
        assert program is not None
        found[name] = [d.code for d in diags if d.code.startswith("W07")]
    assert found == {"clean": [], "leaky": ["W076"]}
