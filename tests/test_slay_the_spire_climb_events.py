"""Slay the Spire, the climb's last events and options (issue 31): A Note for Yourself (Acts II and III), Secret
Portal and Mind Bloom's War (Act III), the Daily Climb's Uncertain Future and the Infinity achievement
(rulesets/slay_the_spire/climb_events.rules, cards/slay_the_spire/climb_events/). Each scenario builds the position
its rule needs: a run at its first combat, moved to the Act wanted with the event on top of that Act's Event deck,
then walked into floor 1's event room (tests/test_slay_the_spire_act2_events.py's `enter_act2_event`).
"""

from __future__ import annotations

from liturgy.interpreter.engine import Game

from tests.scenario import _move, card_ids, card_slot, choose, global_slot, player_slot, refresh_decision, zone_index
from tests.sts_setup import RULESET, field, flag, gc, name, names, pc, set_pc, started, to_first_play, zone
from tests.test_slay_the_spire_act2_events import enter_act2_event
from tests.test_slay_the_spire_acts import beat_the_boss, in_turn
from tests.test_slay_the_spire_faq import only_enemy, owned_ids, play, run_start
from tests.test_slay_the_spire_options import to_first_combat


def kill_all(g: Game) -> None:
    """Every enemy killed (at 0 HP among the fallen, as the ruleset's `kill` leaves them), then the turn ended."""
    for e in zone(g, "foes"):
        g.state.counters[card_slot(g, e, "life")] = 0
        _move(g, e, zone_index(g, "fallen"))
    beat_the_boss(g)


def options(g: Game, p: int = 0) -> list[str]:
    d = g.decision
    assert d is not None, g.error
    return list(d.options[p])


def take_until(g: Game, wanted: str, p: int = 0, limit: int = 60) -> None:
    """Take the first option (or pass) for whoever waits until ``wanted`` is one of ``p``'s options."""
    for _ in range(limit):
        d = g.decision
        assert d is not None, g.error
        if p in d.options and wanted in d.options[p]:
            return
        q = d.players[0]
        opts = d.options[q]
        g.apply(opts.index("move_on") if "move_on" in opts else opts.index("pass") if "pass" in opts else 0, q)
    raise AssertionError(f"{wanted} never offered")


# ---------------------------------------------------------------- the decks


def test_the_act_ii_and_iii_event_decks_are_complete() -> None:
    """S1 lists 14 Ascension-0 events for Act II and 11 for Act III: all are in now."""
    g = run_start()
    assert len(zone(g, "event_deck_2")) == 14 and "A Note for Yourself" in names(g, "event_deck_2")
    deck_3 = names(g, "event_deck_3")
    assert len(deck_3) == 11 and {"A Note for Yourself (Act III)", "Secret Portal", "Mind Bloom"} <= set(deck_3)


# ---------------------------------------------------------------- Mind Bloom's War


def act_iii_boss_in_slot(g: Game) -> int:
    """The Act III boss in the boss slot (the run was moved to Act III by hand: its Act I boss goes back)."""
    for b in zone(g, "boss_card"):
        _move(g, b, zone_index(g, "boss_deck"))
    eater = card_ids(g, "Time Eater")[0]
    _move(g, eater, zone_index(g, "boss_card"))
    return eater


