"""The `liturgy` command: check, play, simulate and replay rulesets.

Every failure a user can cause ends in a clear message and a non-zero exit,
never a Python traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from liturgy.dsl.diagnostics import NOTES, LiturgyError, render_all, to_json
from liturgy.dsl.loader import check_file
from liturgy.dsl.printable import PrintableStream
from liturgy.interpreter.agents.agents import Agent, bot_seed, make_agent, secret_seed
from liturgy.interpreter.agents.ismcts import Budget
from liturgy.interpreter.agents.terminal import HumanAgent, QuitGame, Session
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset, replay_decisions
from liturgy.interpreter.engine.logs import (
    BadDecisionLog,
    DecisionLog,
    changed_since,
    read_decision_log,
    write_decision_log,
)
from liturgy.interpreter.engine.outcome import reports_text, winners_text
from liturgy.interpreter.runtime.errors import IllegalChoice
from liturgy.interpreter.tools import arguments as A
from liturgy.interpreter.tools import mutate
from liturgy.interpreter.tools.arguments import UsageError
from liturgy.interpreter.tools.authoring import register as register_authoring
from liturgy.interpreter.tools.cluster import command as cluster
from liturgy.interpreter.tools.simulate import simulate
from liturgy.interpreter.web import cli as serve

from liturgy import __version__


def _progress(label: str) -> Any:
    """A small progress bar on stderr, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None
    start = time.perf_counter()

    def show(done: int, total: int) -> None:
        width = 30
        filled = int(width * done / max(1, total))
        rate = done / max(1e-9, time.perf_counter() - start)
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} ({rate:,.0f}/s)")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


# ---------------------------------------------------------------- check
def _rounds(n: object) -> str:
    return "1 round" if n == 1 else f"{n} rounds"


def cmd_check(args: argparse.Namespace) -> int:
    all_diags = []
    failed = False
    for path in args.rulesets:
        _, diags = check_file(path)
        all_diags.extend(diags)
        if any(d.is_error for d in diags) or (args.strict and any(d.code not in NOTES for d in diags)):
            failed = True
    if args.format == "json":
        print(to_json(all_diags))
    else:
        if all_diags:
            print(render_all(all_diags))
        errors = sum(d.is_error for d in all_diags)
        warnings = len(all_diags) - errors
        status = "FAILED" if failed else "ok"
        # the diagnostics go to stdout and the summary to stderr: flush first, and leave a blank line, so the
        # summary never lands inside (or runs onto) the last caret line when both streams reach one terminal
        sys.stdout.flush()
        gap = "\n" if all_diags else ""
        print(f"{gap}{status}: {len(args.rulesets)} ruleset(s), {errors} error(s), {warnings} warning(s)",
              file=sys.stderr)
    return 1 if failed else 0


# ---------------------------------------------------------------- dump
def cmd_dump(args: argparse.Namespace) -> int:
    """Print the Python generated for a ruleset, every function headed by the ruleset line it came from."""
    from liturgy.interpreter.codegen.fuse import build_all

    rules = load_ruleset(args.ruleset)
    comp = rules.compiled
    if comp.gen is None:
        raise UsageError("this ruleset was compiled without generated code")
    build_all(comp)  # fused functions are otherwise compiled on their first call
    print(f"# Python generated for {args.ruleset}: {len(comp.gen.sources.items)} functions")
    print(comp.gen.sources.dump())
    return 0


# ---------------------------------------------------------------- play
def _options(ruleset: Ruleset, specs: list[str] | None) -> dict[str, str]:
    """``--option NAME=VALUE`` flags, checked against the ruleset's `option` declarations."""
    out: dict[str, str] = {}
    for spec in specs or []:
        name, eq, value = spec.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise UsageError(f"--option {spec!r}: write NAME=VALUE, e.g. --option mode=combat")
        out[name.strip()] = value.strip()
    try:
        return ruleset.resolve_options(out)
    except ValueError as err:
        raise UsageError(str(err)) from err


def _check_players(ruleset: Ruleset, players: int) -> None:
    """A player count the ruleset does not allow is the user's mistake (exit 2), said before any game starts."""
    if not ruleset.min_players <= players <= ruleset.max_players:
        raise UsageError(f"{ruleset.name} is for {ruleset.min_players}..{ruleset.max_players} players, not {players}")


