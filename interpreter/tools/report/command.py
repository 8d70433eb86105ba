"""`liturgy report`: play many games and write a balance report, one self-contained HTML page.

    liturgy report RULESET --games N --players P [--seats random,...] [--option k=v ...]
                   [--compare-option k=v ... | --compare RULESET2 | --compare-players Q]
                   [--track COUNTER ...] [--jobs J | --cluster ADDRESS|local:N [--chunk N]] [--seed S]
                   --out report.html

The command's errors (a bad option, seat or counter name, an unwritable output) are ``UsageError`` messages, which
the CLI prints as one line with exit 2, before any game is played.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from liturgy.dsl.frontend import ast as A_
from liturgy.interpreter.engine import Ruleset, load_ruleset
from liturgy.interpreter.tools import arguments as A
from liturgy.interpreter.tools.arguments import UsageError
from liturgy.interpreter.tools.report import page, plots
from liturgy.interpreter.tools.report.collect import Config, GameRecord, counter_slots, play_all, seat_kinds_error
from liturgy.interpreter.tools.report.stats import summarize

MAX_REPORT_GAMES = 1_000_000


def add_parser(sub: Any) -> None:
    """Register `report` on the CLI's subcommands."""
    r = sub.add_parser("report", help="play many games and write a balance report (one HTML page with plots)")
    r.add_argument("ruleset")
    r.add_argument("--games", type=A.whole(1, MAX_REPORT_GAMES), default=200, help="games per side (default 200)")
    r.add_argument("--players", type=A.PLAYERS_OR_DEFAULT, default=0, help="default: the ruleset's minimum")
    r.add_argument("--seats", default="random",
                   help="comma list of agents, one per seat, or one for every seat (default random)")
    r.add_argument("--seed", type=A.SEED, default=0)
    r.add_argument("--option", action="append", metavar="NAME=VALUE", help="set a ruleset option (repeatable)")
    cmp = r.add_mutually_exclusive_group()
    cmp.add_argument("--compare-option", action="append", metavar="NAME=VALUE",
                     help="compare with the same games under this option value (repeatable)")
    cmp.add_argument("--compare", metavar="RULESET2", help="compare with another ruleset (e.g. an edited copy)")
    cmp.add_argument("--compare-players", type=A.PLAYERS, metavar="Q", help="compare with Q players")
    r.add_argument("--track", action="append", metavar="COUNTER", default=[],
                   help="plot a global or per-player counter round by round (repeatable)")
    r.add_argument("--jobs", type=A.JOBS, default=1, help="worker processes (the report is the same for any)")
    r.add_argument("--cluster", metavar="ADDRESS",
                   help="play on a Dask scheduler (tcp://host:8786), or local:N to start N local worker processes "
                        "(needs liturgy[cluster]; docs/cluster.md); the report is the same as with --jobs")
    r.add_argument("--chunk", type=A.whole(1, 100_000), metavar="N",
                   help="with --cluster: games per task (default: about eight tasks per worker)")
    r.add_argument("--out", required=True, help="the HTML file to write")
    r.set_defaults(func=cmd_report)


