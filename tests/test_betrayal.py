"""Betrayal at House on the Hill (rulesets/betrayal.rules, issue 16): the seed's worked example and rule examples
as scenario tests, played by the real ruleset from edited positions, and the side-visibility test.

Positions are reached by playing (explorers chosen by name, a tile and a card put on top of their stacks before an
explorer explores) and edited only where the scenario needs a fact the rules reach by chance (the haunt begun, a
monster in the room, trait positions, dice). Dice: a die has faces 0, 0, 1, 1, 2, 2 (spec A.3); `force_dice`
finds an RNG state whose next draws show the wanted values.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import ROOT
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from rng_search import first_state
from scenario import _move as move_to_zone
from scenario import card_ids, card_slot, choose, field, global_slot, player_slot, refresh_decision, zone_index

PATH = ROOT / "rulesets" / "betrayal.rules"
TRAITS = ("might", "speed", "knowledge", "sanity")


@pytest.fixture(scope="module")
def rules() -> Ruleset:
    return load_ruleset(str(PATH))


def start(rules: Ruleset, explorers: Sequence[str], seed: int = 1) -> Game:
    """A game whose players chose these explorers, waiting at the first explorer's first action."""
    g = rules.new_game(len(explorers), seed, check_invariants=True)
    for p, name in enumerate(explorers):
        options = g.decision.options[p] if g.decision else ()
        choose(g, p, next(o for o in options if o.startswith(name)))
    return g


def turn_player(g: Game) -> int:
    assert g.decision is not None
    return g.waiting_for()[0]


def pick(g: Game, p: int, prefix: str) -> None:
    """Apply the option of ``p`` whose label starts with ``prefix``."""
    assert g.decision is not None, g.error
    options = g.decision.options[p]
    hits = [i for i, o in enumerate(options) if o.startswith(prefix)]
    assert hits, f"P{p + 1} has no option {prefix!r}: {options}"
    g.apply(hits[0], p)


def pick_if_asked(g: Game, p: int, fragment: str, prefix: str = "") -> None:
    """Apply ``prefix`` if ``p`` is asked the question containing ``fragment``: a choice with one option is not
    asked (the only door, the only turn of a tile), so a scenario answers only the questions the game asks."""
    if g.decision is not None and p in g.decision.options and fragment in g.decision.prompt_for(p):
        pick(g, p, prefix)


def counter(g: Game, name: str, p: int | None = None, index: str | None = None) -> int:
    slot = global_slot(g, name) if p is None else player_slot(g, name, p, index)
    return int(g.state.counters[slot])


def set_counter(g: Game, name: str, value: int, p: int | None = None, index: str | None = None) -> None:
    slot = global_slot(g, name) if p is None else player_slot(g, name, p, index)
    g.state.counters[slot] = value


def value(g: Game, p: int, trait: str) -> int:
    """The printed value at ``p``'s clip on ``trait`` (the explorer's track read at the position)."""
    hero = g.state.counters[player_slot(g, "hero", p)]
    return int(field(g, hero, trait)[counter(g, "pos", p, trait)])


def force_dice(g: Game, values: Sequence[int], start_at: int = 0) -> None:
    """Make the next len(values) rolls of the die `bd` show these values (0, 1 or 2 each)."""
    faces = [f[0] for f in g.ruleset.program.dice["bd"].faces]
    x = first_state(start_at, start_at + 20_000_000, len(faces), [[i for i, f in enumerate(faces) if f == v]
                                                                  for v in values])
    if x is None:
        raise RuntimeError(f"no RNG state gives {values}")
    g.state.rng = x


def put_on_top(g: Game, name: str, zone: str) -> int:
    cid = card_ids(g, name)[0]
    move_to_zone(g, cid, zone_index(g, zone))
    return cid


def explore_into(g: Game, p: int, tile: str, deck: str = "", card: str = "", dice: Sequence[int] = ()) -> None:
    """``p`` explores through their first open door and finds ``tile`` (with ``card`` on top of ``deck``); ``dice``
    are the next rolls (set before exploring: when nothing is left to do the turn ends, and rolls, at once)."""
    put_on_top(g, tile, "room_stack")
    if card:
        put_on_top(g, card, deck)
    refresh_decision(g)
    if dice:
        force_dice(g, dice)
    pick(g, p, "explore")
    pick_if_asked(g, p, "explore through which door")  # the first door offered
    pick_if_asked(g, p, "turn the")  # the first turn of the tile that connects


# ------------------------------------------------------------------------------ the worked example (spec 5.4)


