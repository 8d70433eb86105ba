"""Betrayal's event cards played by the real ruleset (issue 16): each effect that used to be "not modelled" is
drawn in play (an explorer explores into the Ballroom, an event room, with the card put on top of the event stack)
and its printed result checked. Helpers and dice are those of tests/test_betrayal.py (`force_dice` sets the next
rolls; a die shows 0, 0, 1, 1, 2 or 2).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from scenario import _move as move_to_zone
from scenario import card_ids, card_slot, names, player_slot, refresh_decision, zone_index
from test_betrayal import PATH, counter, explore_into, force_dice, pick, pick_if_asked, set_counter, start, value

EXPLORERS = ["Ox Bellows", "Zoe Ingstrom", "Jenny LeClerc"]


@pytest.fixture(scope="module")
def rules() -> Ruleset:
    return load_ruleset(str(PATH))


def first(rules: Ruleset) -> tuple[Game, int]:
    g = start(rules, EXPLORERS)
    assert g.decision is not None
    return g, g.waiting_for()[0]


def low(g: Game, p: int, trait: str, pos: int = 1) -> int:
    """Put ``p``'s clip on ``trait`` at ``pos`` and return how many dice that trait rolls now."""
    set_counter(g, "pos", pos, p, trait)
    return value(g, p, trait)


def place_at(g: Game, p: int, room: str) -> None:
    g.state.counters[player_slot(g, "at", p)] = card_ids(g, room)[0]
    refresh_decision(g)


def room_of(g: Game, p: int) -> str:
    return g.state.tables.card_names[g.state.counters[player_slot(g, "at", p)]]


def give(g: Game, p: int, card: str) -> int:
    """``p`` holds ``card`` (as if drawn long ago: it gave nothing to take back)."""
    cid = card_ids(g, card)[0]
    move_to_zone(g, cid, zone_index(g, "gear", p))
    g.state.counters[card_slot(g, cid, "held_by")] = p
    for k in range(4):
        g.state.counters[card_slot(g, cid, "got") + k] = 0
    return cid


def lay_in(g: Game, card: str, room: str) -> int:
    """``card`` lies in ``room`` (dropped there earlier)."""
    cid = card_ids(g, card)[0]
    move_to_zone(g, cid, zone_index(g, "dropped"))
    g.state.counters[card_slot(g, cid, "lay")] = card_ids(g, room)[0]
    return cid


def gear(g: Game, p: int) -> list[str]:
    return names(g, "gear", p)


def log(g: Game) -> str:
    return "\n".join(g.log_lines())


def draw(g: Game, p: int, event: str, dice: Sequence[int] = (), tile: str = "Ballroom") -> None:
    explore_into(g, p, tile, "event_deck", event, dice)


def end_turn(g: Game, p: int) -> None:
    pick_if_asked(g, p, "what now", "end_turn")


# ------------------------------------------------------------------------------ stuck: Webs, Debris


def test_webs_keeps_the_card_and_another_explorer_frees_you(rules: Ruleset) -> None:
    """Webs 0-3: stuck, the card kept; the next explorer, in the same room, rolls Might 4+ and frees you."""
    g, p = first(rules)
    q = (p + 1) % 3
    place_at(g, q, "Ballroom")  # there by the time the Webs catch p
    draw(g, p, "Webs", [0] * low(g, p, "might"))
    assert counter(g, "stuck", p) == 1 and "Webs" in names(g, "kept", p)
    end_turn(g, p)
    assert g.waiting_for()[0] == q
    force_dice(g, [2, 2] + [0] * (value(g, q, "might") - 2))
    pick(g, q, "help_free")
    pick(g, q, f"P{p + 1}")
    assert "tries to free" in log(g) and counter(g, "stuck", p) == 0
    assert "Webs" not in names(g, "kept", p) and "Webs" in names(g, "event_discard")


def test_a_failed_helper_cannot_move_and_the_try_counts(rules: Ruleset) -> None:
    """A helper who fails to free someone from the Webs can't move that turn; the failure counts toward the 3."""
    g, p = first(rules)
    q = (p + 1) % 3
    place_at(g, q, "Ballroom")
    draw(g, p, "Webs", [0] * low(g, p, "might"))
    end_turn(g, p)
    force_dice(g, [0] * value(g, q, "might"))
    pick(g, q, "help_free")
    pick(g, q, f"P{p + 1}")
    assert counter(g, "stuck", p) == 1 and counter(g, "stuck_tries", p) == 1
    assert counter(g, "stop_moving", q) == 1
    options = g.decision.options.get(q, ()) if g.decision else ()  # with nothing left to do, q's turn ended
    assert not any(o.startswith(("go", "explore", "help_free")) for o in options)  # one try per turn


