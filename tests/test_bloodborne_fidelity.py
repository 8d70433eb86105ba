"""Rules-fidelity scenarios for Bloodborne (issue 22): each finding of the rules audit as a regression test.

Every test builds a position in a real 3-player game with :mod:`scenario` and lets the real engine
play the real ruleset and cards.  Each one failed on the ruleset before its fix; the rulebook
section each one guards is named in its docstring (RU/DE: the rulebooks through
shared/rules/bloodborne.md).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import scenario as sc  # tests/scenario.py (pytest puts tests/ on sys.path: no __init__.py)
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.tools.cli import main

RULES = Path(__file__).parent.parent / "rulesets" / "bloodborne.rules"
P1, P2, P3 = 0, 1, 2
ROM = "Rom, the Vacuous Spider"


@pytest.fixture(scope="module")
def rs() -> Ruleset:
    return load_ruleset(str(RULES))


def new(rs: Ruleset, seed: int = 0, **options: str) -> Game:
    return rs.new_game(players=3, seed=seed, check_invariants=True, options=options or None)


def ok(g: Game) -> None:
    """The engine neither aborted nor broke an invariant."""
    assert g.error is None, g.error
    assert g.violations() == []


def choose_prefix(g: Game, player: int, prefix: str) -> None:
    """Choose the option whose label starts with ``prefix`` (players are described: ``P2 (health 2/8, ...)``)."""
    d = g.decision
    assert d is not None and player in d.options, (d, g.error)
    labels = [o for o in d.options[player] if o.startswith(prefix)]
    assert len(labels) == 1, d.options[player]
    sc.choose(g, player, labels[0])


def flags(g: Game) -> dict[str, int]:
    c = g.view(None)["counters"]
    return {k: int(c[k]) for k in ("final_boss_killed", "all_hunters_eliminated")}


def eliminated(g: Game, p: int) -> bool:
    return bool(g.state.counters[sc.player_slot(g, "eliminated", p)])


def set_deaths(g: Game, p: int, n: int) -> None:
    g.state.counters[sc.player_slot(g, "deaths", p)] = n


# ---------------------------------------------------------------- finding 1


def test_hunter_killed_in_step_3_does_not_resolve_his_own_instant(rs: Ruleset) -> None:
    """Death of a Hunter (RU:213, RU:324, DE:320, DE:430): a dead hunter is out of play until the
    Hunter's Dream step, so his later Instant lapses and he takes no blood after dying."""
    g = new(rs)
    sc.position(
        g,
        first=P1,
        monster=("Garden of Eyes", 7),
        hunters={P1: dict(hand=["Hunter's Dream", "Shaman Bone Blade"]),
                 P2: dict(hand=["Hunter's Dream", "Ludwig's Rifle"], health=2)},
        roll=("yellow", ["0"]),
    )
    mark = len(g.log_lines(None))
    sc.choose_all(g, {P1: "Shaman Bone Blade", P2: "Ludwig's Rifle", P3: "Hunter's Dream"})
    choose_prefix(g, P1, "P2")
    log = sc.new_log(g, mark)
    assert "P2 dies" in log
    assert not any(line.startswith("P2 hits") for line in log)
    assert sc.blood(g)["collected"][P2] == 0
    assert "Garden of Eyes flees" in log  # nobody attacked it: the Rifle never fired
    ok(g)


def test_dead_hunters_blood_vial_does_not_revive_him(rs: Ruleset) -> None:
    """Death of a Hunter (RU:324, DE:430): he comes back only in the Hunter's Dream step."""
    g = new(rs)
    sc.position(
        g,
        first=P1,
        monster=("Garden of Eyes", 7),
        hunters={P1: dict(hand=["Hunter's Dream", "Shaman Bone Blade"]),
                 P2: dict(hand=["Hunter's Dream", "Blood Vial"], health=2)},
        roll=("yellow", ["3"]),
    )
    sc.choose_all(g, {P1: "Shaman Bone Blade", P2: "Blood Vial", P3: "Hunter Axe"})
    choose_prefix(g, P1, "P2")
    # Step 4: the roll of 3 hurts the living hunters only; P2 is still at 0 until step 7.
    assert sc.blood(g)["health"] == [5, 0, 5]
    assert g.decision is not None and g.decision.players == (P2,)  # the dead hunter's upgrade
    ok(g)


