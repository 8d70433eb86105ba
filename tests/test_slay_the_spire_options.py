"""Slay the Spire's optional ways to play (issue 31, rulesets/slay_the_spire/options.rules): quick start (§25.5),
"To the Last" (§25.9), "Choose your relic" (§25.10) and Daily Climbs (§25.4), on the real ruleset.

Runs are walked as tests/test_slay_the_spire_acts.py walks them: every option chosen at random or the first one,
the characters kept at 20 HP (test-only edits) until the position a rule needs is reached.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml
from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, card_slot, global_slot, player_slot, zone_index
from tests.sts_setup import RULESET, field, gc, names, php, zone
from tests.test_slay_the_spire_acts import beat_the_boss, first_or_move_on, in_turn, keep_alive, step, walk_to_boss

TABLE = Path(__file__).resolve().parents[1] / "cards" / "slay_the_spire" / "options" / "quick_start.yaml"


def to_first_combat(g: Game) -> None:
    while not in_turn(g):
        assert not g.finished, g.log_lines(None)[-5:]
        first_or_move_on(g)


def walk_until(g: Game, rng: random.Random, done: object, limit: int = 20000) -> None:
    """Random choices (characters kept alive) until ``done(g)`` holds."""
    assert callable(done)
    for _ in range(limit):
        if done(g):
            return
        assert not g.finished, g.log_lines(None)[-5:]
        step(g, rng)
        keep_alive(g, g.players)
    raise AssertionError("not reached")


# ---------------------------------------------------------------- quick start (§25.5)


@pytest.mark.parametrize(("act", "word"), [(2, "II"), (3, "III")])
def test_quick_start_takes_the_table_row_by_row_and_begins_the_act(act: int, word: str) -> None:
    rows = yaml.safe_load(TABLE.read_text())["cards"]
    g = RULESET.new_game(2, 5, check_invariants=True, options={"start_act": str(act)})
    to_first_combat(g)
    log = g.log_lines(None)
    assert f"Quick start: the party begins in Act {word}" in log
    taken = [line for line in log if line.startswith("Quick start: ") and " x" in line]
    words = {"gold": "gold", "card_rewards": "card rewards", "transform": "transform a card", "die_roll": "a die roll",
             "potion": "potion", "relic": "relic", "rare_rewards": "rare rewards", "boss_relics": "boss relics",
             "card_rewards_again": "card rewards", "remove": "remove a card", "upgrade": "upgrade a card"}
    want = [f"Quick start: {words[r['reward']]} x{r['counts'][act - 2]}" for r in rows
            if r["reward"] in words and r["counts"][act - 2] > 0]
    assert [t.lower() for t in taken] == [w.lower() for w in want]  # every row, top to bottom, none skipped or repeated
    # the merchant after the last row, then the Act as after its previous boss
    assert log.index(taken[-1]) < log.index(f"Act {word} begins")
    assert gc(g, "current_act") == act and gc(g, "map_side") == act and gc(g, "floor") == 0
    assert all(field(g, e, "act_no") == act for e in zone(g, "foes"))
    assert not any("1st" in n for n in names(g, "foes"))
    assert sum("on the quick-start table" in line for line in log) == 2 * (act - 1)  # per player, per die symbol
    boss, = zone(g, "boss_card")
    assert field(g, boss, "act_no") == act
    assert not g.violations()


def to_act_iv(g: Game) -> list[str]:
    """First options (moving on) until Act IV begins; the log so far."""
    while not any(ln.startswith("Act IV begins") for ln in g.log_lines(None)):
        assert not g.finished, g.log_lines(None)[-5:]
        first_or_move_on(g)
    return g.log_lines(None)


def climb_to_the_heart(g: Game) -> list[str]:
    """Enemies beaten, first options taken, to the Corrupt Heart's fight; the rooms entered on the way."""
    start = len(g.log_lines(None))
    for _ in range(400):
        if in_turn(g) and any(field(g, e, "foe") == "boss" for e in zone(g, "foes")):
            return [ln.split(": ")[1] for ln in g.log_lines(None)[start:] if ln.startswith("the party enters floor")]
        if in_turn(g):
            beat_the_boss(g)
        else:
            first_or_move_on(g)
    raise AssertionError("the Heart was never reached")


