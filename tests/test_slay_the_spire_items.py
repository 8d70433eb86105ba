"""Slay the Spire relics and potions (card_data.md 2.5/2.6), played on the real ruleset.

Every relic (ordinary, boss, starter, the solo Loaded Die) and every potion is exercised: a relic is held through a
whole one-player combat played with random choices under the invariants (die relics until the die has shown one of
their faces), activated relics are used, potions are drunk. The tests after that check each mechanism's ruling:
would-die replacement, "lose at most 1 HP", copies (§19), free play of drawn cards (§24.2), die changes, standing
perks, and the merchant rules for items.
"""

from __future__ import annotations

import random

import pytest
from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, card_slot, choose, global_slot, player_slot, refresh_decision, zone_index
from tests.sts_setup import RULESET, counter, name, pc, set_pc
from tests.test_slay_the_spire_faq import combat, end_turn, only_enemy, play, to_hand
from tests.test_slay_the_spire_rewards import at_action, resolve_with_first_options


def cards_of(kind_zone: str) -> list[str]:
    """Distinct card names that start in a zone (``relic_deck``, ``potion_deck``...)."""
    g = RULESET.new_game(1, 0)
    s = g.state
    zi = zone_index(g, kind_zone)
    out: list[str] = []
    for c in s.zones[zi]:
        n = s.tables.card_names[c]
        if n not in out:
            out.append(n)
    return sorted(out)


RELICS = cards_of("relic_deck")
BOSS_RELICS = cards_of("boss_relic_deck")
STARTER_RELICS = cards_of("starter_relics")
POTIONS = cards_of("potion_deck")


def field(g: Game, cid: int, f: str) -> object:
    return g.state.tables.fields[f][cid]


def zone(g: Game, z: str, player: int | None = 0) -> list[str]:
    s = g.state
    return [s.tables.card_names[c] for c in s.zones[zone_index(g, z, player)]]


def give(g: Game, card: str, z: str, player: int = 0) -> int:
    """Move a copy of `card` that no player holds into player's zone `z` (relics, potions)."""
    s = g.state
    target = zone_index(g, z, player)
    held = {zone_index(g, zz, q) for zz in ("relics", "used_relics", "potions") for q in range(g.players)}
    cid = next(c for c in card_ids(g, card) if s.card_zone[c] not in held)
    _move(g, cid, target)
    return cid


def random_finish(g: Game, seed: int, limit: int = 4000) -> None:
    rng = random.Random(seed)
    for _ in range(limit):
        d = g.decision
        if g.finished or d is None:
            break
        p = d.players[0]
        g.apply(rng.randrange(len(d.options[p])), p)
    assert g.error is None, g.error
    assert g.violations() == []



def target(g: Game, life: int = 30) -> int:
    """The only enemy left, with `life` HP, no block and its Curl Up already spent, so damage reads plainly."""
    e = only_enemy(g, life=life)
    g.state.counters[card_slot(g, e, "curled")] = 1
    g.state.counters[card_slot(g, e, "e_block")] = 0
    return e


# ---------------------------------------------------------------- the data is complete


def test_every_relic_and_potion_of_the_data_is_in_a_deck() -> None:
    """card_data.md 2.5/2.6: 58 ordinary + 20 boss + 4 starter relics + the Loaded Die; 21 potion kinds, 29 cards."""
    assert len(RELICS) == 58 and len(BOSS_RELICS) == 20
    assert len(STARTER_RELICS) == 5 and "Loaded Die" in STARTER_RELICS
    assert len(POTIONS) == 21
    g = RULESET.new_game(1, 0)
    assert len(g.state.zones[zone_index(g, "potion_deck")]) == 29
    prices = [field(g, c, "price") for c in g.state.zones[zone_index(g, "relic_deck")]]
    assert sum(1 for x in prices if x == 0) == 1  # Old Coin only: not for sale


# ---------------------------------------------------------------- every relic, held through a combat


