"""Betrayal's rule-by-rule audit (issue 30): scenario tests for the rules of shared/rules/betrayal.md that the
earlier tests did not reach, each played by the real ruleset from an edited position (the helpers of
tests/test_betrayal.py). The audit table in docs/betrayal.md names the test of each rule.

First the two findings of the audit: one action per item per turn (L228-L240) and a trade that needs both
explorers to agree (L216).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from scenario import _move as move_to_zone
from scenario import card_ids, card_slot, field, names, zone_index
from test_betrayal import (
    PATH,
    counter,
    explore_into,
    force_dice,
    pick,
    pick_if_asked,
    put_on_top,
    set_counter,
    value,
)
from test_betrayal_cards import first, gear, give, lay_in, log, place_at
from test_betrayal_house import answer, card, options
from test_betrayal_items import again, haunt, monster_at


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


# ------------------------------------------------------------------------------ stealing on 2+ damage (L294)


def _attack_the_traitor(
    rules: Ruleset, weapon: str, held: str, margin: int, far: bool = False
) -> tuple[Game, int, int]:
    """Hero ``p`` attacks the traitor ``q`` (holding ``held``, from before) and wins by ``margin``: ``p`` rolls
    ``margin`` in 1s and 0s, ``q`` rolls all 0s. ``far``: ``q`` stands in the Foyer, in the line of fire."""
    g, p = first(rules)
    q = (p + 2) % 3
    next_turn(g, p, lambda: hold(g, p, *([weapon] if weapon else [])), lambda: hold(g, q, held),
              lambda: haunt(g, q), lambda: place_at(g, q, "Foyer") if far else None)
    trait = "speed" if weapon == "Revolver" else "sanity" if weapon == "Ring" else "might"
    extra = 1 if weapon == "Revolver" else 0
    force_dice(g, [1] * margin + [0] * (value(g, p, trait) + extra - margin) + [0] * value(g, q, trait))
    pick(g, p, "attack")
    if weapon == "Ring":
        pick(g, p, "sanity")
    elif weapon:
        pick(g, p, weapon)
    return g, p, q


@pytest.mark.parametrize(("weapon", "held", "margin", "far", "offered"), [
    ("", "Candle", 2, False, True),           # a Might attack won by 2: steal instead of damage
    ("", "Candle", 1, False, False),          # won by 1: damage only
    ("", "Armor", 3, False, False),           # the Armor can't be stolen (items.yaml)
    ("Ring", "Candle", 3, False, False),      # a Sanity attack deals mental damage: no stealing
    ("Revolver", "Candle", 3, True, False),   # a distance attack never steals (L294)
])
def test_stealing_needs_a_physical_hand_to_hand_win_by_two(
    rules: Ruleset, weapon: str, held: str, margin: int, far: bool, offered: bool
) -> None:
    """L294: an attack that would deal 2 or more physical damage may take one tradeable item instead of the
    damage; never at a distance."""
    g, p, q = _attack_the_traitor(rules, weapon, held, margin, far)
    trait = "speed" if weapon == "Revolver" else "sanity" if weapon == "Ring" else "might"
    assert f"P{p + 1} attacks P{q + 1} with {trait}: {margin} against 0" in log(g)
    asked = g.decision is not None and "steal an item" in g.decision.prompt_for(p)
    assert asked is offered


def test_a_steal_takes_one_item_and_deals_no_damage(rules: Ruleset) -> None:
    g, p, q = _attack_the_traitor(rules, "", "Candle", 3)
    before = [counter(g, "pos", q, t) for t in ("might", "speed", "knowledge", "sanity")]
    pick(g, p, "Candle")
    assert "Candle" in gear(g, p) and "Candle" not in gear(g, q) and f"P{p + 1} steals Candle from P{q + 1}" in log(g)
    assert [counter(g, "pos", q, t) for t in ("might", "speed", "knowledge", "sanity")] == before


# ------------------------------------------------------------------------------ monsters: movement and stun


def _haunted(rules: Ruleset, monsters: dict[str, str], stunned: tuple[str, ...] = ()) -> tuple[Game, int, int]:
    """The haunt has begun before ``p``'s next turn (``q`` the traitor); these monsters stand in these rooms (in the
    monster turn before it the traitor keeps them where they are), and the ``stunned`` ones are stunned now."""
    g, p = first(rules)
    q = (p + 2) % 3

    def put() -> None:
        haunt(g, q)
        for name, room in monsters.items():
            monster_at(g, name, room)

    pick_if_asked(g, p, "what now", "end_turn")
    put()
    while g.waiting_for()[0] != p:
        w = g.waiting_for()[0]
        prompt = g.decision.prompt_for(w) if g.decision is not None else ""
        pick(g, w, "end_turn" if "what now" in prompt else "stay" if "move " in prompt else "pass")
    for name in stunned:
        g.state.counters[card_slot(g, card_ids(g, name)[0], "stunned")] = 1
    return g, p, q


def _left(g: Game, w: int) -> int:
    """The movement left in the traitor's question 'move X where (N left)?'."""
    prompt = g.decision.prompt_for(w) if g.decision is not None else ""
    return int(prompt.rsplit("(", 1)[1].split(" ", 1)[0])