@pytest.mark.parametrize(("ascension", "side", "heart"), [(0, 4, "Corrupt Heart"), (11, 5, "Corrupt Heart (A11)")])
def test_quick_start_in_act_iv_takes_the_act_iv_column_and_the_three_keys(ascension: int, side: int,
                                                                          heart: str) -> None:
    """§25.5 with §25.7: the table's Act IV column row by row, the team's merchant, the three keys Act IV needs,
    then Act IV as after the Act III boss: its map (with the elite from A11), the Corrupt Heart (its A11 face)."""
    rows = yaml.safe_load(TABLE.read_text())["cards"]
    g = RULESET.new_game(2, 5, check_invariants=True, options={"start_act": "4", "ascension": str(ascension)})
    log = to_act_iv(g)
    assert "Quick start: the party begins in Act IV" in log
    taken = [line for line in log if line.startswith("Quick start: ") and " x" in line]
    want = [r["counts"][2] for r in rows if r["reward"] not in ("neow_bonus", "merchant_visit") and r["counts"][2]]
    assert [int(t.rsplit(" x", 1)[1]) for t in taken] == want  # every row of the Act IV column, top to bottom
    assert sum("on the quick-start table" in line for line in log) == 2 * 3  # per player, per die symbol
    keys = "the Ruby Key, the Sapphire Key, the Emerald Key"
    assert log.index(taken[-1]) < log.index(f"Quick start: the party holds {keys}")
    begins = log.index(f"Act IV begins: the party holds {keys}")
    assert log[begins - 1] == f"Quick start: the party holds {keys}"
    assert not any(ln.startswith(("Act II begins", "Act III begins")) for ln in log)
    assert gc(g, "current_act") == 4 and gc(g, "map_side") == side and gc(g, "floor") == 0
    boss, = zone(g, "boss_card")
    assert field(g, boss, "name") == heart
    rooms = climb_to_the_heart(g)
    assert rooms == (["campfire", "merchant", "elite", "boss"] if ascension >= 11 else ["campfire", "merchant", "boss"])
    assert [field(g, e, "name") for e in zone(g, "foes") if field(g, e, "foe") == "boss"] == [heart]
    assert not g.violations()


def test_quick_start_in_act_iv_is_won_at_the_heart() -> None:
    g = RULESET.new_game(1, 3, check_invariants=True, options={"start_act": "4"})
    to_act_iv(g)
    climb_to_the_heart(g)
    beat_the_boss(g)
    while not g.finished:
        first_or_move_on(g)
    assert "the boss is beaten: the party wins the run" in g.log_lines(None)
    assert g.result is not None and g.result["scores"] == [1]
    assert not g.violations()


@pytest.mark.parametrize(("start", "acts", "word"), [("4", "2", "IV"), ("3", "1", "III")])
def test_a_quick_start_past_the_last_act_plays_its_starting_act_only(start: str, acts: str, word: str) -> None:
    """`start_act` greater than `acts`: the starting Act is played, and its boss wins the run (our reading)."""
    g = RULESET.new_game(1, 3, check_invariants=True, options={"start_act": start, "acts": acts})
    while not (in_turn(g) and any(field(g, e, "foe") == "boss" for e in zone(g, "foes"))):
        assert not g.finished, g.log_lines(None)[-5:]
        if in_turn(g):
            beat_the_boss(g)
        else:
            first_or_move_on(g)
    assert gc(g, "current_act") == int(start)
    beat_the_boss(g)
    while not g.finished:
        first_or_move_on(g)
    log = g.log_lines(None)
    assert f"Quick start: the party begins in Act {word}" in log
    assert "the boss is beaten: the party wins the run" in log
    assert g.result is not None and g.result["scores"] == [1]


def test_start_act_takes_1_to_4() -> None:
    with pytest.raises(ValueError, match="start_act"):
        RULESET.new_game(2, 1, options={"start_act": "5"})


