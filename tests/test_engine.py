"""The engine as a step function: decisions, hidden commits, clones, saves, limits."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from duel import CARDS, RULES
from liturgy.dsl.loader import check_file
from liturgy.interpreter.agents.agents import RandomAgent, play_out
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset, replay_decisions
from liturgy.interpreter.runtime.errors import IllegalChoice


@pytest.fixture
def duel(write_ruleset: Callable[..., str]) -> Ruleset:
    return load_ruleset(write_ruleset(RULES, {"cards.yaml": CARDS}))


def random_finish(game: Game, seed: int = 0) -> Game:
    return play_out(game, [RandomAgent(seed + i) for i in range(game.players)])


def test_first_decision_is_simultaneous_over_own_hand(duel: Ruleset) -> None:
    g = duel.new_game(2, seed=1)
    d = g.decision
    assert d is not None and d.simultaneous
    assert set(d.players) == {0, 1}
    for p in (0, 1):
        assert sorted(d.options[p]) == sorted(g.view(p)["zones"]["hand"][f"P{p + 1}"])
        assert len(d.options[p]) == 3


def test_commit_stays_hidden_until_everyone_chose(duel: Ruleset) -> None:
    g = duel.new_game(2, seed=2)
    d = g.decision
    assert d is not None
    chosen = d.options[0][1]
    g.apply(1, 0)
    other = json.dumps(g.view(1))
    assert chosen not in other
    assert g.view(1)["decision"]["committed"] == ["P1"]
    assert g.waiting_for() == (1,)
    g.apply(0, 1)
    assert any(chosen in line for line in g.log_lines(1))


def test_illegal_choices_leave_the_state_unchanged(duel: Ruleset) -> None:
    g = duel.new_game(2, seed=3)
    before = g.digest()
    with pytest.raises(IllegalChoice):
        g.apply(7, 0)
    with pytest.raises(IllegalChoice):
        g.apply(-1, 1)
    with pytest.raises(IllegalChoice):
        g.apply(0)  # two players are choosing: the player must be named
    g.apply(0, 0)
    mid = g.digest()
    with pytest.raises(IllegalChoice, match="^P1 has already chosen$"):
        g.apply(0, 0)  # already committed
    with pytest.raises(IllegalChoice, match="^P6 has no choice to make now$"):
        g.apply(0, 5)  # not asked
    assert g.digest() == mid != before


def test_the_hot_engine_functions_keep_no_cells() -> None:
    """A comprehension, generator or lambda that reads a function's local makes it a cell for every call (a cell
    object made at each entry, each read of it through the cell): none in what a playout or an apply loop enters
    (docs/performance.md, Sessions 24 and 25). An error path's generator goes in a function of its own."""
    for fn in (Game._advance, Game._pick, Game._pick_pending, Game.apply, Game.random_playout, Game.playout,
               Game.clone, Ruleset.new_game):
        assert fn.__code__.co_cellvars == (), fn.__qualname__


def test_game_plays_to_a_result(duel: Ruleset) -> None:
    g = random_finish(duel.new_game(3, seed=4, check_invariants=True))
    assert g.state.status == "finished", g.error
    assert g.result is not None
    assert sum(g.result["scores"]) == 3 * 1 or sum(g.result["scores"]) >= 3
    assert g.result["winners"]


def test_clone_is_independent(duel: Ruleset) -> None:
    g = duel.new_game(2, seed=5)
    before = g.digest()
    c = random_finish(g.clone())
    assert c.finished
    assert g.digest() == before
    assert not g.finished


def test_save_load_continue_is_exact(duel: Ruleset) -> None:
    g = duel.new_game(3, seed=6)
    g.apply(0, 0)
    saved = json.loads(json.dumps(g.to_json()))
    full = random_finish(g.clone(), seed=9)
    rest = full.state.decisions[len(g.state.decisions):]
    loaded = duel.load_game(saved)
    replay_decisions(loaded, rest)
    assert loaded.digest() == full.digest()


