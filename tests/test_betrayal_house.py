"""Betrayal at House on the Hill (rulesets/betrayal.rules, issue 16): the house and its monsters, played by the real
ruleset from edited positions (the helpers of tests/test_betrayal.py): barrier sides, the Mystic Elevator that moves,
the events that move or discover tiles, the Underground Lake, and the whole-house check after a tile moves.

Room tokens, the Revolving Wall, monsters' ranged attacks and the Item Pile limit are in test_betrayal_tokens.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from scenario import _move as move_to_zone
from scenario import card_ids, card_slot, refresh_decision, zone_index
from test_betrayal import (
    PATH,
    counter,
    explore_into,
    force_dice,
    pick,
    pick_if_asked,
    put_on_top,
    set_counter,
    start,
    value,
)


@pytest.fixture(scope="module")
def rules() -> Ruleset:
    return load_ruleset(str(PATH))


NAMES = ["Ox Bellows", "Zoe Ingstrom", "Jenny LeClerc"]


def first_turn(rules: Ruleset, names: Sequence[str] = NAMES, seed: int = 1) -> tuple[Game, int]:
    g = start(rules, names, seed)
    assert g.decision is not None
    return g, g.waiting_for()[0]


def cid(g: Game, name: str) -> int:
    return card_ids(g, name)[0]


def card(g: Game, name: str, field: str) -> int:
    return int(g.state.counters[card_slot(g, cid(g, name), field)])


def set_card(g: Game, name: str, field: str, value: int) -> None:
    g.state.counters[card_slot(g, cid(g, name), field)] = value


def options(g: Game, p: int) -> tuple[str, ...]:
    assert g.decision is not None, g.error
    return g.decision.options.get(p, ())


def house(g: Game) -> list[str]:
    return [g.state.tables.card_names[c] for c in g.state.zones[zone_index(g, "house_rooms")]]


def move_to(g: Game, p: int, room: str) -> None:
    """Put explorer ``p`` in ``room`` (a placed room) and let the rules offer the actions there."""
    set_counter(g, "at", cid(g, room), p)
    refresh_decision(g)


def answer(g: Game, p: int, *fragments: str) -> None:
    """Take the first option of every question to ``p`` whose prompt has one of these fragments."""
    while g.decision is not None and p in g.decision.options and any(
        f in g.decision.prompt_for(p) for f in fragments
    ):
        pick(g, p, "")


def floor_section(g: Game, p: int, floor: str) -> str:
    """The map lines of one floor in ``p``'s terminal display (from its `=== floor ===` line to the next)."""
    lines = g.display(p) or []
    start_at = lines.index(f"=== {floor} ===")
    end = next((i for i in range(start_at + 1, len(lines)) if lines[i].startswith("===")), len(lines))
    return "\n".join(lines[start_at:end])


def code(g: Game, room: str) -> str:
    """The room's number on the map, as the display draws it (`[NN`)."""
    place = g.state.tables.fields["place"][cid(g, room)]
    return f"[{list(g.ruleset.program.enums['Place']).index(place):02d}"


# ------------------------------------------------------------------------------ barrier sides (L168-L172)


def _into_chasm(rules: Ruleset) -> tuple[Game, int]:
    """``p`` explores from the Basement Landing into the Chasm (doors west and east, one on each side)."""
    g, p = first_turn(rules)
    move_to(g, p, "Basement Landing")
    explore_into(g, p, "Chasm")
    assert counter(g, "at", p) == cid(g, "Chasm")
    return g, p


def test_an_explorer_stands_on_the_side_of_the_door_they_came_through(rules: Ruleset) -> None:
    """Entering a barrier room you are on the side of your door: you may go back, but the far door (the Chasm's
    other doorway) is not yours to explore until you cross (L168-L170)."""
    g, p = _into_chasm(rules)
    assert counter(g, "bank_at", p) == cid(g, "Chasm")
    here = options(g, p)
    assert "go" in here and "explore" not in here and "cross" in here


