"""Bytecodes executed per Python function over N seeded random playouts: where a game's work goes, by name.

On a machine shared by several people, wall-clock and even CPU-time figures move with the load, and callgrind
takes minutes per run. This counts the interpreter's bytecodes per function (``sys.settrace`` with
``f_trace_opcodes``), which the load cannot move, in seconds: a deterministic profile of the engine's and the
generated code's share of each game. A bytecode is not a unit of time (a call, an exception or a dict costs more
in C than its few bytecodes say), so a change is confirmed with callgrind or interleaved CPU time
(docs/performance.md, session 16):

    python benchmarks/opcodes.py rulesets/classic/kuhn_poker.rules 300 [PLAYERS] [TOP]

With ``BASE=/path/to/pkg`` (a folder holding another tree's ``liturgy`` package) the other tree is counted
instead, as in ``openspiel_cpu.py``.
"""
import collections
import os
import random
import sys
from types import FrameType
from typing import Any

if os.environ.get("BASE"):  # another tree's package first, ahead of the editable install's finder
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
    sys.path.insert(0, os.environ["BASE"])

from liturgy.interpreter.engine import load_ruleset  # noqa: E402


def count(path: str, games: int, players: int) -> tuple[collections.Counter[tuple[str, str]], int]:
    """Bytecodes per (file, function) over ``games`` playouts (seeds 0..games-1), and the Python calls made."""
    rules = load_ruleset(path)
    rules.new_game(players, 10**6).random_playout(random.Random(0))  # fused functions compiled before counting
    ops: collections.Counter[tuple[str, str]] = collections.Counter()
    calls = [0]

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        if event == "opcode":
            ops[(os.path.basename(frame.f_code.co_filename)[:40], frame.f_code.co_name)] += 1
        elif event == "call":
            calls[0] += 1
        return trace

    sys.settrace(trace)
    try:
        for seed in range(games):
            rules.new_game(players, seed).random_playout(random.Random(seed))
    finally:
        sys.settrace(None)
    return ops, calls[0]


def main() -> None:
    path, games = sys.argv[1], int(sys.argv[2])
    players = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    ops, calls = count(path, games, players)
    print(f"{sum(ops.values()) / games:10.1f} bytecodes a game, {calls / games:.1f} Python calls a game")
    for (where, name), n in ops.most_common(top):
        print(f"{n / games:10.1f}  {name}  ({where})")


if __name__ == "__main__":
    main()
