"""Betrayal's items and omens played by the real ruleset (issue 16): the cards that change rolls (roll_by), the
ones that move explorers or monsters, and dedicated tests for the Revolver, Ring, Dynamite, Skull, Medallion and
the Gallery. Cards are handed to explorers as if drawn earlier; rolls are set with `force_dice`
(tests/test_betrayal.py).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from scenario import card_ids, card_slot, global_slot, names, player_slot
from test_betrayal import PATH, counter, explore_into, force_dice, pick, pick_if_asked, put_on_top, set_counter, value
from test_betrayal_cards import draw, first, gear, give, lay_in, log, low, place_at, room_of

TRAITS = ("might", "speed", "knowledge", "sanity")


@pytest.fixture(scope="module")
def rules() -> Ruleset:
    return load_ruleset(str(PATH))


def again(g: Game, p: int, setup: Callable[[], None] | None = None) -> None:
    """End ``p``'s turn and everyone else's until ``p``'s next turn; ``setup`` runs once ``p``'s turn is over, so
    the position it edits is what ``p``'s next turn starts from."""
    pick_if_asked(g, p, "what now", "end_turn")
    if setup is not None:
        setup()
    while g.waiting_for()[0] != p:
        pick(g, g.waiting_for()[0], "end_turn")


def haunt(g: Game, traitor: int) -> None:
    """The haunt has begun (no scenario's mode: just the sides): ``traitor`` against the other explorers."""
    set_counter(g, "haunt_on", 1)
    g.state.counters[global_slot(g, "traitor")] = traitor
    for x in range(3):
        set_counter(g, "side", 2 if x == traitor else 1, x)


def monster_at(g: Game, name: str, room: str) -> int:
    m = put_on_top(g, name, "monsters")
    g.state.counters[card_slot(g, m, "m_at")] = card_ids(g, room)[0]
    return m


def use(g: Game, p: int, card: str) -> None:
    pick(g, p, "use_gear")
    pick_if_asked(g, p, "use which card", card)


# ------------------------------------------------------------------------------ cards that change rolls


def test_adrenaline_shot_adds_four_to_a_trait_roll(rules: Ruleset) -> None:
    """Adrenaline Shot: +4 to a trait roll, then discarded. The Voice (Knowledge 4+ draws an item) rolls 0 + 4."""
    g, p = first(rules)
    give(g, p, "Adrenaline Shot")
    n = low(g, p, "knowledge")
    draw(g, p, "The Voice")
    force_dice(g, [0] * n)
    pick(g, p, "yes")
    assert "P1 rolls 4" in log(g).replace(f"P{p + 1}", "P1") and "Adrenaline Shot" in names(g, "used_up")
    assert len(gear(g, p)) == 1  # the item The Voice gave


def test_angel_feather_names_the_result(rules: Ruleset) -> None:
    """Angel Feather: name a number from 0 to 8 instead of rolling; discarded after use."""
    g, p = first(rules)
    give(g, p, "Angel Feather")
    low(g, p, "knowledge")
    draw(g, p, "Night View")
    pick(g, p, "8")
    assert "names 8 with the Angel Feather" in log(g) and counter(g, "pos", p, "knowledge") == 2
    assert "Angel Feather" in names(g, "used_up")


def test_candle_adds_a_die_to_an_events_trait_roll(rules: Ruleset) -> None:
    """Candle: 1 extra die on the trait rolls of events you draw."""
    g, p = first(rules)
    give(g, p, "Candle")
    n = low(g, p, "knowledge")
    draw(g, p, "Night View", [2] * (n + 1))
    assert f"P{p + 1} rolls {2 * (n + 1)}" in log(g)


def test_bell_book_and_candle_together(rules: Ruleset) -> None:
    """Holding the Bell, the Book and the Candle gains 2 in each trait; losing one of them loses 2 in each (at the
    end of that turn)."""
    g, p = first(rules)
    give(g, p, "Bell")
    give(g, p, "Book")
    lay_in(g, "Candle", "Ballroom")
    for t in TRAITS:
        low(g, p, t, 3)
    draw(g, p, "Night View", [0] * 8)
    pick(g, p, "pick_up")
    assert [counter(g, "pos", p, t) for t in TRAITS] == [5, 5, 5, 5]
    again(g, p)  # picked up this turn, the Candle is dropped in the next (one action per item per turn, L228-L240)
    pick(g, p, "drop_gear")
    pick(g, p, "Candle")
    pick_if_asked(g, p, "drop another item", "done")
    pick_if_asked(g, p, "what now", "end_turn")  # paid at the end of the turn
    assert [counter(g, "pos", p, t) for t in TRAITS] == [3, 3, 3, 3]


