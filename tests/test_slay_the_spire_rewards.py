"""Slay the Spire reward cards (Ironclad, Silent) and the Powers mechanism, played on the real ruleset.

Positions are edited the way tests/test_slay_the_spire_faq.py does (a one-player combat, cards moved into the
hand), then played through the ruleset's own decisions. `test_every_card_plays_both_faces` plays every
Ironclad and Silent reward card, plain and upgraded, under the invariants, so no card effect is left untried.
"""

from __future__ import annotations

import pytest
from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, card_slot, choose, global_slot, player_slot, refresh_decision, zone_index
from tests.sts_setup import RULESET, counter, name, pc, set_pc
from tests.test_slay_the_spire_faq import combat, end_turn, idle_enemy, only_enemy, play, to_hand


def reward_cards(cls: str) -> list[str]:
    g = RULESET.new_game(1, 0, options={"mode": "combat"})
    t = g.state.tables
    f = t.fields
    out: list[str] = []
    for cid, n in enumerate(t.card_names):
        reward = f["class"][cid] == cls and f["rarity"][cid] != "starter" and not f["ticket"][cid]
        if reward and n not in out:
            out.append(n)
    return out


IRONCLAD = reward_cards("ironclad")
SILENT = reward_cards("silent")


def starter_in_hand(g: Game, card: str) -> int:
    """P1's starter card `card` in the hand (moved there if it is elsewhere)."""
    h = zone_index(g, "hand", 0)
    ids = card_ids(g, card)
    held = [c for c in ids if g.state.card_zone[c] == h]
    return held[0] if held else to_hand(g, card)


def upgrade(g: Game, cid: int) -> None:
    g.state.counters[card_slot(g, cid, "upgraded")] = 1


def hand(g: Game) -> list[str]:
    s = g.state
    return [s.tables.card_names[c] for c in s.zones[zone_index(g, "hand", 0)]]


def zone(g: Game, z: str) -> list[str]:
    s = g.state
    return [s.tables.card_names[c] for c in s.zones[zone_index(g, z, 0)]]


def at_action(g: Game) -> bool:
    d = g.decision
    return d is not None and 0 in d.options and "end_turn" in d.options[0]


def resolve_with_first_options(g: Game, limit: int = 80) -> None:
    """Answer every decision with its first option until P1 picks an action again (or the game ends)."""
    for _ in range(limit):
        if g.finished or at_action(g):
            return
        d = g.decision
        assert d is not None, g.error
        g.apply(0, d.players[0])
    raise AssertionError("the effect did not finish resolving")


def test_there_are_many_reward_cards() -> None:
    assert len(IRONCLAD) >= 40 and len(SILENT) >= 45


@pytest.mark.parametrize("up", [False, True])
@pytest.mark.parametrize("card", IRONCLAD + SILENT)
def test_every_card_plays_both_faces(card: str, up: bool) -> None:
    hero = "Ironclad" if card in IRONCLAD else "Silent"
    g = combat(hero)
    only_enemy(g)
    cid = to_hand(g, card, gained=True)
    if up:
        upgrade(g, cid)
    set_pc(g, "energy", 6)
    if card == "Grand Finale":  # playable only with an empty draw pile
        for c in list(g.state.zones[zone_index(g, "draw", 0)]):
            _move(g, c, zone_index(g, "discard", 0))
    if card == "Clash":  # playable only with a hand of Attacks
        for c in list(g.state.zones[zone_index(g, "hand", 0)]):
            if g.state.tables.fields["type"][c] != "attack":
                _move(g, c, zone_index(g, "discard", 0))
    refresh_decision(g)
    if g.state.tables.fields["unplayable"][cid]:
        assert card not in g.decision.options[0] or "play_card" not in g.decision.options[0]
        return
    choose(g, 0, "play_card")
    choose(g, 0, card)
    resolve_with_first_options(g)
    assert g.error is None and g.violations() == []
    if not g.finished and g.state.tables.fields["type"][cid] == "power":
        assert card in zone(g, "powers")


# ---------------------------------------------------------------- Powers with ongoing effects


def test_a_start_of_turn_power_acts_every_turn() -> None:
    """Demon Form: +1 Strength at the start of each turn while it is in play."""
    g = combat("Ironclad")
    idle_enemy(g)  # idle in the coming enemy turn, so P1 always lives to the next turn
    to_hand(g, "Demon Form", gained=True)
    set_pc(g, "energy", 3)
    set_pc(g, "hp", 10)
    refresh_decision(g)
    play(g, "Demon Form")
    assert "Demon Form" in zone(g, "powers") and pc(g, "strength") == 0
    end_turn(g)
    assert not g.finished
    assert pc(g, "strength") == 1


