"""Slay the Spire rule cases (spec §15.2 worked examples, §22.2, and every FAQ row of §24) played on the real ruleset.

Each test starts a combat (`mode=combat`; a run for the transform row), edits the position at the first play
decision (the same way tests/scenario.py edits Bloodborne positions), then plays it through the ruleset's own
decisions and checks the ruling.

FAQ coverage: every row of spec §24, the ruling, and the tests that set up the exact situation and check it.
`test_faq_table_names_real_tests` checks that every test named here exists. A bare name is in this file;
`additions::`, `watcher::`, `watcher_s1::`, `defect_watcher::` name tests/test_slay_the_spire_<that>.py. [fix]
marks a row where the ruleset got the ruling wrong and was corrected (in the ruleset or card data, no Python).

- 24.1 Hand limit? None.
    test_no_hand_limit, test_drawing_into_a_big_hand_discards_nothing
- 24.1 Can Block prevent "lose X HP"? No: Block stops damage only.
    test_block_stops_damage_but_not_hp_loss, test_poison_is_hp_loss_that_block_does_not_stop_and_it_stays
- 24.1 Tokens run out? Gains and applies are ignored; a shiv can be thrown at once.
    test_a_gain_beyond_the_poison_supply_does_nothing,
    test_strength_beyond_the_supply_is_ignored_and_shivs_are_thrown_at_once
    (gold is not a finite token supply in our model, a counter 0..999: not tested)
- 24.1 Cards have no memory; self-cost-modifying cards keep it in the discard pile ("Optimization" costs 0 with
  2 Powers). "Optimization" is Streamline (cost 2, 1 less per Power in play: `power_discount`).
    test_optimization_streamline_costs_zero_in_hand_with_two_powers,
    test_optimization_streamline_counts_as_zero_cost_in_the_discard_pile,
    watcher_s1::test_sands_windmill_and_perseverance_pay_off_after_a_retained_turn
- 24.1 "Starter Strike" / "contains Strike" (§6.6).
    test_perfected_strike_counts_every_card_containing_strike_starter_strikes_too
    [fix: the four starter Strikes, Meteor Strike and Thunder Strike were not marked `named_strike`]
- 24.1 Transforming a colorless card adds the top card of your Card Rewards deck.
    test_transforming_another_characters_card_adds_your_own_card_reward
    (there are no colorless cards in our data; §23 rules the same for another character's card, tested here)
- 24.1 Weak, Vulnerable and Poison are not removed at end of round.
    test_weak_vulnerable_and_poison_stay_through_the_end_of_the_round,
    test_poison_is_hp_loss_that_block_does_not_stop_and_it_stays
- 24.1 Summons do not flee when their summoner dies.
    test_summons_do_not_flee_when_their_summoner_dies
- 24.2 Buffer vs multi-hit: each hit's HP loss separately.
    additions::test_buffer_prevents_hp_loss_per_hit_then_exhausts,
    additions::test_buffer_with_one_use_stops_only_the_first_hit
- 24.2 "Play" effects on cards that cannot be played now (Clash, Grand Finale, Tactician): ignore the play,
  discard the card. Havoc and Distilled Chaos are the play effects (Mayhem is colorless, not in our data).
    test_havoc_discards_clash_when_it_cannot_be_played_and_plays_it_when_it_can,
    test_havoc_discards_grand_finale_from_the_draw_pile, test_havoc_discards_tactician_without_its_discard_reward,
    additions::test_havoc_exhausts_a_daze_and_discards_an_unplayable_card,
    test_distilled_chaos_discards_what_cannot_be_played_and_exhausts_a_daze
- 24.2 Corpse Explosion played twice: the on-death effect once.
    additions::test_corpse_explosion_blasts_the_row_once_when_the_enemy_dies
- 24.2 Dark Embrace + Ethereal: the exhausted Ethereal card draws a card, which skips this turn's end-of-turn
  effects, its Ethereal and the discard.
    test_dark_embrace_draws_for_an_exhausted_ethereal_card_and_the_drawn_card_stays
    [fix: the drawn card was discarded at the end of the turn]
- 24.2 Dark orbs + Consume / Amplify: +1 from Consume's text and +1 as a Power in play; nothing more.
    defect_watcher::test_dark_orb_with_consume_deals_two_more, test_dark_orb_with_amplify_and_consume
- 24.2 Gambling Chip, Abacus, Toolbox during events: allowed ("once per room" effects work in events). Our events
  are authored; Wheel of Change (authored from the video game's) rolls the die, and the die relics may change it.
    test_once_per_room_die_relics_change_an_events_die_and_are_ready_again_afterwards
    [added: the authored die event, and once-per-room relics used in an event turn face up for the next room]
- 24.2 A Daze played by Havoc, Mayhem or Distilled Chaos is exhausted.
    additions::test_havoc_exhausts_a_daze_and_discards_an_unplayable_card,
    test_distilled_chaos_discards_what_cannot_be_played_and_exhausts_a_daze
- 24.2 Snecko's cost overrides other cost changes (Snecko Eye's Snecko is authored: next card costs a random 0-3).
    test_snecko_cost_overrides_every_other_cost_change, test_snecko_cost_overrides_a_free_attack
    [fix: Swivel's free Attack beat Snecko's cost]
- 24.2 Tantrum + Rushdown: Tantrum goes on the draw pile first, then Rushdown draws it.
    watcher::test_tantrum_goes_on_the_draw_pile_before_rushdown_draws_it
- 24.2 Wrist Blade with cards costing 0: yes; a copy only if the original cost 0.
    test_wrist_blade_counts_attacks_that_cost_zero_for_now,
    test_wrist_blade_counts_a_copy_only_when_the_original_cost_zero
    [fix: an Attack made free by Swivel got no Wrist Blade bonus]
- 24.2 Moving to an empty row in an Act IV elite combat: allowed. The mid-combat row change that exists (Leap,
  Dash: "you may switch rows with another player") into an empty row, in a combat and against Spire Shield and Spire
  Spear (three players, the middle row empty).
    test_switching_into_an_empty_row_is_allowed,
    act4::test_moving_into_an_empty_row_in_the_act_iv_elite_combat_is_allowed
"""

