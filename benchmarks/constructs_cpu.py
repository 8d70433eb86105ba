"""The construct microbenchmarks (benchmarks/constructs) by CPU time: best of N interleaved runs of each side.

``liturgy bench`` reports the same ratios by the wall clock; on a loaded machine the best process time of many
alternating runs is steadier:

    python benchmarks/constructs_cpu.py 40

``BASE=/path/to/pkg`` measures another tree's package instead (see benchmarks/openspiel_cpu.py).
"""
import os
import sys
import time
from pathlib import Path

if os.environ.get("BASE"):
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
    sys.path.insert(0, os.environ["BASE"])

from liturgy.interpreter.engine import load_ruleset  # noqa: E402
from liturgy.interpreter.tools.microbench import _plain_functions  # noqa: E402

HERE = Path(__file__).resolve().parent / "constructs"


def main(rounds: int) -> None:
    out = []
    for name, plain in _plain_functions(HERE).items():
        rules = load_ruleset(str(HERE / f"{name}.rules"))
        rules.new_game(1, 1)
        plain()
        best_l = best_p = float("inf")
        for _ in range(rounds):
            t0 = time.process_time()
            rules.new_game(1, 1)
            t1 = time.process_time()
            plain()
            t2 = time.process_time()
            best_l, best_p = min(best_l, t1 - t0), min(best_p, t2 - t1)
        out.append(f"{name}: {best_p / best_l:.2f}x ({best_l * 1e6:.0f} vs {best_p * 1e6:.0f} us)")
    print("; ".join(out))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
