"""Typed choices at the terminal are unambiguous and said back; the end shows the final position (issue 14, item 9).

- A typed number (`2` or `#2`) always means that menu number, in every menu, even where labels are numbers
  (issue 32: it used to mean a label in a bidding menu and a position elsewhere); `=LABEL` is the option
  labelled exactly so (`=10` bids 10); a label typed in full means that option, even a command's name; `/WORD`
  is always a command.
- A one-letter command that also starts a label (`h` of `hit`, `s` of `stand`) is asked about, not run.
- Every choice is said back: `You chose: [2] 1`.
- When the game ends, each human player sees the final status panel (the ruleset's `display`), and the result
  line says `1 round`, not `1 rounds`.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable

import pytest
from human_driver import play as drive
from liturgy.interpreter.tools.cli import main

BIDS = """
game "Bids" { players 1..1 }
counter total 0..100
round {
  step s "Bid" {
    choose n from [3, 1, 2, 10] by first prompt "Bid how much?" {
      total += n
      log "{} bids {}", first, n
    }
    if round >= 3 { end game }
  }
}
display(p) { show "Bids so far: {}", total }
score(p) = total
"""

MOVES = """
game "Moves" { players 1..1 }
enum Move { hit, stand, quit }
counter hits 0..9
round {
  step s "Your move" {
    choose m from Move by first {
      log "{} chooses {}", first, m
      if m == hit { hits += 1 } else { end game }
    }
  }
}
score(p) = hits
"""


def _play(path: str, typed: str, monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    code = main(["play", path, "--seed", "1"])
    return code, capsys.readouterr().out


def test_a_number_is_the_menu_number_even_when_the_labels_are_numbers(write_ruleset: Callable[..., str],
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    # `2` is menu number 2 (the label 1), `=4` is no label, `=3` the label 3 (menu number 1), `#4` menu number 4
    code, out = _play(write_ruleset(BIDS), "2\n=4\n=3\n#4\n", monkeypatch, capsys)
    assert code == 0, out
    assert "(the options are numbers: a number you type is the menu number in brackets; =N chooses the option " \
        "labelled N)" in out
    assert "P1 bids 1\n" in out and "P1 bids 3\n" in out and "P1 bids 10\n" in out
    assert out.count("You chose: ") == 3
    assert "You chose: [2] 1\n" in out and "You chose: [1] 3\n" in out and "You chose: [4] 10\n" in out
    assert "no option is labelled 4: type a menu number, or =LABEL with one of the labels" in out
    assert "Game over after 3 rounds. Scores: P1: 14." in out


def test_positions_still_work_when_no_label_is_a_number(write_ruleset: Callable[..., str],
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _play(write_ruleset(MOVES), "1\n#2\n", monkeypatch, capsys)
    assert code == 0, out
    assert "You chose: [1] hit" in out and "You chose: [2] stand" in out
    assert "the options are numbers" not in out


def test_a_shortcut_that_starts_a_label_is_asked_about(write_ruleset: Callable[..., str],
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    # `h` and `s` are asked about; `/s` is the status command; `hi` is the start of `hit`; `quit` typed in full is
    # the option, `/quit` the command
    code, out = _play(write_ruleset(MOVES), "h\ns\n/s\n/nosuch\nhi\nquit\n", monkeypatch, capsys)
    assert code == 0, out
    assert "`h` is short for the command `help` and also starts an option (hit): type more of the label, or /h " \
        "for the command" in out
    assert "`s` is short for the command `status` and also starts an option (stand)" in out
    assert "`/nosuch` is not a command" in out
    assert "Commands at the prompt" not in out  # `h` did not run help
    assert "You chose: [1] hit" in out and "You chose: [3] quit" in out and "P1 chooses quit" in out
    assert "Game stopped by the player" not in out
    code, out = _play(write_ruleset(MOVES), "/quit\n", monkeypatch, capsys)
    assert code == 130 and "Game stopped by the player" in out


def test_the_end_shows_the_final_position_and_one_round_reads_singular(write_ruleset: Callable[..., str],
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _play(write_ruleset(BIDS), "=10\n=10\n=2\n", monkeypatch, capsys)
    assert code == 0, out
    end = out[out.index("===== P1: the end of the game ====="):]
    assert "P1 bids 2" in end and "  Bids so far: 22" in end  # the panel after the last move, not before it
    code, out = _play(write_ruleset(MOVES), "stand\n", monkeypatch, capsys)
    assert "Game over after 1 round. Scores: P1: 0." in out
    end = out[out.index("===== P1: the end of the game ====="):]
    assert "Round 1" in end  # no `display`: the zones and counters, as at every question


def test_the_human_driver_types_labels_and_positions(write_ruleset: Callable[..., str]) -> None:
    """The real `liturgy play` process, answered by tests/human_driver.py: labels typed as =text, positions as #N."""
    answers = iter(["=2", "s", 0, "=10"])  # the label 2, a mistake (no label starts with `s`), menu number 1, label 10

    def policy(player: int, screen: str, labels: list[str]) -> int | str:
        assert labels == ["3", "1", "2", "10"]
        return next(answers)

    code, out = drive(write_ruleset(BIDS), ["--seed", "1"], policy, timeout=60)
    assert code == 0, out
    assert re.findall(r"You chose: .*", out) == [
        "You chose: [3] 2", "You chose: [1] 3", "You chose: [4] 10"]
    assert "Bids so far: 15" in out[out.index("the end of the game"):]
    assert "Game over after 3 rounds. Scores: P1: 15." in out