def test_mind_bloom_war_fights_an_act_i_boss_outside_the_boss_slot() -> None:
    g = run_start()
    enter_act2_event(g, "Mind Bloom", act=3)
    eater = act_iii_boss_in_slot(g)
    refresh_decision(g)
    assert "war" in options(g)
    gold = pc(g, "gold")
    choose(g, 0, "war")
    bosses = [e for e in zone(g, "foes") if field(g, e, "foe") == "boss"]
    assert len(bosses) == 1 and field(g, bosses[0], "act_no") == 1 and in_turn(g)
    log = g.log_lines(None)
    assert log[log.index("Mind Bloom: the party goes to war against a boss of Act I") + 1] == (
        f"the boss {name(g, bosses[0])} ({g.state.counters[card_slot(g, bosses[0], 'life')]} HP) is in every row")
    assert zone(g, "boss_card") == [eater] and not zone(g, "boss_wait")  # the Act's boss keeps its slot
    kill_all(g)
    # the event's rewards: a relic reward, then a card reward; no gold from the boss card
    d = g.decision
    assert d is not None and d.prompt_for(0).startswith("Relic reward: keep")
    choose(g, 0, "no")
    assert zone(g, "offer", 0) and "pass" in options(g)
    choose(g, 0, "pass")
    log = g.log_lines(None)
    assert "the combat is won" in log and not any(line.startswith("the boss is beaten") for line in log)
    assert pc(g, "gold") == gold and gc(g, "current_act") == 3 and not flag(g, "boss_beaten") and not g.finished
    assert bosses[0] in zone(g, "boss_deck") and zone(g, "boss_card") == [eater]
    assert not g.state.counters[card_slot(g, bosses[0], "side_fight")]
    assert not g.violations()


def test_mind_bloom_war_is_not_a_last_stand() -> None:
    """To the Last lets a character fall in the Act's boss fight only: in Mind Bloom's War a death ends the run."""
    g = two_player_event("Mind Bloom", act=3, to_the_last="on")
    act_iii_boss_in_slot(g)
    for other in ("Hexaghost", "Slime Boss"):  # The Guardian is the Act I boss drawn: its first step hits 2
        _move(g, card_ids(g, other)[0], zone_index(g, "asc_box"))
    refresh_decision(g)
    choose(g, 0, "war")
    assert names(g, "foes") == ["The Guardian"] and in_turn(g)
    g.state.counters[player_slot(g, "hp", 1)] = 1
    refresh_decision(g)
    while in_turn(g):
        for p in list(g.waiting_for()):
            d = g.decision
            assert d is not None
            g.apply(d.options[p].index("end_turn"), p)
    assert g.finished and g.result is not None and g.result["winners"] == []
    assert not g.state.counters[player_slot(g, "dead", 1)]
    assert not any("falls: the others fight on" in line for line in g.log_lines(None))


# ---------------------------------------------------------------- Secret Portal


def test_secret_portal_moves_the_party_up_to_any_higher_room_ignoring_paths() -> None:
    g = run_start()
    enter_act2_event(g, "Secret Portal", act=3)
    offered = options(g)
    assert "Side 1 floor 1 room 3" not in offered and "Side 1 floor 12 room 3" in offered  # up only, the boss too
    assert all(int(o.split()[3]) > 1 for o in offered)
    choose(g, 0, "Side 1 floor 6 room 3")  # a treasure room, no path leads there from floor 1
    log = g.log_lines(None)
    assert "the Secret Portal opens onto floor 6" in log
    assert log.index("the party enters floor 6: treasure") > log.index("event: Secret Portal")
    assert gc(g, "floor") == 6 and not zone(g, "portal_room")
    take_until(g, "Side 1 floor 7 room 3")
    assert [o for o in options(g) if o.startswith("Side ")] == ["Side 1 floor 7 room 3"]  # on from the new room
    assert not g.violations()


# ---------------------------------------------------------------- A Note for Yourself


def test_a_note_for_yourself_alone_takes_a_card_reward_of_a_character_nobody_plays() -> None:
    g = run_start()
    enter_act2_event(g, "A Note for Yourself")
    assert options(g) == ["take_reward"]  # no other player: nobody to exchange with
    choose(g, 0, "take_reward")
    assert sorted(options(g)) == ["Defect", "Silent", "Watcher"]
    owned = pc(g, "owned")
    library = len(zone(g, "library"))
    choose(g, 0, "Silent")
    offer = zone(g, "offer", 0)
    assert len(offer) == 3
    assert all(field(g, c, "class") == "silent" and field(g, c, "rarity") in ("common", "uncommon") for c in offer)
    taken = offer[0]
    g.apply(0, 0)
    assert taken in zone(g, "deck", 0) and pc(g, "owned") == owned + 1
    assert len(zone(g, "library")) == library - 1 and not zone(g, "note_pool") and not zone(g, "offer", 0)
    assert not g.violations()


