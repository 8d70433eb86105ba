"""pytest-benchmark harness: the engine's hot paths, for before/after comparisons of a change.

Not part of the CI suite (``testpaths`` is ``tests``). Run with::

    pip install -e ".[bench]"
    python -m pytest benchmarks --benchmark-only                      # table
    python -m pytest benchmarks --benchmark-only --benchmark-save=before   # then compare:
    python -m pytest benchmarks --benchmark-only --benchmark-compare

`liturgy bench` is the user-facing report with targets and OpenSpiel peers;
this harness gives pytest-benchmark's statistics (rounds, outliers, saved runs).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from liturgy.dsl.frontend.includes import main_rulesets
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset, load_ruleset
from liturgy.interpreter.tools.bench import default_players, mid_game

ROOT = Path(__file__).resolve().parent.parent
RULESETS = main_rulesets(sorted(str(p) for p in (ROOT / "rulesets").rglob("*.rules")))


@pytest.fixture(scope="module", params=RULESETS, ids=lambda p: Path(p).stem)
def ruleset(request: pytest.FixtureRequest) -> Ruleset:
    return load_ruleset(request.param)


def _playout(rules: Ruleset, players: int, seed: int, rng: random.Random) -> int:
    g = rules.new_game(players, seed)
    n = 0
    while not g.finished:
        for p in g.waiting_for():
            g.apply(rng.randrange(g.option_count(p)), p)
            n += 1
    return n


def test_random_game(benchmark: pytest.FixtureRequest, ruleset: Ruleset) -> None:
    rng = random.Random(1)
    seeds = iter(range(10**9))
    players = default_players(ruleset)
    benchmark(lambda: _playout(ruleset, players, next(seeds), rng))  # type: ignore[operator]


def test_clone(benchmark: pytest.FixtureRequest, ruleset: Ruleset) -> None:
    game = mid_game(ruleset, default_players(ruleset), 1)
    benchmark(game.clone)  # type: ignore[operator]


def test_save_load(benchmark: pytest.FixtureRequest, ruleset: Ruleset) -> None:
    game = mid_game(ruleset, default_players(ruleset), 1)
    benchmark(lambda: ruleset.load_game(json.loads(json.dumps(game.to_json()))))  # type: ignore[operator]


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: Path(p).stem)
def test_parse_check(benchmark: pytest.FixtureRequest, path: str) -> None:
    benchmark(lambda: check_file(path))  # type: ignore[operator]