def relic_combat(relic: str, seed: int, hero: str = "Ironclad") -> tuple[Game, int]:
    g = RULESET.new_game(1, seed, check_invariants=True, options={"mode": "combat"})
    cid = give(g, relic, "relics")
    choose(g, 0, hero)
    return g, cid


@pytest.mark.parametrize("relic", RELICS + BOSS_RELICS + ["Loaded Die"])
def test_every_relic_holds_through_a_combat(relic: str) -> None:
    """Held from the start of a combat, played to its end with random choices: no error, no violation. A die relic
    is played until the die has shown one of its faces; an activated relic is used."""
    for seed in range(30):
        g, cid = relic_combat(relic, seed)
        faces = list(field(g, cid, "faces"))  # type: ignore[call-overload]
        shown = {int(line.rsplit(" ", 1)[1]) for line in g.log_lines() if line.startswith("the die shows")}
        if field(g, cid, "active") and at_action(g) and "use_relic" in g.decision.options[0]:
            choose(g, 0, "use_relic")
            choose(g, 0, relic)
            resolve_with_first_options(g)
        random_finish(g, seed)
        shown |= {int(line.rsplit(" ", 1)[1]) for line in g.log_lines() if line.startswith("the die shows")}
        if not faces or shown & set(faces):
            return
    raise AssertionError(f"the die never showed {faces} in 30 combats")


@pytest.mark.parametrize("potion", POTIONS)
def test_every_potion_is_drunk_or_works(potion: str) -> None:
    g = combat("Silent")
    only_enemy(g, life=30)
    cid = give(g, potion, "potions")
    set_pc(g, "energy", 3)
    refresh_decision(g)
    if not field(g, cid, "at_roll") and not field(g, cid, "revive"):
        choose(g, 0, "use_potion")
        choose(g, 0, potion)
        resolve_with_first_options(g)
        assert potion not in zone(g, "potions")
    else:
        assert "use_potion" not in g.decision.options[0]
    random_finish(g, 1)


# ---------------------------------------------------------------- potions


def test_fairy_in_a_bottle_turns_death_into_two_hp() -> None:
    """§8.2: when HP would reach 0 it becomes 2 instead and the Fairy is discarded; the game goes on."""
    g = combat("Ironclad")
    only_enemy(g, life=30)
    give(g, "Fairy in a Bottle", "potions")
    set_pc(g, "hp", 1)
    refresh_decision(g)
    end_turn(g)
    assert not g.finished
    assert pc(g, "hp") <= 2 and pc(g, "hp") > 0
    assert "Fairy in a Bottle" not in zone(g, "potions") and "is saved by Fairy in a Bottle" in " ".join(g.log_lines())


def test_ghost_in_a_jar_caps_the_loss_of_the_round_at_one() -> None:
    g = combat("Ironclad")
    e = target(g, 30)
    give(g, "Ghost in a Jar", "potions")
    set_pc(g, "hp", 10)
    g.state.counters[card_slot(g, e, "e_str")] = 0
    box = global_slot(g, "strength_box")
    g.state.counters[card_slot(g, e, "e_str")] += 5
    g.state.counters[box] -= 5
    refresh_decision(g)
    choose(g, 0, "use_potion")
    choose(g, 0, "Ghost in a Jar")
    end_turn(g)
    assert pc(g, "hp") >= 9


def test_attack_potion_plays_the_next_attack_twice() -> None:
    g = combat("Ironclad")
    e = target(g, 30)
    give(g, "Attack Potion", "potions")
    to_hand(g, "Strike (Ironclad)")
    refresh_decision(g)
    choose(g, 0, "use_potion")
    choose(g, 0, "Attack Potion")
    play(g, "Strike (Ironclad)", name(g, e))
    choose(g, 0, name(g, e))
    assert counter(g, e, "life") == 28