# ---------------------------------------------------------------- finding 2


def test_hunter_who_died_and_rested_takes_beast_patients_reveal_damage(rs: Ruleset) -> None:
    """Death of a Hunter (RU:324): out of play only until this round's Hunter's Dream step; after
    resting to 8 he is hurt by a step-8 reveal like everyone else (card_data 1.5, Beast Patient)."""
    g = new(rs)
    sc.position(
        g,
        first=P1,
        monster=("Scourge Beast", 1),
        dungeon_top="Beast Patient",
        hunters={P2: dict(health=1)},
        roll=("red", ["2"]),
    )
    sc.choose_all(g, {P1: "Hunter Axe", P2: "Saw Cleaver", P3: "Hunter Axe"})
    assert "P2 dies" in g.log_lines(None)
    sc.choose(g, P2, "pass")
    ok(g)
    assert sc.names(g, "current") == ["Beast Patient"]
    assert sc.blood(g)["health"] == [5, 7, 5]


def test_beast_patient_can_kill_and_the_hunter_sits_out_until_the_next_dream(rs: Ruleset) -> None:
    """card_data 1.5 (B16): Beast Patient's reveal deals 1 damage to each hunter, without exception.
    A hunter it kills loses his collected echoes at once (RU:322) and is out of play until the
    next Hunter's Dream step (RU:324): no card in step 1, no damage, no attack; then he rests."""
    g = new(rs)
    sc.position(
        g,
        first=P1,
        final_boss=ROM,  # no reveal bonus
        monster=("Scourge Beast", 3),
        dungeon_top="Beast Patient",
        hunters={P3: dict(health=3)},
        roll=("red", ["2"]),
    )
    sc.choose_all(g, {P1: "Saw Cleaver", P2: "Saw Cleaver", P3: "Saw Cleaver"})
    ok(g)
    log = g.log_lines(None)
    assert "Beast Patient is revealed with 4 blood echoes" in log and log[-1] == "P3 dies"
    b = sc.blood(g)
    assert b["health"] == [5, 5, 0] and b["collected"] == [1, 1, 0]
    # Round 2 (order P2, P3, P1): P3 is dead, so only P2 and P1 choose.
    d = g.decision
    assert d is not None and d.players == (P2, P1)
    sc.force_roll(g, "green", ["2"])
    sc.choose_all(g, {P1: "Hunter Axe", P2: "Hunter Axe"})
    assert sc.blood(g)["health"] == [3, 3, 0]
    d = g.decision
    assert d is not None and d.players == (P3,)  # only the dead hunter is in the Dream step
    sc.choose(g, P3, "pass")
    ok(g)
    assert sc.blood(g)["health"] == [3, 3, 8]
    assert g.decision is not None and g.decision.players == (P3, P1, P2)  # back in play


# ---------------------------------------------------------------- finding 3


def test_rom_every_hunter_eliminated_nobody_wins(rs: Ruleset) -> None:
    """End of the Game (RU:364, DE:470): the game is won only by killing the Final Boss. When Rom
    has eliminated every hunter nobody can, so the game ends and nobody wins."""
    g = new(rs)
    sc.position(g, first=P1, final_boss=ROM, monster=("Garden of Eyes", 7),
                hunters={p: dict(health=1, banked=5 + p) for p in (P1, P2, P3)}, roll=("yellow", ["3"]))
    for p in (P1, P2, P3):
        set_deaths(g, p, 1)
    sc.choose_all(g, {P1: "Hunter Axe", P2: "Hunter Axe", P3: "Hunter's Dream"})
    ok(g)
    assert g.finished and all(eliminated(g, p) for p in (P1, P2, P3))
    assert g.result is not None and g.result["winners"] == []
    assert g.log_lines(None)[-1].endswith("Nobody wins.")
    assert flags(g) == {"final_boss_killed": 0, "all_hunters_eliminated": 1}


