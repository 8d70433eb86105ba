"""Slay the Spire, the Act II and Act III Event decks (issue 31 item 1; cards/slay_the_spire/act2/events.yaml and
act3_events/events.yaml, S1's transcription of the companion app's texts, provisional). Each scenario is a
one-player run at its first combat, moved to Act II or III (`current_act`) with the event wanted on top of that
Act's Event deck, then walked into floor 1's event room the way tests/test_slay_the_spire_faq.py's `enter_event`
does for Act I.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, choose, global_slot, refresh_decision, zone_index
from tests.sts_setup import pc, set_pc
from tests.test_slay_the_spire_faq import only_enemy, owned_ids, play, run_start

EVENTS = Path(__file__).resolve().parents[1] / "cards" / "slay_the_spire" / "act2" / "events.yaml"


def deck_2(g: Game) -> list[str]:
    return [g.state.tables.card_names[c] for c in g.state.zones[zone_index(g, "event_deck_2")]]


def enter_act2_event(g: Game, event: str, act: int = 2) -> None:
    s = g.state
    s.counters[global_slot(g, "map_side")] = 1
    s.counters[global_slot(g, "current_act")] = act
    _move(g, card_ids(g, event)[0], zone_index(g, f"event_deck_{act}"), "top")
    e = only_enemy(g, life=1)
    own = next(c for c in card_ids(g, "Strike (Ironclad)") if c in owned_ids(g, 0))
    _move(g, own, zone_index(g, "hand", 0))
    refresh_decision(g)
    play(g, "Strike (Ironclad)", g.state.tables.card_names[e])
    room = "Side 1 floor 1 room 1"
    for _ in range(50):  # the card reward (pass), maybe other questions, then the map
        d = g.decision
        assert d is not None, g.error
        opts = d.options[d.players[0]]
        if room in opts:
            break
        g.apply(opts.index("pass") if "pass" in opts else 0, d.players[0])
    choose(g, 0, room)
    assert f"event: {event}" in g.log_lines()


LATE = EVENTS.parents[1] / "climb_events"  # A Note for Yourself and Secret Portal, loaded last


def test_the_act_ii_event_deck_holds_its_fourteen_cards() -> None:
    """S1's 14 Ascension-0 Act II events: 13 in act2/, A Note for Yourself in climb_events/."""
    g = run_start()
    names = sorted(c["name"] for f in (EVENTS, LATE / "act2.yaml") for c in yaml.safe_load(f.read_text())["cards"])
    assert sorted(deck_2(g)) == names and len(names) == 14


def test_golden_shrine_desecrated_gives_7_gold_and_a_curse() -> None:
    g = run_start()
    enter_act2_event(g, "Golden Shrine (Act II)")
    gold = pc(g, "gold")
    choose(g, 0, "desecrate")
    assert pc(g, "gold") == gold + 7 and any("gains the curse" in ln for ln in g.log_lines())
    assert "Golden Shrine (Act II)" in deck_2(g) and not g.violations()


def test_knowing_skull_two_questions_cost_2_hp() -> None:
    g = run_start()
    enter_act2_event(g, "Knowing Skull")
    set_pc(g, "hp", 9)
    gold = pc(g, "gold")
    choose(g, 0, "riches")
    choose(g, 0, "pick_me_up")
    assert pc(g, "gold") == gold + 3 and pc(g, "hp") == 9 - 2 and not g.violations()


def test_the_colosseums_main_event_is_an_act_ii_elite_fight() -> None:
    g = run_start()
    enter_act2_event(g, "Colosseum")
    choose(g, 0, "main_event")
    d = g.decision
    assert d is not None and "end_turn" in d.options[0]
    elites = [c for c in g.state.zones[zone_index(g, "foes")] if g.state.tables.fields["foe"][c] == "elite"]
    assert elites and all(g.state.tables.fields["act_no"][c] == 2 for c in elites) and not g.violations()


def test_the_old_beggar_removes_a_card_for_2_gold() -> None:
    g = run_start()
    set_pc(g, "gold", 5)
    enter_act2_event(g, "Old Beggar")
    gold = pc(g, "gold")
    owned = pc(g, "owned")
    choose(g, 0, "give")
    choose(g, 0, "Defend (Ironclad)")
    assert pc(g, "gold") == gold - 2 and pc(g, "owned") == owned - 1 and not g.violations()


EVENTS_3 = EVENTS.parents[1] / "act3_events" / "events.yaml"


def test_the_act_iii_event_deck_holds_its_eleven_cards() -> None:
    """S1's 11 Ascension-0 Act III events: 9 in act3_events/, A Note for Yourself and Secret Portal in climb_events/."""
    g = run_start()
    names = sorted(c["name"] for f in (EVENTS_3, LATE / "act3.yaml") for c in yaml.safe_load(f.read_text())["cards"])
    deck = sorted(g.state.tables.card_names[c] for c in g.state.zones[zone_index(g, "event_deck_3")])
    assert deck == names and len(names) == 11


def test_mind_bloom_is_one_choice_for_the_party_and_awake_upgrades_two_cards() -> None:
    g = run_start()
    enter_act2_event(g, "Mind Bloom", act=3)
    set_pc(g, "hp", 9)
    choose(g, 0, "awake")
    choose(g, 0, "Bash")
    choose(g, 0, "Defend (Ironclad)")
    log = g.log_lines()
    after = log[log.index("event: Mind Bloom"):]
    assert pc(g, "hp") == 9 - 3 and sum(1 for ln in after if ln.startswith("P1 upgrades ")) == 2
    assert not g.violations()


def test_falling_removes_one_of_three_cards_revealed() -> None:
    g = run_start()
    enter_act2_event(g, "Falling", act=3)
    d = g.decision
    assert d is not None and len(d.options[0]) == 3
    owned = pc(g, "owned")
    g.apply(0, 0)
    assert pc(g, "owned") == owned - 1 and not g.violations()


def test_the_moai_head_pays_a_relics_price() -> None:
    g = run_start()
    enter_act2_event(g, "The Moai Head", act=3)
    _move(g, card_ids(g, "Anchor")[0], zone_index(g, "relics", 0))
    refresh_decision(g)
    gold = pc(g, "gold")
    choose(g, 0, "relic_for_gold")
    choose(g, 0, "Anchor")
    assert pc(g, "gold") == gold + 6 and not g.violations()  # Anchor's price (card_data.md 2.5)
