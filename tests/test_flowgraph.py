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


HUB = """
game "Hub" { players 2..2 }
counter per player gold 0..99 = 0
proc ping(p: player) { choose x from [1, 2] by p prompt "How much?" { p.gold += x } }
round {
  step a "A" { for p in players { do ping(p) } }
  step b "B" { for p in players { do ping(p) } }
  step c "C" { for p in players { do ping(p) } }
  step d "D" { for p in players { do ping(p) } if round > 3 { end game } }
}
score(p) = p.gold
"""


def _arrows(dot: str) -> list[str]:
    return [line.strip() for line in dot.splitlines() if " -> " in line and "style=invis" not in line]


def test_compact_view_groups_by_step_and_collapses_hubs_and_game_ends(flow_path: str,
                                                                      write_ruleset: Callable[..., str]) -> None:
    program, _ = check_file(flow_path)
    assert program is not None
    flow = flowgraph.build(program)
    full, small = flowgraph.to_dot(flow, "show", "full"), flowgraph.to_dot(flow, "show", "compact")
    assert '"on_paid_0" -> game_over' in full and '"on_paid_0" -> game_over' not in small
    handler = next(line for line in small.splitlines() if line.strip().startswith('"on_paid_0" ['))
    assert "■ can end the game" in handler
    # pay runs from Income and (through the Token effect) from Use: the shared group; ask only from Tidy up
    assert 'label="run from several steps"' in small and 'label="run from Tidy up"' in small
    tidy_group = small.split('label="run from Tidy up"')[1].split("}")[0]
    assert '"proc_ask"' in tidy_group and '"proc_pay"' not in tidy_group
    hub = write_ruleset(HUB, name="hub.rules")
    program, _ = check_file(hub)
    assert program is not None
    dot = flowgraph.to_dot(flowgraph.build(program), "show", "compact")
    assert not any(a.endswith('"proc_ping";') for a in _arrows(dot))  # four callers: no arrows in
    ping = next(line for line in dot.splitlines() if line.strip().startswith('"proc_ping" ['))
    assert "run from 4 places" in ping and "How much?" in ping
    assert all("→ ping" in line for line in dot.splitlines() if line.strip().startswith(('"step_a" [', '"step_d" [')))
    assert '"step_d" -> game_over' in dot  # a step keeps its arrow to game over
    full = flowgraph.to_dot(flowgraph.build(program), "show", "full")
    assert sum(a.endswith('"proc_ping";') for a in _arrows(full)) == 4


def test_focus_draws_what_a_block_runs_and_who_runs_it(flow_path: str, capsys: pytest.CaptureFixture[str]) -> None:
    program, _ = check_file(flow_path)
    assert program is not None
    flow = flowgraph.build(program)
    tidy = flowgraph.to_dot(flow, "show", "full", ["tidy"])
    assert '"step_tidy" -> "proc_ask"' in tidy and "Discard which token?" in tidy
    assert "proc_pay" not in tidy and "window_paid" not in tidy and "game_over" not in tidy
    assert "Use which token?" not in tidy  # the other steps are drawn small, as context
    assert '"step_income" -> "step_use"' in tidy  # the round is still drawn
    paid = flowgraph.to_dot(flow, "show", "full", ["window:paid"], depth=1)
    assert '"window_paid" -> "on_paid_0"' in paid and '"on_paid_0" -> game_over' in paid
    assert '"proc_pay" -> "window_paid"' in paid  # who fires it, one arrow back
    assert "proc_ask" not in paid
    pay = flowgraph.to_dot(flow, "show", "full", ["Token"], depth=1)
    assert '"effect_Token_on_use" -> "proc_pay"' in pay and '"step_use" -> "effect_Token_on_use"' in pay
    assert main(["graph", flow_path, "--focus", "nowhere"]) == 2
    err = capsys.readouterr().err
    assert "--focus nowhere: no step, window" in err and "steps: income, use, tidy" in err
    assert main(["graph", flow_path, "--focus", "card:Token"]) == 2
    assert "the prefix is one of step:, window:, proc:, effect:" in capsys.readouterr().err
    assert main(["graph", flow_path, "--focus", "tidy", "--depth", "1", "--view", "compact"]) == 0
    assert '"step_tidy" -> "proc_ask"' in capsys.readouterr().out


def test_slay_the_spire_compact_by_default_keeps_every_block() -> None:
    sts = BLOODBORNE.parent / "slay_the_spire.rules"
    program, _ = check_file(str(sts))
    assert program is not None
    flow = flowgraph.build(program)
    full, auto = flowgraph.to_dot(flow, "auto", "full"), flowgraph.to_dot(flow, "auto")
    assert len(_arrows(auto)) * 2 < len(_arrows(full))
    nodes = {line.split(" [")[0].strip() for line in full.splitlines() if line.strip().startswith('"') and " [" in
             line and " -> " not in line}
    assert nodes and all(f"{n} [" in auto for n in nodes)  # fewer arrows, the same blocks
