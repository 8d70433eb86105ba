"""Slay the Spire, Ascension 10 (§25.2: "Harder bosses: use only the A10 boss deck"), on the real ruleset.

Each boss card of Acts I-III has a harder face from Ascension 10 (`asc_face: 10`): its HP (`hp_asc`), its gold
(`gold_asc`: 2 for the Act I and II bosses) and the actions its `act` reads through `hard(me)`; the values are S1's
(enemies.ts `ascension` min 10, provisional). The bosses are read where a real combat places them (the combat modes
place the boss at the start of the game) and their changed steps are played through the real rules.
"""

from __future__ import annotations

import re

import pytest
from liturgy.interpreter.engine import Game

from tests.scenario import _move, player_slot, refresh_decision, zone_index
from tests.sts_setup import counter, fresh, ok, php, set_die, setc, started, to_first_play, zone
from tests.test_slay_the_spire_act2 import only
from tests.test_slay_the_spire_act4 import end_all
from tests.test_slay_the_spire_acts import beat_the_boss, first_or_move_on, walk_to_boss

BOSS = re.compile(r"^the boss (.*) \((\d+) HP\) is in every row$")

A10_HP = {  # S1 enemies.ts `ascension` min 10, 1 and 2 players
    "The Collector": (60, 120), "Bronze Automaton": (60, 120), "The Champ": (45, 90),
    "Donu": (55, 110), "Deca": (55, 110), "Awakened One": (50, 100), "Time Eater": (64, 128),
}
A0_HP = {
    "The Collector": (57, 114), "Bronze Automaton": (55, 110), "The Champ": (40, 80),
    "Donu": (50, 100), "Deca": (50, 100), "Awakened One": (50, 100), "Time Eater": (60, 120),
}


def bosses_placed(ascension: int, players: int) -> dict[str, int]:
    """The bosses the Act II and Act III combat modes place at the start, with their HP, over enough seeds to meet
    every one of them."""
    seen: dict[str, int] = {}
    for mode in ("act2_combat", "act3_combat"):
        for seed in range(60):
            g = started(players, seed, check=False, mode=mode, ascension=ascension)
            for ln in g.log_lines(None):
                if m := BOSS.match(ln):
                    seen[m.group(1)] = int(m.group(2))
    return seen


@pytest.mark.parametrize("players", [1, 2])
def test_the_act_ii_and_iii_bosses_have_their_a10_hp_from_ascension_10(players: int) -> None:
    assert bosses_placed(10, players) == {n: hp[players - 1] for n, hp in A10_HP.items()}
    assert bosses_placed(9, players) == {n: hp[players - 1] for n, hp in A0_HP.items()}


def boss_alone(ascension: int, boss: str, seed: int = 3) -> tuple[Game, int]:
    g = to_first_play(started(1, seed, mode="act3_combat", ascension=ascension))
    b, = only(g, boss)
    fresh(g)
    return g, b


@pytest.mark.parametrize("ascension,hit", [(9, 3), (10, 4)])
def test_hexaghosts_fourth_step_hits_4_from_a10(ascension: int, hit: int) -> None:
    g, b = boss_alone(ascension, "Hexaghost")
    setc(g, b, "marker", 3)
    refresh_decision(g)
    end_all(g)
    assert php(g, 0) == 20 - hit and counter(g, b, "e_block") == 5
    ok(g)


@pytest.mark.parametrize("ascension,block", [(9, 5), (10, 6)])
def test_the_guardian_gains_6_block_per_player_from_a10(ascension: int, block: int) -> None:
    g, b = boss_alone(ascension, "The Guardian")
    end_all(g)
    assert counter(g, b, "e_block") == block and php(g, 0) == 18
    ok(g)


@pytest.mark.parametrize("ascension,strength", [(9, 1), (10, 2)])
def test_the_champs_fury_gains_2_strength_from_a10(ascension: int, strength: int) -> None:
    g, b = boss_alone(ascension, "The Champ (Fury)")
    setc(g, b, "marker", 2)
    refresh_decision(g)
    end_all(g)
    assert counter(g, b, "e_str") == strength
    ok(g)


@pytest.mark.parametrize("ascension,hits", [(9, 4), (10, 6)])
def test_the_time_eater_opens_with_3_twice_from_a10(ascension: int, hits: int) -> None:
    g, b = boss_alone(ascension, "Time Eater")
    end_all(g)
    assert php(g, 0) == 20 - hits
    ok(g)


def test_the_automaton_sheds_its_weak_on_its_first_step_from_a10() -> None:
    for ascension, weak in ((9, 2), (10, 0)):
        g, b = boss_alone(ascension, "Bronze Automaton")
        setc(g, b, "e_weak", 2)
        refresh_decision(g)
        set_die(g, 1)
        end_all(g)
        assert counter(g, b, "e_weak") == weak, ascension  # (it does not attack: no Weak is spent)
        ok(g)


def test_an_act_i_boss_gives_2_gold_from_a10() -> None:
    """S1 (run.ts, the A10 boss cards): the Act I and II bosses give every player 3 gold, 2 from Ascension 10."""
    for ascension, gold in ((9, 3), (10, 2)):
        g, _ = walk_to_boss(1, 1, {"ascension": str(ascension), "acts": "1"})
        before = int(g.state.counters[player_slot(g, "gold", 0)])
        for e in zone(g, "foes"):  # dead, face down (as `kill` leaves it): its rewards are handed out
            setc(g, e, "life", 0)
            _move(g, e, zone_index(g, "fallen"))
        beat_the_boss(g)  # the rewards: the boss's gold, then its card reward (a decision)
        assert int(g.state.counters[player_slot(g, "gold", 0)]) == before + gold
        while not g.finished:
            first_or_move_on(g)
        assert "the boss is beaten: the party wins the run" in g.log_lines(None)
        ok(g)
