"""Slay the Spire: summon copies with their own die orders, and the printed Act I maps (issue 22).

Each physical Summon card of Acid Slime, Spike Slime, Green Louse and Large Slime prints its own die order.
S1 (hieu-lee/slay-the-spire-the-boardgame-the-game, src/game/enemies.ts `SUMMON_CARDS` at ecb5e10) and S2
(SnorlaxsTriForceWish/StSBoardGameCoopMod, src/main/java/BoardGame/dungeons/BGExordium.java at 3ee55bb) list the
same variants; the card file gives each copy its own entry (numbered: card names are unique, E103) in a `group`
named as printed, which `summon_one` draws from.

The Act I map board's two sides are board art (§28 A33); S2's `generateSpecialMap` transcribes both, with their
dark and light map-token spaces, and `shuffleMapTokens` the tokens (§4 step 6). map.yaml and map_tokens.yaml follow
it; the tests pin the drawings and check the rules the map must keep (INV-P11) and that a room on a token space is
what the token lying there says.
"""

from __future__ import annotations

import random

import pytest
from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_slot, choose, global_slot, player_slot, zone_index
from tests.sts_setup import RULESET, pc, set_pc, setc
from tests.test_slay_the_spire_faq import combat, foes

# What each die pair (1-2, 3-4, 5-6) does, per copy, as S1 and S2 print them.
ACID = {"A": "hit 2", "W": "1 Weak", "D": "hit 2 + 1 Daze"}
SPIKE = {"V": "hit 1 + 1 Vulnerable", "D": "hit 1 + 1 Daze", "2": "hit 2"}
LOUSE = {"1": "hit 1", "W": "1 Weak", "2": "hit 2"}
LARGE = {"W": "hit 1 + 2 Weak", "4": "hit 4", "S": "hit 3 + 2 Slimed"}
ORDERS = {
    "Acid Slime": (ACID, ["AWD", "DAW", "WDA", "WAD"]),
    "Spike Slime": (SPIKE, ["VD2", "DV2", "V2D", "2DV"]),
    "Green Louse": (LOUSE, ["1W2", "21W"]),
    "Large Slime (summon)": (LARGE, ["W4S", "W4S", "4SW", "SW4"]),
}


def printed(table: dict[str, str], order: str) -> str:
    return " | ".join(f"{pair}: {table[k]}" for pair, k in zip(("1-2", "3-4", "5-6"), order, strict=True))


def group_copies(g: Game, group: str) -> list[int]:
    t = g.state.tables
    return [c for c in range(len(t.card_names)) if t.fields["group"][c] == group]


@pytest.mark.parametrize("group", list(ORDERS))
def test_each_summon_copy_prints_its_own_die_order(group: str) -> None:
    """S1 and S2: the copies of a summon differ in die order; here each copy is its own entry of the group."""
    g = RULESET.new_game(1, 0)
    t = g.state.tables
    table, orders = ORDERS[group]
    texts = sorted(str(t.fields["text"][c]).split(". ")[0] for c in group_copies(g, group))
    assert texts == sorted(printed(table, o) for o in orders)
    assert all(t.card_names[c].startswith(group) for c in group_copies(g, group))


# The effect of one die pair on P1: (HP lost, Weak, Vulnerable, Daze gained, Slimed gained).
EFFECT = {
    "hit 2": (2, 0, 0, 0, 0), "1 Weak": (0, 1, 0, 0, 0), "hit 2 + 1 Daze": (2, 0, 0, 1, 0),
    "hit 1 + 1 Vulnerable": (1, 0, 1, 0, 0), "hit 1 + 1 Daze": (1, 0, 0, 1, 0), "hit 1": (1, 0, 0, 0, 0),
    "hit 1 + 2 Weak": (1, 2, 0, 0, 0), "hit 4": (4, 0, 0, 0, 0), "hit 3 + 2 Slimed": (3, 0, 0, 0, 2),
}


