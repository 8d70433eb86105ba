"""`rng.shuffle` (SplitMix64 written into the Fisher-Yates loop) draws exactly the stream of `rng.below`.

Every shuffle of every game goes through it, so a difference would change every digest; the explicit-chance path
(a `Script` state) must still draw through `rng.below`, one chance outcome per position.
"""

from __future__ import annotations

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
