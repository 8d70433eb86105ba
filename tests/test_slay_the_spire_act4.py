"""Slay the Spire, Act IV and the keys (issue 31, §25.7, §25.2 A11), on the real ruleset.

`--option mode=act4_combat` fights Act IV's elite (Spire Shield with Spire Spear) or its boss (the Corrupt Heart),
half each (cards/slay_the_spire/act4/; values from S1 and S2, provisional). Each card text gets a scenario built
the way tests/test_slay_the_spire_act3.py builds them: a combat at a decision, the enemies set up as the scenario
needs, then the turn played through the real rules. The keys and the change to Act IV are read from runs whose state
is set to the moment each rule speaks of (a campfire, a treasure, the Burning Elite, the Act III boss beaten).
"""

from __future__ import annotations

import random

import pytest
from liturgy.interpreter.engine import Game

from tests.scenario import _move, choose, global_slot, player_slot, refresh_decision, zone_index
from tests.sts_setup import (
    RULESET,
    counter,
    field,
    flag,
    fresh,
    gc,
    name,
    ok,
    pc,
    php,
    set_flag,
    set_pc,
    setc,
    started,
    zone,
)
from tests.test_slay_the_spire_acts import beat_the_boss, first_or_move_on, in_turn, keep_alive, step, walk_to_boss
from tests.test_slay_the_spire_faq import play, to_hand

HEART_SEED = 3  # act4_combat: seed 3 starts with the Corrupt Heart, seed 1 with Spire Shield and Spire Spear
ELITE_SEED = 1


def act4(players: int = 1, seed: int = HEART_SEED, ascension: int = 0) -> Game:
    return started(players, seed, mode="act4_combat", ascension=ascension)


def heart(g: Game) -> int:
    h, = [c for c in zone(g, "foes") if name(g, c).startswith("Corrupt Heart")]
    return h


def end_all(g: Game) -> None:
    """Every player ends the turn (the rest of the round runs to the next decision of the next round)."""
    start = gc(g, "combat_round")
    while in_turn(g) and gc(g, "combat_round") == start:
        for p in list(g.waiting_for()):
            d = g.decision
            assert d is not None
            if "end_turn" in d.options[p]:
                g.apply(d.options[p].index("end_turn"), p)
                break


def face(g: Game, choices: dict[int, str]) -> None:
    for p, enemy in choices.items():
        choose(g, p, enemy)


# ---------------------------------------------------------------- the Corrupt Heart


def test_the_heart_and_its_a11_face_by_ascension() -> None:
    """§25.2 A11: the A11 Corrupt Heart from Ascension 11; HP 100 per player (120 at A11), Invincible 50 (60)."""
    for asc, boss, hp in ((0, "Corrupt Heart", 200), (10, "Corrupt Heart", 200), (11, "Corrupt Heart (A11)", 240),
                          (20, "Corrupt Heart (A11)", 240)):
        g = act4(2, ascension=asc)
        h = heart(g)
        assert name(g, h) == boss and counter(g, h, "life") == hp and counter(g, h, "cubes") == 1
        assert f"the boss {boss} ({hp} HP) is in every row" in g.log_lines(None)
        ok(g)


def test_the_hearts_first_step_debilitates_then_it_hits_5_then_2_three_times_then_grows() -> None:
    """Its track: (once) AoE Weak 1 and Vulnerable 1 and 5 Slimed shuffled into the draw pile -> hit 5 -> hit 2
    three times -> +2 Strength, +1 ability cube, Invincible removed; then back to the 2nd step."""
    g = act4()
    h = heart(g)
    fresh(g)
    owned = pc(g, "owned")
    end_all(g)  # Beat of Death 1, then the first step
    assert php(g, 0) == 19 and php(g, 0, "weak") == 1 and php(g, 0, "vulnerable") == 1
    assert pc(g, "owned") == owned + 5
    slimed = [c for c in zone(g, "draw", 0) + zone(g, "hand", 0) if name(g, c) == "Slimed / Burn"]
    assert len(slimed) == 5
    assert "P1 shuffles 5 Slimed into the draw pile" in g.log_lines(None)
    assert counter(g, h, "marker") == 1
    set_pc(g, "hp", 20)
    set_pc(g, "block", 0)
    refresh_decision(g)
    end_all(g)  # Beat of Death 1, hit 5 doubled by Vulnerable
    assert php(g, 0) == 20 - 1 - 10 and php(g, 0, "vulnerable") == 0
    set_pc(g, "hp", 20)
    refresh_decision(g)
    end_all(g)  # Beat of Death 1, hit 2 three times
    assert php(g, 0) == 20 - 1 - 6
    set_pc(g, "hp", 20)
    refresh_decision(g)
    end_all(g)  # Beat of Death 1, then it grows
    assert php(g, 0) == 19
    assert counter(g, h, "e_str") == 2 and counter(g, h, "cubes") == 2 and counter(g, h, "unguarded") == 1
    assert counter(g, h, "marker") == 1  # the grey first step is not played again
    set_pc(g, "hp", 20)
    refresh_decision(g)
    end_all(g)  # Beat of Death 2 now, then hit 5 + 2 Strength
    assert php(g, 0) == 20 - 2 - 7
    ok(g)


