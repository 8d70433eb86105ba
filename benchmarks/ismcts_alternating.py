"""ISMCTS simulations per CPU second on Kuhn poker, alternating this tree, OpenSpiel's ISMCTSBot and another tree.

Each measurement is its own subprocess timing 1.5 CPU seconds of whole games (``microbench.liturgy_ismcts_rate``
/ ``openspiel_ismcts_rate``, 300 simulations per decision), taken in turn so that the load of a shared machine
falls on all three alike; the medians and their ratios are printed.

    python benchmarks/ismcts_alternating.py ROUNDS [OTHER_PYTHON OTHER_TREE]

``OTHER_PYTHON`` is another checkout's interpreter (its venv's ``liturgy`` pointing at ``OTHER_TREE``).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

CODE = "from liturgy.interpreter.tools import microbench as mb; print(mb.{f}(1.5, 0)[0])"


def measure(python: str, tree: str, function: str) -> float:
    out = subprocess.run(["nice", "-n", "5", python, "-c", CODE.format(f=function)], capture_output=True,
                         text=True, cwd=tree, check=True)
    return float(out.stdout.strip())


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    here = str(Path(__file__).resolve().parent.parent)
    sides = [("this", sys.executable, here, "liturgy_ismcts_rate"),
             ("openspiel", sys.executable, here, "openspiel_ismcts_rate")]
    if len(sys.argv) > 3:
        sides.append(("other", sys.argv[2], sys.argv[3], "liturgy_ismcts_rate"))
    results: dict[str, list[float]] = {name: [] for name, *_ in sides}
    for k in range(rounds):
        for name, python, tree, function in sides:
            results[name].append(measure(python, tree, function))
        print(k, {name: round(v[-1]) for name, v in results.items()}, flush=True)
    med = {name: statistics.median(v) for name, v in results.items()}
    print("medians", {name: round(v) for name, v in med.items()})
    for name in med:
        if name != "openspiel":
            print(f"{name} / openspiel: {med[name] / med['openspiel']:.3f}")
    if "other" in med:
        print(f"this / other: {med['this'] / med['other']:.3f}")


if __name__ == "__main__":
    main()
