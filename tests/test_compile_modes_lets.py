"""A `fn`'s `let`s as Python locals (interpreter/codegen/letgen.py): the same games in every compile mode.

A chain of `let`s is written as plain assignments (at the root of a function) or assignment expressions
(inside one), never touching ``env``, unless something in it would read a `let`'s name from ``env`` (a closure,
a nested generated function): then it is written as before. Each case here plays in every compile mode with the
same seed and choices and must give the same digest and logs; the shapes are those that could go wrong: a
`let` hiding a parameter or an outer `let`, a `let` inside an aggregate's loop, an inlined `fn` whose argument
names a variable the callee binds, a `let` read by a nested aggregate (the fallback), and a rule error raised
between two `let`s.
"""
from __future__ import annotations

import functools
import random
import tempfile
from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset
from ruleset_strategies import CARDS, HEADER

MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]

FNS = '''
fn chain(i: int, k: int) -> int {
  let c = i % 8
  let r = i / 8
  let x = c + k
  let y = r - k
  let n = if x > 3 then x * y else y
  let m = n + c
  return m * 2 + x
}
fn hides(k: int) -> int {
  let k = k + 1
  let k = k * 3
  return k - 1
}
fn capture(x: int) -> int {
  let y = x + 1
  return sum(x + y for x in [1, 2, 3])
}
fn caller(y: int) -> int {
  let x = y * 2
  return capture(x) + capture(y) + twice(x)
}
fn step_of(y: int, k: int) -> int {
  let a = y * k
  return a + y
}
fn in_loop(k: int) -> int = sum(step_of(y, k) for y in range(4))
fn nested_agg(k: int) -> int {
  let a = k + 2
  return count(z for z in range(10) where z < a) + sum(c.v + a for c in row)
}
fn fails(k: int) -> int {
  let a = 10 / (k - 3)
  return a + 1
}
'''

STEPS = '''setup { shuffle bag }
round {
  step s "S" {
    for p in players {
      choose i from range(12) by p {
        g0 = chain(i, round) % 50
        g1 = (hides(i) + caller(i) + in_loop(i) + nested_agg(i)) % 30
        log "{} {} {} {} {} {}", chain(i, 1), hides(i), caller(i), in_loop(i), nested_agg(i), p
        if size(bag) > 0 { move top(bag) to row }
        if i == 11 { g0 = fails(3) }
      }
    }
    if round >= 3 { end game }
  }
}
score(p) = p.sc + g0
'''


@functools.cache
def _compiled() -> tuple[Ruleset, ...]:
    """The ruleset compiled once in each mode, per process. The 52 games of this file (12 seeds, then 40 in the
    search for a division by zero) each compiled it five times afresh, ~260 compiles of one unchanging text; a
    Ruleset only creates games (its caches are per player count), so every game may share one."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lets.rules"
        path.write_text(HEADER + FNS + STEPS, encoding="utf-8")
        (Path(tmp) / "tok.yaml").write_text(CARDS, encoding="utf-8")
        compiled = []
        for mode in MODES:
            program, diags = check_file(str(path))
            assert program is not None, "\n".join(map(str, diags))
            compiled.append(Ruleset(program, **mode))
        return tuple(compiled)


def _play(seed: int) -> list[tuple[object, ...]]:
    seen = []
    for rules in _compiled():
        game = rules.new_game(2, seed)
        game.random_playout(random.Random(seed))
        seen.append((game.digest(), game.error, game.state.steps,
                     [game.log_lines(v) for v in (None, *range(game.players))]))
    return seen


@pytest.mark.parametrize("seed", range(12))
def test_lets_play_alike_in_every_compile_mode(seed: int) -> None:
    first, *rest = _play(seed)
    assert first[3][0], "the game logged nothing"
    for mode, other in zip(MODES[1:], rest, strict=True):
        assert other == first, f"mode {mode} differs from the default on seed {seed}"


def test_a_division_by_zero_between_lets_is_the_same_rule_error() -> None:
    errors = {seen[1] for seed in range(40) for seen in _play(seed)}
    assert any(e is not None and "division by zero" in e for e in errors), errors


def test_a_let_chain_is_python_locals_not_env() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lets.rules"
        path.write_text(HEADER + FNS + STEPS, encoding="utf-8")
        (Path(tmp) / "tok.yaml").write_text(CARDS, encoding="utf-8")
        program, _ = check_file(str(path))
        assert program is not None
        gen = Ruleset(program).compiled.gen
        assert gen is not None
        text = gen.sources.dump()
    assert "c_" in text and "m_" in text  # `chain`'s lets by their own names
    assert "env['c']" not in text and "env['m']" not in text and "env['n']" not in text