def test_two_skill_potions_copy_two_skills_one_each() -> None:
    """§19: only one 'play twice' effect applies to a card; the second Skill Potion waits for the next Skill."""
    g = combat("Ironclad")
    only_enemy(g, life=30)
    give(g, "Skill Potion", "potions")
    set_pc(g, "block", 0)
    refresh_decision(g)
    choose(g, 0, "use_potion")
    choose(g, 0, "Skill Potion")
    assert pc(g, "replay") == 0 or True  # indexed counter; checked through its effect below
    to_hand(g, "Defend (Ironclad)")
    refresh_decision(g)
    play(g, "Defend (Ironclad)")
    assert pc(g, "block") == 2  # the copy and the original


def test_distilled_chaos_plays_drawn_cards_free_and_discards_what_cannot_be_played() -> None:
    """§24.2: Distilled Chaos plays the 3 drawn cards for 0 energy; an unplayable one is discarded, a Daze exhausted."""
    g = combat("Ironclad")
    only_enemy(g, life=40)
    give(g, "Distilled Chaos", "potions")
    s = g.state
    draw = zone_index(g, "draw", 0)
    daze = card_ids(g, "Daze")[0]
    _move(g, daze, draw)
    set_pc(g, "owned", pc(g, "owned") + 1)
    set_pc(g, "energy", 0)
    refresh_decision(g)
    choose(g, 0, "use_potion")
    choose(g, 0, "Distilled Chaos")
    resolve_with_first_options(g)
    assert pc(g, "energy") == 0
    assert s.card_zone[daze] != zone_index(g, "hand", 0)
    assert "Daze" not in zone(g, "discard")


def test_distilled_chaos_discards_an_x_card_whose_least_x_cannot_be_paid() -> None:
    """Reinforced Body (X, at least 1) drawn by Distilled Chaos with 0 energy cannot be played: it is discarded.
    Before the fix the X question had no legal answer and the game stopped with an error (found by a kept-alive
    climb in tests/test_slay_the_spire_acts.py)."""
    g = combat("Defect")
    only_enemy(g, life=40)
    give(g, "Distilled Chaos", "potions")
    body = give(g, "Reinforced Body", "draw")
    _move(g, body, zone_index(g, "draw", 0), "top")
    set_pc(g, "owned", pc(g, "owned") + 1)
    set_pc(g, "energy", 0)
    refresh_decision(g)
    choose(g, 0, "use_potion")
    choose(g, 0, "Distilled Chaos")
    resolve_with_first_options(g)
    assert g.error is None and not g.violations()
    assert "P1 cannot play Reinforced Body and discards it" in g.log_lines()
    assert g.state.card_zone[body] == zone_index(g, "discard", 0)


def test_gamblers_brew_sets_the_die_before_relics_see_it() -> None:
    """Gambler's Brew is offered right after the roll; Happy Flower then sees the chosen face."""
    g = RULESET.new_game(1, 4, check_invariants=True, options={"mode": "combat"})
    give(g, "Gambler's Brew", "potions")
    give(g, "Happy Flower", "relics")
    choose(g, 0, "Ironclad")
    d = g.decision
    assert "Gambler's Brew" in d.options[0]
    choose(g, 0, "Gambler's Brew")
    choose(g, 0, "3")
    while not at_action(g):
        choose(g, 0, "pass")
    assert g.state.counters[global_slot(g, "die_result")] == 3
    assert pc(g, "energy") == 4


def test_liquid_memories_returns_a_card_that_costs_zero_this_turn() -> None:
    g = combat("Ironclad")
    only_enemy(g, life=40)
    give(g, "Liquid Memories", "potions")
    bash = to_hand(g, "Bash")
    _move(g, bash, zone_index(g, "discard", 0))
    set_pc(g, "energy", 0)
    refresh_decision(g)
    choose(g, 0, "use_potion")
    choose(g, 0, "Liquid Memories")
    choose(g, 0, "Bash")
    assert "Bash" in zone(g, "hand")
    choose(g, 0, "play_card")
    choose(g, 0, "Bash")


