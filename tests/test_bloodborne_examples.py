"""The rulebook's worked examples (shared/rules/bloodborne.md section 13) as golden tests.

Each test builds the example's position in a real 3-player game (P1 = Henryk,
P2 = Eileen, P3 = Ludwig, Henryk first) with :mod:`scenario`, forces the dice
the example names, and lets the real engine play the real ruleset
(rulesets/bloodborne.rules) with the real cards (cards/bloodborne/*.yaml).
The assertions check numbers, zones and log lines, not just "no crash".
"""

from __future__ import annotations

from pathlib import Path

import pytest
import scenario as sc  # tests/scenario.py (pytest puts tests/ on sys.path: no __init__.py)
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.runtime.errors import IllegalChoice

RULES = Path(__file__).parent.parent / "rulesets" / "bloodborne.rules"
P1, P2, P3 = 0, 1, 2
STARTING = ["Hunter's Dream", "Transform", "Hunter Pistol", "Hunter Axe", "Saw Cleaver"]


@pytest.fixture(scope="module")
def rs() -> Ruleset:
    return load_ruleset(str(RULES))


def new(rs: Ruleset, players: int = 3, seed: int = 0) -> Game:
    g = rs.new_game(players=players, seed=seed, check_invariants=True)
    assert g.decision is not None and g.decision.simultaneous
    return g


def ok(g: Game) -> None:
    """The engine neither aborted nor broke an invariant."""
    assert g.error is None, g.error
    assert g.state.status in ("running", "finished")
    assert g.violations() == []


def in_order(lines: list[str], expected: list[str]) -> None:
    """Every expected line appears in ``lines``, in this order."""
    it = iter(lines)
    for e in expected:
        assert any(line == e for line in it), f"missing (or out of order): {e!r}\nlog:\n" + "\n".join(lines)


def track_values(rs: Ruleset) -> list[int]:
    return list(rs.program.counters["trophies"].track_values)


def score(g: Game, p: int) -> int:
    """The ruleset's own score expression, evaluated now."""
    fn = g.ruleset.compiled.score
    assert fn is not None
    return int(fn(g.state, {"player": p}))


# ---------------------------------------------------------------- example 1


def example1(rs: Ruleset) -> Game:
    g = new(rs)
    sc.position(
        g,
        first=P1,
        monster=("Scourge Beast", 3),
        hunters={P1: dict(hand=["Hunter's Dream", "Transform", "Hunter Pistol", "Saw Cleaver"],
                          discard=["Hunter Axe"])},
        roll=("red", ["2+", "0"]),
    )
    return g


def test_example1_round_against_scourge_beast(rs: Ruleset) -> None:
    g = example1(rs)
    supply0 = sc.blood(g)["supply"]
    mark = len(g.log_lines(None))
    sc.choose_all(g, {P1: "Transform", P2: "Hunter Pistol", P3: "Hunter Axe"})
    # Step 2: only Henryk transforms; his Axe is in the discard, so Pistol or Saw Cleaver.
    d = g.decision
    assert d is not None and d.players == (P1,) and d.simultaneous
    assert sorted(d.options[P1]) == ["Hunter Pistol", "Saw Cleaver"]
    sc.choose(g, P1, "Saw Cleaver")
    ok(g)
    log = sc.new_log(g, mark)
    in_order(log, [
        "P1 plays Transform",
        "P2 plays Hunter Pistol",
        "P3 plays Hunter Axe",
        "P1 transforms into Saw Cleaver",
        "P2 hits Scourge Beast with Hunter Pistol for 1",   # step 3
        "P1 rolls the red die: 2 damage",                   # step 4: 2+ then 0
        "P1 hits Scourge Beast with Saw Cleaver for 1",     # step 5, turn order
        "P3 hits Scourge Beast with Hunter Axe for 1",      # capped: 1 left
        "Scourge Beast is KILLED",
    ])
    assert not any(line.startswith("P2 hits") for line in log[log.index("P1 rolls the red die: 2 damage"):])
    assert not any("flees" in line for line in log)
    b = sc.blood(g)
    assert b["collected"] == [1, 1, 1]
    assert b["health"] == [6, 6, 6]
    assert b["banked"] == [0, 0, 0]
    for p in (P1, P2, P3):
        assert sc.trophies(g, p) == {"kin": 0, "humanoid": 0, "beast": 1}
    assert "Scourge Beast" in sc.names(g, "slain")
    # Step 8: both of Henryk's cards are discarded, the token passes, the next monster comes.
    assert sc.names(g, "discard", P1) == ["Hunter Axe", "Transform", "Saw Cleaver"]
    assert sc.names(g, "discard", P2) == ["Hunter Pistol"]
    assert sc.names(g, "discard", P3) == ["Hunter Axe"]
    assert g.view(None)["counters"]["first"] == "P2"
    new_monster = sc.names(g, "current")
    assert len(new_monster) == 1 and new_monster[0] != "Scourge Beast"
    assert b["supply"] == supply0 - b["echoes"]  # the 3 echoes went to the hunters; the reveal paid the rest
    assert g.decision is not None and g.decision.players == (P2, P3, P1)


