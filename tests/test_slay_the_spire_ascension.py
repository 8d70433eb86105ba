"""Slay the Spire, Ascension (issue 31 item 3; spec §25.2): `--option ascension=N`, each level applying its own
modifier and every lower level's, on the real ruleset. Positions are built as in tests/test_slay_the_spire_faq.py:
a game at its first decision, edited to the situation the level's rule speaks of.
"""

from __future__ import annotations

import random

from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, choose, global_slot, refresh_decision, zone_index
from tests.sts_setup import RULESET, counter, name, pc, set_pc, setc
from tests.test_slay_the_spire_act2 import only
from tests.test_slay_the_spire_faq import cards_in, foes

A0_ELITES = {"elite_deck": ["Gremlin Nob", "Lagavulin", "Sentries"],
             "elite_deck_2": ["Book of Stabbing", "Gremlin Leader", "Taskmaster"],
             "elite_deck_3": ["Giant Head", "Nemesis", "Reptomancer"]}
REPLACED_AT_A7 = ["Jaw Worm", "Large Slime", "Looter"]
REPLACED_AT_A7_LATER = {"encounter_deck_2": ["Shelled Parasite", "Snake Plant", "Spheric Guardian"],
                        "encounter_deck_3": ["Exploder", "Repulsor", "The Maw"]}


def start(ascension: int, mode: str = "combat", hero: str = "Ironclad", seed: int = 3) -> Game:
    g = RULESET.new_game(1, seed, check_invariants=True, options={"mode": mode, "ascension": str(ascension)})
    choose(g, 0, hero)
    return g


def deck(g: Game, zone: str) -> list[str]:
    return sorted(name(g, c) for c in g.state.zones[zone_index(g, zone)])


def test_ascension_0_keeps_the_a0_decks_and_the_ascension_set_in_the_box() -> None:
    g = start(0)
    for zone, elites in A0_ELITES.items():
        assert deck(g, zone) == elites
    box = deck(g, "asc_box")
    assert [n for n in box if n.endswith("(A1)")] == sorted(f"{e} (A1)" for es in A0_ELITES.values() for e in es)
    assert [n for n in box if n.endswith("(A12)")] == sorted(f"{e} (A12)" for es in A0_ELITES.values() for e in es)
    assert sorted(n for n in box if n.endswith("(A7)")) == sorted(
        f"{n} (A7)" for n in REPLACED_AT_A7 + [m for ms in REPLACED_AT_A7_LATER.values() for m in ms])
    assert "Ascender's Bane" not in cards_in(g, "draw") + cards_in(g, "hand") and pc(g, "max_hp") == 10


def test_ascension_1_replaces_every_acts_elites_with_the_a1_cards_only() -> None:
    g = start(1)
    for zone, elites in A0_ELITES.items():
        assert deck(g, zone) == [f"{e} (A1)" for e in elites]
    act1 = deck(g, "encounter_deck") + [name(g, c) for c in foes(g) if name(g, c) in REPLACED_AT_A7]
    assert all(n in act1 for n in REPLACED_AT_A7)  # the encounters wait for Ascension 7
    hp = g.state.tables.fields["hp"]
    assert hp[card_ids(g, "Gremlin Nob (A1)")[0]] == [17, 35, 53, 70]
    assert hp[card_ids(g, "Reptomancer (A1)")[0]] == [40, 80, 120, 160]


def test_ascension_7_swaps_the_act_i_encounters_and_keeps_the_lower_levels() -> None:
    g = start(7)
    foe = g.state.tables.fields["foe"]
    act1 = deck(g, "encounter_deck") + [name(g, c) for c in foes(g) if foe[c] == "encounter"]
    assert len(act1) == 12  # one for one
    assert not any(n in act1 for n in REPLACED_AT_A7) and all(f"{n} (A7)" in act1 for n in REPLACED_AT_A7)
    for zone, names in REPLACED_AT_A7_LATER.items():  # Acts II and III: the same swap, deck size unchanged
        assert len(deck(g, zone)) == (12 if zone == "encounter_deck_2" else 10)
        assert not any(n in deck(g, zone) for n in names) and all(f"{n} (A7)" in deck(g, zone) for n in names)
    assert deck(g, "elite_deck") == [f"{e} (A1)" for e in A0_ELITES["elite_deck"]]  # A1 still applies
    assert pc(g, "max_hp") == 9  # A2 still applies