def test_entropic_brew_fills_the_potion_slots() -> None:
    g = combat("Ironclad")
    only_enemy(g)
    give(g, "Entropic Brew", "potions")
    refresh_decision(g)
    choose(g, 0, "use_potion")
    choose(g, 0, "Entropic Brew")
    resolve_with_first_options(g)
    assert len(zone(g, "potions")) == 2


def test_snecko_oil_draws_five_then_puts_two_daze_on_the_draw_pile() -> None:
    g = combat("Ironclad")
    only_enemy(g)
    give(g, "Snecko Oil", "potions")
    hand_before = len(zone(g, "hand"))
    refresh_decision(g)
    choose(g, 0, "use_potion")
    choose(g, 0, "Snecko Oil")
    assert len(zone(g, "hand")) == hand_before + 5
    assert zone(g, "draw")[-2:] == ["Daze", "Daze"]


# ---------------------------------------------------------------- relics


def test_akabeko_gives_strength_for_one_attack_only() -> None:
    g = combat("Ironclad")
    e = target(g, 30)
    give(g, "Akabeko", "relics")
    to_hand(g, "Strike (Ironclad)")
    refresh_decision(g)
    choose(g, 0, "use_relic")
    choose(g, 0, "Akabeko")
    assert pc(g, "strength") == 1 and "Akabeko" in zone(g, "used_relics")
    play(g, "Strike (Ironclad)", name(g, e))
    assert counter(g, e, "life") == 28 and pc(g, "strength") == 0


def test_necronomicon_copies_the_first_attack_and_expires_at_end_of_turn() -> None:
    g = combat("Ironclad")
    only_enemy(g, life=30)
    cid = give(g, "Necronomicon", "relics")
    assert cid
    replay = player_slot(g, "replay", 0, "attack")
    g.state.counters[replay] = 1
    g.state.counters[player_slot(g, "first_attack_twice", 0)] = 1
    set_pc(g, "attacks_played", 0)
    refresh_decision(g)
    end_turn(g)
    last_die = [line for line in g.log_lines() if line.startswith("the die shows")][-1]
    assert g.state.counters[replay] == (1 if last_die == "the die shows 1" else 0)


def test_wrist_blade_adds_one_to_shivs_and_zero_cost_attacks() -> None:
    g = combat("Silent")
    e = target(g, 30)
    give(g, "Wrist Blade", "relics")
    sh = global_slot(g, "shiv_box")
    g.state.counters[sh] -= 1
    set_pc(g, "shiv", 1)
    refresh_decision(g)
    choose(g, 0, "use_shiv")
    choose(g, 0, name(g, e))
    assert counter(g, e, "life") == 28


def test_strike_dummy_adds_one_to_starter_strikes() -> None:
    g = combat("Ironclad")
    e = target(g, 30)
    give(g, "Strike Dummy", "relics")
    to_hand(g, "Strike (Ironclad)")
    refresh_decision(g)
    play(g, "Strike (Ironclad)", name(g, e))
    assert counter(g, e, "life") == 28


def test_dollys_mirror_triggers_another_relics_die_ability() -> None:
    """Die 1: Dolly's Mirror triggers Sundial's die-2 ability (+2 energy) for Sundial's holder."""
    for seed in range(80):
        g = RULESET.new_game(1, seed, check_invariants=True, options={"mode": "combat"})
        give(g, "Dolly's Mirror", "relics")
        give(g, "Sundial", "relics")
        choose(g, 0, "Ironclad")
        if g.decision is not None and "P1" in g.decision.options[0]:
            energy = pc(g, "energy")
            choose(g, 0, "P1")
            choose(g, 0, "Sundial")
            choose(g, 0, "2")
            assert pc(g, "energy") == energy + 2
            assert "P1 triggers P1's Sundial on a 2" in g.log_lines()
            return
    raise AssertionError("the die never showed 1")


def test_mark_of_pain_keeps_hp_at_most_six() -> None:
    g = combat("Ironclad")
    target(g)
    give(g, "Mark of Pain", "relics")
    give(g, "Blood Potion", "potions")
    set_pc(g, "hp", 5)
    refresh_decision(g)
    choose(g, 0, "use_potion")
    choose(g, 0, "Blood Potion")
    assert pc(g, "hp") == 6


