"""The nightly fuzz run of issue 30's "done when": `liturgy fuzz --examples 50` clean on each of the four large
seed rulesets for run seeds 1-5, whole games (no short variant).

It costs hours of CPU (a whole fuzzed Fury of Dracula or Betrayal game takes seconds of CPU, and 50 of them per
seed), so it runs only when asked: ``LITURGY_NIGHTLY=1 python -m pytest tests/test_fuzz_nightly.py``. The test
command covers the same harness on every shipped ruleset with a fixed run seed and a few short-variant games
(tests/test_shipped_rulesets.py). A violation fails with its message and the replay file the harness wrote.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import LARGE, ROOT
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.tools.fuzz import fuzz_ruleset

NIGHTLY = os.environ.get("LITURGY_NIGHTLY") == "1"
EXAMPLES = 50


@pytest.mark.skipif(not NIGHTLY, reason="the nightly fuzz run: set LITURGY_NIGHTLY=1 (hours of CPU)")
@pytest.mark.parametrize("run_seed", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("name", sorted(LARGE))
def test_fuzz_is_clean_on_the_large_rulesets(name: str, run_seed: int, tmp_path: Path) -> None:
    path = str(ROOT / "rulesets" / name)
    replay = tmp_path / f"{Path(name).stem}-{run_seed}.replay.json"
    report = fuzz_ruleset(load_ruleset(path), path, examples=EXAMPLES, run_seed=run_seed, replay_path=str(replay))
    assert report.violation is None, f"{report.violation} (replay: {replay})"
    assert report.examples >= EXAMPLES and report.decisions > 0
