"""Slay the Spire, the Prismatic Shard's §23 use (issue 31): another character's orbs or stances.

"If you gain another character's ability to use stances or orbs, take the special relic Prismatic Shard. ... the
Defect does not get more orb slots, and the Watcher cannot take stances on the Prismatic Shard." The Shard's orb
slots for a character without any are lost from the transcription; the card gives 1 (provisional, its `source`
says why). Each scenario builds its position: A Note for Yourself hands the character another class's card, the
Daily Climb's Prismatic Shard hands the relic at the start.
"""

from __future__ import annotations

from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, choose, refresh_decision, zone_index
from tests.sts_setup import names, pc, set_pc, started, to_first_play, zone
from tests.test_slay_the_spire_act2_events import enter_act2_event
from tests.test_slay_the_spire_faq import only_enemy, play, run_start

SHARD_LINE = "P1 gains another character's orbs or stances: the Prismatic Shard"


def note_for_yourself(hero: str, other: str) -> Game:
    """A one-player run of ``hero`` that takes A Note for Yourself's card reward from ``other``'s deck (its first
    card): the card goes through the ruleset's `gain_card`, as every card a character gains does."""
    g = run_start(hero)
    enter_act2_event(g, "A Note for Yourself")
    choose(g, 0, "take_reward")
    choose(g, 0, other)
    g.apply(0, 0)
    return g


def test_an_ironclad_gaining_a_defect_card_takes_the_shard_and_one_orb_slot() -> None:
    g = note_for_yourself("Ironclad", "Defect")
    log = g.log_lines(None)
    assert SHARD_LINE in log and "P1 now has 1 orb slot(s) on the Prismatic Shard" in log
    assert names(g, "relics", 0).count("Prismatic Shard") == 1 and pc(g, "orb_slots") == 1
    assert len(zone(g, "shard_box")) == 3  # 4 copies: one taken
    assert "Watcher" not in names(g, "hero", 0)
    assert not g.violations()


def test_a_watcher_card_gives_the_shard_too() -> None:
    g = note_for_yourself("Ironclad", "Watcher")
    assert SHARD_LINE in g.log_lines(None) and names(g, "relics", 0).count("Prismatic Shard") == 1
    assert pc(g, "orb_slots") == 1  # the Shard's slot is the Shard's, however it was gained


def test_the_defect_on_the_shard_gets_no_more_orb_slots() -> None:
    g = to_first_play(started(1, 3, ("Defect",), daily_bonus="prismatic_shard"))
    assert "Prismatic Shard" in names(g, "relics", 0) and pc(g, "orb_slots") == 3
    assert not any("orb slot(s) on the Prismatic Shard" in line for line in g.log_lines(None))


def test_a_card_of_a_class_without_orbs_or_stances_gives_no_shard() -> None:
    g = note_for_yourself("Ironclad", "Silent")
    assert SHARD_LINE not in g.log_lines(None) and "Prismatic Shard" not in names(g, "relics", 0)
    assert len(zone(g, "shard_box")) == 4 and pc(g, "orb_slots") == 0


def test_an_ironclad_on_the_shard_channels_a_lightning_orb_into_its_slot() -> None:
    g = to_first_play(started(1, 3, ("Ironclad",), daily_bonus="prismatic_shard"))
    assert "Prismatic Shard" in names(g, "relics", 0) and pc(g, "orb_slots") == 1
    e = only_enemy(g, life=20)
    ball = card_ids(g, "Ball Lightning")[0]
    _move(g, ball, zone_index(g, "hand", 0))
    set_pc(g, "owned", pc(g, "owned") + 1)  # P1 owns it now (as a card reward would have given it)
    refresh_decision(g)
    play(g, "Ball Lightning", g.state.tables.card_names[e])
    lightning = g.state.counters[
        g.ruleset.compiled.layout.player_base + g.ruleset.compiled.layout.player_offsets["orbs"]]
    assert lightning == 1  # the orbs counter is indexed by Orb; lightning comes first
    assert not g.violations()
