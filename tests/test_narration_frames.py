"""Every seat's narration over whole games of the four seed games is what it was before narration was made
cheaper (issue 32: the web page keeps to the load test's budgets; issue 34).

Why a recording: narration compares each seat's views before every log line it may see, the largest part of the
server's work per move, and every shortcut taken there (sections compared before they are walked, lighter views
of the copies, face-up names kept from the previous move) must leave every line byte for byte as it was. The
recording (tests/narration_frames.json.gz) was made with the code before those shortcuts, by
``tests/narration_frames.py``: every seat and a spectator, every state `liturgy serve` sends them, as
:meth:`Lobby.broadcast` renders it.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from narration_frames import GAMES, frames

RECORDED = Path(__file__).with_name("narration_frames.json.gz")


@pytest.mark.parametrize("name", list(GAMES))
def test_every_seat_is_told_what_it_was_told_before(name: str) -> None:
    want = json.loads(gzip.decompress(RECORDED.read_bytes()))[name]
    got = frames(name, spectators=2)
    assert sum(1 for told in want.values() for lines in told if lines) > 40  # the recording says something
    assert got.keys() == want.keys()
    for who, told in want.items():
        assert len(got[who]) == len(told), who
        for move, (a, b) in enumerate(zip(got[who], told, strict=True)):
            assert a == b, f"{name}: {who} at move {move}"
