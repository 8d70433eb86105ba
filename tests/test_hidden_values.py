"""Hidden information without cards (issue 33 item 2): counters and grids seen only by their owner, or by nobody.

docs/examples/sealed_gardens.rules is a private-board game written without cards; these tests hold what
docs/language.md ("Hidden information without cards") says of it: views show a value only to those who may see
it, the observation tensors do not depend on what a player may not see, the fuzz noninterference probe passes the
game and catches a mutant that logs a hidden plot, and per-card counters keep their owners in views.
"""

from __future__ import annotations

import random
from pathlib import Path

from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.interop.common import ViewEncoder
from liturgy.interpreter.runtime.moves import move_card
from liturgy.interpreter.tools.fuzz import fuzz_ruleset
from liturgy.interpreter.tools.noninterference import check_hidden_values, hidden_slots

ROOT = Path(__file__).resolve().parent.parent
GARDENS = ROOT / "docs" / "examples" / "sealed_gardens.rules"
LEAK = '      log "{}: the centre plot holds {}", p, p.garden[centre]\n'


def _planted(players: int = 2, rounds: int = 3, seed: int = 1) -> Game:
    game = load_ruleset(str(GARDENS)).new_game(players, seed)
    rng = random.Random(seed)
    while game.state.counters and rounds:
        for p in game.waiting_for():
            game.apply(rng.randrange(game.option_count(p)), p)
        rounds -= 1
    return game


def _leaky(tmp_path: Path) -> Path:
    text = GARDENS.read_text(encoding="utf-8")
    anchor = "      p.garden[x] = flower\n"
    assert anchor in text
    path = tmp_path / "sealed_gardens_leaky.rules"
    path.write_text(text.replace(anchor, anchor + LEAK), encoding="utf-8")
    return path


def test_a_counter_visible_to_its_owner_shows_only_there() -> None:
    game = _planted()
    mine, theirs, spectator = game.view(0)["counters"], game.view(1)["counters"], game.view(None)["counters"]
    assert isinstance(mine["garden"]["P1"], dict) and mine["garden"]["P2"] == "?"
    assert theirs["garden"]["P1"] == "?" and theirs["garden"]["P2"] == game.view(1)["counters"]["garden"]["P2"]
    assert sum(mine["garden"]["P1"].values()) > 0  # three rounds planted something
    assert spectator["garden"] == {"P1": "?", "P2": "?"} and spectator["wilted"] == {"P1": "?", "P2": "?"}
    assert mine["flower"] in (1, 2, 3)  # undeclared counters stay public


def test_hidden_counters_and_grids(tmp_path: Path) -> None:
    path = tmp_path / "g.rules"
    path.write_text("""\
game "G" { players 2..2 }
counter timer 0..9 = 4 hidden
counter per player secret 0..9 = 2 hidden
grid mines 2 by 1 of int hidden
grid stones 3 by 1 of player visible to owner
setup { mines[1, 0] = 1  stones[0, 0] = players[0]  stones[1, 0] = players[1] }
round { step s "S" { timer -= 1  if timer == 0 { end game } } }
score(p) = p.secret + mines[1, 0]
""", encoding="utf-8")
    game = load_ruleset(str(path)).new_game(2, 1)
    for who in (0, 1, None):
        view = game.view(who)
        assert view["counters"]["timer"] == "?" and view["counters"]["secret"] == {"P1": "?", "P2": "?"}
        assert view["grids"]["mines"] == [["?", "?"]]
    assert game.view(0)["grids"]["stones"] == [["P1", "?", "?"]]
    assert game.view(1)["grids"]["stones"] == [["?", "P2", "?"]]
    assert game.view(None)["grids"]["stones"] == [["?", "?", "?"]]


def test_visible_to_owner_needs_an_owner(tmp_path: Path) -> None:
    for decl in ("counter lead 0..9 visible to owner", "grid board 3 by 3 of int visible to owner"):
        path = tmp_path / "g.rules"
        path.write_text(f'game "G" {{ players 2..2 }}\n{decl}\nround {{ step s "S" {{ end game }} }}\n'
                        "score(p) = 0\n", encoding="utf-8")
        _, diags = check_file(str(path))
        assert [(d.code, d.span.line) for d in diags if d.is_error] == [("E391", 2)], decl


def test_observation_tensors_do_not_depend_on_values_the_player_may_not_see() -> None:
    game = _planted()
    other = game.clone()
    lay = game.ruleset.compiled.layout
    base = lay.player_base + 1 * lay.player_stride + lay.player_offsets["garden"]  # P2's garden
    values = other.state.counters
    values[base], values[base + 4] = 3, 2
    assert other.view(1) != game.view(1)  # P2 sees its own garden change
    encoder = ViewEncoder(game.ruleset, 2)
    assert (encoder.encode(game.view(0), 0) == encoder.encode(other.view(0), 0)).all()
    assert not (encoder.encode(game.view(1), 1) == encoder.encode(other.view(1), 1)).all()


