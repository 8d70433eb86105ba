"""The first RNG state whose next draws land where a test wants them (forced dice), found many states at a time.

Scenario tests set up a roll by searching for an RNG state (runtime/rng.py: SplitMix64, the whole state one
integer) whose next ``below(state, n)`` draws give the wanted faces, and putting it into the game. The three
helpers that do it (tests/test_betrayal.py ``force_dice``, tests/scenario.py ``force_roll``,
tests/test_fury_of_dracula_combat.py ``force_d6``) tried one state after another in Python, about a microsecond a
state and die: k dice of three equally likely values take ~3^k states, so a Hanged Men roll of 14 dice searched
millions of states, seconds of CPU in one test. Here the same states are tried a block at a time with numpy
(SplitMix64 is additions, shifts, xors and multiplications modulo 2^64, which numpy's uint64 arrays do natively),
and the answer is the same state as the one-at-a-time search: the first in ``range(start, stop)``, because each
block is searched in order and the first survivor of a block is its smallest. Most searches are short (a die or
two: a few states), and there numpy's cost per call is more than the loop's, so the first ``PLAIN`` states are
tried one at a time and the blocks grow from ``FIRST_BLOCK`` to ``BLOCK``. Without numpy the plain loop runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from liturgy.interpreter.runtime import rng

try:
    import numpy as np
except ImportError:  # pragma: no cover - numpy comes with matplotlib, a test dependency
    np = None  # type: ignore[assignment]

PLAIN = 1 << 10  # states tried one at a time first: a search for a die or two ends within them
FIRST_BLOCK = 1 << 12  # the first block of states tried at once; each next one 4 times larger, up to BLOCK
BLOCK = 1 << 18  # large enough to amortise numpy's per-call cost, small enough for the cache


def _plain(start: int, stop: int, n: int, wanted: Sequence[frozenset[int]]) -> int | None:
    for x in range(start, stop):
        state = x
        for allowed in wanted:
            state, i = rng.below(state, n)
            if i not in allowed:
                break
        else:
            return x
    return None


def first_state(start: int, stop: int, n: int, wanted: Sequence[Sequence[int]]) -> int | None:
    """The first ``x`` in ``range(start, stop)`` whose successive draws ``rng.below(state, n)`` (``state`` starting
    at ``x``) fall, the k-th in ``wanted[k]`` (a set of indices in ``range(n)``); ``None`` when there is none."""
    sets = [frozenset(w) for w in wanted]
    if np is None or not sets or not 0 <= start < stop <= rng.MASK:
        return _plain(start, stop, n, sets)
    found = _plain(start, min(start + PLAIN, stop), n, sets)
    if found is not None or start + PLAIN >= stop:
        return found
    u = np.uint64
    golden, mul1, mul2 = u(rng.GOLDEN), u(0xBF58476D1CE4E5B9), u(0x94D049BB133111EB)
    s30, s27, s31 = u(30), u(27), u(31)
    # below() gives i exactly when ceil(i * 2^64 / n) <= z < ceil((i + 1) * 2^64 / n), z the 64-bit output
    bounds = np.array([-(-(i << 64) // n) for i in range(n)], dtype=np.uint64)
    masks = [np.isin(np.arange(n), sorted(w)) for w in sets]
    lo, size = start + PLAIN, FIRST_BLOCK
    while lo < stop:
        xs = np.arange(lo, min(lo + size, stop), dtype=np.uint64)
        lo, size = lo + size, min(4 * size, BLOCK)
        state = xs
        for allowed in masks:
            state = state + golden  # wraps modulo 2^64, as rng.below's `& MASK`
            z = (state ^ (state >> s30)) * mul1
            z = (z ^ (z >> s27)) * mul2
            z = z ^ (z >> s31)
            keep = allowed[np.searchsorted(bounds, z, side="right") - 1]
            xs, state = xs[keep], state[keep]
            if not len(xs):
                break
        else:
            return int(xs[0])
    return None
