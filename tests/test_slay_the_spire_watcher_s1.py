"""The 40 Watcher reward cards once authored from the video game, re-transcribed from S1 (the public implementation
hieu-lee/slay-the-spire-the-boardgame-the-game, src/game/cards.ts at ecb5e10): one scenario per changed mechanism
(issue 22), and a data test pinning each card's cost, keywords and amounts against S1.

Positions are edited as in tests/test_slay_the_spire_faq.py; the helpers come from the Watcher tests.
"""

from __future__ import annotations

from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, choose, player_slot, refresh_decision, zone_index
from tests.sts_setup import RULESET, counter, name, ok, pc, set_pc, setc
from tests.test_slay_the_spire_defect_watcher import gain, own_to_hand, zone
from tests.test_slay_the_spire_faq import combat, foes, play
from tests.test_slay_the_spire_watcher import give_miracles, in_zone, next_turn, set_stance, stance, watcher


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


# ---------------------------------------------------------------- stances, Scry, Retain


def test_indignation_in_wrath_exposes_one_enemy_and_upgraded_a_row() -> None:
    g, a, b = fighting_two()
    gain(g, "Indignation")
    refresh_decision(g)
    play(g, "Indignation")
    ok(g)
    assert stance(g) == "wrath" and counter(g, a, "e_vuln") == 0
    g2, a2, b2 = fighting_two()
    set_stance(g2, "wrath")
    gain(g2, "Indignation")
    refresh_decision(g2)
    play(g2, "Indignation", name(g2, a2))
    ok(g2)
    assert counter(g2, a2, "e_vuln") == 1 and counter(g2, b2, "e_vuln") == 0
    g3, a3, b3 = fighting_two()
    set_stance(g3, "wrath")
    gain(g3, "Indignation", upgraded=True)
    refresh_decision(g3)
    play(g3, "Indignation", "P1")
    ok(g3)
    assert counter(g3, a3, "e_vuln") == 1 and counter(g3, b3, "e_vuln") == 1  # seed 3: both in P1's row


def test_rushdown_draws_once_per_turn_three_upgraded() -> None:
    g, _ = watcher()
    gain(g, "Rushdown", "powers", upgraded=True)
    gain(g, "Crescendo")
    gain(g, "Empty Body")
    own_to_hand(g, "Eruption")
    refresh_decision(g)
    before = len(zone(g, "hand"))
    play(g, "Crescendo")  # Wrath: draw 3
    assert len(zone(g, "hand")) == before - 1 + 3
    play(g, "Empty Body")  # Neutral
    set_pc(g, "energy", 6)
    refresh_decision(g)
    play(g, "Eruption", name(g, foes(g)[0]))  # Wrath again, same turn: no draw
    ok(g)
    assert stance(g) == "wrath" and len(zone(g, "hand")) == before - 1 + 3 - 2


def test_weave_scried_away_is_played_at_once_with_five_more_damage() -> None:
    g, e = watcher()
    weave = gain(g, "Weave", "draw")
    _move(g, weave, zone_index(g, "draw", 0))  # on top
    gain(g, "Third Eye")
    refresh_decision(g)
    play(g, "Third Eye")
    choose(g, 0, "Weave")
    choose(g, 0, "keep the rest")
    choose(g, 0, name(g, e))
    ok(g)
    assert counter(g, e, "life") == 50 - (1 + 5) and in_zone(g, weave, "discard")


def test_sands_windmill_and_perseverance_pay_off_after_a_retained_turn() -> None:
    g, e = watcher()
    sands = gain(g, "Sands of Time")
    mill = gain(g, "Windmill Strike")
    pers = gain(g, "Perseverance")
    next_turn(g)
    assert all(in_zone(g, c, "hand") for c in (sands, mill, pers))
    setc(g, e, "life", 50)
    set_pc(g, "energy", 5)
    set_pc(g, "block", 0)
    refresh_decision(g)
    play(g, "Perseverance")  # 1 + 2 (Retained last turn)
    assert pc(g, "block") == 3
    play(g, "Sands of Time", name(g, e))  # 3 + 2 x 1 other Retain card in hand (Windmill Strike)
    assert counter(g, e, "life") == 50 - 5 and pc(g, "energy") == 5 - 1 - 2
    play(g, "Windmill Strike", name(g, e))  # 2 + 3
    ok(g)
    assert counter(g, e, "life") == 50 - 5 - 5
    assert counter(g, mill, "held") == 0 and counter(g, sands, "held") == 0  # forgotten once out of the hand (§6.5)


