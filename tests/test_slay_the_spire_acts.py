"""Slay the Spire, the climb past Act I (issue 31): the change of Act (§4.1) and Act II in a run.

Random play does not survive Act I, so the runs here are walked the way tests/test_slay_the_spire.py walks a whole
Act: every character is kept at 20 HP and the enemies' Strength goes back to the supply between decisions (test-only
edits). At the Act I boss the edits stop and the position is set up by hand (low HP, the boss and its summons at 0
HP), so that what the change of Act does can be read from the state the real ruleset leaves.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml
from liturgy.interpreter.engine import Game

from tests.scenario import card_slot, global_slot, player_slot, set_counter
from tests.sts_setup import RULESET, field, gc, zone

CARDS = Path(__file__).resolve().parents[1] / "cards" / "slay_the_spire"


def keep_alive(g: Game, players: int) -> None:
    for p in range(players):
        if g.state.counters[player_slot(g, "max_hp", p)] > 0:
            set_counter(g, player_slot(g, "max_hp", p), 20)
            set_counter(g, player_slot(g, "hp", p), 20)
    for e in zone(g, "foes"):
        box = global_slot(g, "strength_box")
        set_counter(g, box, g.state.counters[box] + g.state.counters[card_slot(g, e, "e_str")])
        set_counter(g, card_slot(g, e, "e_str"), 0)


def step(g: Game, rng: random.Random) -> None:
    for p in g.waiting_for():
        g.apply(rng.randrange(g.option_count(p)) if rng.random() < 0.3 else 0, p)


def first_or_move_on(g: Game) -> None:
    """Every waiting player takes the first option, or moves on where the between-rooms pause offers it (its first
    options, giving a potion or swapping rows, can be taken again and again)."""
    d = g.decision
    assert d is not None, g.error
    for p in g.waiting_for():
        g.apply(d.options[p].index("move_on") if "move_on" in d.options[p] else 0, p)


def in_turn(g: Game) -> bool:
    d = g.decision
    return d is not None and any("end_turn" in d.options[p] for p in d.options)


def walk_to_boss(players: int, seed: int, options: dict[str, str] | None = None) -> tuple[Game, random.Random]:
    """A run walked (kept alive) to a play decision in its Act I boss fight."""
    g = RULESET.new_game(players, seed, check_invariants=True, options=options)
    rng = random.Random(seed)
    while not (in_turn(g) and any(field(g, e, "foe") == "boss" for e in zone(g, "foes"))):
        assert not g.finished, g.log_lines(None)[-5:]
        step(g, rng)
        keep_alive(g, players)
    return g, rng


def beat_the_boss(g: Game) -> None:
    """Every enemy at 0 HP, then every waiting player ends the turn: the round ends and so does the combat."""
    for e in zone(g, "foes"):
        g.state.counters[card_slot(g, e, "life")] = 0
    while in_turn(g):
        for p in list(g.waiting_for()):
            d = g.decision
            assert d is not None
            g.apply(d.options[p].index("end_turn"), p)


def test_the_change_of_act_heals_reshuffles_rewards_and_sets_up_act_ii() -> None:
    """§4.1: boss relics, then the Act II decks, board, tokens and boss; full HP; Card Rewards reshuffled with the
    skipped cards, Rare Rewards untouched; the Act starts with a combat in its bottom room."""
    g, _ = walk_to_boss(2, 1)
    for p, hp in ((0, 3), (1, 11)):
        g.state.counters[player_slot(g, "hp", p)] = hp
    rares = [zone(g, "rares", p) for p in range(2)]
    rewards = [Counter(zone(g, "rewards", p)) for p in range(2)]
    beat_the_boss(g)
    while "Act II begins" not in g.log_lines(None):
        assert not g.finished
        first_or_move_on(g)  # card rewards and the boss relic draft: take the first offer
    log = g.log_lines(None)
    done = log.index("the boss is beaten: Act I is complete")
    assert log[done + 1] == "Act II begins" and "the party wins the run" not in log
    assert gc(g, "current_act") == 2 and gc(g, "map_side") == 2 and gc(g, "floor") == 0
    assert [g.state.counters[player_slot(g, "hp", p)] for p in range(2)] == [20, 20]  # healed to full
    for p in range(2):
        assert zone(g, "rares", p) == rares[p]  # not shuffled (no Golden Ticket was drawn here)
        now = Counter(zone(g, "rewards", p))
        assert not now - rewards[p]  # cards leave only into the deck (a card reward, Pandora's Box)
        assert all(c in zone(g, "deck", p) for c in rewards[p] - now)
    boss, = zone(g, "boss_card")
    assert field(g, boss, "act_no") == 2 and field(g, boss, "foe") == "boss"
    assert len(zone(g, "dark_tokens")) == 8 and len(zone(g, "light_tokens")) == 7
    panel = g.display(0)  # the between-rooms pause before the Act's first combat shows the Act II map
    assert panel is not None and "Act II, floor 0 of 9 (the boss is on floor 9)" in panel
    while not in_turn(g):
        first_or_move_on(g)
    foes = zone(g, "foes")
    assert foes and all(field(g, e, "act_no") == 2 for e in foes)
    assert any(field(g, e, "foe") == "encounter" for e in foes)
    assert "the party enters floor 0: monster" in g.log_lines(None)
    assert not g.violations()


def test_acts_1_ends_the_run_at_the_act_i_boss() -> None:
    g, _ = walk_to_boss(1, 2, {"acts": "1"})
    beat_the_boss(g)
    while not g.finished:
        first_or_move_on(g)
    log = g.log_lines(None)
    assert "the boss is beaten: the party wins the run" in log and "Act II begins" not in log
    assert g.result is not None and g.result["scores"] == [1] and gc(g, "current_act") == 1


@pytest.mark.parametrize("players", [1, 2])
def test_a_run_climbs_act_ii_to_its_boss_and_wins(players: int) -> None:
    """Kept alive, a run of `acts=2` crosses both Acts under the invariants: Act II's map rooms, its encounters,
    elites and boss, and the run is won only when the Act II boss is beaten."""
    rooms: Counter[str] = Counter()
    bosses = set()
    events: set[str] = set()
    for seed in range(2):
        g = RULESET.new_game(players, seed, check_invariants=True, options={"acts": "2"})
        rng = random.Random(seed)
        while not g.finished:
            step(g, rng)
            keep_alive(g, players)
        assert g.error is None and not g.violations()
        assert g.result is not None and g.result["scores"] == [1] * players
        log = g.log_lines(None)
        act2 = [x for x in log[log.index("Act II begins"):] if "chievement" not in x]  # (then the achievements)
        rooms.update(line.split(": ")[-1] for line in act2 if "enters floor" in line)
        events |= {line[len("event: "):] for line in act2 if line.startswith("event: ")}
        bosses |= {line.split(" (")[0][len("the boss "):] for line in act2
                   if line.startswith("the boss ") and "is in every row" in line}
        assert act2[-2:] == ["the boss is beaten: the party wins the run", act2[-1]]
    assert {"monster", "boss", "campfire", "event"} <= set(rooms)
    assert bosses and bosses <= {"The Collector", "Bronze Automaton", "The Champ", "The Champ (Fury)"}
    act2_events = {c["name"] for f in ("act2/events.yaml", "climb_events/act2.yaml")
                   for c in yaml.safe_load((CARDS / f).read_text())["cards"]}
    assert events and events <= act2_events  # Act II draws from its own Event deck


def test_the_act_ii_board_is_connected_from_its_bottom_room_to_the_boss() -> None:
    """map_act2.yaml (S2 BGTheCity): floors 1-8 of seven columns, every room's paths lead to rooms of the next
    floor, every room is reached from the bottom, and the four campfires of floor 8 lead to the boss on floor 9."""
    g = RULESET.new_game(1, 1)
    rooms = {(field(g, r, "floor"), field(g, r, "col")): r for r in zone(g, "map") if field(g, r, "side") == 2}
    assert len(rooms) == 32 and max(f for f, _ in rooms) == 9
    reached = {k for k in rooms if k[0] == 1}
    for f in range(1, 9):
        for (ff, c) in sorted(rooms):
            if ff == f and (ff, c) in reached:
                nxt = field(g, rooms[(ff, c)], "next")
                assert isinstance(nxt, list) and nxt
                for col in nxt:
                    assert (f + 1, col) in rooms
                    reached.add((f + 1, col))
    assert reached == set(rooms)
    assert [field(g, rooms[(8, c)], "room") for c in (1, 2, 4, 5)] == ["campfire"] * 4
    assert field(g, rooms[(9, 3)], "room") == "boss_room"
    kinds = Counter(str(field(g, r, "room")) for r in rooms.values())
    assert kinds["dark_token"] == 8 and kinds["light_token"] == 7  # as many as the map tokens of each back
    letter = {"monster": "M", "elite_room": "E", "event": "?", "campfire": "R", "merchant": "$", "boss_room": "B",
              "dark_token": "D", "light_token": "L"}
    grid = [["."] * 7 for _ in range(10)]
    grid[0][3] = "M"  # the bottom room, where the Act starts (not a card)
    for (f, c), r in rooms.items():
        grid[f][c] = letter[str(field(g, r, "room"))]
    assert ["".join(row) for row in reversed(grid)] == [  # S2 BGTheCity.java `quickmap`, top row = floor 9
        "...B...", ".RR.RR.", "D.M.?.E", "?.L.?.?", "DD.D.LL", "L.L.D.D", "D.D.M.L", ".$.L.M.", ".M.?.?.", "...M..."]


@pytest.mark.parametrize("players", [1, 2])
def test_a_run_of_three_acts_climbs_acts_i_to_iii_and_wins_at_the_act_iii_boss(players: int) -> None:
    """A climb of `acts=3` (the default before Act IV; Act IV and the keys: test_slay_the_spire_act4.py), kept alive:
    Act II's boss starts Act III (its board, side 3, and its decks), and only the Act III boss ends the run, won."""
    g = RULESET.new_game(players, 1, check_invariants=True, options={"acts": "3"})
    rng = random.Random(1)
    while not g.finished:
        step(g, rng)
        keep_alive(g, players)
    assert g.error is None and not g.violations()
    assert g.result is not None and g.result["scores"] == [1] * players
    log = g.log_lines(None)
    act2_done = log.index("the boss is beaten: Act II is complete")
    assert log.index("Act II begins") < act2_done < log.index("Act III begins")
    act3 = log[log.index("Act III begins"):]
    assert gc(g, "current_act") == 3 and gc(g, "map_side") == 3
    act3 = [x for x in act3 if "chievement" not in x]  # (the achievements come after the win)
    assert act3[-2:] == ["the boss is beaten: the party wins the run", act3[-1]]
    act3_names = {c["name"] for f in ("encounters", "elites", "bosses", "summons")
                  for c in yaml.safe_load((CARDS / "act3" / f"{f}.yaml").read_text())["cards"]}
    placed = {m.group(1) for line in act3 if (m := re.match(r"^(.*) \(\d+ HP\) is in P\d's row$", line))}
    assert placed and placed <= act3_names
    boss_lines = [line for line in act3 if line.startswith("the boss ") and "is in every row" in line]
    assert boss_lines and {re.sub(r" \(\d+ HP\).*", "", b)[len("the boss "):] for b in boss_lines} <= act3_names
    act3_events = {c["name"] for f in ("act3_events/events.yaml", "climb_events/act3.yaml")
                   for c in yaml.safe_load((CARDS / f).read_text())["cards"]}
    assert {line[len("event: "):] for line in act3 if line.startswith("event: ")} <= act3_events