def test_replaying_the_decision_log_reproduces_the_digest(duel: Ruleset) -> None:
    g = random_finish(duel.new_game(2, seed=7))
    again = replay_decisions(duel.new_game(2, seed=7), g.state.decisions)
    assert again.digest() == g.digest()
    other_seed = replay_decisions(duel.new_game(2, seed=8), g.state.decisions[:1])
    assert other_seed.digest() != g.digest()


def test_views_never_show_other_players_hands(duel: Ruleset) -> None:
    for seed in range(10):
        g = duel.new_game(3, seed=seed)
        while not g.finished:
            for viewer in range(3):
                view = g.view(viewer)
                text = json.dumps(view)
                for other in range(3):
                    if other == viewer:
                        continue
                    hand = view["zones"]["hand"][f"P{other + 1}"]
                    assert set(hand) <= {"?"}
                    zone = duel.compiled.layout
                    zi = zone.zone_player_base + other * zone.zone_player_stride + zone.zone_player_offsets["hand"]
                    for cid in g.state.zones[zi]:
                        name = g.state.tables.card_names[cid]
                        assert name not in text, f"{name} leaked to P{viewer + 1}"
            for p in g.waiting_for():
                g.apply(0, p)


def test_step_limit_stops_a_runaway_game(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset("""
game "Forever" { players 1..1  step_limit 500 }
counter ticks 0..1000000 = 0
round { step tick "Tick" { ticks += 1 } }
""")
    g = load_ruleset(path).new_game(1, 0)
    assert g.state.status == "aborted"
    assert g.error is not None and "step limit of 500" in g.error


def test_runtime_trigger_loop_names_the_chain(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset("""
game "Echo" { players 1..1 }
window ping(n: int)
window pong(n: int)
on ping(n: int) { fire pong(n + 1) }
on pong(n: int) { fire ping(n + 1) }
round { step go "Go" { fire ping(0)  end game } }
""")
    g = load_ruleset(path).new_game(1, 0)
    assert g.state.status == "aborted"
    assert g.error is not None and "trigger chain" in g.error and "ping" in g.error + "pong"


def test_cards_never_leave_a_final_zone(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset("""
game "Undead" { players 1..1 }
card Thing { x: int = 0 }
cards "c.yaml"
zone pile: pile public of Thing
zone grave: pile public final of Thing
setup { move top(pile) to grave  move top(grave) to pile }
round { step s "S" { end game } }
""", {"c.yaml": "kind: Thing\nstart: pile\ncards:\n  - {name: Bone}\n"})
    g = load_ruleset(path).new_game(1, 0)
    assert g.state.status == "aborted"
    assert g.error is not None and "final zone" in g.error


def test_counters_clamp_and_transfers_cap(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset("""
game "Clamp" { players 2..2 }
counter per player hp 0..5 = 3
pool coins { bank: 4  per player purse }
setup {
  for p in players { p.hp += 10 }
  transfer 3 from bank to first.purse as a
  transfer 3 from bank to next_player(first).purse as b
  log "{} {}", a, b
}
round { step s "S" { end game } }
score(p) = p.hp * 10 + p.purse
""")
    g = load_ruleset(path).new_game(2, 0, check_invariants=True)
    assert g.state.status == "finished", g.error
    assert g.result is not None
    assert sorted(g.result["scores"]) == [51, 53]
    assert "3 1" in g.log_lines()


def test_skip_to_jumps_within_the_round(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset("""
game "Skip" { players 1..1 }
counter a 0..10 = 0
counter b 0..10 = 0
round {
  step one "1" { a += 1  if a >= 1 { skip to three } }
  step two "2" { b += 1 }
  step three "3" { end game }
}
score(p) = a * 10 + b
""")
    g = load_ruleset(path).new_game(1, 0)
    assert g.result is not None and g.result["scores"] == [10]


def test_optional_choice_offers_pass_and_if_none_runs(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset("""
game "Pick" { players 1..1 }
card Gem { worth: int }
cards "g.yaml"
zone pool: row public of Gem
zone mine: per player set owner of Gem
counter fallback 0..5 = 0
round {
  step pick "Pick" {
    choose g from pool by first optional { move g to first.mine }
    choose h from pool where h.worth > 100 by first { move h to first.mine } otherwise { fallback += 1 }
    end game
  }
}
score(p) = sum(g.worth for g in p.mine) + fallback
""", {"g.yaml": "kind: Gem\nstart: pool\ncards:\n  - {name: Ruby, worth: 5}\n  - {name: Opal, worth: 2}\n"})
    g = load_ruleset(path).new_game(1, 0)
    d = g.decision
    assert d is not None and d.options[0] == ("Ruby", "Opal", "pass")
    g.apply(0, 0)
    assert g.result is not None and g.result["scores"] == [6]


def test_exploding_die_adds_rerolls(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset("""
game "Dice" { players 1..1 }
die boom { 1+, 0 }
counter total 0..100000 = 0
counter rolls 0..100000 = 0
round {
  step r "Roll" {
    total += roll(boom)
    rolls += 1
    if rolls == 2000 { end game }
  }
}
score(p) = total
""")
    g = load_ruleset(path).new_game(1, 3)
    assert g.result is not None
    # each roll is a geometric count of 1s with mean 1
    assert 1600 < g.result["scores"][0] < 2400


def test_invariant_outside_a_step_is_not_checked_there(write_ruleset: Callable[..., str]) -> None:
    rules = """
game "Juggle" { players 1..1 }
counter balls 0..9 = 2
round {
  step toss "Toss" {
    balls += 1
    choose n from [1, 2] by first { balls -= n }
  }
  step land "Land" { end game }
}
invariant "two balls" outside toss: balls == 2
score(p) = balls
"""
    g = load_ruleset(write_ruleset(rules)).new_game(1, 0, check_invariants=True)
    assert g.state.status == "running"  # 3 balls while choosing inside `toss` is allowed
    g.apply(0, 0)
    assert g.state.status == "finished" and g.result is not None and g.result["scores"] == [2]
    strict = load_ruleset(write_ruleset(rules.replace(" outside toss", ""), name="strict.rules"))
    assert "two balls" in (strict.new_game(1, 0, check_invariants=True).error or "")


def test_a_field_name_shared_by_kinds_with_different_parameters(write_ruleset: Callable[..., str]) -> None:
    """Two card kinds may declare a function or effect field of the same name with their own parameters; each
    call binds its arguments by the called card's kind (this once crashed the compiler with a zip error)."""
    path = write_ruleset("""
game "Shared field" { players 1..1 }
card Coin { go: effect(p: player, n: int) = none
            val: function(n: int) -> int = 0 }
card Gem { go: effect(q: player) = none
           val: function(k: int, m: int) -> int = 0 }
zone purse: set public of Coin
zone box: set public of Gem
counter per player total 0..99
cards "c.yaml"
cards "g.yaml"
round {
  step s "S" {
    for c in purse { do c.go(players[0], c.val(2)) }
    for g in box { do g.go(players[0]) }
    players[0].total += sum(g.val(3, 4) for g in box)
    end game
  }
}
score(p) = p.total
""", {"c.yaml": 'kind: Coin\nstart: purse\ncards:\n  - {name: Penny, val: n * 5, go: "p.total += n"}\n',
      "g.yaml": 'kind: Gem\nstart: box\ncards:\n  - {name: Ruby, val: k * m, go: "q.total += 1"}\n'})
    for codegen, stmtgen in ((True, True), (True, False), (False, False)):  # generated code and closures
        program, _ = check_file(path)
        assert program is not None
        g = Ruleset(program, codegen=codegen, stmtgen=stmtgen).new_game(1, 0)
        assert g.error is None and g.result is not None
        assert g.result["scores"] == [10 + 1 + 12]