def test_idol_adds_two_dice_for_a_sanity(rules: Ruleset) -> None:
    """Idol: once per turn, 2 extra dice on a trait or event roll; each time, lose 1 Sanity."""
    g, p = first(rules)
    give(g, p, "Idol")
    n = low(g, p, "knowledge")
    sanity = counter(g, "pos", p, "sanity")
    draw(g, p, "Night View")
    force_dice(g, [2] * (n + 2))
    pick(g, p, "yes")
    assert f"P{p + 1} rolls {2 * (n + 2)}" in log(g) and counter(g, "pos", p, "sanity") == sanity - 1


def test_lucky_stone_rerolls_the_dice_you_pick(rules: Ruleset) -> None:
    """Lucky Stone: after a roll, reroll any number of its dice once; then discarded."""
    g, p = first(rules)
    give(g, p, "Lucky Stone")
    n = low(g, p, "knowledge", 3)
    draw(g, p, "Night View", [0] * n)
    pick(g, p, "0")
    pick(g, p, "1")
    force_dice(g, [2, 2])
    pick(g, p, "done")
    assert "rerolls 2 dice with the Lucky Stone" in log(g) and f"P{p + 1} rolls 4" in log(g)
    assert "Lucky Stone" in names(g, "used_up")


def test_rabbits_foot_rerolls_one_die_once_a_turn(rules: Ruleset) -> None:
    """Rabbit's Foot: once in your turn, reroll 1 die and keep the new result."""
    g, p = first(rules)
    give(g, p, "Rabbit's Foot")
    n = low(g, p, "knowledge", 3)
    draw(g, p, "Night View", [0] * n)
    force_dice(g, [2])
    pick(g, p, "0")
    assert f"P{p + 1} rolls 2" in log(g) and counter(g, "foot_used", p) == 1
    assert "Rabbit's Foot" in gear(g, p)


# ------------------------------------------------------------------------------ the Music Box, the Gloves, daggers


def test_music_box_mesmerizes_whoever_starts_a_turn_by_it(rules: Ruleset) -> None:
    """Music Box, open: an explorer starting a turn in its room rolls Sanity 4+ or is mesmerized (the turn ends)."""
    g, p = first(rules)
    q = (p + 1) % 3
    give(g, p, "Music Box")
    again(g, p)
    use(g, p, "Music Box")
    assert "opens the Music Box" in log(g)
    force_dice(g, [0] * value(g, q, "sanity"))
    pick(g, p, "end_turn")
    r = (p + 2) % 3
    assert f"P{q + 1} is mesmerized\nP{r + 1} hears the Music Box" in log(g)  # q's turn ends at once


def test_a_mesmerized_carrier_drops_the_box(rules: Ruleset) -> None:
    g, p = first(rules)
    give(g, p, "Music Box")
    again(g, p)
    use(g, p, "Music Box")
    pick(g, p, "end_turn")
    for x in range(3):
        if x != p:
            place_at(g, x, "Foyer")  # out of earshot
    while "is mesmerized" not in log(g):
        force_dice(g, [0] * value(g, p, "sanity"))  # p's roll comes first once p's turn starts
        pick(g, g.waiting_for()[0], "end_turn")
    assert f"P{p + 1} is mesmerized" in log(g) and f"P{p + 1} drops the Music Box" in log(g)
    assert "Music Box" in names(g, "dropped")


def test_a_music_box_handed_through_the_mirror_comes_back_closed(rules: Ruleset) -> None:
    """An open Music Box that goes back into the item stack (Image in the Mirror II) is closed when drawn again."""
    g, p = first(rules)
    closed = g.state.counters[global_slot(g, "box_open")]
    box = give(g, p, "Music Box")
    again(g, p)
    use(g, p, "Music Box")
    assert g.state.counters[global_slot(g, "box_open")] == box
    draw(g, p, "Image in the Mirror (II)")
    pick(g, p, "Music Box")
    assert "Music Box" in names(g, "item_deck")
    n = low(g, p, "knowledge", 8)
    again(g, p, lambda: put_on_top(g, "Music Box", "item_deck") and None)
    draw(g, p, "The Voice", [2] * n, tile="Organ Room")
    assert "Music Box" in gear(g, p) and g.state.counters[global_slot(g, "box_open")] == closed