def test_example1_pistols_cancel_each_other(rs: Ruleset) -> None:
    """Step 2 alternative: Henryk's Pistol would cancel Eileen's (mutual cancellation in hunter.yaml)."""
    g = example1(rs)
    mark = len(g.log_lines(None))
    sc.choose_all(g, {P1: "Transform", P2: "Hunter Pistol", P3: "Hunter Axe"})
    sc.choose(g, P1, "Hunter Pistol")
    ok(g)
    log = sc.new_log(g, mark)
    in_order(log, [
        "P1's Hunter Pistol is cancelled by another Hunter Pistol",
        "P2's Hunter Pistol is cancelled by another Hunter Pistol",
        "P1 rolls the red die: 2 damage",
        "P3 hits Scourge Beast with Hunter Axe for 2",
        "Scourge Beast flees",
    ])
    assert not any(line.startswith(("P1 hits", "P2 hits")) for line in log)
    assert sc.blood(g)["collected"] == [0, 0, 2]
    assert all(sc.trophies(g, p)["beast"] == 0 for p in (P1, P2, P3))


def test_instant_kill_skips_steps_4_to_6(rs: Ruleset) -> None:
    """Step 3: a monster killed by an Instant is removed, steps 4-6 are skipped, trophies still go (DE:304)."""
    g = new(rs)
    sc.position(g, first=P1, monster=("Scourge Beast", 1))
    mark = len(g.log_lines(None))
    sc.choose_all(g, {P1: "Hunter Axe", P2: "Hunter Pistol", P3: "Saw Cleaver"})
    ok(g)
    log = sc.new_log(g, mark)
    in_order(log, ["P2 hits Scourge Beast with Hunter Pistol for 1", "Scourge Beast is KILLED"])
    assert not any("rolls" in line for line in log)
    assert not any(line.startswith(("P1 hits", "P3 hits")) for line in log)
    b = sc.blood(g)
    assert b["health"] == [8, 8, 8] and b["collected"] == [0, 1, 0]
    assert [sc.trophies(g, p)["beast"] for p in (P1, P2, P3)] == [0, 1, 0]


# ---------------------------------------------------------------- example 2


def test_example2_monster_flees(rs: Ruleset) -> None:
    g = new(rs)
    sc.position(g, first=P1, monster=("Winter Lantern", 6), roll=("yellow", ["0"]))
    supply0 = sc.blood(g)["supply"]
    mark = len(g.log_lines(None))
    sc.choose_all(g, {P1: "Hunter Pistol", P2: "Hunter Axe", P3: "Saw Cleaver"})
    ok(g)
    log = sc.new_log(g, mark)
    in_order(log, [
        "P1 hits Winter Lantern with Hunter Pistol for 1",
        "P1 rolls the yellow die: 0 damage",
        "P2 hits Winter Lantern with Hunter Axe for 2",
        "P3 hits Winter Lantern with Saw Cleaver for 1",
        "Winter Lantern flees",
    ])
    assert not any("KILLED" in line for line in log)
    b = sc.blood(g)
    assert b["collected"] == [1, 2, 1]
    for p in (P1, P2, P3):
        assert sc.trophies(g, p) == {"kin": 0, "humanoid": 0, "beast": 0}
    assert "Winter Lantern" in sc.names(g, "slain")
    assert g.state.counters[sc.card_slot(g, sc.card_ids(g, "Winter Lantern")[0])] == 0
    # 6 left the supply before the round; 4 went to hunters, 2 came back, then the next reveal paid.
    assert b["supply"] == supply0 + 2 - b["echoes"]


