"""Fury of Dracula (rulesets/fury_of_dracula.rules): Dracula's events played at their moments (aimed at a Hunter's
next move, train, landing, discovery or Event at the start of his turn; the play-at-once ones as drawn), the
Hunters' Good Luck and Chartered Carriage cancelling them, the allies, and the encounters whose effects are
choices (Ambush maturing, Thief, Spy, Seduction on a New Vampire). Each is played in a real game and checked by its
effect; aiming is checked to be invisible to the Hunters until the card is played."""

from __future__ import annotations

import pytest
from conftest import ROOT
from fod_helpers import (
    GODALMING,
    MINA,
    SEWARD,
    answer,
    at_prompt,
    bottom_event,
    card_value,
    edited,
    give,
    give_dracula,
    held,
    place_of,
    play,
    policy,
    prompt,
    to_allies,
    to_discard,
    value,
    zone_names,
)
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.tools.noninterference import observation
from scenario import force_roll

RULES = ROOT / "rulesets" / "fury_of_dracula.rules"
EAST = ["Bucharest", "Constanta", "Varna", "Sofia", "Belgrade", "Szeged", "Budapest", "Vienna"]
FAR = {GODALMING: "paris", SEWARD: "dublin", "Prof. Abraham Van Helsing": "lisbon", MINA: "cadiz"}
START = "The start of Dracula's turn: play an event?"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load_ruleset(str(RULES))


def dracula_moving(g: Game, trail: int) -> bool:
    return prompt(g)[1] == "Where does Dracula go?" and len(zone_names(g, "trail", 0)) >= trail


def with_dracula_card(rules, card: str, starts: dict[str, str] | None = None, seed: int = 5):  # type: ignore[no-untyped-def]
    """A game at Dracula's second move, with ``card`` put into his hand."""
    g = rules.new_game(2, seed=seed, check_invariants=True)
    play(g, policy(EAST, starts or FAR), lambda g: dracula_moving(g, 1) and value(g, "started"))
    give_dracula(g, card)
    edited(g)
    return g


def test_wild_horses_aimed_at_a_move_is_played_when_that_hunter_moves(rules) -> None:  # type: ignore[no-untyped-def]
    g = with_dracula_card(rules, "Wild Horses")
    pol = policy(EAST[1:], FAR, {START: f"Wild Horses at {GODALMING}'s next move"})
    play(g, pol, at_prompt(START))
    before = g.clone()
    answer(g, f"Wild Horses at {GODALMING}'s next move")
    answer(before, "play none")
    assert observation(g, 1) == observation(before, 1)  # the aim is Dracula's secret
    play(g, pol, at_prompt(f"Wild Horses: where do they take {GODALMING}?"))
    assert "Dracula plays Wild Horses" in g.log_lines(1)
    answer(g, "nantes")
    assert place_of(g, GODALMING) == "nantes"
    assert prompt(g)[1] != f"Where does {GODALMING} go from Paris?"  # the horses made his move


def test_false_tip_off_stops_the_aimed_hunters_train(rules) -> None:  # type: ignore[no-untyped-def]
    g = with_dracula_card(rules, "False Tip-off")
    pol = policy(EAST[1:], FAR, {START: f"False Tip-off at {GODALMING}'s next train",
                                 f"Where does {GODALMING} go from Paris?": "take the train"})
    play(g, pol, lambda g: any("train does not run" in line for line in g.log_lines(1)))
    assert place_of(g, GODALMING) == "paris" and "False Tip-off" in zone_names(g, "event_discard")
    assert prompt(g)[1].startswith(f"Where does {SEWARD} go from")  # the turn ended


