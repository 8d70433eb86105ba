"""The observation vector's cost per view, CPU time in one process: the view-based way (``Game.view`` without its
log, then ``ViewEncoder.encode``), ``encode`` alone on views already made, and ``ViewEncoder.encode_game`` (read
from the state: interop/stateenc.py) when the tree has it. States: the first 40 of a seeded random game, cycled
through every seat; the same jobs for every way, run one after the other:

    python benchmarks/encode_cpu.py 400

(docs/performance.md, Session 20: the observation vector read from the state.)
"""
import random
import sys
import time

from liturgy.interpreter.interop.common import ViewEncoder, cached_ruleset

RULES = ["rulesets/betrayal.rules", "rulesets/slay_the_spire.rules", "rulesets/fury_of_dracula.rules",
         "rulesets/bloodborne.rules", "rulesets/classic/leduc_poker.rules"]


def main(n: int) -> None:
    for path in RULES:
        rules = cached_ruleset(path)
        players = min(rules.max_players, 4)
        rng = random.Random(1)
        game = rules.new_game(players, seed=1)
        states = []
        while len(states) < 40 and not game.finished and game.waiting_for():
            states.append(game.clone())
            p = rng.choice(game.waiting_for())
            game.apply(rng.randrange(game.option_count(p)), p)
        enc = ViewEncoder(rules, players)
        jobs = [(states[i % len(states)], i % players) for i in range(n)]
        t0 = time.process_time()
        for g, me in jobs:
            enc.encode(g.view(me, log_from=len(g.state.log)), me)
        t1 = time.process_time()
        views = [g.view(me, log_from=len(g.state.log)) for g, me in jobs]
        t2 = time.process_time()
        for v, (_g, me) in zip(views, jobs, strict=True):
            enc.encode(v, me)
        t3 = time.process_time()
        line = (f"{path.rsplit('/', 1)[-1]:22s} players {players} size {enc.size:6d}  view+encode "
                f"{1e6 * (t1 - t0) / n:6.0f} us  encode alone {1e6 * (t3 - t2) / n:6.0f} us")
        if hasattr(enc, "encode_game"):
            t4 = time.process_time()
            for g, me in jobs:
                enc.encode_game(g, me)
            line += f"  encode_game {1e6 * (time.process_time() - t4) / n:6.0f} us"
        print(line, flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
