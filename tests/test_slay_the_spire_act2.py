"""Slay the Spire, Act II (issue 31): the Act II Encounter and Elite decks and their summons, on the real ruleset.

`--option mode=act2_combat` fights one combat drawn from the Act II Encounter deck, or one time in four from the
Elite deck (cards/slay_the_spire/enemies_act2.yaml, enemies_act2_elites.yaml, enemies_act2_summons.yaml; values
from S1, all provisional). Each card's printed ability gets a
scenario: positions are a combat at P1's first play decision, edited the way tests/test_slay_the_spire_faq.py does,
with the die of the enemy turn set before the turn ends (enemies read `die_result` when they act).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import yaml
from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, choose, global_slot, player_slot, refresh_decision, zone_index
from tests.sts_setup import HEROES, RULESET, counter, name, ok, pc, set_die, set_pc, setc, started
from tests.test_slay_the_spire_faq import end_turn, foes, play, set_strength, to_hand

CARDS = Path(__file__).resolve().parents[1] / "cards" / "slay_the_spire"
PLACED = re.compile(r"^(.*) \(\d+ HP\) is in P\d's row$")
ENCOUNTERS = sorted({c["name"] for c in yaml.safe_load((CARDS / "enemies_act2.yaml").read_text())["cards"]})
ELITES = sorted(c["name"] for c in yaml.safe_load((CARDS / "enemies_act2_elites.yaml").read_text())["cards"])




def act2(players: int = 1, seed: int = 3, heroes: tuple[str, ...] = HEROES) -> Game:
    g = started(players, seed, heroes, mode="act2_combat")
    assert g.decision is not None and "end_turn" in g.decision.options[0]
    return g


def only(g: Game, *enemies: str, seat: int = 0) -> list[int]:
    """Make `enemies` (card names; the first copy not yet placed) the only enemies, in the row of `seat`, at their
    printed HP, no Block beyond their `start_block`, their tracks at the first slot."""
    for c in foes(g):
        _move(g, c, zone_index(g, "summon_box"))
    placed: list[int] = []
    for enemy in enemies:
        cid = next(c for c in card_ids(g, enemy) if c not in placed)
        _move(g, cid, zone_index(g, "foes"))
        f = g.state.tables.fields
        for k, v in (("lane", seat), ("life", f["hp"][cid][0]), ("marker", 0), ("e_block", f["start_block"][cid])):
            setc(g, cid, k, v)
        placed.append(cid)
    return placed


def enemies_met(mode: str, games: int) -> set[str]:
    """The enemies placed in ``games`` random combats of ``mode`` (seeds 0.., 1–4 players in turn), each played to
    its end under the invariants without an error."""
    seen: set[str] = set()
    for seed in range(games):
        g = RULESET.new_game(seed % 4 + 1, seed, check_invariants=True, options={"mode": mode})
        g.random_playout(random.Random(seed))
        ok(g)
        assert g.finished
        seen |= {m.group(1) for ln in g.log_lines() if (m := PLACED.match(ln))}
    return seen


def test_the_deck_holds_the_twelve_act_ii_encounters() -> None:
    """S1 run.ts ACT_ENCOUNTERS[2] at A0: 12 cards (the Looter with a Mugger twice), 11 names."""
    g = act2()
    deck = [g.state.tables.card_names[c] for c in g.state.zones[zone_index(g, "encounter_deck_2")]]
    placed = [g.state.tables.card_names[c] for c in foes(g) if g.state.tables.fields["foe"][c] == "encounter"]
    assert len(deck) + len(placed) == 12 and sorted(set(deck + placed)) == ENCOUNTERS


def test_every_act_ii_encounter_is_fought_to_the_end_for_1_to_4_players() -> None:
    """Random play of Act II combats under the invariants meets every encounter and every elite of the decks."""
    assert set(ENCOUNTERS) | set(ELITES) <= enemies_met("act2_combat", 40)


def test_a_byrd_flies_one_damage_per_hit() -> None:
    """Flying: "takes at most 1 damage from each hit". Strike with 3 Strength (4) takes 1; Twin Strike's two
    hits take 2."""
    g = act2()
    byrd, = only(g, "Byrd")
    set_strength(g, 3)
    to_hand(g, "Strike (Ironclad)")
    to_hand(g, "Twin Strike", gained=True)
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Strike (Ironclad)", name(g, byrd))
    assert counter(g, byrd, "life") == 5 - 1
    play(g, "Twin Strike", name(g, byrd))
    assert counter(g, byrd, "life") == 5 - 3
    ok(g)


def test_the_spheric_guardian_starts_with_10_block_and_keeps_it() -> None:
    """Barricade: it enters play with 10 Block and does not lose Block in the enemy turn; its track adds 5."""
    g = act2()
    sg, = only(g, "Spheric Guardian")
    assert counter(g, sg, "e_block") == 10
    to_hand(g, "Strike (Ironclad)")
    refresh_decision(g)
    play(g, "Strike (Ironclad)", name(g, sg))
    assert counter(g, sg, "e_block") == 10 - 1 and counter(g, sg, "life") == 5  # Strike: 1 damage, all blocked
    end_turn(g)
    ok(g)
    assert counter(g, sg, "e_block") == 9 + 5  # kept, then hit 2 + 5 Block


def test_snecko_confusion_sets_the_first_cards_cost_from_the_die() -> None:
    """Confusion: after the roll, the first card its row's player plays costs 2 (1-2), 1 (3-4) or 3 (5-6)."""
    g = act2()
    only(g, "Snecko")
    set_pc(g, "hp", 10)
    refresh_decision(g)
    end_turn(g)
    ok(g)
    die = int(g.state.counters[global_slot(g, "die_result")])
    want = 2 if die <= 2 else 1 if die <= 4 else 3
    assert pc(g, "snecko") == 1 and pc(g, "snecko_cost") == want
    assert f"Confusion: P1's first card this turn costs {want}" in g.log_lines()
    energy = pc(g, "energy")
    to_hand(g, "Defend (Ironclad)")
    refresh_decision(g)
    play(g, "Defend (Ironclad)")
    if g.decision is not None and "end_turn" not in g.decision.options[0]:  # "Who gains 2 Block?"
        g.apply(0, 0)
    assert pc(g, "energy") == energy - want and pc(g, "snecko") == 0


