"""Slay the Spire, Ascension 3 (§25.2: the A3 Event cards join the Event decks; cards/slay_the_spire/
ascension_events/events_a3.yaml, S1's `minAscension: 3` instances, provisional). The decks are read right after
setup; each event is played from a one-player run at its first combat, walked into floor 1's event room with the
event on top of its Act's deck (tests/test_slay_the_spire_faq.py's `enter_event`, test_slay_the_spire_act2_events.py's
`enter_act2_event`), and resolved with random choices until the card is back in its deck and a fight it
starts is over.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import yaml
from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, global_slot, zone_index
from tests.sts_setup import RULESET, set_pc, started, to_first_play
from tests.test_slay_the_spire_act2_events import enter_act2_event
from tests.test_slay_the_spire_faq import enter_event

A3_FILE = Path(__file__).resolve().parents[1] / "cards" / "slay_the_spire" / "ascension_events" / "events_a3.yaml"
A3_CARDS = yaml.safe_load(A3_FILE.read_text())["cards"]
DECKS = {1: "event_deck", 2: "event_deck_2", 3: "event_deck_3"}


def names(g: Game, zone: str) -> list[str]:
    return [g.state.tables.card_names[c] for c in g.state.zones[zone_index(g, zone)]]


def in_combat(g: Game) -> bool:
    return bool(g.state.counters[global_slot(g, "in_combat")])


def a3_names(act: int) -> list[str]:
    """The A3 cards of an Act, a card printed twice counted twice."""
    return sorted(c["name"] for c in A3_CARDS if c["act_no"] == act for _ in range(c.get("count", 1)))


def run_at(ascension: int, seed: int = 3) -> Game:
    """A one-player Ironclad run at the first play decision of its first combat, at this Ascension."""
    return to_first_play(started(1, seed, ascension=ascension))


def test_ascension_3_puts_exactly_the_a3_events_in_each_acts_deck() -> None:
    a0 = RULESET.new_game(1, 1, options={"ascension": "2"})
    a3 = RULESET.new_game(1, 1, options={"ascension": "3"})
    assert sorted(names(a0, "event_box")) == sorted(n for act in DECKS for n in a3_names(act))
    assert len(names(a0, "event_box")) == 13 and names(a3, "event_box") == []
    for act, zone in DECKS.items():
        below, at3 = names(a0, zone), names(a3, zone)
        assert not set(below) & set(a3_names(act))
        assert sorted(at3) == sorted(below + a3_names(act)), act
    assert len(a3_names(1)) == 6 and len(a3_names(2)) == 5 and len(a3_names(3)) == 2


def test_each_a3_event_plays_to_its_end_under_the_invariants() -> None:
    for i, card in enumerate(A3_CARDS):
        event, act = card["name"], card["act_no"]
        g = run_at(3, seed=i)
        set_pc(g, "max_hp", 20)
        set_pc(g, "hp", 20)
        g.state.counters[global_slot(g, "act_events")] = 1  # not the Act's first Event: no redraw
        if act == 1:
            enter_event(g, event)
            assert f"event: {event}" in g.log_lines()
        else:
            enter_act2_event(g, event, act)
        rng, fought = random.Random(i), False
        for _ in range(3000):  # the event, and a fight it starts (Encounter!, Dead Adventurer) to its end
            d = g.decision
            fought = fought or in_combat(g)
            if d is None or not (g.state.zones[zone_index(g, "event_card")] or in_combat(g)):
                break
            p = d.players[0]
            g.apply(rng.randrange(len(d.options[p])), p)
        assert g.finished or not (g.state.zones[zone_index(g, "event_card")] or in_combat(g)), event
        if event.startswith("Encounter!"):
            assert fought, event  # treated as an Encounter: a fight of the Act
        assert g.error is None and not g.violations(), event
        if not g.finished:
            assert event in names(g, DECKS[act]), event


def test_a_rider_card_drawn_as_the_acts_first_event_is_discarded_and_another_drawn() -> None:
    g = run_at(3)
    _move(g, card_ids(g, "World of Goop")[0], zone_index(g, "event_deck"), "top")
    enter_event(g, "The Merchant")
    log = g.log_lines()
    assert "The Merchant is the Act's first Event: it is discarded and another is drawn" in log
    assert "event: World of Goop" in log and "event: The Merchant" not in log
    assert names(g, "event_deck")[0] == "The Merchant"  # at the bottom
    d = g.decision
    assert d is not None and "gather_gold" in d.options[0] and not g.violations()


def test_a_rider_card_that_is_not_the_first_event_plays_its_face() -> None:
    g = run_at(3)
    g.state.counters[global_slot(g, "act_events")] = 1
    enter_event(g, "The Merchant")
    assert "event: The Merchant" in g.log_lines()
    d = g.decision
    assert d is not None and d.prompt.startswith("Merchant:") and not g.violations()


# The logs of random 1-4 player runs at Ascension 2, hashed at d688bd0 (before the A3 cards); the 1- and 2-player
# ones each meet an event.
A2_LOGS = {
    (1, 5): "684ca0629afac790",
    (1, 7): "88f0a721467950fd",
    (2, 7): "212a7d52ff69ac14",
    (2, 9): "0fb1a12aff0d242d",
    (3, 22): "f22c731f2bc815f4",
    (4, 9): "de5433fd242489e4",
}


def test_ascension_2_games_play_the_same_logs_as_before_the_a3_cards() -> None:
    for (players, seed), digest in A2_LOGS.items():
        g = RULESET.new_game(players, seed, check_invariants=True, options={"ascension": "2"})
        g.random_playout(random.Random(seed))
        assert hashlib.sha256("\n".join(g.log_lines()).encode()).hexdigest()[:16] == digest, (players, seed)