def test_chartered_carriage_cancels_a_false_tip_off(rules) -> None:  # type: ignore[no-untyped-def]
    g = with_dracula_card(rules, "False Tip-off")
    give(g, SEWARD, "Chartered Carriage")
    edited(g)
    pol = policy(EAST[1:], FAR, {START: f"False Tip-off at {GODALMING}'s next train",
                                 f"Where does {GODALMING} go from Paris?": "take the train",
                                 f"{SEWARD}: cancel the False Tip-off with Chartered Carriage?": "Chartered Carriage"})
    play(g, pol, at_prompt(f"{SEWARD}: cancel the False Tip-off with Chartered Carriage?"))
    force_roll(g, "train", ["1"])
    answer(g, "Chartered Carriage")
    assert prompt(g)[1] == f"{GODALMING} rides the train to?"


def test_customs_search_takes_the_items_of_the_hunter_who_lands(rules) -> None:  # type: ignore[no-untyped-def]
    starts = {**FAR, GODALMING: "le_havre"}
    g = with_dracula_card(rules, "Customs Search", starts)
    give(g, GODALMING, "Knife")
    edited(g)
    pol = policy(EAST[1:], starts, {START: f"Customs Search at {GODALMING}'s next landing",
                                    f"Where does {GODALMING} go from Le Havre?": "english_channel",
                                    f"Where does {GODALMING} go from English Channel?": "london"})
    play(g, pol, lambda g: place_of(g, GODALMING) == "london")
    assert held(g, "hitems", GODALMING) == [] and "Customs Search" in zone_names(g, "event_discard")


def test_sensationalist_press_keeps_the_discovered_card_face_down(rules) -> None:  # type: ignore[no-untyped-def]
    starts = {**FAR, GODALMING: "clermont_ferrand"}
    g = rules.new_game(2, seed=4, check_invariants=True)
    pol = policy(["Nantes", "Bordeaux", "Toulouse"], starts,
                 {START: f"Sensationalist Press at {GODALMING}'s next discovery"})
    play(g, pol, lambda g: dracula_moving(g, 1) and value(g, "started"))
    give_dracula(g, "Sensationalist Press")
    edited(g)
    play(g, pol, lambda g: prompt(g)[1] == f"Where does {GODALMING} go from Clermont-Ferrand?"
         and len(zone_names(g, "trail", 0)) == 3)
    answer(g, "bordeaux")
    assert "the story is hushed up: the card stays face down" in g.log_lines(1)
    assert g.view(1)["zones"]["trail"]["P1"][1].startswith("?")


def test_devilish_power_cancels_the_aimed_hunters_next_event(rules) -> None:  # type: ignore[no-untyped-def]
    g = with_dracula_card(rules, "Devilish Power")
    pol = policy(EAST[1:], FAR, {START: f"Devilish Power at {GODALMING}'s next Event",
                                 f"Before {GODALMING} moves: use an Item or play an event?": "Long Day"})
    play(g, pol, at_prompt(START))
    answer(g, f"Devilish Power at {GODALMING}'s next Event")
    give(g, GODALMING, "Long Day")
    edited(g)
    play(g, pol, at_prompt(f"Before {GODALMING} moves: use an Item or play an event?"))
    time = value(g, "daynight")
    answer(g, "Long Day")
    assert "Devilish Power cancels Long Day" in g.log_lines(1) and value(g, "daynight") == time


def test_good_luck_cancels_an_event_dracula_plays(rules) -> None:  # type: ignore[no-untyped-def]
    g = with_dracula_card(rules, "Time Runs Short")
    give(g, SEWARD, "Good Luck")
    edited(g)
    pol = policy(EAST[1:], FAR, {START: "Time Runs Short"})
    play(g, pol, at_prompt(START))
    time = value(g, "daynight")
    answer(g, "Time Runs Short")
    answer(g, "Good Luck")
    assert f"{SEWARD} plays Good Luck: Time Runs Short is cancelled" in g.log_lines(1)
    assert value(g, "daynight") == time + 1  # only the ordinary step of time