from __future__ import annotations

from pathlib import Path

import pytest
from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, card_slot, choose, global_slot, player_slot, refresh_decision, zone_index
from tests.sts_setup import RULESET, counter, name, pc, set_pc, setc, started, to_first_play


def combat(hero: str, seed: int = 3) -> Game:
    g = started(1, seed, (hero,), mode="combat")
    assert g.decision is not None and "end_turn" in g.decision.options[0]
    return g


def foes(g: Game) -> list[int]:
    s = g.state
    return [c for c in s.zones[zone_index(g, "foes")] if s.counters[card_slot(g, c, "life")] > 0]


def only_enemy(g: Game, life: int = 50) -> int:
    """Keep one living enemy (the others leave to the summon box) with `life` HP, no Block and its Curl Up (a
    Louse's) already spent, so damage reads plainly whichever encounter the seed draws."""
    first, *rest = foes(g)
    for c in rest:
        _move(g, c, zone_index(g, "summon_box"))
    setc(g, first, "life", life)
    setc(g, first, "e_block", 0)
    setc(g, first, "curled", 1)
    return first


def to_hand(g: Game, name: str, gained: bool = False) -> int:
    """Put P1's card `name` into the hand; `gained` for a reward card not yet owned.

    A copy already in the hand is used when the seed dealt every copy there (a starter such as Bash).
    """
    s = g.state
    hand = zone_index(g, "hand", 0)
    ids = card_ids(g, name)
    if not gained and all(s.card_zone[c] == hand for c in ids):
        return ids[0]
    cid = next(c for c in ids if s.card_zone[c] != hand)
    _move(g, cid, hand)
    if gained:
        set_pc(g, "owned", pc(g, "owned") + 1)
    return cid


def play(g: Game, card: str, target: str | None = None) -> None:
    choose(g, 0, "play_card")
    choose(g, 0, card)
    if target is not None:
        choose(g, 0, target)


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


# ---------------------------------------------------------------- §24 FAQ: the remaining rows
# Helpers for the rows below: a chosen enemy alone in P1's row, cards put exactly where a case needs them.


def lone(g: Game, enemy: str, life: int = 50) -> int:
    """Make `enemy` (an enemy card name) the only enemy, in P1's row, with `life` HP and no Block."""
    for c in foes(g):
        _move(g, c, zone_index(g, "summon_box"))
    cid = card_ids(g, enemy)[0]
    _move(g, cid, zone_index(g, "foes"))
    setc(g, cid, "lane", 0)
    setc(g, cid, "life", life)
    setc(g, cid, "marker", 0)
    setc(g, cid, "e_block", 0)
    return cid