@pytest.mark.parametrize(("dots", "crosses"), [(2, True), (0, False)])
def test_crossing_the_chasm_takes_a_speed_3_roll(rules: Ruleset, dots: int, crosses: bool) -> None:
    """The crossing roll (Speed 3+ for the Chasm) costs no movement, once per turn; across, the far doorway is
    yours and the way back is not; a failure stops your movement (FAQ)."""
    g, p = _into_chasm(rules)
    bank = counter(g, "bank", p)
    force_dice(g, [dots] * 8)
    pick(g, p, "cross")
    after = options(g, p)
    assert "cross" not in after  # once per turn
    if crosses:
        assert counter(g, "bank", p) == 1 - bank
        assert "explore" in after and "go" not in after
    else:
        assert counter(g, "bank", p) == bank and counter(g, "stop_moving", p) == 1
        assert "explore" not in after and "go" not in after


def test_explorers_on_two_sides_of_a_barrier_neither_trade_nor_fight(rules: Ruleset) -> None:
    """Two explorers in the Chasm on different sides cannot give each other items (nor attack hand to hand, L170);
    on the same side they can. (The actions offered are recomputed after each action, so the position is edited
    before one.)"""
    g, p = first_turn(rules)
    for item in ("Axe", "Candle"):
        move_to_zone(g, cid(g, item), zone_index(g, "gear", p))
    move_to(g, p, "Basement Landing")
    explore_into(g, p, "Chasm")
    q = (p + 1) % 3
    set_counter(g, "at", cid(g, "Chasm"), q)
    set_counter(g, "bank_at", cid(g, "Chasm"), q)
    set_counter(g, "bank", 1 - counter(g, "bank", p), q)
    force_dice(g, [0] * 8)
    pick(g, p, "cross")  # fails: p stays on its side, q is on the other
    assert "give_gear" not in options(g, p) and "drop_gear" in options(g, p)
    set_counter(g, "bank", counter(g, "bank", p), q)
    pick(g, p, "drop_gear")
    pick_if_asked(g, p, "drop which item", "Axe")
    pick_if_asked(g, p, "drop another item", "done")
    assert "give_gear" in options(g, p)


def test_sliding_into_a_barrier_room_you_choose_the_side(rules: Ruleset) -> None:
    """Moved into a barrier room by an effect, you choose the side (L172): the Mystic Slide's 5+ takes the next
    explorer, upstairs, to a room on a floor below, here the Chasm, and they land on the side they name."""
    g, p = first_turn(rules)
    move_to(g, p, "Basement Landing")
    explore_into(g, p, "Chasm")
    q = (p + 1) % 3
    set_counter(g, "at", cid(g, "Upper Landing"), q)
    while g.waiting_for()[0] != q:
        pick(g, g.waiting_for()[0], "end_turn")
    explore_into(g, q, "Attic", "event_deck", "Mystic Slide", dice=[2] * 8)
    pick(g, q, "Chasm")
    assert "land on which side of the Chasm" in g.decision.prompt_for(q)  # type: ignore[union-attr]
    pick(g, q, "1")
    assert counter(g, "at", q) == cid(g, "Chasm") and counter(g, "bank", q) == 1
    assert counter(g, "bank_at", q) == cid(g, "Chasm") and card(g, "Attic", "marks") == 64  # the Slide token


def test_sliding_into_the_vault_lands_you_outside(rules: Ruleset) -> None:
    """The Vault's inside is no place to land (L156, L260): moved there by an effect, you stand outside, are not
    asked for a side as in a barrier room, and must still roll to open it."""
    g, p = first_turn(rules)
    move_to(g, p, "Basement Landing")
    explore_into(g, p, "Vault", "event_deck", "Image in the Mirror (II)")
    q = (p + 1) % 3
    set_counter(g, "at", cid(g, "Upper Landing"), q)
    while g.waiting_for()[0] != q:
        pick(g, g.waiting_for()[0], "end_turn")
    explore_into(g, q, "Attic", "event_deck", "Mystic Slide", dice=[2] * 8)
    pick(g, q, "Vault")
    assert "land on which side" not in (g.decision.prompt_for(q) or "")  # type: ignore[union-attr]
    assert counter(g, "at", q) == cid(g, "Vault") and counter(g, "vault_empty") == 0
    counters = g.view(q)["counters"]
    assert counters["bank_at"][f"P{q + 1}"] != "Vault" or counters["bank"][f"P{q + 1}"] == 0  # outside