def test_the_act_iii_board_is_connected_from_its_bottom_room_to_the_boss() -> None:
    """act3/map.yaml (S2 BGTheBeyond): floors 1-7 of seven columns, every room reached from the bottom, every path
    leading to a room of the next floor, the four campfires of floor 7 leading to the boss on floor 8."""
    g = RULESET.new_game(1, 1)
    rooms = {(field(g, r, "floor"), field(g, r, "col")): r for r in zone(g, "map") if field(g, r, "side") == 3}
    assert len(rooms) == 29 and max(f for f, _ in rooms) == 8
    reached = {k for k in rooms if k[0] == 1}
    for f in range(1, 8):
        for (ff, c) in sorted(rooms):
            if ff == f and (ff, c) in reached:
                nxt = field(g, rooms[(ff, c)], "next")
                assert isinstance(nxt, list) and nxt
                for col in nxt:
                    assert (f + 1, col) in rooms
                    reached.add((f + 1, col))
    assert reached == set(rooms)
    kinds = Counter(str(field(g, r, "room")) for r in rooms.values())
    assert kinds["dark_token"] == 8 and kinds["light_token"] == 7
    letter = {"monster": "M", "event": "?", "campfire": "R", "merchant": "$", "boss_room": "B",
              "dark_token": "D", "light_token": "L"}
    grid = [["."] * 7 for _ in range(9)]
    grid[0][3] = "M"
    for (f, c), r in rooms.items():
        grid[f][c] = letter[str(field(g, r, "room"))]
    assert ["".join(row) for row in reversed(grid)] == [  # S2 BGTheBeyond.java `quickmap`, top row = floor 8
        "...B...", ".RR.RR.", "D.D.$D.", ".LL.L.?", "D.MDD.D", "?D.?.LL", ".L.L.M.", ".?.M.?.", "...M..."]
