"""`liturgy graph`: the flow drawn from the checked program (steps in order, decisions, procedures and card effects
run with `do`, windows fired and their handlers, skip to, end game), as DOT; SVG only when Graphviz is present."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import BLOODBORNE
from liturgy.dsl.loader import check_file
from liturgy.interpreter.tools import flowgraph
from liturgy.interpreter.tools.cli import main

FLOW = """
game "Flow" { players 2..2 }
card Token { on_use: effect(p: player) = none }
cards "tokens.yaml"
zone pile: deck hidden of Token
zone hand: per player set owner of Token
counter per player gold 0..99 = 0
window paid(p: player)

proc pay(p: player) {
  p.gold += 1
  fire paid(p)
}
proc quiet(p: player) { p.gold += 0 }
proc ask(p: player) {
  choose t from p.hand by p optional "keep all" prompt "Discard which token?" { move t to pile }
}

on paid(p: player) { if p.gold > 5 { end game } }

setup { for p in players { move top(pile) to p.hand } }
round {
  step income "Income" {
    for p in players { do pay(p) do quiet(p) }
  }
  step use "Use a token" {
    for p in players {
      choose t from p.hand by p prompt "Use which token?" { do t.on_use(p) }
    }
    if round > 3 { skip to tidy }
  }
  step tidy "Tidy up" { for p in players { do ask(p) } }
}
score(p) = p.gold
"""
TOKENS = """kind: Token
start: pile
cards:
  - {name: Coin, count: 4, on_use: "do pay(p)"}
  - {name: Blank, count: 4}
"""


@pytest.fixture
def flow_path(write_ruleset: Callable[..., str]) -> str:
    return write_ruleset(FLOW, {"tokens.yaml": TOKENS})


def _dot(path: str, mode: str = "show") -> str:
    program, _ = check_file(path)
    assert program is not None
    return flowgraph.to_dot(flowgraph.build(program), mode)


def test_steps_decisions_windows_and_handlers(flow_path: str) -> None:
    dot = _dot(flow_path)
    # the round's steps in order, and back to the first
    assert '"setup" -> "step_income"' in dot and '"step_income" -> "step_use"' in dot
    assert '"step_use" -> "step_tidy"' in dot and '"step_tidy" -> "step_income"' in dot
    # decisions listed in the block that asks them, optional ones marked
    assert "◆ Use which token?" in dot and "◆ Discard which token? (may pass)" in dot
    # procedures run with do, the window they fire, its handler, and what the handler does
    assert '"step_income" -> "proc_pay"' in dot and '"proc_pay" -> "window_paid"' in dot
    assert '"window_paid" -> "on_paid_0"' in dot and '"on_paid_0" -> game_over' in dot
    # a card effect (one card has one) runs a procedure
    assert '"step_use" -> "effect_Token_on_use"' in dot and '"effect_Token_on_use" -> "proc_pay"' in dot
    assert "1 card(s)" in dot
    assert '"step_use" -> "step_tidy" [style=dotted' in dot  # skip to
    # a procedure that asks, fires, skips and ends nothing is left out, unless asked for
    assert "proc_quiet" not in dot and "proc_quiet" in _dot(flow_path, "all")


def test_folding_moves_procedures_into_their_callers(flow_path: str) -> None:
    dot = _dot(flow_path, "fold")
    assert "proc_" not in dot
    assert '"step_income" -> "window_paid"' in dot  # pay's fire, now income's
    assert '"effect_Token_on_use" -> "window_paid"' in dot
    tidy = next(line for line in dot.splitlines() if line.strip().startswith('"step_tidy" ['))
    assert "Discard which token?" in tidy


def test_dot_is_deterministic_and_escaped(flow_path: str, write_ruleset: Callable[..., str]) -> None:
    assert _dot(flow_path) == _dot(flow_path)
    odd = write_ruleset('game "A \\"quoted\\" <game> & co" { players 1..1 }\n'
                        'round { step s "Step <one> & \\"two\\"" { end game } }\n', name="odd.rules")
    dot = _dot(odd)
    assert "Step &lt;one&gt; &amp; &quot;two&quot;" in dot
    assert 'digraph "A \\"quoted\\" <game> & co"' in dot


def test_cli_writes_dot_and_needs_dot_only_for_svg(flow_path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", flow_path]) == 0
    assert capsys.readouterr().out.startswith('digraph "Flow"')
    out = tmp_path / "flow.dot"
    assert main(["graph", flow_path, "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith('digraph "Flow"')
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert main(["graph", flow_path, "--out", str(tmp_path / "flow.svg")]) == 2
    err = capsys.readouterr().err
    assert "Graphviz's `dot`" in err and "--out FILE.dot" in err
    assert main(["graph", flow_path, "--out", str(tmp_path / "flow.png")]) == 2
    assert main(["graph", flow_path, "--out", str(tmp_path / "missing" / "flow.dot")]) == 2


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_svg_when_graphviz_is_present(tmp_path: Path) -> None:
    out = tmp_path / "bb.svg"
    assert main(["graph", str(BLOODBORNE), "--out", str(out)]) == 0
    svg = out.read_text(encoding="utf-8")
    assert "<svg" in svg and "Hunter&#39;s Dream" in svg.replace("Hunter's", "Hunter&#39;s")


def test_shipped_rulesets_draw(write_ruleset: Callable[..., str]) -> None:
    dot = _dot(str(BLOODBORNE), "auto")
    for step in ("step_choose", "step_hunt", "step_dream", "window_revealed", "window_hunter_died"):
        assert step in dot


def test_a_broken_ruleset_reports_its_errors(write_ruleset: Callable[..., str],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    bad = write_ruleset('game "X" { players 1..1 }\nround { step s "S" { end gmae } }\n', name="bad.rules")
    assert main(["graph", bad]) == 1
    assert "E001" in capsys.readouterr().err