def supply_draws(rules, event: str, starts: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    """Godalming supplies in Paris with ``event`` the next card of the Event deck."""
    g = rules.new_game(2, seed=5, check_invariants=True)
    pol = policy(EAST, starts or FAR)
    play(g, pol, lambda g: dracula_moving(g, 2))
    bottom_event(g, event)
    edited(g)
    play(g, pol, lambda g: prompt(g)[1].startswith(f"What does {GODALMING} do in"))
    answer(g, "supply")
    answer(g, "an Event")  # Paris is a large city: an Event and/or an Item
    return g


def test_evasion_moves_dracula_at_once_to_a_land_place_of_his_choice(rules) -> None:  # type: ignore[no-untyped-def]
    g = supply_draws(rules, "Evasion")
    assert prompt(g)[1] == "Evasion: where does Dracula slip away to?"
    assert "Paris" not in prompt(g)[2] and "North Sea" not in prompt(g)[2]  # no Hunter's city, no sea
    answer(g, "Madrid")
    assert zone_names(g, "trail", 0)[-1] == "Madrid"
    assert g.view(1)["zones"]["trail"]["P1"][-1].startswith("?")


def test_night_visit_wounds_a_bitten_hunter_of_draculas_choice(rules) -> None:  # type: ignore[no-untyped-def]
    g = supply_draws(rules, "Night Visit")
    assert prompt(g)[1] == "Night Visit: which bitten Hunter loses 2 Health?" and prompt(g)[2] == [MINA]
    answer(g, MINA)
    assert card_value(g, MINA, "hp") == 8 - 2


def test_vampiric_influence_makes_a_bitten_hunter_announce_and_make_his_move(rules) -> None:  # type: ignore[no-untyped-def]
    g = supply_draws(rules, "Vampiric Influence")
    answer(g, MINA)
    assert prompt(g)[1] == f"{MINA} must announce his next move: where will he go?"
    answer(g, "madrid")
    play(g, policy([], FAR), lambda g: place_of(g, MINA) == "madrid" or prompt(g)[1].startswith(f"Where does {MINA}"))
    assert place_of(g, MINA) == "madrid" and f"{MINA} makes the move he announced" in g.log_lines(1)


def test_surprising_return_takes_back_a_discarded_event_and_draws_another(rules) -> None:  # type: ignore[no-untyped-def]
    g = rules.new_game(2, seed=5, check_invariants=True)
    pol = policy(EAST, FAR)
    play(g, pol, lambda g: dracula_moving(g, 2))
    to_discard(g, "Long Day", "event_discard", "event_deck")
    bottom_event(g, "Surprising Return")
    edited(g)
    play(g, pol, lambda g: prompt(g)[1].startswith(f"What does {GODALMING} do in"))
    answer(g, "supply")
    answer(g, "an Event")
    answer(g, "Long Day")
    assert "Long Day" in held(g, "hevents", GODALMING)
    assert any(line.startswith(f"{GODALMING} draws") for line in g.log_lines(1)[-3:]) or \
        "a Dracula event is drawn and goes to Dracula unseen" in g.log_lines(1)[-3:]


def test_quincey_p_morris_wounds_the_hunter_dracula_picks_unless_he_shows_a_crucifix(rules) -> None:  # type: ignore[no-untyped-def]
    g = rules.new_game(2, seed=5, check_invariants=True)
    pol = policy(EAST, FAR)
    play(g, pol, lambda g: dracula_moving(g, 1) and value(g, "started"))
    to_allies(g, "Quincey P. Morris")
    give(g, SEWARD, "Crucifix")
    edited(g)
    play(g, pol, at_prompt("Quincey P. Morris: which Hunter does he hunt?"))
    answer(g, GODALMING)
    assert card_value(g, GODALMING, "hp") == 11
    play(g, pol, at_prompt("Quincey P. Morris: which Hunter does he hunt?"))
    answer(g, SEWARD)
    assert card_value(g, SEWARD, "hp") == 10  # (Seward's full Health: the Crucifix turns Quincey away)
    # he shows it: Dracula is told which card turned Quincey away (he used to read only "a holy item", which said
    # what Seward held without showing it: the fuzz's world probe took that for a leak)
    assert f"{SEWARD} shows Crucifix and Quincey P. Morris turns away" in g.log_lines(0)


def test_jonathan_harker_keeps_the_sixth_trail_card_face_up(rules) -> None:  # type: ignore[no-untyped-def]
    g = rules.new_game(2, seed=5, check_invariants=True)
    pol = policy(EAST, FAR)
    play(g, pol, lambda g: dracula_moving(g, 1) and value(g, "started"))
    to_allies(g, "Jonathan Harker")
    edited(g)
    play(g, pol, lambda g: len(zone_names(g, "trail", 0)) == 6 and prompt(g)[0] != 0)
    assert g.view(1)["zones"]["trail"]["P1"][0] == "Bucharest"
    assert all(c.startswith("?") for c in g.view(1)["zones"]["trail"]["P1"][1:])


def test_mystic_research_tells_the_hunters_draculas_events_but_not_his_aims(rules) -> None:  # type: ignore[no-untyped-def]
    g = with_dracula_card(rules, "Wild Horses")
    pol = policy(EAST[1:], FAR, {START: f"Wild Horses at {SEWARD}'s next move",
                                 f"Before {GODALMING} moves: use an Item or play an event?": "Mystic Research"})
    play(g, pol, at_prompt(START))
    answer(g, f"Wild Horses at {SEWARD}'s next move")
    give(g, GODALMING, "Mystic Research")
    edited(g)
    play(g, pol, at_prompt(f"Before {GODALMING} moves: use an Item or play an event?"))
    answer(g, "Mystic Research")
    assert "Dracula's events: Wild Horses" in g.log_lines(1)
    assert g.view(1)["zones"]["devents"]["P1"] == ["?"]
    assert "Wild Horses" not in g.view(1)["counters"]["aimed_at"]
    play(g, pol, at_prompt(f"Wild Horses: where do they take {SEWARD}?"))  # the aim still holds


def test_an_aim_is_offered_once_per_hunter_in_turn_order_with_his_name(rules) -> None:  # type: ignore[no-untyped-def]
    """The aim labels are written out in the ruleset (`aim_labels`, for speed): they must name the Hunters as the
    characters file does, in turn order, for every aimable card."""
    g = with_dracula_card(rules, "False Tip-off")
    hunters = [GODALMING, SEWARD, "Prof. Abraham Van Helsing", MINA]
    to_allies(g, "Immanuel Hildesheim")  # six events in his hand: his limit with this ally
    for card in ("Wild Horses", "Control Storms", "Customs Search", "Sensationalist Press", "Devilish Power"):
        give_dracula(g, card)
    edited(g)
    play(g, policy(EAST[1:], FAR), at_prompt(START))
    labels = prompt(g)[2]
    for card, moment in (("Wild Horses", "move"), ("Control Storms", "move"), ("False Tip-off", "train"),
                         ("Customs Search", "landing"), ("Sensationalist Press", "discovery"),
                         ("Devilish Power", "Event")):
        assert [lb for lb in labels if lb.startswith(card + " at ")] == [f"{card} at {h}'s next {moment}"
                                                                          for h in hunters]


def test_the_card_pushed_off_the_trail_is_dealt_with_at_the_end_of_the_action_phase(rules) -> None:  # type: ignore[no-untyped-def]
    """Spec (Dracula's turn): the card leaving a full Trail is dealt with after the Action phase's encounter, and
    the reserve refills after that; the Trail holds 7 cards only inside Dracula's move and action."""
    g = rules.new_game(2, seed=5, check_invariants=True)
    pol = policy(EAST, FAR)
    play(g, pol, lambda g: dracula_moving(g, 6))
    answer(g, "Budapest")
    assert prompt(g)[1] == "Which encounter goes on Budapest?" and len(zone_names(g, "trail", 0)) == 7
    answer(g, prompt(g)[2][0])
    assert prompt(g)[1] == "A card leaves the Trail: what happens to it?"
    assert len(zone_names(g, "reserve", 0)) == 4  # not refilled yet
    answer(g, "to_catacombs")
    answer(g, "pass")  # no extra tile for the Catacomb
    assert zone_names(g, "catacombs", 0) == ["Bucharest"] and len(zone_names(g, "reserve", 0)) == 5
