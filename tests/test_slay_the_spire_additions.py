"""Slay the Spire: the Ironclad, Silent and Defect reward cards added after the first transcription, and the
general mechanisms they brought (playing the top card for free, damage back when hit, "whenever you gain Block",
the HP-loss guard, "lose at most N HP this round", cards free this turn, delayed draw/energy, on-death blasts).

Every card is also played plain and upgraded by tests/test_slay_the_spire_rewards.py (Ironclad, Silent) and
tests/test_slay_the_spire_defect_watcher.py (Defect). Positions are edited as in tests/test_slay_the_spire_faq.py.
"""

from __future__ import annotations

import random

from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, card_slot, choose, global_slot, player_slot, refresh_decision, zone_index
from tests.sts_setup import counter, name, pc, set_pc, setc
from tests.test_slay_the_spire_faq import combat, end_turn, foes, play, to_hand
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
    loaded_die = int(g.state.counters[global_slot(g, "die_result")]) == 6  # the solo relic: +1 energy on a 6
    assert pc(g, "energy") == 3 + 1 + loaded_die


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


# ---------------------------------------------------------------- Silent


def test_a_thousand_cuts_deals_damage_for_every_card_played() -> None:
    g = combat("Silent")
    e = enemy(g, "Cultist (1st)", 20)
    in_power(g, "A Thousand Cuts")
    to_hand(g, "Defend (Silent)")
    refresh_decision(g)
    play(g, "Defend (Silent)")
    choose(g, 0, name(g, e))  # the trigger waits for the card, then asks for its target
    assert counter(g, e, "life") == 19


def test_a_thousand_cuts_counts_a_copy_as_a_card_played() -> None:
    """§19: each copy counts as a separate card; upgraded, the damage goes to a whole row."""
    g = combat("Silent")
    e = enemy(g, "Cultist (1st)", 20)
    in_power(g, "A Thousand Cuts", up=True)
    to_hand(g, "Burst", gained=True)
    to_hand(g, "Defend (Silent)")
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Burst")
    resolve_with_first_options(g)
    play(g, "Defend (Silent)")
    resolve_with_first_options(g)
    assert pc(g, "block") == 2  # Defend and its copy
    assert counter(g, e, "life") == 20 - 3  # Burst, the copy, Defend


def test_burst_is_never_copied_itself() -> None:
    g = combat("Silent")
    enemy(g, "Cultist (1st)", 20)
    to_hand(g, "Burst", gained=True)
    set_pc(g, "energy", 3)
    g.state.counters[player_slot(g, "replay", 0, "skill")] = 1  # a copy is already pending
    refresh_decision(g)
    play(g, "Burst")
    assert g.state.counters[player_slot(g, "replay", 0, "skill")] == 2  # Burst used none, added one
    assert pc(g, "cards_played") == 1


def test_bullet_time_makes_the_hand_free_and_stops_draws() -> None:
    g = combat("Silent")
    e = enemy(g, "Cultist (1st)", 20)
    to_hand(g, "Bullet Time", gained=True)
    to_hand(g, "Predator", gained=True)  # costs 2, draws 2
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Bullet Time")
    assert pc(g, "energy") == 0
    before = len(hand(g))
    play(g, "Predator", name(g, e))
    choose(g, 0, "P1")  # the player who draws
    assert counter(g, e, "life") == 17
    assert len(hand(g)) == before - 1  # no draw this turn
    end_turn(g)
    if not g.finished:  # next turn the cards cost what they print again
        assert all(
            g.state.counters[card_slot(g, c, "free_round")] != pc_round(g)
            for c in g.state.zones[zone_index(g, "hand", 0)]
        )


def pc_round(g: Game) -> int:
    return int(g.state.counters[global_slot(g, "combat_round")])


def test_corpse_explosion_blasts_the_row_once_when_the_enemy_dies() -> None:
    """FAQ §24.2: played twice on one enemy, the on-death effect happens once."""
    g = combat("Silent")
    e = enemy(g, "Cultist (1st)", 5)
    other = card_ids(g, "Jaw Worm (1st)")[0]
    _move(g, other, zone_index(g, "foes"))
    setc(g, other, "lane", 0)
    setc(g, other, "life", 7)
    to_hand(g, "Corpse Explosion", gained=True)
    set_pc(g, "energy", 6)
    refresh_decision(g)
    play(g, "Corpse Explosion", name(g, e))
    assert counter(g, e, "poison") == 2 and counter(g, e, "blast") == 3
    cid = next(c for c in card_ids(g, "Corpse Explosion") if g.state.card_zone[c] == zone_index(g, "discard", 0))
    _move(g, cid, zone_index(g, "hand", 0))
    refresh_decision(g)
    play(g, "Corpse Explosion", name(g, e))
    assert counter(g, e, "poison") == 4 and counter(g, e, "blast") == 3
    setc(g, e, "life", 1)
    to_hand(g, "Strike (Silent)")
    refresh_decision(g)
    play(g, "Strike (Silent)", name(g, e))
    assert counter(g, e, "life") == 0
    assert counter(g, other, "life") == 7 - 3  # one blast of 3