def _seats(spec: str, players: int) -> list[str]:
    seats = [s.strip() for s in spec.split(",") if s.strip()]
    if len(seats) == 1:
        seats = seats * players
    if len(seats) != players:
        raise UsageError(f"--seats names {len(seats)} seat(s) for {players} players")
    for s in seats:
        if s.startswith("ismcts"):
            try:
                Budget.parse(s)
            except ValueError as err:
                raise UsageError(str(err)) from err
        elif s not in ("human", "random", "first"):
            raise UsageError(f"unknown seat kind {s!r}: use human, random, first or ismcts[:N|:Nms][:score]")
    return seats


def _print_result(game: Game) -> None:
    if game.state.status == "finished" and game.result:
        r = game.result
        scores = ", ".join(f"P{p + 1}: {s}" for p, s in enumerate(r["scores"]))
        if game.ruleset.compiled.winner is not None:  # the ruleset says who wins, possibly nobody
            print(f"Game over after {_rounds(r['rounds'])}. Scores: {scores}. {winners_text(r['winners'])}")
        else:
            winners = ", ".join(f"P{p + 1}" for p in r["winners"]) or "nobody"
            print(f"Game over after {_rounds(r['rounds'])}. Scores: {scores}. Winner(s): {winners}.")
        for line in reports_text(game):  # the ruleset's `report` values
            print(line)
    elif game.state.status == "running":
        print(f"The log ends before the game does (after {len(game.state.decisions)} decisions).")
    else:
        print(f"Game stopped: {game.error}")


def _read_log(path: str, force: bool) -> DecisionLog:
    """A decision log checked field by field (engine/logs.py); one without a ruleset fingerprint cannot show that
    it was recorded on these rules, so it is replayed only when the user says ``--force``."""
    log = read_decision_log(path)
    if log.fingerprint is None and not force:
        raise BadDecisionLog(f"{path} records no ruleset fingerprint, so nothing shows it was recorded on these "
                             "rules; replay it anyway with --force")
    return log


def _replayed(ruleset: Ruleset, log: DecisionLog, check_invariants: bool = True) -> Game:
    """The game of ``log``, rebuilt decision by decision: everything in it is re-derived, nothing trusted."""
    game = ruleset.new_game(log.players, log.seed, check_invariants=check_invariants, options=log.options)
    replay_decisions(game, log.decisions)
    return game


def _resumed(ruleset: Ruleset, args: argparse.Namespace) -> Game:
    """The game saved in ``args.resume``, replayed decision by decision on ``args.ruleset``."""
    log = _read_log(args.resume, args.force)
    if log.game is not None and log.game != ruleset.name:
        raise UsageError(f"{args.resume} is a save of {log.game!r}, not of {ruleset.name!r}")
    if args.players and args.players != log.players:
        raise UsageError(f"{args.resume} is a {log.players}-player game; drop --players or set it to that")
    if args.option:
        raise UsageError("a resumed game keeps the options it was started with: drop --option")
    changed = changed_since(log.fingerprint, ruleset.fingerprint)
    try:
        game = _replayed(ruleset, log)
    except (IllegalChoice, ValueError, TypeError) as err:
        why = "the ruleset or its card files changed since it was saved" if changed else "was the ruleset changed?"
        raise UsageError(f"{args.resume} does not replay on {args.ruleset} ({why}): {err}") from err
    if changed:
        print(f"note: {args.ruleset} or its card files changed since {args.resume} was saved; its decisions replayed, "
              "but the game may not be the one that was saved")
    return game


def _check_writable(path: str) -> None:
    """A decision log can be written at ``path``: not a folder, in a folder that exists."""
    if os.path.isdir(path):
        raise UsageError(f"--log {path}: that is a folder; name a file in it, e.g. {os.path.join(path, 'game.json')}")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise UsageError(f"--log {path}: there is no folder {folder}")
    if os.path.exists(path) and not os.path.isfile(path):
        raise UsageError(f"--log {path}: that is not a regular file")


