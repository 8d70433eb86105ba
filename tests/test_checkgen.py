"""A checked game's whole check written per ruleset (interpreter/runtime/checkgen.py) reports what the engine's method
reports.

Two games of a small ruleset (two pools, a capped and a final zone, a shuffle, invariants reading counters, zones,
zones through a per-card test, two that name steps they do not hold in, one that fails to evaluate on an overflow)
are played in lockstep with the same picks and the same corruptions planted through the noting functions: one
checked by the written function, the other by ``Game.violations``' own path (its certificate's written function
taken away before every check). Every check gives the same report, in the same order with the same messages, and
leaves the same ``held``; a violation raised by ``apply`` is the same. The text test pins the constants written in.
"""
from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

import pytest
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.engine.game import Game
from liturgy.interpreter.runtime import checkgen
from liturgy.interpreter.runtime.errors import InvariantViolation
from liturgy.interpreter.runtime.state import GameState, note_card, note_slot

from tests.test_certgen import CERT, TOK

# test_certgen.py's declarations (two pools, a capped and a final zone, invariants reading counters, zones and
# zones through a per-card test) and card file, then invariants naming steps and one that fails to evaluate, and
# two steps
RULES = CERT.split('invariant "hands"')[0].replace('game "Cert"', 'game "Checks"') + '''\
invariant "hands" outside t: all(size(p.hand) <= 2 for p in players)
invariant "holder": holder == none or holder in players
invariant "scores small" outside s: all(p.score <= 9 for p in players)
invariant "rounds": round_no * 1152921504606846976 >= 0
setup {
  repeat while size(shelf) < 2 { move top(bag) to shelf }
}
round {
  step s "S" {
    for i in range(0, 12) {
      choose k from range(0, 9) by first {
        if k == 0 { transfer 1 from bank to first.purse }
        if k == 1 { first.score += 1 }
        if k == 2 { if size(shelf) > 0 { if top(shelf).heat < 3 { top(shelf).heat += 1 } } }
        if k == 3 { if size(bag) > 0 { move top(bag) to pile } }
        if k == 4 { transfer 1 from chest to first.stash }
        if k == 5 { shuffle bag }
        if k == 6 { if holder == none { holder = first } else { holder = none } }
        if k == 7 { if size(bag) > 0 { move top(bag) to first.hand } }
        if k == 8 { round_no += 1 }
      }
    }
  }
  step t "T" {
    for i in range(0, 12) {
      choose k from range(0, 4) by first {
        if k == 0 { if size(bag) > 0 { move top(bag) to first.hand } }
        if k == 1 { first.score += 1 }
        if k == 2 { round_no += 1 }
        if k == 3 { if size(first.hand) > 0 { move top(first.hand) to bag } }
      }
    }
    if round_no > 3 { end game }
  }
}
score(p) = p.score
'''


def _plant(s: GameState, rng: random.Random) -> None:
    """A corruption written the way a faulty rule writes it, through the noting functions."""
    if rng.random() < 0.6:  # a counter slot moved by a little or a lot (out of its bounds or its pool, or not)
        i = rng.randrange(len(s.counters))
        if type(s.counters[i]) is int:
            s.counters[i] += rng.choice((-1, 1, 2, -50, 5000))
            note_slot(s, i)
    else:  # a card moved into another zone (the shelf is capped), its place updated
        c = rng.randrange(len(s.card_zone))
        dst = rng.randrange(len(s.zones))
        if s.card_zone[c] != dst:
            s.zones[s.card_zone[c]].remove(c)
            s.zones[dst].append(c)
            s.card_zone[c] = dst
            note_card(s, c)


def _engine(game: Game) -> list[tuple[str, str]]:
    """``Game.violations`` by the engine's own path: the certificate's written whole check taken away first."""
    cert = game._certified
    if cert is not None:
        cert.fast = None
    return game.violations()


