"""Slay the Spire, Act III (issue 31): the Act III Encounter and Elite decks, their summons and the bosses, on the real
ruleset.

`--option mode=act3_combat` fights one combat of Act III: half of them from the Encounter deck, a quarter from the
Elite deck, a quarter the boss (cards/slay_the_spire/act3/; values from S1, all provisional). Each card's printed
ability gets a scenario built the way tests/test_slay_the_spire_act2.py builds them: a combat at P1's first play
decision, the enemies replaced by the ones the scenario needs, the die of the enemy turn set before the turn ends.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, choose, player_slot, refresh_decision, zone_index
from tests.sts_setup import HEROES, RULESET, counter, name, ok, pc, set_die, set_pc, setc
from tests.test_slay_the_spire_act2 import enemies_met, only
from tests.test_slay_the_spire_faq import end_turn, foes, give, play, to_hand

ACT3 = Path(__file__).resolve().parents[1] / "cards" / "slay_the_spire" / "act3"


def names_in(file: str) -> list[str]:
    return [c["name"] for c in yaml.safe_load((ACT3 / file).read_text())["cards"]]


def act3(players: int = 1, seed: int = 3) -> Game:
    g = RULESET.new_game(players, seed, check_invariants=True, options={"mode": "act3_combat"})
    for seat in range(players):
        choose(g, seat, HEROES[seat])
    assert g.decision is not None and "end_turn" in g.decision.options[0]
    return g


def boss(g: Game, *enemies: str) -> list[int]:
    """`enemies` alone, as `only` sets them up, the first of them (a boss) in every row."""
    placed = only(g, *enemies)
    setc(g, placed[0], "lane", g.players - 1)
    return placed


def fresh_turn(g: Game, hp: int = 10) -> None:
    set_pc(g, "max_hp", 20)
    set_pc(g, "hp", hp)
    set_pc(g, "energy", 3)
    refresh_decision(g)


def test_the_act_iii_decks_hold_their_cards() -> None:
    """S1 run.ts at A0: 10 Encounters, 3 Elites, and the three bosses drawn by the die (Deca comes with Donu)."""
    g = act3()
    in_zone = {z: sorted(name(g, c) for c in g.state.zones[zone_index(g, z)])
               for z in ("encounter_deck_3", "elite_deck_3", "boss_deck_3", "boss_card")}
    placed = sorted(name(g, c) for c in g.state.zones[zone_index(g, "foes")])
    assert sorted(in_zone["encounter_deck_3"] + [p for p in placed if p in names_in("encounters.yaml")]) == sorted(
        names_in("encounters.yaml"))
    assert len(names_in("encounters.yaml")) == 10
    assert sorted(in_zone["elite_deck_3"] + [p for p in placed if p in names_in("elites.yaml")]) == [
        "Giant Head", "Nemesis", "Reptomancer"]
    assert sorted(in_zone["boss_deck_3"] + in_zone["boss_card"] + [p for p in placed if p in names_in("bosses.yaml")]
                  ) == ["Awakened One", "Donu", "Time Eater"]
    hp = g.state.tables.fields["hp"]
    assert {n: hp[card_ids(g, n)[0]] for n in ("Giant Head", "Nemesis", "Reptomancer", "Donu", "Deca", "Time Eater")
            } == {"Giant Head": [80, 160, 240, 320], "Nemesis": [30, 60, 90, 120], "Reptomancer": [35, 70, 105, 140],
                  "Donu": [50, 100, 150, 200], "Deca": [50, 100, 150, 200], "Time Eater": [60, 120, 180, 240]}


def test_every_act_iii_encounter_and_elite_is_fought_to_the_end_for_1_to_4_players() -> None:
    assert set(names_in("encounters.yaml")) | set(names_in("elites.yaml")) <= enemies_met("act3_combat", 32)


# ---------------------------------------------------------------- the Act III elites


def test_giant_head_is_slow_and_waits_three_turns_before_its_aoe() -> None:
    """Slow: each hit deals 1 more (a Strike deals 2). Its track: three grey slots of nothing, then AoE hit 7 and
    +1 Strength, repeated."""
    g = act3()
    head, = only(g, "Giant Head")
    to_hand(g, "Strike (Ironclad)")
    fresh_turn(g)
    play(g, "Strike (Ironclad)", "Giant Head")
    assert counter(g, head, "life") == 80 - 2
    for turn in range(3):
        fresh_turn(g)
        end_turn(g)
        ok(g)
        assert pc(g, "hp") == 10 and counter(g, head, "marker") == turn + 1
    set_pc(g, "block", 0)
    fresh_turn(g)
    end_turn(g)
    ok(g)
    assert pc(g, "hp") == 10 - 7 and counter(g, head, "e_str") == 1 and counter(g, head, "marker") == 3


def test_nemesis_cannot_lose_hp_on_its_marked_slots() -> None:
    """Its cube on the 2nd or the 4th slot: no HP lost, from a hit or poison; elsewhere it loses HP as usual. Its
    first slot gives every player 4 Burns."""
    g = act3()
    nem, = only(g, "Nemesis")
    fresh_turn(g)
    end_turn(g)  # slot 1: AoE 4 Burns
    ok(g)
    assert sum(1 for ln in g.log_lines() if ln == "P1 gets a Burn on the discard pile") == 4
    assert counter(g, nem, "marker") == 1
    to_hand(g, "Strike (Ironclad)")
    fresh_turn(g)
    play(g, "Strike (Ironclad)", "Nemesis")
    assert counter(g, nem, "life") == 30
    setc(g, nem, "marker", 2)
    to_hand(g, "Strike (Ironclad)")
    fresh_turn(g)
    play(g, "Strike (Ironclad)", "Nemesis")
    assert counter(g, nem, "life") == 29


def test_reptomancer_summons_daggers_to_two_a_row_and_rallies_without_them() -> None:
    """Slot 1: Daggers until every row has 2. A Dagger hits 2, then hits 5 and dies. Rally: after its 2nd slot,
    with no Dagger left, its cube goes back to the top instead of on to the AoE hit 7."""
    g = act3(players=2)
    rep, = only(g, "Reptomancer", seat=1)
    for seat in (0, 1):
        g.state.counters[player_slot(g, "max_hp", seat)] = 20
        g.state.counters[player_slot(g, "hp", seat)] = 20
    refresh_decision(g)
    choose(g, 0, "end_turn")
    choose(g, 1, "end_turn")
    ok(g)
    rows = [sum(1 for c in foes(g) if name(g, c) == "Dagger" and counter(g, c, "lane") == s) for s in (0, 1)]
    assert rows == [2, 2] and counter(g, rep, "marker") == 1
    for c in foes(g):
        if name(g, c) == "Dagger":
            setc(g, c, "life", 0)
            _move(g, c, zone_index(g, "fallen"))
    for seat in (0, 1):
        g.state.counters[player_slot(g, "hp", seat)] = 20
    refresh_decision(g)
    choose(g, 0, "end_turn")
    choose(g, 1, "end_turn")
    ok(g)
    assert counter(g, rep, "marker") == 0  # rallied: back to the summons, not on to the AoE hit 7


def test_a_dagger_hits_2_then_hits_5_and_dies() -> None:
    g = act3()
    dagger, = only(g, "Dagger")
    fresh_turn(g, hp=20)
    end_turn(g)
    ok(g)
    assert pc(g, "hp") == 20 - 2 and counter(g, dagger, "marker") == 1
    fresh_turn(g, hp=20)
    set_pc(g, "block", 0)
    end_turn(g)
    ok(g)
    assert "Dagger attacks P1 (15 HP left)" in g.log_lines() and "Dagger dies" in g.log_lines() and g.finished


# ---------------------------------------------------------------- Act III encounter abilities


def test_the_transients_shift_turns_lost_hp_into_block_for_its_row() -> None:
    g = act3()
    tr, = only(g, "Transient")
    to_hand(g, "Bash")
    fresh_turn(g)
    play(g, "Bash", "Transient")
    assert counter(g, tr, "life") == 99 - 2 and pc(g, "block") == 2


def test_the_transient_hits_harder_each_turn_and_dies_after_its_last_slot() -> None:
    g = act3()
    tr, = only(g, "Transient")
    setc(g, tr, "marker", 3)
    fresh_turn(g, hp=20)
    end_turn(g)
    ok(g)
    assert "Transient attacks P1 (5 HP left)" in g.log_lines() and "Transient dies" in g.log_lines() and g.finished


def test_the_writhing_mass_rolls_the_die_again_when_an_attack_hurts_it() -> None:
    g = act3()
    only(g, "Writhing Mass")
    to_hand(g, "Strike (Ironclad)")
    fresh_turn(g)
    play(g, "Strike (Ironclad)", "Writhing Mass")
    ok(g)
    assert any(ln.startswith("Writhing Mass writhes: the die now shows ") for ln in g.log_lines())


def test_dead_darklings_regrow_at_the_start_of_the_next_round() -> None:
    g = act3()
    d1, d2 = only(g, "Darkling", "Darkling 2")
    setc(g, d2, "life", 1)
    to_hand(g, "Strike (Ironclad)")
    fresh_turn(g, hp=20)
    play(g, "Strike (Ironclad)", "Darkling 2")
    assert g.state.card_zone[d2] == zone_index(g, "fallen")
    end_turn(g)
    ok(g)
    assert g.state.card_zone[d2] == zone_index(g, "foes") and counter(g, d2, "life") == 4
    assert "Darkling 2 regrows (4 HP)" in g.log_lines()


def test_a_spikers_thorns_hurt_its_attacker_and_grow() -> None:
    """Thorns: a player who attacks it takes 1 damage per cube (it starts with 1); its 1-3 face adds a cube."""
    g = act3()
    sp, = only(g, "Spiker 1")
    setc(g, sp, "cubes", 1)
    to_hand(g, "Strike (Ironclad)")
    fresh_turn(g)
    play(g, "Strike (Ironclad)", "Spiker 1")
    assert pc(g, "hp") == 10 - 1 and counter(g, sp, "life") == 9
    set_die(g, 2)
    end_turn(g)
    ok(g)
    assert counter(g, sp, "cubes") == 2


def test_the_spire_growth_does_nothing_on_its_first_turn_then_follows_the_die() -> None:
    g = act3()
    only(g, "Spire Growth")
    fresh_turn(g)
    end_turn(g)
    ok(g)
    assert pc(g, "hp") == 10
    fresh_turn(g)
    set_pc(g, "block", 0)
    set_die(g, 5)  # hit 4, then AoE hit 2
    end_turn(g)
    ok(g)
    assert pc(g, "hp") == 10 - 6


def test_the_exploder_blows_up_on_its_third_turn() -> None:
    g = act3()
    ex, = only(g, "Exploder")
    setc(g, ex, "marker", 2)
    fresh_turn(g, hp=15)
    end_turn(g)
    ok(g)
    assert "Exploder attacks P1 (5 HP left)" in g.log_lines() and "Exploder dies" in g.log_lines() and g.finished


# ---------------------------------------------------------------- the Act III bosses


def test_donu_comes_with_deca_and_strengthens_every_enemy() -> None:
    for seed in range(80):
        g = act3(players=2, seed=seed)
        if any(ln.startswith("the boss Donu") for ln in g.log_lines()):
            break
    else:  # pragma: no cover - one combat in four is the boss, picked by the die
        raise AssertionError("no Donu fight in 80 seeds")
    lines = g.log_lines()
    assert "the boss Donu (100 HP) is in every row" in lines and "the boss Deca (100 HP) is in every row" in lines
    g = act3()
    donu, deca = boss(g, "Donu", "Deca")
    setc(g, deca, "lane", 0)
    fresh_turn(g, hp=20)
    end_turn(g)  # Donu: every enemy +1 Strength; Deca: hit 3 three times (its Strength came after)
    ok(g)
    assert [counter(g, e, "e_str") for e in (donu, deca)] == [1, 1]
    assert counter(g, donu, "marker") == 1 and counter(g, deca, "marker") == 1


def test_the_awakened_ones_curiosity_and_its_rebirth_the_next_round() -> None:
    """Curiosity: its hits deal 1 more per Power the player has in play. Beaten the first time, it comes back as
    Awakened One (Reborn) with 50 HP per player; that form acts from the next round, not in this enemy turn."""
    g = act3()
    ao, = boss(g, "Awakened One")
    give(g, "Inflame", where="powers")
    fresh_turn(g, hp=20)
    end_turn(g)  # slot 1: hit 3, +1 for the Power
    ok(g)
    assert pc(g, "hp") == 20 - 4
    setc(g, ao, "life", 1)
    setc(g, ao, "e_block", 0)
    to_hand(g, "Strike (Ironclad)")
    fresh_turn(g, hp=20)
    play(g, "Strike (Ironclad)", "Awakened One")
    reborn = next(c for c in foes(g) if name(g, c) == "Awakened One (Reborn)")
    assert not g.finished and counter(g, reborn, "life") == 50
    end_turn(g)
    ok(g)
    assert pc(g, "hp") == 20 and counter(g, reborn, "marker") == 0  # it did not act this round
    fresh_turn(g, hp=20)
    set_pc(g, "block", 0)
    end_turn(g)
    ok(g)
    assert pc(g, "hp") == 20 - 7 and counter(g, reborn, "marker") == 1


def test_void_makes_a_drawn_slimed_cost_an_energy_and_exhausts_it() -> None:
    g = act3()
    boss(g, "Awakened One (Reborn)")
    fresh_turn(g, hp=20)
    slimed = give(g, "Slimed / Burn", where="draw", top=True)
    give(g, "Pommel Strike")
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Pommel Strike", "Awakened One (Reborn)")  # draws 1: the Slimed
    ok(g)
    # exhausted, it goes back to the Status deck (§20)
    assert g.state.card_zone[slimed] == zone_index(g, "status_deck") and pc(g, "energy") == 3 - 1 - 1
    assert "P1 spends 1 Energy to exhaust a Slimed (Void)" in g.log_lines()


def test_time_warp_limits_the_cards_a_turn_and_the_time_eater_rises_once() -> None:
    """Time Warp: with its cube on the 3rd slot at the start of the turn, each player plays at most 3 cards that
    turn. Beaten the first time, it rises at once with 30 HP per player and 1 Strength, its cube where it was."""
    g = act3()
    te, = boss(g, "Time Eater")
    setc(g, te, "marker", 1)
    fresh_turn(g, hp=20)
    end_turn(g)  # slot 2: AoE 3 Slimed; the cube moves to the 3rd slot, read at the next start of turn
    ok(g)
    for _ in range(4):
        to_hand(g, "Strike (Ironclad)")
    set_pc(g, "energy", 6)
    refresh_decision(g)
    for _ in range(3):
        play(g, "Strike (Ironclad)", "Time Eater")
    d = g.decision
    assert d is not None and "play_card" not in d.options[0] and pc(g, "energy") == 3
    assert "Strike (Ironclad)" in [name(g, c) for c in g.state.zones[zone_index(g, "hand", 0)]]
    setc(g, te, "life", 1)
    setc(g, te, "e_block", 0)
    choose(g, 0, "end_turn")
    ok(g)
    to_hand(g, "Strike (Ironclad)")
    fresh_turn(g, hp=20)
    marker = counter(g, te, "marker")
    play(g, "Strike (Ironclad)", "Time Eater")
    ok(g)
    haste = next(c for c in foes(g) if name(g, c) == "Time Eater (Haste)")
    assert not g.finished and counter(g, haste, "life") == 30
    assert counter(g, haste, "e_str") == 1 and counter(g, haste, "marker") == marker
    assert "Time Eater rises again as Time Eater (Haste) (30 HP)" in g.log_lines()