def two_player_event(event: str, act: int = 2, **opts: object) -> Game:
    """A two-player run (Ironclad, Silent) at floor 1's event room, ``event`` drawn, in Act ``act``."""
    g = started(2, 3, ("Ironclad", "Silent"), **opts)
    to_first_combat(g)
    g.state.counters[global_slot(g, "map_side")] = 1
    g.state.counters[global_slot(g, "current_act")] = act
    _move(g, card_ids(g, event)[0], zone_index(g, f"event_deck_{act}"), "top")
    e = only_enemy(g, life=1)
    own = next(c for c in card_ids(g, "Strike (Ironclad)") if c in owned_ids(g, 0))
    _move(g, own, zone_index(g, "hand", 0))
    refresh_decision(g)
    play(g, "Strike (Ironclad)", name(g, e))
    take_until(g, "Side 1 floor 1 room 1")
    choose(g, 0, "Side 1 floor 1 room 1")
    assert f"event: {event}" in g.log_lines(None)
    return g


def test_a_note_for_yourself_exchanges_a_card_with_another_player() -> None:
    g = two_player_event("A Note for Yourself (Act III)", act=3)
    assert sorted(options(g)) == ["take_reward", "trade_cards"]
    owned = (pc(g, "owned"), g.state.counters[player_slot(g, "owned", 1)])
    choose(g, 0, "trade_cards")
    choose(g, 0, "P2")
    choose(g, 0, "Bash")
    assert g.waiting_for() == (1,) and "Neutralize" in options(g, 1)  # P2 gives one of their own deck
    choose(g, 1, "Neutralize")
    assert "Neutralize" in names(g, "deck", 0) and "Bash" in names(g, "deck", 1)
    assert (pc(g, "owned"), g.state.counters[player_slot(g, "owned", 1)]) == owned
    assert "P1 and P2 exchange a card" in g.log_lines(None)
    assert "P1 receives Neutralize from P2" in g.log_lines(0) and "P2 receives Bash from P1" in g.log_lines(1)
    assert not any("receives" in line for line in g.log_lines(None))  # the spectator reads only the exchange
    assert not g.violations()


def test_a_note_for_yourself_takes_from_another_players_card_rewards() -> None:
    g = two_player_event("A Note for Yourself")
    choose(g, 0, "take_reward")
    assert "Silent" in options(g) and "Ironclad" not in options(g)
    top3 = zone(g, "rewards", 1)[-3:]  # (a zone lists its cards bottom to top)
    size = len(zone(g, "rewards", 1))
    choose(g, 0, "Silent")
    assert sorted(zone(g, "offer", 0)) == sorted(top3)  # the top of P2's Card Rewards deck, offered to P1
    taken = zone(g, "offer", 0)[0]
    g.apply(0, 0)
    assert taken in zone(g, "deck", 0) and taken not in owned_ids(g, 1)
    rest = [c for c in top3 if c != taken]
    assert len(zone(g, "rewards", 1)) == size - 1 and zone(g, "rewards", 1)[:2] == sorted(rest, key=zone(
        g, "rewards", 1).index)  # the two others at the bottom of P2's deck
    assert not g.violations()


# ---------------------------------------------------------------- Daily Climb: Uncertain Future