def test_pickpockets_gloves_take_an_item_from_someone_in_the_room(rules: Ruleset) -> None:
    g, p = first(rules)
    q = (p + 1) % 3
    give(g, p, "Pickpocket's Gloves")
    again(g, p, lambda: give(g, q, "Axe") and None)
    use(g, p, "Pickpocket's Gloves")
    pick_if_asked(g, p, "pick whose pocket", f"P{q + 1}")
    pick_if_asked(g, p, "take which item", "Axe")
    assert "Axe" in gear(g, p) and "Axe" not in gear(g, q) and "Pickpocket's Gloves" in names(g, "used_up")


def _hero_turn(rules: Ruleset, weapon: str = "") -> tuple[Game, int, int]:
    """The haunt has begun; the next turn is hero ``p``'s, with the traitor ``q`` in the same room."""
    g, p = first(rules)
    q = (p + 2) % 3
    if weapon:
        give(g, p, weapon)
    again(g, p, lambda: haunt(g, q))
    return g, p, q


def test_sacrificial_dagger_may_turn_on_its_wielder(rules: Ruleset) -> None:
    """Sacrificial Dagger: first a Knowledge roll; 0-2 the dagger turns on you: 2 dice of physical damage and no
    attack this turn."""
    g, p, q = _hero_turn(rules, "Sacrificial Dagger")
    force_dice(g, [0] * value(g, p, "knowledge") + [1, 1])
    pick(g, p, "attack")
    pick(g, p, "Sacrificial Dagger")
    pick_if_asked(g, p, "how much on")
    assert "the dagger turns on" in log(g) and "attacks" not in log(g).split("turns on")[-1]
    assert counter(g, "attacked", p) == 1


def test_sacrificial_dagger_costs_a_mental_trait(rules: Ruleset) -> None:
    g, p, q = _hero_turn(rules, "Sacrificial Dagger")
    k = counter(g, "pos", p, "knowledge")
    force_dice(g, [1, 1, 1] + [0] * (value(g, p, "knowledge") - 3))
    pick(g, p, "attack")
    pick(g, p, "Sacrificial Dagger")
    pick(g, p, "knowledge")
    assert counter(g, "pos", p, "knowledge") == k - 1 and f"P{p + 1} attacks P{q + 1}" in log(g)


def test_blood_dagger_costs_speed_and_hurts_its_thief(rules: Ruleset) -> None:
    """Blood Dagger: attacking with it costs 1 Speed; it can be stolen (not traded), and the thief takes 2 dice."""
    g, p, q = _hero_turn(rules)
    give(g, q, "Blood Dagger")
    low(g, q, "might", 1)
    force_dice(g, [2] * value(g, p, "might") + [0] * value(g, q, "might") + [1, 1])
    pick(g, p, "attack")
    pick(g, p, "Blood Dagger")
    pick_if_asked(g, p, "how much on")
    assert "Blood Dagger" in gear(g, p) and "the Blood Dagger cuts its thief" in log(g)


def test_blood_dagger_attack_costs_a_speed(rules: Ruleset) -> None:
    g, p, q = _hero_turn(rules, "Blood Dagger")
    speed = counter(g, "pos", p, "speed")
    pick(g, p, "attack")
    pick(g, p, "Blood Dagger")
    assert counter(g, "pos", p, "speed") == speed - 1 and "the Blood Dagger drinks" in log(g)


# ------------------------------------------------------------------------------ movement: Bell, Bottle, Dark Dice


def test_bell_draws_heroes_toward_you(rules: Ruleset) -> None:
    """Bell 5+: move any number of heroes 1 space toward you."""
    g, p, q = _hero_turn(rules, "Bell")
    r = 3 - p - q
    place_at(g, r, "Grand Staircase")
    force_dice(g, [2, 2, 1] + [0] * (value(g, p, "sanity") - 3))
    use(g, p, "Bell")
    pick(g, p, f"P{r + 1}")
    pick(g, p, "done")
    assert room_of(g, r) == "Foyer"