def parse_options(specs: list[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for spec in specs or []:
        name, eq, value = spec.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise UsageError(f"option {spec!r}: write NAME=VALUE, e.g. mode=combat")
        out[name.strip()] = value.strip()
    return out


def _seats(spec: str, players: int) -> tuple[str, ...]:
    seats = [s.strip() for s in spec.split(",") if s.strip()]
    if len(seats) == 1:
        seats = seats * players
    if len(seats) != players:
        raise UsageError(f"--seats names {len(seats)} seat(s) for {players} players")
    why = seat_kinds_error(tuple(seats))
    if why:
        raise UsageError(f"--seats: {why}")
    return tuple(seats)


def _config(label: str, ruleset: Ruleset, players: int, seats: str, options: dict[str, str],
            track: list[str]) -> Config:
    players = players or ruleset.min_players
    if not ruleset.min_players <= players <= ruleset.max_players:
        raise UsageError(f"{ruleset.name} is for {ruleset.min_players}..{ruleset.max_players} players, not {players}")
    try:
        opts = ruleset.resolve_options(options)
    except ValueError as err:  # an option the ruleset does not declare, or a value it does not allow
        raise UsageError(str(err)) from err
    for name in track:
        counter_slots(ruleset, name, players)
    return Config(label, ruleset, players, _seats(seats, players), tuple(sorted(opts.items())), tuple(track))


def _settings(path: str, c: Config) -> dict[str, str]:
    return {
        "ruleset": f"{c.ruleset.name} ({os.path.basename(path)})",
        "players": str(c.players),
        "seats": ", ".join(f"P{i + 1} {k}" for i, k in enumerate(c.seats)),
        "options": ", ".join(f"{k}={v}" for k, v in c.options) or "defaults",
    }


def _check_out(path: str) -> None:
    if os.path.isdir(path):
        raise UsageError(f"--out {path}: that is a folder; name a file in it, e.g. {os.path.join(path, 'report.html')}")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise UsageError(f"--out {path}: there is no folder {folder}")


def _sides(args: argparse.Namespace) -> list[tuple[str, Config]]:
    """(ruleset path, config) of each side: one, or two for a comparison."""
    ruleset = load_ruleset(args.ruleset)
    options = parse_options(args.option)
    track = list(dict.fromkeys(args.track))
    first = _config(os.path.basename(args.ruleset), ruleset, args.players, args.seats, options, track)
    if not (args.compare_option or args.compare or args.compare_players):
        return [(args.ruleset, first)]
    if args.compare:
        other = load_ruleset(args.compare)
        second = _config("B", other, args.players, args.seats, options, track)
        path_b = args.compare
        a_label, b_label = os.path.basename(args.ruleset), os.path.basename(args.compare)
        if a_label == b_label:
            a_label, b_label = args.ruleset, args.compare
        if a_label == b_label:  # the same file twice: a check that the two sides agree
            a_label, b_label = f"A: {a_label}", f"B: {b_label}"
    elif args.compare_players:
        second = _config("B", ruleset, args.compare_players, args.seats, options, track)
        path_b = args.ruleset
        a_label, b_label = _players(first.players), _players(second.players)
    else:
        changed = parse_options(args.compare_option)
        second = _config("B", ruleset, args.players, args.seats, {**options, **changed}, track)
        path_b = args.ruleset
        before = dict(first.options)
        a_label = ", ".join(f"{k}={before.get(k, _default(ruleset, k))}" for k in changed)
        b_label = ", ".join(f"{k}={v}" for k, v in changed.items())
    return [(args.ruleset, _relabel(first, a_label)), (path_b, _relabel(second, b_label))]


def _players(n: int) -> str:
    return f"{n} player" + ("s" if n != 1 else "")


def _default(ruleset: Ruleset, name: str) -> str:
    """An option's declared default value, as its name."""
    default = ruleset.program.counters[name].default
    return default.id if isinstance(default, A_.Name) else ruleset.option_values()[name][0]


def _relabel(c: Config, label: str) -> Config:
    return Config(label, c.ruleset, c.players, c.seats, c.options, c.track)


def _progress(label: str) -> Callable[[int, int], None] | None:
    from liturgy.interpreter.tools.cli import _progress as bar

    made: Callable[[int, int], None] | None = bar(label)
    return made


def _records(args: argparse.Namespace, sides: list[tuple[str, Config]]) -> Iterator[list[GameRecord]]:
    """Each side's game records, played here (``--jobs``) or on a cluster (``--cluster``, one connection for
    both sides of a comparison); the same records either way."""
    def label(config: Config) -> str:
        return f"playing {config.label}" if len(sides) > 1 else "playing"

    if args.cluster is None:
        if args.chunk is not None:
            raise UsageError("--chunk goes with --cluster")
        for _, config in sides:
            yield play_all(config, args.games, args.seed, args.jobs, _progress(label(config)))
        return
    if args.jobs != 1:
        raise UsageError("--jobs and --cluster exclude each other: a cluster's workers are its processes")
    from liturgy.interpreter.tools.cluster.reporting import records_on_cluster
    from liturgy.interpreter.tools.cluster.runner import RunStats, connect

    stats = RunStats()
    with connect(args.cluster) as client:
        for path, config in sides:
            yield records_on_cluster(client, path, config, args.games, args.seed, _progress(label(config)),
                                     args.chunk, stats)
    print(stats.describe(results=False), file=sys.stderr)


def cmd_report(args: argparse.Namespace) -> int:
    if not plots.available():
        raise UsageError("liturgy report draws its plots with matplotlib: pip install 'liturgy[report]'")
    _check_out(args.out)
    sides = _sides(args)
    rendered: list[page.Side] = []
    t0 = time.perf_counter()
    total = 0
    for (path, config), records in zip(sides, _records(args, sides), strict=True):
        kinds = {c.name: c.kind for c in config.ruleset.program.cards}
        stats = summarize(records, config.players, config.track, kinds)
        total += sum(r.decisions for r in records)
        rendered.append(page.Side(config.label, _settings(path, config), stats))
    seconds = time.perf_counter() - t0
    first = sides[0][1]
    title = f"{first.ruleset.name}: balance report, {args.games} games" + (
        f" per side ({rendered[0].label} vs {rendered[1].label})" if len(rendered) > 1 else "")
    text = page.render(title, rendered, _command(args), first.track)
    try:
        with open(args.out, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    except OSError as err:
        raise UsageError(f"--out {args.out}: {err.strerror or err}") from err
    games = args.games * len(sides)
    print(f"{games} games, {total} decisions in {seconds:.1f} s ({games / max(seconds, 1e-9):.1f} games/s); "
          f"report written to {args.out}")
    for s in rendered:
        out = sum(1 for c in s.stats.cards if c.stands_out)
        print(f"  {s.label}: {s.stats.finished} finished, {s.stats.aborted} aborted; wins "
              + ", ".join(f"P{p + 1} {r.text()}" for p, r in enumerate(s.stats.seat_wins))
              + f"; {out} card(s) stand out")
    return 0


def _command(args: argparse.Namespace) -> str:
    """The command line as the page shows it: the settings that decide the games, not --jobs or --out."""
    parts = ["liturgy report", args.ruleset, f"--games {args.games}"]
    if args.players:
        parts.append(f"--players {args.players}")
    parts += [f"--seats {args.seats}", f"--seed {args.seed}"]
    parts += [f"--option {o}" for o in args.option or []]
    parts += [f"--compare-option {o}" for o in args.compare_option or []]
    if args.compare:
        parts.append(f"--compare {args.compare}")
    if args.compare_players:
        parts.append(f"--compare-players {args.compare_players}")
    parts += [f"--track {t}" for t in args.track]
    return " ".join(shlex.quote(p) if " " in p and not p.startswith(("liturgy", "--")) else p for p in parts)


__all__ = ["add_parser", "cmd_report", "parse_options"]
