"""Defect and Watcher reward cards, and the general mechanisms they use: Scry (§20), copies (§19), orbs, stances.

Positions are set up the way tests/test_slay_the_spire_faq.py does: a one-player combat, edited at the first play
decision, then played through the ruleset's own decisions.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, card_slot, choose, global_slot, player_slot, refresh_decision, zone_index
from tests.sts_setup import counter, name, pc, set_pc, setc
from tests.test_slay_the_spire_faq import combat, end_turn, idle_enemy, only_enemy, play

CARDS = Path(__file__).resolve().parents[1] / "cards" / "slay_the_spire"


def card_names(file: str) -> list[str]:
    return [c["name"] for c in yaml.safe_load((CARDS / file).read_text())["cards"]]


def zone(g: Game, z: str) -> list[str]:
    return [name(g, c) for c in g.state.zones[zone_index(g, z, 0)]]


def gain(g: Game, card: str, where: str = "hand", upgraded: bool = False) -> int:
    """Give P1 a reward card (not owned yet) in zone `where`."""
    s = g.state
    dst = zone_index(g, where, 0)
    cid = next(c for c in card_ids(g, card) if s.card_zone[c] != dst)
    _move(g, cid, dst)
    set_pc(g, "owned", pc(g, "owned") + 1)
    if upgraded:
        s.counters[card_slot(g, cid, "upgraded")] = True
    return cid


def set_orbs(g: Game, lightning: int = 0, frost: int = 0, dark: int = 0) -> None:
    for orb, n in (("lightning", lightning), ("frost", frost), ("dark", dark)):
        g.state.counters[player_slot(g, "orbs", 0, orb)] = n


def orbs(g: Game, orb: str) -> int:
    return int(g.state.counters[player_slot(g, "orbs", 0, orb)])


def ok(g: Game) -> None:
    assert g.error is None, g.error
    assert not g.violations(), g.violations()


def settle(g: Game) -> None:
    """Take the first option at every choice until P1 is back at the action menu (or the game ends)."""
    while g.decision is not None and "end_turn" not in g.decision.options.get(0, ()):
        g.apply(0, 0)


def own_to_hand(g: Game, card: str) -> None:
    """Make sure one of P1's own copies of `card` is in hand."""
    hand = zone_index(g, "hand", 0)
    if not any(g.state.card_zone[c] == hand for c in card_ids(g, card)):
        _move(g, card_ids(g, card)[0], hand)


def stack_draw(g: Game, names: list[str]) -> None:
    """Make P1's draw pile exactly `names`, top first; the cards it held go to the discard pile. Cards are taken
    from the discard pile, else from the hand (the opening hand depends on the seed)."""
    s = g.state
    draw, discard, hand = zone_index(g, "draw", 0), zone_index(g, "discard", 0), zone_index(g, "hand", 0)
    for c in list(s.zones[draw]):
        _move(g, c, discard)
    for n in reversed(names):
        ids = card_ids(g, n)
        cid = next((c for c in ids if s.card_zone[c] == discard), None)
        if cid is None:
            cid = next(c for c in ids if s.card_zone[c] == hand)
        _move(g, cid, draw)


# ---------------------------------------------------------------- every card plays


@pytest.mark.parametrize(("hero", "file"), [("Defect", "rewards_defect.yaml"), ("Watcher", "rewards_watcher.yaml")])
def test_every_reward_card_plays_plain_and_upgraded(hero: str, file: str) -> None:
    """Each card resolves from a full-energy hand, with orbs in play, taking the first option at every choice."""
    for card in card_names(file):
        for up in (False, True):
            g = combat(hero)
            only_enemy(g)
            if hero == "Defect":
                set_orbs(g, lightning=1, frost=1)
            if card == "Signature Move":  # playable only as the hand's one Attack
                for c in list(g.state.zones[zone_index(g, "hand", 0)]):
                    _move(g, c, zone_index(g, "discard", 0))
            cid = gain(g, card, upgraded=up)
            set_pc(g, "energy", 6)
            refresh_decision(g)
            if g.state.tables.fields["unplayable"][cid]:  # Deus Ex Machina acts when drawn (tested elsewhere)
                assert g.decision is not None and card not in g.decision.options[0]
                continue
            choose(g, 0, "play_card")
            choose(g, 0, card)
            settle(g)
            ok(g)
            s = g.state
            assert s.card_zone[cid] != zone_index(g, "hand", 0) or card in ("Seek",), card


