"""The rule-level profiler (`liturgy profile`): it names real rules with their lines and counts their calls exactly.

No timing is asserted (the machine is shared); counts are checked against the same games played unprofiled.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.agents.agents import RandomAgent
from liturgy.interpreter.engine import Ruleset
from liturgy.interpreter.tools.cli import main
from liturgy.interpreter.tools.ruleprof import ProfileReport, RuleStats, calibrate, profile
from liturgy.interpreter.tools.simulate import game_seed, simulate

DOCS = Path(__file__).resolve().parent.parent / "docs" / "examples"
NIGHT = str(DOCS / "night_watch.rules")
MARKET = str(DOCS / "market.rules")


def _program(path: str):  # type: ignore[no-untyped-def]
    program, diags = check_file(path)
    assert program is not None, diags
    return program


def _rule(report: ProfileReport, kind: str, name: str) -> list[RuleStats]:
    return [r for r in report.rules if r.kind == kind and r.name == name]


def _line(path: str, text: str) -> int:
    return next(i for i, line in enumerate(Path(path).read_text().splitlines(), 1) if line.startswith(text))


def _unprofiled(path: str, games: int, players: int, seed: int) -> tuple[int, int, int]:
    """Rounds, `faces the threat` log lines and decisions of the games the profiler plays."""
    rules = Ruleset(_program(path))
    rounds = faced = decisions = 0
    for i in range(games):
        s = game_seed(seed, i)
        g = rules.new_game(players, s, check_invariants=True)
        decisions += g.random_playout(RandomAgent(s ^ 0x5EED).rng)
        rounds += g.state.counters[1]
        faced += sum("faces the threat" in line for line in g.log_lines(None))
    return rounds, faced, decisions


def test_night_watch_counts_every_rule_exactly() -> None:
    games, players, seed = 12, 3, 4
    report = profile(_program(NIGHT), games, players, seed, path=NIGHT)
    rounds, faced, decisions = _unprofiled(NIGHT, games, players, seed)
    assert (report.finished, report.aborted, report.decisions) == (games, 0, decisions)
    assert rounds > games and faced > 0
    for step in ("dusk", "night", "dawn"):
        (r,) = _rule(report, "step", step)
        assert r.calls == rounds
        assert r.where == f"{NIGHT}:{_line(NIGHT, f'  step {step} ')}"
    pure_alarm, asking_alarm = sorted(_rule(report, "handler", "on alarm"), key=lambda r: int(r.where.split(":")[-1]))
    assert pure_alarm.calls == asking_alarm.calls == rounds  # one pure handler, one that asks (a step-machine frame)
    (hurt,) = _rule(report, "proc", "hurt")
    (wounded,) = _rule(report, "handler", "on wounded")
    assert hurt.calls == wounded.calls == faced
    assert hurt.where == f"{NIGHT}:{_line(NIGHT, 'proc hurt')}"
    (fit,) = _rule(report, "fn", "fit")
    assert fit.calls >= rounds
    # cumulative time includes what a rule calls; self time never exceeds it
    for r in report.rules:
        assert r.cum_s >= r.self_s - 1e-9 or r.self_s < 1e-6
    assert hurt.cum_s >= wounded.cum_s
    (night,) = _rule(report, "step", "night")
    assert night.cum_s >= asking_alarm.cum_s


def test_market_effects_functions_invariants_and_finish() -> None:
    program = _program(MARKET)
    checked = profile(program, 8, 2, 1, path=MARKET)
    (inv,) = _rule(checked, "invariant", "the stall never holds more than 3")
    assert inv.calls > checked.decisions  # after every step that stops, and at the end
    assert inv.where == f"{MARKET}:{_line(MARKET, 'invariant')}"
    assert _rule(checked, "proc", "restock")[0].calls > 0
    assert _rule(checked, "finish", "finish") == [] or _rule(checked, "finish", "finish")[0].calls == 8
    assert _rule(checked, "score", "score")[0].calls == 8 * 2  # once per player per game
    worth = [r for r in checked.rules if r.kind == "function" and r.name.startswith("worth")]
    assert worth and all(r.where.endswith(tuple(f":{i}" for i in range(1, 10_000))) for r in worth)
    unchecked = profile(program, 8, 2, 1, check=False, path=MARKET)
    assert _rule(unchecked, "invariant", "the stall never holds more than 3") == []
    assert unchecked.decisions == checked.decisions
    summary = simulate(MARKET, 8, 2, 1, check=False)
    assert summary.decisions == unchecked.decisions


def test_profiled_rules_account_for_the_time() -> None:
    report = profile(_program(NIGHT), 5, 2, 0, clock="cpu", path=NIGHT)
    assert report.total_s > 0
    assert report.rules_s >= 0
    assert sum(r.self_s for r in report.rules) == pytest.approx(report.rules_s)
    data = report.to_json("cum", top=3)
    assert len(data["rules"]) == 3
    assert data["rules"][0]["cum_ms"] >= data["rules"][1]["cum_ms"] >= data["rules"][2]["cum_ms"]
    o = calibrate(lambda: 0.0, n=10, repeats=1)  # a stopped clock: no overhead to take off
    assert (o.fn_in, o.fn_out, o.ins_in, o.ins_out) == (0.0, 0.0, 0.0, 0.0)


def test_cli_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profile", NIGHT, "--games", "4", "--players", "2", "--top", "5"]) == 0
    out = capsys.readouterr().out
    assert "4 finished, 0 aborted" in out
    assert "in rules" in out and "in the engine" in out
    assert len(re.findall(r"night_watch\.rules:\d+$", out, re.M)) == 5
    assert main(["profile", NIGHT, "--games", "3", "--json", "--top", "0", "--sort", "calls"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 3 and data["players"] == 1
    names = {(r["kind"], r["name"]) for r in data["rules"]}
    assert {("proc", "hurt"), ("fn", "awake"), ("step", "dawn"), ("handler", "on alarm")} <= names
    calls = [r["calls"] for r in data["rules"]]
    assert calls == sorted(calls, reverse=True)
    with pytest.raises(SystemExit) as stop:  # a range checked by argparse (interpreter/tools/arguments.py)
        main(["profile", NIGHT, "--games", "0"])
    assert stop.value.code == 2
    assert main(["profile", NIGHT, "--players", "9"]) == 2
    assert main(["profile", MARKET, "--option", "x=y"]) == 2