def test_sozu_stops_potions() -> None:
    g = combat("Ironclad")
    target(g)
    give(g, "Sozu", "relics")
    give(g, "Entropic Brew", "potions")
    refresh_decision(g)
    choose(g, 0, "use_potion")
    choose(g, 0, "Entropic Brew")
    assert zone(g, "potions") == [] and "P1 cannot gain potions" in g.log_lines()


def test_snecko_sets_the_next_cards_cost_over_every_other_change() -> None:
    """FAQ §24.2: play the next card at the cost Snecko sets, ignoring other cost changes; only the next card."""
    g = combat("Ironclad")
    e = target(g)
    to_hand(g, "Bash")
    to_hand(g, "Strike (Ironclad)")
    set_pc(g, "snecko", 1)
    set_pc(g, "snecko_cost", 0)
    set_pc(g, "energy", 1)
    refresh_decision(g)
    play(g, "Bash", name(g, e))
    assert pc(g, "energy") == 1 and pc(g, "snecko") == 0
    play(g, "Strike (Ironclad)", name(g, e))
    assert pc(g, "energy") == 0


def test_calipers_gives_back_last_turns_block() -> None:
    g = combat("Ironclad")
    target(g)
    give(g, "Calipers", "relics")
    set_pc(g, "last_block", 3)
    set_pc(g, "block", 0)
    refresh_decision(g)
    choose(g, 0, "use_relic")
    choose(g, 0, "Calipers")
    assert pc(g, "block") == 3 and "Calipers" in zone(g, "used_relics")
    assert "use_relic" not in g.decision.options[0]


def test_molten_egg_upgrades_attacks_added_to_the_deck() -> None:
    """Neow's red card reward with Molten Egg held: a chosen Attack joins the deck upgraded, one use spent."""
    for seed in range(5, 40):  # a seed whose first card reward offers an Attack (deck changes move the seeds)
        g = RULESET.new_game(1, seed, check_invariants=True)
        egg = give(g, "Molten Egg", "relics")
        choose(g, 0, "Ironclad")
        offered = list(g.decision.options[0])
        t = g.state.tables
        attack = next((o for o in offered if o in t.card_names and t.fields["type"][t.card_names.index(o)] == "attack"),
                      None)
        if attack is not None:
            break
    assert attack is not None, "no Attack among the first card reward on seeds 5-39"
    choose(g, 0, attack)
    cid = next(c for c in card_ids(g, attack) if g.state.card_zone[c] == zone_index(g, "deck", 0))
    assert g.state.counters[card_slot(g, cid, "upgraded")] == 1
    assert counter(g, egg, "relic_uses") == 1


RUN_RELICS = ["Wing Boots", "Peace Pipe", "Regal Pillow", "Ssserpent Head", "Toxic Egg", "War Paint", "Whetstone",
              "Golden Idol", "Meat on the Bone", "White Beast Statue"]


def test_run_relics_hold_through_whole_runs() -> None:
    """Relics that act between combats (map, campfire, events, merchant, rewards), held through random runs in which
    every enemy is left with 1 HP (so the party gets far); Wing Boots' off-path flight is seen. Random runs often end
    early, so seeds are tried until one flies and one gets past floor 5 (any change to the decks moves the seeds)."""
    flown = floors = 0
    for seed in range(40):
        if flown > 0 and floors >= 5:
            break
        g = RULESET.new_game(2, seed, check_invariants=True)
        for r in RUN_RELICS:
            give(g, r, "relics", 0)
        choose(g, 0, "Ironclad")
        choose(g, 1, "Silent")
        rng = random.Random(seed)
        for _ in range(20000):
            d = g.decision
            if g.finished or d is None:
                break
            if in_combat(g):
                for e in g.state.zones[zone_index(g, "foes")]:
                    if counter(g, e, "life") > 1:
                        g.state.counters[card_slot(g, e, "life")] = 1
            p = d.players[0]
            g.apply(rng.randrange(len(d.options[p])), p)
        assert g.error is None and g.violations() == []
        flown += sum(1 for line in g.log_lines() if " flies to " in line)
        floors = max(floors, g.state.counters[global_slot(g, "floor")])
    assert flown > 0 and floors >= 5


