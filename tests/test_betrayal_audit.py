"""Betrayal's rule-by-rule audit (issue 30): scenario tests for the rules of shared/rules/betrayal.md that the
earlier tests did not reach, each played by the real ruleset from an edited position (the helpers of
tests/test_betrayal.py). The audit table in docs/betrayal.md names the test of each rule.

First the two findings of the audit: one action per item per turn (L228-L240) and a trade that needs both
explorers to agree (L216).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from scenario import card_ids, card_slot, names
from test_betrayal import PATH, counter, force_dice, pick, pick_if_asked, set_counter, value
from test_betrayal_cards import first, gear, give, lay_in, log
from test_betrayal_house import options
from test_betrayal_items import again, haunt


@pytest.fixture(scope="module")
def rules() -> Ruleset:
    return load_ruleset(str(PATH))


def hold(g: Game, p: int, *cards: str) -> None:
    """``p`` holds these cards (as if drawn long ago)."""
    for c in cards:
        give(g, p, c)


def next_turn(g: Game, p: int, *edits: Callable[[], object]) -> None:
    """End the turns until ``p``'s next one, which starts from the position these edits make (the actions of a turn
    are offered from the position before each action, so a position is edited between turns)."""
    again(g, p, lambda: [e() for e in edits] and None)


def acted_in(g: Game, card: str) -> int:
    return int(g.state.counters[card_slot(g, card_ids(g, card)[0], "acted_in")])


# ------------------------------------------------------------------------------ one action per item per turn


def test_an_item_dropped_this_turn_cannot_be_picked_up_again(rules: Ruleset) -> None:
    """Drop the Candle, and picking it up again in the same turn is not offered (L228-L240: drop and pick up are two
    actions on one item). The next explorer, in the same room, may pick it up in their turn."""
    g, p = first(rules)
    q = (p + 1) % 3
    next_turn(g, p, lambda: hold(g, p, "Candle", "Axe"))
    pick(g, p, "drop_gear")
    pick(g, p, "Candle")
    pick_if_asked(g, p, "drop another item", "done")
    assert "Candle" in names(g, "dropped") and "pick_up" not in options(g, p)
    pick(g, p, "end_turn")
    assert g.waiting_for()[0] == q and "pick_up" in options(g, q)


def test_an_item_picked_up_cannot_be_dropped_or_given_in_the_same_turn(rules: Ruleset) -> None:
    """Pick up the Candle: it can't be dropped or handed to the explorer standing there in the same turn; the Axe,
    held from before, can."""
    g, p = first(rules)
    next_turn(g, p, lambda: lay_in(g, "Candle", "Entrance Hall"), lambda: hold(g, p, "Axe"))
    pick(g, p, "pick_up")
    assert "Candle" in gear(g, p)
    pick(g, p, "drop_gear")
    assert g.decision is not None and "drop which item" not in g.decision.prompt_for(p)  # only the Axe: not asked
    assert "Axe" in names(g, "dropped") and "Candle" in gear(g, p)
    assert "give_gear" not in options(g, p)  # the Candle is the only item left, picked up this turn


def test_attacking_with_the_spear_and_giving_it_away_in_one_turn_is_refused(rules: Ruleset) -> None:
    """The rulebook's example (L240): an explorer may not attack with the Spear and give it to another player in the
    same turn. After the attack the Spear is not offered to the hero standing by; the Candle still is."""
    g, p = first(rules)
    q = (p + 2) % 3  # the traitor
    h = (p + 1) % 3  # another hero, in the same room
    next_turn(g, p, lambda: hold(g, p, "Spear", "Candle"), lambda: haunt(g, q))
    pick(g, p, "attack")
    pick(g, p, "Spear")
    pick_if_asked(g, p, "attack whom", f"P{q + 1}")
    pick_if_asked(g, q, "how much on")
    pick_if_asked(g, p, "how much on")
    pick_if_asked(g, p, "steal an item", "deal damage")
    assert acted_in(g, "Spear") == counter(g, "turn_no")
    assert "give_gear" in options(g, p)
    pick(g, p, "give_gear")
    assert g.decision is not None and "give which item" not in g.decision.prompt_for(p)  # the Candle alone
    pick_if_asked(g, p, "to whom", f"P{h + 1}")
    assert "Spear" in gear(g, p)


def test_a_used_item_is_not_given_away_in_the_same_turn(rules: Ruleset) -> None:
    """Open the Music Box (its use), and it can't be given away in the same turn (L228-L240): only the Axe is
    offered."""
    g, p = first(rules)
    q = (p + 1) % 3
    next_turn(g, p, lambda: hold(g, p, "Music Box", "Axe"))
    pick(g, p, "use_gear")
    pick_if_asked(g, p, "use which card", "Music Box")
    assert "opens the Music Box" in log(g) and acted_in(g, "Music Box") == counter(g, "turn_no")
    pick(g, p, "give_gear")
    assert g.decision is not None and "give which item" not in g.decision.prompt_for(p)  # the Axe alone
    pick_if_asked(g, p, "to whom", f"P{q + 1}")
    pick(g, q, "yes")
    assert "Music Box" in gear(g, p) and "Axe" in gear(g, q)


def test_an_item_given_this_turn_is_not_stolen_back(rules: Ruleset) -> None:
    """The traitor hands the Axe to a hero and then beats him by 2 or more: stealing it back is not offered, as
    the Axe has had its one action this turn (give, L228-L238); a card the hero held before is."""
    g, p = first(rules)
    q = (p + 2) % 3  # the traitor, whose turn comes after the heroes'
    h = (p + 1) % 3
    next_turn(g, p, lambda: hold(g, q, "Axe"), lambda: hold(g, h, "Candle"), lambda: haunt(g, q))
    while g.waiting_for()[0] != q:
        pick(g, g.waiting_for()[0], "end_turn")
    pick(g, q, "give_gear")
    pick_if_asked(g, q, "give which item", "Axe")
    pick_if_asked(g, q, "to whom", f"P{h + 1}")
    pick(g, h, "yes")
    assert "Axe" in gear(g, h)
    set_counter(g, "pos", 8, q, "might")
    force_dice(g, [2] * value(g, q, "might") + [0] * value(g, h, "might"))
    pick(g, q, "attack")
    pick_if_asked(g, q, "attack whom", f"P{h + 1}")
    assert g.decision is not None and "steal an item" in g.decision.prompt_for(q)
    assert [o for o in g.decision.options[q] if o in ("Axe", "Candle")] == ["Candle"]


# ------------------------------------------------------------------------------ a trade needs both to agree


def test_the_receiver_is_asked_and_may_refuse(rules: Ruleset) -> None:
    """Giving an item needs both explorers to agree (L216): the receiver is asked. Refused, the item stays with the
    giver, the refused item is not offered again this turn, and the turn's give is not spent."""
    g, p = first(rules)
    q = (p + 1) % 3
    next_turn(g, p, lambda: hold(g, p, "Axe", "Candle"))
    pick(g, p, "give_gear")
    pick(g, p, "Axe")
    pick_if_asked(g, p, "give Axe to whom", f"P{q + 1}")
    assert g.decision is not None and list(g.waiting_for()) == [q] and "offers you Axe" in g.decision.prompt_for(q)
    pick(g, q, "no")
    assert "Axe" in gear(g, p) and "Axe" not in gear(g, q) and f"P{q + 1} refuses Axe" in log(g)
    assert counter(g, "gave", p) == 0 and "give_gear" in options(g, p)
    pick(g, p, "give_gear")
    assert g.decision is not None and "give which item" not in g.decision.prompt_for(p)  # the Candle alone
    pick_if_asked(g, p, "to whom", f"P{q + 1}")
    pick(g, q, "yes")
    assert "Candle" in gear(g, q) and counter(g, "gave", p) == 1 and "give_gear" not in options(g, p)


# ------------------------------------------------------------------------------ dropping and picking up any number


def test_drop_and_pick_up_any_number_of_items_once_a_turn(rules: Ruleset) -> None:
    """Once a turn an explorer drops any number of items (one Item Pile), and once picks up any number (L220-L222):
    the next explorer picks up both."""
    g, p = first(rules)
    q = (p + 1) % 3
    next_turn(g, p, lambda: hold(g, p, "Axe", "Candle", "Bottle"))
    pick(g, p, "drop_gear")
    pick(g, p, "Axe")
    pick(g, p, "Candle")
    pick(g, p, "done")
    assert sorted(names(g, "dropped")) == ["Axe", "Candle"] and gear(g, p) == ["Bottle"]
    assert "drop_gear" not in options(g, p)
    pick(g, p, "end_turn")
    pick(g, q, "pick_up")
    pick(g, q, "Axe")
    pick(g, q, "Candle")  # the last one: the loop ends, the pile is empty
    assert sorted(gear(g, q)) == ["Axe", "Candle"] and names(g, "dropped") == []
    assert "pick_up" not in options(g, q)