def test_worked_example_jenny_attacks_the_werewolf(rules: Ruleset) -> None:
    """Jenny LeClerc (Might 4) attacks a Werewolf: 5 against 8, she takes 3 physical damage, puts 2 on Might (now 3)
    and 1 on Speed (still 4), and lives (L298)."""
    g = start(rules, ["Jenny LeClerc", "Ox Bellows", "Zoe Ingstrom"])
    p = turn_player(g)
    if p != 0:  # play until Jenny's own turn: the others end theirs at once
        while turn_player(g) != 0:
            pick(g, turn_player(g), "end_turn")
    assert value(g, 0, "might") == 4 and value(g, 0, "speed") == 4
    set_counter(g, "haunt_on", 1)
    set_counter(g, "side", 1, 0)
    set_counter(g, "side", 2, 1)
    set_counter(g, "side", 1, 2)
    wolf = put_on_top(g, "Werewolf", "monsters")
    g.state.counters[card_slot(g, wolf, "m_at")] = card_ids(g, "Foyer")[0]
    # Jenny walks into the Foyer, where the Werewolf waits (the only way out of the Entrance Hall: not asked), and
    # the rules offer her an attack there
    pick(g, 0, "go")
    force_dice(g, [2, 1, 1, 1] + [2, 2, 1, 1, 1, 1])  # Jenny 4 dice: 5; the Werewolf's 6 dice: 8
    pick(g, 0, "attack")
    pick_if_asked(g, 0, "attack a monster", "yes")  # the traitor stayed in the Entrance Hall: not asked
    pick_if_asked(g, 0, "attack which monster", "Werewolf")  # the only monster: not asked
    assert "P1 against Werewolf (might): 5 against 8" in g.log_lines()
    # 3 damage, split by Jenny: how much on might (the rest on speed)?
    assert g.decision is not None and g.decision.options[0] == ("0", "1", "2", "3")
    pick(g, 0, "2")
    assert (value(g, 0, "might"), value(g, 0, "speed")) == (3, 4)
    assert counter(g, "alive", 0) == 1


# ------------------------------------------------------------------------------ the rule examples


def test_traits_move_in_steps_zoe(rules: Ruleset) -> None:
    """Zoe Ingstrom: Might 3 raised 2 steps is 4; Sanity 5 lowered 2 steps is 3, 3 steps is the skull (L94, L98)."""
    g = start(rules, ["Zoe Ingstrom", "Ox Bellows", "Jenny LeClerc"])
    assert value(g, 0, "might") == 3 and value(g, 0, "sanity") == 5
    hero = g.state.counters[player_slot(g, "hero", 0)]
    might, sanity = field(g, hero, "might"), field(g, hero, "sanity")
    start_m, start_s = counter(g, "pos", 0, "might"), counter(g, "pos", 0, "sanity")
    assert might[start_m + 2] == 4 and sanity[start_s - 2] == 3 and start_s - 3 == 0  # position 0 is the skull


def test_jenny_speed_one_step_down_stays_four(rules: Ruleset) -> None:
    g = start(rules, ["Jenny LeClerc", "Ox Bellows", "Zoe Ingstrom"])
    hero = g.state.counters[player_slot(g, "hero", 0)]
    speed = field(g, hero, "speed")
    assert speed[counter(g, "pos", 0, "speed")] == 4 and speed[counter(g, "pos", 0, "speed") - 1] == 4


def _first_turn(rules: Ruleset, names: Sequence[str], seed: int = 1) -> tuple[Game, int]:
    g = start(rules, names, seed)
    return g, turn_player(g)


def test_a_room_symbol_draws_its_card_once_and_stops_movement(rules: Ruleset) -> None:
    """The first explorer into a room with a symbol draws that card and stops moving; nobody draws there again
    (L192-L208)."""
    g, p = _first_turn(rules, ["Ox Bellows", "Zoe Ingstrom", "Jenny LeClerc"])
    explore_into(g, p, "Kitchen", "omen_deck", "Holy Symbol")
    assert "Holy Symbol" in [g.state.tables.card_names[c] for c in g.state.zones[zone_index(g, "gear", p)]]
    assert counter(g, "omens_drawn") == 1 and counter(g, "stop_moving", p) == 1
    options = g.decision.options[p] if g.decision else ()
    assert not any(o.startswith(("go", "explore")) for o in options)  # movement is over, other actions remain
    assert any(o.startswith("end_turn") for o in options)


