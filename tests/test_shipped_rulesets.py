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
from conftest import LARGE, ROOT, sized
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


# The four large games (conftest.LARGE) cost 1-3 s of CPU per fuzzed game (the leak check and the noninterference
# probes render every view again and again): the test command plays 8 of each (Betrayal's 20 took a minute of CPU
# alone), the long profile (HYPOTHESIS_PROFILE=thorough) 100; the classic games stay at 20. Slay the Spire plays
# 4 (14.8 s of CPU for 8, 8.0 s for 4, compile included). Every game runs each
# of the harness's checks (invariants after every decision, the leak check, the noninterference probes, the end
# with winners) through a whole game; its many cards, enemies and events are the long hunt's to cover: the run seed
# is fixed, so the test command replays the same few games each time, and more of them cover more only under
# `thorough`. (Betrayal stays at 8: its first 4 games already cost 17.0 s of the 18.9 s of all 8.)
HEAVIEST = {"slay_the_spire.rules"}


def _fuzz_count(path: Path) -> int:
    """How many games the fuzz harness plays of ``path`` under the active profile (see above)."""
    if path.name in HEAVIEST:
        return sized(ci=4, thorough=100)
    return sized(ci=8, thorough=100) if path.name in LARGE else sized(ci=20, thorough=100)


@pytest.mark.parametrize("path", SHIPPED, ids=_id)
def test_shipped_ruleset_is_clean_under_the_fuzz_harness(path: Path, tmp_path: Path) -> None:
    examples = _fuzz_count(path)
    report = fuzz_ruleset(load_ruleset(str(path)), str(path), examples=examples, run_seed=7,
                          replay_path=str(tmp_path / "failure.json"),
                          options=HARNESS_OPTIONS.get(path.name))
    assert report.violation is None, f"{report.violation} (replay: {report.replay_path})"
    assert report.examples >= examples and report.decisions > 0
