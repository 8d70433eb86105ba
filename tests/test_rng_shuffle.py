"""`rng.shuffle` (SplitMix64 written into the Fisher-Yates loop) draws exactly the stream of `rng.below`.

Every shuffle of every game goes through it, so a difference would change every digest; the explicit-chance path
(a `Script` state) must still draw through `rng.below`, one chance outcome per position.
"""

from __future__ import annotations

import random
import sys

import pytest
from liturgy.interpreter.engine.chance import NeedChance, Script
from liturgy.interpreter.runtime import rng


def _reference(items: list[int], state: int) -> int:
    """Fisher-Yates with one `rng.below` per position: the stream every shuffle must keep."""
    for i in range(len(items) - 1, 0, -1):
        state, j = rng.below(state, i + 1)
        items[i], items[j] = items[j], items[i]
    return state


@pytest.mark.parametrize("length", [0, 1, 2, 3, 13, 60, 338])
@pytest.mark.parametrize("seed", [0, 1, 42, 2**63 + 12345, 2**64 - 1])
def test_shuffle_matches_below_stream(length: int, seed: int) -> None:
    state = rng.seed_state(seed)
    mine, ref = list(range(length)), list(range(length))
    assert rng.shuffle(mine, state) == _reference(ref, state)
    assert mine == ref
    assert sorted(mine) == list(range(length))


def test_shuffle_with_a_chance_script_uses_its_outcomes() -> None:
    items = [10, 11, 12, 13]
    script = Script([0, 2, 1])  # draws among 4, then 3, then 2 items
    assert rng.shuffle(items, script) is script
    # i=3: j=0 -> [13, 11, 12, 10]; i=2: j=2 -> same; i=1: j=1 -> same
    assert items == [13, 11, 12, 10]
    with pytest.raises(NeedChance) as need:
        rng.shuffle([1, 2, 3], Script([]))
    assert need.value.n == 3


# states at the edges of the packed draws' lanes (rng._outputs): zero, the largest, one whose next states wrap past
# 2**64 at once, and states outside 0..2**64-1 (a save can hold any integer; the loop reduces it modulo 2**64)
_EDGES = [0, rng.MASK, rng.MASK - rng.GOLDEN + 1, 2**64 + 5, -1, -(2**70) - 3, rng.seed_state(7)]


def test_every_length_and_edge_state_draws_the_below_stream() -> None:
    """Both shuffles, the one-by-one loop (short lists) and the packed draws (longer ones), for every length up to
    past the packed threshold, the precomputed ranges (256) and the lanes kept (up to 255 draws)."""
    lengths = [*range(0, 40), 255, 256, 257, 1030]
    for length in lengths:
        for state in _EDGES:
            mine, ref = list(range(length)), list(range(length))
            assert rng.shuffle(mine, state) == _reference(ref, state), (length, state)
            assert mine == ref, (length, state)


def test_packed_outputs_are_next_states_outputs() -> None:
    """`rng._outputs(state, m)` is the m outputs of m `next_state` calls, in order."""
    for m in (1, 2, 5, 31, 300):
        for state in _EDGES:
            if not 0 <= state <= rng.MASK:
                continue
            want, s = [], state
            for _ in range(m):
                s, out = rng.next_state(s)
                want.append(out)
            assert rng._outputs(state, m) == want, (m, state)


def test_the_one_by_one_loop_alone_draws_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a big-endian machine (no packed draws) every length takes the loop: the same stream."""
    monkeypatch.setattr(rng, "_PACKED_FROM", sys.maxsize)
    for length in (6, 7, 40):
        for state in _EDGES:
            mine, ref = list(range(length)), list(range(length))
            assert rng.shuffle(mine, state) == _reference(ref, state) and mine == ref, (length, state)


def _unmix(z: int) -> int:
    """The SplitMix64 state whose output, before its last ``x ^ (x >> 31)``, is ``z``: the two steps undone."""
    def unshift(y: int, k: int) -> int:  # the x with x ^ (x >> k) == y
        x = y
        for _ in range(64 // k + 1):
            x = y ^ (x >> k)
        return x
    x = unshift((z * pow(0x94D049BB133111EB, -1, 2**64)) & rng.MASK, 27)
    return unshift((x * pow(0xBF58476D1CE4E5B9, -1, 2**64)) & rng.MASK, 30)


def test_the_last_two_draws_by_the_top_bits() -> None:
    """A short shuffle takes its last draw (among 2) as ``z >> 63`` and the one before (among 3) by ``z >> 34``,
    without the output's XOR and the cut points' search (unless the top bits tie a cut point's): the same index
    at and around the cut points and at the ends, and the same shuffles from many states."""
    for z in (0, 1, 2**33 - 1, 2**63 - 2**33, 2**63 - 1, 2**63, 2**63 + 2**33 - 1, 2**63 + 2**33, 2**64 - 1):
        assert z >> 63 == rng._bisect(rng._CUTS[2], z ^ (z >> 31)) == ((z ^ (z >> 31)) * 2) >> 64, z
    assert tuple(c >> 34 for c in rng._CUTS[3]) == rng._TOP3
    tops = [c >> 34 << 34 for c in rng._CUTS[3]]
    for z in (0, 2**64 - 1, *(t + d for t in tops for d in (-1, 0, 1, 2**33 - 1, 2**33, 2**34 - 1, 2**34))):
        # a 3-item shuffle whose draw among 3 has exactly this z (SplitMix64's mixing undone): at, inside and
        # just outside the bands where the top bits tie a cut point's
        state = (_unmix(z) - rng.GOLDEN) & rng.MASK
        mine, ref = [0, 1, 2], [0, 1, 2]
        assert rng.shuffle(mine, state) == _reference(ref, state) and mine == ref, z
        assert rng.next_state(state)[1] == z ^ (z >> 31)
    draws = random.Random(29)
    for _ in range(2000):
        state = draws.getrandbits(64)
        for length in (2, 3, 4, 5):
            mine, ref = list(range(length)), list(range(length))
            assert rng.shuffle(mine, state) == _reference(ref, state) and mine == ref, (length, state)
