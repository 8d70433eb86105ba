"""Neow's Blessing audited against S1 (issue 22, "Map and rooms, Neow"): the 14 base Neow cards and their three
blue options against S1csv data/raw/neow.csv, and the procedure against S1 src/game/run.ts and neow.ts at ecb5e10
(red reward: 3 gold and a Card Reward; one blue option; a solo player then gains 2 gold and the Loaded Die; an
upgrade never goes to a Curse, which has no upgrade: S1 `canUpgradeCard`)."""

from __future__ import annotations

from pathlib import Path

import yaml
from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, choose, player_slot, refresh_decision, zone_index
from tests.sts_setup import RULESET

CARDS = Path(__file__).resolve().parents[1] / "cards" / "slay_the_spire"

# S1csv data/raw/neow.csv, the 14 rows without an unlock (the 6 "c" rows need the colorless unlock, not modelled):
# Option 1, Option 2, Option 3 as printed there.
NEOW_CSV = [
    ("Upgrade 1 card", "Remove 1 card", "Gain 10 gold, lose 2 HP"),
    ("Upgrade 1 card", "1 random rare card", "10 gold, 1 curse"),
    ("Upgrade 1 card", "5 gold", "1 relic, 1 curse"),
    ("Upgrade 1 card", "3 potions", "1 rare card, 1 curse"),
    ("3 potions", "1 card", "relic, lose 3 gold"),
    ("Remove 1 card", "Transform 1 card", "1 relic, lose 2 HP"),
    ("5 gold", "1 random rare card", "1 rare card, lose 3 gold"),
    ("Upgrade 1 card", "3 potions", "upgrade 2 random cards, lose 2 hp"),
    ("transform 1 card", "5 gold", "remove 2 cards, lose 3 hp"),
    ("1 random rare card", "1 card", "remove 2 cards, lose 2 hp"),
    ("1 random rare card", "Transform 1 card", "upgrade 2 random cards, 1 curse"),
    ("Remove 1 card", "5 gold", "upgrade 2 random cards, lose 3 gold"),
    ("Remove 1 card", "Transform 1 card", "transform 2 cards, lose 3 hp"),
    ("Remove 1 card", "3 potions", "5 gold, 1 card, 1 curse"),
]


def words(text: str) -> set[str]:
    """The words that carry an option's meaning ("Gain 1 Rare Card Reward" ~ "1 rare card")."""
    drop = {"gain", "and", "reward", "card", "cards", "random", "1", ","}
    return {w.strip(",").lower() for w in text.split()} - drop


def test_each_neow_card_offers_the_three_options_s1csv_prints() -> None:
    blessings = yaml.safe_load((CARDS / "blessings.yaml").read_text())["cards"]
    neows = yaml.safe_load((CARDS / "neow.yaml").read_text())["cards"]
    assert sorted(n["number"] for n in neows) == list(range(1, 15))
    for number, printed in enumerate(NEOW_CSV, start=1):
        ours = [b for b in blessings if number in b["neow"]]
        assert len(ours) == 3, number
        for option in printed:
            matches = [b["name"] for b in ours if words(b["name"]) == words(option)]
            # "1 random rare card" and "1 rare card" differ only in "random": keep them apart
            if "random" in option.lower():
                matches = [m for m in matches if "random" in m.lower()]
            elif "rare" in option.lower():
                matches = [m for m in matches if "random" not in m.lower()]
            assert len(matches) == 1, (number, option, [b["name"] for b in ours])


def at_neow_choice(seed: int) -> Game | None:
    """A one-player run stopped at Neow's blue choice, or None once past it."""
    g = RULESET.new_game(1, seed, check_invariants=True)
    choose(g, 0, "Ironclad")
    for _ in range(20):
        d = g.decision
        assert d is not None, g.error
        if "Upgrade 1 card" in d.options[0]:
            return g
        if any(o.startswith("Neow") or "gold" in o or "Transform" in o for o in d.options[0]):
            return None
        g.apply(d.options[0].index("pass") if "pass" in d.options[0] else 0, 0)
    return None


def test_a_neow_upgrade_never_offers_a_curse() -> None:
    g = next(x for x in (at_neow_choice(seed) for seed in range(1, 40)) if x is not None)
    curse = card_ids(g, "Doubt")[0]
    _move(g, curse, zone_index(g, "deck", 0))
    g.state.counters[player_slot(g, "owned", 0)] += 1
    refresh_decision(g)
    choose(g, 0, "Upgrade 1 card")
    d = g.decision
    assert d is not None and g.error is None
    assert "Doubt" not in d.options[0] and "Strike (Ironclad)" in d.options[0]
    assert not g.violations()


def test_a_solo_player_leaves_neow_with_the_loaded_die_and_two_more_gold() -> None:
    g = RULESET.new_game(1, 3, check_invariants=True)
    choose(g, 0, "Ironclad")
    for _ in range(40):
        d = g.decision
        assert d is not None, g.error
        if any(o.startswith("Side ") for o in d.options[0]):
            break
        opts = d.options[0]
        # pass the card rewards, take the blue option that changes no gold (the first whose name has no "gold")
        pick = next((i for i, o in enumerate(opts) if o == "pass"), None)
        if pick is None:
            pick = next((i for i, o in enumerate(opts) if "gold" not in o.lower()), 0)
        g.apply(pick, 0)
    relics = [g.state.tables.card_names[c] for c in g.state.zones[zone_index(g, "relics", 0)]]
    assert "Loaded Die" in relics
    assert int(g.state.counters[player_slot(g, "gold", 0)]) == 3 + 2  # the red reward's 3, then the solo 2
