"""Slay the Spire's achievements (§25.3, rulesets/slay_the_spire/achievements.rules): evaluated during and at the end
of a run, reported when the game ends as log lines everyone reads ("Achievement: …") and as the `earned` flags of
the final state. Positions are walked or set up as in tests/test_slay_the_spire_acts.py; the enemies a test "kills"
are put at 0 HP among the fallen, as the ruleset's `kill` leaves them.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_slot, global_slot, player_slot, zone_index
from tests.sts_setup import RULESET, field, zone
from tests.test_slay_the_spire_acts import beat_the_boss, first_or_move_on, in_turn, walk_to_boss
from tests.test_slay_the_spire_options import to_first_combat


def kill_all(g: Game) -> None:
    kill_all_then(g, lambda g: g.finished or in_turn(g))


def kill_all_then(g: Game, until: Callable[[Game], bool]) -> None:
    """Every enemy killed, the turn ended, then the first offer taken (rewards, boss relics) until ``until(g)``."""
    for e in zone(g, "foes"):
        g.state.counters[card_slot(g, e, "life")] = 0
        _move(g, e, zone_index(g, "fallen"))
    beat_the_boss(g)
    while not until(g):
        assert not g.finished
        first_or_move_on(g)


def earned(g: Game) -> list[str]:
    return [line.removeprefix("Achievement: ") for line in g.log_lines(None) if line.startswith("Achievement: ")]


def end_turns(g: Game) -> None:
    for p in list(g.waiting_for()):
        d = g.decision
        assert d is not None
        g.apply(d.options[p].index("end_turn") if "end_turn" in d.options[p] else 0, p)


def test_a_boss_beaten_on_its_first_turn_at_full_hp_is_you_are_nothing_and_perfect() -> None:
    g, _ = walk_to_boss(2, 1, {"acts": "1"})  # (walked at full HP, 20 of 20)
    assert g.state.counters[global_slot(g, "combat_round")] == 1
    kill_all(g)
    assert g.finished and g.result is not None and g.result["winners"] == [0, 1]
    assert earned(g) == ["You Are Nothing! (a boss beaten on the first turn)",
                         "Perfect (a boss beaten with every player at full HP)"]
    assert g.log_lines(None)[-2] == "2 achievements earned in this run"
    assert not g.violations()
    # the result reports them by name (`report achievements`), so tools need not read the log
    assert g.result["reports"] == {"achievements": ["you_are_nothing", "perfect"]}


def test_a_boss_beaten_later_and_hurt_earns_neither() -> None:
    g, _ = walk_to_boss(2, 1, {"acts": "1"})
    g.state.counters[player_slot(g, "hp", 1)] = 19
    while g.state.counters[global_slot(g, "combat_round")] == 1:
        g.state.counters[player_slot(g, "hp", 0)] = 20
        g.state.counters[player_slot(g, "hp", 1)] = 19
        end_turns(g)
    while not in_turn(g):
        end_turns(g)
    g.state.counters[player_slot(g, "hp", 1)] = 19
    kill_all(g)
    assert g.finished and earned(g) == []
    assert not any("achievement" in line for line in g.log_lines(None))  # a run without any: no line
    assert g.result is not None and g.result["reports"] == {"achievements": []}


@pytest.mark.parametrize(("what", "words"), [
    ("strength", "Pumped Up (the Strength limit of 8 reached)"),
    ("block", "Barricade (the Block limit of 20 reached)"),
    ("shivs_used", "Ninja (7 Shivs played in one turn)"),
])
def test_a_limit_reached_in_a_turn_is_an_achievement(what: str, words: str) -> None:
    g = RULESET.new_game(1, 3, check_invariants=True, options={"mode": "combat"})
    to_first_combat(g)
    if what == "strength":  # a pool: the 8 come from the supply
        g.state.counters[global_slot(g, "strength_box")] -= 8
        g.state.counters[player_slot(g, "strength", 0)] = 8
    elif what == "block":
        g.state.counters[player_slot(g, "block", 0)] = 20
    else:
        g.state.counters[player_slot(g, "shivs_used", 0)] = 7
    end_turns(g)  # the players' turn ends: the limits are looked at
    while not in_turn(g):
        end_turns(g)
    kill_all(g)
    assert words in earned(g)
    assert not g.violations()


def test_six_shivs_in_a_turn_are_not_ninja() -> None:
    g = RULESET.new_game(1, 3, check_invariants=True, options={"mode": "combat"})
    to_first_combat(g)
    g.state.counters[player_slot(g, "shivs_used", 0)] = 6
    kill_all(g)
    assert earned(g) == []


def test_act_iii_won_by_four_players_earns_the_party_and_character_achievements() -> None:
    g, _ = walk_to_boss(4, 1, {"start_act": "3"})
    assert g.state.counters[global_slot(g, "current_act")] == 3
    for p in range(4):
        g.state.counters[player_slot(g, "hp", p)] = 19  # (not Perfect)
    end_turns(g)
    while not in_turn(g):
        end_turns(g)
    kill_all(g)
    assert g.finished and g.result is not None and g.result["winners"] == [0, 1, 2, 3]
    got = earned(g)
    assert "All for One (Act III won by 4 players)" in got
    assert {"Ruby (Act III won with the Ironclad)", "Emerald (Act III won with the Silent)",
            "Sapphire (Act III won with the Defect)", "Amethyst (Act III won with the Watcher)"} <= set(got)
    assert "My Day (Act III won on a Daily Climb)" not in got
    heroes = {str(field(g, zone(g, "hero", p)[0], "character")) for p in range(4)}
    assert heroes == {"ironclad", "silent", "defect", "watcher"}


def test_act_iii_won_on_a_daily_climb_is_my_day() -> None:
    g, _ = walk_to_boss(1, 2, {"start_act": "3", "daily_penalty": "leprosy"})
    kill_all(g)
    assert g.finished and "My Day (Act III won on a Daily Climb)" in earned(g)
    assert "All for One (Act III won by 4 players)" not in earned(g)


def test_the_transient_killed_is_an_achievement_and_expired_is_not() -> None:
    for expired, want in ((False, True), (True, False)):
        g = RULESET.new_game(1, 3, check_invariants=True, options={"mode": "act3_combat"})
        to_first_combat(g)
        transient = next(c for c in zone(g, "encounter_deck_3") + zone(g, "foes") + zone(g, "summon_box")
                         if field(g, c, "name") == "Transient")
        g.state.counters[card_slot(g, transient, "life")] = 0
        _move(g, transient, zone_index(g, "fallen"))
        if expired:
            g.state.counters[card_slot(g, transient, "expired")] = 1
        kill_all(g)
        assert ("Transient (the Transient killed before it killed itself)" in earned(g)) is want


def test_catalyst_and_powerful_at_the_end_of_a_turn() -> None:
    """30 poison on the enemies (the whole supply) and 7 Powers in play, looked at when the players' turn ends."""
    g = RULESET.new_game(1, 3, check_invariants=True, options={"mode": "combat"})
    to_first_combat(g)
    foe = zone(g, "foes")[0]
    g.state.counters[card_slot(g, foe, "life")] = 99
    g.state.counters[global_slot(g, "poison_box")] -= 30
    g.state.counters[card_slot(g, foe, "poison")] = 30
    powers = [c for c in zone(g, "rewards", 0) if field(g, c, "type") == "power"][:7]
    assert len(powers) == 7
    for c in powers:
        _move(g, c, zone_index(g, "powers", 0))
    g.state.counters[player_slot(g, "owned", 0)] += 7
    end_turns(g)
    while not in_turn(g):
        end_turns(g)
    kill_all(g)
    assert {"Catalyst (the poison limit of 30 reached)", "Powerful (7 Powers in play at once)"} <= set(earned(g))


