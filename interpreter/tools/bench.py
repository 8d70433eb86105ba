"""`liturgy bench`: throughput, clone, save/load and parse+check figures, side by side with OpenSpiel.

Every figure is measured in this process on one core (except the ``--jobs 2``
simulation), after a warm-up, as the best of several timed repeats; the spread
of the repeats is reported too, because the machine is shared and noisy.

Liturgy games and OpenSpiel games are driven by loops of the same shape: a new
game, then uniformly random legal choices from one ``random.Random`` until the
game ends, timed by one timing function. A *decision* is one player's choice;
OpenSpiel's chance nodes (card deals, goofspiel's prize draws) are not
decisions — Liturgy draws those inside the step — so they are counted apart as
``chance_moves``. The chance distributions used here (Kuhn deals, goofspiel
prizes, Liar's Poker digits, domino deals) are uniform, so sampling a chance outcome uniformly is exact.
"""

from __future__ import annotations

import json
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from liturgy.dsl.frontend.includes import main_rulesets
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.tools.simulate import simulate

# Comparisons the issue asks for: Liturgy ruleset (by file stem) -> OpenSpiel game and the target ratio (issue 29:
# at least twice OpenSpiel's pure-Python games, half of its C++ goofspiel and connect_four, 0.3 of its C++
# breakthrough and hex).
OPENSPIEL_PEERS: dict[str, tuple[str, float]] = {
    "kuhn_poker": ("python_kuhn_poker", 2.0),
    "tic_tac_toe": ("python_tic_tac_toe", 2.0),
    "liars_poker": ("python_liars_poker", 2.0),
    "block_dominoes": ("python_block_dominoes", 2.0),
    "goofspiel": ("goofspiel", 0.5),
    "connect_four": ("connect_four", 0.5),
    "breakthrough": ("breakthrough", 0.3),
    "hex": ("hex", 0.3),
}
OPENSPIEL_GAMES = ("python_kuhn_poker", "kuhn_poker", "python_tic_tac_toe", "python_liars_poker",
                   "python_block_dominoes", "goofspiel", "connect_four", "breakthrough", "hex")
BLOODBORNE_GAMES_PER_S = 1000.0
BLOODBORNE_JOBS_SECONDS = 60.0
STS_COMBATS_PER_S = 2000.0
CLONE_US = 10.0
PARSE_CHECK_MS = 200.0

# A batch of games: (games, decisions, chance moves, seconds).
Batch = tuple[int, int, int, float]


@dataclass
class Settings:
    seconds: float = 2.0  # per timed repeat
    warmup: float = 0.5  # untimed, before the repeats of each figure
    repeats: int = 3
    jobs_games: int = 4000  # games for the --jobs 2 Bloodborne run
    openspiel: bool = True
    seed: int = 1
    players: int = 0  # 0: each ruleset's target player count (default_players)
    constructs: bool = True  # the per-construct microbenchmarks against plain Python (microbench.py)
    ismcts: bool = True  # ISMCTS simulations/s on Kuhn poker against OpenSpiel's ISMCTSBot


@dataclass
class Throughput:
    games_per_s: float
    decisions_per_s: float
    decisions_per_game: float
    chance_moves_per_game: float
    spread: tuple[float, float]  # (min, max) games/s over the repeats
    games: int  # games played in the timed repeats

    def to_json(self) -> dict[str, Any]:
        return {
            "games_per_s": round(self.games_per_s, 1),
            "decisions_per_s": round(self.decisions_per_s, 1),
            "decisions_per_game": round(self.decisions_per_game, 2),
            "chance_moves_per_game": round(self.chance_moves_per_game, 2),
            "games_per_s_min_max": [round(self.spread[0], 1), round(self.spread[1], 1)],
        }


@dataclass
class RulesetFigures:
    path: str
    name: str
    players: int
    parse_check_ms_cold: float | None = None
    parse_check_ms_warm: float | None = None
    compile_ms: float | None = None
    random_play: Throughput | None = None
    random_play_checked: Throughput | None = None
    clone_us: float | None = None
    save_us: float | None = None
    load_us: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        def r(v: float | None, nd: int = 2) -> float | None:
            return None if v is None else round(v, nd)

        return {
            "path": self.path,
            "name": self.name,
            "players": self.players,
            "parse_check_ms_cold": r(self.parse_check_ms_cold, 1),
            "parse_check_ms_warm": r(self.parse_check_ms_warm, 1),
            "compile_ms": r(self.compile_ms, 1),
            "random_play": self.random_play.to_json() if self.random_play else None,
            "random_play_invariants_checked": self.random_play_checked.to_json() if self.random_play_checked else None,
            "clone_us": r(self.clone_us),
            "save_us": r(self.save_us, 1),
            "load_us": r(self.load_us, 1),
            **self.extra,
        }