def test_holding_a_bonus_card_and_losing_it_takes_back_only_what_it_gave(rules: Ruleset) -> None:
    """A +2 Sanity card on a Sanity track one step from its top gives 1; dropping it takes back 1, not 2 (L242)."""
    g, p = _first_turn(rules, ["Ox Bellows", "Zoe Ingstrom", "Jenny LeClerc"])
    set_counter(g, "pos", 7, p, "sanity")
    explore_into(g, p, "Kitchen", "omen_deck", "Holy Symbol")
    assert counter(g, "pos", p, "sanity") == 8
    pick(g, p, "drop_gear")
    pick_if_asked(g, p, "drop which item", "Holy Symbol")  # the only item: not asked
    assert counter(g, "pos", p, "sanity") == 7


@pytest.mark.parametrize(("roll", "starts"), [([1, 1, 1, 1, 0, 0], True), ([1, 1, 1, 1, 1, 0], False)])
def test_haunt_roll_on_the_fifth_omen(rules: Ruleset, roll: list[int], starts: bool) -> None:
    """Four omens had been drawn; drawing the fifth, a haunt roll of 4 or less starts the haunt (L312)."""
    g, p = _first_turn(rules, ["Ox Bellows", "Zoe Ingstrom", "Jenny LeClerc"])
    set_counter(g, "omens_drawn", 4)
    for name in ("Bite", "Book", "Ring", "Skull"):  # the four omens drawn earlier, now in a pile of the house
        cid = card_ids(g, name)[0]
        move_to_zone(g, cid, zone_index(g, "used_up"))
    explore_into(g, p, "Kitchen", "omen_deck", "Dog", dice=roll)  # no roll before the haunt roll
    assert counter(g, "omens_drawn") == 5
    pick_if_asked(g, p, "what now", "end_turn")  # with nothing else to do the turn ends unasked
    assert bool(counter(g, "haunt_on")) is starts
    if starts:
        log = "\n".join(g.log_lines())
        assert f"makes the haunt roll: {sum(roll)} against 5 omen(s)" in log
        assert "Dog in the Kitchen -- haunt 46. The Feast" in log  # the chart's Dog x Kitchen cell


def test_haunt_chart_and_traitor_tie_break(rules: Ruleset) -> None:
    """Book x Kitchen is haunt 3, Frog-Leg Stew, whose traitor is the explorer with the lowest Knowledge other than
    the revealer; among equals the first to the revealer's left (L318-L322)."""
    g, p = _first_turn(rules, ["Ox Bellows", "Zoe Ingstrom", "Jenny LeClerc"])
    for q in range(3):
        set_counter(g, "pos", 3, q, "knowledge")  # Ox 3, Zoe 3, Jenny 4: Ox and Zoe tie lowest
    explore_into(g, p, "Kitchen", "omen_deck", "Book", dice=[0] * 6)
    pick_if_asked(g, p, "what now", "end_turn")
    assert counter(g, "haunt_on") == 1 and "haunt 3. Frog-Leg Stew" in "\n".join(g.log_lines())
    lows = [q for q in range(3) if q != p and value(g, q, "knowledge") == min(
        value(g, x, "knowledge") for x in range(3) if x != p)]
    expected = next(q for q in [(p + k) % 3 for k in range(1, 3)] if q in lows)
    assert counter(g, "side", expected) == 2
    assert sum(counter(g, "side", q) == 2 for q in range(3)) == 1


def test_nobody_dies_before_the_haunt(rules: Ruleset) -> None:
    """The Bite attacks with 8 against 0 when Might and Speed are at their lowest: before the haunt they stay there
    and nobody dies (L96)."""
    g, p = _first_turn(rules, ["Ox Bellows", "Zoe Ingstrom", "Jenny LeClerc"])
    set_counter(g, "pos", 1, p, "might")
    set_counter(g, "pos", 1, p, "speed")
    put_on_top(g, "Kitchen", "room_stack")
    put_on_top(g, "Bite", "omen_deck")
    refresh_decision(g)
    force_dice(g, [2, 2, 2, 2] + [0] * 4)  # the Bite: 8; Ox at his lowest Might (4): 0 (no roll before it)
    pick(g, p, "explore")
    pick_if_asked(g, p, "explore through which door")
    pick_if_asked(g, p, "turn the")
    assert counter(g, "alive", p) == 1
    assert counter(g, "pos", p, "might") == 1 and counter(g, "pos", p, "speed") == 1