def test_establishment_lowers_retained_cards_by_one_not_per_turn() -> None:
    g, _ = watcher()
    gain(g, "Establishment", "powers")
    g.state.counters[player_slot(g, "mods", 0, "establish")] = 1
    protect = gain(g, "Protect")
    next_turn(g)
    next_turn(g)
    assert in_zone(g, protect, "hand") and counter(g, protect, "held") == 2
    set_pc(g, "energy", 1)
    refresh_decision(g)
    play(g, "Protect")  # cost 2 - 1
    choose(g, 0, "P1")
    ok(g)
    assert pc(g, "energy") == 0


def test_meditate_recalls_retains_enters_calm_and_stops_further_plays() -> None:
    g, _ = watcher()
    eruption = card_ids(g, "Eruption")[0]
    _move(g, eruption, zone_index(g, "discard", 0))
    gain(g, "Meditate")
    refresh_decision(g)
    play(g, "Meditate")
    choose(g, 0, "Eruption")
    ok(g)
    assert in_zone(g, eruption, "hand") and stance(g) == "calm"
    assert "play_card" not in options(g) and "end_turn" in options(g)
    next_turn(g)
    assert in_zone(g, eruption, "hand")  # Retained


# ---------------------------------------------------------------- attacks


def test_sash_whip_weakens_in_calm() -> None:
    g, e = watcher()
    gain(g, "Sash Whip", upgraded=True)
    refresh_decision(g)
    play(g, "Sash Whip", name(g, e))
    assert counter(g, e, "e_weak") == 0
    g2, e2 = watcher()
    set_stance(g2, "calm")
    gain(g2, "Sash Whip", upgraded=True)
    refresh_decision(g2)
    play(g2, "Sash Whip", name(g2, e2))
    ok(g2)
    assert counter(g2, e2, "e_weak") == 2 and counter(g2, e2, "life") == 50 - 2


def test_carve_reality_hits_one_enemy_or_two_different_ones() -> None:
    g, a, b = fighting_two()
    gain(g, "Carve Reality", upgraded=True)
    refresh_decision(g)
    play(g, "Carve Reality", "2")
    choose(g, 0, name(g, a))
    assert name(g, a) not in options(g)  # a different enemy for the second hit
    choose(g, 0, name(g, b))
    ok(g)
    assert counter(g, a, "life") == 50 - 4 and counter(g, b, "life") == 50 - 4


def test_reach_heaven_and_brilliance_scale_with_miracles_held() -> None:
    g, e = watcher()
    give_miracles(g, 2)
    gain(g, "Reach Heaven", upgraded=True)
    gain(g, "Brilliance")
    refresh_decision(g)
    play(g, "Reach Heaven", name(g, e))  # 2 + 2 x 2
    assert counter(g, e, "life") == 50 - 6
    play(g, "Brilliance", name(g, e))  # 2 x 2
    ok(g)
    assert counter(g, e, "life") == 50 - 6 - 4 and "Reach Heaven" in zone(g, "discard")


def test_foreign_influence_copies_the_latest_attack_another_player_played_this_turn() -> None:
    g = RULESET.new_game(2, 3, check_invariants=True, options={"mode": "combat"})
    choose(g, 0, "Watcher")
    choose(g, 1, "Ironclad")
    e = foes(g)[0]
    setc(g, e, "life", 50)
    setc(g, e, "e_block", 0)
    setc(g, e, "curled", 1)
    bash = card_ids(g, "Bash")[0]
    _move(g, bash, zone_index(g, "hand", 1))
    fi = gain(g, "Foreign Influence")
    own_to_hand(g, "Defend (Watcher)")
    set_pc(g, "energy", 6)
    refresh_decision(g)
    play(g, "Defend (Watcher)")  # P1 acts first in the free play order
    settle_p2 = g.decision
    assert settle_p2 is not None and 1 in settle_p2.options
    choose(g, 1, "play_card")
    choose(g, 1, "Bash")
    choose(g, 1, name(g, e))
    assert counter(g, e, "life") == 50 - 2
    play(g, "Foreign Influence", "2")
    choose(g, 0, name(g, e))  # the copy of Bash chooses its own target
    ok(g)
    assert counter(g, e, "life") == 50 - 2 - 2 * 2  # Bash's Vulnerable doubles the copy's hit
    assert g.state.card_zone[bash] == zone_index(g, "discard", 1) and in_zone(g, fi, "discard")