def test_the_centurion_guards_the_mystic_on_its_faces() -> None:
    g = act2()
    cent, mystic = only(g, "Centurion (guards on 4-6)", "Mystic 1")
    set_pc(g, "hp", 10)
    refresh_decision(g)
    set_die(g, 5)  # Centurion: 3 Block to the Mystic; Mystic 1: +1 Strength to every enemy
    end_turn(g)
    ok(g)
    assert counter(g, mystic, "e_block") == 3 and "Centurion (guards on 4-6) gives Mystic 1 3 Block" in g.log_lines()


def test_the_centurion_enters_fury_when_the_mystic_dies_and_only_attacks() -> None:
    """Fury: the Mystic's death gives the Centurion 1 Strength, and on a guarding face it attacks instead."""
    g = act2()
    cent, mystic = only(g, "Centurion (guards on 4-6)", "Mystic 1")
    setc(g, mystic, "life", 1)
    to_hand(g, "Strike (Ironclad)")
    set_pc(g, "hp", 10)
    refresh_decision(g)
    play(g, "Strike (Ironclad)", name(g, mystic))
    assert counter(g, cent, "e_str") == 1 and counter(g, cent, "furious") == 1
    set_die(g, 5)  # a guarding face: furious, it hits 3 + 1 Strength
    hp = pc(g, "hp")
    end_turn(g)
    ok(g)
    assert pc(g, "hp") == hp - 4


def test_the_mystic_heals_every_enemy_up_to_its_printed_hp() -> None:
    g = act2()
    cent, mystic = only(g, "Centurion (guards on 1-3)", "Mystic 1")
    setc(g, cent, "life", 10)
    setc(g, mystic, "life", 11)
    set_pc(g, "hp", 10)
    refresh_decision(g)
    set_die(g, 1)  # Mystic 1: every enemy heals 3; Centurion (guards on 1-3): 3 Block to the Mystic
    end_turn(g)
    ok(g)
    assert counter(g, cent, "life") == 13 and counter(g, mystic, "life") == 12


def test_the_snake_plant_hits_3_then_2() -> None:
    g = act2()
    only(g, "Snake Plant")
    set_pc(g, "hp", 10)
    refresh_decision(g)
    set_die(g, 1)
    end_turn(g)
    ok(g)
    assert pc(g, "hp") == 10 - 5


def test_the_chosen_opens_with_an_aoe_hit_and_a_daze_for_everyone() -> None:
    g = act2(players=2)
    only(g, "Chosen (with Byrd)", seat=1)
    for seat in (0, 1):
        g.state.counters[player_slot(g, "hp", seat)] = 8
    refresh_decision(g)
    choose(g, 0, "end_turn")
    choose(g, 1, "end_turn")
    ok(g)
    assert [int(g.state.counters[player_slot(g, "hp", s)]) for s in (0, 1)] == [7, 7]
    lines = g.log_lines()
    assert [lines.count(f"P{s} gets a Daze on top of the draw pile") for s in (1, 2)] == [1, 1]