def idle_enemy(g: Game) -> int:
    """A Gremlin Wizard at the start of its track: it does nothing in the coming enemy turn."""
    return lone(g, "Gremlin Wizard", 50)


def cards_in(g: Game, z: str, player: int = 0) -> list[str]:
    return [name(g, c) for c in g.state.zones[zone_index(g, z, player)]]


def give(g: Game, card: str, where: str = "hand", top: bool = False, upgraded: bool = False, player: int = 0) -> int:
    """Give a player a card they do not own yet (a reward, a curse or a Daze), in zone `where`."""
    s = g.state
    dst = zone_index(g, where, player)
    cid = next(c for c in card_ids(g, card) if s.card_zone[c] != dst and c not in owned_ids(g, player))
    _move(g, cid, dst, "top" if top else "")
    s.counters[player_slot(g, "owned", player)] += 1
    if upgraded:
        s.counters[card_slot(g, cid, "upgraded")] = 1
    return cid


def owned_ids(g: Game, player: int) -> set[int]:
    s = g.state
    zs = {zone_index(g, z, player) for z in ("deck", "draw", "hand", "in_play", "discard", "exhausted", "powers")}
    return {c for c, z in enumerate(s.card_zone) if z in zs}


def empty_hand(g: Game) -> None:
    """Move P1's hand to the discard pile (the opening hand depends on the seed)."""
    for c in list(g.state.zones[zone_index(g, "hand", 0)]):
        _move(g, c, zone_index(g, "discard", 0))


def first_round_over(g: Game) -> int:
    return int(g.state.counters[global_slot(g, "combat_round")])


# §24.1 "Is there a hand limit? No."


def test_drawing_into_a_big_hand_discards_nothing() -> None:
    """With 11 cards in hand, Backflip draws 2 more: 12 cards, none discarded, every affordable one offered."""
    g = combat("Silent")
    idle_enemy(g)
    s = g.state
    draw, hand = zone_index(g, "draw", 0), zone_index(g, "hand", 0)
    for c in list(s.zones[draw])[2:]:
        _move(g, c, hand)
    give(g, "Backflip")
    discard_before = cards_in(g, "discard")
    held = len(cards_in(g, "hand"))
    refresh_decision(g)
    play(g, "Backflip")
    assert len(cards_in(g, "hand")) == held - 1 + 2
    assert cards_in(g, "discard") == [*discard_before, "Backflip"]
    choose(g, 0, "play_card")
    d = g.decision
    assert d is not None
    affordable = {n for n in cards_in(g, "hand") if n.startswith(("Strike", "Defend", "Neutralize", "Survivor"))}
    assert affordable and affordable <= set(d.options[0])


# §24.1 "Can Block prevent 'lose X HP'? No. Block only stops damage."


def test_block_stops_damage_but_not_hp_loss() -> None:
    """Rupture's 'lose 1 HP' and Pain's 'lose 1 HP' go past 5 Block; Decay's '1 damage' is taken by the Block.
    (Barricade's keep-Block modifier keeps the Block visible into the next round; the Gremlin Wizard idles.)"""
    g = combat("Ironclad")
    idle_enemy(g)
    empty_hand(g)
    g.state.counters[player_slot(g, "mods", 0, "keep_block")] = 1
    set_pc(g, "block", 5)
    set_pc(g, "hp", 9)
    give(g, "Rupture")
    give(g, "Pain", player=0)
    give(g, "Decay", player=0)
    refresh_decision(g)
    play(g, "Rupture")
    assert pc(g, "hp") == 8 and pc(g, "block") == 5  # lost HP, Block untouched
    end_turn(g)
    assert first_round_over(g) == 2
    assert pc(g, "hp") == 7  # Pain: HP loss through the Block
    assert pc(g, "block") == 4  # Decay: damage, absorbed by the Block


# §24.1 "What if tokens run out? Ignore gain/apply effects. Shivs can be used immediately instead."


