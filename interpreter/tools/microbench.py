"""`liturgy bench`'s two comparisons that are not whole games: per-construct microbenchmarks against plain Python,
and the ISMCTS agent's simulations per second against OpenSpiel's ``ISMCTSBot``.

**Constructs** (``benchmarks/constructs``): each ``NAME.rules`` there runs one construct many times in a single
step of a one-player game with no decision (a ``fn`` with lets, a loop over grid cells, a comprehension with
``where``, ``any``/``count``, card moves, a counter update in a handler), and ``plain.py`` holds the same work
written in plain Python. Both must leave the same number (P1's score against the function's result) before they
are timed, so the comparison cannot drift into measuring different work. A run of the Liturgy side is one
``new_game`` (which runs the step to its ``end game``); ``baseline.rules``, a game that ends at once, measures
what starting a game costs by itself, and the report gives the ratio with and without that cost. The figure is
plain Python's time ÷ Liturgy's (1.0: as fast as Python), timed alternately (Liturgy, Python, Liturgy, ...).

**ISMCTS**: :class:`~liturgy.interpreter.agents.ismcts.ISMCTSAgent` in both seats of ``kuhn_poker.rules``
against OpenSpiel's Python ``ISMCTSBot`` (``open_spiel.python.algorithms.ismcts``, UCT constant 2, one random
rollout per leaf) in both seats of OpenSpiel's C++ ``kuhn_poker``, each with 300 simulations per decision; the
figure is simulations per second of process CPU time, the best of the repeats, timed alternately.
"""

from __future__ import annotations

import importlib.util
import random
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from liturgy.interpreter.engine import load_ruleset

ROOT = Path(__file__).resolve().parents[2]
CONSTRUCTS_DIR = ROOT / "benchmarks" / "constructs"
KUHN = ROOT / "rulesets" / "classic" / "kuhn_poker.rules"
CONSTRUCT_GOAL = 0.7  # issue 29: each construct at least 0.7 of plain Python's speed
ISMCTS_GOAL = 1.0  # issue 29: as many simulations per second as OpenSpiel's ISMCTSBot
ISMCTS_SIMULATIONS = 300


def interleaved_us(fns: list[Callable[[], Any]], seconds: float, repeats: int) -> list[float]:
    """Best per-call time (µs) of each function, the functions timed in turn within each repeat (A, B, A, B ...)
    so that a change in the machine's load hits all of them alike; each timed loop lasts about ``seconds / 4``."""
    loops = []
    for fn in fns:  # calibrate: loops of at least 10 ms
        n = 1
        while True:
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            spent = time.perf_counter() - t0
            if spent >= 0.01:
                break
            n *= 2
        loops.append(max(1, int(min(seconds / 4, 0.5) / max(spent / n, 1e-9))))
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            for _ in range(loops[k]):
                fn()
            best[k] = min(best[k], (time.perf_counter() - t0) / loops[k])
    return [b * 1e6 for b in best]


def _plain_functions(directory: Path) -> dict[str, Callable[[], int]]:
    """``PLAIN`` from ``directory/plain.py`` (the benchmarks folder is not part of the installed package)."""
    spec = importlib.util.spec_from_file_location("liturgy_construct_plain", directory / "plain.py")
    if spec is None or spec.loader is None:
        raise FileNotFoundError(directory / "plain.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    plain: dict[str, Callable[[], int]] = module.PLAIN
    return plain


def bench_constructs(seconds: float, repeats: int, directory: Path = CONSTRUCTS_DIR) -> dict[str, Any]:
    """Each construct's Liturgy time against plain Python's (module doc); {"unavailable": why} without the folder."""
    if not (directory / "plain.py").is_file():
        return {"unavailable": f"no {directory / 'plain.py'} (the construct microbenchmarks ship with the repository)"}
    base = load_ruleset(str(directory / "baseline.rules"))
    out: dict[str, Any] = {}
    for name, plain in _plain_functions(directory).items():
        ruleset = load_ruleset(str(directory / f"{name}.rules"))
        game = ruleset.new_game(1, 1)
        got = (game.result or {}).get("scores", [None])[0]
        want = plain()
        if not game.finished or got != want:
            raise AssertionError(f"construct benchmark {name}: Liturgy left {got!r}, plain Python {want!r}")
        liturgy_us, python_us, empty_us = interleaved_us(
            [partial(ruleset.new_game, 1, 1), plain, partial(base.new_game, 1, 1)], seconds, repeats)
        own = max(liturgy_us - empty_us, 1e-9)
        out[name] = {"liturgy_us": round(liturgy_us, 2), "python_us": round(python_us, 2),
                     "new_game_us": round(empty_us, 2), "ratio": round(python_us / liturgy_us, 3),
                     "ratio_without_new_game": round(python_us / own, 3)}
    return out


def liturgy_ismcts_rate(budget_s: float, seed: int) -> tuple[float, int]:
    """ISMCTS simulations per CPU second in whole Kuhn games, the agent choosing for both seats."""
    from liturgy.interpreter.agents.ismcts import Budget, ISMCTSAgent

    rules = load_ruleset(str(KUHN))
    agent = ISMCTSAgent(Budget(simulations=ISMCTS_SIMULATIONS), seed=seed)
    t0 = time.process_time()
    games = 0
    while time.process_time() - t0 < budget_s or games == 0:
        game = rules.new_game(2, seed * 1000 + games)
        while not game.finished:
            p = game.waiting_for()[0]
            game.apply(agent.choose(game, p), p)
        games += 1
    return agent.simulations / (time.process_time() - t0), agent.simulations


def openspiel_ismcts_rate(budget_s: float, seed: int) -> tuple[float, int]:
    """OpenSpiel's Python ISMCTSBot on its C++ kuhn_poker, the same budget, simulations per CPU second."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("kuhn_poker")
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)), 2.0,
                           ISMCTS_SIMULATIONS, random_state=np.random.RandomState(seed))
    rng = random.Random(seed)
    sims = games = 0
    t0 = time.process_time()
    while time.process_time() - t0 < budget_s or games == 0:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                state.apply_action(bot.step(state))
                sims += ISMCTS_SIMULATIONS
        games += 1
    return sims / (time.process_time() - t0), sims


def bench_ismcts(seconds: float, repeats: int, seed: int, openspiel: bool) -> dict[str, Any]:
    """Best simulations/s of each side over the repeats, the two timed in turn."""
    if not KUHN.is_file():
        return {"unavailable": f"no {KUHN}"}
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(repeats):
        ours.append(liturgy_ismcts_rate(seconds, seed)[0])
        if openspiel:
            theirs.append(openspiel_ismcts_rate(seconds, seed)[0])
    out: dict[str, Any] = {"simulations_per_decision": ISMCTS_SIMULATIONS,
                           "liturgy_sims_per_cpu_s": round(max(ours), 1),
                           "liturgy_min_max": [round(min(ours), 1), round(max(ours), 1)]}
    if theirs:
        out["openspiel_sims_per_cpu_s"] = round(max(theirs), 1)
        out["openspiel_min_max"] = [round(min(theirs), 1), round(max(theirs), 1)]
        out["ratio"] = round(max(ours) / max(theirs), 3)
    return out