def test_doppelganger_gives_cards_and_energy_next_turn() -> None:
    g = combat("Silent")
    enemy(g, "Cultist (1st)", 50)
    cid = to_hand(g, "Doppelganger", gained=True)
    upgrade(g, cid)
    set_pc(g, "energy", 2)
    set_pc(g, "hp", 9)
    refresh_decision(g)
    play(g, "Doppelganger")
    choose(g, 0, "2")  # X = 2, upgraded: 3
    assert pc(g, "next_draw") == 3 and pc(g, "next_energy") == 3
    assert "Doppelganger" in zone(g, "exhausted")
    end_turn(g)
    assert pc(g, "energy") == 6 and pc(g, "next_draw") == 0  # 3 + 3
    assert len(hand(g)) == 5 + 3


def test_malaise_takes_strength_and_gives_weak() -> None:
    g = combat("Silent")
    e = enemy(g, "Cultist (1st)", 50)
    box = global_slot(g, "strength_box")
    g.state.counters[box] -= 2
    setc(g, e, "e_str", 2)
    to_hand(g, "Malaise", gained=True)
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Malaise")
    choose(g, 0, "3")
    choose(g, 0, name(g, e))
    assert counter(g, e, "e_str") == 0 and g.state.counters[box] == 8  # only what it had goes back
    assert counter(g, e, "e_weak") == 3  # Weak is capped at 3
    assert "Malaise" in zone(g, "exhausted")


def test_tools_of_the_trade_draws_then_discards_at_start_of_turn() -> None:
    g = combat("Silent")
    enemy(g, "Cultist (1st)", 50)
    in_power(g, "Tools of the Trade")
    set_pc(g, "hp", 9)
    refresh_decision(g)
    end_turn(g)
    d = g.decision
    assert d is not None and "end_turn" not in d.options[0]  # asked which card to discard
    assert len(hand(g)) == 6
    choose(g, 0, d.options[0][0])
    assert len(hand(g)) == 5 and pc(g, "discarded_now") == 1


def test_wraith_form_limits_hp_loss_per_round_and_wears_off() -> None:
    g = combat("Silent")
    e = enemy(g, "Hexaghost", 99)
    setc(g, e, "marker", 5)  # hit 3 x 2 this round
    to_hand(g, "Wraith Form", gained=True)
    set_pc(g, "energy", 3)
    set_pc(g, "hp", 9)
    refresh_decision(g)
    play(g, "Wraith Form")
    assert pc(g, "limited") == 1 and pc(g, "loss_left") == 1
    end_turn(g)
    assert pc(g, "hp") == 8  # 6 damage, at most 1 HP lost this round
    assert pc(g, "limited") == 1  # the next round is limited too (one charge)
    wf = card_ids(g, "Wraith Form")[0]
    assert counter(g, wf, "charges") == 0


def test_wraith_form_loses_a_block_at_end_of_turn() -> None:
    g = combat("Silent")
    enemy(g, "Cultist (1st)", 50)
    in_power(g, "Wraith Form")
    set_pc(g, "block", 1)
    set_pc(g, "hp", 9)
    refresh_decision(g)
    end_turn(g)
    assert pc(g, "hp") == 8  # the 1 Block was gone before the Cultist's hit 1


# ---------------------------------------------------------------- Defect


def test_heatsinks_draw_when_a_power_is_played() -> None:
    g = combat("Defect")
    enemy(g, "Cultist (1st)", 50)
    in_power(g, "Heatsinks")
    to_hand(g, "Storm", gained=True)
    refresh_decision(g)
    before = len(hand(g))
    play(g, "Storm")
    assert len(hand(g)) == before - 1 + 2


def test_heatsinks_do_not_draw_for_themselves() -> None:
    g = combat("Defect")
    enemy(g, "Cultist (1st)", 50)
    to_hand(g, "Heatsinks", gained=True)
    refresh_decision(g)
    before = len(hand(g))
    play(g, "Heatsinks")
    assert len(hand(g)) == before - 1 and "Heatsinks" in zone(g, "powers")