def test_invincible_keeps_the_heart_at_50_per_player_until_its_fourth_step() -> None:
    g = act4()
    h = heart(g)
    setc(g, h, "life", 52)
    fresh(g)
    to_hand(g, "Bash")
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Bash", "Corrupt Heart")
    assert counter(g, h, "life") == 50  # a 2-damage Bash would leave 50 anyway: hit it again
    to_hand(g, "Bash")
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Bash", "Corrupt Heart")
    assert counter(g, h, "life") == 50  # not below its guard
    setc(g, h, "unguarded", 1)
    to_hand(g, "Bash")
    set_pc(g, "energy", 3)
    refresh_decision(g)
    play(g, "Bash", "Corrupt Heart")
    assert counter(g, h, "life") < 50
    ok(g)


def test_beat_of_death_hurts_every_player_per_cube_and_block_stops_it() -> None:
    g = act4(2)
    h = heart(g)
    setc(g, h, "cubes", 3)
    setc(g, h, "marker", 3)  # its growing step: no attack this round
    fresh(g)
    g.state.counters[player_slot(g, "block", 1)] = 2
    refresh_decision(g)
    end_all(g)
    assert php(g, 0) == 17 and php(g, 1) == 19  # 3 each; P2's 2 Block take 2 of it
    assert "Corrupt Heart's Beat of Death: 3 damage to every player" in g.log_lines(None)
    assert counter(g, h, "cubes") == 3  # at most 3
    ok(g)


def test_the_a11_heart_shuffles_burns_and_grows_two_cubes_up_to_five() -> None:
    g = act4(ascension=11)
    h = heart(g)
    fresh(g)
    end_all(g)
    assert "P1 shuffles 5 Burns into the draw pile" in g.log_lines(None)
    setc(g, h, "marker", 3)
    setc(g, h, "cubes", 4)
    set_pc(g, "hp", 20)
    refresh_decision(g)
    end_all(g)
    assert counter(g, h, "cubes") == 5 and counter(g, h, "unguarded") == 1
    ok(g)


# ---------------------------------------------------------------- Spire Shield and Spire Spear (Facing)


def test_spire_shield_and_spire_spear_come_together_and_every_player_faces_one_each_turn() -> None:
    g = act4(2, ELITE_SEED)
    placed = sorted(name(g, c) for c in zone(g, "foes"))
    assert placed == ["Spire Shield", "Spire Spear"]
    hp = {name(g, c): counter(g, c, "life") for c in zone(g, "foes")}
    assert hp == {"Spire Shield": 60, "Spire Spear": 84}
    d = g.decision
    assert d is not None and d.prompt == "Facing: which enemy do you face this turn?"
    assert sorted(d.options[0]) == ["Spire Shield", "Spire Spear"]
    ok(g)


