"""SplitMix64's draws written without the masks and the product (runtime/rng.py ``_CUTS``, the shuffle's state step,
the seed's first step) give exactly the textbook stream: ``state = (state + GOLDEN) & MASK``, the mix, and the index
``(out * n) >> 64``. The other rng tests compare the shuffle with ``below``; these compare both, and ``seed_state``,
with the formula itself, so a change to ``below`` cannot hide behind its own reference.
"""

from __future__ import annotations

import random
from bisect import bisect_right

from liturgy.interpreter.runtime import rng

M = (1 << 64) - 1
G = 0x9E3779B97F4A7C15


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def _draw(state: int, n: int) -> tuple[int, int]:
    state = (state + G) & M
    return state, (_mix(state) * n) >> 64


# zero, the largest state, the states on either side of the step's wrap past 2**64, a seed's, and integers outside
# 0..2**64-1 (a save may hold any integer: the draws are those of the state modulo 2**64, as they always were)
_STATES = [0, 1, M, M - G, M - G + 1, (1 << 64) - G - 1, rng.seed_state(3), 2**64 + 5, -1, -(2**70) - 3, 2**80 + 17]


def test_the_cut_points_give_the_product_at_and_around_every_cut() -> None:
    pick = random.Random(29)
    for n in range(rng._CUT_BELOW):
        cuts = rng._CUTS[n]
        assert len(cuts) == max(n - 1, 0) and list(cuts) == sorted(set(cuts))
        outs = [0, 1, M - 1, M, *(pick.getrandbits(64) for _ in range(50))]
        for c in cuts:
            outs += [c - 1, c, c + 1]
        for out in outs:
            assert bisect_right(cuts, out) == (out * n) >> 64, (n, out)


def test_below_draws_the_textbook_stream() -> None:
    for state in _STATES:
        for n in [*range(0, 40), 52, 1000, 2**40]:
            assert rng.below(state, n) == _draw(state, n), (state, n)


def test_shuffle_draws_the_textbook_stream_one_by_one_and_packed() -> None:
    """Lengths either side of the packed threshold (rng._PACKED_FROM) and of the cut points' (rng._CUT_BELOW)."""
    for length in [*range(0, 24), 60]:
        for state in _STATES:
            want, s = list(range(length)), state
            for i in range(length - 1, 0, -1):
                s, j = _draw(s, i + 1)
                want[i], want[j] = want[j], want[i]
            if length < 2:
                s = state  # no draw: the state as given, even one outside 0..2**64-1
            mine = list(range(length))
            assert rng.shuffle(mine, state) == s and mine == want, (length, state)


def test_seed_state_is_the_first_output_from_any_seed() -> None:
    for seed in [0, 1, 12345, (1 << 64) - G - 1, (1 << 64) - G, M, 2**64, 2**64 + 9, -1, -(2**70), True]:
        assert rng.seed_state(seed) == _mix((seed + G) & M), seed