def test_armor_takes_one_less_physical_damage(rules: Ruleset) -> None:
    """Armor: whenever you take physical damage, take 1 less (items.yaml). The Bite rolls 7 against Ox's 1: 6
    damage, 5 with the Armor, split as Ox likes (2 on Might, 3 on Speed)."""
    g, p = _first_turn(rules, ["Ox Bellows", "Zoe Ingstrom", "Jenny LeClerc"])
    armor = card_ids(g, "Armor")[0]
    move_to_zone(g, armor, zone_index(g, "gear", p))
    might, speed = counter(g, "pos", p, "might"), counter(g, "pos", p, "speed")
    put_on_top(g, "Kitchen", "room_stack")
    put_on_top(g, "Bite", "omen_deck")
    refresh_decision(g)
    dice = [2, 2, 2, 1] + [0] * (value(g, p, "might") - 1) + [1]
    force_dice(g, dice)  # no roll comes before the Bite's
    pick(g, p, "explore")
    pick_if_asked(g, p, "explore through which door")
    pick_if_asked(g, p, "turn the")
    assert g.decision is not None and "of 5 physical damage" in (g.decision.prompt_for(p) or "")
    pick(g, p, "2")
    assert (counter(g, "pos", p, "might"), counter(g, "pos", p, "speed")) == (might - 2, speed - 3)


def test_the_mask_is_put_on_and_taken_off(rules: Ruleset) -> None:
    """Mask: Sanity 4+ puts it on (+2 Knowledge, -2 Sanity) or takes it off (the reverse)."""
    g, p = _first_turn(rules, ["Zoe Ingstrom", "Ox Bellows", "Jenny LeClerc"])
    explore_into(g, p, "Kitchen", "omen_deck", "Mask")
    know, san = counter(g, "pos", p, "knowledge"), counter(g, "pos", p, "sanity")
    force_dice(g, [2] * value(g, p, "sanity"))
    pick(g, p, "use_gear")
    pick_if_asked(g, p, "use which card", "Mask")  # the only card: not asked
    assert (counter(g, "pos", p, "knowledge"), counter(g, "pos", p, "sanity")) == (know + 2, san - 2)


def test_a_tile_for_another_floor_goes_under_the_stack(rules: Ruleset) -> None:
    """Exploring the ground floor, a basement-only tile on top goes to the bottom and the next tile that fits is
    placed (L130)."""
    g, p = _first_turn(rules, ["Ox Bellows", "Zoe Ingstrom", "Jenny LeClerc"])
    put_on_top(g, "Kitchen", "room_stack")
    crypt = put_on_top(g, "Crypt", "room_stack")  # basement only, now on top
    refresh_decision(g)
    pick(g, p, "explore")
    pick_if_asked(g, p, "explore through which door")
    assert g.state.zones[zone_index(g, "room_stack")][0] == crypt  # at the bottom
    pick_if_asked(g, p, "turn the")
    rooms = [g.state.tables.card_names[c] for c in g.state.zones[zone_index(g, "house_rooms")]]
    assert "Kitchen" in rooms and "Crypt" not in rooms


# ------------------------------------------------------------------------------ full games


@pytest.mark.parametrize("players", [3, 6])
def test_random_games_reach_the_haunt_and_end(rules: Ruleset, players: int) -> None:
    haunts = 0
    for seed in range(3):
        g = rules.new_game(players, seed, check_invariants=True)
        r = random.Random(seed)
        while not g.finished:
            q = g.waiting_for()[0]
            g.apply(r.randrange(g.option_count(q)), q)
        assert g.state.status == "finished", g.error
        haunts += counter(g, "haunt_on")
    assert haunts >= 2


# ------------------------------------------------------------------------------ what each side may read


def _side_names(g: Game, zone: str) -> set[str]:
    """The names and printed texts of the cards in ``zone`` (a side's secret reading)."""
    cards = g.state.zones[zone_index(g, zone)]
    return {g.state.tables.card_names[c] for c in cards} | {field(g, c, "text") for c in cards if field(g, c, "text")}


def _seen_by(g: Game, p: int) -> str:
    """Everything ``p`` is shown: the view, the display panel, the log and the option labels."""
    parts = [json.dumps(g.view(p), ensure_ascii=False), "\n".join(g.display(p) or []), "\n".join(g.log_lines(p))]
    if g.decision is not None and p in g.decision.options:
        parts.append("\n".join(g.decision.options[p]))
    return "\n".join(parts)


