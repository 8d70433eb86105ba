"""Liturgy against OpenSpiel, decisions per CPU second, interleaved in one process (A, B, A, B, …).

``liturgy bench`` times each side by the wall clock, one after the other; on a shared machine the load moves
between the two and the ratio with it. This script alternates short slices of the same driver loop as the
bench (``new_game(..., playout=rng)``, a game set up and played by ``Game.random_playout``'s picks in one call,
against ``interpreter.tools.bench.openspiel_batch``) and sums process time, so both sides see the same load:

    python benchmarks/openspiel_cpu.py kuhn_poker,liars_poker,tic_tac_toe,goofspiel,connect_four,breakthrough,hex 6

With ``BASE=/path/to/pkg`` (a folder holding another tree's ``liturgy`` package) the other tree is measured
instead, to compare two trees run after run (docs/performance.md); a tree whose ``new_game`` has no ``playout``
is driven by ``new_game(...).random_playout(rng)``, as the bench drove it then.
"""
import os
import random
import sys
import time

if os.environ.get("BASE"):  # another tree's package first, ahead of the editable install's finder
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
    sys.path.insert(0, os.environ["BASE"])

from liturgy.interpreter.engine import load_ruleset  # noqa: E402
from liturgy.interpreter.tools.bench import openspiel_batch  # noqa: E402

PEERS = {"kuhn_poker": "python_kuhn_poker", "liars_poker": "python_liars_poker",
         "tic_tac_toe": "python_tic_tac_toe", "block_dominoes": "python_block_dominoes", "goofspiel": "goofspiel",
         "connect_four": "connect_four", "breakthrough": "breakthrough", "hex": "hex"}
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rulesets", "classic")


def main(names: list[str], rounds: int, slice_s: float = 0.25) -> None:
    for name in names:
        rules = load_ruleset(os.path.join(ROOT, f"{name}.rules"))
        peer = openspiel_batch(PEERS[name], 1)
        peer(0.1, 0)
        rng = random.Random(1)
        game_seed = 0
        try:
            rules.new_game(2, 10**6, playout=random.Random(0))
            one = True
        except TypeError:  # an older tree (BASE=…) without new_game's ``playout``
            one = False
        new_game = rules.new_game
        ours = [0, 0.0]
        theirs = [0, 0.0]
        for k in range(rounds):
            t0 = time.process_time()
            done = 0
            while time.process_time() - t0 < slice_s:
                if one:
                    done += len(new_game(2, game_seed, playout=rng).state.decisions)
                else:
                    done += new_game(2, game_seed).random_playout(rng)
                game_seed += 1
            ours[0] += done
            ours[1] += time.process_time() - t0
            t0 = time.process_time()
            _, decisions, _, _ = peer(slice_s, k + 1)
            theirs[0] += decisions
            theirs[1] += time.process_time() - t0
        a, b = ours[0] / ours[1], theirs[0] / theirs[1]
        print(f"{name:14s} liturgy {a:9.0f} dec/CPU-s  {PEERS[name]:22s} {b:9.0f} dec/CPU-s  ratio {a / b:5.2f}x")


if __name__ == "__main__":
    main(sys.argv[1].split(","), int(sys.argv[2]) if len(sys.argv) > 2 else 6)
