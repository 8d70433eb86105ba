"""Watcher reward cards (cards/slay_the_spire/rewards_watcher.yaml) and the ruleset mechanisms they use: stance
triggers, Scry triggers, Retain, X costs, Powers. The cards S1 re-transcribed in issue 22 have their own scenarios
in tests/test_slay_the_spire_watcher_s1.py.

Every reward card is also played plain and upgraded under the invariants by
tests/test_slay_the_spire_defect_watcher.py::test_every_reward_card_plays_plain_and_upgraded; the tests here check
what each card does. Positions are edited as in tests/test_slay_the_spire_faq.py.
"""

from __future__ import annotations

import random

from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, choose, global_slot, player_slot, refresh_decision, zone_index
from tests.sts_setup import RULESET, counter, name, ok, pc, set_pc, setc
from tests.test_slay_the_spire_additions import random_combat_with
from tests.test_slay_the_spire_defect_watcher import gain, own_to_hand, settle, stack_draw, zone
from tests.test_slay_the_spire_faq import combat, end_turn, only_enemy, play


def watcher(energy: int = 6) -> tuple[Game, int]:
    g = combat("Watcher")
    e = only_enemy(g)
    setc(g, e, "e_block", 0)
    set_pc(g, "energy", energy)
    return g, e


def stance(g: Game) -> str:
    return next(s for s in ("neutral", "calm", "wrath") if g.state.counters[player_slot(g, "in_stance", 0, s)])


def set_stance(g: Game, s: str) -> None:
    for t in ("neutral", "calm", "wrath"):
        g.state.counters[player_slot(g, "in_stance", 0, t)] = t == s


def next_turn(g: Game) -> None:
    """End P1's turn safe from the enemy (20 Block), then answer any start-of-turn choice with its first option."""
    set_pc(g, "block", 20)
    set_pc(g, "hp", 9)
    refresh_decision(g)
    end_turn(g)
    settle(g)
    assert not g.finished, g.error


def empty_hand(g: Game) -> None:
    for c in list(g.state.zones[zone_index(g, "hand", 0)]):
        _move(g, c, zone_index(g, "discard", 0))


def in_zone(g: Game, cid: int, z: str) -> bool:
    return bool(g.state.card_zone[cid] == zone_index(g, z, 0))


def give_miracles(g: Game, n: int) -> None:
    g.state.counters[global_slot(g, "miracle_box")] -= n - pc(g, "miracle")
    set_pc(g, "miracle", n)


# ---------------------------------------------------------------- stances and their triggers


def test_tantrum_goes_on_the_draw_pile_before_rushdown_draws_it() -> None:
    """FAQ §24.2: triggers wait for the whole card, so Tantrum is on top of the draw pile when Rushdown draws."""
    g, e = watcher()
    gain(g, "Rushdown", "powers")
    tantrum = gain(g, "Tantrum")
    refresh_decision(g)
    play(g, "Tantrum", name(g, e))
    ok(g)
    assert stance(g) == "wrath"
    assert counter(g, e, "life") == 50 - 2  # both hits land before Wrath is entered
    assert in_zone(g, tantrum, "hand")


def test_mental_fortress_gains_block_on_every_change_and_not_on_the_same_stance() -> None:
    g, _ = watcher()
    gain(g, "Mental Fortress", "powers", upgraded=True)
    own_to_hand(g, "Vigilance")
    gain(g, "Tranquility")
    refresh_decision(g)
    set_pc(g, "block", 0)
    play(g, "Vigilance")
    choose(g, 0, "P1")
    ok(g)
    assert stance(g) == "calm" and pc(g, "block") == 2 + 2
    play(g, "Tranquility")  # already in Calm: no change, no Block
    ok(g)
    assert pc(g, "block") == 4


def replay_from_discard(g: Game, card: str) -> None:
    cid = next(c for c in card_ids(g, card) if in_zone(g, c, "discard"))
    _move(g, cid, zone_index(g, "hand", 0))
    refresh_decision(g)


def test_study_draws_two_at_the_start_of_a_turn_begun_in_calm() -> None:
    g, _ = watcher()
    gain(g, "Study", "powers")
    set_stance(g, "calm")
    next_turn(g)
    assert len(zone(g, "hand")) == 7
    set_stance(g, "neutral")
    next_turn(g)
    assert len(zone(g, "hand")) == 5


# ---------------------------------------------------------------- Scry triggers


def test_scrying_an_empty_draw_pile_triggers_nothing() -> None:
    g, _ = watcher()
    gain(g, "Nirvana", "powers")
    weave = gain(g, "Weave", "discard")
    for c in list(g.state.zones[zone_index(g, "draw", 0)]):
        _move(g, c, zone_index(g, "discard", 0))
    gain(g, "Third Eye")
    set_pc(g, "block", 0)
    refresh_decision(g)
    play(g, "Third Eye")
    ok(g)
    assert pc(g, "block") == 2 and in_zone(g, weave, "discard")


# ---------------------------------------------------------------- Retain that pays off


def test_establishment_makes_every_retained_card_cheaper() -> None:
    g, e = watcher()
    gain(g, "Establishment", "powers")
    g.state.counters[player_slot(g, "mods", 0, "establish")] = 1
    protect = gain(g, "Protect")
    next_turn(g)
    assert in_zone(g, protect, "hand")
    set_pc(g, "energy", 1)
    refresh_decision(g)
    play(g, "Protect")
    choose(g, 0, "P1")
    ok(g)
    assert pc(g, "energy") == 0


# ---------------------------------------------------------------- attacks