def acts_on_die(copy: int, die: int) -> tuple[int, ...]:
    """A one-player combat with only `copy` in P1's row; the die shows `die`; P1 ends the turn."""
    g = combat("Ironclad", seed=3)
    s = g.state
    for e in foes(g):
        _move(g, e, zone_index(g, "summon_box"))
    _move(g, copy, zone_index(g, "foes"))
    for name, value in (("lane", 0), ("life", 10), ("marker", 0), ("e_block", 0)):
        setc(g, copy, name, value)
    s.counters[global_slot(g, "die_result")] = die
    set_pc(g, "hp", 10)
    set_pc(g, "block", 0)
    daze, status = (len(s.zones[zone_index(g, z)]) for z in ("daze_deck", "status_deck"))
    choose(g, 0, "end_turn")
    assert g.error is None and g.violations() == [], g.error
    return (10 - pc(g, "hp"), pc(g, "weak"), pc(g, "vulnerable"), daze - len(s.zones[zone_index(g, "daze_deck")]),
            status - len(s.zones[zone_index(g, "status_deck")]))


@pytest.mark.parametrize("group", list(ORDERS))
def test_a_summoned_copy_acts_by_its_own_order(group: str) -> None:
    """The copy in play acts by its own printed order: the same die face does different things on two copies."""
    table, orders = ORDERS[group]
    g = RULESET.new_game(1, 0)
    copies = sorted(group_copies(g, group), key=lambda c: g.state.tables.card_names[c])
    for copy, order in zip(copies, orders, strict=True):
        for die, k in zip((1, 3, 5), order, strict=True):
            assert acts_on_die(copy, die) == EFFECT[table[k]], (g.state.tables.card_names[copy], die)


def test_summon_one_draws_every_copy_of_the_group() -> None:
    """Small Slime (1st Encounter) summons "Acid Slime": over a few seeds, different copies come."""
    seen = set()
    for seed in range(40):
        g = RULESET.new_game(1, seed, options={"mode": "combat"})
        choose(g, 0, "Ironclad")
        seen |= {g.state.tables.card_names[c] for c in foes(g) if g.state.tables.card_names[c].startswith("Acid")}
        if len(seen) == 4:
            break
    assert seen == {f"Acid Slime {i}" for i in range(1, 5)}


# ---------------------------------------------------------------- the printed Act I maps

# S2's drawings of the two printed sides (BGExordium.java `generateSpecialMap` at 3ee55bb, top row = floor 12):
# D a dark token space, L a light one, M monster, E elite, ? event, R campfire, T treasure, $ merchant, B boss.
S2_SIDES = [
    ["...B...", ".RR.RR.", "D.$.D.?", "L.M.?.L", ".D..L.D", "M.?.D.M", "T..T.T.", ".L..L.D", "D.M.D.L",
     "M.L.?.?", "?..M..M", ".?.?.?.", "...M..."],
    ["...B...", ".RR.RR.", "?.D.D.?", "E.L.?.D", "L.?.L.L", ".M.D.D.", ".T.TT.T", "?.D.M.D", "D.M.L.L",
     "$.L.?.M", "M..M..?", ".?.?.?.", "...M..."],
]
LETTER = {"monster": "M", "elite_room": "E", "event": "?", "campfire": "R", "treasure": "T", "merchant": "$",
          "boss_room": "B", "dark_token": "D", "light_token": "L"}


def rooms(g: Game, side: int) -> dict[tuple[int, int], int]:
    """(floor, column) -> the MapRoom card of that side."""
    t = g.state.tables
    return {(t.fields["floor"][c], t.fields["col"][c]): c for c in g.state.zones[zone_index(g, "map")]
            if t.fields["side"][c] == side}


@pytest.mark.parametrize("side", [0, 1])
def test_the_map_sides_are_the_printed_ones(side: int) -> None:
    """§4 step 5, §11: each side drawn as S2 transcribed the board (floor 0, the 1st Encounter, is not a card)."""
    g = RULESET.new_game(1, 0)
    t = g.state.tables
    grid = [["."] * 7 for _ in range(13)]
    grid[0][3] = "M"
    for (floor, col), c in rooms(g, side).items():
        grid[floor][col] = LETTER[t.fields["room"][c]]
    assert ["".join(row) for row in reversed(grid)] == S2_SIDES[side]


