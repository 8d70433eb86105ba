"""The observation vector read from the state (interop/stateenc.py) is the one :meth:`ViewEncoder.encode` makes of
the view, byte for byte, for every seat and a spectator at every state of random games: the four seed rulesets,
the classics, the documentation's examples (grids, graphs, typed and enum-indexed counters, group visibility)
and two small rulesets with `size hidden` zones and counters `visible to` a group.

Why byte for byte: the adapters now encode from the state, and the view-based encoder stays as the reference,
the one that reads only what :meth:`Game.view` shows (so equal vectors mean nothing hidden is encoded).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import LARGE, sized
from liturgy.dsl.frontend.includes import main_rulesets
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.interop.common import ViewEncoder, cached_ruleset
from liturgy.interpreter.interop.stateenc import encode_state
from test_viewdelta import GROUPS, SIZE_HIDDEN

pytest.importorskip("numpy")

ROOT = Path(__file__).resolve().parent.parent
PATHS = main_rulesets(sorted(str(p) for p in (ROOT / "rulesets").glob("**/*.rules"))) + sorted(
    str(p) for p in (ROOT / "docs" / "examples").glob("*.rules"))


def _compare(game: Game, seed: int, moves: int) -> int:
    """Play up to ``moves`` random decisions, comparing both encodings for every seat and a spectator at every
    state; how many vectors were compared."""
    enc = ViewEncoder(game.ruleset, game.players)
    rng = random.Random(seed)
    compared = 0
    for step in range(moves + 1):
        for me in [*range(game.players), None]:
            want = enc.encode(game.view(me, log_from=len(game.state.log)), me)  # (the log is not encoded)
            got = encode_state(enc, game, me)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert got.tobytes() == want.tobytes(), (step, me, (got != want).nonzero()[0][:10])
            compared += 1
        waiting = game.waiting_for()
        if game.finished or not waiting:
            break
        p = rng.choice(waiting)
        game.apply(rng.randrange(game.option_count(p)), p)
    return compared


@pytest.mark.parametrize("path", PATHS, ids=[str(Path(p).relative_to(ROOT)) for p in PATHS])
def test_the_state_encoding_is_the_view_encoding(path: str) -> None:
    rules = cached_ruleset(path)
    large = Path(path).name in LARGE
    counts = sorted({rules.min_players, min(rules.max_players, 4)})
    for seed, players in enumerate(counts):
        game = rules.new_game(players, seed=seed)
        assert _compare(game, seed, sized(30, 200) if large else 300) > players  # a large game's state: ~10 ms


@pytest.mark.parametrize("text,players", [(SIZE_HIDDEN, 2), (GROUPS, 3)], ids=["size_hidden", "groups"])
def test_hidden_sizes_and_group_visibility(tmp_path: Path, text: str, players: int) -> None:
    (tmp_path / "cards.yaml").write_text("kind: Gem\nstart: pile\ncards:\n  - name: Ruby\n    count: 6\n"
                                         "  - name: Opal\n    count: 6\n", encoding="utf-8")
    path = tmp_path / "g.rules"
    path.write_text(text, encoding="utf-8")
    # (a random game may end at once, by a rule error: `show` from an empty hand; that state is compared too)
    assert sum(_compare(load_ruleset(str(path)).new_game(players, seed=seed), seed, 60) for seed in range(6)) > 30