def test_the_written_whole_check_reports_as_the_engine(write_ruleset: Callable[..., str]) -> None:
    rules = load_ruleset(write_ruleset(RULES, {"tok.yaml": TOK}))
    fast = reports = 0
    seen: set[str] = set()
    for players in (2, 3):
        for seed in range(8):
            a = rules.new_game(players, seed, check_invariants=True)
            b = rules.new_game(players, seed, check_invariants=True)
            rng = random.Random(seed)
            for _ in range(120):
                if a.state.status != "running":
                    break
                if seed % 2 and rng.random() < 0.15:
                    state = rng.getstate()
                    _plant(a.state, rng)
                    rng.setstate(state)
                    _plant(b.state, rng)
                cert = a._certified
                fast += cert is not None and cert.fast is not None
                got = a.violations()
                want = _engine(b)
                assert got == want
                if a._certified is not None or b._certified is not None:
                    assert a._certified is not None and b._certified is not None
                    assert a._certified.held == b._certified.held
                reports += bool(got)
                seen.update(name for name, _ in got)
                pick = rng.randrange(1000)
                a.check = b.check = False  # each decision's check is the one above, made before the next
                a.apply(pick % a.option_count(a.waiting_for()[0]), a.waiting_for()[0])
                b.apply(pick % b.option_count(b.waiting_for()[0]), b.waiting_for()[0])
                a.check = b.check = True
    assert fast > 300 and reports > 4, (fast, reports, seen)
    assert {"rounds", "hands", "scores small"} <= seen, seen


def test_apply_stops_on_the_same_violation(write_ruleset: Callable[..., str]) -> None:
    """A checked game's ``apply`` with the written check stops where the engine's path stops, with the same message
    and state: the "rounds" invariant fails to evaluate once ``round_no`` overflows."""
    rules = load_ruleset(write_ruleset(RULES, {"tok.yaml": TOK}))
    caught = 0
    for seed in range(4):
        games = [rules.new_game(2, seed, check_invariants=True) for _ in range(2)]
        for g, strip in zip(games, (False, True), strict=True):
            rng = random.Random(seed)
            try:
                while g.state.status == "running":
                    if strip and g._certified is not None:
                        g._certified.fast = None
                    p = g.waiting_for()[0]
                    n = g.option_count(p)
                    g.apply((8 if n == 9 else 2) if rng.random() < 0.4 else rng.randrange(n), p)
            except InvariantViolation as err:  # (raised where the engine raises it rather than ending the game)
                g.state.error = f"raised {err}"
        a, b = (g.state for g in games)
        assert (a.status, a.error, a.steps, a.counters, a.zones) == (b.status, b.error, b.steps, b.counters, b.zones)
        caught += "could not evaluate" in (a.error or "")
    assert caught


def test_the_whole_check_writes_the_invariants_in(write_ruleset: Callable[..., str]) -> None:
    rules = load_ruleset(write_ruleset(RULES, {"tok.yaml": TOK}))
    game = rules.new_game(2, 0, check_invariants=True)
    game.violations()
    game.violations()
    cert = game._certified
    assert cert is not None and cert.fast is not None
    t = game.state.tables
    masks, lift, _ = t.cert_test
    got = checkgen.source(t, masks, lift, rules.compiled.invariants)
    assert got is not None
    text = got[0]
    assert "todo = 127" in text and "if todo & 64:" in text  # seven invariants, one block each
    assert "step = _at.get(fr[0][1]) if fr else 'setup'" in text and "step = _step(g, s)" in text
    assert "if step not in _o3:" in text and "if step not in _o5:" in text
    assert "deltas[1] += v - was" in text  # the certificate's written check comes first