# ---------------------------------------------------------------- example 3


def test_example3_boss_persists_then_dies(rs: Ruleset) -> None:
    g = new(rs)
    sc.position(
        g,
        first=P1,
        monster=("Father Gascoigne", 8),
        hunters={P1: dict(hand=[*STARTING, "Kirkhammer"])},
        roll=("red", ["0"]),
    )
    # Round 1: 6 damage does not kill him.
    sc.choose_all(g, {P1: "Kirkhammer", P2: "Hunter Axe", P3: "Hunter's Dream"})
    sc.choose(g, P3, "pass")  # Ludwig dreamed: he may take an upgrade
    ok(g)
    log1 = g.log_lines(None)
    in_order(log1, [
        "P1 hits Father Gascoigne with Kirkhammer for 4",
        "P1's Kirkhammer is lost to Father Gascoigne",
        "P2 hits Father Gascoigne with Hunter Axe for 2",
        "P2's Hunter Axe is lost to Father Gascoigne",
    ])
    assert not any("Father Gascoigne flees" in x or "KILLED" in x for x in log1)
    assert sc.names(g, "current") == ["Father Gascoigne"]
    assert sc.blood(g)["echoes"] == 2  # no refill
    assert sc.blood(g)["collected"] == [4, 2, 0]
    assert "Kirkhammer" in sc.names(g, "removed") and "Hunter Axe" in sc.names(g, "removed")
    assert all(sum(sc.trophies(g, p).values()) == 0 for p in (P1, P2, P3))

    # Round 2 (Eileen is First Player now): Ludwig kills him.
    assert g.view(None)["counters"]["first"] == "P2"
    sc.force_roll(g, "red", ["0"])
    mark = len(g.log_lines(None))
    sc.choose_all(g, {P1: "Hunter's Dream", P2: "Hunter's Dream", P3: "Hunter Axe"})
    log2 = sc.new_log(g, mark)
    in_order(log2, ["P3 hits Father Gascoigne with Hunter Axe for 2", "Father Gascoigne is KILLED"])
    sc.choose(g, P2, "pass")
    sc.choose(g, P1, "pass")
    ok(g)
    assert "Father Gascoigne" in sc.names(g, "slain")
    assert sc.trophies(g, P3) == {"kin": 0, "humanoid": 1, "beast": 1}
    assert sc.trophies(g, P1) == {"kin": 0, "humanoid": 0, "beast": 0}
    assert sc.trophies(g, P2) == {"kin": 0, "humanoid": 0, "beast": 0}
    b = sc.blood(g)
    assert b["banked"] == [4, 2, 0] and b["collected"] == [0, 0, 2]  # the dreamers banked


# ---------------------------------------------------------------- example 4


def test_example4_hunters_dream(rs: Ruleset) -> None:
    g = new(rs)
    sc.position(
        g,
        first=P1,
        monster=("Garden of Eyes", 7),
        market=["Repeating Pistol"],
        hunters={P2: dict(hand=["Hunter's Dream", "Hunter Pistol", "Kirkhammer"],
                          discard=["Transform", "Hunter Axe", "Saw Cleaver", "Evelyn"],
                          health=3, collected=2, banked=5)},
        roll=("yellow", ["3"]),
    )
    assert len(sc.owned(g, P2)) == 7
    mark = len(g.log_lines(None))
    sc.choose_all(g, {P1: "Hunter Axe", P2: "Hunter's Dream", P3: "Saw Cleaver"})
    # Step 7, Eileen's turn: the roll was 3, she took floor(3/2) = 1.
    b = sc.blood(g)
    assert b["health"] == [5, 2, 5]
    assert b["banked"][P2] == 7 and b["collected"][P2] == 0  # banked her 2
    assert sorted(sc.names(g, "hand", P2)) == sorted(
        ["Hunter's Dream", "Hunter Pistol", "Kirkhammer", "Transform", "Hunter Axe", "Saw Cleaver", "Evelyn"])
    assert sc.names(g, "discard", P2) == []
    d = g.decision
    assert d is not None and d.players == (P2,)
    assert "Repeating Pistol" in d.options[P2] and d.options[P2][-1] == "pass"
    sc.choose(g, P2, "Repeating Pistol")
    # 8 cards: she must remove one; Hunter's Dream is never an option.
    d = g.decision
    assert d is not None and d.players == (P2,)
    assert sorted(d.options[P2]) == sorted(
        ["Repeating Pistol", "Hunter Pistol", "Kirkhammer", "Transform", "Hunter Axe", "Saw Cleaver", "Evelyn"])
    sc.choose(g, P2, "Saw Cleaver")
    ok(g)
    in_order(sc.new_log(g, mark), [
        "P1 rolls the yellow die: 3 damage",
        "P2 takes Repeating Pistol",
        "P2 removes Saw Cleaver from the game",
    ])
    own = sc.owned(g, P2)
    assert len(own) == 7 and "Repeating Pistol" in own and "Saw Cleaver" not in own
    assert "Saw Cleaver" in sc.names(g, "removed")
    b = sc.blood(g)
    assert b["health"][P2] == 8 and b["banked"][P2] == 7 and b["collected"][P2] == 0
    assert len(sc.names(g, "market")) == 3  # refilled after the draft
    assert "Repeating Pistol" not in sc.names(g, "market")


