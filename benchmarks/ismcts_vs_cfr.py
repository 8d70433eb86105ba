"""The ISMCTS agent against OpenSpiel's CFR policy in Kuhn poker: its expected chips per hand vs the equilibrium.

Kuhn poker's equilibrium value is -1/18 chip per hand for the first player and +1/18 for the second, so an agent
that alternates seats and plays the equilibrium averages 0; anything it gives away to the CFR policy (an
approximate equilibrium: OpenSpiel's CFR, ``--iterations`` iterations, its exploitability printed) shows as a
negative mean. Hand ``i`` seats the agent as P1 when ``i`` is even. Each hand is played in the Liturgy ruleset
(rulesets/classic/kuhn_poker.rules, tested move by move against OpenSpiel's game) and mirrored in OpenSpiel's
``kuhn_poker`` (the same deal, the same actions) so the CFR policy reads its own information states.

    python benchmarks/ismcts_vs_cfr.py --hands 600 --agent ismcts:300:score
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time

import pyspiel
from liturgy.interpreter.agents.agents import make_agent
from liturgy.interpreter.engine import load_ruleset
from open_spiel.python.algorithms import cfr, exploitability


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=600)
    ap.add_argument("--agent", default="ismcts:300:score")
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    os_game = pyspiel.load_game("kuhn_poker")
    solver = cfr.CFRSolver(os_game)
    for _ in range(args.iterations):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    expl = exploitability.exploitability(os_game, policy)
    rules = load_ruleset("rulesets/classic/kuhn_poker.rules")
    rng = random.Random(args.seed)
    agent = make_agent(args.agent, args.seed + 1)
    hand_zone = [z for z, n in enumerate(rules.new_game(2, 0).state.tables.zone_names) if n.endswith("hand")]
    chips: list[float] = []
    t0 = time.perf_counter()
    for i in range(args.hands):
        seat = i % 2
        game = rules.new_game(2, args.seed * 1_000_003 + i)
        ranks = game.state.tables.fields["rank"]
        state = os_game.new_initial_state()
        for p in range(2):  # the same deal in OpenSpiel's game (cards 0, 1, 2 are J, Q, K: Liturgy's ranks)
            state.apply_action(ranks[game.state.zones[hand_zone[p]][0]])
        while not game.finished:
            p = game.waiting_for()[0]
            if p == seat:
                choice = agent.choose(game, p)
            else:
                probs = policy.action_probabilities(state)
                actions, weights = zip(*sorted(probs.items()), strict=True)
                choice = rng.choices(actions, weights)[0]
            label = game.decision.options[p][choice] if game.decision else ""
            state.apply_action(0 if label == "pass" else 1)
            game.apply(choice, p)
        assert state.is_terminal() and game.result is not None
        assert [float(x) for x in game.result["scores"]] == state.returns()  # the mirror played the same hand
        chips.append(float(game.result["scores"][seat]))
    mean = sum(chips) / len(chips)
    sd = math.sqrt(sum((c - mean) ** 2 for c in chips) / (len(chips) - 1))
    half = 1.96 * sd / math.sqrt(len(chips))
    print(json.dumps({
        "agent": args.agent, "hands": args.hands, "cfr_iterations": args.iterations,
        "cfr_exploitability": round(expl, 5), "mean_chips_per_hand": round(mean, 4),
        "ci95": [round(mean - half, 4), round(mean + half, 4)],
        "equilibrium_value_alternating_seats": 0.0, "seconds": round(time.perf_counter() - t0, 1),
    }))


if __name__ == "__main__":
    main()
