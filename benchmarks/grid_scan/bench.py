"""Issue 29's grid game: the Liturgy ruleset ``grid_scan.rules`` against the same game written in plain Python.

Both play the same random games: the Liturgy side is ``Game.random_playout(rng)``, which draws
``rng.randrange(number of legal options)`` at each decision, and the plain side draws the same way from the
same seed over the same legal moves in the same order (cells by increasing number), so the two games are
the same game move by move. The script first checks that (the final boards must be equal), then times both
by CPU time, interleaved (Liturgy, Python, Liturgy, Python …), and prints the ratio of games per second.

    python benchmarks/grid_scan/bench.py [--games 40] [--repeats 5]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from liturgy.interpreter.engine import Ruleset, load_ruleset

RULES = Path(__file__).resolve().parent / "grid_scan.rules"
# the `compass` set: clockwise from north; (dx, dy) with north one row up
COMPASS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


def _line(board: list[int | None], x: int, y: int, dx: int, dy: int) -> int:
    """Cells in a row from (x, y) towards (dx, dy) holding the value of (x, y), that cell included."""
    v = board[x + 8 * y]
    n = 0
    while 0 <= x < 8 and 0 <= y < 8 and board[x + 8 * y] == v:
        n += 1
        x += dx
        y += dy
    return n


def flanks(board: list[int | None], p: int, i: int, k: int) -> bool:
    """The ruleset's `flanks`, line for line."""
    dx, dy = COMPASS[k]
    c = i % 8
    r = i // 8
    x = c + dx
    y = r + dy
    q = board[x + 8 * y] if 0 <= x < 8 and 0 <= y < 8 else None
    n = _line(board, x, y, dx, dy) if q is not None and q != p else 0
    ex, ey = x + n * dx, y + n * dy
    return n > 0 and 0 <= ex < 8 and 0 <= ey < 8 and board[ex + 8 * ey] == p


def legal(board: list[int | None], p: int, i: int) -> bool:
    return board[i] is None and any(flanks(board, p, i, k) for k in range(8))


def play_python(seed: int) -> list[int | None]:
    """One game of the plain-Python twin with ``random.Random(seed)``'s choices; the final board."""
    rng = random.Random(seed)
    board: list[int | None] = [None] * 64
    board[3 + 8 * 3] = board[4 + 8 * 4] = 0
    board[3 + 8 * 4] = board[4 + 8 * 3] = 1
    for _ in range(1000):
        for p in (0, 1):
            moves = [i for i in range(64) if legal(board, p, i)]
            if not moves:
                return board
            i = moves[rng.randrange(len(moves))]
            for k in range(8):
                if flanks(board, p, i, k):
                    dx, dy = COMPASS[k]
                    n = _line(board, i % 8 + dx, i // 8 + dy, dx, dy)
                    for m in range(1, n + 1):
                        board[i % 8 + m * dx + 8 * (i // 8 + m * dy)] = p
            board[i] = p
    return board


def play_liturgy(rules: Ruleset, seed: int) -> list[int | None]:
    """One game of ``grid_scan.rules`` with ``random.Random(seed)``'s choices; the final board."""
    game = rules.new_game(2, seed)
    game.random_playout(random.Random(seed))
    cells = game.state.counters[2:66]  # the grid is the first declared counter block after `first` and `round`
    return list(cells)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40, help="games per timed run")
    ap.add_argument("--repeats", type=int, default=5, help="interleaved runs of each side")
    args = ap.parse_args(argv)
    rules = load_ruleset(str(RULES))
    for seed in range(5):  # the same games, or the timing compares nothing
        if play_liturgy(rules, seed) != play_python(seed):
            print(f"seed {seed}: the two games differ", file=sys.stderr)
            return 1
    best_l = best_p = float("inf")
    for _ in range(args.repeats):
        t = time.process_time()
        for seed in range(args.games):
            play_liturgy(rules, seed)
        best_l = min(best_l, time.process_time() - t)
        t = time.process_time()
        for seed in range(args.games):
            play_python(seed)
        best_p = min(best_p, time.process_time() - t)
    print(f"liturgy {args.games / best_l:.1f} games/s, plain Python {args.games / best_p:.1f} games/s, "
          f"ratio {best_p / best_l:.2f}x (best of {args.repeats}, CPU time)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