def test_facing_the_spire_shield_costs_energy_then_draws_then_damage_by_its_step() -> None:
    """Facing it: lose 1 Energy (its 1st step), draw no more cards this turn (2nd), attacks deal no damage (3rd)."""
    g = act4(1, ELITE_SEED)
    face(g, {0: "Spire Shield"})
    assert pc(g, "energy") == 2 and pc(g, "faced") == 1
    g = act4(1, ELITE_SEED)
    shield = next(c for c in zone(g, "foes") if name(g, c) == "Spire Shield")
    setc(g, shield, "marker", 1)
    refresh_decision(g)
    face(g, {0: "Spire Shield"})
    assert pc(g, "no_draw") == 1 and pc(g, "energy") == 3
    g = act4(1, ELITE_SEED)
    shield, spear = sorted(zone(g, "foes"), key=lambda c: name(g, c))
    setc(g, shield, "marker", 2)
    refresh_decision(g)
    face(g, {0: "Spire Shield"})
    assert pc(g, "harmless") == 1
    to_hand(g, "Strike (Ironclad)")
    refresh_decision(g)
    play(g, "Strike (Ironclad)", "Spire Spear")
    assert counter(g, spear, "life") == 42  # no damage this turn
    ok(g)


def test_facing_the_spire_spear_puts_two_burns_on_the_discard_pile() -> None:
    g = act4(1, ELITE_SEED)
    owned = pc(g, "owned")
    face(g, {0: "Spire Spear"})
    assert pc(g, "owned") == owned + 2 and pc(g, "faced") == 2
    assert [name(g, c) for c in zone(g, "discard", 0)] == ["Slimed / Burn"] * 2
    assert g.log_lines(None)[-2:] == ["P1 gets a Burn on the discard pile"] * 2
    ok(g)


def test_facing_attacks_hit_only_the_players_facing_them_and_the_spears_daze_hits_everyone() -> None:
    """Spire Shield's 2nd step hits 8 the players facing it; Spire Spear's 1st hits 2 twice the players facing it;
    the Spear's 2nd step dazes every player twice."""
    g = act4(2, ELITE_SEED)
    shield, spear = sorted(zone(g, "foes"), key=lambda c: name(g, c))
    setc(g, shield, "marker", 1)
    refresh_decision(g)
    face(g, {0: "Spire Shield", 1: "Spire Spear"})
    fresh(g)
    end_all(g)
    assert php(g, 0) == 20 - 8 and php(g, 1) == 20 - 4
    assert counter(g, shield, "marker") == 2 and counter(g, spear, "marker") == 1
    face(g, {0: "Spire Spear", 1: "Spire Spear"})
    setc(g, shield, "marker", 0)
    fresh(g)
    mark = len(g.log_lines(None))
    end_all(g)
    new = g.log_lines(None)[mark:]
    assert [new.count(f"P{p} gets a Daze on top of the draw pile") for p in (1, 2)] == [2, 2]
    assert counter(g, shield, "e_block") == 20  # its 1st step: 20 Block
    ok(g)


def test_the_spire_shield_strengthens_every_enemy_by_two() -> None:
    g = act4(1, ELITE_SEED)
    shield, spear = sorted(zone(g, "foes"), key=lambda c: name(g, c))
    setc(g, shield, "marker", 2)
    setc(g, spear, "marker", 1)
    refresh_decision(g)
    face(g, {0: "Spire Spear"})
    fresh(g)
    end_all(g)
    assert counter(g, shield, "e_str") == 2 and counter(g, spear, "e_str") == 2
    ok(g)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_act_iv_combats_play_to_the_end_under_the_invariants(players: int) -> None:
    """Random play of `act4_combat` games, 1-4 players: no error, no invariant broken, and both fights met."""
    met: set[str] = set()
    for seed in range(6):
        g = RULESET.new_game(players, seed, check_invariants=True, options={"mode": "act4_combat"})
        g.random_playout(random.Random(seed))
        ok(g)
        assert g.finished
        log = g.log_lines(None)
        met |= {n for n in ("Corrupt Heart", "Spire Shield", "Spire Spear")
                if any(ln.startswith((f"{n} (", f"the boss {n} (")) for ln in log)}
    assert met == {"Corrupt Heart", "Spire Shield", "Spire Spear"}


# ---------------------------------------------------------------- the keys


def test_the_burning_elite_token_replaces_a_dark_monster_token_only_when_act_iv_can_be_reached() -> None:
    for acts, burning in (("4", True), ("3", False), ("1", False)):
        g = RULESET.new_game(1, 1, options={"acts": acts})
        dark = [field(g, t, "room") for t in zone(g, "dark_tokens")]
        assert ("burning_elite" in dark) == burning, acts
        assert len(dark) == 8
        assert dark.count("monster") == (2 if burning else 3)


