"""A tiny counter-based RNG (SplitMix64) whose whole state is one integer.

The game state carries this integer, so cloning and saving a game copies one
number instead of Mersenne Twister's 625 words, and every draw is reproducible
from the seed alone on any platform.
"""

from __future__ import annotations

from collections.abc import Callable

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
# `roll(die)` re-rolls while a face says "roll again"; past this many rolls it is a rule error, not a hang
MAX_REROLLS = 1000

# range(n - 1, 0, -1) for a shuffle of n < _MADE items, made once: Python 3.11 builds a range through generic
# number arithmetic (its length), about a tenth of a small deck's shuffle (callgrind); a range is immutable
_MADE = 256
_DOWN = tuple(range(n - 1, 0, -1) for n in range(_MADE))


def next_state(state: int) -> tuple[int, int]:
    """Advance the state; return (new_state, 64-bit output)."""
    state = (state + GOLDEN) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def below(state: int, n: int) -> tuple[int, int]:
    """A uniform integer in ``range(n)`` (n >= 1) and the new state.

    A state that is not a plain ``int`` is an explicit-chance script (an ``int``
    subclass, see :mod:`.chance`): the outcome comes from the script instead, so
    an adapter can expose every draw as a chance node.  Normal play never takes
    this branch and stays bit-for-bit the same.
    """
    if state.__class__ is not int:
        return state, state.draw(n)  # type: ignore[attr-defined]
    # next_state inlined: every shuffle and random pick comes through here
    state = (state + GOLDEN) & MASK
    z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, ((z ^ (z >> 31)) * n) >> 64


def shuffle(items: list[int], state: int) -> int:
    """Fisher-Yates shuffle of ``items`` in place; returns the new state.

    The same stream as calling :func:`below` once per position (``below(state, i + 1)`` for ``i`` from the last
    index down to 1), with SplitMix64 written into the loop: shuffles are most of a game's draws (a Slay the Spire
    setup shuffles every deck), and the call and tuple per draw were about an eighth of a shuffle's time.  An
    explicit-chance script (a state that is not a plain ``int``) still goes through :func:`below`.  The items come
    first so that a caller's ``s.rng = shuffle(<zone>, s.rng)`` reads the state after the zone expression, which
    may itself draw.
    """
    if state.__class__ is not int:
        for i in range(len(items) - 1, 0, -1):
            state, j = below(state, i + 1)
            items[i], items[j] = items[j], items[i]
        return state
    n = len(items)
    for i in _DOWN[n] if n < _MADE else range(n - 1, 0, -1):
        # below() inlined, constants written out (MASK, GOLDEN): a constant loads faster than a global
        state = (state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        j = ((z ^ (z >> 31)) * (i + 1)) >> 64
        items[i], items[j] = items[j], items[i]
    return state


def seed_state(seed: int) -> int:
    """Mix a user seed so that nearby seeds give unrelated streams.

    ``Ruleset.new_game`` writes these lines in place (one call fewer per game); a change here changes both, and
    tests/test_rng_picker.py checks that they agree."""
    # next_state inlined (one per new game); only the output is kept
    z = ((seed & MASK) + GOLDEN) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def mt_below(getrandbits: Callable[[int], int], n: int) -> int:
    """``rng._randbelow(n)`` of an exact ``random.Random`` (the driver's RNG of a random playout), given its bound
    ``rng.getrandbits``: the stdlib's loop (``_randbelow_with_getrandbits``), ``k`` bits drawn again while the
    value is ``n`` or more, so the same values from the same Mersenne Twister words, leaving ``rng`` in the same
    state (``getrandbits(k)`` with ``k <= 32`` takes one 32-bit word each time).

    Why: the stdlib's function reads ``self.getrandbits`` at every call, and Python 3.11 specializes no load of a C
    base class's method from an instance, so each pick paid a generic attribute lookup and a new bound method
    (docs/performance.md, Session 22). A playout binds this function to ``rng.getrandbits``, read once, with
    ``types.MethodType``: a method of one module function, which 3.11 calls through its specialized (inlined)
    call, where a closure made per playout (a new function version each time) would never be.
    tests/test_rng_picker.py checks the values and the state after against ``rng._randbelow``."""
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r
