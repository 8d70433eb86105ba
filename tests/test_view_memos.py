"""What views keep instead of rendering again: the `display` panel's memo (interpreter/compiler/panelmemo.py), a
kept panel exactly the panel a fresh rendering gives, for every viewer at every decision, and a display that reads
what the memo cannot key always rendered; and log lines rendered once per entry, viewer and tables
(engine/views.py, ``log_lines``)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest
from conftest import ROOT
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.tools.leaks import LeakCheck, _sentinel_tables, _strings, _view_strings

MARKET = str(ROOT / "docs" / "examples" / "market.rules")
SHIPPED = [str(ROOT / "rulesets" / name) for name in ("betrayal.rules", "fury_of_dracula.rules",
                                                       "slay_the_spire.rules")]

GAME = """
game "Peek" { players 2..2  work_limit WORK }
card Tile { points: int }
cards "tiles.yaml"
zone bag: deck hidden of Tile
zone hand: per player set owner of Tile
zone table: row public of Tile
counter per player score 0..99
counter spent 0..99
setup { shuffle bag  move top(bag, 2) to players[0].hand  move top(bag, 2) to players[1].hand }
round {
  step pick "Pick" {
    for p in players {
      choose t from p.hand by p { p.score += t.points  move t to table  log "{} plays {}", p, t }
    }
    if size(bag) == 0 or round >= 2 { end game }
  }
}
score(p) = p.score
display(p) {
  show "hand {}; score {}", p.hand, p.score
  show "sum {}", sum(x for x in range(100))
  show "top of the bag: {}", top(bag)
}
"""

TILES = """
kind: Tile
start: bag
cards:
  - {name: Ace, points: 3}
  - {name: Two, points: 2}
  - {name: Three, points: 1}
  - {name: Four, points: 1}
  - {name: Five, points: 1}
  - {name: Six, points: 1}
"""


def _fresh(game: Game, player: int) -> list[str] | None:
    """``player``'s panel rendered without the memo."""
    display = game.ruleset.display
    memo, display.memo = display.memo, None
    try:
        return game.display(player)
    finally:
        display.memo = memo


def _peek(write_ruleset: Callable[..., str], work: int = 1_000_000) -> Game:
    text = GAME.replace("WORK", str(work))
    return load_ruleset(write_ruleset(text, {"tiles.yaml": TILES})).new_game(2, 3)


@pytest.mark.parametrize("path", [MARKET, *SHIPPED], ids=lambda p: p.rsplit("/", 1)[-1])
def test_kept_panels_are_the_panels_a_fresh_rendering_gives(path: str) -> None:
    """Along seeded random games (the house of Betrayal built room by room: its graph's changes; cards drawn,
    revealed and played), every viewer's panel at every decision, asked twice, equals a fresh rendering."""
    rules = load_ruleset(path)
    memo = rules.display.memo
    assert memo is not None and memo.reads is not None  # these displays are memoised: the test tests the memo
    for seed in range(2):
        game = rules.new_game(rules.max_players if seed else rules.min_players, seed)
        rng = random.Random(seed)
        for _ in range(40):
            if game.finished:
                break
            for p in range(game.players):
                first = game.display(p)
                assert first == _fresh(game, p) == game.display(p)
            d = game.decision
            assert d is not None
            q = d.players[0]
            game.apply(rng.randrange(len(d.options[q])), q)
    assert memo._panels  # panels were kept (and then given back above)


def test_a_card_shown_to_the_viewer_renders_the_panel_again(write_ruleset: Callable[..., str]) -> None:
    """Nothing the display reads changes when a card is turned face up, but the viewer now sees its name."""
    game = _peek(write_ruleset)
    before = game.display(0)
    assert before is not None and "top of the bag: a hidden card" in before
    bag = game.state.zones[game.ruleset.compiled.layout.zone_global["bag"]]
    game.state.face_up.update(bag)  # the whole bag turned face up: its top, whichever end that is, too
    after = game.display(0)
    assert after == _fresh(game, 0) and after is not None
    assert [line for line in after if line.startswith("top of the bag: ")] in (
        [f"top of the bag: {game.state.tables.card_names[c]}"] for c in bag)


def test_a_kept_panel_is_not_reused_past_the_work_budget(write_ruleset: Callable[..., str]) -> None:
    """The budget is the whole game's: a panel kept early must not stand in for one the budget now stops."""
    game = _peek(write_ruleset, work=1000)
    first = game.display(0)
    assert first is not None and "sum 4950" in first
    game.state.work = 950  # the sum's 100 items no longer fit
    late = game.display(0)
    assert late == _fresh(game, 0)
    assert late is not None and any("work budget" in line for line in late)
    game.state.work = 0
    assert game.display(0) == first


def test_a_display_the_memo_cannot_key_is_rendered_every_time() -> None:
    """`active(MODE)` reads the running modes, which no key holds (its read set is unknown): the haunted manor's
    panel is rendered afresh at every asking, and nothing is kept."""
    rules = load_ruleset(str(ROOT / "docs" / "examples" / "haunted_manor.rules"))
    memo = rules.display.memo
    assert memo is not None and memo.reads is None
    game = rules.new_game(rules.min_players, 1)
    rng = random.Random(1)
    for _ in range(30):
        if game.finished:
            break
        assert game.display(0) == _fresh(game, 0)
        d = game.decision
        assert d is not None
        q = d.players[0]
        game.apply(rng.randrange(len(d.options[q])), q)
    assert not memo._panels


def test_log_lines_are_kept_per_tables_so_the_leak_check_still_sees_its_own_names(
        write_ruleset: Callable[..., str]) -> None:
    """The leak check renders the game's own log entries with card names of its own (``‹card#N›``): a line kept
    for the game must not stand in for the check's (it would find no card named), nor the check's for the game's
    (a player would read the check's names)."""
    game = _peek(write_ruleset)
    d = game.decision
    assert d is not None
    game.apply(0, d.players[0])
    lines = game.log_lines(0)
    assert any(" plays " in line for line in lines) and not any("‹" in line for line in lines)
    probe = game.clone()
    probe.state.tables = _sentinel_tables(game.state.tables)
    assert any("‹card#" in line for line in probe.log_lines(0))
    assert LeakCheck(game).check(game) is None
    assert game.log_lines(0) == lines and game.clone().log_lines(None) == game.log_lines(None)


def test_the_leak_check_skips_a_view_only_when_its_walk_could_report_nothing(
        write_ruleset: Callable[..., str]) -> None:
    """tools/leaks.py: a view whose every card is one the viewer may see now is not walked (nothing in it can be
    reported); a view naming any other card is walked exactly as before, so the report is the same."""
    game = _peek(write_ruleset)
    check = LeakCheck(game)
    probe = game.clone()
    probe.state.tables = check.tables
    now = check._now(game.state)
    view = probe.view(0)
    assert "‹card#" in json.dumps(view, ensure_ascii=False)  # P1's hand is named: the fast path has work to do
    assert _view_strings(view, 1, now) == []
    assert check._leak(game, 0, _strings(view, "view"), now) is None
    hidden = next(c for c in range(len(now)) if not now[c] & 1)
    view["zones"]["bag"] = [f"‹card#{hidden}›"]  # a rendering that names a card of the bag
    assert _view_strings(view, 1, now) == _strings(view, "view")
    assert "was never entitled to see it" in (check._leak(game, 0, _view_strings(view, 1, now), now) or "")