def cmd_play(args: argparse.Namespace) -> int:
    """`liturgy play`: humans and bots at a new or resumed game; with a save path, saved after every decision."""
    if args.log:
        _check_writable(args.log)  # before the game, not after the first decision is lost
    ruleset = load_ruleset(args.ruleset)
    resumed = _resumed(ruleset, args) if args.resume else None
    players = resumed.players if resumed is not None else args.players or ruleset.min_players
    # without --seed the game's seed comes from the operating system: nobody at the table can know it
    seed = resumed.seed if resumed is not None else args.seed if args.seed is not None else secret_seed()
    seats = _seats(args.seats, players)
    _check_players(ruleset, players)
    game = resumed if resumed is not None else ruleset.new_game(
        players, seed, check_invariants=True, options=_options(ruleset, args.option))
    save_path: str | None = args.log or args.resume

    def save(g: Game, path: str) -> None:
        write_decision_log(path, args.ruleset, g)

    session = Session(save_path, save, args.ruleset, tuple(seats), narration=not args.no_narration,
                      ask_forced=args.ask_all)
    # bots draw from their own seeds, never from the game's (--bot-seed makes them reproducible)
    agents: list[Agent] = [HumanAgent(session=session) if kind == "human"
                           else make_agent(kind, None if args.bot_seed is None else bot_seed(args.bot_seed, i))
                           for i, kind in enumerate(seats)]
    # the seed decides every hidden card: a seat never sees it (the decision log, the referee's record, keeps it)
    print(f"{ruleset.name}: {players} players"
          + (f", seed {seed}" if "human" not in seats and args.seed is not None else "") + ". Seats: "
          + ", ".join(f"P{i + 1}={k}" for i, k in enumerate(seats)))
    if "human" in seats:
        print("Type `help` at the prompt for commands (status, log, card text, save, quit)."
              + (f" The game is saved to {save_path} after every decision." if save_path else ""))
    if args.resume:
        print(f"Resumed from {args.resume} after {len(game.state.decisions)} decisions.")
        for a in agents:
            if isinstance(a, HumanAgent):
                for p in range(players):
                    a.skip_log(p, 12)
    if not _play_to_end(game, agents, session, save):
        return 130
    for a in agents:
        if isinstance(a, HumanAgent):
            a.show_end(game)
    if "human" not in seats or args.verbose:
        for line in game.log_lines(None):
            print(line)
    _print_result(game)
    if args.log:
        write_decision_log(args.log, args.ruleset, game)
        print(f"Decision log written to {args.log}")
    return 0 if game.state.status == "finished" else 1


def _play_to_end(game: Game, agents: list[Agent], session: Session, save: Callable[[Game, str], None]) -> bool:
    """Ask each waiting seat's agent until the game ends (True), or until a player stops it (False).

    A stopped game is saved first when it has a save path, and the command to resume it is printed.
    """
    try:
        while not game.finished:
            for p in game.waiting_for():
                game.apply(agents[p].choose(game, p), p)
            if session.save_path:
                save(game, session.save_path)
    except (EOFError, KeyboardInterrupt, QuitGame) as stop:
        print("\nGame stopped by the player." if isinstance(stop, QuitGame) else "\nGame interrupted.")
        if session.save_path:
            save(game, session.save_path)
            print(f"Decisions so far written to {session.save_path}; "
                  f"resume with: {session.resume_command(session.save_path)}")
        return False
    return True