def boss_beaten_in_act_iii(players: int, keys: tuple[str, ...], ascension: int = 0) -> Game:
    """An Act I boss fight set as the Act III boss's (current_act 3) with `keys` held, then beaten."""
    g, _ = walk_to_boss(players, 1, {"ascension": str(ascension)} if ascension else None)
    g.state.counters[global_slot(g, "current_act")] = 3
    for k in ("ruby_key", "sapphire_key", "emerald_key"):
        set_flag(g, k, k in keys)
    if ascension >= 13:
        set_flag(g, "second_boss")
    for p in range(players):
        g.state.counters[player_slot(g, "hp", p)] = 2
    beat_the_boss(g)
    return g


def test_without_the_three_keys_the_run_is_won_at_the_act_iii_boss() -> None:
    g = boss_beaten_in_act_iii(1, ("ruby_key", "sapphire_key"))
    while not g.finished:
        first_or_move_on(g)
    log = g.log_lines(None)
    assert "the boss is beaten: the party wins the run" in log and not any(ln.startswith("Act IV") for ln in log)
    assert g.result is not None and g.result["scores"] == [1]


@pytest.mark.parametrize("ascension,side,rooms", [(0, 4, ["merchant", "boss"]), (11, 5, ["merchant", "elite", "boss"])])
def test_with_the_three_keys_act_iv_is_climbed_to_the_heart(ascension: int, side: int, rooms: list[str]) -> None:
    """§25.7: Act IV when all three keys are held at the end of Act III: healed as at Acts II and III, its map (a
    campfire, a merchant, the elite from A11, the Heart), and the run won only at the Corrupt Heart."""
    g = boss_beaten_in_act_iii(2, ("ruby_key", "sapphire_key", "emerald_key"), ascension)
    while not any(ln.startswith("Act IV begins") for ln in g.log_lines(None)):
        assert not g.finished
        first_or_move_on(g)
    assert gc(g, "current_act") == 4 and gc(g, "map_side") == side and gc(g, "floor") == 0
    boss, = zone(g, "boss_card")
    assert name(g, boss) == ("Corrupt Heart (A11)" if ascension >= 11 else "Corrupt Heart")
    # HP 2 before, max HP 20 (the walk's): to full, or 4 HP from A6 (P1's Burning Blood healed 1 at the combat's end)
    assert [php(g, p) for p in range(2)] == ([20, 20] if ascension < 6 else [2 + 1 + 4, 2 + 4])
    log = g.log_lines(None)
    start = next(i for i, ln in enumerate(log) if ln.startswith("Act IV begins"))
    assert log[start] == "Act IV begins: the party holds the Ruby Key, the Sapphire Key, the Emerald Key"
    assert log[start - 1] == "the boss is beaten: Act III is complete"
    for _ in range(400):
        if in_turn(g) and any(field(g, e, "foe") == "boss" for e in zone(g, "foes")):
            break
        if in_turn(g):
            beat_the_boss(g)
        else:
            first_or_move_on(g)
    else:
        raise AssertionError("the Heart was never reached")
    entered = [ln.split(": ")[1] for ln in g.log_lines(None)[start:] if ln.startswith("the party enters floor")]
    assert entered == ["campfire"] + rooms
    if ascension >= 11:
        assert any(ln.startswith("Spire Shield (") for ln in g.log_lines(None)[start:])
    beat_the_boss(g)
    while not g.finished:
        first_or_move_on(g)
    assert [x for x in g.log_lines(None) if "chievement" not in x][-2] == "the boss is beaten: the party wins the run"
    assert g.result is not None and g.result["scores"] == [1, 1]
    ok(g)


def to_map(g: Game) -> None:
    """Play on (enemies killed, first options, moving on) to the party's next choice of room."""
    for _ in range(500):
        d = g.decision
        assert d is not None and not g.finished, g.error
        if d.prompt.startswith("Map:"):
            return
        if in_turn(g):
            beat_the_boss(g)
        else:
            first_or_move_on(g)
    raise AssertionError("no room choice")


