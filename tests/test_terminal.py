"""The human seat's prompt: commands, options by label, bad input, save and resume (run through `main`)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ROOT
from liturgy.interpreter.agents.terminal import pretty
from liturgy.interpreter.tools.cli import main

HIGH_CARD = str(ROOT / "docs" / "examples" / "high_card.rules")


def play(argv: list[str], typed: str, monkeypatch: pytest.MonkeyPatch,
         capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    code = main(["play", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_commands_answer_without_using_up_the_choice(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    typed = "help\nstatus\nlog 3\nzones\nzone disc\nzone nosuch\ncard thr\ncard o\ncard t\ncard zzz\n\n0\nbogus\n"
    code, out, _ = play([HIGH_CARD, "--seats", "human,first", "--seed", "5"], typed, monkeypatch, capsys)
    assert code == 130  # input ended before the game did, nothing was chosen
    assert "Commands at the prompt" in out and "save [FILE]" in out
    assert "  discard: empty" in out
    assert "no single zone `nosuch`: the zones are hand, table, discard" in out
    assert "  Three (Rank)\n    rank: 3" in out
    assert "  One (Rank)\n    rank: 1; suit: moons" in out
    assert "`t` could be: Three, Two" in out
    assert "no card is called `zzz`" in out
    assert "there is no option 0: type a number from 1 to" in out
    assert "`bogus` is neither an option nor a command" in out
    assert out.count("===== P1's turn to decide =====") == 1


def test_an_option_can_be_typed_by_its_label(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = play([HIGH_CARD, "--seats", "human,first", "--seed", "5"], "fo\n", monkeypatch, capsys)
    assert code == 130
    assert "P1 puts Four face down" in out


def test_enum_labels_read_as_words() -> None:
    assert pretty("end_turn") == "end turn"
    assert pretty("Strike (Silent)") == "Strike (Silent)"
    assert pretty("pass") == "pass"


def test_save_quit_and_resume_keep_every_decision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "game.json"
    code, out, _ = play([HIGH_CARD, "--seats", "human,first", "--seed", "5"], f"1\nsave {save}\nquit\n",
                        monkeypatch, capsys)
    assert code == 130 and f"saved to {save} (2 decisions)" in out and "Game stopped by the player." in out
    assert f"resume with: liturgy play {HIGH_CARD} --resume {save} --seats human,first" in out
    assert json.loads(save.read_text())["status"] == "running"
    code, out, _ = play([HIGH_CARD, "--seats", "human,first", "--resume", str(save)], "1\n1\n1\n1\n",
                        monkeypatch, capsys)
    assert code == 0, out
    assert "Resumed from" in out and "after 2 decisions" in out and "Game over" in out
    data = json.loads(save.read_text())  # the resumed game keeps saving to the file it came from
    assert data["status"] == "finished" and len(data["decisions"]) == 10
    code, out, _ = play([HIGH_CARD, "--seats", "human,first", "--seed", "5"], "1\n2\n1\n1\n1\n",
                        monkeypatch, capsys)
    assert "P1 puts One face down" in out  # sanity: a fresh game with the same choices is the same game


def test_resume_refuses_what_it_cannot_continue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.json"
    junk.write_text("{}")
    code, _, err = play([HIGH_CARD, "--resume", str(junk)], "", monkeypatch, capsys)
    assert code == 1 and "is not a Liturgy decision log" in err
    save = tmp_path / "g.json"
    play([HIGH_CARD, "--seats", "human,first", "--log", str(save)], "1\n", monkeypatch, capsys)
    data = json.loads(save.read_text())
    code, _, err = play([HIGH_CARD, "--resume", str(save), "--players", "3"], "", monkeypatch, capsys)
    assert code == 2 and "2-player game" in err
    data["game"] = "Other"
    save.write_text(json.dumps(data))
    code, _, err = play([HIGH_CARD, "--resume", str(save)], "", monkeypatch, capsys)
    assert code == 2 and "a save of 'Other'" in err
    data["game"] = "High Card"
    data["decisions"] = [[0, 9]]
    save.write_text(json.dumps(data))
    code, _, err = play([HIGH_CARD, "--resume", str(save)], "", monkeypatch, capsys)
    assert code == 2 and "does not replay" in err


def test_log_saves_after_every_decision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "auto.json"
    code, out, _ = play([HIGH_CARD, "--seats", "human,first", "--log", str(save)], "2\n3\n", monkeypatch, capsys)
    assert code == 130 and f"saved to {save} after every decision" in out
    assert len(json.loads(save.read_text())["decisions"]) == 4


MENU = """
game "Menu" { players 1..1 }
enum Act { attack, defend }
counter hits 0..9
round {
  step s "Act" {
    choose a from Act by first {
      choose n from [1, 2] by first { log "{} for {}", a, n  hits += n }
    }
    if hits >= 3 { end game }
  }
}
score(p) = hits
"""


def test_undo_takes_back_menu_navigation_only(write_ruleset: Callable[..., str], monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = write_ruleset(MENU)
    typed = "attack\nundo\nundo\ndefend\n2\nundo\n1\n1\n"
    code, out, _ = play([path, "--seed", "1"], typed, monkeypatch, capsys)
    assert code == 0, out
    assert out.count("undone: back to the previous choice") == 1
    assert out.count("nothing to undo") == 2  # twice in a row; and `defend for 2` was logged
    assert "defend for 2" in out and "attack for 2" not in out and "attack for 1" in out
