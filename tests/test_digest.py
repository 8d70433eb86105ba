"""The fast ``Game.digest`` must hash exactly the text of the reference JSON encoding, for every game.

Digests are recorded in tests, docs and users' logs, so interpreter/digest.py may only change how the text is
built, never the text. These tests compare it with the one-``json.dumps`` reference on every shipped ruleset and
docs example (mid-game and final states, several seeds), and check the fallback for counter values the shortcut
must not trust (bools and floats compare equal to ints but encode differently).
"""
from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest
from liturgy.interpreter.digest import CHUNK, reference_text
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset

ROOT = Path(__file__).resolve().parent.parent
RULESETS = sorted(str(p) for p in (ROOT / "rulesets").rglob("*.rules")) + sorted(
    str(p) for p in (ROOT / "docs" / "examples").glob("*.rules"))


def _reference(game: Game) -> str:
    return hashlib.sha256(reference_text(game.state).encode()).hexdigest()


def _games(rules: Ruleset, seed: int) -> list[Game]:
    """A game after a few random decisions and the same game at its end."""
    players = max(rules.min_players, min(4, rules.max_players))
    game = rules.new_game(players, seed)
    rng = random.Random(seed)
    for _ in range(5):
        if game.finished:
            break
        d = game.decision
        assert d is not None
        p = d.players[0]
        game.apply(rng.randrange(d.option_count(p)), p)
    mid = game.clone()
    game.random_playout(rng)
    return [mid, game]


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: Path(p).stem)
def test_fast_digest_equals_the_reference_encoding(path: str) -> None:
    rules = load_ruleset(path)
    for seed in (1, 2, 3):
        for game in _games(rules, seed):
            assert game.digest() == _reference(game), (path, seed)


def test_slay_the_spire_combat_and_run_modes() -> None:
    rules = load_ruleset(str(ROOT / "rulesets" / "slay_the_spire.rules"))
    for mode, players in (("combat", 1), ("combat", 2), ("run", 1)):
        for seed in (4, 5):
            game = rules.new_game(players, seed, options={"mode": mode})
            start = _reference(game)
            assert game.digest() == start
            game.random_playout(random.Random(seed))
            assert game.digest() == _reference(game) != start, (mode, players, seed)


@pytest.mark.parametrize("odd", [True, False, 1.0, 0.0, -0.0, float("nan"), None, [1]])
def test_counter_values_equal_to_ints_but_encoded_otherwise_fall_back(odd: object) -> None:
    """``True == 1`` and ``0.0 == 0``: a chunk that compares equal to the start chunk may not reuse its text."""
    rules = load_ruleset(str(ROOT / "rulesets" / "slay_the_spire.rules"))
    game = rules.new_game(1, 7, options={"mode": "combat"})
    counters = game.state.counters
    assert len(counters) > 2 * CHUNK
    start = rules.digest_start(1)
    slot = next(i for i in range(CHUNK, len(counters)) if counters[i] == start.values[i // CHUNK][i % CHUNK] == 0)
    before = game.digest()
    counters[slot] = odd
    assert game.digest() == _reference(game) != before


def test_a_hand_edited_save_with_a_bool_counter_digests_like_the_reference() -> None:
    rules = load_ruleset(str(ROOT / "rulesets" / "bloodborne.rules"))
    game = rules.new_game(3, 3)
    data = json.loads(json.dumps(game.to_json()))
    slot = data["counters"].index(0)
    data["counters"][slot] = False
    loaded = rules.load_game(data)
    assert loaded.digest() == _reference(loaded) != game.digest()