def test_strength_beyond_the_supply_is_ignored_and_shivs_are_thrown_at_once() -> None:
    g = combat("Silent")
    e = lone(g, "Cultist (1st)", 20)
    s = g.state
    # the whole Strength supply is on the enemy, the whole shiv supply in P1's hand
    s.counters[card_slot(g, e, "e_str")] = s.counters[global_slot(g, "strength_box")]
    s.counters[global_slot(g, "strength_box")] = 0
    set_pc(g, "shiv", s.counters[global_slot(g, "shiv_box")])
    s.counters[global_slot(g, "shiv_box")] = 0
    give(g, "Inflame")
    give(g, "Blade Dance")
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Inflame")
    assert pc(g, "strength") == 0  # no token left: the gain is ignored
    play(g, "Blade Dance")
    choose(g, 0, name(g, e))  # each shiv that cannot be taken is thrown at once: 1 damage each
    choose(g, 0, name(g, e))
    assert counter(g, e, "life") == 20 - 2
    assert pc(g, "shiv") == 5 and g.state.counters[global_slot(g, "shiv_box")] == 0


# §24.1 "Do cards have memory? No. Self-cost-modifying cards keep the effect in the discard pile
# ('Optimization' costs 0 with 2 Powers in play)." Optimization («Оптимизация») is Streamline: cost 2, 1 less per
# Power in play (power_discount), so 0 with 2 Powers.


def streamline_position(powers: int) -> tuple[Game, int]:
    g = combat("Defect")
    e = idle_enemy(g)
    empty_hand(g)
    for p in ["Storm", "Capacitor"][:powers]:
        give(g, p, "powers")
    return g, e


def test_optimization_streamline_costs_zero_in_hand_with_two_powers() -> None:
    g, e = streamline_position(2)
    give(g, "Streamline")
    set_pc(g, "energy", 0)
    refresh_decision(g)
    play(g, "Streamline", name(g, e))
    assert counter(g, e, "life") == 50 - 3 and pc(g, "energy") == 0

    g, e = streamline_position(1)  # one Power: it costs 1
    give(g, "Streamline")
    set_pc(g, "energy", 0)
    refresh_decision(g)
    assert g.decision is not None and g.decision.options[0] == ("end_turn",)


def test_optimization_streamline_counts_as_zero_cost_in_the_discard_pile() -> None:
    """Claw+ gets +3 when the top card of the discard pile costs 0: Streamline there does with 2 Powers in play,
    not with 1 (its cost is computed from the position wherever it is, not remembered)."""
    for powers, damage in ((2, 1 + 3), (1, 1)):
        g, e = streamline_position(powers)
        give(g, "Streamline", "discard", top=True)
        give(g, "Claw", upgraded=True)
        refresh_decision(g)
        play(g, "Claw", name(g, e))
        assert counter(g, e, "life") == 50 - damage, powers


# §24.1 "What are 'starter Strike' and 'contains Strike'?" (§6.6)


def test_perfected_strike_counts_every_card_containing_strike_starter_strikes_too() -> None:
    g = combat("Ironclad")
    e = idle_enemy(g)
    empty_hand(g)
    strikes = [c for c in card_ids(g, "Strike (Ironclad)") if c in owned_ids(g, 0)][:2]
    for c in strikes:
        _move(g, c, zone_index(g, "hand", 0))
    give(g, "Twin Strike")
    _move(g, next(c for c in card_ids(g, "Defend (Ironclad)") if c in owned_ids(g, 0)), zone_index(g, "hand", 0))
    give(g, "Perfected Strike")
    refresh_decision(g)
    play(g, "Perfected Strike", name(g, e))
    assert counter(g, e, "life") == 50 - (3 + 3)  # 2 starter Strikes + Twin Strike; Defend does not count
    fields = g.state.tables.fields
    assert all(fields["starter_strike"][c] and fields["named_strike"][c] for c in strikes)


# §24.1 "What happens when you transform a colorless card? Add a card from your Card Rewards deck."
# There are no colorless cards in our data (unlocks are not modelled); §23 gives another character's card the same
# ruling, so the test transforms a Silent card owned by an Ironclad (event Living Wall, the only transform).


def run_start(hero: str = "Ironclad", seed: int = 3) -> Game:
    """A one-player run at the first play decision of its first combat."""
    return to_first_play(started(1, seed, (hero,)))  # before the first combat (Neow's Blessing): first options


def enter_event(g: Game, event: str) -> None:
    """Win the first combat of `run_start`, pass the rewards, and enter floor 1's event room (map side 1, middle),
    with `event` on top of the event deck."""
    s = g.state
    s.counters[global_slot(g, "map_side")] = 1
    _move(g, card_ids(g, event)[0], zone_index(g, "event_deck"), "top")
    e = only_enemy(g, life=1)
    setc(g, e, "e_block", 0)
    setc(g, e, "curled", 1)
    own = next(c for c in card_ids(g, "Strike (Ironclad)") if c in owned_ids(g, 0))
    _move(g, own, zone_index(g, "hand", 0))
    refresh_decision(g)
    play(g, "Strike (Ironclad)", name(g, e))
    room = "Side 1 floor 1 room 1"
    for _ in range(50):  # the card reward (pass), maybe other questions, then the map
        d = g.decision
        assert d is not None, g.error
        opts = d.options[d.players[0]]
        if room in opts:
            break
        g.apply(opts.index("pass") if "pass" in opts else 0, d.players[0])
    choose(g, 0, room)


