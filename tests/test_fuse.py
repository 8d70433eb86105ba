"""Fused step-machine instructions (interpreter/fuse.py) must be invisible: same steps, saves and errors.

Every shipped ruleset and docs example is played with and without fusion; after every decision the
step count and the whole saved game (frames and their pcs included) must be equal, and so must the
digest, status and error at the end. Then the same games run under step limits placed just before,
at and after where they would otherwise end, and at every offset near a multiple of the fused span
(where the engine switches from fused calls to single steps): the limit error must come at the same
step, with the same message and the same saved state.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import orjson
import pytest
from conftest import ROOT, compiled_in, load_ruleset
from harness_options import short_options
from liturgy.dsl.frontend.includes import main_rulesets
from liturgy.interpreter.engine import Game, Ruleset

RULESETS = main_rulesets(sorted(str(p) for p in (ROOT / "rulesets").rglob("*.rules"))) + sorted(
    str(p) for p in (ROOT / "docs" / "examples").glob("*.rules"))


def _unfused(path: str) -> Ruleset:
    """The ruleset compiled without fusion, once per process (conftest's shared copy, which test_pending.py's
    unfused games use too): three tests of this file compare it, and compiling a large game (Slay the Spire,
    Betrayal) costs 1-2 s of CPU each time. The tests leave it as they found it (a step limit set for one run is
    restored in ``finally``)."""
    return compiled_in(path, fuse=False)


def _pair(path: str) -> tuple[Ruleset, Ruleset]:
    """(fused, unfused). The fused one is the default compile, ``load_ruleset``'s, so it is conftest's shared copy:
    a warm copy that other tests have played must still play exactly like the unfused one."""
    fused = load_ruleset(path)
    assert fused.compiled.fuse and fused.compiled.sgen is not None  # the default compile fuses
    return fused, _unfused(path)


def _saved(game: Game) -> bytes | str:
    """The whole saved game as JSON text with sorted keys: what is compared, fused against unfused, after every
    decision. orjson (a dependency of the package) writes it several times faster than ``json.dumps``, which was
    three quarters of these games' CPU; a save orjson refuses (an integer past 64 bits, a key that is not a text)
    is written by ``json`` as before."""
    data = game.to_json()
    try:
        return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return json.dumps(data, sort_keys=True)


def _play(rules: Ruleset, players: int, seed: int, check: bool,
          options: dict[str, str] | None = None) -> tuple[Game, list[tuple[int, bytes | str]]]:
    game = rules.new_game(players, seed, check_invariants=check, options=options)
    rng = random.Random(seed)
    seen = [(game.state.steps, _saved(game))]
    while not game.finished:
        for p in game.waiting_for():
            game.apply(rng.randrange(game.option_count(p)), p)
            seen.append((game.state.steps, _saved(game)))
    return game, seen


def _record(rules: Ruleset, players: int, seed: int, check: bool) -> tuple[Any, ...]:
    """A whole apply-loop game as the fused-against-unfused tests compare it: every save, the digest, status,
    error and step count."""
    game, seen = _play(rules, players, seed, check)
    return seen, game.digest(), game.state.status, game.error, game.state.steps


def _generated_calls(rules: Ruleset, players: int, seeds: range) -> tuple[int, int]:
    """(generated functions the step loop called, decisions) over random playouts of ``seeds``, after three
    untimed games (which trace and compile): how many fused calls a decision takes."""
    for seed in range(3):
        rules.new_game(players, seed).random_playout(random.Random(seed))
    calls = decisions = 0

    def spy(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal calls
        back = frame.f_back
        if event == "call" and back is not None and back.f_code.co_name == "_advance":
            calls += frame.f_code.co_filename.startswith("<liturgy fused")

    for seed in seeds:
        game = rules.new_game(players, seed)
        before = len(game.state.decisions)
        sys.setprofile(spy)
        try:
            game.random_playout(random.Random(seed))
        finally:
            sys.setprofile(None)
        decisions += len(game.state.decisions) - before
    return calls, decisions


def _clone_midway(rules: Ruleset, players: int, seed: int, moves: int) -> tuple[Game, Game]:
    """The game after ``moves`` seeded decisions (fewer if it ends), and its clone, checked equal by its save."""
    game = rules.new_game(players, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.finished:
            break
        p = game.waiting_for()[0]
        game.apply(rng.randrange(game.option_count(p)), p)
    copy = game.clone()
    assert copy.to_json() == game.to_json()
    return game, copy


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: Path(p).stem)
def test_fused_and_single_stepped_games_are_the_same(path: str) -> None:
    fused, plain = _pair(path)
    players = max(fused.min_players, min(4, fused.max_players))
    for seed in range(6):
        runs = []
        for rules in (fused, plain):
            game, seen = _play(rules, players, seed, check=seed % 2 == 0, options=short_options(path, seed))
            runs.append((seen, game.digest(), game.state.status, game.error))
        assert runs[0] == runs[1], (path, seed)


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: Path(p).stem)
def test_step_limit_errors_are_the_same_fused(path: str) -> None:
    fused, plain = _pair(path)
    span = fused.compiled.fuse_span
    players = max(fused.min_players, min(4, fused.max_players))
    short = short_options(path, 1)  # the short variant: many limits, each a whole game per compile mode
    game, _ = _play(plain, players, 0, check=False, options=short)
    total = game.state.steps
    limits = {1, 2, span - 1, span, span + 1, 3 * span + 1, total // 3, total // 2, total - 1, total, total + 1}
    limits |= {total - span + d for d in range(-2, 3)}
    for limit in sorted(x for x in limits if x > 0):
        runs = []
        for rules in (fused, plain):
            rules.step_limit = limit
            try:
                game, seen = _play(rules, players, 0, check=False, options=short)
            finally:
                rules.step_limit = rules.program.game.step_limit
            runs.append((seen, game.digest(), game.state.status, game.error, game.state.steps))
        assert runs[0] == runs[1], (path, limit)


@pytest.mark.parametrize("stem", ["bloodborne", "slay_the_spire", "goofspiel"])
def test_random_playouts_are_the_same_fused(stem: str) -> None:
    path = next(p for p in RULESETS if Path(p).stem == stem)
    fused, plain = _pair(path)
    assert fused.compiled.fuse_span > 0  # these rulesets do get fused instructions
    players = max(fused.min_players, min(4, fused.max_players))
    for seed in range(4):
        runs = []
        for rules in (fused, plain):
            game = rules.new_game(players, seed)
            rng = random.Random(seed)
            n = game.random_playout(rng)
            runs.append((n, game.state.steps, game.digest(), game.error, rng.random()))
        assert runs[0] == runs[1], (stem, seed)


def test_runs_too_deep_to_write_in_are_called(write_ruleset: Callable[..., str], monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    """A statement run whose own loops nest 20 deep compiles alone but not inside a fused function's `try`:
    the fuser writes that function again calling the run, and the game is the same as unfused."""
    from liturgy.interpreter.codegen import fuse, fusewalk

    loops = "".join(f"for x{i} in [1] {{ " for i in range(20)) + "n += 1" + " }" * 20
    path = write_ruleset('game "G" { players 2..2 }\ncounter n\nround { step s "S" {\n'
                         '  choose d from [1, 2] by players[0] { n += d }\n'
                         f'  if n > 0 {{ {loops} }} else {{ n += 5 }}\n  if n > 30 {{ end game }}\n}} }}\n'
                         'score(p) = n\n')
    traces: list[bool] = []
    init = fusewalk.Trace.__init__

    def spy(self: Any, *args: Any, **kw: Any) -> None:
        init(self, *args, **kw)
        traces.append(self.inline)

    monkeypatch.setattr(fusewalk.Trace, "__init__", spy)
    monkeypatch.setattr(fuse, "MAX_RUN_LINES", 1000)  # the run is long (two lines a loop): not too long here
    fused, plain = _pair(path)
    assert fused.compiled.fuse_span > 1
    for seed in range(3):
        runs = []
        for rules in (fused, plain):
            game, seen = _play(rules, 2, seed, check=True)
            runs.append((seen, game.digest(), game.state.status, game.error))
        assert runs[0] == runs[1] and runs[0][2] == "finished"
    assert False in traces  # the function was compiled when first run, and fell back to calling its runs


def test_written_in_runs_keep_errors_and_counts(write_ruleset: Callable[..., str]) -> None:
    """A rule error raised by a statement written into a fused function leaves the same step count, pc and
    message as the called run: here the third run of a fused path divides by zero on some seeds."""
    path = write_ruleset('game "G" { players 2..2\n step_limit 100000 }\ncounter n\ncounter m\nround { step s "S" {\n'
                         '  choose d from [0, 1, 2] by players[0] { n += d }\n'
                         '  m += 1\n  if n > 4 { m += 2 } else { m += 3 }\n'
                         '  let q = 12 / (n - 3)\n  m += q\n  if m > 40 { end game }\n} }\nscore(p) = m\n')
    fused, plain = _pair(path)
    errors = 0
    for seed in range(12):
        runs = []
        for rules in (fused, plain):
            game, seen = _play(rules, 2, seed, check=False)
            runs.append((seen, game.digest(), game.state.status, game.error, game.state.steps))
        assert runs[0] == runs[1], seed
        errors += runs[0][2] == "aborted"
    assert errors  # some seeds do reach the division by zero


def test_a_loop_with_a_calling_turn_keeps_the_same_steps_and_limits(write_ruleset: Callable[..., str],
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A `for` whose body may call a `proc` that chooses, and whose other turns do not call: the fused code runs
    some turns in one call (fuse's loop turns and calls through `do`). Step counts, saves and the step-limit error
    at every limit through the game are those of single-stepping."""
    from liturgy.interpreter.tools.cli import main

    items = ", ".join(str(i) for i in range(1, 31))
    path = write_ruleset('game "G" { players 2..2 }\ncounter n\ncounter m\n'
                         'proc bump(k: int) { choose e from [1, 2] by players[1] { m += k + e } }\n'
                         'round { step s "S" {\n'
                         '  choose d from [1, 2, 3] by players[0] { n += d }\n'
                         f'  for x in [{items}] {{\n    if x == n {{ do bump(x) }} else {{ m += 1 }}\n  }}\n'
                         '  if m > 200 { end game }\n} }\nscore(p) = m\n')
    assert main(["dump", path]) == 0
    assert "_fused" in capsys.readouterr().out  # the loop's turns are fused
    fused, plain = _pair(path)
    game, _ = _play(plain, 2, 0, check=False)
    total = game.state.steps
    assert total > 100
    for limit in [*range(1, 80), *range(total - 70, total + 2)]:
        runs = []
        for rules in (fused, plain):
            rules.step_limit = limit
            try:
                game, seen = _play(rules, 2, 0, check=False)
            finally:
                rules.step_limit = rules.program.game.step_limit
            runs.append((seen, game.digest(), game.state.status, game.error, game.state.steps))
        assert runs[0] == runs[1], limit
    for seed in range(4):
        runs = []
        for rules in (fused, plain):
            game, seen = _play(rules, 2, seed, check=seed % 2 == 1)
            runs.append((seen, game.digest(), game.state.status, game.error))
        assert runs[0] == runs[1] and runs[0][2] == "finished", seed