def test_rom_eliminated_hunter_cannot_win(rs: Ruleset) -> None:
    """Rom (card_data 1.5, B2): an eliminated hunter is out of the game; the best of the others wins."""
    g = new(rs)
    sc.position(g, first=P1, final_boss=ROM, monster=(ROM, 1), empty_dungeon=True,
                hunters={P3: dict(health=1, banked=30)}, roll=("yellow", ["1"]))
    set_deaths(g, P3, 1)
    sc.choose_all(g, {P1: "Saw Cleaver", P2: "Hunter's Dream", P3: "Hunter Axe"})
    ok(g)
    assert g.finished and eliminated(g, P3)
    assert g.result is not None
    assert g.result["scores"] == [4, 0, 30]
    assert g.result["winners"] == [P1]
    assert flags(g) == {"final_boss_killed": 1, "all_hunters_eliminated": 0}


def test_killing_blow_on_the_final_boss_ends_the_game_before_its_recoil(rs: Ruleset) -> None:
    """End of the Game (DE:513: "sobald", as soon as the Final Boss is killed): Chikage's
    after-attack damage never happens, so Rom cannot eliminate the hunter who killed him."""
    g = new(rs)
    sc.position(g, first=P1, final_boss=ROM, monster=(ROM, 2), empty_dungeon=True,
                hunters={P1: dict(hand=["Hunter's Dream", "Chikage"], health=1)}, roll=("yellow", ["0"]))
    set_deaths(g, P1, 1)
    sc.choose_all(g, {P1: "Chikage", P2: "Hunter's Dream", P3: "Hunter's Dream"})
    ok(g)
    assert g.finished and not eliminated(g, P1) and sc.blood(g)["health"][P1] == 1
    assert g.result is not None and g.result["winners"] == [P1]


# ---------------------------------------------------------------- finding 4


def test_first_player_token_skips_eliminated_hunters(rs: Ruleset) -> None:
    """End of Round (RU:314, DE:420): the token passes to the left, to a hunter still in the game."""
    g = new(rs)
    sc.position(g, first=P1, final_boss=ROM, monster=("Garden of Eyes", 7),
                hunters={P2: dict(health=1)}, roll=("yellow", ["1"]))
    set_deaths(g, P2, 1)
    sc.choose_all(g, {P1: "Hunter Axe", P2: "Hunter Axe", P3: "Hunter Axe"})
    ok(g)
    assert eliminated(g, P2)
    assert g.view(None)["counters"]["first"] == "P3"
    assert g.decision is not None and g.decision.players == (P3, P1)


# ---------------------------------------------------------------- finding 5


def test_madmans_knowledge_leaves_the_discard_pile_alone(rs: Ruleset) -> None:
    """Hunter's Dream is the only way to take cards back (RU:269, DE:376)."""
    g = new(rs)
    sc.position(g, first=P1, monster=("Garden of Eyes", 7),
                hunters={P1: dict(hand=["Hunter's Dream", "Madman's Knowledge"],
                                  discard=["Hunter Axe", "Saw Cleaver", "Transform"], health=3)},
                roll=("yellow", ["0"]))
    sc.choose_all(g, {P1: "Madman's Knowledge", P2: "Hunter Axe", P3: "Hunter Axe"})
    ok(g)
    assert sc.names(g, "hand", P1) == ["Hunter's Dream"]
    assert sc.names(g, "discard", P1) == ["Hunter Axe", "Saw Cleaver", "Transform", "Madman's Knowledge"]
    assert sc.blood(g)["health"][P1] == 6  # healed 1 per card in the discard pile


def test_old_hunter_bone_never_uses_a_discarded_weapon(rs: Ruleset) -> None:
    """Discarded cards cannot be used (RU:318, DE:424): Old Hunter Bone only dodges."""
    g = new(rs)
    sc.position(g, first=P1, monster=("Garden of Eyes", 7),
                hunters={P1: dict(hand=["Hunter's Dream", "Old Hunter Bone"], discard=["Hunter Axe"])},
                roll=("yellow", ["3"]))
    mark = len(g.log_lines(None))
    sc.choose_all(g, {P1: "Old Hunter Bone", P2: "Hunter's Dream", P3: "Hunter's Dream"})
    log = sc.new_log(g, mark)
    assert not any(line.startswith("P1 hits") for line in log)
    assert sc.blood(g)["health"] == [8, 7, 7]