def test_ascension_2_5_and_9_max_hp_ascenders_bane_and_a_damaged_start() -> None:
    """A2: max HP 1 lower. A5: Ascender's Bane (unplayable, ethereal) in the starter deck. A9: 1 HP down."""
    hps = {}
    for level in (1, 2, 4, 5, 9):
        g = start(level)
        owned = cards_in(g, "draw") + cards_in(g, "hand") + cards_in(g, "discard")
        hps[level] = (pc(g, "max_hp"), pc(g, "hp"), owned.count("Ascender's Bane"))
        assert not g.violations()
    assert hps == {1: (10, 10, 0), 2: (9, 9, 0), 4: (9, 9, 0), 5: (9, 9, 1), 9: (9, 8, 1)}


def test_ascension_4_holds_two_potions() -> None:
    """A4: a third potion is refused: Entropic Brew (gain 2) drunk with one potion held asks which to discard."""
    for level, kept in ((3, 3), (4, 2)):
        g = start(level)
        for p in list(g.state.zones[zone_index(g, "potions", 0)]):
            _move(g, p, zone_index(g, "potion_deck"))
        for potion in ("Entropic Brew", "Block Potion"):
            _move(g, card_ids(g, potion)[0], zone_index(g, "potions", 0))
        refresh_decision(g)
        choose(g, 0, "use_potion")
        choose(g, 0, "Entropic Brew")
        discard_asked = False
        while (d := g.decision) is not None and "end_turn" not in d.options[0]:
            discard_asked = discard_asked or "Block Potion" in d.options[0] and "pass" not in d.options[0]
            g.apply(d.options[0].index("pass") if "pass" in d.options[0] else 0, 0)
        assert len(g.state.zones[zone_index(g, "potions", 0)]) == kept and discard_asked == (level == 4)
        assert not g.violations()


def test_ascension_6_heals_4_hp_at_the_start_of_act_ii() -> None:
    """A6: at the change of Act each character heals 4 HP instead of fully (§4.1 C)."""
    g = RULESET.new_game(1, 3, check_invariants=True, options={"ascension": "6"})
    choose(g, 0, "Ironclad")
    while g.decision is not None and "end_turn" not in g.decision.options[0]:
        g.apply(0, 0)  # Neow's Blessing and the pause before the 1st Encounter: the first option
    boss, = g.state.zones[zone_index(g, "boss_card")]
    _move(g, boss, zone_index(g, "foes"))
    for e in foes(g):
        setc(g, e, "life", 0)
    set_pc(g, "hp", 2)
    refresh_decision(g)
    choose(g, 0, "end_turn")
    while "Act II begins" not in g.log_lines(None):
        d = g.decision
        assert d is not None, g.error
        g.apply(d.options[0].index("pass") if "pass" in d.options[0] else 0, 0)
    burning_blood = 1  # the Ironclad's relic heals 1 at the end of the combat
    assert pc(g, "hp") == 2 + burning_blood + 4 and pc(g, "max_hp") == 9
    assert int(g.state.counters[global_slot(g, "current_act")]) == 2 and not g.violations()


def test_ascension_8_card_removal_costs_4_gold() -> None:
    """A8: the merchant's removal costs 4 gold. The first map room is made a merchant for this game (the room's
    printed kind is put back afterwards: card tables are shared by the games of a ruleset)."""
    for level, price in ((7, 3), (8, 4)):
        g = RULESET.new_game(1, 3, check_invariants=True, options={"ascension": str(level)})
        choose(g, 0, "Ironclad")
        while g.decision is not None and "end_turn" not in g.decision.options[0]:
            g.apply(0, 0)
        s = g.state
        s.counters[global_slot(g, "map_side")] = 1
        room = card_ids(g, "Side 1 floor 1 room 1")[0]
        kinds = s.tables.fields["room"]
        printed = kinds[room]
        kinds[room] = "merchant"
        try:
            for e in foes(g):
                setc(g, e, "life", 0)
            set_pc(g, "gold", 10)
            refresh_decision(g)
            choose(g, 0, "end_turn")
            while (d := g.decision) is not None and "Defend (Ironclad)" not in d.options[0]:
                opts = d.options[0]
                g.apply(opts.index("Side 1 floor 1 room 1") if "Side 1 floor 1 room 1" in opts
                        else opts.index("pass") if "pass" in opts else 0, 0)
            gold = pc(g, "gold")
            choose(g, 0, "Defend (Ironclad)")
            assert pc(g, "gold") == gold - price and not g.violations()
        finally:
            kinds[room] = printed