def test_debris_buries_you_and_keeps_the_card(rules: Ruleset) -> None:
    """Debris 0: 2 dice of physical damage and buried (the card kept until freed)."""
    g, p = first(rules)
    n = low(g, p, "speed", 3)
    draw(g, p, "Debris", [0] * n + [1, 1])
    pick_if_asked(g, p, "how much on")
    assert counter(g, "stuck", p) == 1 and "Debris" in names(g, "kept", p)
    assert "takes 2 physical damage" in log(g)


# ------------------------------------------------------------------------------ kept effects


def test_grave_dirt_hurts_each_turn_until_an_item_raises_a_trait(rules: Ruleset) -> None:
    """Grave Dirt 0-3: kept; 1 physical damage at the start of each of your turns; an item that raises one of your
    traits (the Amulet, picked up) ends it."""
    g, p = first(rules)
    lay_in(g, "Amulet of the Ages", "Ballroom")
    draw(g, p, "Grave Dirt", [0] * low(g, p, "might", 3))
    assert "Grave Dirt" in names(g, "kept", p)
    end_turn(g, p)
    while g.waiting_for()[0] != p:
        pick(g, g.waiting_for()[0], "end_turn")
    assert "the Grave Dirt hurts" in log(g)
    pick_if_asked(g, p, "how much on")
    pick(g, p, "pick_up")
    assert "Grave Dirt" not in names(g, "kept", p) and "is rid of Grave Dirt" in log(g)


def test_lights_out_one_space_until_a_turn_ends_with_someone(rules: Ruleset) -> None:
    """Lights Out: kept; the next turn you move only 1 space; ending a turn in a room with another explorer ends it."""
    g, p = first(rules)
    draw(g, p, "Lights Out")
    assert "Lights Out" in names(g, "kept", p)
    end_turn(g, p)
    while g.waiting_for()[0] != p:
        pick(g, g.waiting_for()[0], "end_turn")
    assert counter(g, "moves", p) == 1 and "moves only 1 space" in log(g)
    pick(g, p, "go")
    pick_if_asked(g, p, "go where", "Entrance Hall")
    assert counter(g, "moves", p) == 0
    end_turn(g, p)  # the others are in the Entrance Hall (or the Foyer): with company, the dark lifts
    if room_of(g, p) == "Entrance Hall":
        assert "Lights Out" not in names(g, "kept", p)


# ------------------------------------------------------------------------------ choices about other explorers


def test_bloody_vision_attacks_the_lowest_might_nearby(rules: Ruleset) -> None:
    """Bloody Vision 0-1: you attack the explorer with the lowest Might in your room or a connected one."""
    g, p = first(rules)
    q, r = (p + 1) % 3, (p + 2) % 3
    low(g, q, "might", 1)
    set_counter(g, "pos", 8, r, "might")
    n = low(g, p, "sanity")
    draw(g, p, "Bloody Vision", [0] * n + [1] * (value(g, p, "might") + value(g, q, "might")))
    weakest = min((q, r), key=lambda x: value(g, x, "might"))
    pick(g, p, f"P{weakest + 1}")
    assert f"the vision drives P{p + 1} to attack P{weakest + 1}" in log(g)
    assert f"P{p + 1} attacks P{weakest + 1} with might" in log(g)


def test_footsteps_in_the_chapel_reach_the_nearest_explorer(rules: Ruleset) -> None:
    """Footsteps rolls 1 die more in the Chapel: a 4 gives you and the nearest explorer 1 Might each."""
    g, p = first(rules)
    before = {x: counter(g, "pos", x, "might") for x in range(3)}
    for x in range(3):
        low(g, x, "might", 3)
    draw(g, p, "Footsteps", [2, 2], tile="Chapel")
    pick_if_asked(g, p, "nearest explorer")
    gained = [x for x in range(3) if counter(g, "pos", x, "might") == 4]
    assert p in gained and len(gained) == 2, before


def test_footsteps_zero_every_explorer_loses_a_chosen_trait(rules: Ruleset) -> None:
    g, p = first(rules)
    draw(g, p, "Footsteps", [0])
    for x in [p, (p + 1) % 3, (p + 2) % 3]:
        before = counter(g, "pos", x, "knowledge")
        pick(g, x, "knowledge")
        assert counter(g, "pos", x, "knowledge") == before - 1


def test_hanged_men_rolls_each_trait(rules: Ruleset) -> None:
    """Hanged Men: a roll per trait; 0-1 loses 1 in that trait; 2+ nothing (here Might and Speed fail)."""
    g, p = first(rules)
    n = {t: low(g, p, t, 3) for t in ("might", "speed", "knowledge", "sanity")}
    dice = [0] * n["might"] + [0] * n["speed"] + [2] * n["knowledge"] + [2] * n["sanity"]
    draw(g, p, "Hanged Men", dice)
    assert [counter(g, "pos", p, t) for t in ("might", "speed", "knowledge", "sanity")] == [2, 2, 3, 3]