def _to_monster_turn(g: Game, q: int, dice: list[int]) -> None:
    """End the explorers' turns; the monster turn then starts with these dice (set as the traitor ``q``, last,
    ends his turn)."""
    while not (g.waiting_for()[0] == q and "what now" in g.decision.prompt_for(q)):  # type: ignore[union-attr]
        pick(g, g.waiting_for()[0], "end_turn")
    force_dice(g, dice)
    pick(g, q, "end_turn")


def test_monsters_of_one_kind_roll_their_movement_once(rules: Ruleset) -> None:
    """A group of monsters of the same kind rolls once for the whole group (L386: Zombies or Bats). The first zombie
    rolls 2 + 2; the next two dice show 0 + 0 (1, the least a monster moves), which a second roll would give: the
    other zombie moves 4 as well."""
    g, p, q = _haunted(rules, {"Zombie A": "Foyer", "Zombie B": "Foyer"})
    _to_monster_turn(g, q, [2, 2, 0, 0])
    assert "move Zombie" in g.decision.prompt_for(q) and _left(g, q) == 4  # type: ignore[union-attr]
    pick(g, q, "stay")
    assert "move Zombie" in g.decision.prompt_for(q) and _left(g, q) == 4  # type: ignore[union-attr]
    assert "the Zombies roll 4 for their movement" in log(g)


def test_heroes_slow_a_monster_leaving_their_room(rules: Ruleset) -> None:
    """Each opponent in a room costs 1 more movement to pass through it (L352): heroes slow monsters. The Werewolf
    (4 dice: 8) leaves the Entrance Hall, where the two heroes stand: 3 of its movement, not 1."""
    g, p, q = _haunted(rules, {"Werewolf": "Entrance Hall"})
    for x in range(3):
        place_at(g, x, "Entrance Hall")
    _to_monster_turn(g, q, [2, 2, 2, 2])
    assert "move Werewolf" in g.decision.prompt_for(q) and _left(g, q) == 8  # type: ignore[union-attr]
    pick(g, q, "Foyer")
    assert "move Werewolf" in g.decision.prompt_for(q) and _left(g, q) == 5  # type: ignore[union-attr]
    pick(g, q, "Entrance Hall")  # the Foyer is empty: 1
    assert _left(g, q) == 4


@pytest.mark.parametrize("stunned", [True, False])
def test_a_stunned_monster_does_not_slow_a_hero(rules: Ruleset, stunned: bool) -> None:
    """Stunned monsters don't slow anyone (L356, L388): a hero leaving the Werewolf's room spends 1 movement if it
    is stunned, 2 if not."""
    g, p, q = _haunted(rules, {"Werewolf": "Entrance Hall"}, ("Werewolf",) if stunned else ())
    place_at(g, q, "Foyer")  # the traitor elsewhere: only the monster is an opponent in the room
    moves = counter(g, "moves", p)
    pick(g, p, "go")
    pick_if_asked(g, p, "go where", "Foyer")
    assert counter(g, "moves", p) == moves - (1 if stunned else 2)


def test_a_stunned_monster_skips_its_next_turn_and_recovers(rules: Ruleset) -> None:
    """A monster that took damage is stunned and skips its next turn (L388): the Werewolf does not move in the
    monster turn, and stands up at its end."""
    g, p, q = _haunted(rules, {"Werewolf": "Foyer"}, ("Werewolf",))
    wolf = card_ids(g, "Werewolf")[0]
    turns = counter(g, "turn_no")
    while counter(g, "turn_no") < turns + 3:  # the two heroes', the traitor's, then the monsters' turn
        assert g.decision is not None and "move Werewolf" not in g.decision.prompt_for(g.waiting_for()[0])
        pick(g, g.waiting_for()[0], "end_turn")
    assert g.state.counters[card_slot(g, wolf, "stunned")] == 0
    assert g.state.counters[card_slot(g, wolf, "m_at")] == card_ids(g, "Foyer")[0]


