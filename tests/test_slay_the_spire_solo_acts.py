"""Slay the Spire's solo differences (§25.6) in Acts II and III (issue 31 item 6): one row and one Encounter card per
combat, the top value of each HP scale, 3 boss relics revealed between Acts, and the solo setup bonus (the Loaded Die,
2 gold) also when the climb starts in a later Act. The Ascension unlock rule (Act III's boss instead of Act II's) has
nothing to check: unlocks across runs are not modelled (docs/slay_the_spire.md).
"""

from __future__ import annotations

import pytest
from liturgy.interpreter.engine import Game

from tests.scenario import card_slot, global_slot
from tests.sts_setup import RULESET, field, zone
from tests.test_slay_the_spire_achievements import kill_all_then
from tests.test_slay_the_spire_acts import walk_to_boss
from tests.test_slay_the_spire_options import to_first_combat


def combat(mode: str, players: int, seed: int) -> Game:
    g = RULESET.new_game(players, seed, check_invariants=True, options={"mode": mode})
    to_first_combat(g)
    return g


def hp_scale(g: Game, e: int, players: int) -> int:
    scale = field(g, e, "hp")
    assert isinstance(scale, list)
    return int(scale[0] if len(scale) == 1 else scale[players - 1])


@pytest.mark.parametrize("mode", ["act2_combat", "act3_combat"])
def test_solo_combats_have_one_row_one_encounter_card_and_the_top_hp_value(mode: str) -> None:
    encounters = 0
    for seed in range(1, 13):
        g = combat(mode, 1, seed)
        foes = zone(g, "foes")
        assert foes and all(lane(g, e) == 0 for e in foes)  # one row
        if any(field(g, e, "foe") == "encounter" for e in foes):
            encounters += 1
            assert sum(field(g, e, "foe") == "encounter" for e in foes) == 1  # one Encounter card
        for e in foes:
            if field(g, e, "foe") != "summon":  # (summons keep one printed value)
                assert card_life(g, e) == hp_scale(g, e, 1)  # the top value of the scale
    assert encounters >= 3


def lane(g: Game, e: int) -> int:
    return int(g.state.counters[card_slot(g, e, "lane")])


def card_life(g: Game, e: int) -> int:
    return int(g.state.counters[card_slot(g, e, "life")])


@pytest.mark.parametrize("mode", ["act2_combat", "act3_combat"])
def test_with_two_players_the_scale_takes_its_second_value_and_each_row_an_encounter(mode: str) -> None:
    for seed in range(1, 7):
        g = combat(mode, 2, seed)
        foes = zone(g, "foes")
        if any(field(g, e, "foe") == "encounter" for e in foes):
            assert {lane(g, e) for e in foes if field(g, e, "foe") == "encounter"} == {0, 1}
        for e in foes:
            if field(g, e, "foe") == "boss":
                assert card_life(g, e) == hp_scale(g, e, 2)


def test_solo_act_ii_boss_relics_reveal_three() -> None:
    """After Act II's boss a solo player sees 3 boss relics (2 players: players + 1 = 3; 3 players: 4)."""
    g, _ = walk_to_boss(1, 1, {"start_act": "2"})
    assert g.state.counters[global_slot(g, "current_act")] == 2
    kill_all_then(g, lambda g: g.decision is not None and any(
        "Boss relic" in g.decision.prompt_for(p) for p in g.waiting_for()))
    assert len(zone(g, "relic_offer")) == 3


@pytest.mark.parametrize("act", ["2", "3"])
def test_a_solo_climb_started_in_act_ii_or_iii_has_the_solo_setup_bonus(act: str) -> None:
    g = RULESET.new_game(1, 4, check_invariants=True, options={"start_act": act})
    to_first_combat(g)
    held = [str(field(g, r, "name")) for r in zone(g, "relics", 0) + zone(g, "used_relics", 0)]
    assert "Loaded Die" in held
    assert "P1 gains Loaded Die" in g.log_lines(None)
    duo = RULESET.new_game(2, 4, check_invariants=True, options={"start_act": act})
    to_first_combat(duo)
    assert "P1 gains Loaded Die" not in duo.log_lines(None)