def test_the_a1_gremlin_nob_gains_strength_with_its_aoe() -> None:
    """Gremlin Nob (A1): idle once, then AoE hit 3 and +1 Strength (the A0 card's repeat has no Strength)."""
    g = RULESET.new_game(1, 3, check_invariants=True, options={"mode": "act2_combat", "ascension": "1"})
    choose(g, 0, "Ironclad")
    nob, = only(g, "Gremlin Nob (A1)")
    setc(g, nob, "marker", 1)
    set_pc(g, "hp", 10)
    set_pc(g, "block", 0)
    refresh_decision(g)
    choose(g, 0, "end_turn")
    assert pc(g, "hp") == 10 - 3 and counter(g, nob, "e_str") == 1 and not g.violations()


def test_ascension_13_brings_a_second_act_iii_boss() -> None:
    """A13: beating the Act III boss brings another random Act III boss (not the one fought); beating that one wins
    the run. The position: a run's first combat moved to Act III, with Time Eater fought and at 0 HP."""
    for level in (12, 13):
        g = RULESET.new_game(1, 3, check_invariants=True, options={"ascension": str(level)})
        choose(g, 0, "Ironclad")
        while g.decision is not None and "end_turn" not in g.decision.options[0]:
            g.apply(0, 0)
        g.state.counters[global_slot(g, "current_act")] = 3
        act1_boss, = g.state.zones[zone_index(g, "boss_card")]  # (in a real climb the Act III boss left it)
        _move(g, act1_boss, zone_index(g, "boss_deck"))
        eater = card_ids(g, "Time Eater")[0]
        _move(g, eater, zone_index(g, "foes"))
        setc(g, eater, "fought", 1)
        for e in foes(g):
            setc(g, e, "life", 0)
        refresh_decision(g)
        choose(g, 0, "end_turn")
        log = g.log_lines(None)
        if level == 12:
            assert g.finished and "the boss is beaten: the party wins the run" in log
            continue
        assert not g.finished and "Ascension 13: another Act III boss comes" in log
        second = [ln for ln in log if ln.startswith("the boss ") and "is in every row" in ln]
        assert second and not second[-1].startswith("the boss Time Eater")
        for e in foes(g):
            setc(g, e, "life", 0)
        refresh_decision(g)
        choose(g, 0, "end_turn")
        assert g.finished and g.result is not None and g.result["scores"] == [1] and not g.violations()


def test_ascension_12_replaces_the_a1_elites_with_the_a12_cards() -> None:
    for level, face in ((11, "A1"), (12, "A12"), (20, "A12")):
        g = start(level)
        for zone, elites in A0_ELITES.items():
            assert deck(g, zone) == [f"{e} ({face})" for e in elites], (level, zone)
    hp = g.state.tables.fields["hp"]
    assert hp[card_ids(g, "Nemesis (A12)")[0]] == [36, 74, 116, 162]
    assert hp[card_ids(g, "Lagavulin (A12)")[0]] == [24, 49, 76, 105]


def test_every_ascension_elite_and_encounter_plays_to_the_end_of_its_combat() -> None:
    """Each A1, A12 and A7 card alone in P1's row of a combat, played out at random under the invariants: every
    printed slot or face it reaches runs without an error."""
    names = [f"{e} ({face})" for es in A0_ELITES.values() for e in es for face in ("A1", "A12")]
    names += [f"{n} (A7)" for n in REPLACED_AT_A7 + [m for ms in REPLACED_AT_A7_LATER.values() for m in ms]]
    for i, enemy in enumerate(names):
        g = start(0, seed=i)
        only(g, enemy)
        set_pc(g, "max_hp", 20)
        set_pc(g, "hp", 20)
        refresh_decision(g)
        g.random_playout(random.Random(i))
        assert g.finished and g.error is None and not g.violations(), enemy
