"""Helpers for the Fury of Dracula scenario tests (tests/test_fury_of_dracula_*.py): drive a real game by option
*label*, as a player at the terminal would, and set up the few cards a scenario needs by editing the position at a
decision (tests/scenario.py explains the rules for editing: edit only at a decision, move cards with the engine's
``move_card``, then let the ruleset recompute the pending options)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.runtime.moves import move_card
from liturgy.interpreter.runtime.names import place_names
from scenario import card_ids, card_slot, global_slot, refresh_decision, zone_index

GODALMING, SEWARD, VAN_HELSING, MINA = "Lord Godalming", "Dr. John Seward", "Prof. Abraham Van Helsing", "Mina Harker"
Policy = Callable[[int, str, list[str]], str | None]
# The optional answers that decline: a scenario says yes only where it means to.
DECLINE = ("play none", "spend none", "use none", "move on", "pass", "stop")


def prompt(g: Game) -> tuple[int, str, list[str]]:
    d = g.decision
    assert d is not None
    p = d.players[0]
    return p, d.prompts.get(p) or "", list(d.options[p])


def place_id(name: str) -> str:
    """The place a prompt names in words ("Clermont-Ferrand", "St. Joseph and St. Mary") as its identifier."""
    return re.sub(r"\W+", "_", name.lower()).strip("_")


def place_name(place: str) -> str:
    """How a prompt or log line names a place (`clermont_ferrand` → "Clermont-Ferrand")."""
    return _place_names()[place]


@lru_cache(maxsize=1)
def _place_names() -> dict[str, str]:
    prog = load_ruleset(Path(__file__).resolve().parent.parent / "rulesets/fury_of_dracula.rules").program
    return place_names(prog, "Place")


def policy(route: list[str], starts: Mapping[str, str], answers: Mapping[str, str] | None = None) -> Policy:
    """Dracula follows ``route``; Hunters start at ``starts``, stay where they are and pass; ``answers`` maps a
    prompt to the label to choose (first match wins); every other optional question is declined."""
    steps = iter(route)
    wanted = dict(answers or {})

    def choose(p: int, text: str, labels: list[str]) -> str | None:
        if text in wanted and wanted[text] in labels:
            return wanted[text]
        if p == 0 and text in ("Where does Dracula begin?", "Where does Dracula go?"):
            return next(steps, None)
        for name, place in starts.items():
            if text == f"Where does {name} start?":
                return place
        m = re.match(r"Where does .* go from (.+)\?", text)
        if m:
            return place_id(m.group(1))
        if text.startswith("What does"):
            return "pass_turn"
        for no in DECLINE:
            if no in labels:
                return no
        return None
    return choose


def play(g: Game, pol: Policy, until: Callable[[Game], bool], limit: int = 400) -> None:
    """Answer decisions with ``pol`` until ``until`` holds at a decision."""
    for _ in range(limit):
        if g.finished or until(g):
            return
        p, text, labels = prompt(g)
        choice = pol(p, text, labels)
        assert choice is None or choice in labels, (text, choice, labels)
        g.apply(labels.index(choice) if choice is not None else 0, p)
    raise AssertionError("the scenario did not reach its point")


def at_prompt(text: str) -> Callable[[Game], bool]:
    return lambda g: prompt(g)[1] == text


def answer(g: Game, label: str) -> None:
    p, text, labels = prompt(g)
    assert label in labels, (text, label, labels)
    g.apply(labels.index(label), p)


# ---------------------------------------------------------------- reading the state


def hunter(g: Game, name: str) -> int:
    return card_ids(g, name)[0]


def card_value(g: Game, name: str, counter: str) -> Any:
    return g.state.counters[card_slot(g, hunter(g, name), counter)]


def place_of(g: Game, name: str) -> str:
    return str(g.view(1)["counters"]["at"][name])


def value(g: Game, counter: str) -> Any:
    return g.state.counters[global_slot(g, counter)]


def zone_names(g: Game, zone: str, player: int | None = None) -> list[str]:
    s = g.state
    return [s.tables.card_names[c] for c in s.zones[zone_index(g, zone, player)]]


def held(g: Game, zone: str, name: str) -> list[str]:
    """The names of the cards in ``hitems`` or ``hevents`` held by Hunter ``name``."""
    s, h = g.state, hunter(g, name)
    return [s.tables.card_names[c] for c in s.zones[zone_index(g, zone)]
            if s.counters[card_slot(g, c, "held_by")] == h]


# ---------------------------------------------------------------- editing the position (at a decision)


def _take(g: Game, name: str, zones: list[int]) -> int:
    s = g.state
    for c in card_ids(g, name):
        if s.card_zone[c] in zones:
            return c
    raise LookupError(f"no {name!r} in the expected zones")


def give(g: Game, who: str, card: str) -> int:
    """Hand an Item or a Hunter event from its deck to Hunter ``who`` (it lies open, marked with its holder)."""
    s = g.state
    items = card in {s.tables.card_names[c] for c in s.zones[zone_index(g, "item_deck")]}
    c = _take(g, card, [zone_index(g, "item_deck" if items else "event_deck")])
    move_card(s, c, zone_index(g, "hitems" if items else "hevents"), "")
    s.counters[card_slot(g, c, "held_by")] = hunter(g, who)
    return c


def give_dracula(g: Game, card: str) -> int:
    """Put a Dracula event from the Event deck into his hand."""
    c = _take(g, card, [zone_index(g, "event_deck")])
    move_card(g.state, c, zone_index(g, "devents", 0), "")
    return c


def to_discard(g: Game, card: str, zone: str = "item_discard", deck: str = "item_deck") -> int:
    c = _take(g, card, [zone_index(g, deck)])
    move_card(g.state, c, zone_index(g, zone), "")
    return c


def into_reserve(g: Game, tile: str) -> None:
    """Swap an encounter tile of the pool into Dracula's reserve (one of his tiles goes back: 45 stay 45)."""
    s = g.state
    pool, reserve = zone_index(g, "encounter_pool"), zone_index(g, "reserve", 0)
    if tile in zone_names(g, "reserve", 0):
        return
    c = _take(g, tile, [pool])
    back = s.zones[reserve][0]
    move_card(s, back, pool, "")
    move_card(s, c, reserve, "")


def bottom_event(g: Game, card: str) -> None:
    """Make ``card`` the next Event drawn (draws come from the bottom of the deck)."""
    c = _take(g, card, [zone_index(g, "event_deck")])
    move_card(g.state, c, zone_index(g, "event_deck"), "bottom")


def to_allies(g: Game, card: str) -> None:
    """Bring an ally from the Event deck into play."""
    c = _take(g, card, [zone_index(g, "event_deck")])
    move_card(g.state, c, zone_index(g, "allies"), "")


def set_value(g: Game, counter: str, v: Any) -> None:
    g.state.counters[global_slot(g, counter)] = v


def set_card(g: Game, name: str, counter: str, v: Any) -> None:
    g.state.counters[card_slot(g, hunter(g, name), counter)] = v


def edited(g: Game) -> None:
    """Let the ruleset recompute the pending decision after an edit."""
    refresh_decision(g)
