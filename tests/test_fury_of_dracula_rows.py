"""Fury of Dracula: audit rows (docs/fury_of_dracula.md, "Audit against the rulebook") that were marked *code* —
read in the ruleset, exercised by simulations, with no scenario of their own — now each played from a built
position (tests/fod_helpers.py drives a real game by option label); and the encounter rules session 13's walk
found and fixed (the Hunter chooses what he discards)."""

from __future__ import annotations

import random

import pytest
from conftest import ROOT
from fod_helpers import (
    GODALMING,
    MINA,
    SEWARD,
    VAN_HELSING,
    answer,
    at_prompt,
    card_value,
    edited,
    give,
    held,
    into_reserve,
    play,
    policy,
    prompt,
    to_allies,
    value,
    zone_names,
)
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.engine.infosets import Knowledge
from liturgy.interpreter.runtime.moves import move_card
from liturgy.interpreter.tools import noninterference as ni
from scenario import card_ids, zone_index
from test_fury_of_dracula_reactions import meet

RULES = ROOT / "rulesets" / "fury_of_dracula.rules"
FAR = {GODALMING: "paris", SEWARD: "dublin", VAN_HELSING: "lisbon", MINA: "cadiz"}


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load_ruleset(str(RULES))


def test_dracula_entering_a_sea_where_a_hunter_sails_stays_hidden_and_does_not_attack(rules) -> None:  # type: ignore[no-untyped-def]
    """A card Dracula plays where a Hunter stands goes face up and he attacks — not at sea [L163, L177]: Seward
    sails from Dublin into the Irish Sea, and Dracula, who began in Liverpool, moves into the same sea. His card
    lies face down (the Hunters see only its sea back), no combat starts, and the game goes on."""
    g = rules.new_game(2, seed=3, check_invariants=True)
    pol = policy(["Liverpool", "Irish Sea"], FAR, {f"Where does {SEWARD} go from Dublin?": "irish_sea"})
    play(g, pol, lambda g: zone_names(g, "trail", 0)[-1:] == ["Irish Sea"])
    assert g.view(1)["counters"]["at"][SEWARD] == "irish_sea"
    assert g.view(1)["zones"]["trail"]["P1"] == ["? (back: land)", "? (back: sea)"]  # both face down to him
    lines = g.log_lines(1)
    assert "Dracula embarks and pays 1 Blood" in lines and "Dracula moves" in lines
    assert not any("attacks" in line or "combat" in line for line in lines)
    assert not g.finished


def test_an_item_is_never_dracula_s(rules) -> None:  # type: ignore[no-untyped-def]
    """Items belong to the Hunters [L54]. Dracula's hand, Catacombs, reserve and used Powers hold one kind of card
    each (the checker refuses an Item there); his deck and Trail take any card, and the invariant that counts his
    70 Location cards and 5 Powers there catches an Item among them by name."""
    g = rules.new_game(2, seed=3, check_invariants=True)
    give(g, SEWARD, "Knife")
    assert g.violations() == []
    knife = next(c for c in card_ids(g, "Knife") if g.state.card_zone[c] == zone_index(g, "hitems"))
    move_card(g.state, knife, zone_index(g, "deck", 0), "")
    assert [name for name, _ in g.violations()] == ["70 Location cards and 5 Powers with Dracula"]
    zones = g.ruleset.program.zones
    assert [zones[z].of_kind for z in ("devents", "catacombs", "reserve", "used_powers")] == [
        "Event", "Location", "Encounter", "Power"]



# ---------------------------------------------------------------- encounters: the Hunter chooses what he discards


def test_lightning_lets_the_hunter_choose_the_item_he_discards(rules) -> None:  # type: ignore[no-untyped-def]
    """Lightning: each Hunter loses 2 Health and discards 1 Item; the holder chooses which [L202]. (The ruleset
    discarded the first Item he held, without asking.)"""
    g = meet(rules, ["Knife", "Pistol"], tile="Lightning")
    assert prompt(g)[1:] == (f"{GODALMING} must discard an Item: which?", ["Knife", "Pistol"])
    answer(g, "Pistol")
    assert held(g, "hitems", GODALMING) == ["Knife"] and "Pistol" in zone_names(g, "item_discard")
    assert card_value(g, GODALMING, "hp") == 10
    assert f"{GODALMING} loses Pistol" in g.log_lines(0)  # the discard lies face up: Dracula reads it too


def test_the_saboteur_lets_the_hunter_choose_an_item_or_an_event(rules) -> None:  # type: ignore[no-untyped-def]
    """Saboteur: each Hunter discards 1 Item or 1 Event card, his choice. (The ruleset always took an Item when
    he had one.)"""
    g = meet(rules, ["Knife", "Long Day"], tile="Saboteur")
    play(g, lambda p, text, labels: "play none" if "play none" in labels else None,
         lambda g: "Saboteur" in prompt(g)[1] and "discard" in prompt(g)[1])
    assert prompt(g)[1:] == (f"Saboteur: does {GODALMING} discard an Item or an Event?", ["an Item", "an Event"])
    answer(g, "an Event")
    assert prompt(g)[1:] == (f"{GODALMING} must discard an Event: which?", ["Long Day"])
    answer(g, "Long Day")
    assert held(g, "hevents", GODALMING) == [] and held(g, "hitems", GODALMING) == ["Knife"]


