"""Fury of Dracula (rulesets/fury_of_dracula.rules): rows of the rule-by-rule audit (docs/fury_of_dracula.md, "Audit
against the rulebook") that were read in the ruleset but not played by a scenario of their own. Each test drives a
real game into the rule's situation (tests/fod_helpers.py) and checks what the rulebook says happens."""

from __future__ import annotations

import pytest
from conftest import ROOT
from fod_helpers import GODALMING, MINA, SEWARD, VAN_HELSING, answer, into_reserve, play, policy, prompt, zone_names
from liturgy.interpreter.engine import Game, load_ruleset

RULES = ROOT / "rulesets" / "fury_of_dracula.rules"
EAST = ["Bucharest", "Constanta", "Varna", "Sofia", "Belgrade", "Szeged", "Budapest", "Vienna"]
FAR = {GODALMING: "paris", SEWARD: "dublin", VAN_HELSING: "lisbon", MINA: "cadiz"}


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load_ruleset(str(RULES))


@pytest.mark.parametrize(("players", "seats"), [
    (2, ["P2", "P2", "P2", "P2"]),  # one player plays all four
    (3, ["P2", "P3", "P2", "P3"]),  # two each
    (4, ["P2", "P3", "P4", "P2"]),  # Godalming and Mina together
    (5, ["P2", "P3", "P4", "P5"]),  # one each
])
def test_the_four_hunters_are_dealt_among_the_players_as_the_book_says(  # type: ignore[no-untyped-def]
        rules, players: int, seats: list[str]) -> None:
    """Always four Hunters; Dracula is P1 [L90]."""
    g = rules.new_game(players, seed=1)
    controller = g.view(0)["counters"]["controller"]
    assert [controller[h] for h in (GODALMING, SEWARD, VAN_HELSING, MINA)] == seats
    assert controller["Count Dracula"] == "P1"


def test_a_hunter_who_ends_his_move_at_sea_has_no_action_phase(rules) -> None:  # type: ignore[no-untyped-def]
    """A player who ends his movement at sea has no Action phase [L141, L186]: Seward sails from Dublin into the
    Irish Sea and is never asked what he does there; Van Helsing's turn follows."""
    g = rules.new_game(2, seed=3, check_invariants=True)
    play(g, policy(EAST, FAR), lambda g: prompt(g)[1] == f"Where does {SEWARD} go from Dublin?")
    asked: list[str] = []
    pol = policy(EAST[2:], FAR, {f"Where does {SEWARD} go from Dublin?": "irish_sea"})

    def van_helsings_turn(g: Game) -> bool:
        asked.append(prompt(g)[1])
        return VAN_HELSING in prompt(g)[1]

    play(g, pol, van_helsings_turn)
    assert not g.finished and g.view(1)["counters"]["at"][SEWARD] == "irish_sea"
    assert not any(text.startswith(f"What does {SEWARD} do") for text in asked)


def test_a_hunter_who_finds_dracula_fights_him_before_meeting_the_tiles(rules) -> None:  # type: ignore[no-untyped-def]
    """Hunters who find Dracula fight him [L26]: Godalming walks into Bordeaux, where Dracula stands on the card that
    carries his Plague; the combat starts, and no tile has been met when it does."""
    g = rules.new_game(2, seed=4, check_invariants=True)
    starts = {**FAR, GODALMING: "clermont_ferrand"}
    into_reserve(g, "Plague")
    pol = policy(["Nantes", "Bordeaux", "Toulouse"], starts, {"Which encounter goes on Bordeaux?": "Plague"})
    play(g, pol, lambda g: dracula_at_bordeaux_with_a_tile(g)
         and prompt(g)[1] == f"Where does {GODALMING} go from Clermont-Ferrand?")
    answer(g, "bordeaux")
    play(g, pol, lambda g: "combat against Count Dracula begins" in g.log_lines(1))
    assert not g.finished and g.view(1)["counters"]["at"][GODALMING] == "bordeaux"
    assert g.view(1)["counters"]["hp"][GODALMING] == 12  # the Plague (2 Health) is not met first
    assert not any("meets" in line for line in g.log_lines(1))


def dracula_at_bordeaux_with_a_tile(g: Game) -> bool:
    trail = zone_names(g, "trail", 0)
    return bool(trail) and trail[-1] == "Bordeaux" and bool(g.view(0)["zones"].get("tiles", {}).get("Bordeaux"))
