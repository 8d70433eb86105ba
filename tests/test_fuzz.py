"""Robustness: no input makes the loader, checker or engine raise a Python exception.

Hypothesis mutates the shipped ruleset and card files (deleted, duplicated and
swapped tokens and lines, truncation, random bytes, deep nesting, huge numbers,
non-UTF-8).  Every outcome must be diagnostics or, for rulesets that still
check, games that finish or stop with a clear runtime error.  The example count
follows the Hypothesis profile; `FUZZ_EXAMPLES=5000` runs a long hunt.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from liturgy.dsl.diagnostics import render_all
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset

RULES_TEXT = (ROOT / "rulesets" / "bloodborne.rules").read_text(encoding="utf-8")
CARD_FILES = {p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / "cards" / "bloodborne").glob("*.yaml"))}
TOKEN = re.compile(r"\s+|[A-Za-z_][A-Za-z0-9_]*|\d+|\"[^\"\n]*\"|.")
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "0")) or None


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


@st.composite
def mutated(draw: st.DrawFn, text: str) -> bytes:
    kind = draw(st.sampled_from(
        ["delete_token", "duplicate_token", "swap_tokens", "delete_line", "duplicate_line", "swap_lines",
         "truncate", "random_bytes", "deep_nesting", "huge_number", "non_utf8", "replace_token"]))
    if kind in ("delete_token", "duplicate_token", "swap_tokens", "replace_token", "huge_number", "deep_nesting"):
        toks = tokens(text)
        i = draw(st.integers(0, len(toks) - 1))
        j = draw(st.integers(0, len(toks) - 1))
        if kind == "delete_token":
            del toks[i]
        elif kind == "duplicate_token":
            toks.insert(i, toks[i])
        elif kind == "swap_tokens":
            toks[i], toks[j] = toks[j], toks[i]
        elif kind == "replace_token":
            toks[i] = draw(st.sampled_from(["{", "}", "(", ")", "none", "true", "0", "-1", "players", "self",
                                            "end game", "+", "/", ":", "\"x\"", "first", "skip to dream",
                                            "choose c from market by first { }", "break", "]", "["]))
        elif kind == "huge_number":
            nums = [k for k, t in enumerate(toks) if t.isdigit()]
            if nums:
                toks[nums[i % len(nums)]] = str(draw(st.sampled_from([2**63, 10**30, 2**64 + 1, 99999999])))
        else:
            depth = draw(st.sampled_from([50, 500, 5000]))
            toks.insert(i, "(" * depth + "1" + ")" * depth)
        return "".join(toks).encode("utf-8")
    lines = text.split("\n")
    if kind in ("delete_line", "duplicate_line", "swap_lines"):
        i = draw(st.integers(0, len(lines) - 1))
        j = draw(st.integers(0, len(lines) - 1))
        if kind == "delete_line":
            del lines[i]
        elif kind == "duplicate_line":
            lines.insert(i, lines[i])
        else:
            lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines).encode("utf-8")
    data = text.encode("utf-8")
    if kind == "truncate":
        return data[: draw(st.integers(0, len(data)))]
    if kind == "random_bytes":
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.binary(min_size=1, max_size=40)) + data[at:]
    at = draw(st.integers(0, len(data)))
    return data[:at] + b"\xff\xfe\xc3" + data[at:]


def _check_and_run(folder: Path) -> None:
    path = folder / "rulesets" / "bloodborne.rules"
    program, diags = check_file(str(path))
    render_all(diags)  # rendering must not fail either
    for d in diags:
        assert re.fullmatch(r"[EW]\d{3}", d.code)
        assert d.span.line >= 0 and d.span.column >= 0
    if program is None:
        assert any(d.is_error for d in diags)
        return
    ruleset = Ruleset(program)
    for players in (ruleset.min_players, ruleset.max_players):
        game = ruleset.new_game(players, seed=players, check_invariants=True)
        for _ in range(200):
            if game.finished:
                break
            for p in game.waiting_for():
                game.apply(game.option_count(p) - 1, p)
        if game.state.status == "aborted":
            assert game.error and "internal error" not in game.error, game.error


def _layout(tmp: Path) -> Path:
    if tmp.exists():
        shutil.rmtree(tmp)
    (tmp / "rulesets").mkdir(parents=True)
    (tmp / "cards" / "bloodborne").mkdir(parents=True)
    for name, text in CARD_FILES.items():
        (tmp / "cards" / "bloodborne" / name).write_text(text, encoding="utf-8")
    (tmp / "rulesets" / "bloodborne.rules").write_text(RULES_TEXT, encoding="utf-8")
    return tmp


_fuzz = settings(max_examples=EXAMPLES, suppress_health_check=list(HealthCheck), deadline=None) if EXAMPLES \
    else settings(suppress_health_check=list(HealthCheck), deadline=None)


@_fuzz
@given(data=st.data())
def test_mutated_ruleset_never_crashes(tmp_path_factory: object, data: st.DataObject) -> None:
    folder = _layout(Path(str(tmp_path_factory.mktemp("fuzz"))))  # type: ignore[attr-defined]
    (folder / "rulesets" / "bloodborne.rules").write_bytes(data.draw(mutated(RULES_TEXT)))
    _check_and_run(folder)


@_fuzz
@given(data=st.data(), which=st.sampled_from(sorted(CARD_FILES)))
def test_mutated_card_file_never_crashes(tmp_path_factory: object, data: st.DataObject, which: str) -> None:
    folder = _layout(Path(str(tmp_path_factory.mktemp("fuzz"))))  # type: ignore[attr-defined]
    (folder / "cards" / "bloodborne" / which).write_bytes(data.draw(mutated(CARD_FILES[which])))
    _check_and_run(folder)


def test_yaml_alias_bomb_is_refused(tmp_path: Path) -> None:
    folder = _layout(tmp_path / "bomb")
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(9))
    (folder / "cards" / "bloodborne" / "monsters.yaml").write_text(bomb, encoding="utf-8")
    _, diags = check_file(str(folder / "rulesets" / "bloodborne.rules"))
    assert "E203" in [d.code for d in diags]
