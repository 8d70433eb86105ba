"""The fast ``Game.digest`` must hash exactly the text of the reference JSON encoding, for every game.

Digests are recorded in tests, docs and users' logs, so interpreter/digest.py may only change how the text is
built, never the text. These tests compare it with the one-``json.dumps`` reference on every shipped ruleset and
docs example (mid-game and final states, several seeds), and check the fallback for counter values the shortcut
must not trust (floats, non-ASCII text, escapes and integers beyond 64 bits, which orjson writes differently).
"""
from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from liturgy.dsl.frontend.includes import main_rulesets
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.runtime import digest as digestmod
from liturgy.interpreter.runtime.digest import reference_text

ROOT = Path(__file__).resolve().parent.parent
RULESETS = main_rulesets(sorted(str(p) for p in (ROOT / "rulesets").rglob("*.rules"))) + sorted(
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


CHUNK = 256  # a counter slot past Slay the Spire's first few hundred (any slot would do)


def test_slay_the_spire_combat_and_run_modes() -> None:
    rules = load_ruleset(str(ROOT / "rulesets" / "slay_the_spire.rules"))
    for mode, players in (("combat", 1), ("combat", 2), ("run", 1)):
        for seed in (4, 5):
            game = rules.new_game(players, seed, options={"mode": mode})
            start = _reference(game)
            assert game.digest() == start
            game.random_playout(random.Random(seed))
            assert game.digest() == _reference(game) != start, (mode, players, seed)


@pytest.mark.parametrize("odd", [True, False, None, [1], 2**64, -(2**63) - 1, "é", "a\\b", "tab\there", "\x7f", "\x00"])
def test_values_orjson_would_write_differently_fall_back(odd: object) -> None:
    """Non-ASCII text, escapes, DEL and integers beyond 64 bits: the digest must still hash the reference text."""
    rules = load_ruleset(str(ROOT / "rulesets" / "slay_the_spire.rules"))
    game = rules.new_game(1, 7, options={"mode": "combat"})
    before = game.digest()
    game.state.counters[CHUNK] = odd
    assert game.digest() == _reference(game) != before
    game.state.log.append((1, 1, 0, (odd,)))
    assert game.digest() == _reference(game)


@pytest.mark.parametrize("odd", [1.0, 0.0, -0.0, 1e16, 1e-7, float("nan"), float("inf")])
def test_a_state_holding_a_float_digests_like_the_reference(odd: float) -> None:
    """orjson writes some floats differently (``1e16``, ``null`` for NaN); the engine never stores one, and a save
    holding one is refused (engine/saves.py), but a state built by other means may, so a game marked as not known
    float-free is checked for floats and then digested the reference way."""
    rules = load_ruleset(str(ROOT / "rulesets" / "bloodborne.rules"))
    game = rules.new_game(3, 3)
    game.random_playout(random.Random(3))
    for where in ("counters", "log", "result"):
        edited = game.clone()
        s = edited.state
        if where == "counters":
            s.counters[s.counters.index(0)] = odd
        elif where == "log":
            s.log.append((1, 1, 0, (odd,)))
        else:
            assert s.result is not None
            s.result = {**s.result, "rounds": odd}
        edited.float_free = None
        twin = edited.clone()
        assert edited.digest() == _reference(edited) != game.digest(), where
        assert edited.float_free is False and twin.digest() == edited.digest() and twin.float_free is False


@pytest.mark.parametrize("odd", [1.0, 1e16, float("nan"), float("inf"), False])
@pytest.mark.parametrize("where", ["counters", "log", "result"])
def test_a_save_holding_an_edited_value_is_refused(odd: Any, where: str) -> None:
    """A save is replayed, and a value its decisions do not produce (even ``1.0`` for ``1``) refuses it."""
    rules = load_ruleset(str(ROOT / "rulesets" / "bloodborne.rules"))
    game = rules.new_game(3, 3)
    game.random_playout(random.Random(3))
    data = json.loads(json.dumps(game.to_json()))
    assert rules.load_game(data).digest() == game.digest()
    edited = json.loads(json.dumps(data))
    if where == "counters":
        edited["counters"][edited["counters"].index(1)] = odd
    elif where == "log":
        edited["log"].append([1, 1, 0, [odd]])
    else:
        edited["result"]["rounds"] = odd
    with pytest.raises(ValueError, match=f"its `{where}` is not what its own decisions lead to"):
        rules.load_game(edited)


def test_without_orjson_the_reference_encoder_gives_the_same_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = load_ruleset(str(ROOT / "rulesets" / "bloodborne.rules"))
    game = rules.new_game(4, 5)
    game.random_playout(random.Random(5))
    fast = game.digest()
    assert digestmod.fast_text(game.state) is not None  # the fast path was taken above
    monkeypatch.setattr(digestmod, "orjson", None)
    assert digestmod.fast_text(game.state) is None
    assert game.digest() == fast == _reference(game)


def test_a_state_with_a_bool_counter_digests_like_the_reference() -> None:
    rules = load_ruleset(str(ROOT / "rulesets" / "bloodborne.rules"))
    game = rules.new_game(3, 3)
    edited = game.clone()
    edited.state.counters[edited.state.counters.index(0)] = False
    edited.float_free = None
    assert edited.digest() == _reference(edited) != game.digest()