# ---------------------------------------------------------------- example 5


def test_example5_death(rs: Ruleset) -> None:
    g = new(rs)
    sc.position(
        g,
        first=P1,
        monster=("Father Gascoigne", 8),
        market=["Blood Vial"],
        hunters={P3: dict(hand=["Hunter's Dream", "Transform", "Hunter Axe"],
                          discard=["Hunter Pistol", "Saw Cleaver"],
                          health=2, collected=4, banked=6)},
        roll=("red", ["2"]),
    )
    supply0 = sc.blood(g)["supply"]
    mark = len(g.log_lines(None))
    sc.choose_all(g, {P1: "Hunter's Dream", P2: "Hunter's Dream", P3: "Hunter Axe"})
    log = sc.new_log(g, mark)
    in_order(log, ["P1 rolls the red die: 2 damage", "P3 dies"])
    assert not any(line.startswith("P3 hits") for line in log)  # dead hunters do not attack
    b = sc.blood(g)
    assert b["collected"][P3] == 0 and b["banked"][P3] == 6
    assert b["supply"] == supply0 + 4  # lost echoes go back to the supply
    assert b["echoes"] == 8
    assert g.view(None)["counters"]["deaths"]["P3"] == 1
    sc.choose(g, P1, "pass")
    sc.choose(g, P2, "pass")
    d = g.decision
    assert d is not None and d.players == (P3,) and "Blood Vial" in d.options[P3]
    sc.choose(g, P3, "Blood Vial")
    ok(g)
    assert sc.blood(g)["health"] == [8, 8, 8]
    # He did not dream: no cards back; the Axe he played is discarded in step 8.
    assert sorted(sc.names(g, "hand", P3)) == sorted(["Hunter's Dream", "Transform", "Blood Vial"])
    assert sc.names(g, "discard", P3) == ["Hunter Pistol", "Saw Cleaver", "Hunter Axe"]
    assert sc.names(g, "current") == ["Father Gascoigne"]


def test_dreamer_who_dies_takes_back_cards_and_one_upgrade(rs: Ruleset) -> None:
    """RU:275/DE:382: a hunter who dreamed and died takes back the discard, loses collected, gets one upgrade."""
    g = new(rs)
    sc.position(
        g,
        first=P1,
        monster=("Father Gascoigne", 8),
        hunters={P3: dict(hand=["Hunter's Dream", "Transform"], discard=["Hunter Pistol", "Saw Cleaver", "Hunter Axe"],
                          health=1, collected=3, banked=2)},
        roll=("red", ["3"]),
    )
    sc.choose_all(g, {P1: "Saw Cleaver", P2: "Hunter Pistol", P3: "Hunter's Dream"})
    assert "P3 dies" in g.log_lines(None)
    d = g.decision
    assert d is not None and d.players == (P3,)
    sc.choose(g, P3, d.options[P3][0])
    ok(g)
    assert len(sc.owned(g, P3)) == 6  # 5 + exactly one upgrade
    assert sc.names(g, "discard", P3) == []
    b = sc.blood(g)
    assert b["collected"][P3] == 0 and b["banked"][P3] == 2 and b["health"][P3] == 8


