"""Loop variables held in a fused function's Python locals (interpreter/codegen/locals.py ``HeldVars``).

A fused function binds a step-machine loop's variables to Python locals at each turn, lets the statement texts
written into it read and write those locals, and writes them to the frame's ``env`` only where something else
can see it: a return to the engine, a call, a choice, a function the text hands ``env`` to that reads the
variable (or writes it, or cannot be followed), and on an error. These games read the loop variables from
aggregates (generated functions handed ``env``), write `let`s in the loop bodies, break out of loops, call a proc
that chooses from inside a loop, divide by zero in a later turn, `skip to` and `end game` from inside one, and
bind two variables per turn (a `simultaneously` body), and come back to an inner loop that is empty on a later
outer turn, in a function that starts at the inner loop's next step: the saves after every decision, the digests,
errors and step counts are the single-stepped machine's, at every step limit too.
"""
from __future__ import annotations

from collections.abc import Callable

import pytest
from fused_play import assert_same_at_step_limits, fused_and_plain, play
from liturgy.interpreter.codegen.locals import Effects, HeldVars, env_uses
from liturgy.interpreter.engine import Ruleset

RULES = """game "G" { players 2..2
 step_limit 100000 }
counter n
counter m
counter skips
proc bump(k: int) { choose e from [1, 2] by players[1] { m += k + e } }
round {
  step s "S" {
    choose d from [0, 1, 2, 3] by players[0] { n += d }
    for x in [1, 2, 3, 4, 5, 6] {
      m += x
      m += sum(y * x for y in [1, 2, 3])
      if count(y for y in [1, 2, 3] where y > x) == 0 { m += 1 }
      let z = x + n
      m += z
      if x == n + 2 { break }
      if x == 9 { do bump(x) }
    }
    for v in [1, 2, 3, 4] {
      for x in [1, 2, 3, 4, 5, 6, 7] {
        if x == v + n + 3 { do bump(x) }
        m += x * v
      }
    }
    for v in [1, 2, 3, 4] {
      for x in [q for q in [1, 2, 3] where q > v] {
        m += x * v
        if x == v + 1 and n % 2 == 1 { do bump(x) }
      }
    }
    for y in [1, 2, 3, 4, 5] {
      m += 12 / (n - y - 4)
      if m > 300 and skips < 2 {
        skips += 1
        skip to t
      }
      if y == 4 and n % 3 == 2 { do bump(y) }
      if y == 5 and n == 3 and round >= 3 { end game }
    }
  }
  step t "T" {
    simultaneously p in players choose c from [1, 2, 3] by p {
      m += c
      if c == 2 { m += sum(c * q for q in [1, 2]) }
    }
    m += 1
    if round >= 5 { end game }
  }
}
score(p) = m
"""


@pytest.fixture
def pair(write_ruleset: Callable[..., str]) -> tuple[Ruleset, Ruleset]:
    return fused_and_plain(write_ruleset(RULES))


def test_loop_variables_in_locals_keep_saves_errors_and_ends(pair: tuple[Ruleset, Ruleset]) -> None:
    fused, plain = pair
    ends = set()
    for seed in range(24):
        runs = [play(rules, seed) for rules in (fused, plain)]
        assert runs[0] == runs[1], seed
        ends.add((runs[0][2], runs[0][3] is not None))
    assert ("aborted", True) in ends and ("finished", False) in ends  # a division by zero, and whole games


def test_loop_variables_in_locals_keep_every_step_limit(pair: tuple[Ruleset, Ruleset]) -> None:
    fused, plain = pair
    for seed in (1, 6):
        assert_same_at_step_limits(fused, plain, seed, stride=2)


def test_the_loop_variables_are_held_in_locals(write_ruleset: Callable[..., str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The games above do run with the variables in locals: a `for` step binds one, a `simultaneously` two."""
    from liturgy.interpreter.tools.cli import main

    assert main(["dump", write_ruleset(RULES)]) == 0
    out = capsys.readouterr().out
    assert "_Fv1 = _Fa" in out and "_Fv1, _Fv2, = _Fa" in out
    assert "            env['x'] = _Fv" in out  # written back where something else may look


def test_env_uses_reads_python_not_text() -> None:
    """A string literal holding ``env['p']`` is not a read; a use other than a subscript, ``get``, ``pop`` or a
    named function's argument (a method handed ``env``, the frame, a nested scope) is opaque."""
    uses = env_uses("    x = env['p'] + len(\"env['q']\")\n    env['r'] = x", False)
    assert not uses.opaque and sorted((sp[3], sp[4]) for sp in uses.spans) == [("p", False), ("r", True)]
    called = env_uses("_k1(s, env, 3) + env.get('a', 0)", True)
    assert called.calls == (("_k1", 1),) and called.gets == {"a"}
    for text in ("f.pure(s, env)", "fr[2]['p']", "[env['p'] for _ in s]", "g(env=env)", "s.frames[-1]"):
        assert env_uses(text, True).opaque, text


def _effects(texts: dict[str, str]) -> Effects:
    ns: dict[str, object] = {}
    files = {}
    for name, text in texts.items():
        filename = f"<test {name}>"
        exec(compile(text, filename, "exec"), ns)
        files[filename] = text
    return Effects(ns, lambda: files)


def test_a_held_variable_is_written_back_for_a_function_that_reads_it() -> None:
    effects = _effects({"_k1": "def _k1(s, env):\n    return env['p'] + _k2(s, env)\n",
                        "_k2": "def _k2(s, env):\n    env['c'] = 1\n    return 0\n",
                        "_k3": "def _k3(s, env):\n    return env.pop('q', None)\n"})
    held = HeldVars()
    held.bind(["p", "c"])
    held.bind(["q"])
    pre, text = held.rewrite("    a = env['p'] + _k1(s, env)\n    env['q'] = a", False, effects)
    # p read by _k1: written back, still held; c written by _k2 (through _k1): written back and released
    assert pre == ["env['c'] = _Fv2", "env['p'] = _Fv1", "del _Fv2"]
    assert text == "    a = _Fv1 + _k1(s, env)\n    _Fv3 = a"
    assert held.held == {"p": False, "q": True}
    pre, text = held.rewrite("_k3(s, env)", True, effects)  # q removed from env by _k3: released first
    assert pre == ["env['q'] = _Fv3", "del _Fv3"] and text == "_k3(s, env)"
    pre, _ = held.rewrite("h(s, env)", True, effects)  # h is no generated function: everything released
    assert pre == ["del _Fv1"] and held.held == {}


def test_a_variable_written_back_before_any_read_is_written_where_it_is_bound() -> None:
    from liturgy.interpreter.codegen.locals import direct_writes

    lines = ["    _Fv1 = _Fa1[_Fb1]", "    _Fb1 += 1", "    _Fq = 3", "    env['#2'] = (_Fa1, _Fb1)",
             "    env['p'] = _Fv1", "    del _Fv1, _Fa1", "    _k4(s, fr)"]
    assert direct_writes(lines) == ["    env['p'] = _Fa1[_Fb1]", "    _Fb1 += 1", "    _Fq = 3",
                                    "    env['#2'] = (_Fa1, _Fb1)", "    del _Fa1", "    _k4(s, fr)"]
    read = [*lines[:3], "    _E5 = _Fv1 + 1", *lines[3:]]  # read before the write-back: the local stays
    assert direct_writes(read) == read
    nested = [lines[0], "    if _Fq:", "        env['p'] = _Fv1", "        del _Fv1"]  # not straight-line code
    assert direct_writes(nested) == nested