def test_the_quick_start_boss_relics_are_a_team_draft() -> None:
    """Boss relics go to the team as after a boss: players + 1 revealed, each takes one (solo: 3, §25.6)."""
    for players, shown, act in ((2, 3, "2"), (1, 3, "2"), (3, 4, "2"), (1, 3, "3")):
        g = RULESET.new_game(players, 2, check_invariants=True, options={"start_act": act})
        while not (g.decision is not None and any("Boss relic" in g.decision.prompt_for(p) for p in g.waiting_for())):
            assert not g.finished
            first_or_move_on(g)
        assert len(zone(g, "relic_offer")) == shown


# ---------------------------------------------------------------- To the Last (§25.9)


def fall_in_boss_fight(acts: int) -> Game:
    g, rng = walk_to_boss(2, 1, {"to_the_last": "on", "acts": str(acts)})
    while php(g, 0) > 0:
        assert not g.finished, g.log_lines(None)[-5:]
        g.state.counters[player_slot(g, "hp", 0)] = 1
        g.state.counters[player_slot(g, "block", 0)] = 0
        g.state.counters[player_slot(g, "hp", 1)] = 20
        g.state.counters[player_slot(g, "max_hp", 1)] = 20
        for p in list(g.waiting_for()):
            d = g.decision
            assert d is not None
            g.apply(d.options[p].index("end_turn") if "end_turn" in d.options[p] else 0, p)
    return g


def test_to_the_last_a_character_falls_in_a_boss_fight_and_the_others_fight_on() -> None:
    g = fall_in_boss_fight(3)
    assert not g.finished
    assert "P1 falls: the others fight on to the last" in g.log_lines(None)
    mark = len(g.log_lines(None))
    to_turn = 0
    while to_turn < 2 and not g.finished:  # two more rounds: P1 is asked nothing and attacked by nobody
        g.state.counters[player_slot(g, "hp", 1)] = 20
        for p in list(g.waiting_for()):
            assert p == 1
            d = g.decision
            assert d is not None
            g.apply(d.options[p].index("end_turn") if "end_turn" in d.options[p] else 0, p)
        to_turn += 1
    later = g.log_lines(None)[mark:]
    assert not any("attacks P1" in line for line in later) and php(g, 0) == 0
    # an enemy of the fallen P1's row (the top row) attacks the nearest row below with a character: P2's
    louse = card_ids(g, "Green Louse 1")[0]
    _move(g, louse, zone_index(g, "foes"))
    for counter, value in (("life", 5), ("lane", 0), ("marker", 0)):
        g.state.counters[card_slot(g, louse, counter)] = value
    g.state.counters[global_slot(g, "die_result")] = 1  # its 1-2: hit its row for 1
    mark = len(g.log_lines(None))
    g.state.counters[player_slot(g, "hp", 1)] = 20
    d = g.decision
    assert d is not None and list(g.waiting_for()) == [1]
    g.apply(d.options[1].index("end_turn"), 1)
    while not in_turn(g) and not g.finished:  # end-of-turn questions (an orb's target): the first option
        g.apply(0, g.waiting_for()[0])
    assert any(line.startswith("Green Louse 1 attacks P2") for line in g.log_lines(None)[mark:])
    beat_the_boss(g)
    assert g.finished and g.result is not None and g.result["winners"] == []  # Act I complete, the run cannot go on
    assert ("the boss is beaten to the last: Act I is complete, but with a character fallen the party cannot go on"
            in g.log_lines(None))


def test_to_the_last_wins_the_run_when_the_boss_of_its_last_act_falls() -> None:
    g = fall_in_boss_fight(1)
    beat_the_boss(g)
    assert g.finished and g.result is not None and g.result["winners"] == [0, 1]
    assert "the boss is beaten to the last: the party wins the run" in g.log_lines(None)


def test_without_to_the_last_a_death_in_the_boss_fight_ends_the_run() -> None:
    g, _ = walk_to_boss(2, 1, {"acts": "1"})
    while not g.finished:
        g.state.counters[player_slot(g, "hp", 0)] = 1
        g.state.counters[player_slot(g, "block", 0)] = 0
        for p in list(g.waiting_for()):
            d = g.decision
            assert d is not None
            g.apply(d.options[p].index("end_turn") if "end_turn" in d.options[p] else 0, p)
    assert "P1 dies: the party is defeated" in g.log_lines(None)
    assert g.result is not None and g.result["winners"] == []