# ------------------------------------------------------------------------------ the Mystic Elevator (L146-L152)


def test_the_mystic_elevator_moves_to_the_floor_rolled_and_the_map_follows(rules: Ruleset) -> None:
    """Discovered from the Entrance Hall, the Mystic Elevator rolls 2 dice: 3 takes the tile itself (with the
    explorer in it) to an open doorway of the upper floor; the ground floor's doorway it used is open again, the
    map draws it upstairs, and the whole-house check holds after the move."""
    g, p = first_turn(rules)
    ground_doors = counter_grid(g, "doorways", 1)
    explore_into(g, p, "Mystic Elevator", dice=[2, 1])
    answer(g, p, "at which doorway", "turn the", "next to which room")
    assert card(g, "Mystic Elevator", "fl") == 2
    assert counter(g, "at", p) == cid(g, "Mystic Elevator")
    assert counter_grid(g, "doorways", 1) == ground_doors  # the door it left is free again
    upper = floor_section(g, p, "upper floor")
    ground = floor_section(g, p, "ground floor")
    assert code(g, "Mystic Elevator") + "*]" in upper and code(g, "Mystic Elevator") not in ground
    assert g.violations() == []


def counter_grid(g: Game, grid: str, floor: int) -> int:
    """A floor's cell of a 3-by-1 grid of the ruleset (``doorways``, ``stock``) read from the state."""
    return int(g.state.counters[g.ruleset.compiled.layout.grids[grid].slot(floor, 0)])


def test_a_roll_of_1_takes_the_elevator_to_the_basement(rules: Ruleset) -> None:
    """1 on the elevator's 2 dice: the basement; it joins the Basement Landing's open doorways."""
    g, p = first_turn(rules)
    explore_into(g, p, "Mystic Elevator", dice=[1, 0])
    answer(g, p, "at which doorway", "turn the", "next to which room")
    assert card(g, "Mystic Elevator", "fl") == 0 and card(g, "Mystic Elevator", "links") == 1
    assert code(g, "Mystic Elevator") + "*]" in floor_section(g, p, "basement")
    assert g.violations() == []


def test_a_roll_of_0_hurts_whoever_is_in_the_elevator(rules: Ruleset) -> None:
    """0 sends it to the basement, and every explorer inside takes 1 die of physical damage (L152)."""
    g, p = first_turn(rules)
    body = counter(g, "pos", p, "might") + counter(g, "pos", p, "speed")
    explore_into(g, p, "Mystic Elevator", dice=[0, 0, 2])
    answer(g, p, "at which doorway", "turn the", "next to which room")
    answer(g, p, "might")  # 2 physical damage: how much on Might (the first option, 0)
    assert "it rolls 0" in "\n".join(g.log_lines()) and card(g, "Mystic Elevator", "fl") == 0
    assert counter(g, "pos", p, "might") + counter(g, "pos", p, "speed") == body - 2


# ------------------------------------------------------------------------------ whole-house check after a move