def test_transforming_another_characters_card_adds_your_own_card_reward() -> None:
    g = run_start()
    s = g.state
    foreign = give(g, "Blade Dance", "discard")
    enter_event(g, "Living Wall")
    d = g.decision
    assert d is not None and "Blade Dance" in d.options[0]
    top = s.zones[zone_index(g, "rewards", 0)][-1]
    expected = s.zones[zone_index(g, "rares", 0)][-1] if s.tables.fields["ticket"][top] else top
    choose(g, 0, "Blade Dance")
    assert s.card_zone[foreign] == zone_index(g, "removed", 0)
    assert s.card_zone[expected] == zone_index(g, "deck", 0)
    assert s.tables.fields["class"][expected] == "ironclad"
    assert g.violations() == []


# §24.1 "Are Weak, Vulnerable and Poison removed at end of round? No."


def test_weak_vulnerable_and_poison_stay_through_the_end_of_the_round() -> None:
    """Nobody attacks (P1 ends the turn, the Gremlin Wizard idles), so nothing uses the tokens up."""
    g = combat("Silent")
    e = idle_enemy(g)
    s = g.state
    set_pc(g, "weak", 2)
    set_pc(g, "vulnerable", 2)
    setc(g, e, "e_weak", 2)
    setc(g, e, "e_vuln", 3)
    s.counters[global_slot(g, "poison_box")] -= 3
    setc(g, e, "poison", 3)
    refresh_decision(g)
    end_turn(g)
    assert first_round_over(g) == 2
    assert (pc(g, "weak"), pc(g, "vulnerable")) == (2, 2)
    assert (counter(g, e, "e_weak"), counter(g, e, "e_vuln"), counter(g, e, "poison")) == (2, 3, 3)
    assert counter(g, e, "life") == 50 - 3


# §24.2 Dark Embrace + Ethereal: the exhausted Ethereal card draws a card; that card skips this turn's end-of-turn
# effects, its Ethereal and the discard.


def test_dark_embrace_draws_for_an_exhausted_ethereal_card_and_the_drawn_card_stays() -> None:
    g = combat("Ironclad")
    idle_enemy(g)
    empty_hand(g)
    give(g, "Dark Embrace", "powers")
    give(g, "Ghostly Armor")  # Ethereal
    give(g, "Daze")  # Ethereal (an exhausted Daze goes back to its deck)
    give(g, "Decay", "draw", top=True)  # end of turn in hand: 1 damage
    give(g, "Carnage", "draw", top=True)  # Ethereal; drawn first
    set_pc(g, "hp", 9)
    refresh_decision(g)
    end_turn(g)
    assert first_round_over(g) == 2
    assert "Ghostly Armor" in cards_in(g, "exhausted")
    hand = cards_in(g, "hand")
    assert "Carnage" in hand and "Decay" in hand  # drawn by Dark Embrace and kept: not exhausted, not discarded
    assert "Carnage" not in cards_in(g, "exhausted") and "Decay" not in cards_in(g, "discard")
    assert pc(g, "hp") == 9  # Decay's end-of-turn damage did not apply to the card drawn at the end of the turn
    assert len(hand) == 2 + 5


# §24.2 Dark orbs + Consume / Amplify: each adds its own text and 1 as a Power in play, nothing more.


def test_dark_orb_with_amplify_and_consume() -> None:
    for powers, per_evoke in ((["Amplify"], 3 + 1 + 3), (["Amplify", "Consume"], 3 + 2 + 3 + 1)):
        g = combat("Defect")
        e = idle_enemy(g)
        g.state.counters[player_slot(g, "orbs", 0, "dark")] = 1
        for p in powers:
            give(g, p)
        set_pc(g, "energy", 6)
        refresh_decision(g)
        for p in powers:
            play(g, p)
        _move(g, next(c for c in card_ids(g, "Dualcast") if c in owned_ids(g, 0)), zone_index(g, "hand", 0))
        refresh_decision(g)
        play(g, "Dualcast", "dark")
        choose(g, 0, name(g, e))
        choose(g, 0, name(g, e))
        assert counter(g, e, "life") == 50 - 2 * per_evoke, powers


