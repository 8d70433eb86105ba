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
    bottom_event,
    card_value,
    edited,
    give,
    give_dracula,
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
    assert prompt(g)[1] == f"What does {GODALMING} do in Madrid?"


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
    play(g, pol, at_prompt(f"Before {GODALMING} moves: use an Item or play an event?"))
    answer(g, "Holy Water")
    assert prompt(g)[1] == f"On whom does {GODALMING} use Holy Water?"
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
    play(g, policy(EAST[1:], FAR, {f"Where does {GODALMING} go from Belgrade?": "st_joseph_and_st_mary"}),
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
    play(g, pol, at_prompt(f"Where does {GODALMING} go from Paris?"))
    near = roads("paris")
    two = {z for y in near for z in roads(y)} - near - {"paris"}
    assert set(prompt(g)[2]) == {"paris", "take the train"} | near | two and "amsterdam" in two
    answer(g, "amsterdam")
    assert place_of(g, GODALMING) == "amsterdam" and "Fast Horse" in zone_names(g, "item_discard")


def test_without_a_fast_horse_two_roads_are_not_offered(rules) -> None:  # type: ignore[no-untyped-def]
    g = rules.new_game(2, seed=3, check_invariants=True)
    pol = policy(EAST, FAR)
    play(g, pol, at_prompt(f"Where does {GODALMING} go from Paris?"))
    assert "amsterdam" not in prompt(g)[2]


def test_local_rumors_shows_the_hunters_the_tiles_at_a_trail_position(rules) -> None:  # type: ignore[no-untyped-def]
    g = rules.new_game(2, seed=3, check_invariants=True)
    pol = policy(EAST, FAR, {"Which encounter goes on Constanta?": "Plague"})
    into_reserve(g, "Plague")
    play(g, pol, lambda g: dracula_moving(g, 2))
    give(g, GODALMING, "Local Rumors")
    edited(g)
    play(g, pol, at_prompt(f"Before {GODALMING} moves: use an Item or play an event?"))
    answer(g, "Local Rumors")
    assert prompt(g)[1] == (f"Local Rumors: which position does {GODALMING} ask about (1 the newest Trail card, "
                            "Catacombs after the Trail)?")
    assert prompt(g)[2] == ["1", "2", "3"]  # Varna, Constanta, Bucharest
    answer(g, "2")
    assert any(line == "the rumours speak of Plague" for line in g.log_lines(1))
    assert "Local Rumors" in zone_names(g, "item_discard")


# ---------------------------------------------------------------- as an encounter is met


def meet(rules, give_cards: list[str], seed: int = 4, tile: str = "Plague", night: bool = False,  # type: ignore[no-untyped-def]
         dracula_cards: tuple[str, ...] = ()) -> Game:
    """Godalming waits in Clermont-Ferrand while Dracula goes Nantes, Bordeaux (a ``tile``), Toulouse; then he
    walks into Bordeaux and meets the tile. Returns the game at that first encounter's question."""
    g = rules.new_game(2, seed=seed, check_invariants=True)
    starts = {**FAR, GODALMING: "clermont_ferrand"}
    into_reserve(g, tile)
    pol = policy(["Nantes", "Bordeaux", "Toulouse"], starts, {"Which encounter goes on Bordeaux?": tile})
    play(g, pol, lambda g: dracula_moving(g, 2) and "Bordeaux" in zone_names(g, "trail", 0))
    for c in give_cards:
        give(g, GODALMING, c)
    for c in dracula_cards:
        give_dracula(g, c)
    edited(g)
    play(g, pol, lambda g: prompt(g)[1] == f"Where does {GODALMING} go from Clermont-Ferrand?"
         and len(zone_names(g, "trail", 0)) == 3)
    if night:
        set_value(g, "daynight", 4)
    answer(g, "bordeaux")
    play(g, pol, at_prompt(f"Which encounter does {GODALMING} meet first?"))
    answer(g, tile)
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
    assert prompt(g)[1] == f"What does {GODALMING} do in Bordeaux?"


def test_great_strength_prevents_the_health_loss(rules) -> None:  # type: ignore[no-untyped-def]
    g = meet(rules, ["Great Strength"])
    # he holds an Event, so he is asked (it could be Forewarned: Dracula does not see which)
    assert prompt(g)[1] == f"{GODALMING} meets Plague: play an event first?" and prompt(g)[2] == ["play none"]
    answer(g, "play none")
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


# ---------------------------------------------------------------- encounters whose effect is a choice


def test_thief_takes_the_kind_of_card_dracula_names(rules) -> None:  # type: ignore[no-untyped-def]
    g = meet(rules, ["Knife", "Long Day"], tile="Thief")
    answer(g, "play none")  # before the tile: he holds an Event (Dracula does not see which)
    assert prompt(g)[1] == f"Thief: does {GODALMING} lose a random Item or a random Event?"
    answer(g, "an Event")
    assert held(g, "hitems", GODALMING) == ["Knife"] and held(g, "hevents", GODALMING) == []


def test_spy_makes_the_hunter_announce_his_next_move(rules) -> None:  # type: ignore[no-untyped-def]
    g = meet(rules, [], tile="Spy")
    assert prompt(g)[1] == f"{GODALMING} must announce his next move: where will he go?"
    answer(g, "nantes")
    assert card_value(g, GODALMING, "announced") is not None


def test_seduction_bites_and_returns_the_new_vampire_to_dracula(rules) -> None:  # type: ignore[no-untyped-def]
    g = meet(rules, [], tile="New Vampire", night=True, dracula_cards=("Seduction",))
    assert prompt(g)[1] == f"{GODALMING} meets a New Vampire by night: play an event?"
    answer(g, "Seduction")
    assert card_value(g, GODALMING, "bitten") == 1 and "New Vampire" in zone_names(g, "reserve", 0)


def test_ambush_matures_into_an_encounter_dracula_deals_a_hunter(rules) -> None:  # type: ignore[no-untyped-def]
    """A1 (MatureEncounter): Dracula picks a Hunter, who meets a tile from the reserve alone."""
    g = rules.new_game(2, seed=6, check_invariants=True)
    into_reserve(g, "Ambush")
    pol = policy(["Bucharest", "Constanta", "Varna", "Sofia", "Belgrade", "Szeged", "Budapest", "Vienna"], FAR,
                 {"Which encounter goes on Constanta?": "Ambush", "Remove a location from the Catacombs?": "pass"})
    play(g, pol, at_prompt("A card leaves the Trail: what happens to it?"))
    answer(g, "return_tile")  # Bucharest
    play(g, pol, at_prompt("A card leaves the Trail: what happens to it?"))
    assert "mature" in prompt(g)[2]
    if "Plague" not in zone_names(g, "reserve", 0):
        into_reserve(g, "Plague")
    answer(g, "mature")
    assert prompt(g)[1] == "Ambush: which Hunter is ambushed?"
    answer(g, GODALMING)
    answer(g, "Plague")
    assert card_value(g, GODALMING, "hp") == 10 and f"{GODALMING} is ambushed by Plague" in g.log_lines(1)


# ---------------------------------------------------------------- the Hunters' events played before moving


def before_moving(rules, card: str, start: str) -> Game:  # type: ignore[no-untyped-def]
    g = rules.new_game(2, seed=3, check_invariants=True)
    pol = policy(EAST, {**FAR, GODALMING: start})
    play(g, pol, lambda g: dracula_moving(g, 2))
    give(g, GODALMING, card)
    edited(g)
    play(g, pol, at_prompt(f"Before {GODALMING} moves: use an Item or play an event?"))
    answer(g, card)
    return g


def test_excellent_weather_gives_up_to_four_sea_moves(rules) -> None:  # type: ignore[no-untyped-def]
    g = before_moving(rules, "Excellent Weather", "le_havre")
    answer(g, "english_channel")
    assert prompt(g)[1] == f"Excellent Weather: where does {GODALMING} sail on to?"
    answer(g, "north_sea")
    answer(g, "stop")
    assert place_of(g, GODALMING) == "north_sea"


def test_chartered_carriage_rides_a_fast_train_without_the_die(rules) -> None:  # type: ignore[no-untyped-def]
    g = before_moving(rules, "Chartered Carriage", "paris")
    graph = yaml.safe_load((ROOT / "cards" / "fury_of_dracula" / "europe.yaml").read_text())
    rails = [p for k in ("rail_west", "rail_east") for p in graph[k]]
    one = {b if a == "paris" else a for a, b in rails if "paris" in (a, b)}
    two = {b if a == x else a for x in one for a, b in rails if x in (a, b)} - {"paris"}
    assert prompt(g)[1] == f"Chartered Carriage: where does {GODALMING} ride?"
    assert set(prompt(g)[2]) == one | two
    answer(g, "marseilles")
    assert place_of(g, GODALMING) == "marseilles"


def test_stormy_seas_closes_a_sea_to_the_hunters(rules) -> None:  # type: ignore[no-untyped-def]
    g = before_moving(rules, "Stormy Seas", "le_havre")
    answer(g, "english_channel")
    assert "english_channel" not in prompt(g)[2] and prompt(g)[1] == f"Where does {GODALMING} go from Le Havre?"


def test_telegraph_ahead_reveals_the_trail_cards_one_road_away(rules) -> None:  # type: ignore[no-untyped-def]
    g = rules.new_game(2, seed=4, check_invariants=True)
    pol = policy(["Nantes", "Bordeaux", "Toulouse"], {**FAR, GODALMING: "clermont_ferrand"})
    play(g, pol, lambda g: dracula_moving(g, 2))
    bottom_event(g, "Telegraph Ahead")
    edited(g)
    play(g, pol, lambda g: prompt(g)[1] == f"What does {GODALMING} do in Clermont-Ferrand?")
    answer(g, "supply")
    assert g.view(1)["zones"]["trail"]["P1"][:2] == ["Nantes", "Bordeaux"]


# ---------------------------------------------------------------- the fuzz's world probe on the Trail


def test_a_world_sampled_for_a_hunter_keeps_the_tiles_each_trail_card_carries(rules) -> None:  # type: ignore[no-untyped-def]
    """The Hunters count the tiles on each Trail card from the public log (one goes on the newest card each land
    turn), so a world drawn from a Hunter's information set (`sample_world`, keep_declarations, as the fuzz's world
    probe draws it) deals Trail cards only among cards carrying as many tiles: Bucharest, laid on the first turn
    without a tile, keeps its place, while the three cards carrying one may trade places."""
    import random

    from liturgy.interpreter.engine.infosets import knowledge_by_replay, sample_world
    from scenario import zone_index
    g = rules.new_game(2, seed=3, check_invariants=True)
    play(g, policy(EAST, FAR), lambda g: dracula_moving(g, 4))
    lay = g.ruleset.compiled.layout

    def trail(w: Game) -> list[tuple[str, int]]:
        s = w.state
        return [(s.tables.card_names[c], len(s.zones[lay.zone_card_base + c * lay.zone_card_stride
                                                     + lay.zone_card_offsets["tiles"]]))
                for c in s.zones[zone_index(w, "trail", 0)]]
    real = trail(g)
    assert real == [("Bucharest", 0), ("Constanta", 1), ("Varna", 1), ("Sofia", 1)]
    know = knowledge_by_replay(g, 1)
    worlds = [trail(sample_world(g, 1, random.Random(k), know, keep_declarations=True)) for k in range(12)]
    assert all([n for _, n in w] == [0, 1, 1, 1] and w[0] == ("Bucharest", 0) for w in worlds)
    assert any(w != real for w in worlds)
