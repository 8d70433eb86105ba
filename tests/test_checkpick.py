"""A checked random playout's choices picked in the generated code after the check (interpreter/engine/checkpick.py).

The noted code (what checked games run) writes a choice's pending decision, asks ``state.pick`` for the picker,
which checks the invariants first, and picks in place; a failed check leaves the text's suspension to the engine,
which raises its outcome. The old path is the same game played by ``Game.playout`` (no in-place picks: every
choice suspends, the engine checks, then picks with the same draws): both must agree on everything, also where an
invariant fails at a choice or the check itself raises, and the check must run the same evaluations.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Game, Ruleset
from liturgy.interpreter.engine.checkpick import CheckedPicks
from liturgy.interpreter.engine.game import uniform_picker

RULES = """game "Checked picks" { players 2..3
 step_limit 100000 }
enum Move { low, high }
counter per player pts
counter rounds
counter passes
option cap: int 1..99 = 99
invariant "under the cap": all(p.pts < cap for p in players)
proc act(p: player) {
  choose m from Move by p {
    if m == high { p.pts += 2 } else { p.pts += 1 }
  }
}
round {
  step s "S" {
    rounds += 1
    for p in players { do act(p) }
    for p in players {
      choose k from [q for q in [1, 2, 3, 4] where q > rounds] by p optional "pass" {
        p.pts += k
      } otherwise { passes += 1 }
    }
    simultaneously p in players choose c from [1, 2, 3] {
      p.pts += c
    }
    simultaneously k in [1, 2] choose x from [0, 1] by players[0] {
      players[0].pts += x
    }
    if rounds >= 4 { end game }
  }
}
score(p) = p.pts
"""


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> Ruleset:
    path = tmp_path_factory.mktemp("checkpick") / "checkpick.rules"
    path.write_text(RULES)
    program, diags = check_file(str(path))
    assert program is not None and diags == []
    return Ruleset(program)


def _old(game: Game, rng: random.Random) -> None:
    """The engine's picks at each suspension, after its check (``state.pick`` stays None)."""
    game.playout(uniform_picker(rng))


def _new(game: Game, rng: random.Random) -> None:
    game.random_playout(rng)


def _run(rules: Ruleset, players: int, seed: int, play: Callable[[Game, random.Random], None] | None,
         cap: int | None = None) -> tuple[object, ...]:
    rng = random.Random(seed)
    options = {"cap": str(cap)} if cap is not None else None
    if play is None:  # set up and played in one call
        game = rules.new_game(players, seed, True, options, playout=rng)
    else:
        game = rules.new_game(players, seed, True, options)
        play(game, rng)
    s = game.state
    assert s.pick is None  # the picker is the playout's alone
    return (game.digest(), s.status, game.error, s.steps, s.decisions, s.log, rng.random(), game.fields())


def test_a_violation_at_a_picked_choice_stops_the_game_as_before(rules: Ruleset,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Same digest, error, steps, decisions, log, save and draws as the engine's picks; the cap is passed at
    choices of every kind picked in place (the fused code's check fails there), and some games finish under it."""
    failed: set[tuple[object, ...]] = set()
    outcome = CheckedPicks.outcome

    def spied(self: CheckedPicks) -> list[tuple[str, str]]:
        pend = self.game.state.pending  # written by the fused text's suspension after its check failed
        if self.failed is not None and pend is not None:
            failed.add((pend[0], pend[0] == "choose" and None in pend[2]))
        return outcome(self)

    monkeypatch.setattr(CheckedPicks, "outcome", spied)
    errors = set()
    for cap in (11, 20, 60):
        for players in (2, 3):
            for seed in range(4):
                old = _run(rules, players, seed, _old, cap)
                errors.add(old[2])
                assert _run(rules, players, seed, _new, cap) == old, (cap, players, seed)
                assert _run(rules, players, seed, None, cap) == old, (cap, players, seed)
    assert None in errors and any(e and "under the cap" in e for e in errors), errors
    assert failed == {("choose", False), ("choose", True), ("simul", False)}, failed


def test_the_check_runs_once_a_choice_and_its_exception_is_the_engines(rules: Ruleset) -> None:
    """The invariant's evaluations are the engine's, one a check, in order: its n-th evaluation raising a plain
    exception (not a rule error: it passes the check) stops the game exactly where it stopped it before (the
    fused code keeps it for the engine, which raises it at the suspension)."""
    invs = rules.compiled.invariants  # shared with the noted variant (Ruleset.noted)
    text, fn, outside = invs[0]
    calls = [0, 0]  # evaluations, and the one that raises

    def counted(s: Any, env: dict[str, Any]) -> Any:
        calls[0] += 1
        if calls[0] == calls[1]:
            raise ZeroDivisionError("the n-th evaluation")
        return fn(s, env)

    invs[0] = (text, counted, outside)
    try:
        for at in (0, 3, 7, 12):
            seen = []
            for play in (_old, _new, None):
                calls[:] = [0, at]
                seen.append((_run(rules, 3, 1, play), calls[0]))
            assert seen[1] == seen[0] and seen[2] == seen[0], at
            assert (at and "the n-th evaluation" in str(seen[0][0][2])) or seen[0][0][1] == "finished"
    finally:
        invs[0] = (text, fn, outside)


def test_only_the_choice_with_units_suspends_in_a_checked_playout(rules: Ruleset) -> None:
    """The generated code returns True (suspended) only at the `by` choice: every other choice was checked and
    picked where it stands."""
    rules.new_game(2, 0, check_invariants=True).random_playout(random.Random(0))  # traced and compiled first
    game = rules.new_game(2, 0, check_invariants=True)
    seen: list[str] = []

    def spy(frame: FrameType, event: str, arg: Any) -> None:
        if event == "return" and arg is True and frame.f_code.co_filename.startswith("<liturgy fused"):
            pend = game.state.pending
            assert pend is not None
            seen.append(pend[0])

    sys.setprofile(spy)
    try:
        game.random_playout(random.Random(0))
    finally:
        sys.setprofile(None)
    assert game.state.decisions and set(seen) <= {"simul"} and len(seen) < len(game.state.decisions) // 4


ABSENT = '''game "Late" {
  players 1..4
  absent_while waiting
}
flag per player waiting
counter per player points
setup {
  for p in seats where p != seats[0] { p.waiting = true }
}
round {
  step s "S" {
    for p in seats {
      choose x from [1, 2] by p { p.points += x }
    }
    if round >= 4 { end game }
  }
}
score(p) = p.points
'''


def test_an_absent_seat_asked_at_a_picked_choice_stops_the_game_as_before(tmp_path: Any) -> None:
    """With `absent_while`, the check reads who the pending decision asks: the noted code writes the decision
    before its check there, and the check stops the game at P2's choice (reached after P1's body, in the fused
    code) exactly as the engine's check at the suspension did."""
    path = tmp_path / "late.rules"
    path.write_text(ABSENT)
    program, diags = check_file(str(path))
    assert program is not None and diags == []
    rules = Ruleset(program)
    for seed in range(3):
        old = _run(rules, 3, seed, _old)
        assert "P2 is asked" in str(old[2])
        assert _run(rules, 3, seed, _new) == old and _run(rules, 3, seed, None) == old, seed