def room_on(g: Game, side: int, fl: int, col: int) -> int:
    return next(r for r in zone(g, "map") if (field(g, r, "side"), field(g, r, "floor"), field(g, r, "col")) == (
        side, fl, col))


def before_room(g: Game, target: int) -> None:
    """Put the party on the floor below map room `target`, in a room with a path to it, at its room choice."""
    side, fl, col = (field(g, target, k) for k in ("side", "floor", "col"))
    below = next(r for r in zone(g, "map") if field(g, r, "side") == side and field(g, r, "floor") == fl - 1
                 and col in field(g, r, "next"))  # type: ignore[operator]
    _move(g, below, zone_index(g, "visited"), "top")
    g.state.counters[global_slot(g, "map_side")] = side
    g.state.counters[global_slot(g, "floor")] = fl - 1
    refresh_decision(g)
    choose(g, 0, name(g, target))


def run_at(acts: str, side: int, fl: int, col: int) -> Game:
    g = RULESET.new_game(1, 1, check_invariants=True, options={"acts": acts})
    choose(g, 0, "Ironclad")
    to_map(g)
    before_room(g, room_on(g, side, fl, col))
    return g


def test_the_ruby_key_at_a_campfire_means_nobody_rests() -> None:
    """§25.7: at a campfire the party may take the Ruby Key together; then nobody rests or smiths."""
    g = run_at("4", 1, 11, 1)  # Act I's floor 11: four printed campfires
    d = g.decision
    assert d is not None and d.prompt == "Campfire: take the Ruby Key? (then nobody rests or smiths here)"
    set_pc(g, "hp", 3)
    refresh_decision(g)
    choose(g, 0, "ruby")
    assert flag(g, "ruby_key") and pc(g, "hp") == 3
    assert "the party takes the Ruby Key: nobody rests or smiths here" in g.log_lines(None)
    g = run_at("4", 1, 11, 1)
    choose(g, 0, "pass")  # no key: the campfire as usual
    d = g.decision
    assert d is not None and d.prompt.startswith("Campfire: rest") and not flag(g, "ruby_key")
    g = run_at("3", 1, 11, 1)  # a run that cannot reach Act IV is offered no key
    d = g.decision
    assert d is not None and d.prompt.startswith("Campfire: rest")


def test_the_sapphire_key_at_a_treasure_skips_every_relic() -> None:
    """§25.7: the party may skip the relics of a treasure (revealed first) for the Sapphire Key; they are
    discarded."""
    g = run_at("4", 1, 6, 1)  # Act I's floor 6: printed treasures
    d = g.decision
    assert d is not None and d.prompt.startswith("Treasure: skip the relics revealed (")
    relics = len(zone(g, "relics", 0))
    choose(g, 0, "sapphire")
    assert flag(g, "sapphire_key") and len(zone(g, "relics", 0)) == relics and not zone(g, "relic_offer")
    assert "the party takes the Sapphire Key: the relics are discarded" in g.log_lines(None)
    g = run_at("4", 1, 6, 1)
    offered = zone(g, "relic_offer")
    choose(g, 0, "pass")
    d = g.decision
    assert d is not None and d.prompt == f"Relic reward: keep {name(g, offered[0])}?"
    choose(g, 0, "yes")
    assert offered[0] in zone(g, "relics", 0) and not flag(g, "sapphire_key")
    g = run_at("1", 1, 6, 1)
    d = g.decision
    assert d is not None and d.prompt.startswith("Relic reward: keep")


def test_the_burning_elite_adds_two_burns_and_gives_the_emerald_key() -> None:
    """§25.7: before fighting the Burning Elite each player shuffles 2 Burns into the deck (S1's reading of the
    lost icon); beating it gives the Emerald Key."""
    g = RULESET.new_game(1, 1, check_invariants=True)
    choose(g, 0, "Ironclad")
    to_map(g)
    burning = [field(g, t, "room") for t in zone(g, "dark_tokens")].index("burning_elite")
    side = gc(g, "map_side")
    room = next(r for r in zone(g, "map") if field(g, r, "side") == side and field(g, r, "room") == "dark_token"
                and field(g, r, "slot") == burning)
    owned = pc(g, "owned")
    before_room(g, room)
    log = g.log_lines(None)
    assert f"the party enters floor {field(g, room, 'floor')}: Burning Elite" in log
    assert "P1 shuffles 2 Burns into the deck" in log and flag(g, "burns") and flag(g, "burning_fight")
    assert pc(g, "owned") == owned + 2
    assert any(field(g, e, "foe") == "elite" for e in zone(g, "foes"))
    beat_the_boss(g)
    assert flag(g, "emerald_key") and not flag(g, "burning_fight")
    assert "the party takes the Emerald Key" in g.log_lines(None)
    assert pc(g, "owned") == owned  # the Burns went back with the other status cards
    ok(g)


