"""Slay the Spire Act I: combats for 1-4 players, a whole run reaching every room type, and the options."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.tools.simulate import simulate

from tests.scenario import card_slot, global_slot, player_slot, set_counter, zone_index

RULES = str(Path(__file__).resolve().parents[1] / "rulesets" / "slay_the_spire.rules")
RULESET = load_ruleset(RULES)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_combats_finish_without_violations(players: int) -> None:
    summary = simulate(RULES, games=15, players=players, seed=2, options={"mode": "combat"})
    assert summary.finished == 15 and summary.invariant_violations == 0, summary.errors
    assert summary.totals["combats"] == 15  # exactly one combat per game in combat mode
    assert summary.totals["rolls"] <= 15  # reset each round: at most one roll in the last round


@pytest.mark.parametrize("players", [1, 4])
def test_runs_finish_without_violations(players: int) -> None:
    summary = simulate(RULES, games=10, players=players, seed=5)
    assert summary.finished == 10 and summary.invariant_violations == 0, summary.errors


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_a_whole_act_reaches_every_room_type_and_the_boss(players: int) -> None:
    """Random-ish play cannot survive Act I, so this test keeps every character at 20 HP and takes the enemies'
    Strength back to the supply between decisions (test-only edits of the state; a long boss fight otherwise
    grows one enemy turn past 20 damage) to walk the whole map: every room type, rewards, the merchant, the
    campfire, events, the boss and the boss relic draft all run under the invariants."""
    rooms: Counter[str] = Counter()
    for seed in range(6):
        g = RULESET.new_game(players, seed, check_invariants=True, options={"acts": "1"})  # Act II: test_..._acts.py
        rng = random.Random(seed)
        while not g.finished:
            for p in g.waiting_for():
                g.apply(rng.randrange(g.option_count(p)) if rng.random() < 0.3 else 0, p)
            for p in range(players):
                if g.state.counters[player_slot(g, "max_hp", p)] > 0:
                    set_counter(g, player_slot(g, "max_hp", p), 20)
                    set_counter(g, player_slot(g, "hp", p), 20)
            for e in g.state.zones[zone_index(g, "foes")]:
                box = global_slot(g, "strength_box")
                set_counter(g, box, g.state.counters[box] + g.state.counters[card_slot(g, e, "e_str")])
                set_counter(g, card_slot(g, e, "e_str"), 0)
        assert g.error is None
        assert g.result is not None and g.result["scores"] == [1] * players
        lines = g.log_lines(None)
        rooms.update(line.split(": ")[-1] for line in lines if "enters floor" in line)
        assert any("gains" in line for line in lines)  # relics were handed out
    assert set(rooms) == {"monster", "elite", "boss", "campfire", "merchant", "treasure", "event"}  # as words


def test_combat_mode_is_one_combat() -> None:
    g = RULESET.new_game(2, 1, options={"mode": "combat"})
    rng = random.Random(1)
    while not g.finished:
        for p in g.waiting_for():
            g.apply(rng.randrange(g.option_count(p)), p)
    assert not any("enters floor" in line for line in g.log_lines(None))
