"""What the fuzz harness finds on every shipped ruleset, with a trace of every noninterference probe, as JSON.

Why: a change that makes the harness cheaper must not change what it finds. The report of a clean ruleset says
little (no violation either way), so this also records, for every probe the harness runs, where it ran (the
game's digest), what it said, how many decisions its comparisons played (``_same_decision`` calls) and the next
number of the probe's RNG (every draw a probe makes moves it). Run it from the root of each tree with that tree's
interpreter and compare the two outputs byte for byte (docs/performance.md, "Session 20: the fuzz harness"):

    python benchmarks/fuzz_findings.py 20 8 7 > /tmp/findings.json   # 20 games, 8 of the large ones, run seed 7
    python benchmarks/fuzz_findings.py 20 8 7 betrayal.rules          # one ruleset

The CPU of each ruleset's fuzz run (``time.process_time``, the ruleset loaded before) goes to stderr.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from liturgy.dsl.frontend.includes import main_rulesets
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.engine.infosets import Knowledge
from liturgy.interpreter.tools import fuzz
from liturgy.interpreter.tools import noninterference as ni

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from harness_options import HARNESS_OPTIONS  # noqa: E402 - the tests' folder is put on the path just above

LARGE = {"betrayal.rules", "bloodborne.rules", "fury_of_dracula.rules", "slay_the_spire.rules"}


def main(argv: list[str]) -> None:
    small, large, run_seed, only = int(argv[0]), int(argv[1]), int(argv[2]), set(argv[3:])
    trace: list[list[Any]] = []
    steps = [0]
    check_point, same_decision = ni.check_point, ni._same_decision

    def counted(real: Game, world: Game, rng: random.Random, observer: int, asked: ni.Asked | None = None) -> bool:
        steps[0] += 1
        return same_decision(real, world, rng, observer, asked)

    def traced(game: Game, seen: list[int], rng: random.Random, knows: list[Knowledge] | None = None) -> str | None:
        steps[0] = 0
        found = check_point(game, seen, rng, knows)
        trace.append([game.digest(), found, steps[0], rng.random()])
        return found

    ni._same_decision = counted  # type: ignore[assignment]
    fuzz.check_point = traced  # type: ignore[assignment]
    paths = [Path(p) for p in main_rulesets([str(p) for p in sorted((ROOT / "rulesets").rglob("*.rules"))])]
    out: dict[str, Any] = {}
    for path in paths:
        if only and path.name not in only:
            continue
        trace.clear()
        rules = load_ruleset(str(path))
        t0 = time.process_time()
        report = fuzz.fuzz_ruleset(rules, str(path), examples=large if path.name in LARGE else small,
                                   run_seed=run_seed, replay_path="/dev/null",
                                   options=HARNESS_OPTIONS.get(path.name))
        print(f"{path.name}: fuzz {time.process_time() - t0:.2f} s CPU", file=sys.stderr)
        found = report.to_json()
        found.pop("seconds")
        found.update(failures_seen=report.failures_seen, notes=report.notes, players=report.players,
                     seed=report.seed, probes=len(trace), probe_trace=[list(t) for t in trace])
        out[path.name] = found
    print(json.dumps(out, indent=1, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1:])
