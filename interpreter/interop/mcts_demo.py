"""OpenSpiel's own MCTS bot against random agents on any ruleset.

    python -m liturgy.interpreter.interop.mcts_demo rulesets/bloodborne.rules --games 200 --players 3

The game is the ``_turns`` (sequential) registration of the ruleset, so
simultaneous choices are taken one seat after another with commits hidden.
The MCTS seat rotates from game to game.  OpenSpiel's ``MCTSBot`` is unchanged:
it searches from the true state, so (like any perfect-information MCTS on an
imperfect-information game) it plans knowing hidden cards and deck order.
The random agents pick uniformly among legal actions; chance outcomes are
sampled from their probabilities.  Everything is seeded.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pyspiel
from liturgy.interpreter.interop.openspiel import register
from open_spiel.python.algorithms import mcts


def play(game: pyspiel.Game, bots: list[pyspiel.Bot | None], rng: np.random.RandomState) -> list[float]:
    """One game; ``None`` seats play uniformly at random. Returns the final returns."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        p = state.current_player()
        bot = bots[p]
        action = bot.step(state) if bot is not None else int(rng.choice(state.legal_actions(p)))
        state.apply_action(action)
    return list(state.returns())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m liturgy.interpreter.interop.mcts_demo", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ruleset", nargs="?", default="rulesets/bloodborne.rules")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--simulations", type=int, default=20, help="MCTS simulations per move")
    ap.add_argument("--rollouts", type=int, default=1, help="random rollouts per MCTS leaf")
    ap.add_argument("--uct-c", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--baseline", action="store_true", help="also play the same games with a random agent in the seat")
    args = ap.parse_args(argv)

    _, turns = register(args.ruleset)
    game = pyspiel.load_game(turns, {"players": args.players})
    n = args.players
    modes = ["mcts", "random"] if args.baseline else ["mcts"]
    for mode in modes:
        rng = np.random.RandomState(args.seed)
        wins = 0.0
        outright = 0
        started = time.time()
        for i in range(args.games):
            seat = i % n
            bots: list[pyspiel.Bot | None] = [None] * n
            if mode == "mcts":
                evaluator = mcts.RandomRolloutEvaluator(n_rollouts=args.rollouts,
                                                        random_state=np.random.RandomState(args.seed + i))
                bots[seat] = mcts.MCTSBot(game, args.uct_c, args.simulations, evaluator,
                                          random_state=np.random.RandomState(args.seed + 7919 * i))
            returns = play(game, bots, rng)
            if returns[seat] > 0:
                shared = sum(1 for r in returns if r > 0)
                wins += 1.0 / shared
                outright += shared == 1
            done = i + 1
            if done % 10 == 0 or done == args.games:
                print(f"[{mode}] {done}/{args.games} games, win rate {wins / done:.3f} "
                      f"({time.time() - started:.0f} s)", file=sys.stderr, flush=True)
        elapsed = time.time() - started
        who = (f"MCTS ({args.simulations} simulations x {args.rollouts} rollout, uct_c {args.uct_c})"
               if mode == "mcts" else "random agent")
        print(f"{who} vs {n - 1} random agents, {args.games} games of {game.get_type().long_name}, "
              f"seat rotating, seed {args.seed}: win rate {wins / args.games:.3f} "
              f"(ties split; {outright} outright wins; chance {1 / n:.3f}), {elapsed:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