# §24.2 "Play" effects hitting unplayable cards (Clash, Grand Finale, Tactician): ignore the play, discard the card.
# Havoc is our "play" effect (Mayhem is a colorless card, not in our data; Distilled Chaos: see the items tests).


def havoc_on(top_card: str, below: list[str], hand: list[str]) -> tuple[Game, int]:
    g = combat("Ironclad")
    e = idle_enemy(g)
    s = g.state
    empty_hand(g)
    for c in list(s.zones[zone_index(g, "draw", 0)]):
        _move(g, c, zone_index(g, "discard", 0))
    for n in below:
        _move(g, next(c for c in card_ids(g, n) if s.card_zone[c] == zone_index(g, "discard", 0)),
              zone_index(g, "draw", 0), "top")
    give(g, top_card, "draw", top=True)
    for n in hand:
        _move(g, next(c for c in card_ids(g, n) if s.card_zone[c] == zone_index(g, "discard", 0)),
              zone_index(g, "hand", 0))
    give(g, "Havoc")
    set_pc(g, "energy", 1)
    refresh_decision(g)
    return g, e


def test_havoc_discards_clash_when_it_cannot_be_played_and_plays_it_when_it_can() -> None:
    g, e = havoc_on("Clash", ["Strike (Ironclad)"], ["Defend (Ironclad)"])
    play(g, "Havoc")
    assert counter(g, e, "life") == 50 and cards_in(g, "discard")[-2:] == ["Clash", "Havoc"]
    assert pc(g, "cards_played") == 1

    g, e = havoc_on("Clash", ["Strike (Ironclad)"], ["Strike (Ironclad)"])  # only Attacks in hand
    play(g, "Havoc")
    choose(g, 0, name(g, e))
    assert counter(g, e, "life") == 50 - 3 and "Clash" in cards_in(g, "exhausted")


def test_havoc_discards_grand_finale_from_the_draw_pile() -> None:
    """Grand Finale needs an empty draw pile; a card played from the draw pile never sees one (it is still there
    when Havoc looks), so it is discarded even as the last card [our reading]."""
    for below in (["Strike (Ironclad)"], []):
        g, e = havoc_on("Grand Finale", below, [])
        play(g, "Havoc")
        assert counter(g, e, "life") == 50 and "Grand Finale" in cards_in(g, "discard"), below
        assert "Grand Finale" not in cards_in(g, "exhausted")


def test_havoc_discards_tactician_without_its_discard_reward() -> None:
    """Tactician is discarded by the ruling, not 'by a card effect': no energy, not exhausted [our reading, as for
    Reflex in test_havoc_exhausts_a_daze_and_discards_an_unplayable_card]."""
    g, _ = havoc_on("Tactician", ["Strike (Ironclad)"], [])
    play(g, "Havoc")
    assert "Tactician" in cards_in(g, "discard") and pc(g, "energy") == 0


# §24.2 "Moving to an empty row during an Act IV elite combat: allowed." The mid-combat row change that exists is
# Leap / Dash ("you may switch rows with another player"): switching into an empty row works (the Act IV elite
# combat itself: tests/test_slay_the_spire_act4.py).


def test_switching_into_an_empty_row_is_allowed() -> None:
    g = RULESET.new_game(2, 3, check_invariants=True, options={"mode": "combat"})
    choose(g, 0, "Defect")
    choose(g, 1, "Ironclad")
    s = g.state
    assert g.decision is not None and 0 in g.decision.options
    mine = [c for c in foes(g) if counter(g, c, "lane") == 0]
    for c in foes(g):
        if counter(g, c, "lane") == 1:
            _move(g, c, zone_index(g, "summon_box"))  # P2's row is empty
    give(g, "Leap")
    refresh_decision(g)
    play(g, "Leap")
    choose(g, 0, "P1")  # the Block goes to P1
    d = g.decision
    assert d is not None and "P2" in d.options[0]  # the empty row is offered
    choose(g, 0, "P2")
    assert all(counter(g, c, "lane") == 1 for c in mine)
    assert not [c for c in foes(g) if counter(g, c, "lane") == 0]  # P1 now stands in the empty row
    assert s.status == "running" and g.violations() == []


