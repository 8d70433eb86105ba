"""Secrets without cards in sampled worlds and in the noninterference probe (issue 33, items left from session 12).

`Game.sample_world` (the ISMCTS agent's worlds, the probe's third world) deals hidden grid cells afresh by position
(engine/worlddeal.py) and the cards of zones whose size is hidden afresh among those zones; the probe swaps cells
of grids `visible to owner` and values `visible to` a group, and stops once the rules show the observer one of
them. Each test builds the state it needs; each fuzz run is a few dozen short games.
"""

from __future__ import annotations

import random
from pathlib import Path

from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.engine.infosets import hidden_slots, sample_world
from liturgy.interpreter.tools.fuzz import fuzz_ruleset
from liturgy.interpreter.tools.noninterference import check_hidden_values

ROOT = Path(__file__).resolve().parent.parent
DARK_HEX = ROOT / "rulesets" / "classic" / "dark_hex.rules"


def _dark_hex(moves: list[int]) -> Game:
    """Dark Hex after P1 and P2 take the given cells in turn (each cell free: no refusals)."""
    game = load_ruleset(str(DARK_HEX)).new_game(2, 1)
    for cell in moves:
        p = game.waiting_for()[0]
        options = game.decision.options[p] if game.decision else []
        game.apply(next(i for i, label in enumerate(options) if label.endswith(str(cell))), p)
    return game


def _board(game: Game, name: str = "board") -> list[object]:
    g = game.ruleset.compiled.layout.grids[name]
    return game.state.counters[g.base:g.base + g.width * g.height]


def test_sample_world_deals_the_other_players_stones_afresh() -> None:
    """Before, a world kept the opponent's real stones: a search agent "knew" them. Now P1's stones go to cells
    P2 does not see (with their chain marks), P2's own stones stay, and P2's view is the same."""
    game = _dark_hex([0, 8, 4])  # P1 on 0 and 4, P2 on 8; P2 to move
    assert tuple(game.waiting_for()) == (1,)
    real = _board(game)
    worlds = [sample_world(game, 1, random.Random(k)) for k in range(16)]
    assert all(w.view(1) == game.view(1) for w in worlds)
    for w in worlds:
        board = _board(w)
        assert board[8] == 1 and board.count(0) == real.count(0) == 2
    assert any(_board(w) != real for w in worlds)
    # P1's own world keeps P1's stones (it sees them) and deals P2's one stone
    mine = [sample_world(game, 0, random.Random(k)) for k in range(16)]
    assert all(_board(w)[0] == _board(w)[4] == 0 for w in mine)
    assert any(_board(w)[8] is None for w in mine)


def test_the_probe_swaps_cells_of_a_grid_visible_to_owner() -> None:
    """P2 may not see P1's stones: the cells not holding P2 are hidden slots of `board` (they were skipped)."""
    game = _dark_hex([0, 8, 4])
    base = game.ruleset.compiled.layout.grids["board"].base
    slots = dict(hidden_slots(game, 1))
    assert slots["board"] == [base + i for i in range(9) if i != 8]
    assert check_hidden_values(game, 1, random.Random(1)) is None


LEAK = ('            log "{} places beside {} stone(s) of the other player", p, '
        'size([d for d in hex where on_grid(board, c + dx(d), r + dy(d)) and board[c + dx(d), r + dy(d)] != p '
        'and board[c + dx(d), r + dy(d)] != none])\n')


def test_fuzz_catches_a_dark_hex_that_tells_where_the_other_stones_lie(tmp_path: Path) -> None:
    """A mutant logs to everyone how many of the other player's stones border a new stone: the probe now
    swaps hidden cells of the board, and catches it (it skipped grids `visible to owner` before)."""
    text = DARK_HEX.read_text(encoding="utf-8")
    anchor = "            placed = true\n"
    assert anchor in text
    path = tmp_path / "dark_hex_leaky.rules"
    path.write_text(text.replace(anchor, anchor + LEAK), encoding="utf-8")
    report = fuzz_ruleset(load_ruleset(str(path)), str(path), examples=30, replay_path=str(tmp_path / "r.json"))
    assert report.violation is not None and "board" in report.violation
    clean = fuzz_ruleset(load_ruleset(str(DARK_HEX)), str(DARK_HEX), examples=30,
                         replay_path=str(tmp_path / "c.json"))
    assert clean.violation is None