def test_wallop_blocks_what_got_past_the_enemy_block() -> None:
    g, e = watcher()
    setc(g, e, "e_block", 1)
    gain(g, "Wallop", upgraded=True)
    set_pc(g, "block", 0)
    refresh_decision(g)
    play(g, "Wallop", name(g, e))
    ok(g)
    assert counter(g, e, "life") == 50 - 2 and pc(g, "block") == 2


def test_signature_move_needs_to_be_the_only_attack_in_hand() -> None:
    g, e = watcher()
    gain(g, "Signature Move")
    refresh_decision(g)
    choose(g, 0, "play_card")
    assert "Signature Move" not in g.decision.options[0]  # Strikes and Eruption are in hand
    g2, e2 = watcher()
    empty_hand(g2)
    gain(g2, "Signature Move")
    refresh_decision(g2)
    play(g2, "Signature Move", name(g2, e2))
    ok(g2)
    assert counter(g2, e2, "life") == 50 - 6


def test_swivel_makes_the_next_attack_free() -> None:
    g, e = watcher(energy=4)
    gain(g, "Swivel")
    own_to_hand(g, "Eruption")
    refresh_decision(g)
    play(g, "Swivel")
    assert pc(g, "energy") == 2
    play(g, "Eruption", name(g, e))
    ok(g)
    assert pc(g, "energy") == 2 and pc(g, "free_attacks") == 0


def test_judgment_kills_a_weak_enemy_only() -> None:
    g, e = watcher()
    setc(g, e, "life", 8)
    gain(g, "Judgment")
    refresh_decision(g)
    play(g, "Judgment")
    ok(g)
    assert counter(g, e, "life") == 8 and g.decision is not None and name(g, e) not in g.decision.options[0]
    g2, e2 = watcher()
    setc(g2, e2, "life", 7)
    gain(g2, "Judgment")
    refresh_decision(g2)
    play(g2, "Judgment")
    choose(g2, 0, name(g2, e2))
    assert g2.error is None and counter(g2, e2, "life") == 0 and g2.finished  # the combat is won


# ---------------------------------------------------------------- X cards, Miracles, Powers


def test_worship_and_wreath_of_flame_scale_with_x() -> None:
    g, e = watcher(energy=3)
    gain(g, "Worship", upgraded=True)
    refresh_decision(g)
    play(g, "Worship")
    choose(g, 0, "2")
    assert pc(g, "miracle") == 1 + 3  # Pure Water's Miracle plus X + 1
    gain(g, "Wreath of Flame")
    set_pc(g, "energy", 2)
    refresh_decision(g)
    play(g, "Wreath of Flame")
    choose(g, 0, "2")
    ok(g)
    assert pc(g, "strength") == 2 and pc(g, "temp_strength") == 2
    next_turn(g)
    assert pc(g, "strength") == 0


def test_devotion_gives_a_miracle_each_turn() -> None:
    g, _ = watcher()
    gain(g, "Devotion", "powers")
    give_miracles(g, 0)
    next_turn(g)
    assert pc(g, "miracle") == 1
    next_turn(g)
    assert pc(g, "miracle") == 2


def test_omega_deals_damage_to_a_row_at_the_end_of_the_turn() -> None:
    g, e = watcher()
    gain(g, "Omega", "powers", upgraded=True)
    set_pc(g, "block", 20)
    refresh_decision(g)
    end_turn(g)
    choose(g, 0, "P1")
    settle(g)
    ok(g)
    assert counter(g, e, "life") == 50 - 6


def test_spirit_shield_and_scrawl_count_the_hand() -> None:
    g, _ = watcher()
    gain(g, "Spirit Shield")
    set_pc(g, "block", 0)
    refresh_decision(g)
    play(g, "Spirit Shield")
    assert pc(g, "block") == 5  # the five cards left in hand
    gain(g, "Scrawl")
    refresh_decision(g)
    play(g, "Scrawl")
    ok(g)
    assert len(zone(g, "hand")) == 10  # 5 in hand, the 5 left in the draw pile, then none left to draw


# ---------------------------------------------------------------- cards played from elsewhere


def test_omniscience_plays_a_draw_pile_card_twice_then_exhausts_it() -> None:
    g, e = watcher()
    empty_hand(g)
    stack_draw(g, ["Strike (Watcher)", "Eruption", "Defend (Watcher)"])
    gain(g, "Omniscience")
    refresh_decision(g)
    play(g, "Omniscience")
    # the draw pile is searched in the owner-only zone
    assert g.view(None)["zones"]["scrying"]["P1"] == ["?", "?", "?"]
    choose(g, 0, "Eruption")
    choose(g, 0, name(g, e))
    choose(g, 0, name(g, e))
    ok(g)
    assert counter(g, e, "life") == 50 - 2 - 3  # the second copy hits in Wrath
    assert zone(g, "exhausted") == ["Eruption", "Omniscience"] and stance(g) == "wrath"
    assert pc(g, "energy") == 6 - 3


# ---------------------------------------------------------------- the turn itself


# ---------------------------------------------------------------- random play with many of these cards


def test_random_combats_with_watcher_reward_cards_keep_every_invariant() -> None:
    """Fifteen random Watcher reward cards (half upgraded) on top of the draw pile, then random decisions to the
    end of the combat: no runtime error, every invariant after every step, and the cards really get played."""
    t = RULESET.new_game(1, 0, options={"mode": "combat"}).state.tables
    f = t.fields
    names = sorted({n for c, n in enumerate(t.card_names)
                    if f["class"][c] == "watcher" and f["rarity"][c] != "starter" and not f["ticket"][c]})
    assert len(names) == 60
    played = 0
    for seed in range(20):
        rng = random.Random(seed)
        g = combat("Watcher", seed)
        played += random_combat_with(g, rng.sample(names, 15), rng, seed, shuffle=False)
    assert played >= 50