@pytest.mark.parametrize("stunned", [True, False])
def test_a_stunned_monster_still_defends_but_deals_no_damage(rules: Ruleset, stunned: bool) -> None:
    """Stunned monsters still roll to defend; if a hero's attack on them fails, they deal no damage (L286)."""
    g, p, q = _haunted(rules, {"Werewolf": "Entrance Hall"}, ("Werewolf",) if stunned else ())
    place_at(g, q, "Foyer")
    before = [counter(g, "pos", p, t) for t in ("might", "speed")]
    force_dice(g, [0] * value(g, p, "might") + [2] * 6)
    pick(g, p, "attack")
    pick_if_asked(g, p, "how much on")
    assert f"P{p + 1} against Werewolf (might): 0 against" in log(g)
    after = [counter(g, "pos", p, t) for t in ("might", "speed")]
    assert (after == before) is stunned


# ------------------------------------------------------------------------------ the house: closing off a floor, the
# Coal Chute, the Mystic Elevator


def _explore_from(g: Game, p: int, room: str, tile: str, deck: str = "", card: str = "") -> None:
    """In ``p``'s next turn, from ``room``, ``p`` explores through the first open door and finds ``tile``."""
    next_turn(g, p, lambda: set_counter(g, "at", card_ids(g, room)[0], p))
    explore_into(g, p, tile, deck, card)


def test_a_tile_that_would_close_off_its_floor_is_set_aside(rules: Ruleset) -> None:
    """A placement must leave its floor a free doorway (L180-L182). Three dead ends around the Basement Landing
    leave the basement one free doorway; the Pentagram Chamber (one door) would close it: it is set aside and
    the next basement tile, the Dusty Hallway, is placed instead."""
    g, p = first(rules)
    _explore_from(g, p, "Basement Landing", "Stairs From Basement")
    linked = g.view(p)["graphs"]["house"]["linked"]  # found, its stairs lead to the Foyer (L136)
    assert any(set(x[:2]) == {"stairs_from_basement", "foyer"} and x[2] == "stairs" for x in linked)
    _explore_from(g, p, "Basement Landing", "Storeroom", "item_deck", "Candle")
    _explore_from(g, p, "Basement Landing", "Vault", "event_deck", "Image in the Mirror")
    doorways = g.state.counters[g.ruleset.compiled.layout.grids["doorways"].slot(0, 0)]
    assert doorways == 1
    next_turn(g, p, lambda: set_counter(g, "at", card_ids(g, "Basement Landing")[0], p))
    put_on_top(g, "Dusty Hallway", "room_stack")
    explore_into(g, p, "Pentagram Chamber")
    assert "Pentagram Chamber would close off the basement: set aside" in log(g)
    assert "Pentagram Chamber" in names(g, "set_aside") and "Dusty Hallway" in names(g, "house_rooms")
    assert g.state.counters[g.ruleset.compiled.layout.grids["doorways"].slot(0, 0)] > 0
    assert g.violations() == []


def test_the_mystic_elevator_never_takes_a_floors_last_free_doorway(rules: Ruleset) -> None:
    """A tile moved by the Mystic Elevator must leave its floor a free doorway, as a tile placed does (L180-L184).
    With the basement down to one free doorway, a roll of 1 (the basement) finds no place there: the elevator,
    which has one door, would close the floor off, so it stays where it is."""
    g, p = first(rules)
    _explore_from(g, p, "Basement Landing", "Stairs From Basement")
    _explore_from(g, p, "Basement Landing", "Storeroom", "item_deck", "Candle")
    _explore_from(g, p, "Basement Landing", "Vault", "event_deck", "Image in the Mirror")
    slot = g.ruleset.compiled.layout.grids["doorways"].slot(0, 0)
    assert g.state.counters[slot] == 1
    next_turn(g, p, lambda: set_counter(g, "at", card_ids(g, "Entrance Hall")[0], p))
    explore_into(g, p, "Mystic Elevator", dice=[1, 0])
    assert "rides the Mystic Elevator: it rolls 1" in log(g)
    assert card(g, "Mystic Elevator", "fl") == 1  # still on the ground floor, where it was found
    assert g.state.counters[slot] == 1 and g.violations() == []


def test_the_coal_chute_slides_you_to_the_basement_for_one_movement(rules: Ruleset) -> None:
    """Entering the Coal Chute and sliding to the basement cost 1 movement in all, and no turn ends in the chute
    (L154)."""
    g, p = first(rules)
    moves = counter(g, "moves", p)
    explore_into(g, p, "Coal Chute")
    assert counter(g, "at", p) == card_ids(g, "Basement Landing")[0] and "slides down the Coal Chute" in log(g)
    assert counter(g, "moves", p) == moves - 1


