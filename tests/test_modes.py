"""Rule modes (`mode NAME { … }`, `enter` / `leave`, `active(m)`, a card field of type `mode`).

A mode's declarations are scoped to it and stored under qualified names, its handlers and steps run only while
it is active, its state exists from the start (saves, digests, clones and views cover it), and every compile
mode plays a moded game exactly like the closures. The docs example, Haunted Manor, reveals a haunt printed on
a room card; the tests play it in every compile mode and check both haunts come up.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.tools.cli import main as cli_main

ROOT = Path(__file__).resolve().parent.parent
MANOR = ROOT / "docs" / "examples" / "haunted_manor.rules"
MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]


def _trace(path: str, mode: dict[str, bool], players: int, seed: int) -> tuple[object, ...]:
    program, diags = check_file(path)
    assert program is not None, diags
    game = Ruleset(program, **mode).new_game(players, seed, check_invariants=True)
    game.random_playout(random.Random(seed))
    return (game.digest(), game.error, game.state.steps, [game.log_lines(v) for v in (None, *range(players))])


@pytest.mark.parametrize("seed", range(6))
def test_the_manor_plays_alike_in_every_compile_mode(seed: int) -> None:
    players = 2 + seed % 3
    traces = [_trace(str(MANOR), mode, players, seed) for mode in MODES]
    assert all(t == traces[0] for t in traces[1:])
    assert traces[0][1] is None


def test_both_haunts_come_up_and_run_their_own_rules() -> None:
    rules = load_ruleset(str(MANOR))
    seen: set[str] = set()
    for seed in range(40):
        game = rules.new_game(3, seed, check_invariants=True)
        game.random_playout(random.Random(seed))
        assert game.state.status == "finished", game.error
        text = "\n".join(game.log_lines(None))
        if "reveals the haunt: seance" in text:
            seen.add("seance")
            assert "The seance" in rules.compiled.step_titles.values()
        if "reveals the haunt: flood" in text:
            seen.add("flood")
            assert "the water rises to 2" in text
        if "reveals the haunt" not in text:  # no haunt: none of their steps or handlers ran
            assert "water" not in text and "ritual" not in text
    assert seen == {"seance", "flood"}


def _until(game: Game, line: str, rng: random.Random) -> None:
    """Play random choices until the public log holds ``line``."""
    while not game.finished and not any(line in x for x in game.log_lines(None)):
        for p in game.decision.players:
            game.apply(rng.randrange(len(game.decision.options[p])), p)


def test_a_mode_state_is_plain_data_in_views_saves_and_digests() -> None:
    rules = load_ruleset(str(MANOR))
    for seed in range(40):
        game = rules.new_game(2, seed)
        _until(game, "reveals the haunt", random.Random(seed))
        if not game.finished:
            break
    else:  # pragma: no cover - seeds are fixed
        raise AssertionError("no haunt revealed")
    view = game.view(0)
    assert len(view["modes"]) == 1 and view["modes"][0] in ("seance", "flood")
    assert [k for k in view["counters"] if k.startswith("mode ")] == ["mode seance", "mode flood"]  # the flags
    assert [m for m in ("seance", "flood") if view["counters"][f"mode {m}"]] == view["modes"]
    assert {"seance.ritual", "flood.water"} <= set(view["counters"])
    assert {"seance.candles", "flood.sunk"} <= set(view["zones"])
    assert game.view(None)["modes"] == view["modes"]  # public: everyone sees which rules apply
    fresh = rules.new_game(2, seed).view(None)
    assert fresh["modes"] == [] and fresh["counters"]["seance.ritual"] == 0  # the state exists from the start
    loaded = rules.load_game(game.to_json())
    assert loaded.digest() == game.digest() and loaded.view(0)["modes"] == view["modes"]
    clone = game.clone()
    clone.random_playout(random.Random(1))
    loaded.random_playout(random.Random(1))
    assert clone.digest() == loaded.digest()


GAME = '''game "G" { players 2..2 }
window tick(n: int)
counter turns 0..50
mode m {
  counter hits 0..99
  fn twice(x: int) -> int = x * 2
  proc bump(n: int) { hits += twice(n) }
  on tick(n: int) { do bump(n)  log "tick {} hits {}", n, hits }
  step b2 before b "B2" { log "before b" }
  step a2 after a "A2" { log "after a, first" }
  step a3 after a "A3" { log "after a, second" }
}
mode n {
  counter hits 0..9
  step a4 after a "A4" { hits += 1  log "n {}", hits }
}
round {
  step a "A" {
    turns += 1
    fire tick(turns)
    BODY
  }
  step b "B" { if turns >= 4 { end game } }
}
score(p) = if active(m) then 1 else 0
'''


def _game(write: Callable[..., str], body: str, mode: dict[str, bool] | None = None) -> Game:
    path = write(GAME.replace("BODY", body))
    program, diags = check_file(path)
    assert program is not None, [str(d) for d in diags]
    assert [d.code for d in diags if d.code != "W065"] == [], [str(d) for d in diags]
    game = Ruleset(program, **(mode or {})).new_game(2, 1)
    game.random_playout(random.Random(1))
    return game


@pytest.mark.parametrize("mode", MODES, ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items()) or "default")
def test_handlers_and_steps_run_only_while_active_in_order(write_ruleset: Callable[..., str],
                                                           mode: dict[str, bool]) -> None:
    game = _game(write_ruleset, 'if turns == 2 { enter m  enter n } elif turns == 3 { leave n }', mode)
    assert game.error is None
    log = game.log_lines(None)
    assert log[:5] == ["after a, first", "after a, second", "n 1", "before b", "tick 3 hits 6"]
    assert log[5:8] == ["after a, first", "after a, second", "before b"]  # n left: its step is off
    assert game.result is not None and game.result["scores"] == [1, 1]
    assert [s.name for s in game.ruleset.program.steps] == ["a", "a2", "a3", "a4", "b2", "b"]


@pytest.mark.parametrize("mode", MODES, ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items()) or "default")
@pytest.mark.parametrize(("body", "message"), [
    ("if turns == 2 { enter m } elif turns == 3 { enter m }", "mode `m` is already active (`enter` at line 21)"),
    ("if turns == 2 { leave m }", "mode `m` is not active (`leave` at line 21)"),
])
def test_entering_twice_or_leaving_an_inactive_mode_is_a_rule_error(write_ruleset: Callable[..., str], body: str,
                                                                     message: str, mode: dict[str, bool]) -> None:
    game = _game(write_ruleset, body, mode)
    assert game.state.status == "aborted"
    assert game.error is not None and game.error.startswith(message)


CARDS = '''game "C" { players 2..2 }
card Omen { haunt: mode = none }
cards "omens.yaml"
zone deck: deck hidden of Omen
mode storm { counter wind 0..9  step blow after s { wind += 1  log "wind {}", wind } }
mode fog { step thicken after s { log "fog" } }
round { step s "S" {
  if round == 1 { enter top(deck).haunt }
  if round == 2 { leave top(deck).haunt  enter bottom(deck).haunt }
  if round >= 3 { end game }
} }
score(p) = 0
'''
OMENS = '''kind: Omen
start: deck
cards:
  - name: Gale
    haunt: storm
  - name: Mist
    haunt: fog
'''


@pytest.mark.parametrize("mode", MODES, ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items()) or "default")
def test_a_card_field_names_the_mode_it_brings(write_ruleset: Callable[..., str], mode: dict[str, bool]) -> None:
    path = write_ruleset(CARDS, {"omens.yaml": OMENS})
    program, diags = check_file(path)
    assert program is not None and diags == [], [str(d) for d in diags]
    game = Ruleset(program, **mode).new_game(2, 1)
    game.random_playout(random.Random(1))
    assert game.error is None
    top = game.state.tables.card_names[game.state.zones[game.ruleset.compiled.layout.zone_global["deck"]][-1]]
    assert game.log_lines(None)[:2] == (["wind 1", "fog"] if top == "Gale" else ["fog", "wind 1"])


def test_an_omen_naming_no_mode_is_refused_in_its_card_file(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(CARDS, {"omens.yaml": OMENS.replace("haunt: fog", "haunt: hail")})
    program, diags = check_file(path)
    assert program is None and [d.code for d in diags if d.is_error] == ["E209"]


@pytest.mark.parametrize(("text", "code"), [
    ('mode m { counter x }\nmode m { }', "E103"),  # two modes of one name
    ('mode m { counter x  flag x }', "E103"),  # a name twice inside a mode
    ('counter x\nmode m { counter x }', "E372"),  # a core name again inside a mode
    ('mode m { step t after nowhere { } }', "E371"),
    ('mode m { step s after s { } }', "E372"),  # a step name the round already has
    ('mode m { counter x }\nfn f() -> int = x', "E101"),  # the core cannot see a mode's names
    ('mode m { counter x }\nfn f() -> bool = active(q)', "E101"),
    ('mode m { }\nproc f() { enter q }', "E370"),
    ('mode m { }\nproc f() { enter 3 }', "E140"),
    ('mode m { }\nfn f() -> bool = active(3)', "E140"),
])
def test_mode_errors(write_ruleset: Callable[..., str], text: str, code: str) -> None:
    path = write_ruleset('game "G" { players 1..2 }\n' + text + '\nround { step s { end game } }\nscore(p) = 0\n')
    program, diags = check_file(path)
    assert program is None
    assert code in [d.code for d in diags if d.is_error], [str(d) for d in diags]


def test_a_mode_that_only_names_itself_is_never_entered(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset('''game "G" { players 1..2 }
mode a { counter x 0..9  step sa after s { x += 1  if x > 3 { leave a } } }
round { step s { if round == 3 { end game } } }
score(p) = a.x
''')
    program, diags = check_file(path)
    assert program is not None and [d.code for d in diags] == ["W065"]


def test_two_modes_share_short_names_and_reach_the_core(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset('''game "G" { players 1..2 }
counter base 0..9
mode a { counter x 0..9  step sa after s { x += base  base += 1 } }
mode b { counter x 0..9  step sb after s { x += 2 } }
round { step s { if round == 1 { enter a  enter b } if round == 3 { end game } } }
score(p) = base
''')
    game = load_ruleset(path).new_game(1, 1)
    game.random_playout(random.Random(1))
    counters = game.view(None)["counters"]
    assert (counters["a.x"], counters["b.x"], counters["base"]) == (1, 4, 2)
    assert game.view(None)["modes"] == ["a", "b"]


@pytest.mark.parametrize("mode", MODES, ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items()) or "default")
def test_a_mode_shared_state_is_named_from_outside_by_its_qualified_name(write_ruleset: Callable[..., str],
                                                                         mode: dict[str, bool]) -> None:
    path = write_ruleset('''game "G" { players 1..2 }
mode a { counter x 0..9  zone pot: pile public  step sa after s { x += 2 } }
round { step s {
  if round == 1 { enter a }
  a.x += 1
  log "x {} pot {}", a.x, size(a.pot)
  if round == 3 { end game }
} }
display(p) { show "x is {}", a.x }
score(p) = a.x
''')
    program, diags = check_file(path)
    assert program is not None and diags == [], [str(d) for d in diags]
    game = Ruleset(program, **mode).new_game(1, 1)  # no decision: it plays to the end at once
    assert game.log_lines(None)[:3] == ["x 1 pot 0", "x 4 pot 0", "x 7 pot 0"]
    assert game.result is not None and game.result["scores"] == [7]
    assert game.display(0) == ["x is 7"]


@pytest.mark.parametrize("member", ["a.y", "a.f()", "a.nothing"])
def test_only_a_mode_shared_counters_and_zones_are_named_outside(write_ruleset: Callable[..., str],
                                                                 member: str) -> None:
    path = write_ruleset(f'''game "G" {{ players 1..2 }}
mode a {{ counter per player y  fn f() -> int = 1  step sa after s {{ enter a }} }}
round {{ step s {{ log "{{}}", {member}  end game }} }}
score(p) = 0
''')
    program, diags = check_file(path)
    assert program is None and "E101" in [d.code for d in diags if d.is_error], [str(d) for d in diags]


def test_liturgy_dump_shows_a_moded_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["dump", str(MANOR)]) == 0
    assert "def " in capsys.readouterr().out
