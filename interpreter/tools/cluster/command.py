"""The command-line side of the cluster: ``--cluster``, ``--results`` and ``--chunk`` on `simulate` and `fuzz`.

interpreter/tools/cli.py only registers these options and hands over when ``--cluster`` is given; the output
(text or ``--json``) is then exactly what the command prints without a cluster.  The run's chunk timings and the
projection to 100 workers go to standard error, so standard output stays the command's own.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from liturgy.interpreter.tools import arguments as A
from liturgy.interpreter.tools.cluster.runner import ClusterError, RunStats
from liturgy.interpreter.tools.simulate import Summary

if TYPE_CHECKING:  # only named in a signature: importing the fuzzer loads Hypothesis, ~0.3 s for every command
    from liturgy.interpreter.tools.fuzz import FuzzReport


def add_arguments(parser: argparse.ArgumentParser, unit: str) -> None:
    """Register the cluster options on a subcommand whose work comes in ``unit`` (games, examples)."""
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="run on a Dask scheduler (tcp://host:8786), or local:N to start N local worker "
                             "processes (needs liturgy[cluster]; docs/cluster.md)")
    parser.add_argument("--results", metavar="FILE",
                        help="with --cluster: record finished chunks in FILE; the same command with the same FILE "
                             "resumes, playing only the chunks it lacks")
    default = "25, a fixed number: the report depends on it" if unit == "examples" else \
        "about eight tasks per worker; the result does not depend on it"
    parser.add_argument("--chunk", type=A.whole(1, 100_000), metavar="N",
                        help=f"with --cluster: {unit} per task (default: {default})")


def check_arguments(args: argparse.Namespace) -> None:
    """Options that only make sense with ``--cluster``."""
    if args.cluster is None and (args.results is not None or args.chunk is not None):
        raise ClusterError("--results and --chunk go with --cluster")
    if args.cluster is not None and getattr(args, "jobs", 1) != 1:
        raise ClusterError("--jobs and --cluster exclude each other: a cluster's workers are its processes")


def _interrupted(args: argparse.Namespace) -> SystemExit:
    where = (f"; finished chunks are in {args.results}: run the same command again to resume"
             if args.results else " (give --results FILE to make a run resumable)")
    print(f"\ninterrupted{where}", file=sys.stderr)
    return SystemExit(130)


def simulate_command(
    args: argparse.Namespace, options: dict[str, str], progress: Callable[[int, int], None] | None,
    seats: tuple[str, ...] = (),
) -> Summary:
    """`simulate --cluster`: the Summary of the run (the CLI prints it as usual)."""
    from liturgy.interpreter.tools.cluster.simulation import simulate_on_cluster

    stats = RunStats()
    try:
        summary = simulate_on_cluster(args.ruleset, args.games, args.players, args.seed, args.cluster,
                                      check=not args.no_check, progress=progress, options=options,
                                      results=args.results, chunk=args.chunk, stats=stats, seats=seats)
    except KeyboardInterrupt:
        raise _interrupted(args) from None
    print(stats.describe(), file=sys.stderr)
    return summary


def fuzz_command(
    args: argparse.Namespace, options: dict[str, str], progress: Callable[[int, int], None] | None
) -> FuzzReport:
    """`fuzz --cluster`: the merged report of the shards (the CLI prints it as usual)."""
    from liturgy.interpreter.tools.cluster.fuzzing import fuzz_on_cluster

    stats = RunStats()
    try:
        report = fuzz_on_cluster(args.ruleset, args.examples, args.seed, args.cluster,
                                 max_decisions=args.max_decisions, replay_path=args.replay, progress=progress,
                                 check_leaks=not args.no_leak_check, options=options, results=args.results,
                                 chunk=args.chunk, stats=stats)
    except KeyboardInterrupt:
        raise _interrupted(args) from None
    print(stats.describe(unit="example"), file=sys.stderr)
    return report