def test_the_mystic_elevator_moves_once_a_turn_and_again_at_the_end_of_a_turn_spent_in_it(rules: Ruleset) -> None:
    """Usable once per turn (L146): found and ridden, the elevator does not roll again at the end of that turn.
    A hero who ends a later turn in it rolls for it (L150)."""
    g, p = first(rules)
    explore_into(g, p, "Mystic Elevator", dice=[1, 1])  # 2: it stays on the ground floor
    answer(g, p, "at which doorway", "turn the", "next to which room")
    assert log(g).count("rides the Mystic Elevator") == 1
    pick_if_asked(g, p, "what now", "end_turn")
    assert log(g).count("rides the Mystic Elevator") == 1
    while g.waiting_for()[0] != p:
        pick(g, g.waiting_for()[0], "end_turn")
    force_dice(g, [1, 1])
    pick(g, p, "end_turn")
    assert log(g).count("rides the Mystic Elevator") == 2


# ------------------------------------------------------------------------------ hidden traitor (L368-L376)


def _dance(rules: Ruleset) -> tuple[Game, int]:
    """The Holy Symbol found in the Abandoned Room with a haunt roll of 0: haunt 9, The Dance of Death, a hidden
    traitor haunt. Returns the game at the first turn after the haunt, and the revealer."""
    g, p = first(rules)
    explore_into(g, p, "Abandoned Room", "omen_deck", "Holy Symbol", dice=[0] * 6)
    pick_if_asked(g, p, "what now", "end_turn")
    assert "haunt 9. The Dance of Death" in log(g)
    return g, p


def test_hidden_traitor_tokens_are_dealt_face_down_and_the_revealers_left_goes_first(rules: Ruleset) -> None:
    """Tokens 1..N, one per player, face down; token 1 is the traitor; the player left of the revealer takes the
    first turn (L370). Nobody but the holder sees a token."""
    g, p = _dance(rules)
    assert g.waiting_for()[0] == (p + 1) % 3
    held = [names(g, "token", x) for x in range(3)]
    assert sorted(t for ts in held for t in ts) == ["Token 1", "Token 2", "Token 3"]
    assert all(names(g, "token_up", x) == [] for x in range(3))
    holder = next(x for x in range(3) if held[x] == ["Token 1"])
    for x in range(3):
        if x != holder:
            assert "Token 1" not in json.dumps(g.view(x)) and "Token 1" not in "\n".join(g.log_lines(x))


def test_only_the_holder_of_token_1_may_reveal_and_it_flips_face_up(rules: Ruleset) -> None:
    """The traitor may reveal himself at any time by flipping token 1; no other living player may flip theirs
    (L374-L376). Revealed, he is on the traitor's side."""
    g, p = _dance(rules)
    holder = next(x for x in range(3) if names(g, "token", x) == ["Token 1"])
    seen = 0
    while g.waiting_for()[0] != holder:
        w = g.waiting_for()[0]
        assert "reveal_self" not in options(g, w)
        pick(g, w, "end_turn")
        seen += 1
    assert "reveal_self" in options(g, holder)
    pick(g, holder, "reveal_self")
    assert names(g, "token_up", holder) == ["Token 1"] and counter(g, "side", holder) == 2
    assert f"P{holder + 1} flips token 1" in log(g)
    assert seen <= 2


def test_a_dead_explorers_token_is_turned_face_up(rules: Ruleset) -> None:
    """A dead explorer's token is flipped face up (L376): a hero at his lowest Might and Speed takes physical
    damage from the Bite after the haunt and dies."""
    g, p = _dance(rules)
    x = g.waiting_for()[0]
    token = names(g, "token", x)
    set_counter(g, "pos", 1, x, "might")
    set_counter(g, "pos", 1, x, "speed")
    put_on_top(g, "Bite", "omen_deck")
    force_dice(g, [2] * 4 + [0] * 8)
    explore_into(g, x, "Kitchen")
    pick_if_asked(g, x, "how much on")
    assert counter(g, "alive", x) == 0 and names(g, "token_up", x) == token and names(g, "token", x) == []


# ------------------------------------------------------------------------------ item bonuses lost as gained (L242)