@pytest.mark.parametrize("side", [0, 1])
def test_every_path_climbs_one_floor_and_every_room_lies_on_a_path_to_the_boss(side: int) -> None:
    """INV-P11: the boot moves up one room per step along the paths; S2's paths reach every room and the boss."""
    g = RULESET.new_game(1, 0)
    t = g.state.tables
    by_pos = rooms(g, side)
    reached = {pos for pos in by_pos if pos[0] == 1}  # from the bottom room every floor-1 room is open (S2: 0-3)
    for floor in range(1, 12):
        for (f, col), c in by_pos.items():
            if f == floor and (f, col) in reached:
                targets = {(floor + 1, n) for n in t.fields["next"][c]}
                assert targets and targets <= set(by_pos), (f, col)
                reached |= targets
    assert reached == set(by_pos)
    assert all(t.fields["next"][c] == [3] for (f, _), c in by_pos.items() if f == 11)  # campfires to the boss
    assert [t.fields["room"][c] for (f, _), c in by_pos.items() if f == 12] == ["boss_room"]


@pytest.mark.parametrize("side", [0, 1])
def test_each_side_has_a_space_for_every_map_token(side: int) -> None:
    """§4 step 6: dark tokens on the dark spaces, light on the light; S2: 8 dark and 7 light, both sides."""
    g = RULESET.new_game(1, 0)
    t = g.state.tables
    bag = g.state.zones[zone_index(g, "token_bag")] + g.state.zones[zone_index(g, "dark_tokens")] + \
        g.state.zones[zone_index(g, "light_tokens")]
    for back, dark in (("dark_token", True), ("light_token", False)):
        slots = sorted(t.fields["slot"][c] for c in rooms(g, side).values() if t.fields["room"][c] == back)
        tokens = [c for c in bag if t.fields["dark"][c] == dark]
        assert slots == list(range(len(tokens))) and len(tokens) == (8 if dark else 7)


def test_tokens_are_placed_at_random_in_a_run_and_left_in_the_box_in_a_combat() -> None:
    runs = [RULESET.new_game(1, seed) for seed in range(6)]
    orders = {tuple(g.state.zones[zone_index(g, "dark_tokens")]) for g in runs}
    assert len(orders) > 1 and all(len(o) == 8 for o in orders)
    g = RULESET.new_game(1, 0, options={"mode": "combat"})
    assert len(g.state.zones[zone_index(g, "token_bag")]) == 15


def test_a_room_on_a_token_space_is_what_its_token_says() -> None:
    """Walk whole runs (HP kept up, as in test_slay_the_spire.py) and check every room entered against the map:
    a printed room is what the board prints, a token space is the token lying there (the slot-th of its row)."""
    checked = 0
    for seed in range(2):
        g = RULESET.new_game(1, seed, check_invariants=True)
        t, s = g.state.tables, g.state
        rng = random.Random(seed)
        visited = zone_index(g, "visited")
        while not g.finished:
            before = len(s.zones[visited])
            for p in g.waiting_for():
                g.apply(rng.randrange(g.option_count(p)) if rng.random() < 0.3 else 0, p)
            s.counters[player_slot(g, "max_hp", 0)] = 20
            s.counters[player_slot(g, "hp", 0)] = 20
            for e in s.zones[zone_index(g, "foes")]:
                s.counters[global_slot(g, "strength_box")] += s.counters[card_slot(g, e, "e_str")]
                s.counters[card_slot(g, e, "e_str")] = 0
            if len(s.zones[visited]) > before:
                r = s.zones[visited][-1]
                kind = t.fields["room"][r]
                if kind in ("dark_token", "light_token"):
                    token = s.zones[zone_index(g, kind.replace("_token", "_tokens"))][t.fields["slot"][r]]
                    kind = t.fields["room"][token]
                    checked += 1
                entered = [line for line in g.log_lines(None) if "enters floor" in line][-1]
                said = {"elite_room": "elite", "boss_room": "boss", "burning_elite": "Burning Elite"}.get(
                    kind, kind)  # the log says the room in words
                assert entered == f"the party enters floor {t.fields['floor'][r]}: {said}"
        assert g.error is None and g.result is not None and g.result["winners"] == [0]
    assert checked >= 4