def side_leaks(rules: Ruleset, games: int, players: int = 4) -> list[str]:
    """Play random quick games into their haunts; at every decision, no hero is shown anything only the traitor's
    side reads (its Tome, its secret clue) and no traitor anything only the heroes read (Secrets of Survival)."""
    found: list[str] = []
    checked = 0
    for seed in range(games):
        g = rules.new_game(players, seed, check_invariants=True, options={"length": "quick"})
        r = random.Random(seed)
        while not g.finished:
            if counter(g, "haunt_on"):
                traitor_only = _side_names(g, "traitor_tome") | _side_names(g, "traitor_clue")
                hero_only = _side_names(g, "survival")
                for p in range(players):
                    side = counter(g, "side", p)
                    secret = traitor_only if side == 1 else hero_only if side == 2 else set()
                    seen = _seen_by(g, p)
                    found += [f"game {seed}: P{p + 1} (side {side}) is shown {s!r}" for s in secret if s in seen]
                    checked += 1
            q = g.waiting_for()[0]
            g.apply(r.randrange(g.option_count(q)), q)
    assert checked > 50  # the check met haunts with both sides to look at
    return found


def test_no_side_is_shown_the_other_sides_secrets(rules: Ruleset) -> None:
    assert side_leaks(rules, 8) == []


def test_the_side_check_catches_a_leaky_copy(tmp_path: Path) -> None:
    """The same game with the Traitor's Tome laid open to everyone: the check must name the leak."""
    shutil.copytree(ROOT / "cards" / "betrayal", tmp_path / "cards" / "betrayal")
    (tmp_path / "rulesets").mkdir()
    path = tmp_path / "rulesets" / "betrayal.rules"
    shutil.copy(PATH, path)
    shutil.copytree(PATH.with_suffix(""), path.with_suffix(""))  # the parts the main file includes
    changed = 0
    for part in [path, *sorted(path.with_suffix("").glob("*.rules"))]:
        text = part.read_text(encoding="utf-8")
        leaky = text.replace("zone traitor_tome: set of Tome visible to traitor_side()",
                             "zone traitor_tome: set public of Tome")
        changed += leaky != text
        part.write_text(leaky, encoding="utf-8")
    assert changed == 1
    leaks = side_leaks(load_ruleset(str(path)), 8)
    assert leaks and all("side 1" in leak for leak in leaks)


# ------------------------------------------------------------------------------ card and room effects modelled since


def _gear(g: Game, p: int) -> list[str]:
    return [g.state.tables.card_names[c] for c in g.state.zones[zone_index(g, "gear", p)]]


def test_the_vault_opens_on_knowledge_6_and_gives_two_items(rules: Ruleset) -> None:
    """Vault: a Knowledge 6+ roll opens it, the explorer draws the 2 items inside and the Vault Empty token goes on
    it (rooms.yaml, L156); the event outside is drawn first, then the roll is the barrier's `cross` action (once a
    turn, no movement)."""
    g, p = _first_turn(rules, ["Ox Bellows", "Zoe Ingstrom", "Jenny LeClerc"])
    set_counter(g, "at", card_ids(g, "Upper Landing")[0], p)
    put_on_top(g, "Axe", "item_deck")
    put_on_top(g, "Armor", "item_deck")
    explore_into(g, p, "Vault", "event_deck", "Image in the Mirror (II)")
    force_dice(g, [2] * 8)
    pick(g, p, "cross")
    assert "opens the Vault and empties it" in "\n".join(g.log_lines())
    assert {"Axe", "Armor"} <= set(_gear(g, p)) and counter(g, "vault_empty") == 1


def test_secret_stairs_join_two_floors_for_explorers(rules: Ruleset) -> None:
    """Secret Stairs: a token here and one in a room on another floor, joined by a way explorers may take (a
    `hidden_way` link of the house graph, which monsters never use, L394)."""
    g, p = _first_turn(rules, ["Ox Bellows", "Zoe Ingstrom", "Jenny LeClerc"])
    explore_into(g, p, "Ballroom", "event_deck", "Secret Stairs")
    pick_if_asked(g, p, "put the other token", "Upper Landing")
    linked = g.view(p)["graphs"]["house"]["linked"]
    assert any(sorted(x[:2]) == ["ballroom", "upper_landing"] and x[2] == "hidden_way" for x in linked), linked


def test_webs_hold_an_explorer_until_a_might_roll_frees_them(rules: Ruleset) -> None:
    """Webs: Might 0-3 and you are stuck; your turn is then one Might 4+ roll to get free (events.yaml)."""
    g, p = _first_turn(rules, ["Ox Bellows", "Zoe Ingstrom", "Jenny LeClerc"])
    explore_into(g, p, "Ballroom", "event_deck", "Webs", dice=[0] * 8)
    assert counter(g, "stuck", p) == 1 and "is stuck until freed" in "\n".join(g.log_lines())
