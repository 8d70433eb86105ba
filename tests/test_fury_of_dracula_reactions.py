"""Fury of Dracula (rulesets/fury_of_dracula.rules): the Resolve abilities, the Hunters' Items used outside combat
and the events played as an encounter is met, each played in a real game and checked by its effect.

Sources and provisional readings are listed in docs/fury_of_dracula.md ("The ruleset")."""

from __future__ import annotations

import pytest
import yaml
from conftest import ROOT
from fod_helpers import (
    GODALMING,
    SEWARD,
    answer,
    at_prompt,
    card_value,
    edited,
    give,
    held,
    into_reserve,
    place_of,
    play,
    policy,
    prompt,
    set_card,
    set_value,
    to_discard,
    value,
    zone_names,
)
from liturgy.interpreter.engine import Game, load_ruleset
from scenario import force_roll

RULES = ROOT / "rulesets" / "fury_of_dracula.rules"
EAST = ["Bucharest", "Constanta", "Varna", "Sofia", "Belgrade", "Szeged"]
FAR = {GODALMING: "paris", SEWARD: "dublin", "Prof. Abraham Van Helsing": "lisbon", "Mina Harker": "cadiz"}


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load_ruleset(str(RULES))


def roads(place: str) -> set[str]:
    graph = yaml.safe_load((ROOT / "cards" / "fury_of_dracula" / "europe.yaml").read_text())
    return {b if a == place else a for a, b in graph["road"] if place in (a, b)}


def dracula_moving(g: Game, trail: int) -> bool:
    return prompt(g)[1] == "Where does Dracula go?" and len(zone_names(g, "trail", 0)) >= trail


# ---------------------------------------------------------------- Resolve


def test_resolve_newspaper_reports_reveals_the_oldest_hidden_trail_card_once_a_round(rules) -> None:  # type: ignore[no-untyped-def]
    """Resolve (A1; the FAQ: one use of each Resolve effect per game round): Newspaper Reports turns the oldest
    face-down Trail card face up; the next Hunter in the same round is no longer offered it."""
    g = rules.new_game(2, seed=3, check_invariants=True)
    pol = policy(EAST, FAR)
    play(g, pol, lambda g: dracula_moving(g, 3))
    set_value(g, "resolve", 2)
    edited(g)
    play(g, pol, at_prompt(f"Spend 1 Resolve for {GODALMING}?"))
    labels = prompt(g)[2]
    assert "Newspaper Reports" in labels and "Sense of Emergency" in labels and "Inner Strength" not in labels
    assert g.view(1)["zones"]["trail"]["P1"][0].startswith("?")
    answer(g, "Newspaper Reports")
    assert g.view(1)["zones"]["trail"]["P1"][0] == "Bucharest"
    assert value(g, "resolve") == 1
    play(g, pol, at_prompt(f"Spend 1 Resolve for {SEWARD}?"))
    assert "Newspaper Reports" not in prompt(g)[2] and "Sense of Emergency" in prompt(g)[2]


def test_resolve_sense_of_emergency_costs_six_minus_the_vampires_and_is_the_move(rules) -> None:  # type: ignore[no-untyped-def]
    g = rules.new_game(2, seed=3, check_invariants=True)
    pol = policy(EAST, FAR)
    play(g, pol, lambda g: dracula_moving(g, 2))
    set_value(g, "resolve", 1)
    set_value(g, "vampires", 2)
    edited(g)
    play(g, pol, at_prompt(f"Spend 1 Resolve for {GODALMING}?"))
    answer(g, "Sense of Emergency")
    answer(g, "madrid")
    assert place_of(g, GODALMING) == "madrid" and card_value(g, GODALMING, "hp") == 12 - 4
    # his move is made: the next question is his action in Madrid, not a move
    assert prompt(g)[1] == f"What does {GODALMING} do in madrid?"


def test_resolve_sense_of_emergency_is_not_offered_without_the_health_for_it(rules) -> None:  # type: ignore[no-untyped-def]
    g = rules.new_game(2, seed=3, check_invariants=True)
    pol = policy(EAST, FAR)
    play(g, pol, lambda g: dracula_moving(g, 2))
    set_value(g, "resolve", 1)
    set_card(g, GODALMING, "hp", 6)
    edited(g)
    play(g, pol, at_prompt(f"Spend 1 Resolve for {GODALMING}?"))
    assert prompt(g)[2] == ["Inner Strength", "Newspaper Reports", "spend none"]


# ---------------------------------------------------------------- Items


def test_holy_water_cures_a_bite_on_a_five_or_six(rules) -> None:  # type: ignore[no-untyped-def]
    g = rules.new_game(2, seed=3, check_invariants=True)
    pol = policy(EAST, FAR)
    play(g, pol, lambda g: dracula_moving(g, 2))
    give(g, GODALMING, "Holy Water")
    set_card(g, GODALMING, "bitten", 1)
    edited(g)
    play(g, pol, at_prompt(f"Does {GODALMING} use Holy Water, and on whom?"))
    force_roll(g, "d6", ["6"])
    answer(g, GODALMING)
    assert card_value(g, GODALMING, "bitten") == 0 and held(g, "hitems", GODALMING) == []
    assert "Holy Water" in zone_names(g, "item_discard")


