"""CPU seconds of the fuzz harness (the leak check and the noninterference probes) on one ruleset.

Why a script: the probe's cost is what `liturgy fuzz` and tests/test_shipped_rulesets.py's fuzz-harness test pay,
and comparing two trees needs the same run in each, interleaved on a loaded machine (docs/performance.md, "Session
15"). Run it from the root of each tree with that tree's interpreter:

    nice -n 10 python benchmarks/fuzz_probe_cpu.py rulesets/betrayal.rules 8 7 --test   # the test's run
    nice -n 10 python benchmarks/fuzz_probe_cpu.py rulesets/betrayal.rules 1 1   # as `liturgy fuzz --examples 1`

``--test`` plays the short variants the test plays (tests/harness_options.py). Prints the CPU time of loading the
ruleset and of the fuzz run apart (``time.process_time``: the machine's other work does not count).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.tools.fuzz import fuzz_ruleset

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from harness_options import HARNESS_OPTIONS  # noqa: E402 - the tests' folder is put on the path just above


def main(argv: list[str]) -> None:
    path, examples, seed = argv[0], int(argv[1]), int(argv[2])
    options = HARNESS_OPTIONS.get(Path(path).name) if "--test" in argv else None
    t0 = time.process_time()
    rules = load_ruleset(path)
    t1 = time.process_time()
    report = fuzz_ruleset(rules, path, examples=examples, run_seed=seed, replay_path="/dev/null", options=options)
    t2 = time.process_time()
    print(f"{Path(path).name} examples={examples} seed={seed} {'test' if options or '--test' in argv else 'full'}: "
          f"load {t1 - t0:.2f} s, fuzz {t2 - t1:.2f} s CPU, {report.decisions} decisions, "
          f"violation: {report.violation}")


if __name__ == "__main__":
    main(sys.argv[1:])