# ---------------------------------------------------------------- example 6


def test_example6_trophy_value(rs: Ruleset) -> None:
    values = track_values(rs)
    assert values == [0, 1, 3, 5, 7, 9, 12]
    g = new(rs)
    sc.position(
        g,
        first=P1,
        monster=("Executioner", 3),
        hunters={P2: dict(trophies={"humanoid": 1})},
        roll=("yellow", ["1"]),
    )
    assert score(g, P2) == values[1] == 1
    mark = len(g.log_lines(None))
    sc.choose_all(g, {P1: "Saw Cleaver", P2: "Hunter Axe", P3: "Hunter's Dream"})
    in_order(sc.new_log(g, mark), [
        "P1 hits Executioner with Saw Cleaver for 1",
        "P2 hits Executioner with Hunter Axe for 2",
        "Executioner is KILLED",
    ])
    sc.choose(g, P3, "pass")
    ok(g)
    assert sc.trophies(g, P2) == {"kin": 0, "humanoid": 2, "beast": 0}  # one space forward
    assert sc.trophies(g, P1) == {"kin": 0, "humanoid": 1, "beast": 0}
    assert sc.trophies(g, P3) == {"kin": 0, "humanoid": 0, "beast": 0}
    assert score(g, P2) == values[2] == 3  # the space worth 3 (nothing banked yet)


# ---------------------------------------------------------------- example 7


def test_example7_final_boss_trophies_and_game_end(rs: Ruleset) -> None:
    g = new(rs)
    sc.position(g, first=P1, final_boss="Ludwig, the Accursed", monster=("Ludwig, the Accursed", 3),
                empty_dungeon=True, roll=("red", ["0"]))
    assert sc.names(g, "final_boss") == []
    # Round 1: Eileen damages him; he is a boss and stays.
    sc.choose_all(g, {P1: "Hunter's Dream", P2: "Saw Cleaver", P3: "Hunter's Dream"})
    sc.choose(g, P1, "pass")
    sc.choose(g, P3, "pass")
    ok(g)
    assert sc.names(g, "current") == ["Ludwig, the Accursed"] and sc.blood(g)["echoes"] == 2
    # Round 2 (order P2, P3, P1): only Henryk damages him, and kills him.
    sc.force_roll(g, "red", ["0"])
    mark = len(g.log_lines(None))
    sc.choose_all(g, {P1: "Hunter Axe", P2: "Hunter's Dream", P3: "Hunter's Dream"})
    ok(g)
    in_order(sc.new_log(g, mark), [
        "P1 hits Ludwig, the Accursed with Hunter Axe for 2",
        "Ludwig, the Accursed is KILLED",
        "Game over. Scores: P1 5, P2 1, P3 0. Winner: P1.",
    ])
    assert g.finished and g.state.status == "finished" and g.decision is None
    assert sc.trophies(g, P1) == {"kin": 1, "humanoid": 1, "beast": 1}
    assert sc.trophies(g, P2) == {"kin": 0, "humanoid": 0, "beast": 0}  # damaged him only in round 1
    assert sc.trophies(g, P3) == {"kin": 0, "humanoid": 0, "beast": 0}
    assert "Ludwig, the Accursed" in sc.names(g, "slain")
    assert g.result is not None
    assert g.result["scores"] == [5, 1, 0] and g.result["winners"] == [P1] and g.result["rounds"] == 2
    assert sc.blood(g)["banked"] == [2, 1, 0] and sc.blood(g)["collected"] == [0, 0, 0]


# ---------------------------------------------------------------- example 8


def _kill_current_and_reveal(g: Game) -> list[str]:
    """Play a round in which P1 (first) kills a 1-echo monster and everybody else swings at nothing."""
    cur = g.state.zones[sc.zone_index(g, "current")][0]
    sc.force_roll(g, sc.field(g, cur, "lantern"), ["0"])
    mark = len(g.log_lines(None))
    sc.choose_all(g, {p: ("Saw Cleaver" if p == P1 else "Hunter Axe") for p in range(g.players)})
    ok(g)
    return sc.new_log(g, mark)


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("nxt", ["Carrion Crows", "Vicar Amelia"])
def test_example8_gehrman_adds_two_echoes(rs: Ruleset, players: int, nxt: str) -> None:
    g = new(rs, players=players)
    sc.position(g, first=P1, final_boss="Gehrman, the First Hunter", monster=("Scourge Beast", 1),
                dungeon_top=nxt)
    log = _kill_current_and_reveal(g)
    printed = sc.field(g, sc.card_ids(g, nxt)[0], "health")
    expected = printed + (players - 3) + 2
    assert f"{nxt} is revealed with {expected} blood echoes" in log
    assert sc.names(g, "current") == [nxt] and sc.blood(g)["echoes"] == expected