def test_a_given_bonus_card_takes_back_only_what_it_gave_and_gives_the_receiver_its_own(rules: Ruleset) -> None:
    """The Holy Symbol (+2 Sanity) gave its holder only 1 (one step from the top of the track): handed over, the
    giver loses 1, not 2, and the receiver, lower on the track, gains 2 (L242)."""
    g, p = first(rules)
    q = (p + 1) % 3
    next_turn(g, p, lambda: set_counter(g, "pos", 7, p, "sanity"), lambda: set_counter(g, "pos", 3, q, "sanity"))
    explore_into(g, p, "Kitchen", "omen_deck", "Holy Symbol")
    assert counter(g, "pos", p, "sanity") == 8
    next_turn(g, p, lambda: set_counter(g, "at", card_ids(g, "Kitchen")[0], q))
    pick(g, p, "give_gear")
    pick_if_asked(g, p, "to whom", f"P{q + 1}")
    pick(g, q, "yes")
    assert counter(g, "pos", p, "sanity") == 7 and counter(g, "pos", q, "sanity") == 5


# ------------------------------------------------------------------------------ the traitor's powers (L358-L366)


def _traitors_turn(rules: Ruleset) -> tuple[Game, int, int]:
    g, p, q = _haunted(rules, {})
    while not (g.waiting_for()[0] == q and "what now" in g.decision.prompt_for(q)):  # type: ignore[union-attr]
        pick(g, g.waiting_for()[0], "end_turn")
    return g, p, q


@pytest.mark.parametrize("accept", [False, True])
def test_the_traitor_may_decline_the_bite(rules: Ruleset, accept: bool) -> None:
    """The traitor may decline the effect of the Bite (or of any Event card); accepting, he takes the results
    (L364)."""
    g, p, q = _traitors_turn(rules)
    explore_into(g, q, "Kitchen", "omen_deck", "Bite")
    assert g.decision is not None and "accept the effect of the Bite" in g.decision.prompt_for(q)
    pick(g, q, "yes" if accept else "no")
    assert ("an attack of" in log(g)) is accept
    assert (f"P{q + 1} declines the effect of the Bite" in log(g)) is not accept


def test_the_traitor_may_decline_an_event(rules: Ruleset) -> None:
    g, p, q = _traitors_turn(rules)
    sanity = counter(g, "pos", q, "sanity")
    explore_into(g, q, "Ballroom", "event_deck", "Creepy Crawlies")
    pick(g, q, "no")
    assert f"P{q + 1} declines the effect of Creepy Crawlies" in log(g) and counter(g, "pos", q, "sanity") == sanity


def test_a_hero_is_not_asked_to_accept_an_event(rules: Ruleset) -> None:
    g, p, q = _haunted(rules, {})
    force_dice(g, [0] * 8)
    explore_into(g, p, "Ballroom", "event_deck", "Creepy Crawlies")
    assert "accept the effect" not in log(g) and "declines" not in log(g)
    assert g.decision is None or "accept the effect" not in g.decision.prompt_for(g.waiting_for()[0])


# ------------------------------------------------------------------------------ turns and attacks after the haunt


def test_after_the_haunt_heroes_play_from_the_traitors_left_then_the_traitor(rules: Ruleset) -> None:
    """Turn order after the haunt (L338): the hero to the traitor's left, the other heroes clockwise, the traitor;
    then the monster turn. Book x Kitchen is haunt 3 (test_betrayal.py), its traitor the lowest Knowledge."""
    g, p = first(rules)
    explore_into(g, p, "Kitchen", "omen_deck", "Book", dice=[0] * 6)
    pick_if_asked(g, p, "what now", "end_turn")
    t = next(x for x in range(3) if counter(g, "side", x) == 2)
    order = []
    while len(order) < 3:
        w = g.waiting_for()[0]
        if "what now" in g.decision.prompt_for(w):  # type: ignore[union-attr]
            order.append(w)
            pick(g, w, "end_turn")
        else:
            pick(g, w, "stay" if "move " in g.decision.prompt_for(w) else "pass")  # type: ignore[union-attr]
    assert order == [(t + 1) % 3, (t + 2) % 3, t]


def test_no_attack_before_the_haunt_and_one_a_turn_after(rules: Ruleset) -> None:
    """No attacks before the haunt (L116, L274); after it, at most one attack a turn (L276)."""
    g, p = first(rules)
    assert "attack" not in options(g, p)  # the others stand in the room
    g, p, q = _haunted(rules, {})
    assert "attack" in options(g, p)
    # a tie: nobody is hurt (each rolls their Might in dice; forcing 16 blanks searched ~12M RNG states, 19 s)
    force_dice(g, [0] * (value(g, p, "might") + value(g, q, "might")))
    pick(g, p, "attack")
    pick_if_asked(g, p, "attack whom", f"P{q + 1}")
    assert "with might: 0 against 0" in log(g)
    assert "attack" not in options(g, p)