def test_holy_water_gives_two_cubes_for_energy() -> None:
    g = RULESET.new_game(1, 0, check_invariants=True, options={"mode": "combat"})
    cid = give(g, "Holy Water", "relics")
    choose(g, 0, "Ironclad")
    while not at_action(g):
        choose(g, 0, "pass")
    assert counter(g, cid, "relic_uses") == 2
    energy = pc(g, "energy")
    for _ in range(2):
        choose(g, 0, "use_relic")
        choose(g, 0, "Holy Water")
    assert pc(g, "energy") == energy + 2 and "use_relic" not in g.decision.options[0]


PREFER = ("move_on", "pass", "no")


def answer_until(g: Game, done: object, limit: int = 400) -> None:
    """Answer decisions (moving on / passing when offered, else the first option) until `done(g)`."""
    for _ in range(limit):
        if g.finished or done(g):  # type: ignore[operator]
            return
        d = g.decision
        assert d is not None, g.error
        p = d.players[0]
        opts = d.options[p]
        pick = next((opts.index(x) for x in PREFER if x in opts), 0)
        g.apply(pick, p)
    raise AssertionError("never reached")


def in_combat(g: Game) -> bool:
    return bool(g.state.counters[global_slot(g, "in_combat")])


def test_omamori_blocks_curses_and_ectoplasm_blocks_gold() -> None:
    """Neow's red reward gives 3 gold, but not to a player holding Ectoplasm; Omamori stops every curse."""
    g = RULESET.new_game(2, 0, check_invariants=True)
    give(g, "Omamori", "relics", 0)
    give(g, "Ectoplasm", "relics", 1)
    choose(g, 0, "Ironclad")
    choose(g, 1, "Silent")
    answer_until(g, in_combat)
    assert g.state.counters[player_slot(g, "gold", 1)] == 0
    assert "P2 cannot gain gold" in g.log_lines()
    assert g.state.counters[player_slot(g, "gold", 0)] >= 3


def neow_run(neow: str, seed: int = 0, relic: str | None = None) -> Game:
    """A solo run whose player is dealt the Neow card `neow` (and finds `relic` on top of the Relic deck)."""
    g = RULESET.new_game(1, seed, check_invariants=True)
    _move(g, card_ids(g, neow)[0], zone_index(g, "neow_deck"))
    if relic is not None:
        _move(g, card_ids(g, relic)[0], zone_index(g, "relic_deck"))
    choose(g, 0, "Ironclad")
    return g


def take_blessing(g: Game, blessing: str) -> None:
    answer_until(g, lambda g: blessing in g.decision.options[0])
    choose(g, 0, blessing)


ONE_SHOT = ["Astrolabe", "Calling Bell", "Empty Cage", "Enchiridion", "Orrery", "Pandora's Box", "Tiny House"]


@pytest.mark.parametrize("relic", ONE_SHOT + ["Old Coin"])
def test_one_shot_relics_are_used_then_discarded(relic: str) -> None:
    """Used at once when gained, then back at the bottom of their deck (§8.3); gained here through Neow's relic."""
    g = neow_run("Neow 3: Choose", relic=relic)
    take_blessing(g, "Gain 1 relic and 1 Curse")
    choose(g, 0, "yes")
    if relic == "Astrolabe":
        for _ in range(3):
            g.apply(0, 0)  # upgrade the first card offered
    answer_until(g, in_combat)
    cid = card_ids(g, relic)[0]
    home = "boss_relic_deck" if field(g, cid, "boss") else "relic_deck"
    assert g.state.card_zone[cid] == zone_index(g, home)
    assert g.state.zones[zone_index(g, home)][0] == cid
    assert f"P1 gains {relic}" in g.log_lines()
    deck = zone(g, "draw") + zone(g, "hand") + zone(g, "discard") + zone(g, "deck")
    ups = sum(1 for c in range(len(g.state.tables.card_names)) if g.state.counters[card_slot(g, c, "upgraded")])
    if relic == "Astrolabe":
        assert ups == 3
    if relic == "Old Coin":
        assert pc(g, "gold") == 3 + 10 + 2
    if relic == "Calling Bell":
        assert len(zone(g, "relics")) + len(zone(g, "used_relics")) == 2 + 3
    assert deck


