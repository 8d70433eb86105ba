"""tests/rng_search.py's block search finds exactly the state the one-at-a-time search finds (the forced-dice helpers
of the scenario tests rely on it: a different state would change every later draw of their games)."""

from __future__ import annotations

import random

import pytest
from liturgy.interpreter.runtime import rng
from rng_search import BLOCK, _plain, first_state


@pytest.mark.parametrize("seed", range(6))
def test_the_block_search_finds_the_first_state_the_plain_loop_finds(seed: int) -> None:
    r = random.Random(seed)
    for _ in range(20):
        n = r.choice([2, 3, 6, 8])
        wanted = [frozenset(r.sample(range(n), r.randint(1, max(1, n // 2)))) for _ in range(r.randint(1, 4))]
        start = r.choice([0, 1, 9_999, rng.MASK - 3_000])  # the last: states that wrap past 2^64
        stop = min(start + 40_000, rng.MASK)
        assert first_state(start, stop, n, wanted) == _plain(start, stop, n, wanted), (n, wanted, start)


def test_the_state_found_rolls_what_was_asked_and_across_blocks() -> None:
    wanted = [[0, 1]] * 12 + [[5]]  # ~3^12 * 6 states: the answer lies past the first block
    x = first_state(0, 20_000_000, 6, wanted)
    assert x is not None and x > BLOCK
    state = x
    for allowed in wanted:
        state, i = rng.below(state, 6)
        assert i in allowed
    assert _plain(x - 2_000, x + 1, 6, [frozenset(w) for w in wanted]) == x  # none just before it


def test_no_state_in_the_range_is_none() -> None:
    assert first_state(0, 10, 6, [[0]] * 10) is None