def act_iii_boss(seed: int = 2) -> Game:
    g, _ = walk_to_boss(1, seed, {"start_act": "3"})
    for p in range(g.players):  # (not Perfect: the walk keeps everyone at full HP)
        g.state.counters[player_slot(g, "hp", p)] = 19
    return g


def test_minimalist_common_affair_and_who_needs_relics_on_an_act_iii_win() -> None:
    """A deck of 5 starter cards (every other card removed) and only the starting relics, at the Act III boss."""
    g = act_iii_boss()
    held = [c for z in ("deck", "draw", "hand", "discard", "exhausted", "powers", "in_play") for c in zone(g, z, 0)]
    starters = [c for c in held if field(g, c, "rarity") == "starter"][:5]
    for c in held:
        if c not in starters:
            _move(g, c, zone_index(g, "removed", 0))
    g.state.counters[player_slot(g, "owned", 0)] = 5
    for r in zone(g, "relics", 0) + zone(g, "used_relics", 0):
        if field(g, r, "starter") == "colorless" and not field(g, r, "solo"):
            _move(g, r, zone_index(g, "boss_relic_deck" if field(g, r, "boss") else "relic_deck"))
    kill_all(g)
    assert g.finished and g.result is not None and g.result["winners"] == [0]
    got = set(earned(g))
    assert {"Minimalist (Act III won with a deck of at most 5 cards)",
            "Common Affair (Act III won with no uncommon or rare cards)",
            "Who Needs Relics? (Act III won with no relics but the starting ones)"} <= got
    assert "Collector (Act III won with 12 relics for every player)" not in got


def test_collector_on_an_act_iii_win_with_12_relics() -> None:
    """14 relics held at the Act III boss (one may discard itself at the end of the combat): at least 12 at the end."""
    g = act_iii_boss()
    for r in zone(g, "relic_deck"):
        if len(zone(g, "relics", 0)) + len(zone(g, "used_relics", 0)) >= 14:
            break
        if not field(g, r, "one_shot") and field(g, r, "perk") == "no_perk":
            _move(g, r, zone_index(g, "relics", 0))
    kill_all(g)
    assert len(zone(g, "relics", 0)) >= 12
    got = set(earned(g))
    assert "Collector (Act III won with 12 relics for every player)" in got
    assert "Who Needs Relics? (Act III won with no relics but the starting ones)" not in got