# §24.2 Snecko: "play the next card at the cost Snecko sets and ignore the other cost changes". Snecko Eye's die-5/6
# Snecko (authored: the next card this turn costs a random 0-3) is set directly here, with a known cost.


def item(g: Game, card: str, where: str = "relics", player: int = 0) -> int:
    """Give a player a relic or potion nobody holds (items are not counted in `owned`)."""
    s = g.state
    held = {zone_index(g, z, q) for z in ("relics", "used_relics", "potions") for q in range(g.players)}
    cid = next(c for c in card_ids(g, card) if s.card_zone[c] not in held)
    _move(g, cid, zone_index(g, where, player))
    return cid


def snecko(g: Game, cost: int) -> None:
    set_pc(g, "snecko", 1)
    set_pc(g, "snecko_cost", cost)


def test_snecko_cost_overrides_every_other_cost_change() -> None:
    # Corruption makes Skills free: Snecko's 2 wins; the card after it costs as usual (free again)
    g = combat("Ironclad")
    idle_enemy(g)
    empty_hand(g)
    g.state.counters[player_slot(g, "mods", 0, "corrupt")] = 1
    give(g, "Shrug It Off")
    give(g, "Disarm")
    snecko(g, 2)
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Shrug It Off")
    assert pc(g, "energy") == 1 and pc(g, "snecko") == 0
    play(g, "Disarm", name(g, foes(g)[0]))
    assert pc(g, "energy") == 1

    # Streamline would cost 0 with 2 Powers: Snecko's 3 wins, so 2 energy cannot pay for it
    g, e = streamline_position(2)
    give(g, "Streamline")
    snecko(g, 3)
    set_pc(g, "energy", 2)
    refresh_decision(g)
    assert g.decision is not None and g.decision.options[0] == ("end_turn",)

    # Bludgeon (cost 3) for Snecko's 0
    g = combat("Ironclad")
    e = idle_enemy(g)
    give(g, "Bludgeon")
    snecko(g, 0)
    set_pc(g, "energy", 0)
    refresh_decision(g)
    play(g, "Bludgeon", name(g, e))
    assert counter(g, e, "life") == 50 - 7 and pc(g, "energy") == 0


def test_snecko_cost_overrides_a_free_attack() -> None:
    """Swivel's "the next Attack costs 0" is ignored for the Snecko'd card and waits for the next Attack
    [inferred: ignoring a cost change does not use it up]."""
    g = combat("Watcher")
    e = idle_enemy(g)
    empty_hand(g)
    give(g, "Bludgeon")
    set_pc(g, "free_attacks", 1)
    snecko(g, 1)
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Bludgeon", name(g, e))
    assert pc(g, "energy") == 2 and pc(g, "free_attacks") == 1


# §24.2 Wrist Blade (+1 per hit of an Attack played for 0 energy) with cards temporarily costing 0: yes; a copy only
# if the original was played for 0 too.


def test_wrist_blade_counts_attacks_that_cost_zero_for_now() -> None:
    g, e = streamline_position(2)  # Streamline: 2, less 1 per Power: 0 now
    item(g, "Wrist Blade")
    give(g, "Streamline")
    refresh_decision(g)
    play(g, "Streamline", name(g, e))
    assert counter(g, e, "life") == 50 - (3 + 1)

    g = combat("Watcher")  # Swivel: the next Attack costs 0
    e = idle_enemy(g)
    item(g, "Wrist Blade")
    give(g, "Bludgeon")
    set_pc(g, "free_attacks", 1)
    set_pc(g, "energy", 0)
    refresh_decision(g)
    play(g, "Bludgeon", name(g, e))
    assert counter(g, e, "life") == 50 - (7 + 1) and pc(g, "free_attacks") == 0


def test_wrist_blade_counts_a_copy_only_when_the_original_cost_zero() -> None:
    """Double Tap's copy of an Attack played for 0 gets +1 too; the copy of a paid Attack gets nothing."""
    g, e = streamline_position(2)
    item(g, "Wrist Blade")
    give(g, "Streamline")
    g.state.counters[player_slot(g, "replay", 0, "attack")] = 1
    refresh_decision(g)
    play(g, "Streamline", name(g, e))
    choose(g, 0, name(g, e))
    assert counter(g, e, "life") == 50 - 2 * (3 + 1)

    g = combat("Ironclad")
    e = idle_enemy(g)
    item(g, "Wrist Blade")
    give(g, "Bludgeon")
    g.state.counters[player_slot(g, "replay", 0, "attack")] = 1
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Bludgeon", name(g, e))
    choose(g, 0, name(g, e))
    assert counter(g, e, "life") == 50 - 2 * 7


