"""Run-time helpers that generated expressions call by name (bound in the generator's namespace).

They raise the same rule errors, with the same messages, as the closures they stand in for.
"""
from __future__ import annotations

from typing import Any

from liturgy.interpreter.runtime import rng
from liturgy.interpreter.runtime.errors import RuleError


def _no_card(what: str) -> Any:
    raise RuleError(what)


def _index(items: Any, i: Any) -> Any:
    if not 0 <= i < len(items):
        raise RuleError(f"list index {i} out of range (size {len(items)})")
    return items[i]


def _never(s: Any, env: Any) -> Any:  # pragma: no cover - generated text calling it is thrown away
    raise AssertionError("a loop variable held in a Python local was read through a closure")


def _random(s: Any, items: Any) -> Any:
    """`random(list)`: one draw from the game's RNG, exactly as the closure compiler's."""
    if not items:
        raise RuleError("random() of an empty list")
    s.rng, i = rng.below(s.rng, len(items))
    return items[i]


def _roll(s: Any, faces: Any, name: Any) -> int:
    """`roll(die)`: add faces while they say "roll again", exactly as the closure compiler's."""
    if faces is None:
        raise RuleError(f"no die named {name!r}")
    total: int = 0
    for _ in range(rng.MAX_REROLLS):
        s.rng, i = rng.below(s.rng, len(faces))
        value, again = faces[i]
        total += value
        if not again:
            return total
    raise RuleError(f"a die exploded more than {rng.MAX_REROLLS} times")