# ---------------------------------------------------------------- Choose your relic (§25.10)


def test_choose_your_relic_reveals_one_relic_per_character_and_each_chooses() -> None:
    g = RULESET.new_game(3, 2, check_invariants=True, options={"choose_relic": "on", "acts": "1"})
    rng = random.Random(2)
    walk_until(g, rng, lambda g: "the party reveals 3 relics" in g.log_lines(None))
    offer = zone(g, "relic_offer")
    assert len(offer) == 3
    d = g.decision
    assert d is not None and list(g.waiting_for()) == [0] and "Choose your relic" in d.prompt_for(0)
    before = [len(zone(g, "relics", p)) for p in range(3)]
    g.apply(0, 0)  # P1 takes the first relic revealed ...
    assert len(zone(g, "relics", 0)) + len(zone(g, "used_relics", 0)) >= before[0]
    assert list(g.waiting_for()) == [1] and len(zone(g, "relic_offer")) <= 2  # ... and P2 chooses from the rest


def test_without_choose_your_relic_each_player_gets_a_relic_reward_of_their_own() -> None:
    g = RULESET.new_game(3, 2, check_invariants=True, options={"acts": "1"})
    rng = random.Random(2)
    walk_until(g, rng, lambda g: g.decision is not None and any(
        "Relic reward: keep" in g.decision.prompt_for(p) for p in g.waiting_for()))
    assert len(zone(g, "relic_offer")) == 1
    assert "the party reveals" not in " ".join(g.log_lines(None))


# ---------------------------------------------------------------- Daily Climbs (§25.4)


def cards_of(g: Game, p: int, kind: str) -> int:
    held = [c for z in ("deck", "draw", "hand", "discard") for c in zone(g, z, p)]
    return sum(field(g, c, "rarity" if kind == "rare" else "type") == kind for c in held)


def test_daily_climb_rolls_one_modifier_from_each_list_from_the_seed() -> None:
    seen = set()
    for seed in range(1, 13):
        g = RULESET.new_game(1, seed, check_invariants=True, options={"daily": "on"})
        to_first_combat(g)
        daily = [line for line in g.log_lines(None) if line.startswith("Daily Climb: ")]
        assert len(daily) == 2
        again = RULESET.new_game(1, seed, options={"daily": "on"})
        to_first_combat(again)
        assert [x for x in again.log_lines(None) if x.startswith("Daily Climb: ")] == daily  # the seed decides
        seen.update(daily)
    assert len(seen) >= 6  # both lists vary with the seed


def test_charm_and_blight_change_the_starting_decks() -> None:
    plain = RULESET.new_game(2, 4, check_invariants=True)
    to_first_combat(plain)
    daily = RULESET.new_game(2, 4, check_invariants=True, options={"daily_bonus": "charm", "daily_penalty": "blight"})
    to_first_combat(daily)
    assert "Daily Climb: Charm" in daily.log_lines(None) and "Daily Climb: Blight" in daily.log_lines(None)
    for p in range(2):
        assert cards_of(daily, p, "rare") == cards_of(plain, p, "rare") + 5
        assert cards_of(daily, p, "curse") == cards_of(plain, p, "curse") + 2


def test_heirloom_gives_each_player_a_boss_relic() -> None:
    g = RULESET.new_game(2, 4, check_invariants=True, options={"daily_bonus": "heirloom"})
    to_first_combat(g)
    for p in range(2):
        assert any(field(g, r, "boss") for r in zone(g, "relics", p) + zone(g, "used_relics", p))


def test_leprosy_costs_1_hp_at_the_end_of_each_combat() -> None:
    g = RULESET.new_game(1, 3, check_invariants=True, options={"daily_penalty": "leprosy"})
    to_first_combat(g)
    beat_the_boss(g)  # (any combat: every enemy at 0 HP, the turn ended)
    log = g.log_lines(None)
    assert log.index("Leprosy: P1 loses 1 HP") > log.index("the combat is won")