def test_bell_failure_lets_the_traitor_bring_monsters(rules: Ruleset) -> None:
    """Bell 0-4: the traitor may move each monster 1 space toward you."""
    g, p, q = _hero_turn(rules, "Bell")
    wolf = monster_at(g, "Werewolf", "Grand Staircase")
    force_dice(g, [0] * value(g, p, "sanity"))
    use(g, p, "Bell")
    pick(g, q, "yes")
    assert g.state.counters[card_slot(g, wolf, "m_at")] == card_ids(g, "Foyer")[0]


def test_bottle_six_goes_to_any_room(rules: Ruleset) -> None:
    g, p, q = _hero_turn(rules, "Bottle")
    force_dice(g, [2, 2, 2])
    use(g, p, "Bottle")
    pick(g, p, "Upper Landing")
    assert room_of(g, p) == "Upper Landing" and "Bottle" in names(g, "used_up")


def test_dark_dice_three_moves_you_for_free(rules: Ruleset) -> None:
    g, p = first(rules)
    give(g, p, "Dark Dice")
    again(g, p)
    force_dice(g, [1, 1, 1])
    use(g, p, "Dark Dice")
    pick_if_asked(g, p, "go where for free", "Foyer")
    assert room_of(g, p) == "Foyer" and counter(g, "moved", p) == 0


def test_dark_dice_zero_drops_every_trait(rules: Ruleset) -> None:
    g, p = first(rules)
    give(g, p, "Dark Dice")
    again(g, p)
    force_dice(g, [0, 0, 0])
    use(g, p, "Dark Dice")
    assert [counter(g, "pos", p, t) for t in TRAITS] == [1, 1, 1, 1] and "Dark Dice" in names(g, "used_up")


def test_dark_dice_six_joins_another_explorer(rules: Ruleset) -> None:
    g, p = first(rules)
    q = (p + 1) % 3
    give(g, p, "Dark Dice")
    again(g, p, lambda: place_at(g, q, "Upper Landing"))
    force_dice(g, [2, 2, 2])
    use(g, p, "Dark Dice")
    pick_if_asked(g, p, "go to which explorer", f"P{q + 1}")
    assert room_of(g, p) == "Upper Landing"


# ------------------------------------------------------------------------------ omens: Crystal Ball, Spirit Board


def test_crystal_ball_puts_the_card_you_want_on_top(rules: Ruleset) -> None:
    """Crystal Ball 4+: search the item stack, put the card of your choice on top, shuffle the rest; the look
    ends with it (the stack is hidden again in your view)."""
    g, p, q = _hero_turn(rules, "Crystal Ball")
    force_dice(g, [2, 2] + [0] * (value(g, p, "knowledge") - 2))
    use(g, p, "Crystal Ball")
    pick(g, p, "item_stack")
    pick(g, p, "Axe")
    assert names(g, "item_deck")[-1] == "Axe"
    assert set(g.view(p)["zones"]["item_deck"]) == {"?"}


def test_spirit_board_shows_you_the_next_tile(rules: Ruleset) -> None:
    """Spirit Board: before moving, look at the top tile of the room stack (only you)."""
    g, p = first(rules)
    give(g, p, "Spirit Board")
    again(g, p)
    tile = names(g, "room_stack")[-1]
    use(g, p, "Spirit Board")
    assert f"sees the top tile of the room stack: {tile}" in "\n".join(g.log_lines(p))
    assert tile not in "\n".join(g.log_lines((p + 1) % 3))


def test_spirit_board_after_the_haunt_calls_monsters(rules: Ruleset) -> None:
    g, p, q = _hero_turn(rules, "Spirit Board")
    wolf = monster_at(g, "Werewolf", "Grand Staircase")
    use(g, p, "Spirit Board")
    pick(g, q, "yes")
    assert g.state.counters[card_slot(g, wolf, "m_at")] == card_ids(g, "Foyer")[0]


# ------------------------------------------------------------- Revolver, Ring, Dynamite, Skull, Medallion, Gallery


def test_revolver_shoots_along_the_line_of_fire_and_a_miss_costs_nothing(rules: Ruleset) -> None:
    """Revolver: a Speed attack with 1 extra die at someone in the line of fire; losing at a distance costs the
    attacker nothing (L292-L294)."""
    g, p, q = _hero_turn(rules, "Revolver")
    place_at(g, q, "Foyer")
    before = [counter(g, "pos", p, t) for t in TRAITS]
    force_dice(g, [0] * (value(g, p, "speed") + 1) + [2] * value(g, q, "speed"))
    pick(g, p, "attack")
    pick(g, p, "Revolver")
    assert f"P{p + 1} attacks P{q + 1} with speed" in log(g) and f"misses P{q + 1} in the Foyer" in log(g)
    assert [counter(g, "pos", p, t) for t in TRAITS] == before