def test_the_whole_house_is_checked_after_a_tile_moves_and_only_then(rules: Ruleset) -> None:
    """After the elevator moves, every decision until the next action checks the whole house: a room whose free
    doorways disagree with a recount is caught at once; without a move, the per-decision checks do not scan the
    house (the same fault is caught when the game ends)."""
    g, p = first_turn(rules)
    explore_into(g, p, "Mystic Elevator", dice=[2, 1])
    answer(g, p, "at which doorway", "turn the", "next to which room")
    assert counter(g, "house_moved") == 1
    set_card(g, "Basement Landing", "ajar", 0)  # a fault far from the moved tile
    bad = [name for name, _ in g.violations()]
    assert any(name.startswith("after a tile moves") for name in bad), bad
    set_counter(g, "house_moved", 0)
    assert not any(name.startswith("after a tile moves") for name, _ in g.violations())


# ------------------------------------------------------------------------------ events that move or add tiles


def test_the_walls_put_the_next_tile_in_the_house_and_you_in_it(rules: Ruleset) -> None:
    """The Walls: the next room tile is put in the house at an open doorway and the explorer is moved into it."""
    g, p = first_turn(rules)
    put_on_top(g, "Dining Room", "room_stack")
    explore_into(g, p, "Ballroom", "event_deck", "The Walls")
    answer(g, p, "put the", "at which doorway", "turn the", "on which floor")
    assert "Dining Room" in house(g) and counter(g, "at", p) == cid(g, "Dining Room")
    assert g.violations() == []


def test_what_the_moves_your_room_to_another_open_doorway(rules: Ruleset) -> None:
    """What the...?: your room's tile is lifted and attached to a different open doorway of its floor, with you
    in it."""
    g, p = first_turn(rules)
    explore_into(g, p, "Ballroom", "event_deck", "What the...?")
    answer(g, p, "put the", "at which doorway", "turn the", "on which floor")
    before = (card(g, "Ballroom", "cx"), card(g, "Ballroom", "cy"))
    assert "Ballroom" in house(g) and counter(g, "at", p) == cid(g, "Ballroom")
    assert "now joins the ground floor" in "\n".join(g.log_lines())
    assert card(g, "Ballroom", "fl") == 1
    assert g.violations() == []
    assert before != (4, 3)  # not where it was found: north of the Foyer is the Grand Staircase


def test_the_lost_one_sends_you_to_the_entrance_hall_on_a_6(rules: Ruleset) -> None:
    """The Lost One: Knowledge below 5, then 3 dice: 6 puts you in the Entrance Hall."""
    g, p = first_turn(rules)
    explore_into(g, p, "Ballroom", "event_deck", "The Lost One", dice=[0] * value(g, p, "knowledge") + [2, 2, 2])
    assert "is lost: 3 dice show 6" in "\n".join(g.log_lines())
    assert counter(g, "at", p) == cid(g, "Entrance Hall")


def test_the_lost_one_on_2_3_draws_an_upper_floor_room_and_puts_you_there(rules: Ruleset) -> None:
    """2-3: tiles are drawn until one for the upper floor; it is placed and you go there."""
    g, p = first_turn(rules)
    put_on_top(g, "Master Bedroom", "room_stack")
    explore_into(g, p, "Ballroom", "event_deck", "The Lost One", dice=[0] * value(g, p, "knowledge") + [1, 1, 0])
    answer(g, p, "put the", "at which doorway", "turn the", "on which floor")
    assert "Master Bedroom" in house(g) and counter(g, "at", p) == cid(g, "Master Bedroom")
    assert card(g, "Master Bedroom", "fl") == 2


def test_the_underground_lake_found_upstairs_falls_to_the_basement(rules: Ruleset) -> None:
    """The 1st-edition tile's back says upper floor (a misprint, FAQ): found upstairs, the explorer falls with it
    to the basement, where it joins an open doorway; the upper doorway stays open."""
    g, p = first_turn(rules)
    move_to(g, p, "Upper Landing")
    upper_doors = counter_grid(g, "doorways", 2)
    put_on_top(g, "Underground Lake", "room_stack")
    refresh_decision(g)
    pick(g, p, "explore")
    pick_if_asked(g, p, "explore through which door")
    answer(g, p, "put the", "at which doorway", "turn the", "on which floor")
    assert card(g, "Underground Lake", "fl") == 0 and counter(g, "at", p) == cid(g, "Underground Lake")
    assert counter_grid(g, "doorways", 2) == upper_doors
    assert g.violations() == []


