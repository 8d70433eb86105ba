"""A ruleset's speed by CPU time, for before/after comparisons on a busy machine.

`liturgy bench` times by the wall clock, which a machine shared by several busy processes makes meaningless
(a load average of 15 on 2 cores divides every figure by about 7, unevenly). This script measures the same
things by ``time.process_time``: random-play games per CPU second without and with invariant checks (the
driver loop of ``liturgy bench``), ``load_game`` of a mid-game save, and ``load_ruleset`` (parse, check,
compile). Run it once per tree, alternating (A, B, A, B …), and compare; it prints one JSON line::

    python benchmarks/cpu_figures.py rulesets/bloodborne.rules --players 4 --games 200
"""

from __future__ import annotations

import argparse
import json
import random
import time

from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.tools.bench import mid_game


def _games_per_cpu_s(rules: object, players: int, games: int, seed: int, check: bool) -> float:
    rng = random.Random(seed)
    new_game = rules.new_game  # type: ignore[attr-defined]
    t = time.process_time()
    for i in range(games):
        new_game(players, seed * 1_000_003 + i, check).random_playout(rng)
    return games / (time.process_time() - t)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ruleset")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    t = time.process_time()
    rules = load_ruleset(args.ruleset)
    load_ruleset_ms = (time.process_time() - t) * 1000
    _games_per_cpu_s(rules, args.players, 5, args.seed + 1, False)  # warm-up
    unchecked = _games_per_cpu_s(rules, args.players, args.games, args.seed, False)
    # a warm-up of its own: the first checked game compiles the rules' noted variant and certifies its template,
    # one-time costs (which `liturgy bench`'s warm-up also leaves out) that read as a third of 66 games' time
    _games_per_cpu_s(rules, args.players, 3, args.seed + 1, True)
    checked = _games_per_cpu_s(rules, args.players, max(1, args.games // 3), args.seed, True)
    game = mid_game(rules, args.players, args.seed)
    text = json.dumps(game.to_json())
    n = 200
    t = time.process_time()
    for _ in range(n):
        rules.load_game(json.loads(text))
    load_game_us = (time.process_time() - t) / n * 1e6
    print(json.dumps({"games_per_cpu_s": round(unchecked, 1), "checked_games_per_cpu_s": round(checked, 1),
                      "checked_ratio": round(checked / unchecked, 3), "load_game_us": round(load_game_us, 1),
                      "load_ruleset_ms": round(load_ruleset_ms, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
