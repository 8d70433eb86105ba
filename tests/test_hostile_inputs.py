"""The attack corpus (issue 18): hostile decision logs and files, each refused with one clear line, never a traceback.

Every case here once ended in a traceback, a MemoryError or a hang; each must now end in a located diagnostic or
a one-line `liturgy: error:` and exit code 1, within seconds.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.engine.logs import write_decision_log
from liturgy.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
HIGH_CARD = ROOT / "docs" / "examples" / "high_card.rules"


@pytest.fixture
def good_log(tmp_path: Path) -> dict[str, Any]:
    rules = load_ruleset(str(HIGH_CARD))
    game = rules.new_game(2, 5)
    game.random_playout(random.Random(5))
    path = tmp_path / "good.json"
    write_decision_log(str(path), str(HIGH_CARD), game)
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    data["ruleset"] = str(HIGH_CARD)
    return data


def _replay(tmp_path: Path, text: str | bytes, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    path = tmp_path / "log.json"
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    code = main(["replay", str(path), *extra])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def _edited(data: dict[str, Any], **changes: Any) -> str:
    out = dict(data)
    for key, value in changes.items():
        if value is ...:
            del out[key]
        else:
            out[key] = value
    return json.dumps(out)


def test_the_good_log_replays(tmp_path: Path, good_log: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _replay(tmp_path, json.dumps(good_log), capsys)
    assert code == 0 and "Replay matches" in out


@pytest.mark.parametrize(("field", "raw", "says"), [
    ("players", "Infinity", "not a number JSON allows"),
    ("seed", "-Infinity", "not a number JSON allows"),
    ("seed", "NaN", "not a number JSON allows"),
    ("players", "1e400", "`players` is inf, not a whole number"),
    ("seed", "1e400", "`seed` is inf, not a whole number"),
    ("seed", "2.0", "`seed` is 2.0, not a whole number"),
    ("seed", "9" * 5000, "not JSON"),
    ("seed", "-1", "`seed` is -1, outside"),
    ("players", "0", "`players` is 0, outside 1..64"),
    ("players", "100000", "`players` is 100000, outside 1..64"),
    ("players", "true", "`players` is true, not a whole number"),
    ("options", "[1, 2]", "`options` is [1, 2], not names with text values"),
    ("options", '{"a": 1}', "not names with text values"),
    ("ruleset", "7", "`ruleset` is 7, not a name"),
    ("ruleset", '["x"]', "not a name"),
    ("decisions", '"many"', "`decisions` is \"many\", not a list"),
    ("decisions", "[[0]]", "decision 1 is [0], not [player, option]"),
    ("decisions", "[[5, 0]]", "decision 1 is [5, 0]"),
    ("decisions", "[[0, -1]]", "decision 1 is [0, -1]"),
    ("decisions", "[[0, 1e400]]", "decision 1"),
    ("ruleset_fingerprint", "3", "`ruleset_fingerprint` is 3, not a name"),
])
def test_a_hostile_field_is_refused(tmp_path: Path, good_log: dict[str, Any], capsys: pytest.CaptureFixture[str],
                                    field: str, raw: str, says: str) -> None:
    text = json.dumps(good_log).replace(json.dumps({field: good_log[field]})[1:-1], f'"{field}": {raw}', 1)
    assert f'"{field}": {raw}' in text
    code, out = _replay(tmp_path, text, capsys)
    assert code == 1 and says in out, out
    assert "Traceback" not in out and out.count("\n") == 1


@pytest.mark.parametrize("missing", ["players", "seed", "ruleset", "decisions", "format"])
def test_a_missing_field_is_refused(tmp_path: Path, good_log: dict[str, Any], capsys: pytest.CaptureFixture[str],
                                    missing: str) -> None:
    code, out = _replay(tmp_path, _edited(good_log, **{missing: ...}), capsys)
    assert code == 1 and "liturgy: error:" in out and "Traceback" not in out


def test_deep_nesting_is_refused(tmp_path: Path, good_log: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    code, out = _replay(tmp_path, _edited(good_log, options=0).replace('"options": 0', f'"options": {deep}'), capsys)
    assert code == 1 and "nested too deeply" in out


def test_a_byte_order_mark_is_accepted(tmp_path: Path, good_log: dict[str, Any],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _replay(tmp_path, "\ufeff".encode() + json.dumps(good_log).encode(), capsys)
    assert code == 0 and "Replay matches" in out


def test_a_log_without_fingerprint_needs_force(tmp_path: Path, good_log: dict[str, Any],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    text = _edited(good_log, ruleset_fingerprint=...)
    code, out = _replay(tmp_path, text, capsys)
    assert code == 1 and "records no ruleset fingerprint" in out and "--force" in out
    code, out = _replay(tmp_path, text, capsys, "--force")
    assert code == 0 and "Replay matches" in out


@pytest.mark.parametrize("named", ["/dev/zero", "/etc/passwd", "../../../../../../etc/hostname"])
def test_a_log_cannot_name_a_file_that_is_not_a_ruleset(tmp_path: Path, good_log: dict[str, Any],
                                                         capsys: pytest.CaptureFixture[str], named: str) -> None:
    code, out = _replay(tmp_path, _edited(good_log, ruleset=named), capsys)
    assert code == 1 and "not a .rules file" in out and "root:" not in out


@pytest.mark.parametrize(("path", "says"), [("", "it is a folder"), ("/dev/zero", "not a regular file")])
def test_a_folder_or_a_device_is_not_a_log(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           path: str, says: str) -> None:
    assert main(["replay", path or str(tmp_path)]) == 1
    assert says in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("command", [["replay"], ["check"]])
def test_a_fifo_is_refused_at_once(tmp_path: Path, command: list[str]) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    run = subprocess.run([sys.executable, "-m", "liturgy.interpreter.tools.cli", *command, str(fifo)],
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 1 and "not a regular file" in run.stdout + run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/urandom"])
def test_a_device_is_not_a_ruleset(path: str, capsys: pytest.CaptureFixture[str]) -> None:
    if not os.path.exists(path):
        pytest.skip(f"no {path} here")
    assert main(["check", path]) == 1
    assert "E200" in capsys.readouterr().out


def test_a_huge_sparse_ruleset_is_refused_without_reading_it(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    huge = tmp_path / "huge.rules"
    with huge.open("wb") as f:
        f.truncate(5 << 30)  # 5 GiB of nothing: reading it whole would take minutes and all the memory
    assert main(["check", str(huge)]) == 1
    assert "E212" in capsys.readouterr().out


def test_a_huge_sparse_card_file_is_refused_without_reading_it(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "g.rules").write_text('game "G" { players 1..2 }\ncard K { n: int }\ncards "k.yaml"\n'
                                      'zone z: set public of K\nround { step s { end game } }\nscore(p) = 0\n',
                                      encoding="utf-8")
    with (tmp_path / "k.yaml").open("wb") as f:
        f.truncate(5 << 30)
    assert main(["check", str(tmp_path / "g.rules")]) == 1
    out = capsys.readouterr().out
    assert "E212" in out and "card file is too large" in out


def test_a_diagnostic_never_quotes_a_file_it_did_not_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A ruleset that names an outside file gets a diagnostic about it, without that file's lines."""
    secret = tmp_path / "secret.txt"
    secret.write_text("password=hunter2\n", encoding="utf-8")
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "g.rules").write_text(
        'game "G" { players 1..2 }\ncard K { n: int }\ncards "../secret.txt"\nzone z: set public of K\n'
        'round { step s { end game } }\nscore(p) = 0\n', encoding="utf-8")
    main(["check", str(tmp_path / "rules" / "g.rules")])
    assert "hunter2" not in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "says"), [
    (["bench", "--seconds", "nan"], "'nan' is not a number of seconds"),
    (["bench", "--seconds", "inf"], "'inf' is not a number of seconds"),
    (["bench", "--warmup", "-1"], "'-1' is not a number of seconds"),
    (["bench", "--jobs-games", "-5"], "'-5' is not a whole number from 0"),
    (["bench", "--repeats", "0"], "'0' is not a whole number from 1"),
    (["play", str(HIGH_CARD), "--players", "-1"], "'-1' is not a whole number from 0 to 64"),
    (["play", str(HIGH_CARD), "--seed", "1e400"], "'1e400' is not a whole number"),
    (["simulate", str(HIGH_CARD), "--players", "2", "--jobs", "1000"], "'1000' is not a whole number from 1 to 256"),
    (["simulate", str(HIGH_CARD), "--players", "2", "--games", "100000000000"], "is not a whole number from 1"),
    (["simulate", str(HIGH_CARD), "--players", "2", "--seed", "9" * 5000], "is not a whole number"),
    (["fuzz", str(HIGH_CARD), "--max-decisions", "0"], "'0' is not a whole number from 1"),
    (["profile", str(HIGH_CARD), "--top", "-3"], "'-3' is not a whole number from 0"),
])
def test_a_number_out_of_range_is_a_usage_error(argv: list[str], says: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert says in err and len(err) < 2000


@pytest.mark.parametrize("where", ["folder", "missing folder", "device"])
def test_play_refuses_a_log_it_could_not_write_before_the_game(tmp_path: Path, where: str,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = {"folder": str(tmp_path), "missing folder": str(tmp_path / "nope" / "g.json"),
            "device": "/dev/null"}[where]
    assert main(["play", str(HIGH_CARD), "--seats", "random,random", "--log", path]) == 2
    captured = capsys.readouterr()
    assert "--log" in captured.err and "Game over" not in captured.out


def test_simulate_starts_no_more_workers_than_games(monkeypatch: pytest.MonkeyPatch) -> None:
    from liturgy.interpreter.tools import simulate

    started: list[int] = []
    real = simulate.mp.get_context

    def counting(method: str) -> Any:
        ctx = real(method)

        class Counting:
            def Pool(self, jobs: int, **kw: Any) -> Any:  # noqa: N802 - multiprocessing's name
                started.append(jobs)
                return ctx.Pool(jobs, **kw)

        return Counting()

    monkeypatch.setattr(simulate.mp, "get_context", counting)
    summary = simulate.simulate(str(HIGH_CARD), 3, 2, 1, jobs=200, check=False)
    assert summary.games == 3 and started == [3]


def test_one_round_is_one_round(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`Game over after 1 rounds` read wrong (issue 22's small list)."""
    path = tmp_path / "g.rules"
    path.write_text('game "G" { players 1..2 }\ncounter per player n 0..9\nround { step s { end game } }\n'
                    "score(p) = p.n\n", encoding="utf-8")
    assert main(["play", str(path), "--seats", "random"]) == 0
    out = capsys.readouterr().out
    assert "Game over after 1 round." in out and "1 rounds" not in out
