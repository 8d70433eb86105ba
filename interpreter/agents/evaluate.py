"""Measure an agent against random seats: win rate with a 95% interval, mean score, and the agent's speed.

``python -m liturgy.interpreter.agents.evaluate RULESET --players N --agent ismcts:20 --games 200``

Game ``i`` puts the agent in seat ``i mod N`` (so no seat's advantage favours it) with random agents elsewhere;
the game seed is ``seed * 1_000_003 + i`` and every agent has its own seed, independent of the game's, so a run
is reproducible from its seed. The interval is Wilson's score interval for a binomial proportion (a shared win
counts as a fraction; the interval then treats it as that fraction of a win). ``--jobs`` plays games in
several processes. docs/information.md reports the runs made with it.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import multiprocessing as mp
import time
from dataclasses import dataclass
from typing import Any

from liturgy.interpreter.agents.agents import RandomAgent, make_agent, play_out
from liturgy.interpreter.agents.ismcts import ISMCTSAgent
from liturgy.interpreter.engine import Ruleset, load_ruleset


@dataclass
class GameResult:
    win: float
    score: float
    finished: bool
    decisions: int  # the agent's decisions with more than one option... or all of them for non-search agents
    simulations: int
    seconds: float  # the agent's thinking time


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's 95% score interval for ``successes`` out of ``n``."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


class _Timed:
    """Wraps an agent to count its decisions and thinking time."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.decisions = 0
        self.seconds = 0.0

    def choose(self, game: Any, player: int) -> int:
        t0 = time.perf_counter()
        choice: int = self.agent.choose(game, player)
        self.seconds += time.perf_counter() - t0
        self.decisions += 1
        return choice


def _mix(seed: int, index: int, k: int) -> int:
    """An agent's seed: a fixed function of the run seed, the game and the seat, unrelated to the game seed."""
    return (seed * 0x9E3779B1 + index * 0x85EBCA77 + k * 0xC2B2AE3D + 0x5EED) & 0xFFFFFFFFFFFF


@functools.lru_cache(maxsize=4)
def _rules(path: str) -> Ruleset:
    """Each ruleset parsed, checked and compiled once per process (a Slay the Spire load costs about a second)."""
    return load_ruleset(path)


def play_one(path: str, players: int, agent: str, seed: int, index: int, options: dict[str, str]) -> GameResult:
    rules = _rules(path)
    seat = index % players
    game_seed = seed * 1_000_003 + index
    agents: list[Any] = [RandomAgent(_mix(seed, index, k + 1)) for k in range(players)]
    timed = _Timed(make_agent(agent, _mix(seed, index, 0)))
    agents[seat] = timed
    game = rules.new_game(players, game_seed, options=options)
    play_out(game, agents)
    result = game.result
    finished = game.state.status == "finished" and result is not None
    win = 0.0
    score = 0.0
    if finished and result is not None:
        winners = result["winners"]
        win = 1.0 / len(winners) if seat in winners else 0.0
        score = float(result["scores"][seat])
    inner = timed.agent
    sims = inner.simulations if isinstance(inner, ISMCTSAgent) else 0
    return GameResult(win, score, finished, timed.decisions, sims, timed.seconds)


def _task(args: tuple[str, int, str, int, int, dict[str, str]]) -> GameResult:
    return play_one(*args)


def evaluate(path: str, players: int, agent: str, games: int, seed: int = 0, options: dict[str, str] | None = None,
             jobs: int = 1) -> dict[str, Any]:
    opts = dict(options or {})
    tasks = [(path, players, agent, seed, i, opts) for i in range(games)]
    t0 = time.perf_counter()
    if jobs > 1:
        with mp.get_context("fork").Pool(jobs) as pool:
            results = pool.map(_task, tasks, chunksize=1)
    else:
        results = [_task(t) for t in tasks]
    wins = sum(r.win for r in results)
    low, high = wilson(wins, games)
    decisions = sum(r.decisions for r in results)
    thinking = sum(r.seconds for r in results)
    return {
        "ruleset": path, "players": players, "agent": agent, "options": opts, "games": games, "seed": seed,
        "win_rate": round(wins / games, 4), "ci95": [round(low, 4), round(high, 4)],
        "fair_share": round(1 / players, 4) if players > 1 else None,
        "mean_score": round(sum(r.score for r in results) / games, 4),
        "unfinished": sum(not r.finished for r in results),
        "agent_decisions": decisions, "agent_simulations": sum(r.simulations for r in results),
        "agent_decisions_per_second": round(decisions / thinking, 2) if thinking else None,
        "wall_seconds": round(time.perf_counter() - t0, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ruleset")
    ap.add_argument("--players", type=int, required=True)
    ap.add_argument("--agent", default="ismcts")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    args = ap.parse_args(argv)
    options = dict(o.split("=", 1) for o in args.option)
    print(json.dumps(evaluate(args.ruleset, args.players, args.agent, args.games, args.seed, options, args.jobs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
