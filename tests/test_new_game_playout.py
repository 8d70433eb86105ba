"""`new_game(..., playout=rng)` must be exactly `new_game(...).random_playout(rng)`, in one run of the step loop.

The bench and simulations of fresh games set up and play each game in that one call (docs/performance.md,
Session 24): the first choice is then picked where every later one is (in place by the fused code, or at the
suspension by the step loop), not by ``random_playout`` after ``new_game`` returned. The game, its save, its log,
its step count (to the step limit's last instruction) and the driver's ``Random`` afterwards must all be the same.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from conftest import ROOT, compiled_in, load_ruleset
from liturgy.interpreter.engine import Game, Ruleset

CLASSIC = ROOT / "rulesets" / "classic"


def _both(rules: Ruleset, players: int, seed: int, check: bool, rng: Any = None) -> list[tuple[Any, ...]]:
    """What each way of playing game ``seed`` leaves: decisions, digest, save, status, error, steps, driver."""
    runs = []
    for one in (False, True):
        r = random.Random(seed * 31 + 1) if rng is None else rng(seed)
        if one:
            game = rules.new_game(players, seed, check, playout=r)
            made = len(game.state.decisions)
        else:
            game = rules.new_game(players, seed, check)
            made = game.random_playout(r)
        s = game.state
        assert s.pick is None  # the playout's picker is not left on the state
        runs.append((made, game.digest(), json.dumps(game.to_json(), sort_keys=True), s.status, s.error, s.steps,
                     r.getstate()))
    return runs


@pytest.mark.parametrize("stem", ["kuhn_poker", "goofspiel"])  # a `choose` first; a simultaneous choice first
@pytest.mark.parametrize("mode", [{}, {"fuse": False}], ids=["fused", "unfused"])
def test_a_new_game_played_in_one_call_is_the_same_game(stem: str, mode: dict[str, bool]) -> None:
    rules = compiled_in(str(CLASSIC / f"{stem}.rules"), **mode)
    for seed in range(4):
        for check in (False, True) if seed < 2 else (False,):
            runs = _both(rules, 2, seed, check)
            assert runs[0] == runs[1], (stem, mode, seed, check)
            assert runs[0][3] == "finished" and runs[0][0] > 0


class _Sevens(random.Random):
    """A driver whose ``randrange`` is its own: the picks must come from it, as ``random_playout``'s do."""

    def randrange(self, start: int, stop: Any = None, step: int = 1) -> int:  # type: ignore[override]
        return (self.getrandbits(7) * 7) % start


def test_a_driver_with_its_own_randrange_is_asked_as_random_playout_asks_it() -> None:
    rules = load_ruleset(str(CLASSIC / "kuhn_poker.rules"))
    for seed in range(3):
        runs = _both(rules, 2, seed, False, rng=_Sevens)
        assert runs[0] == runs[1]


def test_the_step_limit_stops_both_at_the_same_instruction() -> None:
    """Every limit from the set-up's first steps to the game's length: the same abort, or the same finish."""
    rules = load_ruleset(str(CLASSIC / "kuhn_poker.rules"))
    needed = rules.new_game(2, 7, playout=random.Random(7)).state.steps
    saved = rules.step_limit
    try:
        for limit in range(1, needed + 1):
            rules.step_limit = limit
            runs = _both(rules, 2, 7, False, rng=random.Random)
            assert runs[0] == runs[1], limit
            assert runs[0][3] == ("finished" if limit == needed else "aborted"), limit
    finally:
        rules.step_limit = saved


def test_new_game_sets_what_game_init_sets() -> None:
    """``new_game`` makes its ``Game`` without the class call: the same attributes, in the same order."""
    rules = load_ruleset(str(CLASSIC / "kuhn_poker.rules"))
    for check in (False, True):
        game = rules.new_game(2, 3, check)
        made = Game(game.ruleset, game.state, 3, check, {})  # a checked game is the noted ruleset's
        made._certified = game._certified
        assert list(vars(game)) == list(vars(made))
        assert vars(game) == vars(made)


def test_new_game_sets_what_game_state_start_sets(monkeypatch: pytest.MonkeyPatch) -> None:
    """``new_game`` writes ``GameState.start`` in (one call less a game): every slot, with the same values.

    The step loop is stubbed out so the state is compared as it is before setup runs.
    """
    from liturgy.interpreter.runtime.state import GameState

    rules = load_ruleset(str(CLASSIC / "kuhn_poker.rules"))
    monkeypatch.setattr(Game, "_advance", lambda self, pick=None: None)
    game = rules.new_game(2, 3)
    s = game.state
    made = GameState.start(*rules._templates[2], [[rules._main, 0, {}]])
    made.rng = s.rng
    for name in GameState.__slots__:
        assert getattr(s, name) == getattr(made, name), name
        assert type(getattr(s, name)) is type(getattr(made, name)), name
    template = rules._templates[2]  # copies, not the template's own lists
    assert s.counters is not template[1] and s.card_zone is not template[3]
    assert all(a is not b for a, b in zip(s.zones, template[2], strict=True))


def test_a_played_game_saves_and_loads() -> None:
    rules = load_ruleset(str(CLASSIC / "kuhn_poker.rules"))
    game = rules.new_game(2, 5, playout=random.Random(5))
    loaded = rules.load_game(json.loads(json.dumps(game.to_json())))
    assert loaded.digest() == game.digest() and loaded.state.decisions == game.state.decisions