def test_the_probe_swaps_only_values_the_observer_may_not_see() -> None:
    game = _planted()
    lay = game.ruleset.compiled.layout
    p2 = lay.player_base + lay.player_stride + lay.player_offsets["garden"]
    groups = dict(hidden_slots(game, 0))
    assert groups["P2's garden"] == list(range(p2, p2 + 9)) and "P1's garden" not in groups
    assert all(check_hidden_values(game, 0, random.Random(i)) is None for i in range(10))


def test_the_probe_catches_a_mutant_that_logs_a_hidden_plot(tmp_path: Path) -> None:
    path = _leaky(tmp_path)
    game = load_ruleset(str(path)).new_game(2, 1)
    rng = random.Random(0)
    for _ in range(4):
        for p in game.waiting_for():
            game.apply(rng.randrange(game.option_count(p)), p)
    found = [check_hidden_values(game, 0, random.Random(i)) for i in range(10)]
    assert any(f and "P2's garden" in f and "the centre plot holds" in f for f in found), found


def test_fuzz_passes_the_game_and_fails_the_leaky_mutant(tmp_path: Path) -> None:
    clean = fuzz_ruleset(load_ruleset(str(GARDENS)), str(GARDENS), examples=40, run_seed=1,
                         replay_path=str(tmp_path / "clean.json"))
    assert clean.violation is None
    leaky = _leaky(tmp_path)
    report = fuzz_ruleset(load_ruleset(str(leaky)), str(leaky), examples=40, run_seed=1,
                          replay_path=str(tmp_path / "leaky.json"))
    assert report.violation is not None and "is told what it may not see" in report.violation
    assert "the centre plot holds" in report.violation


def test_per_card_counters_keep_their_owners(tmp_path: Path) -> None:
    (tmp_path / "cards.yaml").write_text("kind: Gem\nstart: pile\ncards:\n  - name: Ruby\n    count: 2\n",
                                         encoding="utf-8")
    path = tmp_path / "g.rules"
    path.write_text("""\
game "G" { players 2..2 }
card Gem { }
cards "cards.yaml"
zone pile: pile public of Gem
zone hand: per player row public of Gem
counter per card shine 0..9
setup {
  for p in players { move top(pile) to p.hand }
  for p in players { for c in p.hand { c.shine = 1 + size(p.hand) + (if p == players[0] then 0 else 4) } }
}
round { step s "S" { end game } }
score(p) = 0
""", encoding="utf-8")
    program, diags = check_file(str(path))
    assert program is not None, diags
    view = load_ruleset(str(path)).new_game(2, 1).view(0)
    assert view["counters"]["shine"] == {"Ruby (P1.hand)": 2, "Ruby (P2.hand)": 6}


def test_a_zone_of_hidden_size_shows_neither_its_cards_nor_their_number(tmp_path: Path) -> None:
    (tmp_path / "cards.yaml").write_text("kind: Gem\nstart: pile\ncards:\n  - name: Ruby\n    count: 5\n",
                                         encoding="utf-8")
    path = tmp_path / "g.rules"
    path.write_text("""\
game "G" { players 2..2 }
card Gem { }
cards "cards.yaml"
zone pile: pile hidden of Gem size hidden
zone hand: per player set owner of Gem size hidden
zone shown: per player row owner of Gem
setup { move top(pile) to players[0].hand  move top(pile) to players[0].shown }
round { step s "S" { end game } }
score(p) = size(p.hand)
""", encoding="utf-8")
    game = load_ruleset(str(path)).new_game(2, 1)
    mine, theirs = game.view(0)["zones"], game.view(1)["zones"]
    assert mine["pile"] == theirs["pile"] == "?"
    assert mine["hand"] == {"P1": ["Ruby"], "P2": "?"} and theirs["hand"] == {"P1": "?", "P2": []}
    assert theirs["shown"] == {"P1": ["?"], "P2": []}  # without `size hidden` the number shows
    more = game.clone()  # P1 holds a second card: P2 cannot tell, by its view or its observation tensor
    names = more.state.tables.zone_names
    move_card(more.state, more.state.zones[names.index("pile")][0], names.index("P1.hand"), "top")
    assert more.view(1)["zones"] == theirs and more.view(0)["zones"]["hand"]["P1"] == ["Ruby", "Ruby"]
    encoder = ViewEncoder(game.ruleset, 2)
    assert (encoder.encode(game.view(1), 1) == encoder.encode(more.view(1), 1)).all()