def test_uncertain_future_deals_the_tokens_face_down_and_turns_each_when_reached() -> None:
    g = RULESET.new_game(1, 3, check_invariants=True, options={"daily_penalty": "uncertain_future"})
    plain = RULESET.new_game(1, 3, check_invariants=True)
    assert not zone(g, "dark_tokens") and not zone(g, "light_tokens")
    assert zone(g, "dark_hidden") == zone(plain, "dark_tokens")  # the same deal, in the same order, face down
    assert zone(g, "light_hidden") == zone(plain, "light_tokens")
    to_first_play(g)
    side = gc(g, "map_side")
    rooms = [r for r in zone(g, "map") if field(g, r, "side") == side]
    space = next(r for r in rooms if field(g, r, "room") == "light_token" and field(g, r, "floor") >= 2)
    floor, col = field(g, space, "floor"), field(g, space, "col")
    below = next(r for r in rooms if field(g, r, "floor") == floor - 1 and col in field(g, r, "next"))
    token = zone(g, "light_hidden")[field(g, space, "slot")]
    kind = str(field(g, token, "room"))
    kind = {"elite_room": "elite", "burning_elite": "Burning Elite"}.get(kind, kind)
    # a test-only edit: the party stands in the room below the space when the combat ends
    _move(g, below, zone_index(g, "visited"), "top")
    g.state.counters[global_slot(g, "floor")] = floor - 1
    e = only_enemy(g, life=1)
    own = next(c for c in card_ids(g, "Strike (Ironclad)") if c in owned_ids(g, 0))
    _move(g, own, zone_index(g, "hand", 0))
    refresh_decision(g)
    play(g, "Strike (Ironclad)", name(g, e))
    room = name(g, space)
    take_until(g, room)
    details = dict(zip(options(g), g.option_details(0), strict=True))
    assert details[room] == f"floor {floor} column {col + 1}: light map token"  # its back, not its token
    panel = "\n".join(g.display(0) or [])
    assert "o a map token still face down" in panel and "[o]" in panel  # the next room, shown as its back
    hidden_view = g.view(None)
    assert name(g, token) not in str(hidden_view)
    choose(g, 0, room)
    assert f"the party enters floor {floor}: {kind}" in g.log_lines(None)
    assert name(g, token) in str(g.view(None))  # turned face up for everyone
    assert not g.violations()


# ---------------------------------------------------------------- Infinity


def play_again(g: Game, cid: int) -> None:
    """Put the played card back into the hand, alone there (a test-only edit, as a card returning to the hand
    would), and play it."""
    for c in zone(g, "hand", 0):
        _move(g, c, zone_index(g, "discard", 0))
    _move(g, cid, zone_index(g, "hand", 0))
    set_pc(g, "energy", 3)
    refresh_decision(g)
    choose(g, 0, "play_card")
    choose(g, 0, name(g, cid))
    if g.decision is not None and any(name(g, e) in options(g) for e in zone(g, "foes")):
        g.apply(0, 0)


def _infinity_combat() -> tuple[Game, int, int]:
    """A solo Ironclad combat against one enemy too strong to die, one of the player's Defends and the slot of
    the Infinity achievement."""
    g = started(1, 3, ("Ironclad",), mode="combat")
    only_enemy(g, life=99)
    defend = next(c for c in card_ids(g, "Defend (Ironclad)") if c in owned_ids(g, 0))
    return g, defend, global_slot(g, "earned") + RULESET.compiled.layout.enum_index["Feat"]["infinity"]


def test_infinity_is_a_card_played_a_third_time_in_one_turn() -> None:
    g, defend, earned = _infinity_combat()
    play_again(g, defend)
    play_again(g, defend)
    assert not g.state.counters[earned]  # twice in a turn: no loop shown yet
    play_again(g, defend)
    assert g.state.counters[earned]
    assert g.state.counters[card_slot(g, defend, "turn_plays")] == 3
    assert not g.violations()


def test_plays_in_different_turns_are_not_infinity() -> None:
    g, defend, earned = _infinity_combat()
    play_again(g, defend)
    play_again(g, defend)
    choose(g, 0, "end_turn")
    for _ in range(10):
        if in_turn(g):
            break
        g.apply(0, 0)
    play_again(g, defend)
    assert not g.state.counters[earned] and g.state.counters[card_slot(g, defend, "turn_plays")] == 1
    assert not g.violations()