def test_the_mugger_steals_two_gold_and_leaves() -> None:
    g = act2()
    mugger, = only(g, "Mugger")
    setc(g, mugger, "marker", 3)
    set_pc(g, "gold", 5)
    refresh_decision(g)
    end_turn(g)
    ok(g)
    assert pc(g, "gold") == 3 and "Mugger steals 2 gold from P1 and leaves" in g.log_lines()
    assert g.finished  # it was the only enemy: the combat is won


# ---------------------------------------------------------------- the Act II Elite deck


def test_the_elite_deck_holds_the_three_act_ii_elites() -> None:
    g = act2()
    names = {g.state.tables.card_names[c] for c in g.state.zones[zone_index(g, "elite_deck_2")]}
    names |= {g.state.tables.card_names[c] for c in foes(g) if g.state.tables.fields["foe"][c] == "elite"}
    assert names == set(ELITES) == {"Book of Stabbing", "Gremlin Leader", "Taskmaster"}
    hp = {n: g.state.tables.fields["hp"][card_ids(g, n)[0]] for n in ELITES}
    assert hp == {"Book of Stabbing": [30, 60, 90, 120], "Gremlin Leader": [30, 60, 90, 120],
                  "Taskmaster": [13, 28, 42, 56]}


def test_painful_stabs_dazes_only_a_player_who_took_unblocked_damage() -> None:
    """Book of Stabbing's first slot: AoE hit 1 twice. P1's 5 Block stops it (no Daze); P2 loses 2 HP and gains
    1 Daze. It then gains 1 Strength."""
    g = act2(players=2)
    book, = only(g, "Book of Stabbing", seat=1)
    for seat, block in ((0, 5), (1, 0)):
        g.state.counters[player_slot(g, "hp", seat)] = 8
        g.state.counters[player_slot(g, "block", seat)] = block
    refresh_decision(g)
    choose(g, 0, "end_turn")
    choose(g, 1, "end_turn")
    ok(g)
    assert [int(g.state.counters[player_slot(g, "hp", s)]) for s in (0, 1)] == [8, 6]
    lines = g.log_lines()
    assert "P1 gets a Daze on top of the draw pile" not in lines
    assert lines.count("P2 gets a Daze on top of the draw pile") == 1
    assert counter(g, book, "e_str") == 1


def test_the_gremlin_leader_rallies_then_brings_back_dead_gremlins() -> None:
    g = act2()
    leader, gremlin = only(g, "Gremlin Leader", "Fat Gremlin")
    set_pc(g, "hp", 10)
    refresh_decision(g)
    end_turn(g)  # slot 1: AoE hit 2, every enemy +1 Block and +1 Strength
    ok(g)
    assert [counter(g, e, "e_str") for e in (leader, gremlin)] == [1, 1]
    setc(g, gremlin, "life", 1)
    setc(g, gremlin, "e_block", 0)
    setc(g, leader, "marker", 2)  # next: every dead Gremlin comes back
    set_pc(g, "hp", 10)
    to_hand(g, "Strike (Ironclad)")
    refresh_decision(g)
    play(g, "Strike (Ironclad)", name(g, gremlin))
    assert g.state.card_zone[gremlin] == zone_index(g, "fallen")
    end_turn(g)
    ok(g)
    assert g.state.card_zone[gremlin] == zone_index(g, "foes") and counter(g, gremlin, "life") == 3
    assert "Fat Gremlin comes back (3 HP)" in g.log_lines()


def test_the_taskmaster_brings_a_blue_and_a_red_slaver_to_every_row() -> None:
    for seed in range(60):
        g = RULESET.new_game(3, seed, check_invariants=True, options={"mode": "act2_combat"})
        for seat in range(3):
            choose(g, seat, HEROES[seat])
        if any(ln.startswith("Taskmaster (") for ln in g.log_lines()):
            break
    else:  # pragma: no cover - one combat in four draws from the 3-card Elite deck
        raise AssertionError("no Taskmaster in 60 seeds")
    groups = g.state.tables.fields["group"]
    for seat in range(3):
        row = sorted(groups[c] for c in foes(g) if counter(g, c, "lane") == seat and groups[c])
        assert row == ["Blue Slaver", "Red Slaver"], (seat, row)
    assert counter(g, next(c for c in foes(g) if name(g, c) == "Taskmaster"), "lane") == 2  # the bottom row
    assert counter(g, next(c for c in foes(g) if name(g, c) == "Taskmaster"), "life") == 42


# ---------------------------------------------------------------- the Act II bosses