def test_hanged_men_all_steady_gains_a_trait(rules: Ruleset) -> None:
    g, p = first(rules)
    n = sum(low(g, p, t, 3) for t in ("might", "speed", "knowledge", "sanity"))
    draw(g, p, "Hanged Men", [2] * n)
    pick(g, p, "speed")
    assert counter(g, "pos", p, "speed") == 4


def test_possession_drops_the_chosen_trait_to_its_lowest(rules: Ruleset) -> None:
    """Possession: roll a trait of your choice; 0-3 it drops to its lowest value above the skull."""
    g, p = first(rules)
    n = low(g, p, "knowledge", 4)
    draw(g, p, "Possession", [])
    force_dice(g, [0] * n)
    pick(g, p, "knowledge")
    pick_if_asked(g, p, "drops to its lowest")
    assert counter(g, "pos", p, "knowledge") == 1


def test_possession_success_gains_a_trait_of_your_choice(rules: Ruleset) -> None:
    g, p = first(rules)
    n = low(g, p, "sanity", 4)
    draw(g, p, "Possession", [])
    force_dice(g, [2] * n)
    pick(g, p, "sanity")
    pick(g, p, "might")
    assert "gains 1 might" in log(g)


def test_spider_with_sanity_gains_sanity(rules: Ruleset) -> None:
    """Spider: roll Speed or Sanity; 4+ gains 1 in the trait used."""
    g, p = first(rules)
    n = low(g, p, "sanity", 4)
    draw(g, p, "Spider", [])
    force_dice(g, [2] * n)
    pick(g, p, "sanity")
    assert counter(g, "pos", p, "sanity") == 5


def test_creepy_puppet_feeds_the_spear(rules: Ruleset) -> None:
    """Creepy Puppet: when the puppet's attack hurts you, whoever holds the Spear gains 2 Might."""
    g, p = first(rules)
    q = (p + 1) % 3
    give(g, q, "Spear")
    low(g, q, "might", 3)
    n = low(g, p, "might", 4)
    draw(g, p, "Creepy Puppet", [2, 2, 2, 2] + [0] * n)
    pick_if_asked(g, p, "how much on")
    assert counter(g, "pos", q, "might") == 5


# ------------------------------------------------------------------------------ It Is Meant to Be, Jonah, the Mirror


def test_it_is_meant_to_be_orders_the_top_of_a_stack(rules: Ruleset) -> None:
    """It Is Meant to Be: look at the top 3 items and put them back in your order (only you see them)."""
    g, p = first(rules)
    draw(g, p, "It Is Meant to Be")
    top3 = list(reversed(names(g, "item_deck")[-3:]))
    pick(g, p, "item_stack")
    pick(g, p, top3[2])
    pick(g, p, top3[0])
    assert list(reversed(names(g, "item_deck")[-3:])) == [top3[2], top3[0], top3[1]]
    other = (p + 1) % 3
    assert top3[2] not in "\n".join(g.log_lines(other))  # the look is the drawer's alone


def test_it_is_meant_to_be_keeps_a_roll_for_later(rules: Ruleset) -> None:
    """The other choice: roll 4 dice and keep the result for one later roll (capped at that roll's maximum)."""
    g, p = first(rules)
    draw(g, p, "It Is Meant to Be")
    force_dice(g, [2, 2, 1, 0])
    pick(g, p, "keep_roll")
    assert counter(g, "fate", p) == 5
    end_turn(g, p)
    while g.waiting_for()[0] != p:
        pick(g, g.waiting_for()[0], "end_turn")
    low(g, p, "knowledge", 3)
    draw(g, p, "The Voice", tile="Organ Room")  # Knowledge 4+ draws an item
    pick(g, p, "yes")
    kept = min(5, 2 * value(g, p, "knowledge"))
    assert f"uses the roll kept from It Is Meant to Be: {kept}" in log(g) and counter(g, "fate", p) == -1
    assert len([c for c in gear(g, p) if c]) == 1


def test_jonahs_turn_takes_the_puzzle_box(rules: Ruleset) -> None:
    """Jonah's Turn: the Puzzle Box's holder discards it and draws another item; you gain 1 Sanity."""
    g, p = first(rules)
    q = (p + 1) % 3
    give(g, q, "Puzzle Box")
    sanity = low(g, p, "sanity", 3) and counter(g, "pos", p, "sanity")
    draw(g, p, "Jonah's Turn")
    assert "Puzzle Box" not in gear(g, q) and len(gear(g, q)) == 1 and "Puzzle Box" in names(g, "used_up")
    assert counter(g, "pos", p, "sanity") == sanity + 1


def test_jonahs_turn_without_the_box_hurts(rules: Ruleset) -> None:
    g, p = first(rules)
    draw(g, p, "Jonah's Turn", [1])
    assert "takes 1 mental damage" in log(g)