def test_an_end_of_turn_power_gains_block_before_the_enemy_acts() -> None:
    """Metallicize: 1 Block at the end of the turn, so the enemy's attack takes 1 HP less (same seed)."""
    hp_after = []
    for with_power in (False, True):
        g = combat("Ironclad")
        only_enemy(g, life=99)
        if with_power:
            cid = to_hand(g, "Metallicize", gained=True)
            _move(g, cid, zone_index(g, "powers", 0))
        set_pc(g, "hp", 10)
        refresh_decision(g)
        end_turn(g)
        hp_after.append(pc(g, "hp"))
    plain, metal = hp_after
    assert metal == plain + 1 or plain == 10  # the enemy hit: 1 less; or it did not attack at all


def test_a_whenever_power_waits_until_the_card_has_resolved() -> None:
    """§13.2: triggered abilities resolve after the whole card. Burning Pact exhausts a card, then draws 2;
    Dark Embrace's draw comes after those two (3 cards drawn in all), and Feel No Pain gives 1 Block."""
    g = combat("Ironclad")
    only_enemy(g)
    for p in ("Dark Embrace", "Feel No Pain"):
        cid = to_hand(g, p, gained=True)
        _move(g, cid, zone_index(g, "powers", 0))
    to_hand(g, "Burning Pact", gained=True)
    refresh_decision(g)
    before = len(hand(g))
    draw_before = len(zone(g, "draw"))
    choose(g, 0, "play_card")
    choose(g, 0, "Burning Pact")
    victim = g.decision.options[0][0]
    choose(g, 0, victim)
    assert victim in zone(g, "exhausted")
    assert pc(g, "resolving") == 0
    assert len(zone(g, "draw")) == draw_before - 3
    assert len(hand(g)) == before - 2 + 3
    assert pc(g, "block") == 1


def test_corruption_makes_skills_free_and_exhausts_them() -> None:
    g = combat("Ironclad")
    only_enemy(g)
    cid = to_hand(g, "Corruption", gained=True)
    _move(g, cid, zone_index(g, "powers", 0))
    g.state.counters[player_slot(g, "mods", 0, "corrupt")] = 1
    starter_in_hand(g, "Defend (Ironclad)")
    set_pc(g, "energy", 0)
    refresh_decision(g)
    play(g, "Defend (Ironclad)")
    assert pc(g, "energy") == 0 and pc(g, "block") == 1
    assert "Defend (Ironclad)" in zone(g, "exhausted")


def test_barricade_keeps_block_into_the_next_turn() -> None:
    g = combat("Ironclad")
    only_enemy(g, life=99)
    to_hand(g, "Barricade", gained=True)
    set_pc(g, "energy", 2)
    refresh_decision(g)
    play(g, "Barricade")
    set_pc(g, "block", 20)
    refresh_decision(g)
    end_turn(g)
    assert not g.finished
    assert 0 < pc(g, "block") <= 20  # what the enemy did not take is still there


def test_combust_is_an_ability_used_once_per_turn() -> None:
    g = combat("Ironclad")
    e = only_enemy(g, life=20)
    cid = to_hand(g, "Combust", gained=True)
    _move(g, cid, zone_index(g, "powers", 0))
    refresh_decision(g)
    assert "use_power" in g.decision.options[0]
    choose(g, 0, "use_power")
    choose(g, 0, "Combust")
    resolve_with_first_options(g)
    assert counter(g, e, "life") == 19
    assert "use_power" not in g.decision.options[0]


def test_distraction_gives_block_once_per_turn_when_poisoning() -> None:
    g = combat("Silent")
    only_enemy(g)
    cid = to_hand(g, "Distraction", gained=True)
    _move(g, cid, zone_index(g, "powers", 0))
    to_hand(g, "Bouncing Flask", gained=True)
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Bouncing Flask")
    resolve_with_first_options(g)
    assert pc(g, "block") == 2  # two poisonings, one trigger per turn


