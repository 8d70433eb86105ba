"""Fury of Dracula (rulesets/fury_of_dracula.rules): what the table shows, as the rulebook has it (issue 30, item 7).

Two choices the ruleset once documented favoured Dracula, and the book says otherwise:

- the Hunters' Items and kept Events lie face down on their sheets [L202-L203] and Items never go to Dracula
  [L54]: Dracula sees how many each Hunter holds, never which (he used to see them all);
- the encounter tiles lie face down on the Trail and Catacomb cards [L171, L178]: everyone sees which cards carry
  tiles and how many (the Hunters were shown a face-down card's tiles only once it was turned up).

With the Hunters' cards hidden, every question a Hunter is asked because of a card he holds would tell Dracula
that he holds it, so such questions are asked whenever he holds any card of that kind (a public count).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from conftest import ROOT
from fod_helpers import (
    GODALMING,
    MINA,
    SEWARD,
    VAN_HELSING,
    answer,
    edited,
    give,
    into_reserve,
    play,
    policy,
    prompt,
    zone_names,
)
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.runtime.moves import move_card
from liturgy.interpreter.tools import noninterference as ni
from liturgy.interpreter.tools.leaks import LeakCheck
from liturgy.interpreter.tools.noninterference import observation
from scenario import zone_index

RULES = ROOT / "rulesets" / "fury_of_dracula.rules"
EAST = ["Bucharest", "Constanta", "Varna", "Sofia", "Belgrade", "Szeged", "Budapest", "Vienna"]
FAR_HUNTERS = {GODALMING: "paris", SEWARD: "dublin", VAN_HELSING: "lisbon", MINA: "cadiz"}


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load_ruleset(str(RULES))


def dracula_moving(g: Game, trail: int) -> bool:
    return prompt(g)[1] == "Where does Dracula go?" and len(zone_names(g, "trail", 0)) >= trail


def test_dracula_sees_how_many_cards_a_hunter_holds_but_not_which(rules) -> None:  # type: ignore[no-untyped-def]
    """Items and kept Events lie face down [L202-L203]: the Hunters see them, Dracula only counts them. (Dracula
    used to read every Hunter's hand in his view.)"""
    g = rules.new_game(2, seed=3, check_invariants=True)
    play(g, policy(EAST, FAR_HUNTERS), lambda g: dracula_moving(g, 2))
    give(g, GODALMING, "Garlic")
    give(g, GODALMING, "Good Luck")
    edited(g)
    dracula, hunters = g.view(0), g.view(1)
    assert "Garlic" in hunters["zones"]["hitems"] and "Good Luck" in hunters["zones"]["hevents"]
    assert "Garlic" not in dracula["zones"]["hitems"] and "Good Luck" not in dracula["zones"]["hevents"]
    assert len(dracula["zones"]["hitems"]) == len(hunters["zones"]["hitems"]) == 1
    shown = g.display(0) or []
    assert f"{GODALMING} holds 1 Item(s) and 1 Event(s), face down" in shown
    assert not any("Garlic" in line or "Good Luck" in line for line in shown)
    assert not any("Garlic" in line or "Good Luck" in line for line in g.log_lines(0))
    assert f"{GODALMING} holds Items: Garlic; Events: Good Luck" in (g.display(1) or [])


def test_everyone_sees_how_many_encounters_lie_on_each_face_down_card(rules) -> None:  # type: ignore[no-untyped-def]
    """A tile is laid face down on Dracula's Trail card [L178]: the Hunters see which face-down cards carry tiles
    and how many, not what they are (they used to see nothing of a face-down card's tiles)."""
    g = rules.new_game(2, seed=3, check_invariants=True)
    into_reserve(g, "Plague")
    play(g, policy(EAST, FAR_HUNTERS), lambda g: dracula_moving(g, 3))
    mine: dict[str, Any] = g.view(0)["zones"]
    trail = mine["trail"]["P1"]
    counts = [len(mine["tiles"].get(name, [])) for name in trail]
    assert counts[0] == 0 and sum(counts) >= 1  # none on the first turn [L102], one a turn after
    line = "Encounters on the Trail cards, oldest first: " + ", ".join(str(n) for n in counts)
    theirs = g.view(1)["zones"]
    assert all(name not in theirs["trail"]["P1"] for name in trail)  # the cards stay face down
    assert theirs.get("tiles", {}) == {}  # and the tiles' faces hidden
    for viewer in (0, 1):
        assert line in (g.display(viewer) or [])


def holding(rules, *cards: str, tile: str = "Plague") -> Game:  # type: ignore[no-untyped-def]
    """Godalming, in Clermont-Ferrand, is handed ``cards`` as Dracula is about to move on from Bordeaux, where he
    left ``tile`` (a Plague costs 2 Health)."""
    g = rules.new_game(2, seed=4, check_invariants=True)
    starts = {**FAR_HUNTERS, GODALMING: "clermont_ferrand"}
    into_reserve(g, tile)
    pol = policy(["Nantes", "Bordeaux", "Toulouse"], starts, {"Which encounter goes on Bordeaux?": tile})
    play(g, pol, lambda g: dracula_moving(g, 2) and "Bordeaux" in zone_names(g, "trail", 0))
    for card in cards:
        give(g, GODALMING, card)
    edited(g)
    return g


def dracula_observes(g: Game) -> tuple[list[tuple[int, ...]], tuple[Any, ...]]:
    """Who is asked, decision by decision, through a round in which Godalming walks into Bordeaux and meets the
    Plague (every Hunter declining what he may), and then everything Dracula is shown."""
    pol = policy(["Toulouse", "Saragossa"], {}, {f"Where does {GODALMING} go from Clermont-Ferrand?": "bordeaux"})
    asked: list[tuple[int, ...]] = []
    moves = 0
    for _ in range(80):
        if prompt(g)[1] == "Where does Dracula go?":
            moves += 1
            if moves == 2:
                return asked, observation(g, 0)
        d = g.decision
        assert d is not None
        asked.append(tuple(d.players))
        p, text, labels = prompt(g)
        choice = pol(p, text, labels)
        g.apply(labels.index(choice) if choice is not None else 0, p)
    raise AssertionError("Dracula never moved again")


@pytest.mark.parametrize(("held", "other"), [("Great Strength", "Long Day"), ("Heavenly Host", "Knife"),
                                             ("Forewarned", "Long Day"), ("Local Rumors", "Knife")])
def test_dracula_cannot_tell_which_card_a_hunter_holds_from_the_questions_he_is_asked(  # type: ignore[no-untyped-def]
        rules, held: str, other: str) -> None:
    """Holding Great Strength (asked when he would lose Health), Forewarned (asked as he meets a tile) or an Item
    usable before moving, or another card of the same kind, a Hunter who declines is asked the same questions,
    and Dracula's whole observation is the same. (He used to be asked only when he held the card that acts.)"""
    a, b = holding(rules, held), holding(rules, other)
    seen_a, seen_b = dracula_observes(a), dracula_observes(b)
    assert any("Plague" in line for line in seen_a[1][0])  # he met it (the Plague is named in Dracula's log)
    assert seen_a == seen_b


def test_the_swap_probe_pairs_face_down_trail_cards_only_with_as_many_tiles(rules) -> None:  # type: ignore[no-untyped-def]
    """The tile counts being public, two face-down Trail cards swapped by the fuzz's probe must carry as many tiles
    (what lies on a card goes with it): `liturgy fuzz --seed 1` reported the display's counts in another order,
    "0, 1, 1, 1" against "1, 1, 1, 0", as a leak. Game.sample_world already kept the counts."""
    g = rules.new_game(2, seed=3, check_invariants=True)
    into_reserve(g, "Plague")
    play(g, policy(EAST, FAR_HUNTERS), lambda g: dracula_moving(g, 4))
    names = g.state.tables.card_names
    tiles = {names.index(name): len(on) for name, on in g.view(0)["zones"]["tiles"].items()}
    trail = set(g.state.zones[zone_index(g, "trail", 0)])
    assert sorted(tiles.get(c, 0) for c in trail) == [0, 1, 1, 1]
    leaks = LeakCheck(g)
    swaps = [ni.choose_swap(g, 1, leaks.seen, random.Random(k)) for k in range(400)]
    on_trail = [sw for sw in swaps if sw is not None and sw.first in trail]
    assert on_trail
    assert all(tiles.get(sw.first, 0) == tiles.get(sw.second, 0) for sw in on_trail)
    assert ni.check_swap(g, on_trail[0], random.Random(0)) is None


def test_a_card_a_hunter_plays_is_named_to_dracula(rules) -> None:  # type: ignore[no-untyped-def]
    """A card played face up tells everyone what it is: the log line is written once the card lies on the open
    discard pile (written while it was still in the Hunter's hand, Dracula read "a hidden card plays a hidden
    card")."""
    g = holding(rules, "Great Strength")
    pol = policy(["Toulouse", "Saragossa"], {}, {f"Where does {GODALMING} go from Clermont-Ferrand?": "bordeaux",
                                                 f"{GODALMING} would lose 2 Health: play Great Strength?":
                                                     "Great Strength"})
    play(g, pol, lambda g: any("shrugs it off" in line for line in g.log_lines(0)))
    assert f"{GODALMING} plays Great Strength" in g.log_lines(0)
    assert not any("hidden card" in line for line in g.log_lines(0))


def test_the_spy_turns_the_hunters_cards_up_to_dracula(rules) -> None:  # type: ignore[no-untyped-def]
    """Spy: "each Hunter shows Dracula all his Items and Events" (its text): with the cards face down, the tile
    must turn them up to him, and only to him."""
    g = holding(rules, "Garlic", "Long Day", tile="Spy")
    pol = policy(["Toulouse", "Saragossa"], {}, {f"Where does {GODALMING} go from Clermont-Ferrand?": "bordeaux"})
    assert "Garlic" not in g.view(0)["zones"]["hitems"]
    play(g, pol, lambda g: prompt(g)[1] == f"{GODALMING} must announce his next move: where will he go?")
    assert "Garlic" in g.view(0)["zones"]["hitems"] and "Long Day" in g.view(0)["zones"]["hevents"]
    assert f"{GODALMING} shows you his Items (Garlic) and Events (Long Day)" in g.log_lines(0)
    assert "Garlic" not in (g.view(None)["zones"]["hitems"])  # the spectator was not shown


def test_dogs_lie_face_up(rules) -> None:  # type: ignore[no-untyped-def]
    """Dogs: "put face up in front of you" (its text), so Dracula sees them when they are drawn."""
    g = rules.new_game(2, seed=5, check_invariants=True)
    play(g, policy(EAST, FAR_HUNTERS), lambda g: prompt(g)[1].startswith(f"What does {GODALMING} do in"))
    s = g.state
    dogs = [c for c in s.zones[zone_index(g, "item_deck")] if s.tables.card_names[c] == "Dogs"][0]
    move_card(s, dogs, zone_index(g, "item_deck"), "")  # on top: the next Item drawn
    edited(g)
    answer(g, "supply")
    answer(g, "an Item")
    assert "Dogs" in g.view(0)["zones"]["hitems"]
