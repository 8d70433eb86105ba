"""What a person reads at the terminal is player language (issue 32, items 2, 4 and 6).

- Betrayal's first screen, before anyone has chosen an explorer, shows no "(display: …)" error, and a question
  whose ruleset prompt names the player first reads "P1: play which explorer?", not "P1: P1: …".
- `card NAME` prints a card's data as text (no `frozenset(…)`, `True`, `provisional`), keeps the authors'
  `designer_note` and `source` out, and finds a name by a word's start only (`card rest` is not Bucharest).
"""

from __future__ import annotations

import io
import re

import pytest
from liturgy.interpreter.agents.terminal import card_text, find_cards
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.runtime.names import display_name, value_text
from liturgy.interpreter.tools.cli import main


def _play(args: list[str], typed: str, monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    main(["play", *args])
    return capsys.readouterr().out


def test_betrayal_first_screen_has_no_display_error_and_one_prefix(monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = _play(["rulesets/betrayal.rules", "--players", "3", "--seats", "human,random,random", "--seed", "1"],
                "1\nq\n", monkeypatch, capsys)
    assert "(display:" not in out
    assert "P1: P1:" not in out
    assert "P1: play which explorer?" in out
    assert "P1: you have not chosen your explorer yet" in out
    assert "P1 (Darrin \"Flash\" Williams) in the Entrance Hall -- Might 3" in out  # after the choice


def test_card_data_reads_as_text() -> None:
    game = load_ruleset("rulesets/bloodborne.rules").new_game(3, seed=1)
    text = card_text(game, "Moon Presence")
    assert "types: beast, humanoid, kin" in text and "boss: yes" in text
    for raw in ("frozenset", "True", "False", "provisional", "{", "'"):
        assert raw not in text, text


def test_designer_notes_stay_out_of_card_text() -> None:
    rules = load_ruleset("rulesets/slay_the_spire.rules")
    game = rules.new_game(1, seed=1)
    text = card_text(game, "Double Tap")
    assert "Your next Attack is played twice" in text
    assert "§" not in text and "our reading" not in text and "S1csv" not in text
    for c in rules.program.cards:
        assert "§" not in c.text and "our reading" not in c.text, c.name


def test_a_card_is_found_by_a_word_start_not_inside_a_word() -> None:
    names = ["Bucharest", "Rest Site", "Blood-starved Beast", "Beast Claw"]
    assert find_cards(names, "rest") == ["Rest Site"]
    assert find_cards(["Bucharest"], "rest") == []
    assert find_cards(names, "beast") == ["Beast Claw"]          # a name's start wins
    assert find_cards(names, "starved") == ["Blood-starved Beast"]
    game = load_ruleset("rulesets/fury_of_dracula.rules").new_game(2, seed=1)
    assert card_text(game, "rest") == "  no card is called `rest`"


def test_names_and_values() -> None:
    assert display_name("upgrade_deck") == "Upgrade deck"
    assert display_name("Discard pile") == "Discard pile"
    assert value_text(frozenset({"kin", "beast"})) == "beast, kin"
    assert value_text(True) == "yes" and value_text(None) == "none" and value_text("large_city") == "large city"
    assert value_text([1, 2]) == "1, 2"


@pytest.mark.parametrize(("rules", "seats"), [
    ("bloodborne", "human,random,random"), ("fury_of_dracula", "random,human"),
    ("betrayal", "human,random,random"), ("slay_the_spire", "human")])
def test_each_seed_game_at_the_terminal_speaks_player_language(rules: str, seats: str,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Forty answers (`1` each time) in each of the four games: narration shows, no screen has a display error,
    Betrayal draws its house and Slay the Spire its Act map as text."""
    players = str(len(seats.split(",")))
    out = _play([f"rulesets/{rules}.rules", "--players", players, "--seats", seats, "--seed", "2",
                 "--bot-seed", "2"], "1\n" * 40 + "q\n", monkeypatch, capsys)
    assert "Traceback" not in out and "(display:" not in out
    assert "\n    • " in out or "What changed for you:" in out
    assert re.search(r"P\d: P\d:", out) is None
    if rules == "betrayal":
        assert "=== ground floor ===" in out and "Entrance Hall" in out
    if rules == "slay_the_spire":  # the Act map between combats: the boss's floor at the top, where one may go
        assert re.search(r"\n    12  [ .A-Z?$]+\n", out) and re.search(r"\n     1 .*\[[MERT?$]\]", out), out[:3000]
    if rules == "fury_of_dracula":
        assert "  [1] Amsterdam (city" in out and "[1] amsterdam" not in out  # places by their names