# ------------------------------------------------------------------------------ barriers after the haunt


def _haunted_chasm(rules: Ruleset, p_side: int) -> tuple[Game, int]:
    """``p`` (on side ``p_side`` after the haunt: 1 hero, 2 traitor) walks into the Chasm; the other two explorers
    take the other side."""
    g, p = first_turn(rules)
    move_to(g, p, "Basement Landing")
    set_counter(g, "haunt_on", 1)
    others = [1, 1] if p_side == 2 else [2, 1]
    for who in range(3):
        set_counter(g, "side", p_side if who == p else others.pop(), who)
    set_counter(g, "traitor", next(w for w in range(3) if counter(g, "side", w) == 2))
    explore_into(g, p, "Chasm")
    return g, p


def test_the_traitor_crosses_a_barrier_freely(rules: Ruleset) -> None:
    """The traitor ignores barriers (L362): no crossing roll is offered, and every way out of the Chasm is his."""
    g, p = _haunted_chasm(rules, 2)
    here = options(g, p)
    assert "cross" not in here and "go" in here and "explore" in here


@pytest.mark.parametrize("same_side", [False, True])
def test_a_hero_fights_a_monster_in_a_barrier_room_only_on_its_side(rules: Ruleset, same_side: bool) -> None:
    """A monster in a barrier room stands on the side the traitor declares (L170): a hero on the other side cannot
    attack it hand to hand; on the same side the attack is offered."""
    g, p = _haunted_chasm(rules, 1)
    put_on_top(g, "Werewolf", "monsters")
    set_card(g, "Werewolf", "m_at", cid(g, "Chasm"))
    set_card(g, "Werewolf", "m_bank", counter(g, "bank", p) if same_side else 1 - counter(g, "bank", p))
    force_dice(g, [0] * 8)
    pick(g, p, "cross")  # fails: the actions are offered again, with the monster in the room
    assert ("attack" in options(g, p)) == same_side


def test_the_traitor_sends_the_elevator_with_a_monster_in_it(rules: Ruleset) -> None:
    """A monster the traitor moves into the Mystic Elevator may take it to any floor without a roll, once per
    traitor and monster turn (L148): the tile moves with the monster in it."""
    g, p = first_turn(rules)
    explore_into(g, p, "Mystic Elevator", dice=[1, 1])  # 2: stays on the ground floor
    answer(g, p, "at which doorway", "turn the", "next to which room")
    linked = g.view(p)["graphs"]["house"]["linked"]
    door = next(x for x in linked if "mystic_elevator" in x[:2] and x[2] == "door")
    beside = next(x for x in door[:2] if x != "mystic_elevator")
    room_name = next(n for n in g.state.tables.card_names if n.lower().replace(" ", "_") == beside)
    traitor = (p + 1) % 3
    set_counter(g, "haunt_on", 1)
    for who in range(3):
        set_counter(g, "side", 2 if who == traitor else 1, who)
    set_counter(g, "traitor", traitor)
    put_on_top(g, "Werewolf", "monsters")
    set_card(g, "Werewolf", "m_at", cid(g, room_name))
    while g.decision is not None and "move Werewolf" not in g.decision.prompt_for(g.waiting_for()[0]):
        pick(g, g.waiting_for()[0], "end_turn")
    pick(g, traitor, "Mystic Elevator")
    assert "send the Mystic Elevator with Werewolf" in g.decision.prompt_for(traitor)  # type: ignore[union-attr]
    pick(g, traitor, "2")
    answer(g, traitor, "at which doorway", "turn the", "next to which room")
    assert card(g, "Mystic Elevator", "fl") == 2 and card(g, "Werewolf", "m_at") == cid(g, "Mystic Elevator")
    assert counter(g, "elevator_used") == 1