# ---------------------------------------------------------------- Scry (§20)


def test_scry_discards_chosen_cards_and_keeps_the_rest_in_order() -> None:
    g = combat("Watcher")
    only_enemy(g)
    stack_draw(g, ["Strike (Watcher)", "Defend (Watcher)", "Strike (Watcher)", "Defend (Watcher)"])
    gain(g, "Third Eye")
    refresh_decision(g)
    play(g, "Third Eye")
    # the three cards wait in the owner-only zone: P1 sees them, a spectator does not
    assert g.view(0)["zones"]["scrying"]["P1"] == ["Strike (Watcher)", "Defend (Watcher)", "Strike (Watcher)"]
    assert g.view(None)["zones"]["scrying"]["P1"] == ["?", "?", "?"]
    assert g.decision is not None and g.decision.options[0][-1] == "keep the rest"
    choose(g, 0, "Defend (Watcher)")
    choose(g, 0, "keep the rest")
    ok(g)
    assert zone(g, "draw")[::-1] == ["Strike (Watcher)", "Strike (Watcher)", "Defend (Watcher)"]
    assert zone(g, "discard")[-2:] == ["Defend (Watcher)", "Third Eye"]
    assert pc(g, "block") == 2


def test_scry_never_reshuffles_and_looks_at_most_at_the_draw_pile() -> None:
    g = combat("Watcher")
    only_enemy(g)
    stack_draw(g, ["Strike (Watcher)"])
    gain(g, "Third Eye")
    refresh_decision(g)
    play(g, "Third Eye")
    assert g.decision is not None and g.decision.options[0] == ("Strike (Watcher)", "keep the rest")
    choose(g, 0, "Strike (Watcher)")
    ok(g)  # the draw pile is now empty: the loop ends without asking again and nothing is reshuffled
    assert zone(g, "draw") == [] and len(zone(g, "discard")) > 1


def test_just_lucky_scries_on_a_low_die_and_blocks_on_a_high_one() -> None:
    for die, scries in ((2, True), (5, False)):
        g = combat("Watcher")
        e = only_enemy(g)
        g.state.counters[global_slot(g, "die_result")] = die
        gain(g, "Just Lucky")
        refresh_decision(g)
        play(g, "Just Lucky", name(g, e))
        asked = g.decision is not None and "keep the rest" in g.decision.options[0]
        assert asked == scries and pc(g, "block") == (0 if scries else 1)


# ---------------------------------------------------------------- copies (§19)


def test_echo_form_plays_the_next_attack_twice_for_one_cost() -> None:
    g = combat("Defect")
    e = idle_enemy(g)  # idle in the coming enemy turn, so P1 always lives to play the Attack
    echo = gain(g, "Echo Form", "powers")
    set_pc(g, "energy", 3)
    refresh_decision(g)
    end_turn(g)
    settle(g)
    assert not g.finished
    assert pc(g, "replay_any") == 1 and g.state.card_zone[echo] == zone_index(g, "powers", 0)
    gain(g, "Cold Snap")
    setc(g, e, "life", 50)
    setc(g, e, "e_block", 0)
    set_pc(g, "energy", 3)
    set_orbs(g)
    refresh_decision(g)
    play(g, "Cold Snap", name(g, e))  # the copy: its own target
    choose(g, 0, name(g, e))  # the original
    ok(g)
    assert counter(g, e, "life") == 50 - 4
    assert pc(g, "energy") == 1 and orbs(g, "frost") == 2 and pc(g, "replay_any") == 0
    assert pc(g, "cards_played") == 2


def test_a_copy_waits_for_an_eligible_card_and_only_one_applies() -> None:
    """A pending Attack copy skips Skills; two pending effects give two cards one copy each (§19)."""
    g = combat("Defect")
    e = only_enemy(g)
    g.state.counters[player_slot(g, "replay", 0, "attack")] = 2
    gain(g, "Skim")
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Skim")
    assert g.state.counters[player_slot(g, "replay", 0, "attack")] == 2
    own_to_hand(g, "Strike (Defect)")
    refresh_decision(g)
    play(g, "Strike (Defect)", name(g, e))
    choose(g, 0, name(g, e))
    ok(g)
    assert counter(g, e, "life") == 48 and g.state.counters[player_slot(g, "replay", 0, "attack")] == 1


# ---------------------------------------------------------------- Defect cards


