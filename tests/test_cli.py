"""The `liturgy` command line, run in-process through `main(argv)`."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import BLOODBORNE
from liturgy.interpreter.tools.cli import main

BB = str(BLOODBORNE)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_check_clean_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["check", BB, "--strict"], capsys)
    assert code == 0
    assert "0 error(s), 0 warning(s)" in err


def test_check_reports_errors_with_caret(write_ruleset: Callable[..., str], capsys: pytest.CaptureFixture[str]) -> None:
    path = write_ruleset('game "X" { players 1..2 }\nround { step s "S" { end gmae } }\n')
    code, out, err = run(["check", path], capsys)
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith(f"{path}:2:")
    assert "error[E001]" in first
    assert "^" in out


def test_check_json(write_ruleset: Callable[..., str], capsys: pytest.CaptureFixture[str]) -> None:
    path = write_ruleset('game "X" { players 1..2 }\ncounter c 0..3 = 0\nround { step s "S" { cc += 1 } }\n')
    code, out, _ = run(["check", path, "--format", "json"], capsys)
    assert code == 1
    data = json.loads(out)
    assert {d["code"] for d in data} >= {"E101"}
    d = next(d for d in data if d["code"] == "E101")
    assert set(d) >= {"code", "severity", "file", "line", "column", "end", "message", "hint"}
    assert d["line"] == 3 and d["hint"] == "did you mean `c`?"


def test_strict_fails_on_warnings(write_ruleset: Callable[..., str], capsys: pytest.CaptureFixture[str]) -> None:
    path = write_ruleset('game "X" { players 1..2 }\ncounter unused 0..3 = 0\nround { step s "S" { end game } }\n')
    assert run(["check", path], capsys)[0] == 0
    assert run(["check", path, "--strict"], capsys)[0] == 1


def test_simulate_json_and_jobs_agree(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["simulate", BB, "--games", "24", "--players", "4", "--seed", "1", "--json"], capsys)
    assert code == 0
    one = json.loads(out)
    for key in ("games", "finished", "aborted", "invariant_violations", "decisions", "seconds",
                "games_per_second", "decisions_per_second", "wins", "digest"):
        assert key in one
    assert one["finished"] == 24 and one["invariant_violations"] == 0
    # A Bloodborne game in which Rom eliminates every hunter is won by nobody (issue 22).
    assert abs(sum(one["wins"]) + one["no_winner"] - 24) < 1e-6
    code, out, _ = run(["simulate", BB, "--games", "24", "--players", "4", "--seed", "1", "--json", "--jobs", "2"],
                       capsys)
    assert json.loads(out)["digest"] == one["digest"]


def test_play_random_then_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "game.json"
    code, out, _ = run(["play", BB, "--players", "3", "--seed", "5", "--seats", "random,first,random",
                        "--log", str(log)], capsys)
    assert code == 0 and "Game over" in out
    code, out, _ = run(["replay", str(log)], capsys)
    assert code == 0 and "Replay matches" in out
    data = json.loads(log.read_text())
    data["digest"] = "0" * 64
    log.write_text(json.dumps(data))
    code, out, _ = run(["replay", str(log)], capsys)
    assert code == 1 and "DIVERGED" in out


def test_replay_rejects_garbage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\x00\xffnot json")
    code, _, err = run(["replay", str(bad)], capsys)
    assert code == 1 and "not a decision log" in err  # bad input, not a bad command line


def test_human_seat_plays_from_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    answers = io.StringIO("x\n99\n" + "1\n" * 5000)
    monkeypatch.setattr("sys.stdin", answers)
    code, out, _ = run(["play", BB, "--players", "3", "--seed", "2", "--seats", "human,random,random"], capsys)
    assert code == 0
    assert "P1: Play which Action card (face down, revealed together)? (others see only that you have chosen)" in out
    assert "`x` is neither an option nor a command" in out
    assert "there is no option 99" in out
    assert "Game over" in out


def test_human_input_ending_early_is_clean(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n"))
    code, out, _ = run(["play", BB, "--players", "3", "--seats", "human"], capsys)
    assert code == 130 and "interrupted" in out


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["simulate", BB, "--players", "9"], capsys)
    assert code == 2 and "3..5 players" in err
    code, _, err = run(["play", BB, "--players", "3", "--seats", "robot"], capsys)
    assert code == 2 and "unknown seat" in err
    code, _, err = run(["check", "/no/such.rules"], capsys)
    assert code == 1
