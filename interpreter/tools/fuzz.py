"""A generic property harness for any ruleset: `liturgy fuzz`.

Hypothesis draws a seed, a legal player count and every choice as an option
index, so shrinking works on the decision sequence itself.  After every step
the engine checks the ruleset's declared invariants and its own; at the end a
finished game must have scores, and winners unless the ruleset's `winner`
declaration names none.  A failure shrinks to a minimal decision sequence,
saved as a replay file that `liturgy replay` reproduces.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException
from liturgy.interpreter.engine import Game, Ruleset, replay_decisions
from liturgy.interpreter.engine.infosets import Knowledge, start_zones
from liturgy.interpreter.engine.logs import write_decision_log
from liturgy.interpreter.runtime.errors import IllegalChoice
from liturgy.interpreter.tools.leaks import LeakCheck
from liturgy.interpreter.tools.noninterference import check_point

# how often (in decisions) the leak check renders every player's whole view
FULL_VIEW_EVERY = 8
# how often (in decisions) a noninterference probe varies what one player may not know (tools/noninterference.py)
PROBE_EVERY = 10


class PropertyFailure(AssertionError):
    """A game broke an invariant, ran past its limit or ended without a result."""


@dataclass
class FuzzReport:
    examples: int = 0
    decisions: int = 0
    seconds: float = 0.0
    violation: str | None = None
    replay_path: str | None = None
    shrunk_decisions: int | None = None
    players: int | None = None
    seed: int | None = None
    failures_seen: int = 0
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "examples": self.examples,
            "decisions": self.decisions,
            "seconds": round(self.seconds, 3),
            "violations": 0 if self.violation is None else 1,
            "violation": self.violation,
            "replay": self.replay_path,
            "shrunk_decisions": self.shrunk_decisions,
        }


def _round_trip_failure(game: Game) -> str | None:
    """Save/load, clone and replay must all reproduce the game exactly."""
    rules = game.ruleset
    replayed = rules.new_game(game.players, game.seed, options=game.options)
    try:
        replay_decisions(replayed, game.state.decisions)
    except IllegalChoice as err:
        return f"replaying the decision log failed: {err}"
    if replayed.digest() != game.digest():
        return "replaying the decision log gave a different digest"
    if rules.load_game(json.loads(json.dumps(game.to_json()))).digest() != game.digest():
        return "save and load changed the game"
    if game.clone().digest() != game.digest():
        return "a clone differs from its original"
    return None


def _knowledge(game: Game) -> list[Knowledge]:
    """Every player's knowledge of a new game: the card files' placements, then what setup showed it."""
    start = start_zones(game.ruleset, game.players, game.options)
    knows = [Knowledge(p, start) for p in range(game.players)]
    for know in knows:
        know.observe(game)
    return knows


def _failure(game: Game) -> str | None:
    s = game.state
    if s.status == "aborted":
        return s.error or "the game stopped"
    if s.status == "finished":
        r = s.result
        if not r or len(r.get("scores", [])) != game.players:
            return "the game finished without scores"
        # without `winner`, someone always has the best score; with it, nobody may win (a lost co-op game)
        if not r.get("winners") and game.ruleset.compiled.winner is None:
            return "the game finished without winners"
    return None


def fuzz_ruleset(
    ruleset: Ruleset,
    ruleset_path: str,
    examples: int = 100,
    run_seed: int = 0,
    max_decisions: int = 5_000,
    replay_path: str = "fuzz-failure.replay.json",
    progress: Callable[[int, int], None] | None = None,
    check_leaks: bool = True,
    options: dict[str, str] | None = None,
) -> FuzzReport:
    report = FuzzReport()
    last_failure: dict[str, Any] = {}

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate, Phase.shrink],
        derandomize=False,
    )
    @seed(run_seed)
    @given(
        data=st.data(),
        game_seed=st.integers(0, 2**32 - 1),
        players=st.integers(ruleset.min_players, ruleset.max_players),
    )
    def one_game(data: st.DataObject, game_seed: int, players: int) -> None:
        game = ruleset.new_game(players, game_seed, check_invariants=True, options=options)
        leaks = LeakCheck(game) if check_leaks else None
        # what each player has seen, followed at every decision point: the world probe draws from it
        knows = _knowledge(game) if check_leaks else None
        made = 0
        problem = _failure(game) or (leaks and leaks.check(game, full_view=True))
        while problem is None and not game.finished:
            if made >= max_decisions:
                problem = f"no end within {max_decisions} decisions"
                break
            # about one decision in PROBE_EVERY, not every PROBE_EVERY-th: a period would meet the same step of a
            # fixed round every time; the probe's choices come from the game's position, so a shrunk game probes
            # alike
            probe = random.Random(game_seed * 1_000_003 + made)
            if leaks is not None and probe.randrange(PROBE_EVERY) == 0:
                problem = check_point(game, leaks.seen, probe, knows)
                if problem is not None:
                    break
            for p in game.waiting_for():
                n = game.option_count(p)
                game.apply(data.draw(st.integers(0, n - 1)) if n > 1 else 0, p)
                made += 1
                for know in knows or ():
                    know.observe(game)
                problem = _failure(game) or (leaks and leaks.check(game, full_view=made % FULL_VIEW_EVERY == 0
                                                                    or game.finished))
                if problem is not None or game.finished:
                    break
        if problem is None:
            problem = _failure(game) or _round_trip_failure(game)
        report.examples += 1
        report.decisions += made
        if progress:
            progress(min(report.examples, examples), examples)
        if problem is not None:
            report.failures_seen += 1
            last_failure.update(game=game, problem=problem, players=players, seed=game_seed)
            raise PropertyFailure(problem)

    t0 = time.perf_counter()
    try:
        one_game()
    except PropertyFailure:
        game = last_failure["game"]
        report.violation = last_failure["problem"]
        report.players = last_failure["players"]
        report.seed = last_failure["seed"]
        report.shrunk_decisions = len(game.state.decisions)
        report.replay_path = replay_path
        write_decision_log(replay_path, ruleset_path, game)
    except HypothesisException as err:  # pragma: no cover - e.g. unsatisfiable
        report.notes.append(str(err))
    report.seconds = time.perf_counter() - t0
    return report