def test_barrage_hits_once_per_orb() -> None:
    g = combat("Defect")
    e = only_enemy(g)
    set_orbs(g, lightning=1, frost=1, dark=1)
    gain(g, "Barrage")
    refresh_decision(g)
    play(g, "Barrage", name(g, e))
    assert counter(g, e, "life") == 47


def test_force_field_costs_one_less_per_power_in_play() -> None:
    g = combat("Defect")
    only_enemy(g)
    gain(g, "Storm", "powers")
    gain(g, "Capacitor", "powers")
    gain(g, "Force Field")
    set_pc(g, "energy", 1)
    refresh_decision(g)
    play(g, "Force Field")
    assert pc(g, "energy") == 0 and pc(g, "block") == 3


def test_dark_orb_with_consume_deals_two_more() -> None:
    """FAQ §24.2: Consume raises Dark orb damage by 2, 1 from its text and 1 as a Power in play."""
    g = combat("Defect")
    e = only_enemy(g)
    set_orbs(g, dark=1)
    gain(g, "Consume")
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Consume")
    own_to_hand(g, "Dualcast")
    refresh_decision(g)
    play(g, "Dualcast", "dark")
    choose(g, 0, name(g, e))
    choose(g, 0, name(g, e))
    ok(g)
    assert counter(g, e, "life") == 50 - 2 * (3 + 1 + 1)


def test_claw_gains_its_bonus_when_the_discard_top_costs_zero() -> None:
    g = combat("Defect")
    e = only_enemy(g)
    gain(g, "Go for the Eyes", "discard")
    gain(g, "Claw", upgraded=True)
    refresh_decision(g)
    play(g, "Claw", name(g, e))
    assert counter(g, e, "life") == 50 - 4


def test_sunder_refunds_energy_only_on_a_kill() -> None:
    for life, energy in ((5, 3), (9, 0)):
        g = combat("Defect")
        e = only_enemy(g, life=life)
        setc(g, e, "e_block", 0)
        gain(g, "Sunder")
        set_pc(g, "energy", 3)
        refresh_decision(g)
        play(g, "Sunder", name(g, e))
        assert pc(g, "energy") == energy


def test_capacitor_slots_last_for_the_combat_only() -> None:
    g = combat("Defect")
    e = only_enemy(g, life=1)
    setc(g, e, "e_block", 0)
    gain(g, "Capacitor")
    refresh_decision(g)
    play(g, "Capacitor")
    assert pc(g, "orb_slots") == 5
    own_to_hand(g, "Strike (Defect)")
    refresh_decision(g)
    play(g, "Strike (Defect)", name(g, e))
    ok(g)
    assert g.finished and pc(g, "orb_slots") == 3


# ---------------------------------------------------------------- Watcher cards


def test_flurry_of_blows_hits_again_after_a_stance_change() -> None:
    g = combat("Watcher")
    e = only_enemy(g)
    gain(g, "Flurry of Blows")
    gain(g, "Empty Body")
    g.state.counters[player_slot(g, "in_stance", 0, "calm")] = True
    g.state.counters[player_slot(g, "in_stance", 0, "neutral")] = False
    refresh_decision(g)
    play(g, "Empty Body")  # Calm -> Neutral: +2 energy
    assert pc(g, "energy") == 3 - 1 + 2
    play(g, "Flurry of Blows", name(g, e))
    assert counter(g, e, "life") == 48


def test_pray_stops_further_draws_this_turn() -> None:
    g = combat("Watcher")
    only_enemy(g)
    gain(g, "Pray")
    gain(g, "Empty Mind")
    set_pc(g, "energy", 3)
    refresh_decision(g)
    before, miracles = len(zone(g, "hand")), pc(g, "miracle")
    play(g, "Pray")
    assert len(zone(g, "hand")) == before - 1 + 2 and pc(g, "miracle") == miracles + 1
    play(g, "Empty Mind")
    assert len(zone(g, "hand")) == before  # Empty Mind draws nothing
    ok(g)


def test_equilibrium_retains_a_chosen_card() -> None:
    g = combat("Defect")
    idle_enemy(g)  # idle in the coming enemy turn, so P1 always lives to see the retained card
    gain(g, "Equilibrium")
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Equilibrium")
    kept = zone(g, "hand")[0]
    set_orbs(g)
    end_turn(g)
    assert g.decision is not None and "pass" in g.decision.options[0]
    choose(g, 0, kept)
    ok(g)
    assert not g.finished
    assert kept in zone(g, "hand")
