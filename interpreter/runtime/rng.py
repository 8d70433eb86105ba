"""A tiny counter-based RNG (SplitMix64) whose whole state is one integer.

The game state carries this integer, so cloning and saving a game copies one
number instead of Mersenne Twister's 625 words, and every draw is reproducible
from the seed alone on any platform.
"""

from __future__ import annotations

from bisect import bisect_right as _bisect
from collections.abc import Callable
from struct import Struct

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
# `roll(die)` re-rolls while a face says "roll again"; past this many rolls it is a rule error, not a hang
MAX_REROLLS = 1000

# range(n - 1, 0, -1) for a shuffle of n < _MADE items, made once: Python 3.11 builds a range through generic
# number arithmetic (its length), about a tenth of a small deck's shuffle (callgrind); a range is immutable
_MADE = 256
_DOWN = tuple(range(n - 1, 0, -1) for n in range(_MADE))

# A draw's index among n is ``(out * n) >> 64`` (out: SplitMix64's 64-bit output): the t for which out lies between
# the cut points ceil(t * 2**64 / n) and ceil((t + 1) * 2**64 / n), since for an integer out, ``out >= ceil(t * 2**64
# / n)`` exactly when ``out * n >= t * 2**64``. So the index is how many of the n - 1 cut points are at most out,
# ``bisect_right(_CUTS[n], out)``: one C call comparing a few integers, where the product and the shift are two
# big-integer operations, each a new object (callgrind: a 3-item shuffle 14.7 k → 14.2 k instructions). For n
# below _CUT_BELOW; tests/test_rng_cuts.py checks the cut points against the product at and around every cut
_CUT_BELOW = 17
_CUTS = tuple(tuple(-(-(t << 64) // n) for t in range(1, n)) for n in range(_CUT_BELOW))
# range(n - 1, 2, -1): a short shuffle's draws but its last two (among 3 and among 2), which shuffle() takes on
# their own; and the top bits (``>> 34``) of the two cut points among 3, written out there (tests/test_rng_shuffle.py)
_DOWN_TO_3 = tuple(range(n - 1, 2, -1) for n in range(_CUT_BELOW))
_TOP3 = (0x15555555, 0x2AAAAAAA)


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
    setup shuffles every deck), and the call and tuple per draw were about an eighth of a shuffle's time.  A list
    of more than ``_PACKED_FROM`` items takes its draws' outputs from :func:`_outputs`, all at once (the same
    numbers; a third fewer instructions for a Bloodborne game's decks), and swaps as the loop does.  An
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
    if n > _PACKED_FROM:
        # every draw's SplitMix64 output worked out at once (_outputs), then the same swaps in the same order
        outs = _outputs(state & MASK, n - 1)
        if n < _CUT_BELOW:  # the index by the cut points (_CUTS), as in the loop below
            for i, z in zip(_DOWN[n], outs, strict=True):
                j = _bisect(_CUTS[i + 1], z)
                items[i], items[j] = items[j], items[i]
        else:
            for i, z in zip(_DOWN[n] if n < _MADE else range(n - 1, 0, -1), outs, strict=True):
                j = (z * (i + 1)) >> 64
                items[i], items[j] = items[j], items[i]
        return (state + (n - 1) * GOLDEN) & MASK  # the state after n - 1 draws: each adds GOLDEN, modulo 2**64
    if n < _CUT_BELOW:
        if n < 2:
            return state
        for i in _DOWN_TO_3[n]:
            # below() inlined, constants written out (MASK, GOLDEN): a constant loads faster than a global; the
            # index ``(out * (i + 1)) >> 64`` by the cut points (_CUTS)
            state = (state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
            j = _bisect(_CUTS[i + 1], z ^ (z >> 31))
            items[i], items[j] = items[j], items[i]
        if n > 2:
            # The draw among 3 (every shuffle of 3 or more items has it): the output ``z ^ (z >> 31)`` has z's bits
            # 33..63 (``z >> 31`` is below 2**33), so its top bits ``z >> 34`` (one small integer) against the two
            # cut points' (_TOP3) decide the index, unless they equal one of them (once in 2**29 draws): then the
            # cut points decide on the whole output, as in the loop above
            state = (state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
            h = z >> 34
            if h == 0x15555555 or h == 0x2AAAAAAA:
                j = _bisect(_CUTS[3], z ^ (z >> 31))
            else:
                j = 0 if h < 0x15555555 else 1 if h < 0x2AAAAAAA else 2
            items[2], items[j] = items[j], items[2]
        # The last draw, among 2 (every shuffle of 2 or more items ends with it): its one cut point is 2**63, and
        # the output ``z ^ (z >> 31)`` has z's bit 63 (``z >> 31`` is below 2**33), so the index is ``z >> 63``,
        # without the output's shift and XOR (two new integers) and the search's call
        state = (state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        j = (((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF) >> 63
        items[1], items[j] = items[j], items[1]
        return state
    for i in _DOWN[n] if n < _MADE else range(n - 1, 0, -1):  # a longer list with the packed draws off (tests)
        state = (state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        j = ((z ^ (z >> 31)) * (i + 1)) >> 64
        items[i], items[j] = items[j], items[i]
    return state


# A shuffle of more items than this computes its draws' outputs together (_outputs); below it, one by one is cheaper
# (callgrind: even at 5 items, dearer at 4). _outputs reads the 64-bit words out of an integer's little-endian bytes
# with a little-endian struct format, the same on every machine
_PACKED_FROM = 5
# m -> _lanes(m) for the deck sizes a game shuffles, up to 255 draws (a few kilobytes each; larger decks, rarer,
# build theirs at each shuffle, in time linear in m)
_PACKS: dict[int, tuple[int, int, int, Callable[[bytes], tuple[int, ...]]]] = {}
_GAP = bytes(8)


def _lanes(m: int) -> tuple[int, int, int, Callable[[bytes], tuple[int, ...]]]:
    """For ``m`` draws, integers of ``m`` 128-bit lanes (lane k at bits 128k..128k+127): a 1 in each lane; lane k
    holding ``(k + 1) * GOLDEN`` modulo 2**64 (the k-th draw's step from the starting state); MASK in each lane; and
    the unpacking of such an integer's ``16 * m`` little-endian bytes into each lane's low 64-bit word (one C call;
    a memoryview's cast, slice and ``tolist`` were four, about 2.7 k instructions more for 12 draws, callgrind)."""
    got = _PACKS.get(m)
    if got is None:
        ones = int.from_bytes((b"\x01" + bytes(15)) * m, "little")
        steps = int.from_bytes(b"".join(((k * GOLDEN) & MASK).to_bytes(8, "little") + _GAP for k in range(1, m + 1)),
                               "little")
        got = (ones, steps, ones * MASK, Struct("<" + "Q8x" * m).unpack)
        if m < 256:
            _PACKS[m] = got
    return got


def _outputs(state: int, m: int) -> list[int]:
    """The SplitMix64 outputs of the ``m`` draws after ``state`` (0 <= state <= MASK), the k-th draw's first:
    exactly what ``m`` calls of :func:`next_state` return, computed on all draws at once.

    Why: in a Python loop each draw is fifteen operations on 64- to 128-bit integers, each a new object, and the
    loop's bytecodes around them; a Bloodborne game's set-up shuffles cost about 6 % of its instructions so.
    Here each draw's state sits in a 128-bit lane of one integer and each operation runs once over every lane:
    a lane's value stays below 2**64 between the steps (the masks), so its product with a 64-bit constant stays
    below 2**128 and never carries into the next lane, and a right shift's bits from the next lane land in the
    upper half, which the next mask clears (or, at the end, is not read). The low 64-bit word of each lane is
    then the output."""
    ones, steps, lanes, unpack = _lanes(m)
    x = (state * ones + steps) & lanes  # lane k: (state + (k + 1) * GOLDEN) mod 2**64, the k-th draw's state
    x = (((x ^ (x >> 30)) & lanes) * 0xBF58476D1CE4E5B9) & lanes
    x = (((x ^ (x >> 27)) & lanes) * 0x94D049BB133111EB) & lanes
    x ^= x >> 31
    return [*unpack(x.to_bytes(16 * m, "little"))]


def seed_state(seed: int) -> int:
    """Mix a user seed so that nearby seeds give unrelated streams.

    ``Ruleset.new_game`` writes these lines in place (one call fewer per game); a change here changes both, and
    tests/test_rng_picker.py checks that they agree."""
    # next_state inlined (one per new game); only the output is kept. A seed in 0..2**64 - GOLDEN - 1 (every seed a
    # caller counts up) takes its step without the two masks, which change nothing there
    z = seed + GOLDEN if 0 <= seed < 0x61C8864680B583EB else ((seed & MASK) + GOLDEN) & MASK
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
