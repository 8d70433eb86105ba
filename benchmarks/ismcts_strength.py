"""Playing strength of the ISMCTS agent with the one-shuffle world sampler against the swap-walk sampler it replaced.

Session 13 (issue 29) changed how a :class:`WorldSampler` deals a group of hidden cards any of which may lie at
any of the group's places: one uniform shuffle instead of a greedy deal followed by a chain of swaps. Both are
uniform over the information set (tests/test_world_distribution.py checks the new one against an exact
enumeration), but they draw different worlds for one seed, so the agent's seeded choices changed. This script
checks that the strength did not: seated games (seats alternate with the game number) of the new agent against a
random player, of the old agent against a random player, and of the new against the old, reporting the mean
score and win share of the first named agent with a 95 % interval.

"old" is the same agent whose sampler sends every group through the swap walk (the code before the change, draw
for draw: a free group's walk is what every group had).

    python benchmarks/ismcts_strength.py rulesets/classic/kuhn_poker.rules --games 400 --sims 300
    python benchmarks/ismcts_strength.py rulesets/bloodborne.rules --players 3 --games 60 --sims 20
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Callable

from liturgy.interpreter.agents import ismcts
from liturgy.interpreter.agents.ismcts import Budget, ISMCTSAgent
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.engine.infosets import Knowledge, WorldSampler


class OldSampler(WorldSampler):
    """The sampler as it was before the one-shuffle deal: every group through the greedy deal and swap walk."""

    def __init__(self, game: Game, player: int, knowledge: Knowledge | None = None,
                 keep_declarations: bool = False) -> None:
        super().__init__(game, player, knowledge, keep_declarations)
        self.groups = [members for members, _ in self.free] + self.groups
        self.free = []


Chooser = Callable[[Game, int], int]


def searcher(kind: str, sims: int, seed: int) -> Chooser:
    """A seat: ``new`` or ``old`` ISMCTS (the module's sampler class is swapped in for its own decisions only)."""
    agent = ISMCTSAgent(Budget(simulations=sims), seed=seed)
    cls = WorldSampler if kind == "new" else OldSampler

    def choose(game: Game, p: int) -> int:
        ismcts.WorldSampler = cls  # type: ignore[misc]
        try:
            return agent.choose(game, p)
        finally:
            ismcts.WorldSampler = WorldSampler  # type: ignore[misc]
    return choose


def rand(seed: int) -> Chooser:
    rng = random.Random(seed)
    return lambda game, p: rng.randrange(game.option_count(p))


def match(path: str, players: int, games: int, sims: int, a: str, b: str) -> tuple[float, float, float]:
    """Mean score of ``a``'s seat, its 95 % half-width, and its share of the wins, over ``games`` games with ``a``
    in seat ``i % players`` and ``b`` in every other seat."""
    rules = load_ruleset(path)
    scores: list[float] = []
    wins = 0.0
    for i in range(games):
        seat = i % players
        game = rules.new_game(players, 10_000 + i)
        seats = [searcher(a, sims, i) if q == seat
                 else rand(i * 7 + q) if b == "random" else searcher(b, sims, i * 7 + q) for q in range(players)]
        while not game.finished:
            p = game.waiting_for()[0]
            game.apply(seats[p](game, p), p)
        result = game.result
        assert result is not None, game.error
        scores.append(float(result["scores"][seat]))
        winners = result["winners"]
        wins += 1.0 / len(winners) if seat in winners else 0.0
    mean = sum(scores) / games
    sd = math.sqrt(sum((x - mean) ** 2 for x in scores) / max(games - 1, 1))
    return mean, 1.96 * sd / math.sqrt(games), wins / games


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("ruleset")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--sims", type=int, default=300)
    ap.add_argument("--pairs", default="new:random,old:random,new:old")
    args = ap.parse_args()
    for pair in args.pairs.split(","):
        a, b = pair.split(":")
        mean, half, share = match(args.ruleset, args.players, args.games, args.sims, a, b)
        print(f"{a} vs {b}: mean score {mean:+.3f} ± {half:.3f}, win share {share:.3f} ({args.games} games)",
              flush=True)


if __name__ == "__main__":
    main()