@pytest.mark.parametrize("players", [3, 4, 5])
def test_example8_gehrman_himself_gets_no_bonus(rs: Ruleset, players: int) -> None:
    g = new(rs, players=players)
    sc.position(g, first=P1, final_boss="Gehrman, the First Hunter", monster=("Scourge Beast", 1),
                empty_dungeon=True)
    log = _kill_current_and_reveal(g)
    expected = 16 + (players - 3)
    assert f"Gehrman, the First Hunter is revealed with {expected} blood echoes" in log
    assert sc.names(g, "current") == ["Gehrman, the First Hunter"] and sc.names(g, "final_boss") == []
    assert sc.blood(g)["echoes"] == expected


def test_example8_no_bonus_without_gehrman(rs: Ruleset) -> None:
    g = new(rs)
    sc.position(g, first=P1, final_boss="Rom, the Vacuous Spider", monster=("Scourge Beast", 1),
                dungeon_top="Carrion Crows")
    log = _kill_current_and_reveal(g)
    assert "Carrion Crows is revealed with 7 blood echoes" in log


def test_example8_gehrman_bonus_at_setup(rs: Ruleset) -> None:
    """The first monster, revealed during setup, already gets the Final Boss's bonus (Gehrman: +2)."""
    seen = 0
    for seed in range(150):
        for players in (3, 5):
            g = rs.new_game(players=players, seed=seed, check_invariants=True)
            fb = sc.names(g, "final_boss")[0]
            cur = g.state.zones[sc.zone_index(g, "current")][0]
            bonus = {
                "Gehrman, the First Hunter": 2,
                "Ludwig, the Accursed": 1 if "beast" in sc.field(g, cur, "types") else 0,
                "Orphan of Kos": 3 if sc.field(g, cur, "boss") else 0,
            }.get(fb, 0)
            seen += fb == "Gehrman, the First Hunter"
            assert sc.blood(g)["echoes"] == sc.field(g, cur, "health") + (players - 3) + bonus
    assert seen >= 5


# ---------------------------------------------------------------- example 9


@pytest.mark.parametrize(
    ("p3", "winners"),
    [
        (dict(banked=0), [P1]),                                                   # P1 beats P2 on banked
        (dict(banked=12, trophies={"kin": 2, "humanoid": 3, "beast": 1}), [P1, P3]),  # full tie: shared
        (dict(banked=20, trophies={"kin": 1}), [P3]),                             # most banked among 21s
    ],
)
def test_example9_scoring(rs: Ruleset, p3: dict, winners: list[int]) -> None:
    g = new(rs)
    sc.position(
        g,
        first=P1,
        final_boss="Gehrman, the First Hunter",
        monster=("Gehrman, the First Hunter", 1),
        empty_dungeon=True,
        hunters={
            # Henryk: 3 collected + 9 banked, trophies worth Kin 3 / Humanoid 5 / Beast 1.
            P1: dict(collected=3, banked=9, trophies={"kin": 2, "humanoid": 3, "beast": 1}),
            # Eileen kills the Final Boss: +1 echo, +1 on every track -> 6 + 9 + 5 + 1 = 21.
            P2: dict(collected=0, banked=5, trophies={"kin": 4, "humanoid": 2, "beast": 0}),
            P3: p3,
        },
        roll=("red", ["0"]),
    )
    sc.choose_all(g, {P1: "Hunter's Dream", P2: "Saw Cleaver", P3: "Hunter Axe"})
    ok(g)
    log = g.log_lines(None)
    in_order(log, ["P2 hits Gehrman, the First Hunter with Saw Cleaver for 1", "Gehrman, the First Hunter is KILLED"])
    assert not any(line.startswith("P3 hits") for line in log)
    assert g.finished and g.state.status == "finished"
    r = g.result
    assert r is not None
    assert r["scores"][P1] == 21 and r["scores"][P2] == 21
    # The tiebreak (more banked echoes) is part of the ruleset's winner(p), which reports no tiebreak keys.
    assert r["tiebreaks"] == [[], [], []]
    assert sc.blood(g)["banked"][P1] == 12 and sc.blood(g)["collected"] == [0, 0, 0]
    assert sc.trophies(g, P1) == {"kin": 2, "humanoid": 3, "beast": 1}
    assert sc.trophies(g, P2) == {"kin": 5, "humanoid": 3, "beast": 1}
    assert r["winners"] == winners
    named = ", ".join(f"P{p + 1}" for p in winners)
    assert log[-1] == "Game over. Scores: " + ", ".join(f"P{p + 1} {v}" for p, v in enumerate(r["scores"])) + (
        f". Winner: {named}." if len(winners) == 1 else f". Winners: {named}.")


