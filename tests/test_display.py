"""`display` and `describe`: what a human seat is shown (language.md §1.14)."""

from __future__ import annotations

from collections.abc import Callable

from conftest import ROOT
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import load_ruleset

MARKET = str(ROOT / "docs" / "examples" / "market.rules")

GAME = """
game "Peek" { players 2..2 }
card Tile { points: int }
cards "tiles.yaml"
zone bag: deck hidden of Tile
zone hand: per player set owner of Tile
zone table: row public of Tile
counter per player score 0..99
setup { shuffle bag  move top(bag, 2) to players[0].hand  move top(bag, 2) to players[1].hand  move top(bag) to table }
round {
  step pick "Pick" {
    for p in players {
      choose t from p.hand + [x for x in table] by p { p.score += t.points  move t to table }
    }
    if size(bag) == 0 or round >= 3 { end game }
  }
}
score(p) = p.score
display(p) {
  show "you: {} points, hand {}", p.score, p.hand
  for q in players where q != p {
    show "{} holds {}", q, q.hand
    if q.score > p.score { show "{} is ahead", q } else { show "you are not behind {}", q }
  }
  for t in table { show "on the table: {} ({})", t, t.text }
  show "top of the bag: {}", top(bag)
}
describe Tile(t, p) = "{} worth {} to {}", t, t.points, p
"""

TILES = """
kind: Tile
start: bag
cards:
  - {name: Ace, points: 3, text: "The best."}
  - {name: Two, points: 2}
  - {name: Three, points: 1}
  - {name: Four, points: 1}
  - {name: Five, points: 1}
  - {name: Six, points: 1}
"""


def test_display_shows_lines_loops_and_branches_and_hides_what_the_viewer_cannot_see(
        write_ruleset: Callable[..., str]) -> None:
    rs = load_ruleset(write_ruleset(GAME, {"tiles.yaml": TILES}))
    g = rs.new_game(2, 1, check_invariants=True)
    lines = g.display(0)
    assert lines is not None
    mine = g.view(0)["zones"]["hand"]["P1"]
    assert lines[0] == f"you: 0 points, hand {', '.join(mine)}"
    assert lines[1] == "P2 holds a hidden card, a hidden card"  # P2's hand is theirs alone
    assert lines[2] == "you are not behind P2"
    assert lines[3].startswith("on the table: ")
    assert lines[4] == "top of the bag: a hidden card"
    assert g.display(1)[1] == "P1 holds a hidden card, a hidden card"


def test_display_and_describe_never_change_the_game(write_ruleset: Callable[..., str]) -> None:
    rs = load_ruleset(write_ruleset(GAME, {"tiles.yaml": TILES}))
    g = rs.new_game(2, 1, check_invariants=True)
    before = g.digest()
    g.display(0)
    g.display(1)
    g.option_details(0)
    assert g.digest() == before


def test_describe_labels_card_options_the_viewer_can_see(write_ruleset: Callable[..., str]) -> None:
    rs = load_ruleset(write_ruleset(GAME, {"tiles.yaml": TILES}))
    g = rs.new_game(2, 1, check_invariants=True)
    d = g.decision
    assert d is not None
    details = g.option_details(0)
    assert len(details) == len(d.options[0])
    for label, text in zip(d.options[0], details, strict=True):
        assert text is not None and text.startswith(f"{label} worth ") and text.endswith(" to P1")
    assert g.option_details(1) == []  # P2 is not deciding now


def test_the_text_of_a_card_is_a_builtin_field(write_ruleset: Callable[..., str]) -> None:
    rs = load_ruleset(write_ruleset(GAME, {"tiles.yaml": TILES}))
    seen = set()
    for seed in range(40):
        g = rs.new_game(2, seed)
        (line,) = [x for x in g.display(0) or [] if x.startswith("on the table")]
        seen.add(line)
    assert "on the table: Ace (The best.)" in seen and "on the table: Two ()" in seen


def test_no_display_means_none_and_the_generic_status(write_ruleset: Callable[..., str]) -> None:
    text = GAME[:GAME.index("display(p)")]
    rs = load_ruleset(write_ruleset(text, {"tiles.yaml": TILES}))
    g = rs.new_game(2, 1)
    assert g.display(0) is None
    assert g.option_details(0) == [None] * g.option_count(0)


def test_a_runtime_error_in_a_display_is_shown_not_raised(write_ruleset: Callable[..., str]) -> None:
    text = GAME.replace('show "top of the bag: {}", top(bag)', 'show "odd: {}", 1 / (size(table) - size(table))')
    rs = load_ruleset(write_ruleset(text, {"tiles.yaml": TILES}))
    g = rs.new_game(2, 1, check_invariants=True)
    lines = g.display(0) or []
    assert lines[-1].startswith("(display: division by zero")
    assert g.state.status == "running"


def test_market_example_display(capsys: object) -> None:
    g = load_ruleset(MARKET).new_game(2, 3, check_invariants=True)
    assert g.display(0) == ["You: 4 coins, basket: nothing", "P2: 4 coins, 0 goods", "Next in the stock: Tapestry"]
    assert g.option_details(0)[0] == "Ale (cost 3, worth 3 to you) When you buy it, take 2 coins back."


def _codes(write_ruleset: Callable[..., str], text: str) -> list[str]:
    _, diags = check_file(write_ruleset(text, {"tiles.yaml": TILES}))
    return [d.code for d in diags]


def test_checker_diagnostics(write_ruleset: Callable[..., str]) -> None:
    base = GAME[:GAME.index("display(p)")]
    assert _codes(write_ruleset, base + 'display(p) { show "{}", random(players) }') == ["E171"]
    assert _codes(write_ruleset, base + 'describe Tile(t, p) = "{}", roll(d6)\ndie d6 { 1, 2 }') == ["E171"]
    assert _codes(write_ruleset, base + 'display(p) { show "{} {}", p.score }') == ["E134"]
    assert _codes(write_ruleset, base + 'describe Tile(t, p) = "{}"') == ["E134"]
    assert _codes(write_ruleset, base + 'display(p) { show "a" }\ndisplay(q) { show "b" }') == ["E103"]
    assert _codes(write_ruleset, base + 'describe Tile(t, p) = "a"\ndescribe Tile(t, p) = "b"') == ["E103"]
    assert _codes(write_ruleset, base + 'describe Tiles(t, p) = "a"') == ["E101"]
    assert _codes(write_ruleset, base + 'display(p) { if p.score { show "x" } }') == ["E140"]
    assert _codes(write_ruleset, base + 'display(p) { for t in 3 { show "x" } }') == ["E142"]
    assert _codes(write_ruleset, base + 'display(p) { show "{}", nobody }') == ["E101"]
