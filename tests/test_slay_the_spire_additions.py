"""Slay the Spire: the Ironclad, Silent and Defect reward cards added after the first transcription, and the
general mechanisms they brought (playing the top card for free, damage back when hit, "whenever you gain Block",
the HP-loss guard, "lose at most N HP this round", cards free this turn, delayed draw/energy, on-death blasts).

Every card is also played plain and upgraded by tests/test_slay_the_spire_rewards.py (Ironclad, Silent) and
tests/test_slay_the_spire_defect_watcher.py (Defect). Positions are edited as in tests/test_slay_the_spire_faq.py.
"""

from __future__ import annotations

from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, choose, refresh_decision, zone_index
from tests.test_slay_the_spire_faq import combat, counter, end_turn, foes, name, pc, play, set_pc, setc, to_hand
from tests.test_slay_the_spire_rewards import hand, resolve_with_first_options, upgrade, zone


def enemy(g: Game, card: str, life: int) -> int:
    """Make `card` (an enemy card name) the only enemy, in P1's row, with `life` HP."""
    for c in foes(g):
        _move(g, c, zone_index(g, "summon_box"))
    cid = card_ids(g, card)[0]
    _move(g, cid, zone_index(g, "foes"))
    setc(g, cid, "lane", 0)
    setc(g, cid, "life", life)
    setc(g, cid, "marker", 0)
    return cid


def in_power(g: Game, card: str, up: bool = False) -> int:
    """Put P1's (not yet owned) card `card` straight into play as a Power."""
    cid = to_hand(g, card, gained=True)
    if up:
        upgrade(g, cid)
    _move(g, cid, zone_index(g, "powers", 0))
    return cid


def on_draw_top(g: Game, card: str, gained: bool = True) -> int:
    cid = to_hand(g, card, gained=gained)
    _move(g, cid, zone_index(g, "draw", 0), "top")
    return cid


# ---------------------------------------------------------------- Ironclad


def test_havoc_plays_the_top_card_for_free_and_exhausts_it() -> None:
    g = combat("Ironclad")
    e = enemy(g, "Cultist (1st)", 20)
    on_draw_top(g, "Bludgeon")  # costs 3; played by Havoc for free
    to_hand(g, "Havoc", gained=True)
    set_pc(g, "energy", 1)
    refresh_decision(g)
    play(g, "Havoc")
    choose(g, 0, name(g, e))
    assert counter(g, e, "life") == 20 - 7
    assert pc(g, "energy") == 0  # Havoc's own cost only
    assert "Bludgeon" in zone(g, "exhausted") and "Havoc" in zone(g, "discard")
    assert pc(g, "cards_played") == 2


def test_havoc_on_a_power_puts_it_in_play() -> None:
    g = combat("Ironclad")
    enemy(g, "Cultist (1st)", 20)
    on_draw_top(g, "Inflame")
    to_hand(g, "Havoc", gained=True)
    refresh_decision(g)
    play(g, "Havoc")
    assert "Inflame" in zone(g, "powers") and pc(g, "strength") == 1


def test_havoc_exhausts_a_daze_and_discards_an_unplayable_card() -> None:
    """FAQ §24.2: a Daze played by Havoc is exhausted (back to the Daze deck); other unplayable cards are discarded."""
    g = combat("Ironclad")
    enemy(g, "Cultist (1st)", 20)
    daze = card_ids(g, "Daze")[0]
    _move(g, daze, zone_index(g, "draw", 0), "top")
    set_pc(g, "owned", pc(g, "owned") + 1)
    to_hand(g, "Havoc", gained=True)
    owned = pc(g, "owned")
    refresh_decision(g)
    play(g, "Havoc")
    assert g.state.card_zone[daze] == zone_index(g, "daze_deck") and pc(g, "owned") == owned - 1
    assert g.violations() == []

    g = combat("Silent")
    enemy(g, "Cultist (1st)", 20)
    on_draw_top(g, "Reflex")
    to_hand(g, "Havoc", gained=True)  # any character's card may be played here
    refresh_decision(g)
    before = len(hand(g))
    play(g, "Havoc")
    assert "Reflex" in zone(g, "discard") and "Havoc" in zone(g, "discard")
    assert len(hand(g)) == before - 1  # not discarded "by a card effect": Reflex draws nothing


def test_havoc_reshuffles_an_empty_draw_pile_first() -> None:
    g = combat("Ironclad")
    enemy(g, "Cultist (1st)", 20)
    for c in list(g.state.zones[zone_index(g, "draw", 0)]):
        _move(g, c, zone_index(g, "discard", 0))
    to_hand(g, "Havoc", gained=True)
    refresh_decision(g)
    discard_before = len(zone(g, "discard"))
    play(g, "Havoc")
    resolve_with_first_options(g)
    assert g.error is None and g.violations() == []
    assert len(zone(g, "draw")) == discard_before - 1  # the discard pile became the draw pile, its top was used


def test_flame_barrier_damages_each_enemy_hit() -> None:
    """The Cultist hits 1 (plus its Strength) each turn: with Flame Barrier it takes 1 damage for the hit."""
    g = combat("Ironclad")
    e = enemy(g, "Cultist (1st)", 9)
    to_hand(g, "Flame Barrier", gained=True)
    set_pc(g, "energy", 2)
    set_pc(g, "hp", 10)
    refresh_decision(g)
    play(g, "Flame Barrier")
    assert pc(g, "block") == 3 and pc(g, "thorns") == 1
    end_turn(g)
    assert counter(g, e, "life") == 9 - 1
    assert pc(g, "hp") == 10  # the hit went into the Block
    assert pc(g, "thorns") == 0  # it lasts one round


def test_flame_barrier_can_kill_the_attacker_mid_attack() -> None:
    g = combat("Ironclad")
    e = enemy(g, "Cultist (1st)", 1)
    to_hand(g, "Flame Barrier", gained=True)
    set_pc(g, "energy", 2)
    refresh_decision(g)
    play(g, "Flame Barrier")
    end_turn(g)
    assert counter(g, e, "life") == 0 and g.finished  # the only enemy died: the combat is won


def test_berserk_makes_you_vulnerable_and_gives_energy_every_turn() -> None:
    g = combat("Ironclad")
    enemy(g, "Cultist (1st)", 50)
    to_hand(g, "Berserk", gained=True)
    set_pc(g, "energy", 1)
    set_pc(g, "hp", 10)
    refresh_decision(g)
    play(g, "Berserk")
    assert pc(g, "vulnerable") == 1 and "Berserk" in zone(g, "powers")
    end_turn(g)
    assert pc(g, "energy") == 4


def test_juggernaut_deals_damage_whenever_you_gain_block() -> None:
    g = combat("Ironclad")
    e = enemy(g, "Cultist (1st)", 20)
    in_power(g, "Juggernaut", up=True)
    to_hand(g, "Defend (Ironclad)")
    refresh_decision(g)
    play(g, "Defend (Ironclad)")
    choose(g, 0, name(g, e))
    assert counter(g, e, "life") == 20 - 2 and pc(g, "block") == 1


def test_juggernaut_does_nothing_when_block_is_capped() -> None:
    """§22.2: Block beyond 20 is not gained, so nothing "whenever you gain Block" happens."""
    g = combat("Ironclad")
    e = enemy(g, "Cultist (1st)", 20)
    in_power(g, "Juggernaut")
    set_pc(g, "block", 20)
    to_hand(g, "Defend (Ironclad)")
    refresh_decision(g)
    play(g, "Defend (Ironclad)")
    assert counter(g, e, "life") == 20 and "end_turn" in g.decision.options[0]
