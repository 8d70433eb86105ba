"""Choices at a fused path's head, and choices whose text does not fit, picked in place (codegen/fusewalk.py ``stop``).

A `choose` or `simultaneously` the engine reaches first in a call (a path's head: after an optional choice's pass,
after a callee's return, where a path was cut) used to be the step machine's own instruction, which suspends in
every game; so was one a fused function met with its text past the function's budget, which it called. In a
playout both now pick in place: the head gets a fused function of the choice alone (its text with the pick,
codegen/fusepick.py), and a choice that does not fit ends the path before it, so that the engine calls that
function. The game must be the single-stepped apply loop's in every compile mode, checked or not, under every step
limit, with the same views at every decision of an apply loop, and a violation at such a choice must stop the game
as the engine's own check did.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.codegen import fusewalk
from liturgy.interpreter.engine import Game, Ruleset
from liturgy.interpreter.engine.game import uniform_picker

from tests.mode_helpers import MODES

# P1's pass jumps to the `simultaneously` (a head), P2's to the `choose … otherwise` (a head that may find no
# option); the `by` choice keeps suspending (its units wait for the engine's pick)
RULES = """game "Head picks" { players 2..3
 step_limit 100000 }
counter per player pts
counter rounds
counter passes
option cap: int 1..999 = 999
invariant "under the cap": all(p.pts < cap for p in players)
round {
  step s "S" {
    rounds += 1
    passes += rounds - rounds
    players[1].pts += 1
    choose k from [1, 2] by players[0] optional "pass" { players[0].pts += k }
    simultaneously p in players choose c from [1, 2, 3] {
      p.pts += c
    }
    choose j from [1, 2] by players[1] optional "pass" { players[1].pts += j }
    choose z from [q for q in [1, 2, 3] where q > rounds] by players[0] { passes += z } otherwise { passes += 1 }
    simultaneously k in [1, 2] choose x from [0, 1] by players[0] { players[0].pts += x }
    if rounds >= 5 { end game }
  }
}
score(p) = p.pts
"""


@pytest.fixture(scope="module")
def path(tmp_path_factory: pytest.TempPathFactory) -> str:
    where = tmp_path_factory.mktemp("headpicks") / "headpicks.rules"
    where.write_text(RULES)
    return str(where)


def _compile(path: str, **mode: bool) -> Ruleset:
    program, diags = check_file(path)
    assert program is not None and diags == []
    return Ruleset(program, **mode)


@pytest.fixture(scope="module")
def made(path: str) -> dict[str, Ruleset]:
    """Every compile mode's ruleset (tests/mode_helpers.py), and one whose fused functions' budget of written-in
    lines is too small for a choice's text after other instructions (the compile cache off: those texts are this
    compile's alone)."""
    rules = {repr(mode): _compile(path, **mode) for mode in MODES}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LITURGY_CACHE", "off")
        # the longest choice text here (15 lines) fits at a head; P1's first choice, after the last round's
        # `by` choice and the round's start, does not
        patch.setattr(fusewalk, "MAX_INLINE_LINES", 15)
        tight = _compile(path)
        for seed in range(3):  # every entry these games reach traced under the patched budget
            tight.new_game(3, seed).random_playout(random.Random(seed))
            tight.new_game(3, seed, True).random_playout(random.Random(seed))
    rules["tight"] = tight
    return rules


def _loop(game: Game, rng: random.Random) -> list[object]:
    """The apply loop; every seat's view at every decision."""
    views: list[object] = []
    while not game.finished:
        waiting = game.waiting_for()
        views.append([game.view(p) for p in range(game.players)])
        for p in waiting:
            game.apply(rng.randrange(game.option_count(p)), p)
    return views


def _run(rules: Ruleset, players: int, seed: int, play: Callable[[Game, random.Random], object],
         check: bool = False, cap: int | None = None) -> tuple[object, ...]:
    options = {"cap": str(cap)} if cap is not None else None
    game = rules.new_game(players, seed, check, options)
    rng = random.Random(seed)
    play(game, rng)
    s = game.state
    assert s.pick is None
    logs = [game.log_lines(v) for v in (None, *range(players))]
    return (game.digest(), s.status, game.error, s.steps, s.decisions, logs, rng.random(), game.fields())


