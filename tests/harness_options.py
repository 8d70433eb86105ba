"""The short variants long games declare as ordinary `option`s, for tests that play many whole games.

Fury of Dracula (`length=skirmish`: the game ends at the first new day) and Betrayal (`length=quick`: the
first omen starts the haunt, the game ends a round later) play every rule in a fraction of a full game. The
tests that compare compile modes play seed 0 in full and the other seeds in the short variant, so the suite
stays within CI's budget while each full game is still covered.
"""

from __future__ import annotations

from pathlib import Path

HARNESS_OPTIONS: dict[str, dict[str, str]] = {
    "fury_of_dracula.rules": {"length": "skirmish"},
    "betrayal.rules": {"length": "quick"},
}


def short_options(path: str | Path, seed: int) -> dict[str, str] | None:
    """The options for game ``seed`` of ``path`` in a multi-seed test: the full game for seed 0."""
    return None if seed == 0 else HARNESS_OPTIONS.get(Path(path).name)
