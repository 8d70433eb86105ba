"""Every shipped ruleset, whichever game it is, passes the same gates.

The rulesets are discovered, not listed, so a new game is covered the moment
it lands: `liturgy check --strict` is clean, and the generic property harness
(declared and engine invariants after every step, a result at the end,
replay/save/clone round trips, no view or log leaking a hidden card) finds
nothing in a moderate number of random games.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT
from harness_options import HARNESS_OPTIONS
from liturgy.dsl.frontend.includes import main_rulesets
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.tools.cli import main
from liturgy.interpreter.tools.fuzz import fuzz_ruleset

SHIPPED = [Path(p) for p in main_rulesets([str(p) for p in sorted((ROOT / "rulesets").rglob("*.rules"))])]


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT / "rulesets"))


def test_rulesets_are_discovered() -> None:
    assert ROOT / "rulesets" / "bloodborne.rules" in SHIPPED


@pytest.mark.parametrize("path", SHIPPED, ids=_id)
def test_shipped_ruleset_checks_clean_with_strict(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--strict", str(path)]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("path", SHIPPED, ids=_id)
def test_shipped_ruleset_is_clean_under_the_fuzz_harness(path: Path, tmp_path: Path) -> None:
    report = fuzz_ruleset(load_ruleset(str(path)), str(path), examples=20, run_seed=7,
                          replay_path=str(tmp_path / "failure.json"),
                          options=HARNESS_OPTIONS.get(path.name))
    assert report.violation is None, f"{report.violation} (replay: {report.replay_path})"
    assert report.examples >= 20 and report.decisions > 0