# ---------------------------------------------------------------- timing
def _timed(batch: Callable[[float, int], Batch], s: Settings) -> Throughput:
    """Warm up, then run ``repeats`` timed batches of ``seconds`` each; keep the best."""
    batch(s.warmup, 0)
    runs = [batch(s.seconds, i + 1) for i in range(s.repeats)]
    rates = [g / t for g, _, _, t in runs]
    games = sum(g for g, _, _, _ in runs)
    decisions = sum(d for _, d, _, _ in runs)
    chance = sum(c for _, _, c, _ in runs)
    best = max(rates)
    per_game = decisions / games
    return Throughput(best, best * per_game, per_game, chance / games, (min(rates), best), games)


def liturgy_batch(ruleset: Ruleset, players: int, seed: int, check: bool = False,
                  options: dict[str, str] | None = None, tally: tuple[int, list[int]] | None = None
                  ) -> Callable[[float, int], Batch]:
    """The driver loop for Liturgy: random legal choices until the game ends, games until time is up.

    The choices are made as :meth:`Game.random_playout` makes them, which picks exactly what the loop
    ``for p in waiting_for(): apply(rng.randrange(option_count(p)), p)`` would, without its per-call checks;
    each game is set up and played in one call (``new_game(..., playout=rng)``: one run of the step loop a game,
    the same games and decisions as ``new_game(...).random_playout(rng)``).

    ``tally`` is (counter slot, [total]): the counter's final value in every game is added to the total
    (how the bench counts combats in a ruleset's combat mode).
    """

    def run(budget: float, rep: int) -> Batch:
        rng = random.Random(seed * 7919 + rep)
        new_game = ruleset.new_game
        games = decisions = 0
        game_seed = seed * 1_000_003 + rep * 100_003
        t0 = time.perf_counter()
        deadline = t0 + budget
        while True:
            g = new_game(players, game_seed + games, check, options, playout=rng)
            decisions += len(g.state.decisions)
            if tally is not None and rep > 0:
                tally[1][0] += g.state.counters[tally[0]]
            games += 1
            if time.perf_counter() >= deadline:
                break
        return games, decisions, 0, time.perf_counter() - t0

    return run


def openspiel_batch(name: str, seed: int) -> Callable[[float, int], Batch]:
    """The same driver loop for an OpenSpiel game (a C++ game or a registered pure-Python one)."""
    import pyspiel
    from open_spiel.python import games as _python_games  # noqa: F401 - registers the python_* games

    game = pyspiel.load_game(name)
    seats = list(range(game.num_players()))

    def run(budget: float, rep: int) -> Batch:
        rng = random.Random(seed * 7919 + rep)
        randrange = rng.randrange
        games = decisions = chance = 0
        t0 = time.perf_counter()
        deadline = t0 + budget
        while True:
            st = game.new_initial_state()
            while not st.is_terminal():
                if st.is_chance_node():
                    outcomes = st.chance_outcomes()
                    st.apply_action(outcomes[randrange(len(outcomes))][0])
                    chance += 1
                elif st.is_simultaneous_node():
                    st.apply_actions([la[randrange(len(la))] for la in map(st.legal_actions, seats)])
                    decisions += len(seats)
                else:
                    la = st.legal_actions()
                    st.apply_action(la[randrange(len(la))])
                    decisions += 1
            games += 1
            if time.perf_counter() >= deadline:
                break
        return games, decisions, chance, time.perf_counter() - t0

    return run


def openspiel_available() -> str | None:
    """None when OpenSpiel can be imported, else why not."""
    try:
        import pyspiel  # noqa: F401
        from open_spiel.python import games  # noqa: F401
    except ImportError as err:
        return f"OpenSpiel is not installed ({err}); `pip install -e '.[bench]'` adds it"
    return None


