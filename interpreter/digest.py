"""The text ``Game.digest`` hashes, built faster than one ``json.dumps`` of the whole state.

The digest is the SHA-256 of ``json.dumps([counters, zones, sorted(face_up), rng, log, decisions, status,
result, error], separators=(",", ":"), sort_keys=True)``. Digests are recorded in tests, docs and users' logs,
so that text must never change; this module only makes it cheaper to produce.

Why it was slow: a Slay the Spire state has ~15,000 counter slots (mostly per-card counters that are still at
their start value), and encoding them was most of the cost of ``liturgy simulate``'s per-game digest. Here the
counter list is cut into fixed chunks; a chunk equal to the same chunk of the ruleset's start counters reuses
that chunk's text, encoded once per ruleset and player count, and only the changed chunks are encoded.

Equality (``==``) alone would not be enough: ``True == 1`` and ``0.0 == 0`` encode differently. The shortcut is
therefore taken only when every counter is an exact ``int`` or ``str`` (what the engine stores; a saved game
edited by hand might hold anything), and the start counters must be so too; otherwise the whole list goes
through the JSON encoder, as before. The pieces are fed to one ``hashlib`` object, which hashes exactly the
bytes the single string would have held.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any

from .state import GameState

# The one encoder the digest text is defined by: json.dumps(..., separators=(",", ":"), sort_keys=True)
# text, built once and without the cycle check (game state is plain acyclic data).
DIGEST_JSON = json.JSONEncoder(separators=(",", ":"), sort_keys=True, check_circular=False)

CHUNK = 256  # counters per chunk: small enough that few chunks change, big enough that comparing is cheap
# below this many counters one JSON encoding is as fast as the shortcut (Bloodborne has ~150 counters)
MIN_COUNTERS = 4 * CHUNK
_PLAIN = frozenset((int, str))  # exact types whose equal values always encode to the same text


def reference_text(state: GameState) -> str:
    """The digest's input text, built the reference way (one JSON encoding); tests compare against it."""
    s = state
    return DIGEST_JSON.encode(
        [s.counters, s.zones, sorted(s.face_up), s.rng, s.log, s.decisions, s.status, s.result, s.error])


class CounterChunks:
    """One start counter list cut into chunks, each with its encoded text (without the brackets)."""

    __slots__ = ("size", "values", "texts")

    def __init__(self, counters: list[Any]) -> None:
        self.size = len(counters)
        plain = len(counters) >= MIN_COUNTERS and set(map(type, counters)) <= _PLAIN
        # a reference that is not plain would make ``==`` unsafe, so such a reference matches nothing;
        # neither does a short one, where the plain encoding is as fast
        self.values: list[list[Any]] = [counters[i:i + CHUNK] for i in range(0, len(counters), CHUNK)] if plain else []
        self.texts: list[str] = [DIGEST_JSON.encode(v)[1:-1] for v in self.values]

    def encode(self, counters: list[Any]) -> str | None:
        """``counters`` as JSON text, or None when the shortcut does not apply (the caller encodes it whole)."""
        if len(counters) != self.size or not self.values or not set(map(type, counters)) <= _PLAIN:
            return None
        parts = []
        lo = 0
        for ref, text in zip(self.values, self.texts, strict=True):
            chunk = counters[lo:lo + CHUNK]
            parts.append(text if chunk == ref else DIGEST_JSON.encode(chunk)[1:-1])
            lo += CHUNK
        return "[" + ",".join(parts) + "]"


def digest(state: GameState, start: CounterChunks | None) -> str:
    """The SHA-256 hex digest of :func:`reference_text` of ``state``, using ``start`` for the counters."""
    counters = start.encode(state.counters) if start is not None else None
    if counters is None:
        return hashlib.sha256(reference_text(state).encode()).hexdigest()
    s = state
    h = hashlib.sha256()
    h.update(b"[")
    h.update(counters.encode())
    # the rest of the list: "[zones,...,error]" without its "[" continues right after the counters' ","
    rest = DIGEST_JSON.encode([s.zones, sorted(s.face_up), s.rng, s.log, s.decisions, s.status, s.result, s.error])
    h.update(b",")
    h.update(rest[1:].encode())
    return h.hexdigest()