def test_bold_hunters_mark_does_not_bank(rs: Ruleset) -> None:
    """Only the Hunter's Dream banks echoes during play (RU:263, DE:372)."""
    g = new(rs)
    sc.position(g, first=P1, monster=("Garden of Eyes", 7),
                hunters={P1: dict(hand=["Hunter's Dream", "Bold Hunter's Mark"], collected=4)},
                roll=("yellow", ["1"]))
    sc.choose_all(g, {P1: "Bold Hunter's Mark", P2: "Hunter's Dream", P3: "Hunter's Dream"})
    b = sc.blood(g)
    assert b["banked"][P1] == 0 and b["collected"][P1] == 6
    assert b["health"][P1] == 6  # the roll of 1, plus 1 for the Mark
    assert "P1 hits Garden of Eyes with Bold Hunter's Mark for 2" in g.log_lines(None)


# ---------------------------------------------------------------- finding 6


@pytest.mark.parametrize(
    ("pick", "name"),
    [("gehrman", "Gehrman, the First Hunter"), ("rom", ROM), ("moon_presence", "Moon Presence"),
     ("ludwig", "Ludwig, the Accursed"), ("orphan_of_kos", "Orphan of Kos")],
)
def test_final_boss_chosen_by_agreement(rs: Ruleset, pick: str, name: str) -> None:
    """Setup step 1 (RU:76, DE:154): the players may agree on the Final Boss instead of drawing it."""
    for seed in range(5):
        g = new(rs, seed, final_boss_pick=pick)
        assert sc.names(g, "final_boss") == [name]
        assert len(sc.names(g, "box")) == 4 + 11 + 4  # the other Final Bosses, monsters and bosses
        ok(g)


def test_final_boss_is_drawn_by_default(rs: Ruleset) -> None:
    drawn = {sc.names(new(rs, seed), "final_boss")[0] for seed in range(40)}
    assert len(drawn) == 5


def test_relentless_monster_damage_is_neither_shielded_nor_halved(rs: Ruleset) -> None:
    """card_data 1.5 (B12): a monster whose damage card effects cannot prevent or reduce
    (Yharnam Huntsman here). Blue Elixir and the Hunter's Dream halving do not apply."""
    g = new(rs)
    sc.position(g, first=P1, monster=("Yharnam Huntsman", 4),
                hunters={P1: dict(hand=["Hunter's Dream", "Blue Elixir"])}, roll=("green", ["2"]))
    sc.choose_all(g, {P1: "Blue Elixir", P2: "Hunter's Dream", P3: "Hunter Axe"})
    assert sc.blood(g)["health"] == [6, 6, 6]


def test_cainhurst_bloody_crow_has_no_ability(rs: Ruleset) -> None:
    """card_data 1.5 (B16) lists no ability for it: an Instant damages it like any monster."""
    g = new(rs)
    sc.position(g, first=P1, monster=("Cainhurst Bloody Crow", 6), roll=("red", ["0"]))
    sc.choose_all(g, {P1: "Hunter Pistol", P2: "Hunter's Dream", P3: "Hunter's Dream"})
    assert "P1 hits Cainhurst Bloody Crow with Hunter Pistol for 1" in g.log_lines(None)


# ---------------------------------------------------------------- how games end


@pytest.mark.parametrize("players", [3, 4, 5])
def test_no_eliminated_winner_and_every_game_ends_one_declared_way(rs: Ruleset, players: int) -> None:
    """Random games with Rom: winners are never eliminated; each game ends by exactly one declared reason."""
    for seed in range(12):
        g = rs.new_game(players=players, seed=seed, options={"final_boss_pick": "rom"})
        g.random_playout(random.Random(seed))
        assert g.finished and g.result is not None, g.error
        f = flags(g)
        assert f["final_boss_killed"] + f["all_hunters_eliminated"] == 1
        assert not any(eliminated(g, p) for p in g.result["winners"])
        assert (g.result["winners"] == []) == bool(f["all_hunters_eliminated"])


def test_simulate_json_reports_how_games_end(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", str(RULES), "--games", "30", "--players", "4", "--seed", "1", "--json",
                 "--option", "final_boss_pick=rom"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["aborted"] == 0 and out["invariant_violations"] == 0
    totals = out["counter_totals"]
    assert totals["final_boss_killed"] + totals["all_hunters_eliminated"] == out["finished"] == 30
    assert out["no_winner"] == totals["all_hunters_eliminated"]