def _best_us(fn: Callable[[], Any], s: Settings) -> float:
    """Best per-call time in microseconds over ``repeats`` loops of about ``seconds / 4`` each."""
    n = 1
    while True:  # calibrate: loops of at least 20 ms
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t0 >= 0.02:
            break
        n *= 2
    per = (time.perf_counter() - t0) / n
    loops = max(1, int(min(s.seconds / 4, 0.5) / max(per, 1e-9)))
    best = float("inf")
    for _ in range(s.repeats):
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        best = min(best, (time.perf_counter() - t0) / loops)
    return best * 1e6


def mid_game(ruleset: Ruleset, players: int, seed: int) -> Game:
    """A game stopped half-way (by decisions) through a random playout: the state MCTS would clone."""
    rng = random.Random(seed)
    probe = ruleset.new_game(players, seed)
    trail: list[tuple[int, int]] = []
    while not probe.finished:
        for p in probe.waiting_for():
            choice = rng.randrange(probe.option_count(p))
            trail.append((choice, p))
            probe.apply(choice, p)
    game = ruleset.new_game(players, seed)
    for choice, p in trail[: len(trail) // 2]:
        game.apply(choice, p)
    return game


def parse_check_ms(path: str, runs: int = 1) -> tuple[float, float, float]:
    """(cold, warm, cold CPU) ms for parse + check: cold in a fresh interpreter (grammar load included, imports
    not), the best of ``runs`` fresh interpreters as every other figure is the best of its repeats.

    A cold figure is one event per process, and a single wall-clock sample of it on a shared machine read 50 or
    80 ms for the same work (docs/performance.md, session 19: the instructions were equal or fewer); the
    thread's CPU time of the cold check is reported beside it, which the machine's load moves far less."""
    code = (
        "import sys, time\n"
        "from liturgy.dsl.loader import check_file\n"
        "c0 = time.thread_time(); t0 = time.perf_counter(); check_file(sys.argv[1])\n"
        "t1 = time.perf_counter(); c1 = time.thread_time()\n"
        "best = min((lambda a: (check_file(sys.argv[1]), time.perf_counter() - a)[1])(time.perf_counter())"
        " for _ in range(3))\n"
        "print((t1 - t0) * 1000, best * 1000, (c1 - c0) * 1000)\n"
    )
    figures = []
    for _ in range(max(1, runs)):
        out = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, check=True)
        cold, warm, cpu = out.stdout.split()
        figures.append((float(cold), float(warm), float(cpu)))
    return (min(f[0] for f in figures), min(f[1] for f in figures), min(f[2] for f in figures))


def combat_mode(ruleset: Ruleset) -> bool:
    """Can the ruleset play single combats (``option mode`` with a ``combat`` value) and count them?"""
    return ("combat" in ruleset.option_values().get("mode", ())
            and "combats" in ruleset.compiled.layout.global_slots)


# Player counts the targets are stated for: OpenSpiel's defaults for its peers, 1 for Slay the Spire combat.
TARGET_PLAYERS = {"kuhn_poker": 2, "goofspiel": 2, "bloodborne": 4, "slay_the_spire": 1}


def default_players(ruleset: Ruleset, stem: str = "") -> int:
    """The targets' player count for their rulesets; elsewhere four where the game allows it, else the nearest."""
    want = TARGET_PLAYERS.get(stem, 4)
    return max(ruleset.min_players, min(want, ruleset.max_players))


# ---------------------------------------------------------------- one ruleset
def bench_ruleset(path: str, s: Settings, players: int | None = None, log: Callable[[str], None] | None = None
                  ) -> RulesetFigures:
    say = log or (lambda _m: None)
    cold, warm, cold_cpu = parse_check_ms(path, s.repeats)
    t0 = time.perf_counter()
    ruleset = load_ruleset(path)
    load_ms = (time.perf_counter() - t0) * 1000
    n = players or default_players(ruleset, Path(path).stem)
    fig = RulesetFigures(path, ruleset.name, n, cold, warm, max(0.0, load_ms - warm))
    fig.extra["parse_check_cpu_ms_cold"] = round(cold_cpu, 1)
    say(f"{ruleset.name}: random play, {n} players")
    fig.random_play = _timed(liturgy_batch(ruleset, n, s.seed), s)
    say(f"{ruleset.name}: random play with invariant checks")
    fig.random_play_checked = _timed(liturgy_batch(ruleset, n, s.seed, check=True), s)
    if combat_mode(ruleset):
        say(f"{ruleset.name}: combats only (--option mode=combat)")
        total = [0]
        play = _timed(liturgy_batch(ruleset, n, s.seed, options={"mode": "combat"},
                                    tally=(ruleset.compiled.layout.global_slots["combats"], total)), s)
        combats_per_game = total[0] / play.games
        fig.extra["combat_mode"] = {**play.to_json(), "combats_per_game": round(combats_per_game, 3)}
        fig.extra["combats_per_s"] = round(play.games_per_s * combats_per_game, 1)
    game = mid_game(ruleset, n, s.seed)
    fig.clone_us = _best_us(game.clone, s)
    text = json.dumps(game.to_json())
    fig.save_us = _best_us(lambda: json.dumps(game.to_json()), s)
    fig.load_us = _best_us(lambda: ruleset.load_game(json.loads(text)), s)
    return fig