def test_an_explorer_always_moves_at_least_one_space(rules: Ruleset) -> None:
    """However many opponents slow you, you can always move 1 space (L354): with 1 movement left in a room with the
    Werewolf and the traitor (3 to leave), the hero still goes, and then has no movement left."""
    g, p, q = _haunted(rules, {"Werewolf": "Entrance Hall"})
    set_counter(g, "moves", 1, p)
    pick(g, p, "go")
    pick_if_asked(g, p, "go where", "Foyer")
    assert counter(g, "at", p) == card_ids(g, "Foyer")[0] and counter(g, "moves", p) == 0
    assert "go" not in options(g, p)


# ------------------------------------------------------------------------------ an attack is not a trait roll (L268)


@pytest.mark.parametrize(("card", "offered"), [("Adrenaline Shot", False), ("Idol", True)])
def test_an_attack_roll_is_not_a_trait_roll(rules: Ruleset, card: str, offered: bool) -> None:
    """Effects on trait rolls skip attack rolls (L268): the Adrenaline Shot (+4 to a trait roll) is not offered
    when attacking; the Idol, whose text names combat rolls too, is."""
    g, p = first(rules)
    q = (p + 2) % 3
    next_turn(g, p, lambda: hold(g, p, card), lambda: haunt(g, q))
    pick(g, p, "attack")
    pick_if_asked(g, p, "attack whom", f"P{q + 1}")
    prompt = g.decision.prompt_for(g.waiting_for()[0]) if g.decision is not None else ""
    assert ("Adrenaline Shot" in prompt or "Idol" in prompt) is offered


# ------------------------------------------------------------------------------ what can't change hands; the front door


def test_the_companions_and_the_bite_never_change_hands(rules: Ruleset) -> None:
    """Bite, Dog, Girl and Madman are not items: they can't be given, dropped or stolen (L226)."""
    g, p = first(rules)
    next_turn(g, p, lambda: hold(g, p, "Dog", "Girl", "Madman", "Bite"))
    here = options(g, p)
    assert "give_gear" not in here and "drop_gear" not in here


def test_the_front_door_is_never_explored(rules: Ruleset) -> None:
    """The front door is always locked before the haunt (L132): the Entrance Hall offers its other doorways only."""
    g, p = first(rules)
    pick(g, p, "explore")
    assert g.decision is not None and "explore through which door" in g.decision.prompt_for(p)
    assert "2" not in g.decision.options[p] and len(g.decision.options[p]) >= 1


def test_monsters_never_take_a_secret_passage(rules: Ruleset) -> None:
    """Monsters can't use a Secret Passage or Secret Stairs (L394): a passage joins the Ballroom to the Upper
    Landing; the Werewolf in the Ballroom is not offered the Upper Landing."""
    g, p = first(rules)
    q = (p + 2) % 3
    explore_into(g, p, "Ballroom", "event_deck", "Secret Passage", dice=[2, 2, 2])
    pick(g, p, "Upper Landing")
    pick(g, p, "no")  # not through it now
    linked = g.view(p)["graphs"]["house"]["linked"]
    assert any(set(x[:2]) == {"ballroom", "upper_landing"} for x in linked)
    pick_if_asked(g, p, "what now", "end_turn")
    haunt(g, q)
    monster_at(g, "Werewolf", "Ballroom")
    while g.decision is not None and "move Werewolf" not in g.decision.prompt_for(g.waiting_for()[0]):
        pick(g, g.waiting_for()[0], "end_turn")
    assert g.decision is not None
    offered = g.decision.options[q]
    assert "Upper Landing" not in offered and len(offered) >= 2  # a room through a doorway, and "stay"


def test_no_haunt_roll_after_the_haunt(rules: Ruleset) -> None:
    """After the haunt an omen drawn makes no haunt roll (L340)."""
    g, p, q = _haunted(rules, {})
    explore_into(g, p, "Kitchen", "omen_deck", "Book")
    pick_if_asked(g, p, "what now", "end_turn")
    assert f"P{p + 1} draws the omen Book" in log(g) and "makes the haunt roll" not in log(g)


