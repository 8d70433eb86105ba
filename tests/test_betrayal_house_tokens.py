"""Betrayal at House on the Hill (rulesets/betrayal.rules, issue 16): tokens left in rooms and what they do later
(A Moment of Hope, Drip, Smoke, Closet Door, Locked Safe, Skeletons, the Revolving Wall's Wall Switch), monsters'
ranged attacks along the line of fire (L292) and the Item Pile token limit, played by the real ruleset.

The actions a turn offers are computed after each action, so positions are edited before an action is taken.
"""

from __future__ import annotations

import pytest
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from scenario import _move as move_to_zone
from scenario import refresh_decision, zone_index
from test_betrayal import PATH, counter, explore_into, force_dice, pick, pick_if_asked, put_on_top, set_counter, value
from test_betrayal_house import answer, card, cid, first_turn, house, options, set_card

BLESSING, DRIP, SMOKE, CLOSET, SAFE, SKELETONS, SLIDE, WALL_SWITCH = (1, 2, 4, 8, 16, 32, 64, 128)


@pytest.fixture(scope="module")
def rules() -> Ruleset:
    return load_ruleset(str(PATH))


def gear(g: Game, p: int) -> list[str]:
    return [g.state.tables.card_names[c] for c in g.state.zones[zone_index(g, "gear", p)]]


def into_foyer_with(rules: Ruleset, marks: int) -> tuple[Game, int]:
    """The first explorer walks from the Entrance Hall into the Foyer, where these tokens lie."""
    g, p = first_turn(rules)
    set_card(g, "Foyer", "marks", marks)
    pick(g, p, "go")  # the Entrance Hall's only way: the Foyer (not asked)
    assert counter(g, "at", p) == cid(g, "Foyer")
    return g, p


# ------------------------------------------------------------------------------ tokens that change trait rolls


@pytest.mark.parametrize(("token", "extra"), [(0, 0), (BLESSING, 1), (DRIP, -1), (SMOKE, -2)])
def test_blessing_drip_and_smoke_change_the_dice_of_a_trait_roll_in_their_room(
    rules: Ruleset, token: int, extra: int
) -> None:
    """A Moment of Hope's Blessing: 1 more die (at most 8); Drip: 1 fewer; Smoke: 2 fewer (at least 1). Seen on
    the Skeletons' Sanity roll in the same room: every die shows 2, so the total is twice the dice rolled."""
    g, p = into_foyer_with(rules, SKELETONS + token)
    force_dice(g, [2] * 9)
    pick(g, p, "use_token")
    dice = max(1, min(8, value(g, p, "sanity") + max(extra, 0)) + min(extra, 0))
    assert f"P{p + 1} searches the Skeletons: Sanity {2 * dice} (5+ finds an item)" in g.log_lines()


def test_the_drawn_events_put_their_tokens_in_the_room(rules: Ruleset) -> None:
    """A Moment of Hope leaves the Blessing token in the room where it is drawn (a lasting effect of the room)."""
    g, p = first_turn(rules)
    explore_into(g, p, "Ballroom", "event_deck", "A Moment of Hope")
    assert card(g, "Ballroom", "marks") == BLESSING
    assert "the blessing token is put in the Ballroom" in g.log_lines()


# ------------------------------------------------------------------------------ tokens with a roll of their own


def test_the_closet_gives_an_item_on_4(rules: Ruleset) -> None:
    """Closet Door: once in a turn an explorer in the room rolls 2 dice; 4 draws an item (the token stays)."""
    g, p = first_turn(rules)
    explore_into(g, p, "Ballroom", "event_deck", "Closet Door")
    assert card(g, "Ballroom", "marks") == CLOSET and "use_token" in options(g, p)
    put_on_top(g, "Axe", "item_deck")
    force_dice(g, [2, 2])
    pick(g, p, "use_token")
    assert "Axe" in gear(g, p) and card(g, "Ballroom", "marks") == CLOSET
    assert "use_token" not in options(g, p)  # once per turn


def test_the_safe_opens_on_knowledge_5_gives_two_items_and_is_removed(rules: Ruleset) -> None:
    """Locked Safe: Knowledge 5+ draws 2 items and removes the token."""
    g, p = into_foyer_with(rules, SAFE)
    put_on_top(g, "Axe", "item_deck")
    put_on_top(g, "Candle", "item_deck")
    force_dice(g, [2] * 8)
    pick(g, p, "use_token")
    assert {"Axe", "Candle"} <= set(gear(g, p)) and card(g, "Foyer", "marks") == 0


def test_the_skeletons_hurt_when_drawn_and_give_an_item_on_sanity_5(rules: Ruleset) -> None:
    """Skeletons: 1 die of mental damage on drawing; later a Sanity 5+ search draws an item and removes it."""
    g, p = first_turn(rules)
    mind = counter(g, "pos", p, "sanity") + counter(g, "pos", p, "knowledge")
    explore_into(g, p, "Ballroom", "event_deck", "Skeletons", dice=[1])
    pick(g, p, "1")  # 1 mental damage: on Knowledge
    assert counter(g, "pos", p, "sanity") + counter(g, "pos", p, "knowledge") == mind - 1
    assert card(g, "Ballroom", "marks") == SKELETONS
    put_on_top(g, "Axe", "item_deck")
    force_dice(g, [2] * 8)
    pick(g, p, "use_token")
    assert "Axe" in gear(g, p) and card(g, "Ballroom", "marks") == 0