def test_after_image_and_reflex_react_to_a_discard_by_a_card() -> None:
    g = combat("Silent")
    only_enemy(g)
    cid = to_hand(g, "After Image", gained=True)
    _move(g, cid, zone_index(g, "powers", 0))
    to_hand(g, "Reflex", gained=True)
    starter_in_hand(g, "Survivor")
    refresh_decision(g)
    size_before = len(hand(g))
    play(g, "Survivor")
    choose(g, 0, "Reflex")
    assert "Reflex" in zone(g, "discard")
    assert len(hand(g)) == size_before - 2 + 2  # Survivor and Reflex left, Reflex drew 2
    assert pc(g, "block") == 2 + 1  # Survivor 2, After Image 1


def test_tactician_discarded_gives_energy_and_exhausts() -> None:
    g = combat("Silent")
    only_enemy(g)
    to_hand(g, "Tactician", gained=True)
    starter_in_hand(g, "Survivor")
    set_pc(g, "energy", 1)
    refresh_decision(g)
    play(g, "Survivor")
    choose(g, 0, "Tactician")
    assert pc(g, "energy") == 2 and "Tactician" in zone(g, "exhausted")


def test_evolve_draws_when_a_status_is_drawn() -> None:
    g = combat("Ironclad")
    only_enemy(g)
    cid = to_hand(g, "Evolve", gained=True)
    _move(g, cid, zone_index(g, "powers", 0))
    daze = card_ids(g, "Daze")[0]
    _move(g, daze, zone_index(g, "draw", 0), "top")
    set_pc(g, "owned", pc(g, "owned") + 1)
    to_hand(g, "Pommel Strike", gained=True)
    refresh_decision(g)
    before = len(hand(g))
    play(g, "Pommel Strike", name(g, only_enemy(g)))
    assert "Daze" in hand(g)
    assert len(hand(g)) == before - 1 + 2  # drew the Daze, Evolve drew one more


# ---------------------------------------------------------------- card rulings


def test_accuracy_and_envenom_change_every_shiv() -> None:
    g = combat("Silent")
    e = only_enemy(g)
    g.state.counters[player_slot(g, "mods", 0, "shiv_bonus")] = 1
    g.state.counters[player_slot(g, "mods", 0, "hit_poison")] = 1
    g.state.counters[global_slot(g, "shiv_box")] -= 1
    set_pc(g, "shiv", 1)
    refresh_decision(g)
    choose(g, 0, "use_shiv")
    choose(g, 0, name(g, e))
    assert counter(g, e, "life") == 50 - 2 and counter(g, e, "poison") == 1


def test_heavy_blade_counts_strength_three_times() -> None:
    from tests.test_slay_the_spire_faq import set_strength

    g = combat("Ironclad")
    e = only_enemy(g)
    set_strength(g, 2)
    to_hand(g, "Heavy Blade", gained=True)
    refresh_decision(g)
    play(g, "Heavy Blade", name(g, e))
    assert counter(g, e, "life") == 50 - (3 + 3 * 2)


def test_blood_for_blood_gets_cheaper_after_losing_hp() -> None:
    g = combat("Ironclad")
    only_enemy(g)
    to_hand(g, "Blood for Blood", gained=True)
    set_pc(g, "energy", 1)
    refresh_decision(g)
    assert "Blood for Blood" not in g.decision.options[0]
    set_pc(g, "lost_hp", 1)
    refresh_decision(g)
    play(g, "Blood for Blood")
    resolve_with_first_options(g)
    assert pc(g, "energy") == 0


def test_anger_goes_on_top_of_the_draw_pile() -> None:
    g = combat("Ironclad")
    e = only_enemy(g)
    to_hand(g, "Anger", gained=True)
    refresh_decision(g)
    play(g, "Anger", name(g, e))
    assert zone(g, "draw")[-1] == "Anger"


def test_catalyst_doubles_poison_within_the_supply() -> None:
    g = combat("Silent")
    e = only_enemy(g)
    g.state.counters[global_slot(g, "poison_box")] -= 4
    g.state.counters[card_slot(g, e, "poison")] = 4
    to_hand(g, "Catalyst", gained=True)
    refresh_decision(g)
    play(g, "Catalyst", name(g, e))
    assert counter(g, e, "poison") == 8


def test_outmaneuver_gives_energy_only_when_retained() -> None:
    g = combat("Silent")
    idle_enemy(g)  # idle in the coming enemy turn, so P1 always lives to the next turn
    to_hand(g, "Outmaneuver", gained=True)
    set_pc(g, "hp", 9)
    refresh_decision(g)
    end_turn(g)
    assert not g.finished
    assert "Outmaneuver" in hand(g)
    energy = pc(g, "energy")
    play(g, "Outmaneuver")
    assert pc(g, "energy") == energy + 2