def _write(tmp_path: Path, rules: str, cards: str = "") -> Path:
    if cards:
        (tmp_path / "cards.yaml").write_text(cards, encoding="utf-8")
    path = tmp_path / "g.rules"
    path.write_text(rules, encoding="utf-8")
    return path


def test_sample_world_deals_the_cards_of_zones_of_hidden_size_among_them(tmp_path: Path) -> None:
    """P2 and P3 hold 3 and 1 gems in hands whose size is hidden: P1 cannot tell 3+1 from 2+2, so a world drawn
    for P1 may split the four another way; P1's own hand and the public pile stay, and so does P1's view."""
    path = _write(tmp_path, """\
game "G" { players 3..3 }
card Gem { }
cards "cards.yaml"
zone pile: pile public of Gem
zone hand: per player set owner of Gem size hidden
setup {
  move top(pile) to players[0].hand
  move top(pile) to players[1].hand
  move top(pile) to players[1].hand
  move top(pile) to players[1].hand
  move top(pile) to players[2].hand
}
round { step s "S" { choose n from [1, 2] by players[0] { end game } } }
score(p) = size(p.hand)
""", "kind: Gem\nstart: pile\ncards:\n  - name: Ruby\n    count: 4\n  - name: Opal\n    count: 4\n")
    game = load_ruleset(str(path)).new_game(3, 1)
    names = game.state.tables.zone_names
    hands = [names.index(f"P{p}.hand") for p in (1, 2, 3)]
    sizes = {tuple(len(w.state.zones[z]) for z in hands)
             for w in (sample_world(game, 0, random.Random(k)) for k in range(24))}
    assert all(s[0] == 1 and s[1] + s[2] == 4 for s in sizes) and len(sizes) > 1
    world = sample_world(game, 0, random.Random(3))
    assert world.view(0) == game.view(0)
    assert world.state.zones[names.index("pile")] == game.state.zones[names.index("pile")]
    assert all(world.state.card_zone[c] == z for z, cards in enumerate(world.state.zones) for c in cards)


GROUPS = """\
game "G" { players 3..3 }
counter per player team 0..1
counter per player plan 0..9 visible to [q for q in players where q.team == owner.team]
setup { players[1].team = 1  players[2].team = 1  players[1].plan = 3  players[2].plan = 8 }
round { step s "S" {
  choose n from [0, 1] by players[0] prompt "Change sides?" {
    players[0].team = n
    LEAK
  }
}
step t "T" { choose n from [0, 1] by players[1] prompt "Done?" { end game } } }
score(p) = p.plan
"""


def test_the_probe_covers_values_visible_to_a_group(tmp_path: Path) -> None:
    """P1 is not in P2 and P3's team: their plans are hidden slots for P1 (they were skipped), a world drawn for
    P1 deals them afresh, and the probe catches a log line that tells P1 one of them; joining the team, which
    shows P1 the plans by the rules, is no leak."""
    leaky = load_ruleset(str(_write(tmp_path, GROUPS.replace("LEAK", 'log "P2 plans {}", players[1].plan'))))
    game = leaky.new_game(3, 1)
    lay = leaky.compiled.layout
    plans = [lay.player_base + p * lay.player_stride + lay.player_offsets["plan"] for p in (1, 2)]
    assert dict(hidden_slots(game, 0))["plan"] == plans
    assert {tuple(sample_world(game, 0, random.Random(k)).state.counters[i] for i in plans)
            for k in range(12)} == {(3, 8), (8, 3)}
    found = [check_hidden_values(game, 0, random.Random(k)) for k in range(4)]
    assert any(f is not None and "plan" in f for f in found)
    clean = load_ruleset(str(_write(tmp_path, GROUPS.replace("LEAK", "")))).new_game(3, 1)
    assert all(check_hidden_values(clean, 0, random.Random(k)) is None for k in range(4))
