"""Rulesets carry a fingerprint of their files; saves and decision logs record it.

A save holds positions in the compiled rules, so loading it on edited rules must be refused with a clear
message; a decision log still replays on edited rules (decisions are choices, not positions), but `replay`
and `play --resume` say that the rules changed, which explains a divergence instead of leaving it a mystery.
"""
from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from conftest import BLOODBORNE
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.engine.logs import write_decision_log
from liturgy.interpreter.tools.cli import main


def _project(tmp_path: Path, name: str = "proj") -> Path:
    """A copy of the Bloodborne ruleset and its card files, laid out as in the repository."""
    root = tmp_path / name
    (root / "rulesets").mkdir(parents=True)
    shutil.copy(BLOODBORNE, root / "rulesets" / "bloodborne.rules")
    shutil.copytree(BLOODBORNE.parent.parent / "cards" / "bloodborne", root / "cards" / "bloodborne")
    return root / "rulesets" / "bloodborne.rules"


def _edit_a_card(rules: Path) -> None:
    hunter = rules.parent.parent / "cards" / "bloodborne" / "hunter.yaml"
    text = hunter.read_text(encoding="utf-8")
    hunter.write_text(text.replace("damage: 2", "damage: 3", 1), encoding="utf-8")
    assert hunter.read_text(encoding="utf-8") != text


def _first_options(game: Game, decisions: int) -> None:
    for _ in range(decisions):
        d = game.decision
        assert d is not None
        game.apply(0, d.players[0])


def test_fingerprint_follows_the_files_not_their_folder(tmp_path: Path) -> None:
    first = _project(tmp_path, "a")
    fp = load_ruleset(str(first)).fingerprint
    assert len(fp) == 64
    assert load_ruleset(str(first)).fingerprint == fp
    assert load_ruleset(str(_project(tmp_path, "b"))).fingerprint == fp  # moved elsewhere: same files
    first.write_text(first.read_text(encoding="utf-8") + "\n# a comment\n", encoding="utf-8")
    assert load_ruleset(str(first)).fingerprint != fp
    second = _project(tmp_path, "c")
    _edit_a_card(second)
    assert load_ruleset(str(second)).fingerprint not in ("", fp)


def test_a_save_loads_on_the_same_rules_and_is_refused_on_edited_ones(tmp_path: Path) -> None:
    rules_path = _project(tmp_path)
    rules = load_ruleset(str(rules_path))
    game = rules.new_game(3, 4)
    _first_options(game, 6)
    data = json.loads(json.dumps(game.to_json()))
    assert data["ruleset_fingerprint"] == rules.fingerprint
    assert rules.load_game(data).digest() == game.digest()
    _edit_a_card(rules_path)
    edited = load_ruleset(str(rules_path))
    with pytest.raises(ValueError, match="different version of its ruleset or card files"):
        edited.load_game(data)
    older = dict(data)
    del older["ruleset_fingerprint"]  # a save from before fingerprints: loaded only when asked, and verified
    with pytest.raises(ValueError, match="records no ruleset fingerprint"):
        rules.load_game(older)
    assert rules.load_game(older, force=True).digest() == game.digest()
    # on the edited rules it loads only where they make the very same game of those decisions (they do here)
    assert edited.load_game(older, force=True).state.decisions == game.state.decisions


def test_replay_and_resume_say_when_the_rules_changed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules_path = _project(tmp_path)
    rules = load_ruleset(str(rules_path))
    game = rules.new_game(3, 11)
    game.random_playout(random.Random(11))
    log = tmp_path / "game.json"
    write_decision_log(str(log), str(rules_path), game)
    assert json.loads(log.read_text(encoding="utf-8"))["ruleset_fingerprint"] == rules.fingerprint

    assert main(["replay", str(log), "--ruleset", str(rules_path)]) == 0
    out = capsys.readouterr().out
    assert "Replay matches" in out and "changed since" not in out

    hunter = rules_path.parent.parent / "cards" / "bloodborne" / "hunter.yaml"
    hunter.write_text(hunter.read_text(encoding="utf-8") + "\n# an edit that changes no card\n", encoding="utf-8")
    code = main(["replay", str(log), "--ruleset", str(rules_path)])
    out = capsys.readouterr().out
    assert "or its card files changed since this log was recorded" in out
    assert code == 0 and "Replay matches" in out  # the same cards: the same game, and the note says why to check

    _edit_a_card(rules_path)
    code = main(["replay", str(log), "--ruleset", str(rules_path)])
    out = capsys.readouterr().out
    assert code == 1 and "DIVERGED" in out and "changed since" in out


def test_resume_notes_edited_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    rules_path = _project(tmp_path)
    rules = load_ruleset(str(rules_path))
    game = rules.new_game(3, 5)
    _first_options(game, 3)
    log = tmp_path / "save.json"
    write_decision_log(str(log), str(rules_path), game)
    hunter = rules_path.parent.parent / "cards" / "bloodborne" / "hunter.yaml"
    hunter.write_text(hunter.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("quit\n"))
    main(["play", str(rules_path), "--resume", str(log), "--seats", "human,bot,bot"])
    out = capsys.readouterr().out
    assert "card files changed since" in out and "may not be the one that was saved" in out
