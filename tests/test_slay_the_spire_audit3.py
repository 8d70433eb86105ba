"""Slay the Spire rules audit, round three (issue 30, items 8-10): each finding as a scenario on the real ruleset.

Section numbers (§N) are those of shared/rules/slay_the_spire.md. The audit table in docs/slay_the_spire.md names
these tests.
"""

from __future__ import annotations

import pytest
from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, choose, player_slot, refresh_decision, zone_index
from tests.sts_setup import RULESET, pc, set_pc, setc
from tests.test_slay_the_spire_faq import combat, foes, only_enemy
from tests.test_slay_the_spire_items import give, zone


def alone_in_row(g: Game, enemy: str, seat: int, marker: int = 0) -> int:
    """Make `enemy` the only enemy, in the row of player `seat`, with 30 HP, no Block and its track at `marker`."""
    for c in foes(g):
        _move(g, c, zone_index(g, "summon_box"))
    cid = card_ids(g, enemy)[0]
    _move(g, cid, zone_index(g, "foes"))
    for counter, value in (("lane", seat), ("life", 30), ("marker", marker), ("e_block", 0)):
        setc(g, cid, counter, value)
    return cid


def hp(g: Game, seat: int) -> int:
    return int(g.state.counters[player_slot(g, "hp", seat)])


@pytest.mark.parametrize(("enemy", "marker", "damage"), [("Fat Gremlin", 0, 1), ("Gremlin Nob", 1, 3)])
@pytest.mark.parametrize("row", [0, 1])
def test_an_enemy_aoe_attack_hits_every_player(enemy: str, marker: int, damage: int, row: int) -> None:
    """§14 and the AoE glossary: on the enemy side "everything after the symbol hits all players". Fat Gremlin
    (AoE hit 1 every turn) and Gremlin Nob (AoE hit 3 once awake) hurt both players, whichever row they are in;
    before the fix only P1 was hit."""
    g = RULESET.new_game(2, 4, check_invariants=True, options={"mode": "combat"})
    choose(g, 0, "Ironclad")
    choose(g, 1, "Silent")
    alone_in_row(g, enemy, row, marker)
    for seat in (0, 1):
        g.state.counters[player_slot(g, "hp", seat)] = 8
        g.state.counters[player_slot(g, "block", seat)] = 0
    refresh_decision(g)
    choose(g, 0, "end_turn")
    choose(g, 1, "end_turn")
    assert g.error is None and not g.violations()
    assert (hp(g, 0), hp(g, 1)) == (8 - damage, 8 - damage)
    lines = g.log_lines()
    assert any(f"{enemy} attacks P1" in ln for ln in lines) and any(f"{enemy} attacks P2" in ln for ln in lines)


def test_a_row_attack_still_hits_only_its_own_row() -> None:
    """§14: "each enemy targets the player in its own row"; only the AoE symbol widens it (Mad Gremlin: hit 1)."""
    g = RULESET.new_game(2, 4, check_invariants=True, options={"mode": "combat"})
    choose(g, 0, "Ironclad")
    choose(g, 1, "Silent")
    alone_in_row(g, "Mad Gremlin", 1)
    for seat in (0, 1):
        g.state.counters[player_slot(g, "hp", seat)] = 8
        g.state.counters[player_slot(g, "block", seat)] = 0
    refresh_decision(g)
    choose(g, 0, "end_turn")
    choose(g, 1, "end_turn")
    assert (hp(g, 0), hp(g, 1)) == (8, 7)


def test_a_fourth_potion_may_be_made_room_for_by_drinking_one() -> None:
    """§8.2 (d): at the limit, "use one of your potions, then gain the new one". Entropic Brew with two more
    potions held: the first potion it gains fills the belt; for the second, P1 drinks the Energy Potion and keeps
    the new potion. Before the fix the only question was which of the 4 to discard."""
    g = combat("Ironclad")
    only_enemy(g)
    give(g, "Entropic Brew", "potions")
    give(g, "Energy Potion", "potions")
    give(g, "Swift Potion", "potions")
    deck = zone(g, "potion_deck", None)
    first, second = deck[-1], deck[-2]  # the top is the last card
    set_pc(g, "energy", 3)
    refresh_decision(g)
    choose(g, 0, "use_potion")
    choose(g, 0, "Entropic Brew")
    d = g.decision
    assert d is not None and "Energy Potion" in d.options[0] and "pass" in d.options[0], d and d.options
    choose(g, 0, "Energy Potion")
    assert g.error is None and not g.violations()
    assert sorted(zone(g, "potions")) == sorted(["Swift Potion", first, second])
    assert pc(g, "energy") == 3 + 2
    assert "P1 drinks Energy Potion" in g.log_lines()


def test_a_fourth_potion_can_still_be_discarded_instead() -> None:
    """Passing on the drink leaves the old choice: discard one of the four."""
    g = combat("Ironclad")
    only_enemy(g)
    for p in ("Entropic Brew", "Energy Potion", "Swift Potion"):
        give(g, p, "potions")
    deck = zone(g, "potion_deck", None)
    first, second = deck[-1], deck[-2]
    refresh_decision(g)
    choose(g, 0, "use_potion")
    choose(g, 0, "Entropic Brew")
    choose(g, 0, "pass")
    d = g.decision
    assert d is not None and "discard" in d.prompts[0] and second in d.options[0]
    choose(g, 0, "Energy Potion")
    assert sorted(zone(g, "potions")) == sorted(["Swift Potion", first, second])
    assert g.error is None and not g.violations()


def test_a_solo_mad_gremlin_fight_logs_only_the_gremlins_placed() -> None:
    """"With 3 random Gremlins (2 solo)": alone, P1 meets the Mad Gremlin and two Gremlins, and the log says two
    appear (it used to log three and then quietly take one back)."""
    for seed in range(80):
        g = RULESET.new_game(1, seed, check_invariants=True, options={"mode": "combat"})
        choose(g, 0, "Ironclad")
        lines = g.log_lines()
        if any(ln.startswith("Mad Gremlin (4 HP) is in") for ln in lines):
            break
    else:  # pragma: no cover - the encounter deck holds a Mad Gremlin
        raise AssertionError("no Mad Gremlin fight in 80 seeds")
    appeared = [ln for ln in lines if ln.endswith("appears in P1's row")]
    placed = [c for c in g.state.zones[zone_index(g, "foes")] if g.state.tables.card_names[c] != "Mad Gremlin"]
    assert len(appeared) == len(placed) == 2
