"""Slay the Spire rules audit (issue 22): the discrepancies the audit found, each as a scenario on the real ruleset.

The audit table itself (area, rulebook reference, ruleset location, verdict, test) is in docs/slay_the_spire.md,
"Rules audit (issue 22)". Section numbers (§N) are those of shared/rules/slay_the_spire.md, which cites the
Russian rulebook's pages.
"""

from __future__ import annotations

import pytest
from liturgy.interpreter.engine import Game

from tests.scenario import choose, refresh_decision
from tests.sts_setup import RULESET, counter, pc, set_pc, setc
from tests.test_slay_the_spire_faq import combat, foes, play, to_hand


def two_enemies_in_a_row(hero: str) -> tuple[Game, list[int]]:
    """A one-player combat with at least two living enemies in P1's row, 30 HP each, no Block, Curl Up spent."""
    for seed in range(60):
        g = combat(hero, seed)
        living = foes(g)
        if len(living) >= 2:
            for e in living:
                setc(g, e, "life", 30)
                setc(g, e, "e_block", 0)
                setc(g, e, "curled", 1)
            return g, living
    raise AssertionError("no encounter with two enemies in 60 seeds")  # pragma: no cover


def choose_row(g: Game) -> None:
    d = g.decision
    assert d is not None
    labels = [o for o in d.options[0] if o.startswith("P1")]
    assert len(labels) == 1, d.options[0]
    choose(g, 0, labels[0])


def test_a_weak_attacker_loses_one_weak_per_aoe_attack_and_every_hit_is_weakened() -> None:
    """§15.2, Weak (p. 24): "for AoE attacks ... the target still discards only 1 Weak", and Weak reduces every
    hit of that attack. Cleave (AoE hit 2) with 1 Weak: 1 damage to each enemy of the row, then Weak 0."""
    g, living = two_enemies_in_a_row("Ironclad")
    set_pc(g, "weak", 2)
    to_hand(g, "Cleave", gained=True)
    refresh_decision(g)
    play(g, "Cleave")
    choose_row(g)
    assert [counter(g, e, "life") for e in living] == [29] * len(living)
    assert pc(g, "weak") == 1


def test_one_weak_weakens_every_enemy_of_an_aoe_attack() -> None:
    g, living = two_enemies_in_a_row("Ironclad")
    set_pc(g, "weak", 1)
    to_hand(g, "Cleave", gained=True)
    refresh_decision(g)
    play(g, "Cleave")
    choose_row(g)
    assert [counter(g, e, "life") for e in living] == [29] * len(living)
    assert pc(g, "weak") == 0


# ---------------------------------------------------------------- AoE means one row and the boss (§16)


def two_rows(hero: str) -> tuple[Game, list[int], list[int]]:
    """A two-player combat at P1's first play decision; every enemy has 30 HP, no Block, Curl Up spent.
    Returns the enemies of P1's row and of P2's row (lane 0 and 1)."""
    for seed in range(40):
        g = RULESET.new_game(2, seed, check_invariants=True, options={"mode": "combat"})
        choose(g, 0, hero)
        choose(g, 1, "Ironclad" if hero != "Ironclad" else "Silent")
        d = g.decision
        assert d is not None and "end_turn" in d.options[0]
        living = foes(g)
        mine = [e for e in living if counter(g, e, "lane") == 0]
        theirs = [e for e in living if counter(g, e, "lane") == 1]
        if mine and theirs:
            for e in living:
                setc(g, e, "life", 30)
                setc(g, e, "e_block", 0)
                setc(g, e, "curled", 1)
            return g, mine, theirs
    raise AssertionError("no two-row encounter in 40 seeds")  # pragma: no cover


def choose_row_of(g: Game, seat: str) -> None:
    d = g.decision
    assert d is not None
    labels = [o for o in d.options[0] if o.startswith(seat)]
    assert len(labels) == 1, d.options[0]
    choose(g, 0, labels[0])


@pytest.mark.parametrize(
    ("hero", "card", "hp_after"),
    [("Silent", "Die Die Die", 27), ("Silent", "All-Out Attack", 28), ("Ironclad", "Immolate", 25),
     ("Defect", "Sweeping Beam", 29)],
)
def test_aoe_attack_cards_hit_one_row_and_the_boss(hero: str, card: str, hp_after: int) -> None:
    """§16 and §13.2: the AoE symbol hits all enemies of one chosen row plus the boss, never ALL enemies. These
    cards print the AoE starburst (S1 cards.ts, corrected in 305321f "Read the board before the card")."""
    g, mine, theirs = two_rows(hero)
    to_hand(g, card, gained=True)
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, card)
    choose_row_of(g, "P2")
    assert [counter(g, e, "life") for e in theirs] == [hp_after] * len(theirs)
    assert [counter(g, e, "life") for e in mine] == [30] * len(mine)


def test_crippling_cloud_and_piercing_wail_reach_one_row() -> None:
    g, mine, theirs = two_rows("Silent")
    to_hand(g, "Crippling Cloud", gained=True)
    to_hand(g, "Piercing Wail", gained=True)
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Crippling Cloud")
    choose_row_of(g, "P2")
    choose(g, 1, "end_turn")  # P2 passes; P1 acts on
    play(g, "Piercing Wail")
    choose_row_of(g, "P2")
    assert [(counter(g, e, "poison"), counter(g, e, "e_weak")) for e in theirs] == [(1, 2)] * len(theirs)
    assert [(counter(g, e, "poison"), counter(g, e, "e_weak")) for e in mine] == [(0, 0)] * len(mine)


# ---------------------------------------------------------------- the audited data, pinned