def test_a_golden_ticket_in_another_characters_card_reward_takes_from_their_rares() -> None:
    """§23: a Golden Ticket revealed from another character's Card Rewards deck adds a card of that character's
    Rare Rewards deck to the offer."""
    g = two_player_event("A Note for Yourself")
    ticket = card_ids(g, "Golden Ticket (Silent)")[0]
    _move(g, ticket, zone_index(g, "rewards", 1), "top")
    rare = zone(g, "rares", 1)[-1]
    choose(g, 0, "take_reward")
    choose(g, 0, "Silent")
    offer = zone(g, "offer", 0)
    assert ticket in offer and rare in offer and len(offer) == 4
    assert name(g, rare) in options(g) and name(g, ticket) not in options(g)  # the Ticket itself is not taken
    choose(g, 0, name(g, rare))
    assert rare in zone(g, "deck", 0) and ticket in zone(g, "rewards", 1) and not g.violations()


def test_a_kept_alive_climb_meets_the_new_events_under_the_invariants() -> None:
    """Two players climb Acts I-III at random, kept alive; at the start of Acts II and III the new events are put on
    top of that Act's Event deck (a test-only edit after the deck's shuffle), so the walk resolves them with random
    choices under every invariant, and the run still ends only at the Act III boss."""
    import random

    from tests.test_slay_the_spire_acts import keep_alive, step

    g = RULESET.new_game(2, 1, check_invariants=True, options={"acts": "3"})
    rng = random.Random(1)
    stacked = {1}
    while not g.finished:
        act = gc(g, "current_act")
        if act not in stacked and act in (2, 3):
            stacked.add(act)
            # (the last one moved lies on top: in Act III the Note, then the Portal, then Mind Bloom)
            new = ["A Note for Yourself"] if act == 2 else [
                "Mind Bloom", "Secret Portal", "A Note for Yourself (Act III)"]
            for event in new:
                _move(g, card_ids(g, event)[0], zone_index(g, f"event_deck_{act}"), "top")
        step(g, rng)
        keep_alive(g, 2)
    assert g.error is None and not g.violations()
    assert g.result is not None and g.result["scores"] == [1, 1]
    log = g.log_lines(None)
    met = {line[len("event: "):] for line in log if line.startswith("event: ")}
    assert {"A Note for Yourself", "A Note for Yourself (Act III)", "Secret Portal"} <= met
    assert any(line.startswith("the Secret Portal opens onto floor ") for line in log)
    assert [x for x in log if "chievement" not in x][-2] == "the boss is beaten: the party wins the run"


# ---------------------------------------------------------------- the Colorless Rewards deck and All Star

COLORLESS = [
    "Finesse", "Flash of Steel", "Good Instincts", "Swift Strike", "Blind", "Dramatic Entrance", "Master of Strategy",
    "Trip", "Impatience", "Mind Blast", "Hand of Greed", "Panacea", "Purity", "Apparition", "Dark Shackles", "Madness",
    "Panache", "Apotheosis", "The Bomb", "Sadistic Nature", "Thinking Ahead", "Mayhem",
]


def test_the_colorless_deck_holds_s1s_22_cards_and_stays_out_of_a_plain_run() -> None:
    g = run_start()
    assert sorted(names(g, "colorless_deck")) == sorted(COLORLESS)
    assert all(field(g, c, "class") == "colorless" for c in zone(g, "colorless_deck"))
    assert not any(field(g, c, "class") == "colorless" for c in owned_ids(g, 0))


def test_all_star_gives_each_player_five_random_colorless_cards() -> None:
    g = RULESET.new_game(2, 4, check_invariants=True, options={"daily_bonus": "all_star"})
    to_first_combat(g)
    assert "Daily Climb: All Star" in g.log_lines(None)
    for p in range(2):
        mine = [c for c in owned_ids(g, p) if field(g, c, "class") == "colorless"]
        assert len(mine) == 5, p
    assert len(zone(g, "colorless_deck")) == 22 - 10 and not g.violations()