def boss_fight(g: Game, boss: str, *others: str) -> list[int]:
    """The Act II boss `boss` alone (with `others` in P1's row), as `only` sets them up; the boss in every row."""
    placed = only(g, boss, *others, seat=0)
    setc(g, placed[0], "lane", g.players - 1)
    return placed


def test_the_act_ii_bosses_and_their_hp() -> None:
    g = act2()
    f = g.state.tables.fields
    names = ("The Collector", "Bronze Automaton", "The Champ", "The Champ (Fury)")
    bosses = {n: f["hp"][card_ids(g, n)[0]] for n in names}
    assert bosses == {"The Collector": [57, 114, 171, 228], "Bronze Automaton": [55, 110, 165, 220],
                      "The Champ": [40, 80, 120, 160], "The Champ (Fury)": [40, 80, 120, 160]}
    assert all(f["foe"][card_ids(g, n)[0]] == "boss" for n in bosses)


def test_the_collector_summons_torch_heads_until_two_in_every_row() -> None:
    g = act2(players=2)
    collector, = boss_fight(g, "The Collector")
    for seat in (0, 1):
        g.state.counters[player_slot(g, "hp", seat)] = 8
    refresh_decision(g)
    choose(g, 0, "end_turn")
    choose(g, 1, "end_turn")
    ok(g)
    rows = [sum(1 for c in foes(g) if name(g, c) == "Torch Head" and counter(g, c, "lane") == s) for s in (0, 1)]
    assert rows == [2, 2] and counter(g, collector, "marker") == 1


def test_the_collectors_grey_slot_fires_once_then_the_track_skips_it() -> None:
    """§14.1: grey slots are one-time. The Collector's last slot (AoE 2 Weak, 2 Slimed, 2 Burns) fires once; the
    next time round the track goes from 'hit 5' straight back to the top."""
    g = act2()
    collector, = boss_fight(g, "The Collector")
    setc(g, collector, "marker", 3)
    set_pc(g, "hp", 10)
    refresh_decision(g)
    end_turn(g)
    ok(g)
    assert pc(g, "weak") == 2 and counter(g, collector, "marker") == 0 and counter(g, collector, "once_done") == 1
    setc(g, collector, "marker", 2)
    set_pc(g, "hp", 10)
    set_pc(g, "block", 0)
    refresh_decision(g)
    end_turn(g)
    ok(g)
    assert pc(g, "hp") == 10 - 5 and counter(g, collector, "marker") == 0


def test_bronze_orbs_come_with_the_automaton_and_shield_it() -> None:
    for seed in range(60):
        g = act2(players=2, seed=seed)
        if any(ln.startswith("the boss Bronze Automaton") for ln in g.log_lines()):
            break
    else:  # pragma: no cover - one combat in four is the boss, picked by the die
        raise AssertionError("no Bronze Automaton fight in 60 seeds")
    groups = g.state.tables.fields["group"]
    assert sorted(counter(g, c, "lane") for c in foes(g) if groups[c] == "Bronze Orb") == [0, 1]
    g = act2()
    automaton, orb = boss_fight(g, "Bronze Automaton", "Bronze Orb 1")
    set_pc(g, "hp", 10)
    refresh_decision(g)
    set_die(g, 5)  # Bronze Orb 1: 3 Block to the Automaton; the Automaton (first slot): +1 Strength
    end_turn(g)
    ok(g)
    assert counter(g, automaton, "e_block") == 3 and counter(g, automaton, "e_str") == 1


def test_the_champ_rises_again_in_its_fury_form() -> None:
    """Rebirth: the first defeat puts The Champ (Fury) in play at its printed HP; the combat goes on. The Fury form
    first sheds its Weak and Vulnerable (a grey slot), then hits 4 twice; beating it wins the combat."""
    g = act2()
    champ, = boss_fight(g, "The Champ")
    setc(g, champ, "life", 1)
    to_hand(g, "Strike (Ironclad)")
    set_pc(g, "hp", 10)
    refresh_decision(g)
    play(g, "Strike (Ironclad)", name(g, champ))
    ok(g)
    fury = next(c for c in foes(g) if name(g, c) == "The Champ (Fury)")
    assert not g.finished and counter(g, fury, "life") == 40
    assert "The Champ rises again as The Champ (Fury) (40 HP)" in g.log_lines()
    setc(g, fury, "e_weak", 2)
    end_turn(g)
    ok(g)
    assert counter(g, fury, "e_weak") == 0 and counter(g, fury, "marker") == 1
    setc(g, fury, "life", 1)
    setc(g, fury, "e_block", 0)
    to_hand(g, "Strike (Ironclad)")
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Strike (Ironclad)", name(g, fury))
    ok(g)
    assert g.finished and "the boss is beaten: the party wins the combat" in g.log_lines()
