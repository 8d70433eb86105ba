"""The games of `liturgy bench`'s random-play loop, alone, for instruction counts (docs/performance.md, session 22).

``liturgy bench`` times whole games of its driver loop (interpreter/tools/bench.py ``liturgy_batch``): a new game
from the ruleset (set-up included: for a checked game also the noted variant's template certificate), played
to the end by ``random_playout``'s picks, the rng shared by the games: since Session 24 in one call,
``new_game(..., playout=rng)`` (before it, ``new_game(...).random_playout(rng)``: the same games and decisions, one
more run of the step loop a game). This plays the same loop (the bench's first timed repeat's seeds) after three
warm-up games, and runs the N games inside ``sys.call_tracing``, so that::

    PYTHONHASHSEED=0 valgrind --tool=callgrind --toggle-collect=_PyEval_CallTracing \\
        python benchmarks/bench_loop.py rulesets/bloodborne.rules 20 4 checked

counts the games and nothing else (no load, compile or warm-up). MODE is ``unchecked`` or ``checked``; PART is
``all`` (the bench's loop), ``setup`` (``new_game`` only) or ``logs`` (each game's log lines rendered too, as
benchmarks/checked_games.py does: the same work in both modes, which is why its ratio reads higher than the bench's).
"""
from __future__ import annotations

import random
import sys

from liturgy.interpreter.engine import load_ruleset


def main(argv: list[str]) -> None:
    rules = load_ruleset(argv[0])
    n, players, mode = int(argv[1]), int(argv[2]), argv[3]
    part = argv[4] if len(argv) > 4 else "all"
    if mode not in ("unchecked", "checked") or part not in ("all", "setup", "logs"):
        raise SystemExit("MODE is unchecked or checked; PART is all, setup or logs")
    check = mode == "checked"
    for k in range(3):
        rules.new_game(players, 10**6 + k, check).random_playout(random.Random(k))
    rng = random.Random(1 * 7919 + 1)  # liturgy_batch's, seed 1, first timed repeat
    first = 1 * 1_000_003 + 1 * 100_003
    done = [0, 0]

    def games() -> None:
        for i in range(n):
            if part == "setup":
                game = rules.new_game(players, first + i, check, None)
            else:
                game = rules.new_game(players, first + i, check, None, playout=rng)
                done[0] += len(game.state.decisions)
            if part == "logs":
                done[1] += len(game.log_lines(None))

    sys.call_tracing(games, ())
    print("games", n, "decisions", done[0], "log lines", done[1])


if __name__ == "__main__":
    main(sys.argv[1:])