def test_the_second_image_in_the_mirror_takes_an_item_back(rules: Ruleset) -> None:
    """Image in the Mirror (II): you hand an item back into the item stack (shuffled) and gain 1 Knowledge."""
    g, p = first(rules)
    give(g, p, "Axe")
    k = low(g, p, "knowledge", 3)
    assert k
    draw(g, p, "Image in the Mirror (II)")
    pick(g, p, "Axe")
    assert "Axe" in names(g, "item_deck") and "Axe" not in gear(g, p)
    assert counter(g, "pos", p, "knowledge") == 4


def test_the_second_image_passes_to_the_left_when_you_have_no_item(rules: Ruleset) -> None:
    g, p = first(rules)
    q = (p + 2) % 3
    give(g, q, "Axe")
    draw(g, p, "Image in the Mirror (II)")
    pick(g, q, "Axe")
    assert "Axe" in names(g, "item_deck") and f"P{q + 1} hands Axe through the mirror" in log(g)


# ------------------------------------------------------------------------------ secret ways taken at once


def test_secret_stairs_taken_at_once_draw_an_event(rules: Ruleset) -> None:
    """Secret Stairs: you may take them at once with no movement left, and then draw an event in the new room."""
    g, p = first(rules)
    explore_into(g, p, "Ballroom", "event_deck", "Secret Stairs")
    target = g.decision.options[p][0] if g.decision else ""
    night = card_ids(g, "Night View")[0]
    move_to_zone(g, night, zone_index(g, "event_deck"))
    refresh_decision(g)
    pick(g, p, target)
    force_dice(g, [0] * value(g, p, "knowledge"))
    pick(g, p, "yes")
    assert room_of(g, p) == target and "draws the event Night View" in log(g)


def test_secret_passage_taken_at_once(rules: Ruleset) -> None:
    """Secret Passage: 3 dice choose the other end's floor (6: any room); you may go through at once."""
    g, p = first(rules)
    draw(g, p, "Secret Passage", [2, 2, 2])
    pick(g, p, "Upper Landing")
    pick(g, p, "yes")
    assert room_of(g, p) == "Upper Landing"


def test_shrieking_wind_blows_an_item_to_the_entrance_hall(rules: Ruleset) -> None:
    """Shrieking Wind 0 (outside, in the Gardens): 1 die of physical damage and an item goes to the Entrance Hall."""
    g, p = first(rules)
    give(g, p, "Axe")
    n = low(g, p, "might", 3)
    draw(g, p, "Shrieking Wind", [0] * n + [0], tile="Gardens")
    pick(g, p, "Axe")
    assert "Axe" in names(g, "dropped") and "the wind blows Axe to the Entrance Hall" in log(g)


def test_lights_out_is_no_darkness_with_the_candle(rules: Ruleset) -> None:
    """Lights Out drawn while holding the Candle: the Candle ends it at once (the card is not kept)."""
    g, p = first(rules)
    give(g, p, "Candle")
    draw(g, p, "Lights Out")
    assert "Lights Out" not in names(g, "kept", p) and "Candle lights the way" in log(g)


def test_funeral_moves_you_to_the_graveyard_or_crypt(rules: Ruleset) -> None:
    """Funeral 0-1: lose 1 Sanity and 1 Might and go to the Graveyard or the Crypt if placed (your choice)."""
    g, p = first(rules)
    n = low(g, p, "sanity", 3)
    draw(g, p, "Funeral", [0] * n, tile="Graveyard")
    pick(g, p, "Graveyard")
    assert "is moved to the Graveyard" in log(g) and counter(g, "pos", p, "sanity") == 2


def test_groundskeeper_rolls_two_dice_fewer_in_the_gardens(rules: Ruleset) -> None:
    g, p = first(rules)
    n = low(g, p, "knowledge", 8)
    draw(g, p, "Groundskeeper", [2] * (n - 2), tile="Gardens")
    assert f"P{p + 1} rolls {2 * (n - 2)}" in log(g)


def test_medical_kit_heals_up_to_the_starting_value(rules: Ruleset) -> None:
    """Medical Kit 6-7: heal up to 2 physical points, never above the starting values."""
    g, p = first(rules)
    start_might = counter(g, "pos", p, "might")
    give(g, p, "Medical Kit")
    draw(g, p, "Night View", [0] * 8)
    set_counter(g, "pos", start_might - 1, p, "might")
    n = low(g, p, "knowledge", 4)
    refresh_decision(g)
    force_dice(g, [2, 2, 2] + [0] * (n - 3))
    pick(g, p, "use_gear")
    pick_if_asked(g, p, "heal whom", f"P{p + 1}")
    pick_if_asked(g, p, "heal which trait", "might")
    assert counter(g, "pos", p, "might") == start_might  # 2 points, only 1 of them needed