def test_transformation_turns_card_rewards_into_transforms_and_rarity_gives_rares() -> None:
    g = RULESET.new_game(1, 3, check_invariants=True, options={"daily_bonus": "transformation"})
    to_first_combat(g)
    assert "Transformation: P1 transforms a card instead of a card reward" in g.log_lines(None)  # Neow's card reward
    r = RULESET.new_game(1, 3, check_invariants=True, options={"daily_bonus": "rarity"})
    to_first_combat(r)
    # a normal Encounter with a card reward lies among the killed: its card reward becomes a rare reward
    normal = next(e for e in zone(r, "encounter_deck") if field(r, e, "card_reward"))
    r.state.counters[card_slot(r, normal, "life")] = 0
    _move(r, normal, zone_index(r, "fallen"))
    beat_the_boss(r)
    d = r.decision
    assert d is not None
    offer = zone(r, "offer", 0)
    assert offer and all(field(r, c, "rarity") == "rare" for c in offer)


def test_nightmares_forbid_resting_and_dangerous_secrets_cost_2_hp_after_events() -> None:
    g = RULESET.new_game(1, 6, check_invariants=True,
                         options={"daily_penalty": "nightmares", "acts": "1"})
    rng = random.Random(6)
    walk_until(g, rng, lambda g: g.decision is not None and any(
        "Campfire" in g.decision.prompt_for(p) for p in g.waiting_for()))
    d = g.decision
    assert d is not None and "rest" not in d.options[0] and d.options[0]  # (smith only, or nothing to choose)
    plain = RULESET.new_game(1, 6, check_invariants=True, options={"acts": "1"})  # the same walk, without it
    walk_until(plain, random.Random(6), lambda g: g.decision is not None and any(
        "Campfire" in g.decision.prompt_for(p) for p in g.waiting_for()))
    assert plain.decision is not None and "rest" in plain.decision.options[0]
    s = RULESET.new_game(1, 6, check_invariants=True, options={"daily_penalty": "dangerous_secrets", "acts": "1"})
    walk_until(s, random.Random(6), lambda g: any(x.startswith("event: ") for x in g.log_lines(None))
               and "Dangerous Secrets: P1 loses 2 HP" in g.log_lines(None))


def test_insanity_transforms_a_random_card_at_the_end_of_each_combat() -> None:
    g = RULESET.new_game(1, 3, check_invariants=True, options={"daily_penalty": "insanity"})
    to_first_combat(g)
    removed = len(zone(g, "removed", 0))
    beat_the_boss(g)  # (any combat: every enemy at 0 HP, the turn ended)
    log = g.log_lines(None)
    lines = [x for x in log if x.startswith("Insanity: P1's ")]
    assert len(lines) == 1 and log.index(lines[0]) > log.index("the combat is won")
    assert len(zone(g, "removed", 0)) == removed + 1  # one card out, the top Card Reward in


def test_to_the_last_in_random_act_ii_and_iii_boss_fights() -> None:
    """Random boss fights of Acts II and III (a quarter of `act2_combat`/`act3_combat` games) with 2-4 players under
    the invariants: characters fall one by one, the others fight on, and the run ends only when the last one dies or
    the boss does. Before the option, every such game ended at the first death."""
    fell = 0
    for mode in ("act2_combat", "act3_combat"):
        for seed in range(1, 25):
            g = RULESET.new_game(seed % 3 + 2, seed, check_invariants=True, options={"to_the_last": "on",
                                                                                       "mode": mode})
            g.random_playout(random.Random(seed))
            assert g.error is None and not g.violations()
            log = g.log_lines(None)
            falls = [i for i, x in enumerate(log) if x.endswith("falls: the others fight on to the last")]
            if falls:
                fell += 1
                assert any(" is in every row" in x for x in log)  # only in a boss fight
                assert len(falls) < g.players  # the last one standing dies, not falls
                assert "dies: the party is defeated" in log[-2] or "wins" in log[-2]
                assert len(log) > falls[0] + 3  # the fight went on
    assert fell >= 5