def test_the_hospital_font_can_burn_on_a_one(rules) -> None:  # type: ignore[no-untyped-def]
    g = rules.new_game(2, seed=3, check_invariants=True)
    pol = policy(EAST, {**FAR, GODALMING: "belgrade"})
    play(g, pol, lambda g: dracula_moving(g, 1) and value(g, "started"))
    set_card(g, GODALMING, "bitten", 1)
    edited(g)
    play(g, policy(EAST[1:], FAR, {f"Where does {GODALMING} go from belgrade?": "st_joseph_and_st_mary"}),
         at_prompt(f"Does {GODALMING} use the Holy Water font of the Hospital?"))
    force_roll(g, "d6", ["1"])
    answer(g, "yes")
    assert card_value(g, GODALMING, "bitten") == 1 and card_value(g, GODALMING, "hp") == 12 - 2


def test_a_fast_horse_rides_two_roads_and_is_discarded(rules) -> None:  # type: ignore[no-untyped-def]
    g = rules.new_game(2, seed=3, check_invariants=True)
    pol = policy(EAST, FAR)
    play(g, pol, lambda g: dracula_moving(g, 2))
    give(g, GODALMING, "Fast Horse")
    edited(g)
    play(g, pol, at_prompt(f"Where does {GODALMING} go from paris?"))
    near = roads("paris")
    two = {z for y in near for z in roads(y)} - near - {"paris"}
    assert set(prompt(g)[2]) == {"paris", "take the train"} | near | two and "amsterdam" in two
    answer(g, "amsterdam")
    assert place_of(g, GODALMING) == "amsterdam" and "Fast Horse" in zone_names(g, "item_discard")


def test_without_a_fast_horse_two_roads_are_not_offered(rules) -> None:  # type: ignore[no-untyped-def]
    g = rules.new_game(2, seed=3, check_invariants=True)
    pol = policy(EAST, FAR)
    play(g, pol, at_prompt(f"Where does {GODALMING} go from paris?"))
    assert "amsterdam" not in prompt(g)[2]


def test_local_rumors_shows_the_hunters_the_tiles_at_a_trail_position(rules) -> None:  # type: ignore[no-untyped-def]
    g = rules.new_game(2, seed=3, check_invariants=True)
    pol = policy(EAST, FAR, {"Which encounter goes on Constanta?": "Plague"})
    into_reserve(g, "Plague")
    play(g, pol, lambda g: dracula_moving(g, 2))
    give(g, GODALMING, "Local Rumors")
    edited(g)
    play(g, pol, at_prompt(f"Local Rumors: which position does {GODALMING} ask about (1 the newest Trail card, "
                           "Catacombs after the Trail)?"))
    assert prompt(g)[2] == ["1", "2", "3", "pass"]  # Varna, Constanta, Bucharest
    answer(g, "2")
    assert any(line == "the rumours speak of Plague" for line in g.log_lines(1))
    assert "Local Rumors" in zone_names(g, "item_discard")


# ---------------------------------------------------------------- as an encounter is met


def meet(rules, give_cards: list[str], seed: int = 4) -> Game:  # type: ignore[no-untyped-def]
    """Godalming waits in Clermont-Ferrand while Dracula goes Nantes, Bordeaux (a Plague tile), Toulouse; then he
    walks into Bordeaux and meets the Plague. Returns the game at that first encounter's question."""
    g = rules.new_game(2, seed=seed, check_invariants=True)
    starts = {**FAR, GODALMING: "clermont_ferrand"}
    into_reserve(g, "Plague")
    pol = policy(["Nantes", "Bordeaux", "Toulouse"], starts, {"Which encounter goes on Bordeaux?": "Plague"})
    play(g, pol, lambda g: dracula_moving(g, 2) and "Bordeaux" in zone_names(g, "trail", 0))
    for c in give_cards:
        give(g, GODALMING, c)
    edited(g)
    play(g, pol, lambda g: prompt(g)[1] == f"Where does {GODALMING} go from clermont_ferrand?"
         and len(zone_names(g, "trail", 0)) == 3)
    answer(g, "bordeaux")
    play(g, pol, at_prompt(f"Which encounter does {GODALMING} meet first?"))
    answer(g, "Plague")
    return g


def test_plague_costs_two_health_when_met(rules) -> None:  # type: ignore[no-untyped-def]
    g = meet(rules, [])
    assert card_value(g, GODALMING, "hp") == 10


def test_forewarned_cancels_the_encounter(rules) -> None:  # type: ignore[no-untyped-def]
    g = meet(rules, ["Forewarned"])
    assert prompt(g)[1] == f"{GODALMING} meets Plague: play an event first?"
    answer(g, "Forewarned")
    assert card_value(g, GODALMING, "hp") == 12 and "Forewarned" in zone_names(g, "event_discard")
    assert any("was forewarned: Plague is cancelled" in line for line in g.log_lines(1))
    # a cancelled encounter is not a meeting: Godalming keeps his Action phase
    assert prompt(g)[1] == f"What does {GODALMING} do in bordeaux?"


def test_great_strength_prevents_the_health_loss(rules) -> None:  # type: ignore[no-untyped-def]
    g = meet(rules, ["Great Strength"])
    assert prompt(g)[1] == f"{GODALMING} would lose 2 Health: play Great Strength?"
    answer(g, "Great Strength")
    assert card_value(g, GODALMING, "hp") == 12


def test_secret_weapon_swaps_an_item_for_one_from_the_discard_pile(rules) -> None:  # type: ignore[no-untyped-def]
    g = meet(rules, ["Secret Weapon", "Knife"])
    to_discard(g, "Rifle")
    answer(g, "Secret Weapon")
    answer(g, "Knife")
    answer(g, "Rifle")
    assert held(g, "hitems", GODALMING) == ["Rifle"] and "Knife" in zone_names(g, "item_discard")
    assert card_value(g, GODALMING, "hp") == 10  # the encounter is still met