def test_with_the_emerald_key_the_next_act_has_no_burning_elite() -> None:
    """§25.7: "After you gain the Emerald key, undo this swap for later Acts"; without it, it is made again."""
    for emerald in (True, False):
        g, _ = walk_to_boss(1, 1)
        set_flag(g, "emerald_key", emerald)
        beat_the_boss(g)
        while "Act II begins" not in g.log_lines(None):
            first_or_move_on(g)
        dark = [field(g, t, "room") for t in zone(g, "dark_tokens")]
        assert ("burning_elite" in dark) != emerald and len(dark) == 8
        assert dark.count("monster") == (3 if emerald else 2)


def test_acts_takes_1_to_4() -> None:
    with pytest.raises(ValueError, match=r"option `acts` takes a whole number from 1 to 4, not `5`"):
        RULESET.new_game(1, 1, options={"acts": "5"})


def test_a_kept_alive_default_climb_takes_the_keys_and_wins_at_the_heart() -> None:
    """The default climb (acts=4), kept alive and played at random (seed 5, solo): the three keys taken on the way,
    Act IV after the Act III boss, and the run won only at the Corrupt Heart."""
    g = RULESET.new_game(1, 5, check_invariants=True)
    rng = random.Random(5)
    while not g.finished:
        step(g, rng)
        keep_alive(g, 1)
    ok(g)
    log = g.log_lines(None)
    keys = [ln for ln in log if ln.startswith("the party takes the")]
    assert sorted(k.split(":")[0] for k in keys) == [
        "the party takes the Emerald Key", "the party takes the Ruby Key", "the party takes the Sapphire Key"]
    act4 = log.index("Act IV begins: the party holds the Ruby Key, the Sapphire Key, the Emerald Key")
    assert log[act4 - 1] == "the boss is beaten: Act III is complete" and all(log.index(k) < act4 for k in keys)
    assert "the boss Corrupt Heart (100 HP) is in every row" in log[act4:]
    before_feats = [x for x in log if "chievement" not in x]  # (the achievements come after the win)
    assert before_feats[-2] == "the boss is beaten: the party wins the run" and g.result is not None
    assert g.result["scores"] == [1]
    # a run won at the Heart has won Act III too: the character's gem is earned (achievements.rules, run_feats)
    assert any(x.startswith("Achievement: ") and "(Act III won with the" in x for x in log), log[-6:]


def test_moving_into_an_empty_row_in_the_act_iv_elite_combat_is_allowed() -> None:
    """FAQ §24.2: "Moving to an empty row during an Act IV elite combat: allowed." Three players against Spire Shield
    (bottom row) and Spire Spear (top row): P2's row is empty, and P1's Leap switches P1 into it."""
    g = act4(3, ELITE_SEED)
    shield, spear = sorted(zone(g, "foes"), key=lambda c: name(g, c))
    assert (counter(g, shield, "lane"), counter(g, spear, "lane")) == (2, 0)
    face(g, {0: "Spire Spear", 1: "Spire Spear", 2: "Spire Shield"})
    set_pc(g, "energy", 3)
    d = g.decision
    assert d is not None and 0 in d.options
    to_hand(g, "Leap", gained=True)
    refresh_decision(g)
    play(g, "Leap")
    choose(g, 0, "P1")  # the Block goes to P1
    d = g.decision
    assert d is not None and "P2" in d.options[0]  # the empty row is offered
    choose(g, 0, "P2")
    assert counter(g, spear, "lane") == 1 and counter(g, shield, "lane") == 2
    assert not [c for c in zone(g, "foes") if counter(g, c, "lane") == 0]  # P1 now stands in the empty row
    ok(g)
