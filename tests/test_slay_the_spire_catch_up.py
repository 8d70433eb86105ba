"""Slay the Spire's catch-up rule (§25.5, issue 31): players who join at the start of a later Act.

`--option catch_up=N` seats the last N players as absent (`absent_while waiting`, docs/language.md "Seats that
join later") until the start of Act `catch_up_act`; there they choose a character, take Neow's Blessing and the
quick-start table's rewards, one boss relic draft per boss-relic row with as many relics revealed as there are
joining players, and visit a merchant alone. The run is walked to its Act I boss as tests/test_slay_the_spire_acts.py
walks it (kept alive by test-only edits), and the boss is beaten by hand, so no random outcome decides what is read.
"""

from __future__ import annotations

import random

from liturgy.interpreter.engine import Game

from tests.scenario import player_slot
from tests.sts_setup import RULESET, field, gc, zone
from tests.test_slay_the_spire_acts import beat_the_boss, first_or_move_on, in_turn, walk_to_boss


def _waiting(g: Game) -> list[bool]:
    return [bool(g.state.counters[player_slot(g, "waiting", p)]) for p in range(g.players)]


def test_catching_up_players_sit_out_act_i_and_are_asked_nothing() -> None:
    g = RULESET.new_game(3, 1, check_invariants=True, options={"catch_up": "2"})
    assert _waiting(g) == [False, True, True]
    assert g.view(0)["absent"] == ["P2", "P3"]
    log = g.log_lines(None)
    assert "P2 will catch up with the party at the start of Act II" in log
    assert "P3 will catch up with the party at the start of Act II" in log
    rng = random.Random(1)
    asked: set[int] = set()
    for _ in range(60):  # Act I's first decisions: the character, Neow, the first combat
        if g.finished:
            break
        d = g.decision
        assert d is not None, g.error
        asked |= set(d.players)
        g.apply(rng.randrange(d.option_count(d.players[0])), d.players[0])
    assert asked == {0}
    assert zone(g, "hero", 1) == [] and zone(g, "deck", 2) == []  # no character yet: nothing was dealt to them
    assert not g.violations()


def test_catch_up_keeps_p1_playing_and_a_start_at_the_act_has_nobody_to_wait() -> None:
    g = RULESET.new_game(2, 1, check_invariants=True, options={"catch_up": "3"})
    assert _waiting(g) == [False, True]  # at most one fewer than the players
    g = RULESET.new_game(2, 1, check_invariants=True, options={"catch_up": "1", "start_act": "2"})
    assert _waiting(g) == [False, False]
    assert "Catch-up: the climb starts in Act 2, so every player starts together" in g.log_lines(None)


def test_a_catching_up_player_joins_at_act_ii_with_the_table_and_a_merchant_of_their_own() -> None:
    g, _ = walk_to_boss(2, 1, {"catch_up": "1"})
    assert _waiting(g) == [False, True] and zone(g, "hero", 1) == []
    beat_the_boss(g)
    prompts: list[tuple[int, str]] = []
    while not in_turn(g):  # the boss's rewards, the change of Act, P2's catch-up, the Act's first combat
        assert not g.finished, g.log_lines(None)[-5:]
        d = g.decision
        assert d is not None, g.error
        prompts += [(p, d.prompt_for(p)) for p in d.players]
        first_or_move_on(g)
    log = g.log_lines(None)
    begins = log.index("Act II begins")
    joins = log.index("P2 catches up with the party at the start of Act II")
    assert begins < joins and _waiting(g) == [False, False] and g.view(0)["absent"] == []
    assert gc(g, "current_act") == 2
    # P2 is asked nothing before the Act begins; then its character, Neow, the table and the merchant, alone
    first_p2 = next(i for i, (p, _) in enumerate(prompts) if p == 1)
    assert prompts[first_p2][1] == "Choose your character"
    catch_up = prompts[first_p2:]
    merchant = [i for i, (p, text) in enumerate(catch_up) if text.startswith("Merchant:")]
    assert merchant and all(catch_up[i][0] == 1 for i in merchant)  # P1 does not visit this merchant
    assert any(text.startswith("Neow's Blessing") for p, text in catch_up if p == 1)
    table = [line for line in log[joins:] if line.startswith("Catch-up: ")]
    assert table[0] == "Catch-up: Gold x5" and "Catch-up: boss relics x1" in table, table
    boss_relic = [i for i, (p, text) in enumerate(catch_up) if text == "Boss relic: take which one?"]
    assert [catch_up[i][0] for i in boss_relic] == [1]  # one row, one joining player: one relic revealed to P2
    hero, = zone(g, "hero", 1)
    assert field(g, hero, "character") != field(g, zone(g, "hero", 0)[0], "character")
    assert g.state.counters[player_slot(g, "owned", 1)] >= 10 and g.state.counters[player_slot(g, "hp", 1)] > 0
    foes = zone(g, "foes")  # Act II's first combat is fought by both: an enemy in P2's row too
    assert any(field(g, e, "act_no") == 2 for e in foes)
    assert any(g.state.counters[player_slot(g, "seat_no", 1)] == g.state.counters[
        g.ruleset.compiled.layout.card_base + e * g.ruleset.compiled.layout.card_stride
        + g.ruleset.compiled.layout.card_offsets["lane"]] for e in foes)
    assert not g.violations()


def test_two_catching_up_players_see_two_boss_relics_and_shop_alone_in_seat_order() -> None:
    g, _ = walk_to_boss(3, 2, {"catch_up": "2"})
    assert _waiting(g) == [False, True, True]
    beat_the_boss(g)
    asked: list[tuple[int, str, int]] = []
    while not in_turn(g):
        assert not g.finished, g.log_lines(None)[-5:]
        d = g.decision
        assert d is not None, g.error
        asked += [(p, d.prompt_for(p), d.option_count(p)) for p in d.players]
        first_or_move_on(g)
    joined = next(i for i, (p, _, _) in enumerate(asked) if p != 0)
    draft = [(p, n) for p, text, n in asked[joined:] if text == "Boss relic: take which one?"]
    # the one boss-relic row: 2 revealed (two joining players); P2 takes the first, P3 chooses from the other
    assert draft == [(1, 3), (2, 2)]
    shoppers = {p for p, text, _ in asked[joined:] if text.startswith("Merchant:")}
    assert shoppers <= {1, 2} and 1 in shoppers
    assert _waiting(g) == [False, False, False] and not g.violations()