def test_a_monster_rolling_0_still_moves_one_space(rules: Ruleset) -> None:
    """At least 1 space, also for a monster that rolls 0 for movement (L354)."""
    g, p, q = _haunted(rules, {"Werewolf": "Foyer"})
    _to_monster_turn(g, q, [0, 0, 0, 0])
    assert "move Werewolf" in g.decision.prompt_for(q) and _left(g, q) == 1  # type: ignore[union-attr]


def test_a_dead_traitor_still_moves_the_monsters(rules: Ruleset) -> None:
    """The traitor keeps control of the monsters after his explorer dies (L342, L366)."""
    g, p, q = _haunted(rules, {"Werewolf": "Foyer"})
    set_counter(g, "alive", 0, q)  # dead: a trait at the skull
    set_counter(g, "pos", 0, q, "sanity")
    while g.decision is not None and "move Werewolf" not in g.decision.prompt_for(g.waiting_for()[0]):
        pick(g, g.waiting_for()[0], "end_turn")
    assert g.decision is not None and g.waiting_for()[0] == q


def test_no_attack_with_a_trait_the_target_lacks(rules: Ruleset) -> None:
    """You can't attack with a trait the target doesn't have (L282): with the Ring a hero may attack with Sanity,
    but a Zombie has none, so a Sanity attack finds nobody."""
    g, p, q = _haunted(rules, {"Zombie A": "Entrance Hall"})
    place_at(g, q, "Foyer")
    hold(g, p, "Ring")  # what the attack may use is read when attacking
    pick(g, p, "attack")
    pick(g, p, "sanity")
    assert f"P{p + 1} finds nobody to attack with sanity" in log(g) and "against Zombie A" not in log(g)


def test_the_new_traitor_is_freed_of_restricting_effects(rules: Ruleset) -> None:
    """On becoming the traitor he is freed at once of restricting card effects, such as the Webs (L360). Haunt 3
    (Book x Kitchen) makes the lowest Knowledge other than the revealer the traitor: that explorer was stuck."""
    g, p = first(rules)
    x = (p + 1) % 3
    for who in range(3):
        set_counter(g, "pos", 1 if who == x else 5, who, "knowledge")
    set_counter(g, "stuck", 1, x)
    explore_into(g, p, "Kitchen", "omen_deck", "Book", dice=[0] * 6)
    pick_if_asked(g, p, "what now", "end_turn")
    assert counter(g, "side", x) == 2 and counter(g, "stuck", x) == 0


@pytest.mark.parametrize("traitor", [True, False])
def test_the_crypt_hurts_a_hero_not_the_traitor(rules: Ruleset, traitor: bool) -> None:
    """The Crypt hurts whoever ends a turn there (rooms.yaml); the traitor ignores every negative room effect
    (L362)."""
    g, p, q = _haunted(rules, {})
    who = q if traitor else (p + 1) % 3
    set_counter(g, "at", card_ids(g, "Basement Landing")[0], who)  # before that explorer's turn starts
    while not (g.waiting_for()[0] == who and "what now" in g.decision.prompt_for(who)):  # type: ignore[union-attr]
        pick(g, g.waiting_for()[0], "end_turn")
    explore_into(g, who, "Crypt", "event_deck", "Image in the Mirror")
    pick_if_asked(g, who, "accept the effect", "yes")
    pick_if_asked(g, who, "what now", "end_turn")
    assert (f"the Crypt hurts P{who + 1}" in log(g)) is not traitor


def test_in_the_hidden_traitor_haunt_anyone_may_attack_anyone(rules: Ruleset) -> None:
    """Any explorer may attack any other explorer they suspect (L378): in the Dance of Death, with nobody revealed,
    the first explorer is offered an attack on the others in the Entrance Hall."""
    g, p = _dance(rules)
    x = g.waiting_for()[0]
    assert all(counter(g, "side", y) == 1 for y in range(3)) and "attack" in options(g, x)


def test_a_dead_explorers_items_stay_in_the_room(rules: Ruleset) -> None:
    """A dead explorer's items are left in the room (2nd edition; spec Appendix C 7): the Axe lies in the Kitchen."""
    g, p, q = _haunted(rules, {})
    hold(g, p, "Axe")
    set_counter(g, "pos", 1, p, "might")
    set_counter(g, "pos", 1, p, "speed")
    force_dice(g, [2] * 4 + [0] * 8)
    explore_into(g, p, "Kitchen", "omen_deck", "Bite")
    pick_if_asked(g, p, "how much on")
    assert counter(g, "alive", p) == 0 and "Axe" in names(g, "dropped")
    assert g.state.counters[card_slot(g, card_ids(g, "Axe")[0], "lay")] == card_ids(g, "Kitchen")[0]