def test_the_rats_roll_is_told_to_everyone(rules) -> None:  # type: ignore[no-untyped-def]
    """Rats: each Hunter rolls a die and loses that much Health; the roll is said in the log, so the players see
    why he lost it. (Only 'meets Rats' was logged.)"""
    g = meet(rules, [], tile="Rats")
    lost = 12 - card_value(g, GODALMING, "hp")
    assert 1 <= lost <= 6
    for p in (0, 1):
        assert f"the rats bite {GODALMING}: he rolls {lost} and loses as much Health" in g.log_lines(p)


def test_dracula_moves_only_to_a_place_whose_card_is_in_his_deck_but_may_double_back(rules) -> None:  # type: ignore[no-untyped-def]
    """Dracula may move only to a place whose Location card he holds [L174]: at Varna, with Constanta's card on
    his Trail, Constanta is not offered, though a road leads there; Double Back takes him to it."""
    g = rules.new_game(2, seed=3, check_invariants=True)
    play(g, policy(["Bucharest", "Constanta", "Varna"], FAR),
         lambda g: prompt(g)[1] == "Where does Dracula go?" and zone_names(g, "trail", 0)[-1:] == ["Varna"])
    assert zone_names(g, "trail", 0) == ["Bucharest", "Constanta", "Varna"]
    labels = prompt(g)[2]
    assert "Constanta" not in labels and {"Sofia", "Black Sea", "Double Back"} <= set(labels)
    answer(g, "Double Back")
    assert prompt(g)[1:] == ("Double back to?", ["Constanta"])


def test_a_hoax_in_the_east_lets_the_hunter_choose_the_event_he_discards(rules) -> None:  # type: ignore[no-untyped-def]
    """Hoax: in Eastern Europe the Hunter discards one of his Events, his choice [L202]. Godalming waits in Galatz
    while Dracula lays the Hoax on Constanta, then walks in holding Long Day and Forewarned and keeps Long Day.
    (The ruleset discarded the first Event he held.)"""
    g = rules.new_game(2, seed=4, check_invariants=True)
    into_reserve(g, "Hoax")
    pol = policy(["Bucharest", "Constanta", "Varna"], {**FAR, GODALMING: "galatz"},
                 {"Which encounter goes on Constanta?": "Hoax"})
    play(g, pol, lambda g: prompt(g)[1] == "Where does Dracula go?" and "Constanta" in zone_names(g, "trail", 0))
    give(g, GODALMING, "Long Day")
    give(g, GODALMING, "Forewarned")
    edited(g)
    play(g, pol, lambda g: prompt(g)[1] == f"Where does {GODALMING} go from Galatz?"
         and len(zone_names(g, "trail", 0)) == 3)
    answer(g, "constanta")
    play(g, pol, lambda g: "discard" in prompt(g)[1])
    assert prompt(g)[1:] == (f"{GODALMING} must discard an Event: which?", ["Long Day", "Forewarned"])
    answer(g, "Forewarned")
    assert held(g, "hevents", GODALMING) == ["Long Day"] and "Forewarned" in zone_names(g, "event_discard")


# ---------------------------------------------------------------- Trade: a free exchange of Items [L205]


def _in_paris(rules, players: int, items: dict[str, list[str]]) -> Game:  # type: ignore[no-untyped-def]
    """Godalming and Seward in Paris, Godalming about to act, each holding ``items``."""
    g: Game = rules.new_game(players, seed=5, check_invariants=True)
    play(g, policy(["Bucharest", "Constanta", "Varna"], {**FAR, SEWARD: "paris"}),
         lambda g: prompt(g)[1] == f"What does {GODALMING} do in Paris?")
    for who, cards in items.items():
        for c in cards:
            give(g, who, c)
    edited(g)
    answer(g, "trade")
    return g


def test_a_trade_exchanges_items_both_ways_within_the_limits(rules) -> None:  # type: ignore[no-untyped-def]
    """Hunters in one city exchange Items as they see fit, so long as nobody goes over his Item limit [L205]:
    Godalming gives his Pistol and takes Seward's Knife in one Trade. (The Hunter who traded could only take one
    Item.) Dracula reads only that an Item changed hands, and between whom."""
    g = _in_paris(rules, 2, {GODALMING: ["Pistol"], SEWARD: ["Knife"]})
    assert prompt(g)[1:] == ("Trade in Paris: who hands over an Item?", [GODALMING, SEWARD, "done trading"])
    for giver, item, taker in ((GODALMING, "Pistol", SEWARD), (SEWARD, "Knife", GODALMING)):
        answer(g, giver)
        answer(g, item)
        answer(g, taker)
    assert held(g, "hitems", GODALMING) == ["Knife"] and held(g, "hitems", SEWARD) == ["Pistol"]
    assert f"{GODALMING} hands Pistol to {SEWARD}" in g.log_lines(1)
    assert f"{GODALMING} hands an Item to {SEWARD}" in g.log_lines(0)
    assert not any("Pistol" in line or "Knife" in line for line in g.log_lines(0))


