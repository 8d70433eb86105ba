"""A frame holds only the variables some instruction can still read (compiler/liveness.py, codegen/spill.py).

A `let` or loop variable that only the run binding it reads (``gone``, ``k`` below) never reaches ``env`` in any
compile mode, so a save at a `choose` leaves it out; one read after the `choose` (``kept``) is spilled and
survives a save, a load and a clone. An old save that still holds the dead variables loads as the same game,
and one whose live variable was edited is refused. A run that stops the game after binding a run-local variable
leaves the same frame in every mode too.
"""
from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.codegen.spill import spill
from liturgy.interpreter.compiler.liveness import liveness
from liturgy.interpreter.engine import Ruleset
from liturgy.interpreter.engine.saves import CorruptSave
from mode_helpers import MODES, compiled

SPILL = '''game "Spill" { players 2..2 }
counter total 0..100000
round {
  step s "S" {
    let kept = total + 1
    let gone = total + 2
    total += gone
    for k in range(3) { total += k }
    choose n from range(3) by players[0] { total += n + kept }
    if total > 40 { end game }
  }
}
score(p) = total
'''

# the second round's run indexes a list of three with 3: the game stops inside the run that bound ``far``
STOPS = SPILL.replace("total += gone", "let far = gone + round\n    total += [1, 2, 3][far - 2]")


def _saves(write_ruleset: Callable[..., str], text: str) -> list[tuple[Ruleset, dict[str, object]]]:
    out = []
    for mode in MODES:
        rules = compiled(write_ruleset(text), mode)
        out.append((rules, json.loads(json.dumps(rules.new_game(2, 0).to_json()))))
    return out


def test_the_analysis_finds_the_run_local_variables(write_ruleset: Callable[..., str]) -> None:
    program, _ = check_file(write_ruleset(SPILL))
    assert program is not None
    got = liveness([program.setup, *(st.body for st in program.steps)], program)
    assert got.dead == {"gone", "k"} and {"kept", "n"} <= got.live
    rules = Ruleset(program)
    assert rules.compiled.frame_dead[rules.codes[0].id] == {"gone", "k"}
    gen = rules.compiled.gen
    assert gen is not None and "env['gone']" not in gen.sources.dump() and "env['kept']" in gen.sources.dump()


def test_a_save_at_a_choose_holds_the_live_variables_only(write_ruleset: Callable[..., str]) -> None:
    saves = _saves(write_ruleset, SPILL)
    assert all(save == saves[0][1] for _, save in saves)
    frames = saves[0][1]["frames"]
    assert isinstance(frames, list) and frames[0][2] == {"kept": 1}


def test_save_load_and_clone_at_the_choose_play_on_alike(write_ruleset: Callable[..., str]) -> None:
    for rules, save in _saves(write_ruleset, SPILL):
        game = rules.load_game(save)
        twin = game.clone()
        assert game.to_json() == twin.to_json() == rules.new_game(2, 0).to_json()
        for g in (game, twin):
            while not g.finished:
                g.apply(1, 0)
        assert game.digest() == twin.digest() and game.to_json() == twin.to_json()
        assert game.result == {**(game.result or {}), "scores": [91, 91]}  # `kept` read after each choose


def test_an_old_save_with_the_dead_variables_loads(write_ruleset: Callable[..., str]) -> None:
    rules, save = _saves(write_ruleset, SPILL)[0]
    frames = save["frames"]
    assert isinstance(frames, list)
    old = {**save, "frames": [[frames[0][0], frames[0][1], {**frames[0][2], "gone": 2, "k": 2}]]}
    assert rules.load_game(old, force=True).to_json() == rules.load_game(save).to_json()
    edited = {**save, "frames": [[frames[0][0], frames[0][1], {"kept": 7, "gone": 2}]]}
    with pytest.raises(CorruptSave, match="its `frames`"):
        rules.load_game(edited, force=True)


def test_a_run_that_stops_the_game_leaves_the_same_frame_in_every_mode(write_ruleset: Callable[..., str]) -> None:
    ends = []
    for mode in MODES:
        game = compiled(write_ruleset(STOPS), mode).new_game(2, 0)
        while not game.finished:
            game.apply(0, 0)
        ends.append((game.to_json(), game.error, [f[2] for f in game.state.frames]))
    assert all(end == ends[0] for end in ends)
    assert ends[0][1] is not None and "out of range" in ends[0][1] and ends[0][2] == [{"kept": 7, "n": 0}]


PROC = '''game "Spill proc" { players 2..2 }
counter total 0..100000
proc ask() {
  let gone = total + 3
  choose n from range(2) by players[1] { total += n + gone }
}
round {
  step s "S" {
    let gone = total + 2
    total += gone
    do ask()
    if total > 40 { end game }
  }
}
score(p) = total
'''


def test_only_the_main_flow_leaves_its_dead_variables_out(write_ruleset: Callable[..., str]) -> None:
    """A suspending proc's frame keeps every variable (compiler.py ``_frame``: the main flow's only), and a load
    drops a name only from the frame of a code that proves it dead: the proc's ``gone`` (read after its `choose`)
    is kept and compared, the main flow's ``gone`` (run-local there) is not."""
    rules = compiled(write_ruleset(PROC), {})
    save = json.loads(json.dumps(rules.new_game(2, 0).to_json()))
    main, proc = save["frames"]
    assert main[2] == {} and proc[2] == {"gone": 5}
    assert rules.compiled.frame_dead[main[0]] == {"gone"} and rules.compiled.frame_dead[proc[0]] == frozenset()
    old = {**save, "frames": [[main[0], main[1], {"gone": 2}], proc]}
    assert rules.load_game(old).to_json() == rules.load_game(save).to_json()
    edited = {**save, "frames": [main, [proc[0], proc[1], {"gone": 6}]]}
    with pytest.raises(CorruptSave, match="its `frames`"):
        rules.load_game(edited)


def test_a_loop_whose_end_write_went_is_written_plainly() -> None:
    # codegen/loopvars.py's `finally` holding only the end write of a variable spill dropped names a local and
    # does nothing: the loop loses its `try` (both forms, nested), and a `finally` doing anything else stays
    body = ("    _x1 = _NOTHING\n    try:\n        for _x1 in _k2:\n            try:\n                for _E3 in _k4:\n"
            "                    _cs[_E3] = 0\n            finally:\n                env['r'] = _E3\n"
            "    finally:\n        if _x1 is not _NOTHING:\n            env['e'] = _x1\n"
            "    try:\n        _t5 = 1\n    finally:\n        _cs[2] = _t5\n")
    assert spill(body, ["e", "r"]) == ("    for _x1 in _k2:\n        for _E3 in _k4:\n            _cs[_E3] = 0\n"
                                       "    try:\n        _t5 = 1\n    finally:\n        _cs[2] = _t5\n")
