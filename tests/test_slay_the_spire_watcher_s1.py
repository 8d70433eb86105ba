"""The 40 Watcher reward cards once authored from the video game, re-transcribed from S1 (the public implementation
hieu-lee/slay-the-spire-the-boardgame-the-game, src/game/cards.ts at ecb5e10): one scenario per changed mechanism
(issue 22), and a data test pinning each card's cost, keywords and amounts against S1.

Positions are edited as in tests/test_slay_the_spire_faq.py; the helpers come from the Watcher tests.
"""

from __future__ import annotations

from liturgy.interpreter.engine import Game

from tests.scenario import _move, choose, refresh_decision, zone_index
from tests.test_slay_the_spire_defect_watcher import gain, ok, zone
from tests.test_slay_the_spire_faq import combat, counter, foes, name, pc, play, set_pc, setc
from tests.test_slay_the_spire_watcher import give_miracles, in_zone, next_turn, watcher


def two_enemies(g: Game) -> tuple[int, int]:
    """Keep the first two enemies of the seed's encounter (seed 3: three Gremlins) at 50 HP, no Block."""
    first, second, *rest = foes(g)
    for c in rest:
        _move(g, c, zone_index(g, "summon_box"))
    for c in (first, second):
        setc(g, c, "life", 50)
        setc(g, c, "e_block", 0)
        setc(g, c, "curled", 1)
    return first, second


def fighting_two(energy: int = 6) -> tuple[Game, int, int]:
    g = combat("Watcher")
    a, b = two_enemies(g)
    set_pc(g, "energy", energy)
    return g, a, b


def options(g: Game) -> list[str]:
    assert g.decision is not None
    return list(g.decision.options[0])


# ---------------------------------------------------------------- hits at chosen enemies (S1 hitChoices)


def test_ragnarok_aims_each_of_five_hits_and_vulnerable_counts_once_per_enemy() -> None:
    g, a, b = fighting_two()
    setc(g, a, "e_vuln", 1)
    gain(g, "Ragnarok")
    refresh_decision(g)
    play(g, "Ragnarok")
    for target in (a, b, a, a, b):
        choose(g, 0, name(g, target))
    ok(g)
    # three hits of 1 at the Vulnerable enemy, each doubled; its one Vulnerable is used once, after all three
    assert counter(g, a, "life") == 50 - 6 and counter(g, a, "e_vuln") == 0
    assert counter(g, b, "life") == 50 - 2
    assert pc(g, "energy") == 6 - 3


def test_ragnarok_upgraded_hits_six_times() -> None:
    g, a, b = fighting_two()
    gain(g, "Ragnarok", upgraded=True)
    refresh_decision(g)
    play(g, "Ragnarok")
    for _ in range(6):
        choose(g, 0, name(g, b))
    ok(g)
    assert counter(g, b, "life") == 50 - 6 and counter(g, a, "life") == 50


def test_tantrum_hits_2_and_upgraded_aims_two_hits_of_1() -> None:
    g, a, b = fighting_two()
    gain(g, "Tantrum")
    refresh_decision(g)
    play(g, "Tantrum", name(g, a))
    ok(g)
    assert counter(g, a, "life") == 50 - 2
    g2, a2, b2 = fighting_two()
    gain(g2, "Tantrum", upgraded=True)
    refresh_decision(g2)
    play(g2, "Tantrum")
    choose(g2, 0, name(g2, a2))
    choose(g2, 0, name(g2, b2))
    ok(g2)
    # Wrath is entered after the hits; the card goes on top of the draw pile
    assert counter(g2, a2, "life") == 50 - 1 and counter(g2, b2, "life") == 50 - 1
    assert zone(g2, "draw")[-1] == "Tantrum"


# ---------------------------------------------------------------- cards that stop further plays or refill the hand


def test_conclude_hits_a_row_twice_and_then_no_card_can_be_played() -> None:
    g, e = watcher()
    gain(g, "Conclude", upgraded=True)
    refresh_decision(g)
    play(g, "Conclude")
    choose(g, 0, "P1")
    ok(g)
    assert counter(g, e, "life") == 50 - 3
    # the turn goes on (a Miracle or a potion may still be used) but no card may be played
    assert "play_card" not in options(g) and "end_turn" in options(g)
    next_turn(g)
    assert "play_card" in options(g)


def test_vault_discards_what_is_not_retained_draws_five_and_gains_three_energy() -> None:
    g, _ = watcher(energy=3)
    vault = gain(g, "Vault")
    kept = gain(g, "Flying Sleeves")  # Retain
    hand_before = [c for c in g.state.zones[zone_index(g, "hand", 0)] if c not in (vault, kept)]
    refresh_decision(g)
    play(g, "Vault")
    ok(g)
    assert in_zone(g, vault, "exhausted") and in_zone(g, kept, "hand")
    assert all(in_zone(g, c, "discard") for c in hand_before)
    assert len(zone(g, "hand")) == 1 + 5 and pc(g, "energy") == 3 - 3 + 3
    assert "end_turn" in options(g)  # the same turn goes on


def test_vault_upgraded_costs_two() -> None:
    g, _ = watcher(energy=2)
    gain(g, "Vault", upgraded=True)
    refresh_decision(g)
    play(g, "Vault")
    ok(g)
    assert pc(g, "energy") == 3


# ---------------------------------------------------------------- Miracles


def test_talk_to_the_hand_hits_and_blocks_one_per_miracle_held() -> None:
    g, e = watcher()
    gain(g, "Talk to the Hand", upgraded=True)
    give_miracles(g, 3)
    set_pc(g, "block", 0)
    refresh_decision(g)
    play(g, "Talk to the Hand", name(g, e))
    ok(g)
    assert counter(g, e, "life") == 50 - 3 and pc(g, "block") == 3 and pc(g, "miracle") == 3
    assert "Talk to the Hand" in zone(g, "discard")  # no Exhaust in S1


def test_deva_form_gives_one_miracle_each_turn_two_upgraded() -> None:
    g, _ = watcher()
    gain(g, "Deva Form", "powers", upgraded=True)
    give_miracles(g, 0)
    next_turn(g)
    assert pc(g, "miracle") == 2
    next_turn(g)
    assert pc(g, "miracle") == 4  # no growth: 2 each turn


# ---------------------------------------------------------------- Judgment


def test_judgment_kills_an_enemy_at_seven_hp_and_is_ethereal_until_upgraded() -> None:
    g, a, b = fighting_two()
    setc(g, a, "life", 7)
    setc(g, b, "life", 8)
    gain(g, "Judgment")
    refresh_decision(g)
    play(g, "Judgment")
    assert g.decision is not None and name(g, b) not in options(g)  # 8 HP is too many
    choose(g, 0, name(g, a))
    ok(g)
    assert counter(g, a, "life") == 0 and counter(g, b, "life") == 8
    g2, _ = watcher()
    plain = gain(g2, "Judgment")
    next_turn(g2)
    assert in_zone(g2, plain, "exhausted")  # Ethereal
    g3, e3 = watcher()
    setc(g3, e3, "life", 8)
    up = gain(g3, "Judgment", upgraded=True)
    next_turn(g3)
    assert in_zone(g3, up, "hand")  # upgraded: Retain, not Ethereal
    set_pc(g3, "energy", 3)
    refresh_decision(g3)
    play(g3, "Judgment")
    choose(g3, 0, name(g3, e3))
    assert g3.error is None and counter(g3, e3, "life") == 0