def _old(game: Game, rng: random.Random) -> None:
    """The engine's picks at each suspension (``state.pick`` stays None: no choice is picked in place)."""
    game.playout(uniform_picker(rng))


def test_every_mode_plays_the_apply_loops_game(made: dict[str, Ruleset]) -> None:
    """Same digest, status, steps, decisions, logs for everyone, draws and save as the single-stepped apply loop,
    checked or not, in every compile mode and with the tight budget; the same views at every decision."""
    plain = made[repr({"fuse": False})]
    for players in (2, 3):
        for seed in range(3):
            looped: list[object] = []
            loop = _run(plain, players, seed, lambda g, r, out=looped: out.append(_loop(g, r)))
            for name, rules in made.items():
                assert _run(rules, players, seed, Game.random_playout) == loop, (name, players, seed)
                assert _run(rules, players, seed, Game.random_playout, True) == loop, (name, players, seed)
            for name in ("{}", "tight"):
                views: list[object] = []
                assert _run(made[name], players, seed, lambda g, r, out=views: out.append(_loop(g, r))) == loop
                assert views == looped, (name, players, seed)


@pytest.mark.parametrize("name", ["{}", "tight"])
@pytest.mark.parametrize("check", [False, True])
def test_only_the_choice_with_units_suspends(made: dict[str, Ruleset], name: str, check: bool) -> None:
    """In a playout the generated code returns True (suspended) only at the `by` choice: the choices at a head
    have fused functions of their own that pick, and with the tight budget the choices after a long path are
    left to them."""
    rules = made[name]
    game = rules.new_game(3, 1, check)
    seen: list[tuple[str, int]] = []
    pends: list[object] = []

    def spy(frame: FrameType, event: str, arg: Any) -> None:
        if event == "return" and arg is True and frame.f_code.co_name.startswith(("_fused", "_collect", "_choose")):
            pend = game.state.pending
            assert pend is not None
            if not pends or pends[-1] is not pend:  # (a fused function returns the choice's True it called)
                pends.append(pend)
                seen.append((pend[0], len(pend[1]) if pend[0] == "simul" else 0))

    sys.setprofile(spy)
    try:
        game.random_playout(random.Random(1))
    finally:
        sys.setprofile(None)
    assert game.finished and seen == [("simul", 2)] * 5
    compiled = (rules.noted() if check else rules).compiled
    main = compiled.main
    assert main is not None
    heads = [pc for pc, fn in enumerate(main.fast) if getattr(fn, "__name__", "").startswith("_fused")
             and compiled.ins_info[id(main.ins[pc])][1] == "stop"]
    # the two choices a pass jumps to; with the tight budget, P1's first choice too (the path from the last round
    # leaves before it)
    assert len(heads) == (3 if name == "tight" else 2), heads


def test_a_violation_at_a_head_choice_stops_the_game_as_before(made: dict[str, Ruleset]) -> None:
    """The cap passed at choices picked in place at a head: the same game, error and steps as the engine's check
    and picks at every suspension."""
    errors = set()
    for name in ("{}", "tight"):
        for cap in (5, 12, 40):
            for seed in range(3):
                old = _run(made[name], 3, seed, _old, True, cap)
                errors.add(old[2])
                assert _run(made[name], 3, seed, Game.random_playout, True, cap) == old, (name, cap, seed)
    assert None in errors and any(e and "under the cap" in e for e in errors), errors


def test_every_step_limit_stops_where_the_apply_loop_stops(made: dict[str, Ruleset]) -> None:
    plain, rules = made[repr({"fuse": False})], made["{}"]
    total = _run(plain, 2, 2, _loop)[3]
    assert isinstance(total, int)
    try:
        for limit in range(1, total + 2, 2):
            rules.step_limit = plain.step_limit = limit
            assert _run(rules, 2, 2, Game.random_playout) == _run(plain, 2, 2, _loop), limit
    finally:
        rules.step_limit = plain.step_limit = 100000