def test_counters_and_grids_visible_to_a_group(tmp_path: Path) -> None:
    """`visible to EXPR`: the players the expression names now (a per-player counter's player is `owner`)."""
    path = tmp_path / "g.rules"
    path.write_text("""\
game "G" { players 3..3 }
counter per player team 0..1
counter per player plan 0..9 = 5 visible to [q for q in players where q.team == owner.team]
counter war_chest 0..99 = 7 visible to [q for q in players where q.team == 1]
grid map 2 by 1 of int visible to players[2]
setup { players[1].team = 1  players[2].team = 1 }
round { step s "S" {
  choose n from [0, 1] by players[0] prompt "Change sides?" { players[0].team = n }
  end game
} }
score(p) = p.plan
""", encoding="utf-8")
    game = load_ruleset(str(path)).new_game(3, 1)
    plans = [game.view(p)["counters"]["plan"] for p in range(3)]
    assert plans[0] == {"P1": 5, "P2": "?", "P3": "?"}
    assert plans[1] == plans[2] == {"P1": "?", "P2": 5, "P3": 5}
    assert [game.view(p)["counters"]["war_chest"] for p in range(3)] == ["?", 7, 7]
    assert [game.view(p)["grids"]["map"] for p in (0, 1, 2, None)] == [[["?", "?"]]] * 2 + [[[0, 0]], [["?", "?"]]]
    game.apply(1, 0)  # P1 joins team 1: the group follows the game
    assert game.view(0)["counters"]["war_chest"] == 7 and game.view(1)["counters"]["plan"]["P1"] == 5


def test_check_warns_where_a_hidden_value_reaches_what_others_see(tmp_path: Path) -> None:
    """The static leak analysis (dsl/checker/flow.py) follows hidden values as it follows hidden cards' fields:
    the leaky mutant is W076 at its log line; a player's own value logged to it, or copied into another hidden
    counter, is not; copied into a public counter it is W075."""
    _, diags = check_file(str(_leaky(tmp_path)))
    assert [(d.code, d.span.line) for d in diags] == [("W076", 31)] and "hidden value" in diags[0].message
    text = GARDENS.read_text(encoding="utf-8")
    anchor = "      p.garden[x] = flower\n"
    for extra, codes in [('      log to p "{} holds {}", x, p.garden[x]\n', []),
                         ("      p.wilted = p.garden[centre]\n", []),
                         ("      flower = p.garden[centre]\n", ["W075"])]:
        path = tmp_path / "variant.rules"
        path.write_text(text.replace(anchor, anchor + extra), encoding="utf-8")
        _, diags = check_file(str(path))
        assert [d.code for d in diags] == codes, (extra, diags)


def test_sample_world_deals_hidden_values_afresh() -> None:
    """Game.sample_world (information sets, the ISMCTS agent) permutes the values the player may not see among
    their slots: the player's view is the same, the other garden holds the same flowers elsewhere."""
    from liturgy.interpreter.engine.infosets import sample_world

    game = _planted(rounds=4)
    lay = game.ruleset.compiled.layout
    p2 = lay.player_base + lay.player_stride + lay.player_offsets["garden"]
    p1 = lay.player_base + lay.player_offsets["garden"]
    real = game.state.counters
    worlds = [sample_world(game, 0, random.Random(i)) for i in range(12)]
    assert all(w.view(0) == game.view(0) for w in worlds)
    assert all(w.state.counters[p1:p1 + 9] == real[p1:p1 + 9] for w in worlds)
    assert all(sorted(w.state.counters[p2:p2 + 9]) == sorted(real[p2:p2 + 9]) for w in worlds)
    assert any(w.state.counters[p2:p2 + 9] != real[p2:p2 + 9] for w in worlds)


GRAPH_SECRETS = """game "Graph secrets" { players 2..2  step_limit 200 }
enum Isle { dock, reed, moss, crag, dune, light }
enum Crossing { ferry, bridge }
graph sea: Isle by Crossing from "cards/isles.yaml"
counter per player mines[Isle] 0..9 visible to owner
counter treasure[Isle] 0..9 hidden
round {
  step hide "Hide" {
    for p in players {
      choose i from [x for x in Isle where adjacent(sea, dock, x)] by p prompt "Mine which isle?" { p.mines[i] += 1 }
    }
    treasure[reed] = 3
    end game
  }
}
score(p) = p.mines[reed] + 10 * treasure[reed]
"""


def test_a_graphs_per_node_values_are_hidden_without_cards(tmp_path: Path) -> None:
    """Issue 33 item 2: per-node values of a graph are counters indexed by its places' enum, and `visible to
    owner` / `hidden` hide them as they hide any counter: each player sees its own values at every node, the
    other player and spectators `?`, and nobody the hidden treasure (which still decides the score)."""
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "isles.yaml").write_bytes((ROOT / "docs" / "examples" / "cards" / "isles.yaml").read_bytes())
    (tmp_path / "g.rules").write_text(GRAPH_SECRETS, encoding="utf-8")
    game = load_ruleset(str(tmp_path / "g.rules")).new_game(2, seed=1)
    game.apply(0, 0)
    game.apply(0, 1)
    assert game.finished and game.result is not None and game.result["scores"] == [31, 31]
    mine = {"dock": 0, "reed": 1, "moss": 0, "crag": 0, "dune": 0, "light": 0}
    for seat, name, other in ((0, "P1", "P2"), (1, "P2", "P1")):
        counters = game.view(seat)["counters"]
        assert counters["mines"] == {name: mine, other: "?"} and counters["treasure"] == "?"
    assert game.view(None)["counters"]["mines"] == {"P1": "?", "P2": "?"}
    assert game.view(None)["counters"]["treasure"] == "?"