# (cost, cost when upgraded (-2: unchanged), rarity, type, copies): S1csv player-cards.csv for cost, rarity, type and
# copies, S1 src/game/cards.ts for the upgraded cost. Ten or more per character, plain and upgraded values checked.
CARDS = {
    "Anger": (0, -2, "common", "attack", 2), "Cleave": (1, -2, "common", "attack", 2),
    "Clothesline": (2, -2, "common", "attack", 2), "Shrug It Off": (1, -2, "common", "skill", 2),
    "Twin Strike": (1, -2, "common", "attack", 2), "Heavy Blade": (2, -2, "common", "attack", 2),
    "Iron Wave": (1, -2, "common", "attack", 2), "Carnage": (2, -2, "uncommon", "attack", 1),
    "Disarm": (1, -2, "uncommon", "skill", 1), "Inflame": (2, 1, "uncommon", "power", 1),
    "Shockwave": (2, -2, "uncommon", "skill", 1), "Metallicize": (1, 0, "uncommon", "power", 1),
    "Whirlwind": (-1, -2, "uncommon", "attack", 1), "Bludgeon": (3, -2, "rare", "attack", 1),
    "Demon Form": (3, 2, "rare", "power", 1), "Impervious": (2, -2, "rare", "skill", 1),
    "Immolate": (2, -2, "rare", "attack", 1),
    "Blade Dance": (1, -2, "common", "skill", 2), "Deadly Poison": (1, 0, "common", "skill", 2),
    "Dagger Spray": (1, -2, "common", "attack", 2), "Backflip": (1, -2, "common", "skill", 2),
    "Slice": (0, -2, "common", "attack", 2), "Footwork": (2, -2, "uncommon", "power", 1),
    "Noxious Fumes": (1, -2, "uncommon", "power", 1), "Catalyst": (1, -2, "uncommon", "skill", 1),
    "All-Out Attack": (1, -2, "uncommon", "attack", 1), "Crippling Cloud": (2, -2, "uncommon", "skill", 1),
    "Piercing Wail": (1, -2, "uncommon", "skill", 1), "Die Die Die": (1, -2, "rare", "attack", 1),
    "Adrenaline": (0, -2, "rare", "skill", 1),
    "Ball Lightning": (1, -2, "common", "attack", 2), "Cold Snap": (2, -2, "common", "attack", 2),
    "Coolheaded": (1, -2, "common", "skill", 2), "Sweeping Beam": (1, -2, "common", "attack", 2),
    "Glacier": (2, -2, "uncommon", "skill", 1), "Loop": (1, -2, "uncommon", "power", 1),
    "Defragment": (3, -2, "rare", "power", 1), "Hyperbeam": (2, -2, "rare", "attack", 1),
    "Buffer": (2, -2, "rare", "power", 1), "Echo Form": (3, -2, "rare", "power", 1),
    "Halt": (0, -2, "common", "skill", 2), "Empty Fist": (1, -2, "common", "attack", 2),
    "Flurry of Blows": (0, -2, "common", "attack", 2), "Protect": (2, -2, "common", "skill", 2),
    "Third Eye": (1, -2, "common", "skill", 2), "Mental Fortress": (1, -2, "uncommon", "power", 1),
    "Wallop": (2, -2, "uncommon", "attack", 1), "Omniscience": (3, 2, "rare", "skill", 1),
}

# Potions (copies, price) and relics (price): shared/rules/card_data.md 2.5 and 2.6; all 21 potions, 15 relics.
POTIONS = {
    "Ancient Potion": (1, 2), "Block Potion": (2, 2), "Fire Potion": (2, 2), "Cunning Potion": (1, 3),
    "Energy Potion": (2, 2), "Swift Potion": (2, 2), "Blood Potion": (1, 3), "Weak Potion": (2, 2),
    "Vulnerable Potion": (2, 2), "Flex Potion": (2, 2), "Explosive Potion": (2, 2), "Snecko Oil": (1, 3),
    "Attack Potion": (1, 2), "Skill Potion": (1, 2), "Distilled Chaos": (1, 3), "Entropic Brew": (1, 3),
    "Fairy in a Bottle": (1, 3), "Gambler's Brew": (1, 3), "Ghost in a Jar": (1, 4), "Liquid Memories": (1, 3),
    "Purity Potion": (1, 2),
}
RELICS = {
    "Anchor": 6, "Happy Flower": 6, "Akabeko": 6, "Bag of Preparation": 7, "Captain's Wheel": 8, "Duality": 8,
    "Gremlin Horn": 8, "Horn Cleat": 6, "Incense Burner": 11, "Meat on the Bone": 8, "Necronomicon": 9,
    "Orichalcum": 5, "Pen Nib": 8, "Stone Calendar": 7, "Tungsten Rod": 8, "Old Coin": 0,
}


def test_audited_cards_potions_and_relics_match_their_sources() -> None:
    g = RULESET.new_game(1, 0)
    t = g.state.tables
    for card, (cost, cost_up, rarity, kind, copies) in CARDS.items():
        ids = [c for c, n in enumerate(t.card_names) if n == card]
        c = ids[0]
        got = (t.fields["cost"][c], t.fields["cost_up"][c], t.fields["rarity"][c], t.fields["type"][c], len(ids))
        assert got == (cost, cost_up, rarity, kind, copies), card
    for potion, (copies, price) in POTIONS.items():
        ids = [c for c, n in enumerate(t.card_names) if n == potion]
        assert (len(ids), t.fields["price"][ids[0]]) == (copies, price), potion
    for relic, price in RELICS.items():
        assert t.fields["price"][t.card_names.index(relic)] == price, relic
