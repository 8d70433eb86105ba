"""The text ``Game.digest`` hashes, built faster than one ``json.dumps`` of the whole state.

The digest is the SHA-256 of ``json.dumps([counters, zones, sorted(face_up), rng, log, decisions, status,
result, error], separators=(",", ":"), sort_keys=True)``. Digests are recorded in tests, docs and users' logs,
so that text must never change; this module only makes it cheaper to produce.

Why: ``liturgy simulate`` hashes every game it plays, and the standard library's encoder spent 80-95 µs on a
finished Bloodborne game (mostly its log) and ~300 µs on a Slay the Spire state (~12,000 counter slots), as
much as a tenth of a whole game. orjson writes the same compact JSON in C, 5-6 times faster.

When orjson's bytes are the reference text, and when they are not: for lists, tuples, ``int`` (and its
subclasses, such as the explicit-chance RNG script), ``bool``, ``None``, ``str`` and ``dict`` with ``str``
keys, orjson's compact output with sorted keys equals ``json.dumps(..., separators=(",", ":"), sort_keys=True)``
whenever that output is plain printable ASCII without a backslash: the standard encoder escapes every non-ASCII
character and DEL (``\\u007f``), orjson writes them raw; both escape quotes, backslashes and control characters,
but not always with the same escape, so any backslash sends the state to the reference encoder. Two cases the
bytes cannot reveal are excluded by the caller instead: floats (``1e+16`` is ``1e16`` in orjson, NaN and the
infinities become ``null``) and integers beyond 64 bits (orjson refuses them, which falls back). The engine
never stores a float; a loaded save is checked for floats at its first digest (``exact`` is False for a game
that holds one), so the fast path is only taken for states whose values are all of the kinds above.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any

from liturgy.interpreter.runtime.state import GameState

try:  # a declared dependency; the reference encoder below is the fallback, so a missing one only costs speed
    import orjson
except ImportError:  # pragma: no cover - orjson is installed with liturgy
    orjson = None  # type: ignore[assignment]

# The one encoder the digest text is defined by: json.dumps(..., separators=(",", ":"), sort_keys=True)
# text, built once and without the cycle check (game state is plain acyclic data).
DIGEST_JSON = json.JSONEncoder(separators=(",", ":"), sort_keys=True, check_circular=False)


def parts(s: GameState) -> list[Any]:
    """The digested items; cards shown to some players (`reveal … to`) are a tenth item only while there are
    any, so every game that never shows a card to a group keeps the digest it always had."""
    items = [s.counters, s.zones, sorted(s.face_up), s.rng, s.log, s.decisions, s.status, s.result, s.error]
    if s.shown:
        items.append(sorted(s.shown.items()))
    return items


def reference_text(state: GameState) -> str:
    """The digest's input text, built the reference way (one JSON encoding); tests compare against it."""
    return DIGEST_JSON.encode(parts(state))


def fast_text(state: GameState) -> bytes | None:
    """:func:`reference_text` as bytes from orjson, or None where orjson's bytes could differ from it.

    The caller must know that the state holds no float (see the module docstring).
    """
    if orjson is None:
        return None
    try:
        out = orjson.dumps(parts(state), option=orjson.OPT_SORT_KEYS)
    except TypeError:  # an integer beyond 64 bits, a dict key that is not text, an unexpected type
        return None
    if not out.isascii() or b"\\" in out or b"\x7f" in out:
        return None
    return out


def digest(state: GameState, exact: bool = True) -> str:
    """The SHA-256 hex digest of :func:`reference_text` of ``state``.

    ``exact``: the state holds no float (true of every state the engine built; :func:`has_float` tells for a
    loaded one), so orjson's bytes may be used where :func:`fast_text` vouches for them.
    """
    text = fast_text(state) if exact else None
    if text is None:
        text = reference_text(state).encode()
    return hashlib.sha256(text).hexdigest()


def has_float(value: Any) -> bool:
    """Whether a JSON-like value holds a float anywhere (a hand-edited save may; the engine never writes one)."""
    if isinstance(value, float):
        return True
    if isinstance(value, (list, tuple)):
        return any(has_float(v) for v in value)
    if isinstance(value, dict):
        return any(has_float(k) or has_float(v) for k, v in value.items())
    return False
