"""Slay the Spire rule cases (spec §15.2 worked examples, §22.2, §24.1 FAQ) played on the real ruleset.

Each test starts a one-player combat (`mode=combat`), edits the position at the first play decision
(the same way tests/scenario.py edits Bloodborne positions), then plays it through the ruleset's own
decisions and checks the ruling.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from liturgy.interpreter.engine import Game, load_ruleset

from tests.scenario import _move, card_ids, card_slot, choose, global_slot, player_slot, refresh_decision, zone_index

RULES = str(Path(__file__).resolve().parents[1] / "rulesets" / "slay_the_spire.rules")
RULESET = load_ruleset(RULES)


def combat(hero: str, seed: int = 3) -> Game:
    g = RULESET.new_game(1, seed, check_invariants=True, options={"mode": "combat"})
    choose(g, 0, hero)
    assert g.decision is not None and "end_turn" in g.decision.options[0]
    return g


def foes(g: Game) -> list[int]:
    s = g.state
    return [c for c in s.zones[zone_index(g, "foes")] if s.counters[card_slot(g, c, "life")] > 0]


def counter(g: Game, cid: int, name: str) -> int:
    return int(g.state.counters[card_slot(g, cid, name)])


def setc(g: Game, cid: int, name: str, value: int) -> None:
    g.state.counters[card_slot(g, cid, name)] = value


def pc(g: Game, name: str) -> int:
    return int(g.state.counters[player_slot(g, name, 0)])


def set_pc(g: Game, name: str, value: int) -> None:
    g.state.counters[player_slot(g, name, 0)] = value


def only_enemy(g: Game, life: int = 50) -> int:
    """Keep one living enemy (the others leave to the summon box) with `life` HP."""
    first, *rest = foes(g)
    for c in rest:
        _move(g, c, zone_index(g, "summon_box"))
    setc(g, first, "life", life)
    return first


def to_hand(g: Game, name: str, gained: bool = False) -> int:
    """Put P1's card `name` into the hand; `gained` for a reward card not yet owned."""
    s = g.state
    hand = zone_index(g, "hand", 0)
    cid = next(c for c in card_ids(g, name) if s.card_zone[c] != hand)
    _move(g, cid, hand)
    if gained:
        set_pc(g, "owned", pc(g, "owned") + 1)
    return cid


def play(g: Game, card: str, target: str | None = None) -> None:
    choose(g, 0, "play_card")
    choose(g, 0, card)
    if target is not None:
        choose(g, 0, target)


def name(g: Game, cid: int) -> str:
    return g.state.tables.card_names[cid]


def set_strength(g: Game, n: int) -> None:
    box = global_slot(g, "strength_box")
    g.state.counters[box] += pc(g, "strength") - n
    set_pc(g, "strength", n)


def test_vulnerable_doubles_after_strength() -> None:
    """§15.2 / INV-N20: 2 x (base + Strength), never 2 x base + Strength; one Vulnerable is used up."""
    g = combat("Ironclad")
    e = only_enemy(g)
    setc(g, e, "e_vuln", 2)
    set_strength(g, 1)
    to_hand(g, "Strike (Ironclad)")
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Strike (Ironclad)", name(g, e))
    assert counter(g, e, "life") == 50 - 4
    assert counter(g, e, "e_vuln") == 1


def test_weak_attacker_against_vulnerable_target_ignores_both() -> None:
    """§15.2 / INV-N19: base damage only; the attacker loses one Weak and the target one Vulnerable."""
    g = combat("Ironclad")
    e = only_enemy(g)
    setc(g, e, "e_vuln", 1)
    set_pc(g, "weak", 2)
    to_hand(g, "Strike (Ironclad)")
    refresh_decision(g)
    play(g, "Strike (Ironclad)", name(g, e))
    assert counter(g, e, "life") == 49
    assert counter(g, e, "e_vuln") == 0 and pc(g, "weak") == 1


def test_twin_strike_on_a_vulnerable_cultist_deals_four() -> None:
    """The rulebook's worked example (§15.2): Twin Strike, 1+1 hits, doubled: 4 damage, one Vulnerable used."""
    g = combat("Ironclad")
    e = only_enemy(g, life=9)
    setc(g, e, "e_vuln", 2)
    to_hand(g, "Twin Strike", gained=True)
    refresh_decision(g)
    play(g, "Twin Strike", name(g, e))
    assert counter(g, e, "life") == 9 - 4
    assert counter(g, e, "e_vuln") == 1


def end_turn(g: Game) -> None:
    choose(g, 0, "end_turn")


def test_poison_is_hp_loss_that_block_does_not_stop_and_it_stays() -> None:
    """§24.1: block does not prevent 'lose HP'; poison is not removed at end of round (INV-N22)."""
    g = combat("Silent")
    e = only_enemy(g)
    box = global_slot(g, "poison_box")
    g.state.counters[box] -= 3
    setc(g, e, "poison", 3)
    setc(g, e, "e_block", 5)
    set_pc(g, "hp", 9)
    refresh_decision(g)
    end_turn(g)
    assert counter(g, e, "life") == 50 - 3
    assert counter(g, e, "poison") == 3  # still there in the next round
    assert g.decision is not None and g.state.counters[global_slot(g, "combat_round")] == 2


def test_weak_and_vulnerable_are_not_removed_at_end_of_round() -> None:
    """§24.1: only an attack uses them up; ending the turn does not."""
    g = combat("Ironclad")
    only_enemy(g)
    set_pc(g, "weak", 2)
    refresh_decision(g)
    end_turn(g)
    if g.finished:
        pytest.skip("the enemy killed P1")
    assert pc(g, "weak") == 2


def test_a_gain_beyond_the_poison_supply_does_nothing() -> None:
    """§22.2: with all 30 poison tokens on enemies, Deadly Poison adds nothing and nothing breaks."""
    g = combat("Silent")
    e = only_enemy(g)
    g.state.counters[global_slot(g, "poison_box")] = 0
    setc(g, e, "poison", 30)
    to_hand(g, "Deadly Poison", gained=True)
    refresh_decision(g)
    play(g, "Deadly Poison", name(g, e))
    assert counter(g, e, "poison") == 30
    assert g.state.counters[global_slot(g, "poison_box")] == 0


def test_no_hand_limit() -> None:
    """§24.1: a hand of every card is legal; all of them are offered."""
    g = combat("Silent")
    only_enemy(g)
    s = g.state
    for c in list(s.zones[zone_index(g, "draw", 0)]):
        _move(g, c, zone_index(g, "hand", 0))
    refresh_decision(g)
    assert len(s.zones[zone_index(g, "hand", 0)]) == 12


def test_summons_do_not_flee_when_their_summoner_dies() -> None:
    """§24.1: unlike the video game, the combat goes on while a summon lives."""
    for seed in range(40):
        g = combat("Ironclad", seed)
        living = foes(g)
        if len(living) >= 2:
            break
    else:  # pragma: no cover - the encounter deck always has summoners
        raise AssertionError("no encounter with a summon in 40 seeds")
    main, *summons = living
    setc(g, main, "life", 1)
    setc(g, main, "e_block", 0)
    to_hand(g, "Strike (Ironclad)")
    refresh_decision(g)
    play(g, "Strike (Ironclad)", name(g, main))
    assert counter(g, main, "life") == 0
    assert not g.finished and foes(g) == summons
    assert g.state.counters[global_slot(g, "combats_won")] == 0
