"""Seeded random games of one ruleset, unchecked or invariant-checked, for instruction counts (docs/performance.md).

``python benchmarks/checked_games.py RULES N PLAYERS MODE`` plays N seeded random games (seeds 0..N-1) and prints
the log lines they wrote (the same in every mode, so two counts compare the same games). MODE is ``unchecked``,
``skip`` (invariant-checked as the engine ships: a declared invariant whose reads did not change is skipped) or
``all`` (checked with every invariant evaluated at every check, as before the read sets). Run it under
``valgrind --tool=callgrind`` with N and with 0 and subtract: load and compile cost the same in every mode (the
checked modes compile the rules' noted variant, ``Ruleset.noted``, before the games: a one-time cost per ruleset,
like loading, which N = 0 in the same mode counts).
"""
from __future__ import annotations

import random
import sys

from liturgy.interpreter.compiler.readsets import InvariantReads
from liturgy.interpreter.engine import load_ruleset


def main(argv: list[str]) -> None:
    rules = load_ruleset(argv[0])
    n, players, mode = int(argv[1]), int(argv[2]), argv[3]
    if mode not in ("unchecked", "skip", "all"):
        raise SystemExit(f"unknown mode {mode!r}: unchecked, skip or all")
    if mode != "unchecked":
        rules = rules.noted()  # compiled here, before the games: what N = 0 subtracts includes it (see the docstring)
    comp = rules.compiled
    if mode == "all":
        comp.invariant_reads = InvariantReads([None] * len(comp.invariant_reads.sets), comp.invariant_reads.lay)
    lines = 0
    for seed in range(n):
        game = rules.new_game(players, seed, check_invariants=mode != "unchecked")
        game.random_playout(random.Random(seed))
        lines += len(game.log_lines(None))
    print("games", n, "log lines", lines)


if __name__ == "__main__":
    main(sys.argv[1:])
