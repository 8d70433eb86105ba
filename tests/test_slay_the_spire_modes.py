"""Slay the Spire's `mode=combat` shuffles only the decks a single combat draws from.

Setup shuffles the relic, potion, boss relic, curse, event, Neow and elite decks, and the character's Card
Rewards and Rare Rewards decks, only in `mode=run` (a combat-mode game spends about a sixth less time that way).
That is only sound while nothing in a combat draws from them: a combat-mode deck holds only starter cards, so not
even Foreign Influence (which reveals Card Rewards) can be played. These tests play random combats for 1-4 players
and check that every run-only deck ends the combat exactly as the card files put it (nothing drawn, nothing put
back), and that the run mode still shuffles them. A card, relic or enemy that starts drawing from one of them in a
combat fails here, and the deck then has to be shuffled in combat mode too.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from liturgy.interpreter.engine import Game, load_ruleset

from tests.scenario import zone_index

RULESET = load_ruleset(str(Path(__file__).resolve().parents[1] / "rulesets" / "slay_the_spire.rules"))
RUN_ONLY = ["elite_deck", "relic_deck", "potion_deck", "boss_relic_deck", "curse_deck", "event_deck", "neow_deck"]


def _run_only_decks(g: Game) -> dict[str, list[int]]:
    """The shared run-only decks and every player's Card Rewards and Rare Rewards decks."""
    zones = g.state.zones
    decks = {name: list(zones[zone_index(g, name)]) for name in RUN_ONLY}
    for p in range(g.players):
        decks[f"P{p + 1} rewards"] = list(zones[zone_index(g, "rewards", p)])
        decks[f"P{p + 1} rares"] = list(zones[zone_index(g, "rares", p)])
    return decks


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_a_combat_never_draws_from_the_decks_it_leaves_unshuffled(players: int) -> None:
    for seed in range(6):
        g = RULESET.new_game(players, seed, options={"mode": "combat"})
        g.random_playout(random.Random(seed))
        assert g.finished
        for name, cards in _run_only_decks(g).items():
            assert cards, (name, seed)
            assert cards == sorted(cards), f"{name} was shuffled or drawn from in a combat (seed {seed})"


def test_the_run_mode_still_shuffles_them() -> None:
    g = RULESET.new_game(2, 1, options={"mode": "run"})
    while g.state.zones[zone_index(g, "rares", 1)] == []:  # until both characters are chosen
        assert g.decision is not None
        g.apply(0, g.waiting_for()[0])
    for name, cards in _run_only_decks(g).items():
        assert cards != sorted(cards), name