# ---------------------------------------------------------------- card limit and Transform


def test_card_limit_never_removes_hunters_dream(rs: Ruleset) -> None:
    g = new(rs)
    seven = ["Hunter's Dream", "Transform", "Hunter Pistol", "Hunter Axe", "Saw Cleaver", "Kirkhammer", "Evelyn"]
    sc.position(g, first=P1, monster=("Carrion Crows", 7), market=["Cannon"],
                hunters={P1: dict(hand=seven)}, roll=("green", ["0"]))
    sc.choose_all(g, {P1: "Hunter's Dream", P2: "Hunter Axe", P3: "Saw Cleaver"})
    sc.choose(g, P1, "Cannon")
    d = g.decision
    assert d is not None and d.players == (P1,)
    removable = d.options[P1]
    assert "Hunter's Dream" not in removable
    assert sorted(removable) == sorted([*seven[1:], "Cannon"])  # the new card, hand and discard
    for i, label in enumerate(removable):
        h = g.clone()
        h.apply(i, P1)
        ok(h)
        own = sc.owned(h, P1)
        assert len(own) == 7 and own.count("Hunter's Dream") == 1 and label not in own
        assert label in sc.names(h, "removed")


def test_transform_needs_a_weapon_in_hand(rs: Ruleset) -> None:
    g = new(rs)
    sc.position(g, first=P1, hunters={
        P1: dict(hand=["Hunter's Dream", "Transform", "Blood Vial"],
                 discard=["Hunter Pistol", "Hunter Axe", "Saw Cleaver"]),
        P2: dict(hand=["Hunter's Dream", "Transform", "Saw Cleaver"], discard=["Hunter Pistol", "Hunter Axe"]),
    })
    d = g.decision
    assert d is not None
    assert d.options[P1] == ("Hunter's Dream", "Blood Vial")  # no Transform without a weapon
    assert d.options[P2] == ("Hunter's Dream", "Transform", "Saw Cleaver")
    assert d.options[P3] == tuple(STARTING)
    # The independent reading of the rule agrees with the ruleset for every hunter.
    for p in (P1, P2, P3):
        assert d.options[p] == sc.step1_options(g, p)
    with pytest.raises(IllegalChoice):
        g.apply(2, P1)  # there is no third option
    # Transform with one weapon: step 2 offers exactly that weapon.
    sc.choose_all(g, {P1: "Blood Vial", P2: "Transform", P3: "Hunter's Dream"})
    d = g.decision
    assert d is not None and d.players == (P2,) and d.options[P2] == ("Saw Cleaver",)


def test_refresh_decision_matches_hand_rebuilt_pending(rs: Ruleset) -> None:
    """scenario.refresh_decision (the ruleset recomputes) and rebuild_step1_pending (by hand) agree."""
    g = new(rs, seed=3)
    sc.position(g, first=P2, hunters={P1: dict(hand=["Hunter's Dream", "Transform"],
                                               discard=["Hunter Pistol", "Hunter Axe", "Saw Cleaver"])})
    by_engine = g.state.pending
    h = g.clone()
    sc.rebuild_step1_pending(h)
    assert h.state.pending == by_engine
    assert [p for p, _ in by_engine[1]] == [P2, P3, P1]  # turn order from the First Player
