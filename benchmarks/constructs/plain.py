"""The per-construct microbenchmarks written in plain Python: the same work as each ``NAME.rules`` beside this file.

Each function does what its ruleset's single step does, in the Python a person would write for it (locals, lists,
a flat list for a grid, plain function calls for handlers), and returns the number the ruleset leaves in ``total``
(or P1's ``points``), so ``liturgy bench`` can check that both did the same work before it compares their speed.
"""

from __future__ import annotations

from collections.abc import Callable


def _weight(i: int) -> int:
    c = i % 8
    r = i // 8
    dc = c - 3
    dr = r - 4
    near = dc * dc + dr * dr
    edge = 3 if c == 0 or c == 7 or r == 0 or r == 7 else 0
    return near + edge + i % 5


def fn_lets() -> int:
    total = 0
    for _k in range(20):
        for i in range(64):
            total += _weight(i)
    return total


def _board() -> list[int]:
    """An 8 by 8 grid as one flat list, cell (c, r) at c * 8 + r, filled as the rulesets fill theirs."""
    board = [0] * 64
    for c in range(8):
        for r in range(8):
            board[c * 8 + r] = (c * 3 + r) % 4
    return board


def grid_loop() -> int:
    board = _board()
    total = 0
    for _k in range(20):
        for c in range(8):
            for r in range(8):
                if board[c * 8 + r] > 0:
                    total += board[c * 8 + r]
    return total


def comprehension_where() -> int:
    total = 0
    for k in range(40):
        xs = [i * 2 + k for i in range(64) if i % 3 != 0]
        total += len(xs) + xs[len(xs) - 1]
    return total


def any_count() -> int:
    board = _board()
    total = 0
    for _k in range(40):
        total += sum(1 for i in range(64) if board[(i % 8) * 8 + i // 8] == 1)
        if any(board[c * 8] == 2 for c in range(8)):
            total += 1
        if any(board[(i % 8) * 8 + i // 8] == 9 for i in range(64)):
            total += 100
    return total


def card_moves() -> int:
    deck = list(range(52))
    hand: list[int] = []
    total = 0
    for _k in range(10):
        while deck:
            hand.append(deck.pop())
        while hand:
            deck.append(hand.pop())
        total += len(deck)
    return total


def handler_counter() -> int:
    points = [0]

    def scored(p: int, n: int) -> None:
        points[p] += n

    handlers: list[Callable[[int, int], None]] = [scored]
    for k in range(500):
        for handler in handlers:
            handler(0, k % 3)
    return points[0]


PLAIN: dict[str, Callable[[], int]] = {
    "fn_lets": fn_lets,
    "grid_loop": grid_loop,
    "comprehension_where": comprehension_where,
    "any_count": any_count,
    "card_moves": card_moves,
    "handler_counter": handler_counter,
}
