"""`report NAME = EXPR` (language.md §1.12a): named values of the final state in a game's result, tallied by
`liturgy simulate --json` (`report_totals`) and printed by `play`/`replay` in player language."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest
from conftest import ROOT
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.tools.cli import main as cli_main
from liturgy.interpreter.tools.simulate import simulate

# Each player takes 1 or 2 coins once; a feat for 2, another for everyone at 2. Reported: the feats by name, the
# coins in all (a number), whether anyone took 2 (a yes/no flag), the seats that did (players), a word (text).
FEATS = str(ROOT / "docs" / "examples" / "feats.rules")


def _played(path: str, picks: list[int], players: int = 2) -> Game:
    g = load_ruleset(path).new_game(players, 1, check_invariants=True)
    for i in picks:
        d = g.decision
        assert d is not None
        g.apply(i, d.players[0])
    assert g.finished
    return g


def test_the_result_holds_each_report_as_plain_data() -> None:
    g = _played(FEATS, [1, 0])  # P1 takes 2, P2 takes 1
    assert g.result is not None and g.result["reports"] == {
        "feats": ["greedy"], "coins": 3, "greedy": True, "takers": [0], "mood": "rich"}
    g = _played(FEATS, [0, 0])
    assert g.result is not None
    # a flag is reported as yes/no (False), not as the 0 it is stored as; an empty list stays a list
    assert g.result["reports"] == {
        "feats": [], "coins": 2, "greedy": False, "takers": [], "mood": "poor"}
    assert json.loads(json.dumps(g.result)) == g.result


def test_a_report_survives_a_save_and_a_load() -> None:
    g = _played(FEATS, [1, 1])
    back = load_ruleset(FEATS).load_game(json.loads(json.dumps(g.to_json())))
    assert back.result == g.result and back.result is not None
    assert back.result["reports"]["feats"] == ["greedy", "all_greedy"]
    assert back.digest() == g.digest()


def test_simulate_tallies_the_reports() -> None:
    data = simulate(FEATS, 40, 2, 1).to_json()
    t = data["report_totals"]
    assert list(t) == sorted(t)  # by name, whichever game reported first
    # every game has 2 to 4 coins; a yes counts a game; each feat and each seat counts the games with it
    assert 80 <= t["coins"] <= 160 and t["greedy"] == t["feats[greedy]"] > 0
    assert 0 < t["feats[all_greedy]"] <= t["feats[greedy]"]
    assert t["takers[P1]"] + t["takers[P2]"] >= t["greedy"]
    assert t["mood[rich]"] + t.get("mood[poor]", 0) == 40
    assert "coins" not in data["counter_totals"] and "feats[greedy]" not in data["counter_totals"]


def test_a_total_of_nothing_is_listed_as_0() -> None:
    # `first` takes 1 coin every time: nobody is greedy in any game, and the tallies still say so
    t = simulate(FEATS, 5, 2, 1, seats=("first", "first")).to_json()["report_totals"]
    assert t == {"coins": 10, "feats[all_greedy]": 0, "feats[greedy]": 0, "greedy": 0, "mood[poor]": 5,
                 "takers[P1]": 0, "takers[P2]": 0}


def test_a_ruleset_without_reports_keeps_its_result_and_json() -> None:
    path = str(ROOT / "docs" / "examples" / "lantern_keepers.rules")
    data = simulate(path, 5, 2, 1).to_json()
    assert "report_totals" not in data
    g = load_ruleset(path).new_game(2, 1)
    g.random_playout(random.Random(1))
    assert g.finished and g.result is not None and set(g.result) == {"scores", "tiebreaks", "winners", "rounds"}


def test_play_prints_the_reports_in_player_language(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["play", FEATS, "--players", "2", "--seats", "first", "--seed", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    # `first` takes 1 coin each: nothing earned; the names as words, a yes/no as words
    assert out[-5:] == ["feats: nothing", "coins: 2", "greedy: no", "takers: nothing", "mood: poor"]


@pytest.mark.parametrize(("line", "code"), [
    ("report hand = pile", "E175"),                   # a zone: card numbers only the game's tables name
    ("report top_card = top(pile)", "E175"),          # a card
    ("report coins = 1\nreport coins = 2", "E103"),   # a name twice
    ("report coins = missing", "E101"),               # an unknown name, as anywhere
])
def test_a_report_that_cannot_be_a_result_is_refused(write_ruleset: Callable[..., str], line: str,
                                                      code: str) -> None:
    text = ('game "G" { players 1..2 }\ncard C { }\nzone pile: deck hidden of C\n'
            'round { step s "S" { end game } }\nscore(p) = 0\n' + line + "\n")
    _, diags = check_file(write_ruleset(text))
    assert [d.code for d in diags if d.severity == "error"] == [code]


def test_a_report_of_hidden_cards_is_warned_about(write_ruleset: Callable[..., str]) -> None:
    """The result is every player's at the end, so a hidden card's field in a report tells them about it (W076,
    as a public log line); the count of a hidden pile does not."""
    text = ('game "G" { players 1..2 }\ncard C { rank: int }\nzone pile: deck hidden of C\n'
            'round { step s "S" { end game } }\nscore(p) = 0\n'
            'report ranks = [c.rank for c in pile]\nreport count = size(pile)\n')
    _, diags = check_file(write_ruleset(text))
    assert [(d.code, d.span.line) for d in diags] == [("W076", 6)]
    assert "`report ranks`" in diags[0].message