def test_random_combats_with_every_colorless_card_keep_every_invariant() -> None:
    """All 22 colorless cards (each upgraded at random) shuffled into the draw pile of each character, then random
    decisions to the end of the combat: no runtime error, every invariant, and the cards really get played."""
    import random

    from tests.test_slay_the_spire_additions import random_combat_with
    from tests.test_slay_the_spire_faq import combat

    played = 0
    for seed in range(16):
        rng = random.Random(seed)
        g = combat(("Ironclad", "Silent", "Defect", "Watcher")[seed % 4], seed)
        played += random_combat_with(g, COLORLESS, rng, seed, shuffle=True)
    assert played >= 40, played


def colorless_combat(card: str) -> tuple[Game, int]:
    """A one-player Ironclad combat against one enemy of 40 HP, ``card`` (owned) alone in the hand, 3 energy."""
    g = started(1, 3, ("Ironclad",), mode="combat")
    e = only_enemy(g, life=40)
    for c in zone(g, "hand", 0):
        _move(g, c, zone_index(g, "discard", 0))
    cid = card_ids(g, card)[0]
    _move(g, cid, zone_index(g, "hand", 0))
    set_pc(g, "owned", pc(g, "owned") + 1)
    set_pc(g, "energy", 3)
    refresh_decision(g)
    return g, e


def test_sadistic_nature_hurts_an_enemy_for_each_token_it_gains() -> None:
    g, e = colorless_combat("Sadistic Nature")
    g.state.counters[card_slot(g, card_ids(g, "Sadistic Nature")[0], "upgraded")] = 1
    play(g, "Sadistic Nature")
    blind = card_ids(g, "Blind")[0]
    _move(g, blind, zone_index(g, "hand", 0))
    set_pc(g, "owned", pc(g, "owned") + 1)
    refresh_decision(g)
    life = g.state.counters[card_slot(g, e, "life")]
    play(g, "Blind", name(g, e))  # 1 Weak: 2 damage with the upgraded Power
    assert g.state.counters[card_slot(g, e, "life")] == life - 2
    assert f"Sadistic Nature: {name(g, e)} takes 2 damage" in g.log_lines(None) and not g.violations()


def test_the_bomb_goes_off_at_the_end_of_the_third_turn() -> None:
    g, e = colorless_combat("The Bomb")
    g.state.counters[card_slot(g, e, "life")] = 99
    bomb = card_ids(g, "The Bomb")[0]
    play(g, "The Bomb")
    lives = []
    for _ in range(3):
        assert in_turn(g)
        g.state.counters[player_slot(g, "hp", 0)] = 10  # (kept alive: the enemies' turns are not the point)
        choose(g, 0, "end_turn")
        lives.append(g.state.counters[card_slot(g, e, "life")])
        for _ in range(10):
            if in_turn(g) or g.finished:
                break
            g.apply(0, 0)
    assert lives[0] == lives[1] == 99 and lives[2] == 99 - 10  # 10 damage at the third end of turn
    assert bomb in zone(g, "exhausted", 0) and not g.violations()


def test_apotheosis_adds_to_the_starter_defends_and_madness_makes_the_next_card_free() -> None:
    g, _ = colorless_combat("Apotheosis")
    play(g, "Apotheosis")
    defend = next(c for c in card_ids(g, "Defend (Ironclad)") if c in owned_ids(g, 0))
    _move(g, defend, zone_index(g, "hand", 0))
    refresh_decision(g)
    block = pc(g, "block")
    play(g, "Defend (Ironclad)")
    assert pc(g, "block") == block + 2  # 1, and 1 more this combat
    m, _ = colorless_combat("Madness")
    trip = card_ids(m, "Trip")[0]
    _move(m, trip, zone_index(m, "hand", 0))
    set_pc(m, "owned", pc(m, "owned") + 1)
    refresh_decision(m)
    play(m, "Madness")
    energy = pc(m, "energy")
    choose(m, 0, "play_card")
    choose(m, 0, "Trip")  # costs 2, free after Madness
    assert pc(m, "energy") == energy and not m.violations()