def test_buffer_prevents_hp_loss_per_hit_then_exhausts() -> None:
    """FAQ §24.2: each hit of a multi-hit meets Buffer separately. Buffer+ (2 uses) stops both hits of 3 x 2."""
    g = combat("Defect")
    e = enemy(g, "Hexaghost", 99)
    setc(g, e, "marker", 5)
    b = in_power(g, "Buffer", up=True)
    setc(g, b, "charges", 2)
    set_pc(g, "hp", 9)
    refresh_decision(g)
    end_turn(g)
    resolve_with_first_options(g)  # the Lightning orb's end-of-turn target
    assert pc(g, "hp") == 9 and pc(g, "lost_hp") == 0
    assert "Buffer" in zone(g, "exhausted")


def test_buffer_with_one_use_stops_only_the_first_hit() -> None:
    g = combat("Defect")
    e = enemy(g, "Hexaghost", 99)
    setc(g, e, "marker", 5)
    to_hand(g, "Buffer", gained=True)
    set_pc(g, "energy", 2)
    set_pc(g, "hp", 9)
    refresh_decision(g)
    play(g, "Buffer")
    end_turn(g)
    resolve_with_first_options(g)  # the Lightning orb's end-of-turn target
    assert pc(g, "hp") == 9 - 3 and pc(g, "lost_hp") == 1


def test_buffer_does_not_spend_a_use_when_block_takes_the_hit() -> None:
    g = combat("Defect")
    enemy(g, "Cultist (1st)", 50)
    b = in_power(g, "Buffer")
    setc(g, b, "charges", 1)
    set_pc(g, "block", 5)
    set_pc(g, "hp", 9)
    refresh_decision(g)
    end_turn(g)
    resolve_with_first_options(g)  # the Lightning orb's end-of-turn target
    assert counter(g, b, "charges") == 1 and "Buffer" in zone(g, "powers")


# ---------------------------------------------------------------- random play with all of these cards

ADDED = [
    "Havoc",
    "Flame Barrier",
    "Berserk",
    "Juggernaut",
    "A Thousand Cuts",
    "Bullet Time",
    "Burst",
    "Corpse Explosion",
    "Doppelganger",
    "Malaise",
    "Tools of the Trade",
    "Wraith Form",
    "Heatsinks",
    "Buffer",
]


def test_random_combats_with_the_added_cards_keep_every_invariant() -> None:
    """All fourteen added cards (each upgraded at random) shuffled into the draw pile of an Ironclad, Silent or
    Defect, then random decisions to the end of the combat: no runtime error, every invariant after every step, and
    the cards really get played (so Havoc meets Powers, Burst meets Bullet Time, Buffer meets Wraith Form...)."""
    played = 0
    for seed in range(18):
        rng = random.Random(seed)
        g = combat(("Ironclad", "Silent", "Defect")[seed % 3], seed)
        played += random_combat_with(g, ADDED, rng, seed, shuffle=True)
    assert played >= 40, played


def random_combat_with(g: Game, names: list[str], rng: random.Random, seed: int, shuffle: bool) -> int:
    """Put one unowned copy of each of ``names`` (upgraded at random) into P1's draw pile (shuffled in when
    ``shuffle``), then play random decisions to the end of the combat, ending the turn reluctantly so that cards
    get played. Asserts no runtime error, every invariant and a finished combat; returns how many times one of
    ``names`` was played."""
    s = g.state
    draw, hand = zone_index(g, "draw", 0), zone_index(g, "hand", 0)
    for n in names:
        cid = next(c for c in card_ids(g, n) if s.card_zone[c] not in (draw, hand))
        _move(g, cid, draw)
        set_pc(g, "owned", pc(g, "owned") + 1)
        s.counters[card_slot(g, cid, "upgraded")] = rng.random() < 0.5
    if shuffle:
        rng.shuffle(s.zones[draw])  # the order inside a zone; every card stays in the draw pile
    refresh_decision(g)
    for _ in range(3000):
        if g.finished or g.decision is None:
            break
        p = g.decision.players[0]
        opts = g.decision.options[p]
        i = rng.randrange(len(opts))
        if opts[i] == "end_turn" and len(opts) > 1 and rng.random() < 0.7:
            i = rng.randrange(len(opts))
        g.apply(i, p)
    assert g.error is None and not g.violations(), (seed, g.error, g.violations())
    assert g.finished, seed
    return sum(1 for line in g.view(0)["log"] if any(line == f"P1 plays {n}" for n in names))