# ---------------------------------------------------------------- the whole suite
def discover(root: Path) -> list[str]:
    return main_rulesets(sorted(str(p) for p in (root / "rulesets").rglob("*.rules")))


def machine() -> dict[str, Any]:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info: dict[str, Any] = {
        "cpu": model,
        "cores": os.cpu_count(),
        "os": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
    }
    if hasattr(os, "getloadavg"):
        info["load_average_at_start"] = [round(x, 2) for x in os.getloadavg()]
    return info


def _target(name: str, value: float | None, target: float, kind: str, unit: str, note: str = "") -> dict[str, Any]:
    """kind: 'min' (value must reach target), 'max' (value must stay under), 'ratio' (value/peer >= target)."""
    if value is None:
        return {"target": name, "value": None, "goal": target, "unit": unit, "met": None,
                "note": note or "not measurable in this run"}
    met = value >= target if kind in ("min", "ratio") else value <= target
    out: dict[str, Any] = {"target": name, "value": round(value, 3), "goal": target, "unit": unit, "met": met}
    if note:
        out["note"] = note
    return out


def run_bench(paths: list[str], s: Settings, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    say = log or (lambda _m: None)
    report: dict[str, Any] = {
        "machine": machine(),
        "method": {
            "warmup_s": s.warmup,
            "seconds_per_repeat": s.seconds,
            "repeats": s.repeats,
            "figure": "best of the repeats (the min..max spread is reported); one core unless stated",
            "driver": "new game, then uniformly random legal choices (random.Random.randrange) until it ends; "
                      "Liturgy through Game.random_playout (the same choices as the apply loop), OpenSpiel "
                      "through legal_actions + apply_action(s)",
            "decisions": "one player's choice; OpenSpiel chance nodes are counted apart (chance_moves)",
        },
        "rulesets": [],
        "openspiel": {},
    }
    figs: dict[str, RulesetFigures] = {}
    for path in paths:
        say(f"benchmarking {path}")
        fig = bench_ruleset(path, s, s.players or None, log=say)
        figs[Path(path).stem] = fig
        report["rulesets"].append(fig.to_json())
    why_not = openspiel_available() if s.openspiel else "skipped (--no-openspiel)"
    os_figs: dict[str, Throughput] = {}
    if why_not is None:
        import pyspiel

        report["openspiel"]["version"] = getattr(pyspiel, "__version__", None) or _dist_version("open_spiel")
        for name in OPENSPIEL_GAMES:
            say(f"OpenSpiel {name}")
            os_figs[name] = _timed(openspiel_batch(name, s.seed), s)
            report["openspiel"][name] = {**os_figs[name].to_json(),
                                         "moves_per_s_including_chance": round(
                                             os_figs[name].games_per_s * (os_figs[name].decisions_per_game
                                                                          + os_figs[name].chance_moves_per_game), 1)}
    else:
        report["openspiel"]["unavailable"] = why_not

    targets: list[dict[str, Any]] = []
    for stem, (peer, goal) in OPENSPIEL_PEERS.items():
        fig_l = figs.get(stem)
        peer_fig = os_figs.get(peer)
        label = f"Liturgy {stem} decisions/s ÷ OpenSpiel {peer} decisions/s"
        if fig_l is None or fig_l.random_play is None:
            targets.append(_target(label, None, goal, "ratio", "×", f"no shipped ruleset named {stem}.rules"))
        elif peer_fig is None:
            targets.append(_target(label, None, goal, "ratio", "×", why_not or ""))
        else:
            ratio = fig_l.random_play.decisions_per_s / peer_fig.decisions_per_s
            games_ratio = fig_l.random_play.games_per_s / peer_fig.games_per_s
            targets.append(_target(label, ratio, goal, "ratio", "×",
                                   f"{fig_l.random_play.decisions_per_s:,.0f} vs {peer_fig.decisions_per_s:,.0f} "
                                   f"decisions/s; games/s ratio {games_ratio:.2f}×"))
    bb = figs.get("bloodborne")
    targets.append(_target("Bloodborne 4p games/s, one core, random agents", bb.random_play.games_per_s
                           if bb and bb.random_play and bb.players == 4 else None,
                           BLOODBORNE_GAMES_PER_S, "min", "games/s"))
    if bb is not None and s.jobs_games > 0:
        say(f"Bloodborne: {s.jobs_games} games with --jobs 2")
        summary = simulate(bb.path, s.jobs_games, 4, s.seed, jobs=2, check=False)
        projected = 100_000 * summary.seconds / summary.games
        bb.extra["jobs2"] = {"games": summary.games, "seconds": round(summary.seconds, 3),
                             "games_per_s": round(summary.games / summary.seconds, 1),
                             "projected_seconds_for_100000": round(projected, 1), "digest": summary.digest}
        report["rulesets"][list(figs).index("bloodborne")] = bb.to_json()
        targets.append(_target("Bloodborne 100,000 games with --jobs 2 (projected from the run)", projected,
                               BLOODBORNE_JOBS_SECONDS, "max", "s",
                               f"{summary.games} games in {summary.seconds:.2f} s"))
    else:
        targets.append(_target("Bloodborne 100,000 games with --jobs 2", None, BLOODBORNE_JOBS_SECONDS, "max", "s"))
    sts = figs.get("slay_the_spire")
    targets.append(_target("Slay the Spire Act I combats/s, 1 player", sts.extra.get("combats_per_s") if sts else None,
                           STS_COMBATS_PER_S, "min", "combats/s",
                           "" if sts and "combats_per_s" in sts.extra else
                           "no shipped slay_the_spire.rules with `option mode` = combat and a `combats` counter"))
    targets.append(_target("Bloodborne state clone (mid-game)", bb.clone_us if bb else None, CLONE_US, "max", "µs"))
    worst = max(figs.values(), key=lambda f: f.parse_check_ms_cold or 0.0, default=None)
    targets.append(_target("parse + check, slowest shipped ruleset (cold)",
                           worst.parse_check_ms_cold if worst else None, PARSE_CHECK_MS, "max", "ms",
                           Path(worst.path).name if worst else ""))
    _micro_targets(report, targets, s, why_not, say)
    report["targets"] = targets
    return report


def _micro_targets(report: dict[str, Any], targets: list[dict[str, Any]], s: Settings, why_not: str | None,
                   say: Callable[[str], None]) -> None:
    """The construct microbenchmarks and the ISMCTS comparison (microbench.py), with their targets."""
    from liturgy.interpreter.tools import microbench as mb

    if s.constructs:
        say("construct microbenchmarks against plain Python")
        report["constructs"] = mb.bench_constructs(s.seconds, s.repeats)
        for name, fig in report["constructs"].items():
            if isinstance(fig, dict):
                targets.append(_target(f"construct {name}: plain Python time ÷ Liturgy time", fig["ratio"],
                                       mb.CONSTRUCT_GOAL, "ratio", "×",
                                       f"{fig['liturgy_us']:,.1f} vs {fig['python_us']:,.1f} µs; "
                                       f"{fig['ratio_without_new_game']:.2f}× without the new game's "
                                       f"{fig['new_game_us']:,.1f} µs"))
    if s.ismcts:
        say("ISMCTS on Kuhn poker against OpenSpiel's ISMCTSBot")
        report["ismcts"] = fig_i = mb.bench_ismcts(s.seconds, s.repeats, s.seed, openspiel=why_not is None)
        label = f"ISMCTS sims/s on Kuhn ({mb.ISMCTS_SIMULATIONS} per decision) ÷ OpenSpiel ISMCTSBot's"
        if "ratio" in fig_i:
            targets.append(_target(label, fig_i["ratio"], mb.ISMCTS_GOAL, "ratio", "×",
                                   f"{fig_i['liturgy_sims_per_cpu_s']:,.0f} vs {fig_i['openspiel_sims_per_cpu_s']:,.0f}"
                                   " simulations per CPU second"))
        else:
            targets.append(_target(label, None, mb.ISMCTS_GOAL, "ratio", "×",
                                   fig_i.get("unavailable") or why_not or ""))


def _dist_version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


# ---------------------------------------------------------------- text output
def _render_micro(report: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    cons = report.get("constructs")
    if cons is not None:
        lines += ["", "constructs (benchmarks/constructs) against the same work in plain Python:"]
        if "unavailable" in cons:
            lines.append(f"  {cons['unavailable']}")
        for name, f in cons.items():
            if isinstance(f, dict):
                lines.append(f"  {name:<22}{f['liturgy_us']:>10,.1f} µs Liturgy{f['python_us']:>10,.1f} µs Python"
                             f"  {f['ratio']:.2f}× ({f['ratio_without_new_game']:.2f}× without the new game's "
                             f"{f['new_game_us']:,.1f} µs)")
    ism = report.get("ismcts")
    if ism is not None:
        lines += ["", "ISMCTS on Kuhn poker, simulations per CPU second:"]
        if "unavailable" in ism:
            lines.append(f"  {ism['unavailable']}")
        else:
            lines.append(f"  Liturgy ISMCTSAgent {ism['liturgy_sims_per_cpu_s']:,.0f}"
                         + (f", OpenSpiel ISMCTSBot {ism['openspiel_sims_per_cpu_s']:,.0f} ({ism['ratio']:.2f}×)"
                            if "ratio" in ism else ""))
    return lines


def render(report: dict[str, Any]) -> str:
    m = report["machine"]
    meth = report["method"]
    lines = [
        f"machine: {m['cpu']}, {m['cores']} cores, {m['os']}; {m['python']}"
        + (f"; load average {m['load_average_at_start']}" if "load_average_at_start" in m else ""),
        f"method: warm-up {meth['warmup_s']} s, then best of {meth['repeats']} × {meth['seconds_per_repeat']} s; "
        "one core; decisions = player choices",
        "",
        f"{'ruleset':<28}{'pl':>3}{'games/s':>10}{'decisions/s':>13}{'checked g/s':>13}{'clone µs':>10}"
        f"{'save µs':>9}{'load µs':>9}{'parse+check ms':>16}",
    ]
    for r in report["rulesets"]:
        rp = r["random_play"] or {}
        rc = r["random_play_invariants_checked"] or {}
        lines.append(
            f"{Path(r['path']).stem:<28}{r['players']:>3}{rp.get('games_per_s', 0):>10,.0f}"
            f"{rp.get('decisions_per_s', 0):>13,.0f}{rc.get('games_per_s', 0):>13,.0f}{r['clone_us'] or 0:>10.2f}"
            f"{r['save_us'] or 0:>9.0f}{r['load_us'] or 0:>9.0f}"
            f"{r['parse_check_ms_cold'] or 0:>8.0f} cold/{r['parse_check_ms_warm'] or 0:.0f} warm"
            + (f" (cold CPU {r['parse_check_cpu_ms_cold']:.0f})" if r.get("parse_check_cpu_ms_cold") else ""))
        if "jobs2" in r:
            j = r["jobs2"]
            lines.append(f"{'':<4}--jobs 2: {j['games']} games in {j['seconds']} s ({j['games_per_s']:,.0f} games/s), "
                         f"100,000 games projected {j['projected_seconds_for_100000']} s")
    osp = report["openspiel"]
    lines.append("")
    if "unavailable" in osp:
        lines.append(f"OpenSpiel: {osp['unavailable']}")
    else:
        lines.append(f"OpenSpiel {osp.get('version') or ''} (same driver loop)")
        for name in OPENSPIEL_GAMES:
            if name in osp:
                o = osp[name]
                lines.append(f"  {name:<24}{o['games_per_s']:>10,.0f} games/s{o['decisions_per_s']:>13,.0f} decisions/s"
                             f"  ({o['moves_per_s_including_chance']:,.0f} moves/s with chance nodes)")
    lines.extend(_render_micro(report))
    lines.append("")
    lines.append("targets:")
    for t in report["targets"]:
        mark = {True: "MET ", False: "MISS", None: "n/a "}[t["met"]]
        value = "-" if t["value"] is None else f"{t['value']:,.2f}"
        note = f"  ({t['note']})" if t.get("note") else ""
        lines.append(f"  [{mark}] {t['target']}: {value} {t['unit']} (goal {t['goal']:,} {t['unit']}){note}")
    return "\n".join(lines)