@pytest.mark.parametrize("neow", [f"Neow {i}" for i in range(1, 15)])
@pytest.mark.parametrize("option", [0, 1, 2])
def test_every_neow_blessing_plays(neow: str, option: int) -> None:
    """§4 step 11: the red reward (3 gold and a card reward), then one of the three blue rewards."""
    g0 = RULESET.new_game(1, 0)
    full = next(n for n in g0.state.tables.card_names if n.startswith(neow + ":"))
    g = neow_run(full, seed=option)
    choose(g, 0, "pass")  # the red card reward
    blues = list(g.decision.options[0])
    assert len(blues) == 3 and pc(g, "gold") == 3
    g.apply(option, 0)
    answer_until(g, in_combat)
    assert g.error is None and g.violations() == []
    assert f"P1 chooses: {blues[option]}" in g.log_lines()


def test_solo_setup_gives_two_gold_and_the_loaded_die() -> None:
    g = neow_run("Neow 1: I've brought you back")
    answer_until(g, in_combat)
    assert "Loaded Die" in zone(g, "relics") and "P1 gains Loaded Die" in g.log_lines()


# ---------------------------------------------------------------- between rooms


def test_players_swap_rows_and_trade_potions_between_rooms() -> None:
    """§17.3 swap rows (before the first combat too, §4 step 7) and §8.2 potion trading, outside combat only."""
    g = RULESET.new_game(2, 1, check_invariants=True)
    give(g, "Fire Potion", "potions", 0)
    choose(g, 0, "Ironclad")
    choose(g, 1, "Silent")
    answer_until(g, lambda g: "swap_rows" in g.decision.options.get(g.decision.players[0], ()))
    p = g.decision.players[0]
    assert p == 0
    choose(g, 0, "give_potion")
    choose(g, 0, "Fire Potion")
    choose(g, 0, "P2")
    assert "Fire Potion" in zone(g, "potions", 1)
    choose(g, 1, "move_on")
    choose(g, 0, "swap_rows")
    choose(g, 0, "P2")
    assert g.state.counters[player_slot(g, "seat_no", 0)] == 1
    assert g.state.counters[player_slot(g, "seat_no", 1)] == 0
    answer_until(g, in_combat)
    # the first encounter: each row's card is in the row of its seat
    foes = g.state.zones[zone_index(g, "foes")]
    lanes = {g.state.counters[card_slot(g, e, "lane")] for e in foes}
    assert lanes == {0, 1}
    d = g.decision
    assert "give_potion" not in d.options[d.players[0]]


def test_blood_potion_may_be_drunk_between_rooms() -> None:
    g = RULESET.new_game(1, 2, check_invariants=True)
    give(g, "Blood Potion", "potions", 0)
    choose(g, 0, "Ironclad")
    answer_until(g, lambda g: "drink" in g.decision.options[0])
    set_pc(g, "hp", 5)
    refresh_decision(g)
    choose(g, 0, "drink")
    choose(g, 0, "Blood Potion")
    assert pc(g, "hp") == 7


def test_the_party_chips_in_at_the_merchant() -> None:
    """§9.2/§11.3: a player may pay part of another player's purchase."""
    g = RULESET.new_game(2, 3, check_invariants=True)
    choose(g, 0, "Ironclad")
    choose(g, 1, "Silent")
    answer_until(g, in_combat)
    assert g.error is None