# ---------------------------------------------------------------- Miracles, Strength, copies


def test_battle_hymn_deals_damage_doubled_in_wrath_once_per_turn() -> None:
    g, e = watcher()
    gain(g, "Battle Hymn", "powers", upgraded=True)
    set_stance(g, "wrath")
    setc(g, e, "e_vuln", 1)
    refresh_decision(g)
    choose(g, 0, "use_power")
    choose(g, 0, "Battle Hymn")
    choose(g, 0, name(g, e))
    ok(g)
    assert counter(g, e, "life") == 50 - 4  # damage, not a hit: no Vulnerable, no Wrath bonus
    assert "use_power" not in options(g)


def test_conjure_blade_makes_starter_strikes_stronger_for_the_combat() -> None:
    g, e = watcher(energy=2)
    gain(g, "Conjure Blade")
    own_to_hand(g, "Strike (Watcher)")
    refresh_decision(g)
    play(g, "Conjure Blade", "2")
    assert "Conjure Blade" in zone(g, "powers") and pc(g, "strike_extra") == 3
    set_pc(g, "energy", 1)
    refresh_decision(g)
    play(g, "Strike (Watcher)", name(g, e))
    ok(g)
    assert counter(g, e, "life") == 50 - 4


def test_deus_ex_machina_wish_and_worship_give_miracles() -> None:
    g, _ = watcher()
    give_miracles(g, 0)
    gain(g, "Deus Ex Machina", upgraded=True)
    gain(g, "Wish")
    refresh_decision(g)
    play(g, "Deus Ex Machina")
    assert pc(g, "miracle") == 3 and "Deus Ex Machina" in zone(g, "exhausted")
    give_miracles(g, 0)
    play(g, "Wish", "miracles")
    ok(g)
    assert pc(g, "miracle") == 4 and "Wish" in zone(g, "exhausted")
    g2, _ = watcher()
    set_pc(g2, "block", 0)
    gain(g2, "Wish", upgraded=True)
    refresh_decision(g2)
    play(g2, "Wish", "plated")
    ok(g2)
    assert pc(g2, "block") == 15


def test_devotion_gives_a_miracle_and_a_card_then_exhausts_at_the_third_cube() -> None:
    g, _ = watcher()
    devotion = gain(g, "Devotion", "powers")
    give_miracles(g, 0)
    for turn in (1, 2, 3):
        next_turn(g)
        assert pc(g, "miracle") == turn and len(zone(g, "hand")) == 6
    assert in_zone(g, devotion, "exhausted")
    next_turn(g)
    assert pc(g, "miracle") == 3


def test_blasphemy_triples_the_next_attack_and_exhausts_the_draw_pile() -> None:
    g, e = watcher()
    gain(g, "Blasphemy")
    own_to_hand(g, "Strike (Watcher)")
    refresh_decision(g)
    drawn = len(zone(g, "draw"))
    play(g, "Blasphemy")
    assert zone(g, "draw") == [] and len(zone(g, "exhausted")) == drawn + 1
    play(g, "Strike (Watcher)", name(g, e))
    choose(g, 0, name(g, e))
    choose(g, 0, name(g, e))
    ok(g)
    assert counter(g, e, "life") == 50 - 3 and pc(g, "hp") > 0


def test_swivel_discount_lasts_this_turn_only() -> None:
    g, _ = watcher(energy=4)
    gain(g, "Swivel")
    refresh_decision(g)
    play(g, "Swivel")
    assert pc(g, "free_attacks") == 1
    next_turn(g)
    assert pc(g, "free_attacks") == 0


# ---------------------------------------------------------------- the 40 cards against S1, as data

