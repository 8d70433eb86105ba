"""Slay the Spire: summon copies with their own die orders, and the printed Act I maps (issue 22).

Each physical Summon card of Acid Slime, Spike Slime, Green Louse and Large Slime prints its own die order.
S1 (hieu-lee/slay-the-spire-the-boardgame-the-game, src/game/enemies.ts `SUMMON_CARDS` at ecb5e10) and S2
(SnorlaxsTriForceWish/StSBoardGameCoopMod, src/main/java/BoardGame/dungeons/BGExordium.java at 3ee55bb) list the
same variants; the card file gives each copy its own entry (numbered: card names are unique, E103) in a `group`
named as printed, which `summon_one` draws from.
"""

from __future__ import annotations

import pytest
from liturgy.interpreter.engine import Game

from tests.scenario import _move, choose, global_slot, zone_index
from tests.test_slay_the_spire_faq import RULESET, combat, foes, pc, set_pc, setc

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