# ---------------------------------------------------------------- simulate
def cmd_simulate(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    cluster.check_arguments(args)
    options = _options(load_ruleset(args.ruleset), args.option)  # report errors before starting workers
    seats = tuple(_seats(args.seats, args.players)) if args.seats else ()
    if "human" in seats:
        raise UsageError("simulate seats bots only: random, first or ismcts[:N|:Nms][:score]")
    if args.cluster:
        summary = cluster.simulate_command(args, options, _progress("simulating"), seats)
    else:
        summary = simulate(args.ruleset, args.games, args.players, args.seed, args.jobs, check=not args.no_check,
                           progress=_progress("simulating"), options=options, seats=seats)
    data = summary.to_json()
    if args.json:
        print(json.dumps(data))
    else:
        print(f"{data['games']} games: {data['finished']} finished, {data['aborted']} aborted, "
              f"{data['invariant_violations']} invariant violations")
        print(f"{data['decisions']} decisions in {data['seconds']} s: {data['games_per_second']} games/s, "
              f"{data['decisions_per_second']} decisions/s")
        print("wins per seat: " + ", ".join(f"P{i + 1} {w}" for i, w in enumerate(data["wins"]))
              + (f"; {data['no_winner']} game(s) won by nobody" if data["no_winner"] else ""))
        print(f"digest {data['digest']}")
        for e in data["errors"]:
            print(f"  {e}")
    return 0 if summary.aborted == 0 else 1


# ---------------------------------------------------------------- replay
def _log_ruleset(log: DecisionLog, override: str | None) -> str:
    """The ruleset to replay ``log`` on: ``--ruleset``, else the path the log names (relative to the working folder
    or to the log's), which must be a ``.rules`` file: a log cannot make `replay` read any other file."""
    if override:
        return override
    if not log.ruleset.endswith(".rules"):
        raise BadDecisionLog(f"{log.path} names {log.ruleset!r} as its ruleset, not a .rules file; "
                             "give the ruleset with --ruleset")
    if os.path.exists(log.ruleset):
        return log.ruleset
    beside = os.path.join(os.path.dirname(log.path), log.ruleset)
    return beside if os.path.exists(beside) else log.ruleset


def cmd_replay(args: argparse.Namespace) -> int:
    log = _read_log(args.log, args.force)
    ruleset_path = _log_ruleset(log, args.ruleset)
    ruleset = load_ruleset(ruleset_path)
    changed = changed_since(log.fingerprint, ruleset.fingerprint)
    if changed:
        print(f"note: {ruleset_path} or its card files changed since this log was recorded")
    try:
        game = _replayed(ruleset, log)
    except (IllegalChoice, ValueError, TypeError) as err:
        print(f"DIVERGED: the log does not replay: {err}")
        return 1
    for line in game.log_lines(None):
        print(line)
    _print_result(game)
    digest = game.digest()
    if log.digest and digest != log.digest:
        print(f"DIVERGED: digest {digest} differs from the recorded {log.digest}"
              + (" (the rules changed since the log was recorded)" if changed else ""))
        return 1
    print(f"Replay matches: digest {digest}")
    return 0


# ---------------------------------------------------------------- fuzz
def cmd_fuzz(args: argparse.Namespace) -> int:
    from liturgy.interpreter.tools.fuzz import fuzz_ruleset

    if args.examples < 1:
        raise UsageError("--examples must be at least 1")
    cluster.check_arguments(args)
    ruleset = load_ruleset(args.ruleset)
    if args.cluster:
        report = cluster.fuzz_command(args, _options(ruleset, args.option), _progress("fuzzing"))
    else:
        report = fuzz_ruleset(ruleset, args.ruleset, examples=args.examples, run_seed=args.seed,
                              max_decisions=args.max_decisions, replay_path=args.replay,
                              progress=_progress("fuzzing"), check_leaks=not args.no_leak_check,
                              options=_options(ruleset, args.option))
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        shrinking = report.examples - args.examples
        print(f"{report.examples} games explored"
              + (f" ({args.examples} asked, {shrinking} while shrinking)" if shrinking > 0 else "")
              + f", {report.decisions} decisions, {report.seconds:.1f} s")
        if report.violation is None:
            views = ("; no view or log named a card its viewer was never shown, and no hidden card or value "
                     "changed what a player observes") if not args.no_leak_check else ""
            print("0 violations: every invariant held after every step, every game ended with a result" + views)
        else:
            print(f"VIOLATION: {report.violation}")
            print(f"shrunk to {report.shrunk_decisions} decisions ({report.players} players, seed {report.seed}); "
                  f"replay with: liturgy replay {report.replay_path}")
    return 0 if report.violation is None else 1


# ---------------------------------------------------------------- profile
def cmd_profile(args: argparse.Namespace) -> int:
    from liturgy.interpreter.tools.ruleprof import profile

    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.top < 0:
        raise UsageError("--top must not be negative")
    program, diags = check_file(args.ruleset)
    if program is None:
        raise LiturgyError([d for d in diags if d.is_error] or diags)
    players = args.players or program.game.min_players
    if not program.game.min_players <= players <= program.game.max_players:
        raise UsageError(f"{program.game.title} is for {program.game.min_players}..{program.game.max_players} "
                         f"players, not {players}")
    ruleset = Ruleset(program)
    report = profile(program, args.games, players, args.seed, _options(ruleset, args.option),
                     check=not args.no_check, clock=args.clock, path=args.ruleset)
    top = args.top or None
    print(json.dumps(report.to_json(args.sort, top), indent=1) if args.json else report.render(args.sort, top))
    return 0


# ---------------------------------------------------------------- bench
def cmd_bench(args: argparse.Namespace) -> int:
    from liturgy.interpreter.tools.bench import Settings, discover, render, run_bench

    for name in ("seconds", "warmup"):
        if getattr(args, name) < 0:
            raise UsageError(f"--{name} must not be negative")
    if args.repeats < 1:
        raise UsageError("--repeats must be at least 1")
    paths = list(args.rulesets)
    if not paths:
        paths = discover(Path.cwd()) or discover(Path(__file__).resolve().parents[2])
        if not paths:
            raise UsageError("no rulesets/**/*.rules here: name the rulesets to benchmark")
    for path in paths:
        ruleset = load_ruleset(path)  # report ruleset errors (and a player count it refuses) before measuring
        if args.players:
            _check_players(ruleset, args.players)
    settings = Settings(seconds=args.seconds, warmup=args.warmup, repeats=args.repeats, jobs_games=args.jobs_games,
                        openspiel=not args.no_openspiel, seed=args.seed, players=args.players,
                        constructs=not args.no_constructs, ismcts=not args.no_ismcts)
    say = (lambda m: print(m, file=sys.stderr, flush=True)) if sys.stderr.isatty() else None
    report = run_bench(paths, settings, log=say)
    print(json.dumps(report, indent=1) if args.json else render(report))
    return 0


# ---------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="liturgy", description="Rules-as-data engine for tabletop games.")
    p.add_argument("--version", action="version", version=f"liturgy {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("check", help="check rulesets and card files")
    c.add_argument("rulesets", nargs="+", metavar="RULESET")
    c.add_argument("--format", choices=["text", "json"], default="text")
    c.add_argument("--strict", action="store_true", help="warnings fail too")
    c.set_defaults(func=cmd_check)

    pl = sub.add_parser("play", help="play a game in the terminal")
    pl.add_argument("ruleset")
    pl.add_argument("--players", type=A.PLAYERS_OR_DEFAULT, default=0)
    pl.add_argument("--seed", type=A.SEED, default=None, help="game seed (default: from the operating system, "
                    "never shown to a seat)")
    pl.add_argument("--bot-seed", type=A.SEED, default=None, help="seed of the bots' own randomness (default: "
                    "from the operating system); independent of the game seed")
    pl.add_argument("--seats", default="human", help="comma list of human, random, first, ismcts[:N|:Nms][:score] "
                    "(one per seat)")
    pl.add_argument("--log", help="save the game to this decision log after every decision (and at the end)")
    pl.add_argument("--resume", metavar="LOG", help="continue the game saved in this decision log (players, seed "
                    "and options come from it)")
    pl.add_argument("--force", action="store_true", help="resume a log that records no ruleset fingerprint")
    pl.add_argument("--verbose", action="store_true", help="print the public log at the end")
    pl.add_argument("--no-narration", action="store_true", help="do not say what changed for a human seat "
                    "since its last question")
    pl.add_argument("--ask-all", action="store_true", help="ask a human seat questions with one possible answer "
                    "too (by default they are answered for it and said)")
    pl.add_argument("--option", action="append", metavar="NAME=VALUE", help="set a ruleset option (repeatable)")
    pl.set_defaults(func=cmd_play)

    s = sub.add_parser("simulate", help="run many games with random agents")
    s.add_argument("ruleset")
    s.add_argument("--games", type=A.GAMES, default=100)
    s.add_argument("--players", type=A.PLAYERS, required=True)
    s.add_argument("--seed", type=A.SEED, default=0)
    s.add_argument("--jobs", type=A.JOBS, default=1, help="worker processes (at most one per game; 1..256)")
    s.add_argument("--json", action="store_true")
    s.add_argument("--no-check", action="store_true", help="skip invariant checks (faster)")
    s.add_argument("--seats", default="", help="comma list of random, first, ismcts[:N|:Nms][:score] (default: "
                   "random everywhere)")
    s.add_argument("--option", action="append", metavar="NAME=VALUE", help="set a ruleset option (repeatable)")
    cluster.add_arguments(s, "games")
    s.set_defaults(func=cmd_simulate)

    f = sub.add_parser("fuzz", help="hunt invariant violations with random games that shrink to a replay")
    f.add_argument("ruleset")
    f.add_argument("--examples", type=A.whole(1, 1_000_000), default=100)
    f.add_argument("--seed", type=A.SEED, default=0)
    f.add_argument("--max-decisions", type=A.whole(1, 10_000_000), default=5000)
    f.add_argument("--replay", default="fuzz-failure.replay.json", help="where to write a failing game's replay")
    f.add_argument("--json", action="store_true")
    f.add_argument("--no-leak-check", action="store_true",
                   help="skip checking every view and log line for cards the viewer was never shown (faster)")
    f.add_argument("--option", action="append", metavar="NAME=VALUE", help="set a ruleset option (repeatable)")
    cluster.add_arguments(f, "examples")
    f.set_defaults(func=cmd_fuzz)

    b = sub.add_parser("bench", help="measure speed (every shipped ruleset, and OpenSpiel's peers if installed)")
    b.add_argument("rulesets", nargs="*", metavar="RULESET", help="default: every rulesets/**/*.rules")
    b.add_argument("--seconds", type=A.seconds(0.01, 3600), default=2.0,
                   help="length of each timed repeat (default 2)")
    b.add_argument("--warmup", type=A.seconds(0, 600), default=0.5,
                   help="untimed warm-up before each figure (default 0.5 s)")
    b.add_argument("--repeats", type=A.whole(1, 100), default=3,
                   help="timed repeats per figure; the best is kept (default 3)")
    b.add_argument("--jobs-games", type=A.whole(0, A.MAX_GAMES), default=4000,
                   help="games of the Bloodborne --jobs 2 run (0 skips it; default 4000)")
    b.add_argument("--seed", type=A.SEED, default=1)
    b.add_argument("--players", type=A.PLAYERS_OR_DEFAULT, default=0,
                   help="players in every game (default: the targets' counts, else 4 where allowed)")
    b.add_argument("--no-openspiel", action="store_true", help="skip the OpenSpiel comparison")
    b.add_argument("--no-constructs", action="store_true",
                   help="skip the per-construct microbenchmarks (benchmarks/constructs) against plain Python")
    b.add_argument("--no-ismcts", action="store_true",
                   help="skip ISMCTS simulations/s on Kuhn poker against OpenSpiel's ISMCTSBot")
    b.add_argument("--json", action="store_true", help="machine-readable report")
    b.set_defaults(func=cmd_bench)

    pr = sub.add_parser("profile", help="play random games and report where the time goes, rule by rule")
    pr.add_argument("ruleset")
    pr.add_argument("--games", type=A.GAMES, default=100)
    pr.add_argument("--players", type=A.PLAYERS_OR_DEFAULT, default=0, help="default: the ruleset's minimum")
    pr.add_argument("--seed", type=A.SEED, default=0)
    pr.add_argument("--option", action="append", metavar="NAME=VALUE", help="set a ruleset option (repeatable)")
    pr.add_argument("--no-check", action="store_true", help="skip invariant checks (as simulate --no-check)")
    pr.add_argument("--sort", choices=["self", "cum", "calls"], default="self",
                    help="order of the rules (default self)")
    pr.add_argument("--top", type=A.whole(0, 1_000_000), default=30, help="rules to list (0: all; default 30)")
    pr.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="wall: perf_counter, cheap; cpu: process time, steadier on a busy machine but slow")
    pr.add_argument("--json", action="store_true")
    pr.set_defaults(func=cmd_profile)

    d = sub.add_parser("dump", help="print the Python code generated for a ruleset")
    d.add_argument("ruleset")
    d.set_defaults(func=cmd_dump)

    r = sub.add_parser("replay", help="re-run a decision log and verify its digest")
    r.add_argument("log")
    r.add_argument("--ruleset", help="override the ruleset path recorded in the log")
    r.add_argument("--force", action="store_true", help="replay a log that records no ruleset fingerprint")
    r.set_defaults(func=cmd_replay)

    register_authoring(sub)  # fmt, lsp
    mutate.register(sub)
    from liturgy.interpreter.tools import flowgraph
    from liturgy.interpreter.tools.report import command as report

    report.add_parser(sub)
    flowgraph.add_parser(sub)
    serve.add_parser(sub)  # `liturgy serve`: interpreter/web/cli.py (imports the web extra only when it runs)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; everything it prints goes through dsl/printable.py (no raw terminal escapes)."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = PrintableStream(sys.stdout), PrintableStream(sys.stderr)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = saved


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except LiturgyError as err:
        print(render_all(err.diagnostics), file=sys.stderr)
        return 1
    except BadDecisionLog as err:
        print(f"liturgy: error: {err}", file=sys.stderr)
        return 1
    except UsageError as err:
        print(f"liturgy: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except (ValueError, OSError) as err:  # a refusal that is not the user's command line: a file, a save…
        print(f"liturgy: error: {err}", file=sys.stderr)
        return 1
    except Exception as err:  # noqa: BLE001 - a bug must still end in one line and exit 1, never a traceback
        print(f"liturgy: internal error ({type(err).__name__}): {err}; please report it with the command "
              "that caused it", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