def test_ring_attacks_with_sanity(rules: Ruleset) -> None:
    """Ring: attack with Sanity instead of Might; the damage is mental."""
    g, p, q = _hero_turn(rules, "Ring")
    low(g, q, "sanity", 2)
    mental = counter(g, "pos", q, "sanity") + counter(g, "pos", q, "knowledge")
    physical = counter(g, "pos", q, "might") + counter(g, "pos", q, "speed")
    force_dice(g, [2] * value(g, p, "sanity") + [0] * value(g, q, "sanity"))
    pick(g, p, "attack")
    pick(g, p, "sanity")
    pick_if_asked(g, q, "how much on")
    assert f"P{p + 1} attacks P{q + 1} with sanity" in log(g)
    assert counter(g, "pos", q, "sanity") + counter(g, "pos", q, "knowledge") < mental
    assert counter(g, "pos", q, "might") + counter(g, "pos", q, "speed") == physical


def test_dynamite_blasts_the_next_room(rules: Ruleset) -> None:
    """Dynamite: instead of attacking, thrown through a doorway: everyone there rolls Speed, 0-4 takes 4 damage."""
    g, p, q = _hero_turn(rules, "Dynamite")
    place_at(g, q, "Foyer")
    before = counter(g, "pos", q, "might") + counter(g, "pos", q, "speed")
    force_dice(g, [0] * value(g, q, "speed"))
    use(g, p, "Dynamite")
    pick(g, p, "Foyer")
    pick_if_asked(g, q, "how much on")
    assert counter(g, "pos", q, "might") + counter(g, "pos", q, "speed") == before - 4
    assert "Dynamite" in names(g, "used_up") and counter(g, "attacked", p) == 1


def test_skull_takes_mental_damage_as_physical(rules: Ruleset) -> None:
    """Skull: mental damage may be taken as physical damage instead."""
    g, p = first(rules)
    give(g, p, "Skull")
    mental = counter(g, "pos", p, "knowledge") + counter(g, "pos", p, "sanity")
    physical = counter(g, "pos", p, "might") + counter(g, "pos", p, "speed")
    draw(g, p, "Jonah's Turn", [2])
    pick(g, p, "yes")
    pick_if_asked(g, p, "how much on")
    assert counter(g, "pos", p, "knowledge") + counter(g, "pos", p, "sanity") == mental
    assert counter(g, "pos", p, "might") + counter(g, "pos", p, "speed") == physical - 2


@pytest.mark.parametrize("ward", [True, False])
def test_medallion_wards_off_the_graveyard(rules: Ruleset, ward: bool) -> None:
    """Medallion: immune to the Graveyard (a roll to leave it, a trait lost on a failure)."""
    g, p = first(rules)
    if ward:
        give(g, p, "Medallion")
    draw(g, p, "Night View", [0] * 8, tile="Graveyard")
    again(g, p)
    before = sum(counter(g, "pos", p, t) for t in TRAITS)
    force_dice(g, [0] * 8)
    pick(g, p, "go")
    assert ("leaves the Graveyard" in log(g)) is not ward
    assert sum(counter(g, "pos", p, t) for t in TRAITS) == before - (0 if ward else 1)


def test_gallery_fall_to_the_ballroom(rules: Ruleset) -> None:
    """Gallery: with the Ballroom in the house, you may fall to it and take 1 die of physical damage."""
    g, p = first(rules)
    draw(g, p, "Night View", [0] * 8)
    again(g, p, lambda: place_at(g, p, "Upper Landing"))
    explore_into(g, p, "Gallery", "omen_deck", "Holy Symbol")
    force_dice(g, [1])
    pick(g, p, "yes")
    pick_if_asked(g, p, "how much on")
    assert room_of(g, p) == "Ballroom" and "jumps down from the Gallery" in log(g)


def test_everyone_starts_in_the_entrance_hall(rules: Ruleset) -> None:
    """The fixture the tests above build on: three explorers, all in the Entrance Hall, nobody holding anything."""
    g, p = first(rules)
    assert all(room_of(g, x) == "Entrance Hall" and not gear(g, x) for x in range(3))
    assert g.state.counters[player_slot(g, "at", p)] == card_ids(g, "Entrance Hall")[0]