# From S1 src/game/cards.ts at ecb5e10 (read by hand, card by card): cost, cost once upgraded (-2: unchanged; -1 is
# X), Exhaust ("true", "not up": only the plain card), keywords, and the numbers the card's text states, in order
# (plain, then upgraded), which the scenarios above check in play.
S1_WATCHER: dict[str, tuple[int, int, str, set[str], list[int]]] = {
    "Battle Hymn": (1, -2, "false", set(), [1, 2, 2, 4]),
    "Carve Reality": (2, -2, "false", set(), [3, 3, 4]),
    "Conclude": (1, -2, "false", set(), [1]),
    "Foreign Influence": (2, -2, "false", set(), [3, 4]),
    "Foresight": (1, -2, "false", set(), [3, 4]),
    "Indignation": (1, -2, "false", set(), [1]),
    "Inner Peace": (1, -2, "false", set(), [3, 4]),
    "Meditate": (1, -2, "false", set(), [1, 2]),
    "Mental Fortress": (1, -2, "false", set(), [1, 2]),
    "Nirvana": (1, -2, "false", set(), [1, 2]),
    "Perseverance": (1, -2, "false", {'retain'}, [1, 2, 2]),
    "Reach Heaven": (1, -2, "false", set(), [2, 1, 2]),
    "Rushdown": (1, -2, "false", set(), [2, 3]),
    "Sands of Time": (2, -2, "false", {'retain'}, [3, 2, 3]),
    "Sash Whip": (1, -2, "false", set(), [2, 1, 2]),
    "Signature Move": (2, -2, "false", set(), [6, 8]),
    "Study": (2, 1, "false", set(), [2, 1]),
    "Swivel": (2, -2, "false", set(), [2, 3, 0]),
    "Talk to the Hand": (1, -2, "false", set(), [2, 3, 1]),
    "Tantrum": (1, -2, "false", {'to_draw_top'}, [2, 1]),
    "Wallop": (2, -2, "false", set(), [2, 3]),
    "Weave": (0, -2, "false", set(), [1, 2, 5, 6]),
    "Windmill Strike": (2, -2, "false", {'retain'}, [2, 5, 7]),
    "Worship": (-1, -2, "true", {'retain_up'}, [1]),
    "Wreath of Flame": (-1, -2, "not up", set(), []),
    "Ragnarok": (3, -2, "false", set(), [1]),
    "Blasphemy": (2, -2, "true", {'retain_up'}, []),
    "Brilliance": (1, -2, "false", set(), [2, 3]),
    "Conjure Blade": (-1, -2, "false", set(), [1, 2]),
    "Deus Ex Machina": (0, -2, "true", set(), [2, 3]),
    "Deva Form": (2, -2, "false", set(), [1, 2]),
    "Devotion": (1, -2, "false", set(), [1, 1, 3, 4]),
    "Establishment": (1, -2, "false", set(), [1, 2]),
    "Judgment": (1, -2, "false", {'ethereal', 'ethereal_lost_up', 'retain_up'}, [7, 8]),
    "Omega": (3, -2, "false", set(), [5, 6]),
    "Omniscience": (3, 2, "true", set(), [2]),
    "Scrawl": (1, 0, "true", set(), [5, 0]),
    "Spirit Shield": (2, -2, "not up", set(), [1]),
    "Vault": (3, 2, "true", set(), [5, 3, 2]),
    "Wish": (3, -2, "true", set(), [1, 10, 4, 2, 15, 5]),
}


def test_the_forty_watcher_cards_match_s1() -> None:
    import re
    from pathlib import Path

    import yaml

    path = Path(__file__).resolve().parents[1] / "cards" / "slay_the_spire" / "rewards_watcher.yaml"
    cards = {c["name"]: c for c in yaml.safe_load(path.read_text())["cards"]}
    assert len(S1_WATCHER) == 40 and set(S1_WATCHER) <= set(cards)
    flags = ("ethereal", "ethereal_lost_up", "retain", "retain_up", "to_draw_top")
    for card_name, (cost, cost_up, exhausts, keywords, numbers) in S1_WATCHER.items():
        c = cards[card_name]
        got = (c.get("cost", 1), c.get("cost_up", -2), c.get("exhausts", "false"), {k for k in flags if c.get(k)},
               [int(x) for x in re.findall(r"\d+", c["text"])])
        assert got == (cost, cost_up, exhausts, keywords, numbers), card_name
        assert c["source"].startswith("S1csv; S1 cards.ts at ecb5e10"), card_name
    assert not any(c.get("provisional") for c in cards.values())  # none needs our own reading of S1