# §24.2 Distilled Chaos playing cards that cannot be played now: discarded; a Daze: exhausted.


def test_distilled_chaos_discards_what_cannot_be_played_and_exhausts_a_daze() -> None:
    g = combat("Silent")
    e = idle_enemy(g)
    empty_hand(g)
    item(g, "Distilled Chaos", "potions")
    daze = give(g, "Daze", "draw", top=True)
    give(g, "Grand Finale", "draw", top=True)  # the draw pile is not empty: it cannot be played
    give(g, "Tactician", "draw", top=True)  # unplayable
    owned, energy = pc(g, "owned"), pc(g, "energy")  # (the seed's die roll may have given energy already)
    refresh_decision(g)
    choose(g, 0, "use_potion")
    choose(g, 0, "Distilled Chaos")
    for card in ("Tactician", "Grand Finale", "Daze"):
        choose(g, 0, card)
    assert cards_in(g, "discard")[-2:] == ["Tactician", "Grand Finale"]
    assert g.state.card_zone[daze] == zone_index(g, "daze_deck") and pc(g, "owned") == owned - 1
    assert counter(g, e, "life") == 50 and pc(g, "energy") == energy and g.violations() == []


# §24.2 Gambling Chip, The Abacus, Toolbox during events: allowed ("once per room" effects can be used in events).
# Our events are authored; Wheel of Change (authored from the video game's) rolls the die, and die changes are
# offered after that roll as after a combat's.


@pytest.mark.parametrize("seed", [3, 4, 5, 6, 10])  # rolls 4, 5, 1, 3, 2: the wheel lands on 3, 4, 6, 2, 1
def test_once_per_room_die_relics_change_an_events_die_and_are_ready_again_afterwards(seed: int) -> None:
    g = run_start(seed=seed)
    s = g.state
    for r in ("Gambling Chip", "The Abacus", "Toolbox"):
        item(g, r)
    set_pc(g, "hp", 5)
    enter_event(g, "Wheel of Change")
    d = g.decision
    assert d is not None and {"Gambling Chip", "The Abacus", "Toolbox"} <= set(d.options[0])
    rolled = int(s.counters[global_slot(g, "die_result")])
    choose(g, 0, "Toolbox")
    face = 6 if rolled == 1 else rolled - 1
    assert s.counters[global_slot(g, "die_result")] == face
    assert cards_in(g, "used_relics") == ["Toolbox"]
    d = g.decision
    assert d is not None and "Toolbox" not in d.options[0] and "The Abacus" in d.options[0]  # once per room
    gold, hp, relics, deck = pc(g, "gold"), pc(g, "hp"), len(cards_in(g, "relics")), len(cards_in(g, "deck"))
    choose(g, 0, "pass")
    if face == 5:
        g.apply(0, 0)  # remove the first card offered
    after = (pc(g, "gold") - gold, pc(g, "hp") - hp, len(cards_in(g, "relics")) - relics)
    after += (len(cards_in(g, "deck")) - deck,)
    # Toolbox is back among the relics (ready for the next room), so the relic count grows by 1 more
    assert after == {1: (3, 0, 1, 0), 2: (0, 0, 2, 0), 3: (0, 3, 1, 0), 4: (0, 0, 1, 1), 5: (0, 0, 1, -1),
                     6: (0, -2, 1, 0)}[face]
    assert cards_in(g, "used_relics") == [] and g.violations() == []


# ---------------------------------------------------------------- the FAQ table above stays true


def test_faq_table_names_real_tests() -> None:
    """Every test the module docstring's FAQ coverage list names exists, in this file or the file it names."""
    import re

    here = Path(__file__).resolve()
    text = (__doc__ or "").split("FAQ coverage:")[1]
    rows = re.split(r"\n- ", text)[1:]
    assert [r[:4] for r in rows] == ["24.1"] * 8 + ["24.2"] * 11
    named = 0
    for row in rows:
        for prefix, test in re.findall(r"(?:(\w+)::)?\b(test_\w+)", row):
            if test == "test_faq_table_names_real_tests":
                continue
            path = here.with_name(f"test_slay_the_spire_{prefix}.py") if prefix else here
            assert f"def {test}(" in path.read_text(), (prefix, test)
            named += 1
    assert named >= 25
