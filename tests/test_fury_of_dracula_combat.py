"""Fury of Dracula's combat (rulesets/fury_of_dracula.rules, section "combat"; docs/fury_of_dracula.md, "Combat").

Each test drives a real 2-player game to a combat (Dracula enters Paris, where the chosen Hunters wait; or a
Hunter meets an agent's encounter tile), edits the position only at a decision (Items, Events, Blood, the hour),
fixes the dice by choosing the random state, plays the round's secret cards by label and checks what the result
table (cards/fury_of_dracula/combat_results.yaml) says happens.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest
import scenario as sc  # tests/scenario.py
import yaml
from conftest import ROOT
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.tools.noninterference import check_choice, observation
from rng_search import first_state

RULES = ROOT / "rulesets" / "fury_of_dracula.rules"
TABLE = ROOT / "cards" / "fury_of_dracula" / "combat_results.yaml"
SEWARD, GODALMING, MINA = "Dr. John Seward", "Lord Godalming", "Mina Harker"
FAR = {GODALMING: "galway", SEWARD: "dublin", "Prof. Abraham Van Helsing": "lisbon", MINA: "cadiz"}


@pytest.fixture(scope="module")
def rs() -> Ruleset:
    return load_ruleset(str(RULES))


# ---------------------------------------------------------------- editing a position


def cid(g: Game, name: str) -> int:
    return sc.card_ids(g, name)[0]


def set_counter(g: Game, name: str, value: int) -> None:
    g.state.counters[sc.global_slot(g, name)] = value


def counter(g: Game, name: str) -> int:
    return int(g.state.counters[sc.global_slot(g, name)])


def hp(g: Game, hunter: str) -> int:
    return int(g.state.counters[sc.card_slot(g, cid(g, hunter), "hp")])


def free(g: Game, name: str, zone: str) -> int:
    return next(c for c in sc.card_ids(g, name) if sc.where(g, c) == zone)


def give_item(g: Game, hunter: str, item: str) -> int:
    i = free(g, item, "item_deck")
    sc._move(g, i, sc.zone_index(g, "hitems"))
    g.state.counters[sc.card_slot(g, i, "held_by")] = cid(g, hunter)
    return i


def give_hunter_event(g: Game, hunter: str, event: str) -> None:
    e = free(g, event, "event_deck")
    sc._move(g, e, sc.zone_index(g, "hevents"))
    g.state.counters[sc.card_slot(g, e, "held_by")] = cid(g, hunter)


def give_dracula_event(g: Game, event: str) -> None:
    sc._move(g, free(g, event, "event_deck"), sc.zone_index(g, "devents", 0))


def items(g: Game, hunter: str) -> list[str]:
    h = cid(g, hunter)
    return [g.state.tables.card_names[i] for i in g.state.zones[sc.zone_index(g, "hitems")]
            if g.state.counters[sc.card_slot(g, i, "held_by")] == h]


def force_d6(g: Game, faces: Iterable[int]) -> None:
    """Make the next rolls of the d6 show ``faces`` (the enemy's roll first, then each Hunter's in turn order)."""
    wanted = list(faces)
    x = first_state(1, 5_000_000, 6, [[f - 1] for f in wanted])
    if x is None:
        raise RuntimeError(f"no random state rolls {wanted}")
    g.state.rng = x


# ---------------------------------------------------------------- driving a game


def prompt(g: Game) -> tuple[int, str, list[str]]:
    d = g.decision
    assert d is not None, g.error
    p = d.players[0]
    return p, d.prompts.get(p) or "", list(d.options[p])


def to_combat(rs: Ruleset, hunters: Iterable[str] = (SEWARD,), *, night: bool = False, blood: int = 15,
              hitems: dict[str, list[str]] | None = None, hevents: dict[str, list[str]] | None = None,
              devents: Iterable[str] = (), allies: Iterable[str] = (), seed: int = 8, players: int = 2) -> Game:
    """A game stopped at the first combat decision: Dracula has entered Paris, where ``hunters`` stand."""
    g = rs.new_game(players, seed=seed, check_invariants=True)
    starts = dict(FAR) | {h: "paris" for h in hunters}
    for _ in range(80):
        p, text, labels = prompt(g)
        if text.startswith("Where does") and text.endswith(" start?"):
            choice = starts[text[len("Where does "):-len(" start?")]]
        elif text == "Where does Dracula begin?":
            choice = "Brussels"
        elif text == "Where does Dracula go?":
            set_counter(g, "daynight", 4 if night else 1)
            set_counter(g, "blood", blood)
            for h, names in (hitems or {}).items():
                for name in names:
                    give_item(g, h, name)
            for h, names in (hevents or {}).items():
                for name in names:
                    give_hunter_event(g, h, name)
            for name in devents:
                give_dracula_event(g, name)
            for name in allies:
                sc._move(g, free(g, name, "event_deck"), sc.zone_index(g, "allies"))
            choice = "Paris"
        elif " go from " in text:
            choice = labels[0]
        elif text.startswith("What does"):
            choice = "pass_turn"
        elif any(line == "combat against Count Dracula begins" for line in g.log_lines(None)):
            if p == 0 or labels not in (["use none"], ["play none"]):
                return g
            # a Hunter holding a card is asked whether to use Garlic or a combat event even when he holds
            # none of them (Dracula must not learn which he holds): these questions are declined
            choice = labels[0]
        else:
            choice = labels[0]
        g.apply(labels.index(choice), p)
    raise AssertionError("no combat")


def options(g: Game, player: int) -> list[str]:
    d = g.decision
    assert d is not None and player in d.options, (d, g.error)
    return list(d.options[player])


def play_round(g: Game, enemy: str, cards: list[str], rolls: list[int]) -> list[str]:
    """Play one round from its secret choice: the enemy's card, each fighting Hunter's in turn, the dice."""
    mark = len(g.log_lines(None))
    force_d6(g, rolls)
    sc.choose(g, 0, enemy)
    for card in cards:
        sc.choose(g, 1, card)
    assert g.error is None, g.error
    assert g.violations() == []
    return g.log_lines(None)[mark:]


# ---------------------------------------------------------------- the table as data


def test_the_result_table_has_a_row_for_every_pair_that_can_meet() -> None:
    """Every Hunter card meets every Dracula and agent card, except the holy Items against agents (DracJS marks
    those pairs invalid); each pair has both results."""
    cards = yaml.safe_load(TABLE.read_text())["cards"]
    pairs = {(c["hunter"], k[: -len("_win")]) for c in cards for k in c if k.endswith("_win")}
    assert all(f"{e}_lose" in c for c in cards for k in c if k.endswith("_win") for e in [k[: -len("_win")]])
    assert len(cards) == 11 and len(pairs) == 120
    dracula = {"claws", "dodge", "escape_man", "escape_bat", "escape_mist", "fangs", "mesmerize", "strength"}
    agents = {"punch", "dodge", "knife", "pistol", "rifle"}
    for h in ("punch", "dodge", "escape", "knife", "pistol", "rifle", "stake", "sacred_bullets"):
        assert {e for x, e in pairs if x == h} == dracula | agents
    for h in ("crucifix", "holy_water", "heavenly_host"):
        assert {e for x, e in pairs if x == h} == dracula
    assert all(c["provisional"] and "DracJS" in c["source"] for c in cards)


# ---------------------------------------------------------------- rolls and results


def test_the_winner_of_the_roll_applies_his_cards_result(rs: Ruleset) -> None:
    """Knife against Claws: the Hunter who rolls higher takes 2 Blood from Dracula; the combat goes on."""
    g = to_combat(rs, hitems={SEWARD: ["Knife"]})
    assert options(g, 1) == ["punch", "dodge", "escape", "knife"]
    health = hp(g, SEWARD)
    log = play_round(g, "claws", ["knife"], [2, 5])
    assert counter(g, "blood") == 13 and hp(g, SEWARD) == health
    assert "Count Dracula plays Claws and rolls 2" in log and "Dr. John Seward plays Knife and rolls 5" in log
    assert g.decision is not None and prompt(g)[1] == "Combat round 2: the card for the enemy"


def test_the_enemy_wins_the_roll_and_wounds_the_hunter(rs: Ruleset) -> None:
    """Claws against Punch, Dracula rolling higher: the Hunter loses 1 Health (the Punch card's row)."""
    g = to_combat(rs)
    health = hp(g, SEWARD)
    play_round(g, "claws", ["punch"], [6, 1])
    assert hp(g, SEWARD) == health - 1 and counter(g, "blood") == 15


def test_a_stake_kills_dracula_down_to_the_next_red_space(rs: Ruleset) -> None:
    """Stake against Escape (Man): Dracula is Killed (his Blood falls to the next red space) and the combat ends."""
    g = to_combat(rs, hitems={SEWARD: ["Stake"]}, blood=13)
    log = play_round(g, "escape_man", ["stake"], [1, 4])
    assert counter(g, "blood") == 10
    assert "Dracula is Killed and falls to 10 Blood" in log and log[-1] == "the combat ends"


def test_a_tie_goes_to_a_hunter_with_a_weapon_and_otherwise_to_the_enemy(rs: Ruleset) -> None:
    """Ties on the combat roll: a weapon Item carries an initiative number [seed L54] (authored tie rule)."""
    g = to_combat(rs, hitems={SEWARD: ["Knife"]})
    health = hp(g, SEWARD)
    play_round(g, "claws", ["knife"], [4, 4])
    assert counter(g, "blood") == 13 and hp(g, SEWARD) == health
    g = to_combat(rs)
    play_round(g, "claws", ["punch"], [4, 4])
    assert hp(g, SEWARD) == health - 1 and counter(g, "blood") == 15


def test_three_continue_results_in_a_row_end_the_combat(rs: Ruleset) -> None:
    """The Continuation tokens: Pistol beats Claws, Escape (Man) and Dodge by day with a plain Continue each time;
    the third token ends the combat."""
    g = to_combat(rs, hitems={SEWARD: ["Pistol"]})
    play_round(g, "claws", ["pistol"], [1, 6])
    play_round(g, "escape_man", ["pistol"], [1, 6])
    log = play_round(g, "dodge", ["pistol"], [1, 6])
    assert "the third Continuation token: the combat ends" in log and log[-1] == "the combat ends"
    assert counter(g, "blood") == 15


def test_a_result_other_than_continue_gives_the_tokens_back(rs: Ruleset) -> None:
    g = to_combat(rs, hitems={SEWARD: ["Pistol", "Knife"]})
    play_round(g, "claws", ["pistol"], [1, 6])
    play_round(g, "escape_man", ["pistol"], [1, 6])
    assert counter(g, "taken") == 2
    play_round(g, "claws", ["knife"], [1, 6])
    assert counter(g, "taken") == 0 and counter(g, "blood") == 13


def test_the_enemy_never_opens_with_dodge_nor_repeats_its_card(rs: Ruleset) -> None:
    """A1 DecisionMaker and A3 setUpCombat: no Dodge in the first round, never last round's card."""
    g = to_combat(rs)
    assert options(g, 0) == ["claws", "escape_man"]
    play_round(g, "claws", ["dodge"], [3, 3])
    assert options(g, 0) == ["dodge", "escape_man"]


def test_dracula_has_his_night_cards_only_at_night(rs: Ruleset) -> None:
    g = to_combat(rs, night=True)
    assert options(g, 0) == ["claws", "escape_man", "escape_bat", "escape_mist", "fangs", "mesmerize", "strength"]


def test_a_repelled_enemy_may_only_dodge_or_escape_next_round(rs: Ruleset) -> None:
    """Rifle beats Claws: Repel. Next round Dracula plays only Dodge or an Escape card."""
    g = to_combat(rs, night=True, hitems={SEWARD: ["Rifle"]})
    log = play_round(g, "claws", ["rifle"], [2, 5])
    assert "Count Dracula is repelled" in log
    assert options(g, 0) == ["dodge", "escape_man", "escape_bat", "escape_mist"]


def test_winning_with_dodge_adds_one_to_the_next_roll(rs: Ruleset) -> None:
    g = to_combat(rs)
    play_round(g, "claws", ["dodge"], [2, 5])
    log = play_round(g, "escape_man", ["punch"], [6, 3])
    assert "Dr. John Seward plays Punch and rolls 4" in log


def test_dodging_dracula_wins_him_a_bonus_next_round(rs: Ruleset) -> None:
    """Dracula's Dodge beating the Hunter's Punch: Continue, and +1 to Dracula's next roll."""
    g = to_combat(rs)
    play_round(g, "claws", ["punch"], [1, 4])
    play_round(g, "dodge", ["punch"], [5, 2])
    log = play_round(g, "claws", ["punch"], [2, 6])
    assert "Count Dracula plays Claws and rolls 3" in log


def test_mesmerize_bites_and_strips_the_hunter_of_his_items(rs: Ruleset) -> None:
    g = to_combat(rs, night=True, hitems={SEWARD: ["Knife", "Garlic"]})
    sc.choose(g, 1, "use none")  # no Garlic
    log = play_round(g, "mesmerize", ["knife"], [6, 1])
    assert items(g, SEWARD) == [] and g.state.counters[sc.card_slot(g, cid(g, SEWARD), "bitten")] == 1
    assert log[-1] == "the combat ends"


def test_an_item_marked_on_the_table_is_destroyed_at_the_end_of_the_round(rs: Ruleset) -> None:
    """Sacred Bullets beating Claws: Dracula loses 1 Blood and the Bullets are used up (FAQ v1.3, Items
    Destroyed in Combat); Strength beating a Knife destroys the Knife."""
    g = to_combat(rs, night=True, hitems={SEWARD: ["Sacred Bullets", "Knife"]})
    log = play_round(g, "claws", ["sacred_bullets"], [1, 6])
    assert counter(g, "blood") == 14 and items(g, SEWARD) == ["Knife"]
    assert "Dr. John Seward's Sacred Bullets is destroyed" in log
    health = hp(g, SEWARD)
    play_round(g, "strength", ["knife"], [6, 1])
    assert items(g, SEWARD) == [] and hp(g, SEWARD) == health


def test_garlic_keeps_dracula_from_escaping_for_three_rounds(rs: Ruleset) -> None:
    """Garlic uses the Time tokens [seed L78]: no Escape card for the enemy in the first 3 rounds (A1)."""
    g = to_combat(rs, night=True, hitems={SEWARD: ["Garlic"]})
    sc.choose(g, 1, "Garlic")
    assert items(g, SEWARD) == []
    for card in ("claws", "dodge", "claws"):
        assert not any(o.startswith("escape") for o in options(g, 0))
        play_round(g, card, ["dodge"], [3, 3])
    assert "escape_bat" in options(g, 0)


def test_rage_discards_an_item_and_nobody_escapes_for_three_rounds(rs: Ruleset) -> None:
    g = to_combat(rs, night=True, hitems={SEWARD: ["Knife", "Stake"]}, devents=["Rage"])
    # the Trap question is asked whenever Dracula holds an event (a public count), so it tells nothing
    assert prompt(g) == (0, "Play Trap in this combat?", ["play none"])
    sc.choose(g, 0, "play none")
    sc.choose(g, 0, "Rage")
    sc.choose(g, 0, SEWARD)
    sc.choose(g, 0, "Stake")
    assert items(g, SEWARD) == ["Knife"]
    assert "escape" not in options(g, 1) and not any(o.startswith("escape") for o in options(g, 0))


def test_trap_adds_one_to_draculas_rolls(rs: Ruleset) -> None:
    g = to_combat(rs, devents=["Trap"])
    sc.choose(g, 0, "Trap")
    log = play_round(g, "claws", ["punch"], [3, 4])
    assert "Count Dracula plays Claws and rolls 4" in log


def test_sister_agatha_makes_dracula_pay_for_an_escape(rs: Ruleset) -> None:
    g = to_combat(rs, allies=["Sister Agatha"])
    play_round(g, "escape_man", ["dodge"], [6, 1])
    assert counter(g, "blood") == 13


# ---------------------------------------------------------------- Escape (Bat): a secret move


def test_escape_as_a_bat_is_a_secret_move_of_up_to_two_roads(rs: Ruleset) -> None:
    """Dodge against Escape (Bat), Dracula winning: the combat ends and Dracula flies to a city up to two roads
    away without a Hunter; the Hunters see a new face-down card and nothing of where."""
    g = to_combat(rs, night=True)
    play_round(g, "escape_bat", ["dodge"], [6, 1])
    p, text, labels = prompt(g)
    assert (p, text) == (0, "Escape (Bat): where does Dracula fly?")
    assert "Paris" not in labels and "Brussels" not in labels and {"Le Havre", "Strasbourg"} <= set(labels)
    hunters_before = g.view(1)["zones"]["trail"]["P1"]
    assert hunters_before[-1] == "Paris"
    mark = len(g.log_lines(1))
    sc.choose(g, 0, "Strasbourg")
    trail = g.view(1)["zones"]["trail"]["P1"]
    assert "Paris" not in trail and trail[-1].startswith("?")
    assert not any("Strasbourg" in line for line in g.log_lines(1)[mark:])
    assert sc.names(g, "trail", 0)[-1] == "Strasbourg"


def test_the_bats_destination_never_changes_what_a_hunter_observes(rs: Ruleset) -> None:
    """Noninterference at the Escape (Bat) choice: two destinations give every Hunter the same observation (view,
    display, log, options, prompt), and the engine's probe finds nothing over the next 24 decisions."""
    import random

    g = to_combat(rs, night=True)
    play_round(g, "escape_bat", ["dodge"], [6, 1])
    labels = prompt(g)[2]
    a, b = g.clone(), g.clone()
    a.apply(labels.index("Strasbourg"), 0)
    b.apply(labels.index("Le Havre"), 0)
    assert observation(a, 1) == observation(b, 1)
    assert observation(a, 0) != observation(b, 0)
    assert check_choice(g, 1, [0] * len(g.state.tables.card_def), random.Random(5), horizon=24) is None


def test_fangs_bite_and_then_dracula_flies(rs: Ruleset) -> None:
    g = to_combat(rs, night=True)
    play_round(g, "fangs", ["punch"], [6, 1])
    assert g.state.counters[sc.card_slot(g, cid(g, SEWARD), "bitten")] == 1
    assert prompt(g)[1] == "Escape (Bat): where does Dracula fly?"


# ---------------------------------------------------------------- groups, secrecy


def test_one_player_chooses_secretly_for_each_of_his_hunters_and_dracula_names_his_target(rs: Ruleset) -> None:
    g = to_combat(rs, hunters=(SEWARD, MINA))
    p, text, labels = prompt(g)
    assert (p, text) == (0, "Whom does the Count Dracula attack this round?") and labels == [SEWARD, MINA]
    sc.choose(g, 0, MINA)
    seward, mina = hp(g, SEWARD), hp(g, MINA)
    d = g.decision
    assert d is not None and d.prompts[1] == "Combat round 1: the card for Dr. John Seward"
    force_d6(g, [5, 6, 1])
    sc.choose(g, 0, "claws")
    assert "claws" not in str(g.view(1)) and not any("claws" in x for x in g.log_lines(1))
    sc.choose(g, 1, "punch")
    d = g.decision
    assert d is not None and d.prompts[1] == "Combat round 1: the card for Mina Harker"
    sc.choose(g, 1, "punch")
    # Seward beats Dracula (6 against 5: Continue); Mina loses to Claws and takes 1 Health, Seward none
    assert hp(g, MINA) == mina - 1 and hp(g, SEWARD) == seward


def test_an_agent_met_on_the_trail_fights_and_holy_items_are_not_offered(rs: Ruleset) -> None:
    """A Minion with Knife placed on Brussels fights the Hunter who enters; a Crucifix is never played against an
    agent (DracJS: invalid pair); Punch beating the agent's Punch kills it."""
    g = rs.new_game(2, seed=8, check_invariants=True)
    route = iter(["Cologne", "Brussels", "Amsterdam"])
    placed = False
    for _ in range(150):
        p, text, labels = prompt(g)
        if text.startswith("Where does") and text.endswith(" start?"):
            choice = FAR[text[len("Where does "):-len(" start?")]] if SEWARD not in text else "paris"
        elif text in ("Where does Dracula begin?", "Where does Dracula go?"):
            choice = next(route)
        elif text == "Which encounter goes on Brussels?" and not placed:
            sc._move(g, free(g, "Minion with Knife", "encounter_pool"), sc.zone_index(g, "reserve", 0))
            sc.refresh_decision(g)
            p, text, labels = prompt(g)
            choice, placed = "Minion with Knife", True
            give_item(g, SEWARD, "Crucifix")
        elif text == "Where does Dr. John Seward go from Paris?":
            choice = "brussels" if placed and "Amsterdam" in " ".join(sc.names(g, "trail", 0)) else "paris"
        elif " go from " in text:
            choice = labels[0]
        elif text.startswith("What does"):
            choice = "pass_turn"
        elif text.startswith("Combat round 1"):
            break
        else:
            choice = labels[0]
        g.apply(labels.index(choice), p)
    assert "combat against Minion with Knife begins" in g.log_lines(1)
    assert options(g, 0) == ["punch", "knife"]
    assert options(g, 1) == ["punch", "dodge", "escape"]
    log = play_round(g, "punch", ["punch"], [2, 5])
    assert "the Minion with Knife is destroyed" in log and log[-1] == "the combat ends"


def test_vampiric_lair_fights_a_new_vampire_and_only_a_win_lowers_the_track(rs: Ruleset) -> None:
    """A1 PlayVampireLair: with vampires on the track the Hunter fights a New Vampire (Claws and Dodge by day, no
    Dodge in the first round); a Stake beating its Claws destroys it and the Vampire track falls by 1."""
    g = rs.new_game(2, seed=8, check_invariants=True)
    for _ in range(40):
        p, text, labels = prompt(g)
        if text.startswith("Where does") and text.endswith(" start?"):
            choice = FAR[text[len("Where does "):-len(" start?")]] if SEWARD not in text else "paris"
        elif text == "Where does Dracula begin?":
            choice = "Brussels"
        elif " go from " in text:
            choice = labels[0]
        elif text == "What does Dr. John Seward do in Paris?":
            set_counter(g, "vampires", 2)
            deck = sc.zone_index(g, "event_deck")
            sc._move(g, free(g, "Vampiric Lair", "event_deck"), deck, "bottom")
            give_item(g, SEWARD, "Stake")
            choice = "supply"
        elif text.startswith("What does"):
            choice = "pass_turn"
        elif text.startswith("Combat round 1"):
            break
        else:
            choice = labels[0]
        g.apply(labels.index(choice), p)
    assert "combat against New Vampire begins" in g.log_lines(1)
    assert options(g, 0) == ["claws"] and "stake" in options(g, 1)
    log = play_round(g, "claws", ["stake"], [1, 6])
    assert "the New Vampire is destroyed" in log and counter(g, "vampires") == 1


def test_a_combat_that_never_ends_is_broken_off_after_20_rounds(rs: Ruleset) -> None:
    """The authored bound: Rifle repels Claws (the tokens come back), then beats Dodge (one Continue), over and
    over; the 20th round ends the combat."""
    g = to_combat(rs, hitems={SEWARD: ["Rifle"]})
    for _ in range(10):
        play_round(g, "claws", ["rifle"], [1, 6])
        assert options(g, 0) == ["dodge", "escape_man"]
        log = play_round(g, "dodge", ["rifle"], [1, 6])
    assert "the combat is broken off after 20 rounds" in log and log[-1] == "the combat ends"
    assert counter(g, "blood") == 15


def test_hunters_of_different_players_choose_in_secret_and_all_cards_show_together(rs: Ruleset) -> None:
    """5 players: Seward's player (P3) and Mina's (P5) each choose in secret; until the last card is in, no
    player's view or log names another's card; then all are revealed together."""
    g = to_combat(rs, hunters=(SEWARD, MINA), players=5)
    sc.choose(g, 0, SEWARD)
    d = g.decision
    assert d is not None and sorted(d.players) == [0, 2, 4]
    force_d6(g, [1, 6, 6])
    sc.choose(g, 0, "claws")
    sc.choose(g, 2, "dodge")
    for viewer in range(5):
        seen = str(g.view(viewer)) + " ".join(g.log_lines(viewer))
        if viewer != 0:
            assert "claws" not in seen
        if viewer != 2:
            assert "plays dodge" not in seen
    sc.choose(g, 4, "escape")
    for viewer in range(5):
        log = g.log_lines(viewer)
        assert "Count Dracula plays Claws and rolls 1" in log and "Mina Harker plays Escape and rolls 6" in log
        assert "Dr. John Seward plays Dodge and rolls 6" in log


def test_dracula_killed_at_his_last_red_space_loses_the_game(rs: Ruleset) -> None:
    """Blood at 0 or below: Dracula is destroyed and the Hunters win at once [L28, L68] (issue 30's audit)."""
    g = to_combat(rs, hitems={SEWARD: ["Stake"]}, blood=4)
    log = play_round(g, "escape_man", ["stake"], [1, 4])
    assert counter(g, "blood") == 0 and "The Hunters win: Dracula is destroyed" in log
    assert g.finished and g.state.counters[sc.global_slot(g, "hunters_won")]


def test_a_hunter_at_zero_health_is_defeated_and_a_vampire_rises(rs: Ruleset) -> None:
    """Health 0: the Hunter is defeated [L70] and the Vampire track gains 1 [L82]; he wakes in the Hospital with
    his Health back and without his cards (A1; the "Defeated Hunters" page is missing from the seed)."""
    g = to_combat(rs, hitems={SEWARD: ["Knife"]})
    g.state.counters[sc.card_slot(g, cid(g, SEWARD), "hp")] = 1
    vampires = counter(g, "vampires")
    log = play_round(g, "claws", ["punch"], [6, 1])
    assert f"{SEWARD} is defeated and wakes in the Hospital of St. Joseph and St. Mary" in log
    assert counter(g, "vampires") == vampires + 1 and hp(g, SEWARD) == 10 and items(g, SEWARD) == []


def test_escape_as_a_bat_never_flies_through_holy_ground(rs: Ruleset) -> None:
    """Issue 30.2: Dracula "cannot pass through" a city holding Heavenly Host [L74]. From Paris, Nuremburg, Munich
    and Frankfurt lie two roads away only through Strasbourg; with a token there the bat reaches none of them
    (it used to reach all three)."""
    g = to_combat(rs, night=True)
    lay = g.ruleset.compiled.layout
    g.state.counters[sc.global_slot(g, "hosts") + lay.enum_index["Place"]["strasbourg"]] = 1
    set_counter(g, "hosts_used", 1)
    play_round(g, "escape_bat", ["dodge"], [6, 1])
    p, text, labels = prompt(g)
    assert text == "Escape (Bat): where does Dracula fly?"
    assert not {"Strasbourg", "Nuremburg", "Munich", "Frankfurt"} & set(labels)
    assert {"Le Havre", "Geneva", "Toulouse"} <= set(labels)


def test_a_hunter_whose_bite_slots_fill_is_defeated(rs: Ruleset) -> None:
    """Every Bite slot filled: the Hunter is defeated [L72] (Seward has 2, A1) and a vampire rises [L82]."""
    g = to_combat(rs, night=True)
    g.state.counters[sc.card_slot(g, cid(g, SEWARD), "bitten")] = 1
    vampires = counter(g, "vampires")
    log = play_round(g, "fangs", ["punch"], [6, 1])
    assert f"{SEWARD} is bitten (2 of 2)" in log
    assert f"{SEWARD} is defeated and wakes in the Hospital of St. Joseph and St. Mary" in log
    assert counter(g, "vampires") == vampires + 1
    assert g.state.counters[sc.card_slot(g, cid(g, SEWARD), "bitten")] == 0  # his starting Bites again