def test_a_trade_gives_nothing_to_a_hunter_at_his_limit(rules) -> None:  # type: ignore[no-untyped-def]
    """Godalming holds 3 Items, his limit: Seward's Knife has nobody to go to, and Seward is not offered as a
    giver; Godalming may still give, and then take the Knife in the same Trade."""
    g = _in_paris(rules, 2, {GODALMING: ["Pistol", "Rifle", "Crucifix"], SEWARD: ["Knife"]})
    assert prompt(g)[2] == [GODALMING, "done trading"]
    answer(g, GODALMING)
    answer(g, "Rifle")
    assert prompt(g)[1:] == ("Who takes Rifle?", [SEWARD])
    answer(g, SEWARD)
    assert prompt(g)[2] == [GODALMING, SEWARD, "done trading"]  # Godalming has room again for the Knife
    answer(g, SEWARD)
    assert prompt(g)[2] == ["Knife"]  # the Rifle has changed hands once this Trade: not again
    answer(g, "Knife")
    answer(g, GODALMING)
    assert sorted(held(g, "hitems", GODALMING)) == ["Crucifix", "Knife", "Pistol"]
    assert held(g, "hitems", SEWARD) == ["Rifle"]


def test_another_players_hunter_hands_over_an_item_only_if_that_player_agrees(rules) -> None:  # type: ignore[no-untyped-def]
    """With 3 players Godalming (P2) and Seward (P3) belong to different players: Seward's player is asked, and a
    refusal keeps the Item where it is and ends the Trade."""
    g = _in_paris(rules, 3, {SEWARD: ["Knife"]})
    answer(g, SEWARD)
    answer(g, "Knife")
    answer(g, GODALMING)
    p, text, labels = prompt(g)
    assert (p, text, labels) == (2, f"Does {SEWARD} hand Knife to {GODALMING}?", ["yes", "no"])
    answer(g, "no")
    assert held(g, "hitems", SEWARD) == ["Knife"] and held(g, "hitems", GODALMING) == []
    assert f"{SEWARD} keeps his Item" in g.log_lines(0)


# ---------------------------------------------------------------- an Item that wards off an effect is shown


def test_a_crucifix_that_spares_the_group_from_lightning_is_shown_to_dracula(rules) -> None:  # type: ignore[no-untyped-def]
    """Lightning spares a group that shows a Crucifix or Heavenly Host: the card is turned up to Dracula and
    named. (Nothing was logged: Dracula saw the group spared, learning what it held without the card shown.)"""
    g = meet(rules, ["Knife", "Crucifix"], tile="Lightning")
    assert card_value(g, GODALMING, "hp") == 12
    assert f"{GODALMING} shows Crucifix: the lightning spares the group" in g.log_lines(0)


def test_the_weapons_that_keep_the_wolves_off_are_shown(rules) -> None:  # type: ignore[no-untyped-def]
    """Wolves: 1 Health less for a Pistol in the group, 1 less for a Rifle; each is shown and named."""
    g = meet(rules, ["Pistol"], tile="Wolves")
    assert card_value(g, GODALMING, "hp") == 11
    assert f"{GODALMING} shows Pistol to the wolves" in g.log_lines(0)
    assert not any("Rifle" in line for line in g.log_lines(0))


def test_the_world_probe_finds_no_leak_when_quincey_meets_a_crucifix(rules) -> None:  # type: ignore[no-untyped-def]
    """`liturgy fuzz --examples 2 --seed 5` (session 13): in a world drawn from Dracula's information set another
    Hunter held the Crucifix, and Quincey's hunt read "strikes Seward" in one world and "Seward shows a holy item"
    in the other, no card shown: the rules told Dracula what Seward held without turning it up. Now the card is
    shown, which ends the comparison. (The edited position does not replay, so the world is drawn with no record
    of what Dracula saw: wider than his information set, never narrower.)"""
    g = rules.new_game(2, seed=5, check_invariants=True)
    pol = policy(["Bucharest", "Constanta", "Varna"], FAR)
    play(g, pol, lambda g: prompt(g)[1] == "Where does Dracula go?" and value(g, "started"))
    to_allies(g, "Quincey P. Morris")
    give(g, SEWARD, "Crucifix")
    give(g, GODALMING, "Knife")
    give(g, MINA, "Pistol")
    edited(g)
    play(g, pol, at_prompt("Quincey P. Morris: which Hunter does he hunt?"))
    found = [ni.check_world(g, 0, Knowledge(0, []), random.Random(k)) for k in range(20)]
    assert found == [None] * 20