# ---------------------------------------------------------------- Daily Climb: Prismatic Shard


def until_prompt(g: Game, prefix: str, limit: int = 400) -> None:
    """The first option (or moving on) for whoever waits, until P1 is asked a question starting with ``prefix``."""
    for _ in range(limit):
        d = g.decision
        assert d is not None and not g.finished, g.error
        if 0 in d.options and d.prompt_for(0).startswith(prefix):
            return
        q = d.players[0]
        g.apply(d.options[q].index("move_on") if "move_on" in d.options[q] else 0, q)
    raise AssertionError(f"never asked {prefix!r}")


def test_prismatic_shard_card_rewards_come_from_three_decks_of_the_players_choice() -> None:
    g = RULESET.new_game(1, 3, check_invariants=True, options={"daily_bonus": "prismatic_shard"})
    until_prompt(g, "Prismatic Shard: reveal card 1 of 3")  # Neow's red reward: a card reward
    assert sorted(options(g)) == sorted(["ironclad_cards", "silent_cards", "defect_cards", "watcher_cards",
                                         "colorless_cards"])
    choose(g, 0, "silent_cards")
    assert "silent_cards" not in options(g)  # each card from a different deck
    choose(g, 0, "colorless_cards")
    choose(g, 0, "ironclad_cards")
    offer = zone(g, "offer", 0)
    assert [field(g, c, "class") for c in offer] == ["silent", "colorless", "ironclad"]
    silent, colorless, ironclad = offer
    choose(g, 0, name(g, colorless))
    assert colorless in zone(g, "deck", 0)
    assert zone(g, "rewards", 0)[0] == ironclad and silent in zone(g, "library")  # back where each came from
    to_first_combat(g)  # (the starting items of the Daily Climb come after Neow's blessing)
    assert "Prismatic Shard" in names(g, "relics", 0) and "Daily Climb: Prismatic Shard" in g.log_lines(None)
    assert not g.violations()


def test_prismatic_shard_rare_rewards_come_from_different_characters() -> None:
    g = RULESET.new_game(1, 3, check_invariants=True, options={"daily_bonus": "prismatic_shard", "start_act": "2"})
    until_prompt(g, "Prismatic Shard: reveal rare 1 of 3")  # the quick start's rare-rewards row
    assert "colorless_cards" not in options(g)
    for deck in ("watcher_cards", "defect_cards", "ironclad_cards"):
        choose(g, 0, deck)
    offer = zone(g, "offer", 0)
    assert [field(g, c, "class") for c in offer] == ["watcher", "defect", "ironclad"]
    assert all(field(g, c, "rarity") == "rare" for c in offer)
    choose(g, 0, "pass")
    assert offer[2] == zone(g, "rares", 0)[0] and offer[0] in zone(g, "library") and not g.violations()


def test_the_prismatic_shard_does_not_spoil_who_needs_relics() -> None:
    """The Shard a Daily Climb hands out is not a relic the party chose: like the starting relics, no achievement
    counts it (the relic is `special`)."""
    from tests.test_slay_the_spire_achievements import act_iii_boss, earned
    from tests.test_slay_the_spire_achievements import kill_all as kill_all_and_take

    g = act_iii_boss()
    for r in zone(g, "relics", 0) + zone(g, "used_relics", 0):
        if field(g, r, "starter") == "colorless" and not field(g, r, "solo"):
            _move(g, r, zone_index(g, "boss_relic_deck" if field(g, r, "boss") else "relic_deck"))
    _move(g, zone(g, "shard_box")[0], zone_index(g, "relics", 0))
    kill_all_and_take(g)
    assert g.finished and "Who Needs Relics? (Act III won with no relics but the starting ones)" in earned(g)