def test_checked_playouts_end_the_same_without_it(write_ruleset: Callable[..., str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A checked random playout's checks (engine/checkpick.py ``ready`` calls the written check itself) end each game
    where the engine's path ends it: the same decisions, steps, status and message."""
    rules = load_ruleset(write_ruleset(RULES, {"tok.yaml": TOK}))

    def play() -> list[Any]:
        out = []
        for seed in range(12):
            g = rules.new_game(2 + seed % 2, seed, True, None, playout=random.Random(seed))
            s = g.state
            out.append((s.status, s.error, s.steps, s.decisions, s.counters))
        return out

    with_it = play()
    monkeypatch.setattr(checkgen, "install", lambda cert, t, invs, at: None)
    assert play() == with_it
    ends = " ".join(str(error) for _, error, *_ in with_it)
    assert "hands" in ends and "scores small" in ends, ends


# an invariant the expression generator writes no text for (a closure: it keeps its call), after the seven above
FIRST = RULES.replace('setup {', 'invariant "first": first in players\nsetup {', 1)


def test_the_generated_invariants_are_written_into_the_check(write_ruleset: Callable[..., str]) -> None:
    """Each invariant with a generated text is written into the check (interpreter/runtime/invgen.py), not called:
    its locals renamed apart, its globals bound, a fresh ``env`` where it reads one, a work budget of its own only
    where it can read the budget; the closure keeps its call. Played in lockstep with planted corruptions, the
    check reports what the engine's path (every invariant called) reports."""
    rules = load_ruleset(write_ruleset(FIRST, {"tok.yaml": TOK}))
    game = rules.new_game(2, 0, check_invariants=True)
    game.violations()
    game.violations()
    t = game.state.tables
    masks, lift, _ = t.cert_test
    binds: dict[str, Any] = {}
    got = checkgen.source(t, masks, lift, rules.compiled.invariants, binds)
    assert got is not None
    text = got[0]
    calls = [k for k in range(8) if f"ok = _f{k}(s, {{}})" in text]
    assert calls == [7], calls  # the seven generated ones written in, `first in players` called
    assert "_zs = s.zones" in text and "_cz = s.counters" in text and "_tz = s.tables" in text
    assert text.count("env = {}") == 2  # the two sums' loop functions take an environment
    assert text.count("s.work = 0") == 4  # the sums, the overflowing product and the call: none for the others
    assert "_L1_r = True" in text and "_V_overflow" in binds and all(n.startswith("_V") for n in binds)
    assert game._certified is not None and game._certified.fast is not None
    reports = fast = 0
    for seed in (1, 3, 5):
        a = rules.new_game(2, seed, check_invariants=True)
        b = rules.new_game(2, seed, check_invariants=True)
        rng = random.Random(seed)
        for _ in range(100):
            if a.state.status != "running":
                break
            if rng.random() < 0.2:
                state = rng.getstate()
                _plant(a.state, rng)
                rng.setstate(state)
                _plant(b.state, rng)
            fast += a._certified is not None and a._certified.fast is not None
            got_a = a.violations()
            assert got_a == _engine(b)
            if a._certified is not None or b._certified is not None:
                assert a._certified is not None and b._certified is not None
                assert a._certified.held == b._certified.held
            reports += bool(got_a)
            pick = rng.randrange(1000)
            a.check = b.check = False
            a.apply(pick % a.option_count(a.waiting_for()[0]), a.waiting_for()[0])
            b.apply(pick % b.option_count(b.waiting_for()[0]), b.waiting_for()[0])
            a.check = b.check = True
    assert reports > 2 and fast > 30, (reports, fast)


def test_a_check_unrolled_for_its_tables_gives_way_on_others(write_ruleset: Callable[..., str]) -> None:
    """The loops over the seats are written seat by seat for the tables the check was written for; a state whose
    tables were swapped (the leak tools' sentinel copy) is checked by the engine's path, with the same report."""
    rules = load_ruleset(write_ruleset(FIRST, {"tok.yaml": TOK}))
    a, b = (rules.new_game(2, 1, check_invariants=True) for _ in range(2))
    for g in (a, b):
        g.violations()
        g.violations()
    t = a.state.tables
    masks, lift, _ = t.cert_test
    text = checkgen.source(t, masks, lift, rules.compiled.invariants, {})
    assert text is not None and "s.tables is not _T" in text[0] and "while True:" in text[0]
    assert "for _L1_" not in text[0]  # `all(p.score >= 0 for p in players)`: seat by seat, no loop
    for g in (a, b):
        g.state.tables = dataclasses.replace(t, players=(1, 0))
    cert = a._certified
    assert cert is not None and cert.fast is not None
    assert a.violations() == _engine(b)
    assert cert.fast is None  # gave way to the engine's method