# ------------------------------------------------------------------------------ the Revolving Wall


def test_the_revolving_wall_opens_a_way_through_a_wall_and_a_knowledge_3_roll_passes_it(rules: Ruleset) -> None:
    """Revolving Wall (the Wall Switch token): on a wall without a doorway; with no room behind it a tile for the
    floor is put there and the explorer goes through. Later an explorer there passes it with Knowledge 3+."""
    g, p = first_turn(rules)
    put_on_top(g, "Dining Room", "room_stack")
    explore_into(g, p, "Gardens", "event_deck", "Revolving Wall")  # doors on two opposite sides: two walls
    answer(g, p, "put the Wall Switch", "turn the")
    assert "Dining Room" in house(g) and counter(g, "at", p) == cid(g, "Dining Room")
    linked = g.view(p)["graphs"]["house"]["linked"]
    assert any(sorted(x[:2]) == ["dining_room", "gardens"] and x[2] == "turn_wall" for x in linked), linked
    assert card(g, "Gardens", "marks") == WALL_SWITCH and card(g, "Dining Room", "marks") == WALL_SWITCH
    assert g.violations() == []
    q = (p + 1) % 3
    set_counter(g, "at", cid(g, "Gardens"), q)
    while g.waiting_for()[0] != q:
        pick(g, g.waiting_for()[0], "end_turn")
    force_dice(g, [2] * 8)
    pick(g, q, "use_token")
    assert counter(g, "at", q) == cid(g, "Dining Room")


# ------------------------------------------------------------------------------ monsters' ranged attacks (L292)


def _witch_in_line(rules: Ruleset, smoke: bool) -> tuple[Game, int]:
    """After the haunt: the hero P1 in the Entrance Hall, the traitor P2 in the Upper Landing, the Witch (a ranged
    monster) in the Grand Staircase, in a straight line north of the Foyer and the Entrance Hall."""
    g, p = first_turn(rules, ["Jenny LeClerc", "Ox Bellows", "Zoe Ingstrom"])
    set_counter(g, "haunt_on", 1)
    for who, side in ((0, 1), (1, 2), (2, 1)):
        set_counter(g, "side", side, who)
    set_counter(g, "traitor", 1)
    set_counter(g, "at", cid(g, "Upper Landing"), 1)
    set_counter(g, "at", cid(g, "Upper Landing"), 2)
    witch = put_on_top(g, "Witch", "monsters")
    set_card(g, "Witch", "m_at", cid(g, "Grand Staircase"))
    del witch
    if smoke:
        set_card(g, "Foyer", "marks", SMOKE)
        grid = g.ruleset.compiled.layout.grids["smoky"]
        g.state.counters[grid.slot(card(g, "Foyer", "cx"), 9 * 1 + card(g, "Foyer", "cy"))] = 1
    refresh_decision(g)
    while g.decision is not None and "move Witch" not in g.decision.prompt_for(g.waiting_for()[0]):
        pick(g, g.waiting_for()[0], "end_turn")
    pick(g, 1, "stay")
    return g, p


def test_a_ranged_monster_shoots_a_hero_in_its_line_of_fire(rules: Ruleset) -> None:
    """With no hero in its room, a monster with a ranged attack attacks one in its line of fire (the traitor
    chooses): the hero loses the opposed Might roll and takes the difference."""
    g, _ = _witch_in_line(rules, smoke=False)
    assert "shoot with Witch" in g.decision.prompt_for(1)  # type: ignore[union-attr]
    force_dice(g, [0] * value(g, 0, "might") + [1, 0, 0])
    pick(g, 1, "P1")
    assert "P1 against Witch (might): 0 against 1" in g.log_lines()


def test_smoke_blocks_the_line_of_fire(rules: Ruleset) -> None:
    """Smoke in the Foyer, between them: the Witch cannot see the hero, so she does not shoot."""
    g, _ = _witch_in_line(rules, smoke=True)
    assert g.decision is None or "shoot with Witch" not in g.decision.prompt_for(g.waiting_for()[0])
    assert not any("against Witch" in line for line in g.log_lines())


# ------------------------------------------------------------------------------ the Item Pile limit


def test_no_fifth_item_pile(rules: Ruleset) -> None:
    """Dropped items lie under an Item Pile token, and there are 4 (spec 7.3): with piles in four other rooms an
    explorer may drop only where a pile already is (trying elsewhere is refused: the item stays in hand)."""
    g, p = first_turn(rules)
    move_to_zone(g, cid(g, "Candle"), zone_index(g, "gear", p))
    for item, room in (("Axe", "Foyer"), ("Bell", "Grand Staircase"), ("Bottle", "Upper Landing"),
                       ("Revolver", "Basement Landing")):
        move_to_zone(g, cid(g, item), zone_index(g, "dropped"))
        set_card(g, item, "lay", cid(g, room))
    refresh_decision(g)
    pick(g, p, "go")  # into the Foyer: a pile is here
    assert "drop_gear" in options(g, p)
    pick(g, p, "go")
    pick_if_asked(g, p, "go where", "Entrance Hall")
    assert counter(g, "at", p) == cid(g, "Entrance Hall")
    pick(g, p, "drop_gear")
    assert "every Item Pile token is in use: P1 cannot drop an item in the Entrance Hall" in g.log_lines()
    assert "Candle" in gear(g, p) and "drop_gear" not in options(g, p)