def test_the_entrance_hall_tile_is_three_rooms_and_the_grand_staircase_leads_up(rules: Ruleset) -> None:
    """Entrance Hall, Foyer and Grand Staircase are one tile but three rooms, 1 movement a step (L144); the Grand
    Staircase leads to the Upper Landing, another room (L134, L144)."""
    g, p = first(rules)
    set_counter(g, "moves", 4, p)
    for room in ("Foyer", "Grand Staircase", "Upper Landing"):
        pick(g, p, "go")
        pick_if_asked(g, p, "go where", room)
        assert counter(g, "at", p) == card_ids(g, room)[0]
    assert counter(g, "moves", p) == 1


def test_a_haunt_task_is_rolled_once_a_turn(rules: Ruleset) -> None:
    """Only one task roll a turn (L270): in the Dance of Death the revealer, in the haunt's room, may roll the
    task once; then it is not offered again that turn."""
    g, p = _dance(rules)
    while not (g.waiting_for()[0] == p and "what now" in g.decision.prompt_for(p)):  # type: ignore[union-attr]
        pick(g, g.waiting_for()[0], "end_turn")
    assert "task" in options(g, p)
    force_dice(g, [0] * 8)
    pick(g, p, "task")
    assert "task" not in options(g, p)


def test_the_traitor_declares_the_side_a_monster_stops_on_in_a_barrier_room(rules: Ruleset) -> None:
    """Monsters ignore barriers; one that ends its move in a barrier room stands on the side the traitor declares
    (L170)."""
    g, p = first(rules)
    q = (p + 2) % 3
    _explore_from(g, p, "Basement Landing", "Chasm")
    pick_if_asked(g, p, "what now", "end_turn")
    haunt(g, q)
    monster_at(g, "Werewolf", "Basement Landing")
    while g.decision is not None and "move Werewolf" not in g.decision.prompt_for(g.waiting_for()[0]):
        pick(g, g.waiting_for()[0], "end_turn")
    pick(g, q, "Chasm")
    pick_if_asked(g, q, "move Werewolf", "stay")
    assert g.decision is not None and "Werewolf stands on which side of the Chasm" in g.decision.prompt_for(q)
    pick(g, q, "1")
    assert g.state.counters[card_slot(g, card_ids(g, "Werewolf")[0], "m_bank")] == 1


def test_no_discovery_on_a_floor_whose_tiles_are_all_gone(rules: Ruleset) -> None:
    """Once no tile left in the stack fits a floor, nobody discovers rooms there (L190): every ground-floor tile
    is taken out of the stack; in the Entrance Hall nobody may explore, in the Basement Landing they still may."""
    g, p = first(rules)
    stack = zone_index(g, "room_stack")
    backs = ("on_basement", "on_ground", "on_upper")

    def exhaust_ground() -> None:
        for c in list(g.state.zones[stack]):
            if field(g, c, "on_ground"):
                move_to_zone(g, c, zone_index(g, "set_aside"))
        left = list(g.state.zones[stack])
        grid = g.ruleset.compiled.layout.grids["stock"]
        for f, back in enumerate(backs):  # the kept count of tiles left for each floor (checked by an invariant)
            g.state.counters[grid.slot(f, 0)] = sum(1 for c in left if field(g, c, back))

    next_turn(g, p, exhaust_ground)
    assert "explore" not in options(g, p) and "go" in options(g, p)
    next_turn(g, p, lambda: set_counter(g, "at", card_ids(g, "Basement Landing")[0], p))
    assert "explore" in options(g, p)
    assert g.violations() == []


def test_the_bottle_into_a_barrier_room_lets_you_choose_the_side(rules: Ruleset) -> None:
    """An effect that makes you land in a barrier room lets you choose the side (L172): the Bottle's 6 takes the
    explorer to the Chasm, far side."""
    g, p = first(rules)
    q = (p + 2) % 3
    _explore_from(g, p, "Basement Landing", "Chasm")
    next_turn(g, p, lambda: hold(g, p, "Bottle"), lambda: haunt(g, q),
              lambda: set_counter(g, "at", card_ids(g, "Entrance Hall")[0], p))
    force_dice(g, [2, 2, 2])
    pick(g, p, "use_gear")
    pick_if_asked(g, p, "use which card", "Bottle")
    pick(g, p, "Chasm")
    assert g.decision is not None and "land on which side of the Chasm" in g.decision.prompt_for(p)
    pick(g, p, "1")
    assert counter(g, "bank", p) == 1 and counter(g, "bank_at", p) == card_ids(g, "Chasm")[0]
