"""Fused functions' locals (codegen/fusepool.py ``pooled``): the temporaries of statement runs, choices and of the
conditions and loop sequences written into a fused function share one pool of names, two temporaries of one text
whose lifetimes do not overlap share one name, and what a `do` hands its callee reads the caller's held locals
(sessions 22 and 25, issue 29). The renaming is checked on its own (the same results, names a text only reads left
alone, texts with a scope of their own left as they are, lifetimes through loops), then on Kuhn poker's generated
text and on a small ruleset's, in every compile mode."""

from __future__ import annotations

import random
import re
import types
from collections.abc import Callable

import pytest
from conftest import ROOT
from liturgy.interpreter.codegen import fuse, fusewalk
from liturgy.interpreter.codegen.fuse import build_all
from liturgy.interpreter.codegen.fusepool import pooled, pooled_expr
from liturgy.interpreter.engine import Ruleset, load_ruleset
from mode_helpers import compiled, played_in_every_mode


def _run(lines: list[str], **env: object) -> dict[str, object]:
    """The run's lines as a function's body: what it leaves in ``out``."""
    ns: dict[str, object] = {"_k3": (10, 20, 30)}
    exec("def f(env, out):\n" + "\n".join(lines) + "\n", ns)
    out: dict[str, object] = {}
    ns["f"](env, out)  # type: ignore[operator]
    return out


def test_a_run_is_renamed_in_order_and_does_the_same() -> None:
    run = ["    _t7 = env['a']", "    _Fv1 = 5", "", "    for _x2 in _k3:", "        _t7 = _t7 + _x2",
           "    out['r'] = (_u9 := _t7 * 2) + _u9", "    out['s'] = '_t7 _x2'", "    del _x2"]
    got = pooled(run)
    assert got[0] == "    _R0 = env['a']" and got[1] == "    _Fv1 = 5" and got[2] == ""
    assert got[3] == "    for _R1 in _k3:" and "_k3" in got[3]  # a name only read (a constant) is not the run's
    assert "'_t7 _x2'" in got[6]  # text in strings is left alone
    assert _run(got, a=4) == _run(run, a=4) == {"r": 256, "s": "_t7 _x2"}


def test_texts_read_inexactly_or_with_closures_are_left_alone() -> None:
    for run in (["    _t1 = 3", "    _t2 = lambda: _t1", "    out['r'] = _t2()"],  # a variable a closure reads
                ["    _t1 = 3", "    out['r'] = f'{_t1}'"], ["    _t1 = '''_t1'''"], ["    _t1 = b'_t1'"],
                ["    _t1 = _R0"],  # a name of the pool already
                ["  _t1 = 1", " _t2 = 2"]):  # not Python as a function's body
        assert pooled(run) == run
    run = ["    global _t1", "    _t1 = 1", "    _t2 = 2"]  # a global is not the run's
    assert pooled(run) == ["    global _t1", "    _t1 = 1", "    _R0 = 2"]


def test_other_bindings_are_renamed_alike() -> None:
    for run in (["    _t1 = lambda _x2: _x2 + 1", "    out['r'] = _t1(3)"],
                ["    try:", "        _t1 = env['a']", "    except KeyError as _e2:", "        out['r'] = str(_e2)"],
                ["    out['r'] = [_x3 * 2 for _x3 in (1, 2)]", "    _t4 = (_u5 := 3) + _u5", "    out['s'] = _t4"]):
        got = pooled(run)
        # the run's own names (a lambda's parameter and a comprehension's variable are their scopes')
        assert got != run and not any(re.search(r"_[tue][0-9]", line) for line in got), got
        assert _run(got) == _run(run)


def test_an_expression_is_renamed_and_gives_the_same() -> None:
    text = "((_u5,) if (_u5 != _h8) else ()) if [(_u5 := env['a']), (_h8 := env['b'])] else None"
    got = pooled_expr(text)
    assert "_u5" not in got and "_h8" not in got and "_R0" in got and "_R1" in got
    for env in ({"a": 1, "b": 2}, {"a": 2, "b": 2}):
        assert eval(got, {"env": env}) == eval(text, {"env": env})
    assert pooled_expr("s.tables.players") == "s.tables.players"


def test_kuhn_fused_functions_hold_only_pooled_temporaries() -> None:
    """Kuhn poker's fused functions: no temporary but the pool's, a `do` hands its callee the caller's held loop
    variable, and the loop over the seats takes the seats' tuple as it is."""
    rules = load_ruleset(str(ROOT / "rulesets" / "classic" / "kuhn_poker.rules"))
    comp = rules.compiled
    assert comp.gen is not None
    build_all(comp)
    fused = [g.text for g in comp.gen.sources.items if g.filename.startswith("<liturgy fused")]
    assert fused
    for text in fused:
        stored = set(re.findall(r"\b(_[A-Za-z]+[0-9]+) (?:=|:=) ", text))
        assert {n for n in stored if not n.startswith(("_R", "_F", "_env"))} == set(), text
        assert "tuple(s.tables.players)" not in text
    # where the loop's step bound the seat in this call (a function entered after it reads it from the frame)
    assert any("= {'p': _Fv1}" in text for text in fused)
    assert any("_Fa1 = s.tables.players" in text for text in fused)
    for seed in range(3):
        rules.new_game(2, seed).random_playout(random.Random(seed))


def test_a_choice_with_an_f_string_is_renamed() -> None:
    """An f-string that holds none of the text's temporaries (a choice's `no player` message reads ``p``) is left
    as it is and the text around it renamed, in order of first appearance; one that holds a temporary leaves the
    whole text alone; the names read after a loop are the loop's."""
    text = ["    _t1 = 3", "    p = 0", "    out['r'] = f'P{p + 1}'", "    for _x2 in _k3:", "        _t4 = _x2 * _t1",
            "    out['s'] = (_t4, _x2, 'at x:1')"]
    got = pooled(text)
    assert got == ["    _R0 = 3", "    p = 0", "    out['r'] = f'P{p + 1}'", "    for _R1 in _k3:",
                   "        _R2 = _R1 * _R0", "    out['s'] = (_R2, _R1, 'at x:1')"]
    assert _run(got) == _run(text) == {"r": "P1", "s": (90, 30, "at x:1")}
    assert pooled(["    _t1 = 3", "    out['r'] = f'{_t1}'", "    _t2 = 4"]) == [
        "    _t1 = 3", "    out['r'] = f'{_t1}'", "    _t2 = 4"]


def test_lifetimes_share_a_name_only_where_they_do_not_overlap() -> None:
    """Two temporaries of one text share a name where one's last line is before the other's first; a temporary
    that occurs in a loop holds its name through the whole loop (a value read in a later turn: before the loop,
    or written after its read in the turn), nested loops too; a statement that goes on to another line leaves
    every temporary its own name."""
    after = ["    _a1 = 5", "    for _x2 in _k3:", "        out.setdefault('l', []).append(_a1)",
             "        _b4 = _x2 * 2", "        out.setdefault('l', []).append(_b4)", "    _c5 = 1",
             "    out['c'] = _c5"]
    got = pooled(after)
    assert got[0] == "    _R0 = 5" and got[5] == "    _R0 = 1"  # `_c5` after the loop takes `_a1`'s name
    assert "_R0" not in got[3]  # `_a1` is read in every turn: `_b4` cannot take its name
    assert _run(got) == _run(after)
    carried = ["    _p1 = -1", "    for _x2 in _k3:", "        for _y3 in (1, 2):", "            if _y3 == 1:",
               "                out.setdefault('l', []).append(_p1)", "            _q4 = _x2 + _y3",
               "            _p1 = _q4", "        _z5 = _x2 * 7", "        out.setdefault('z', []).append(_z5)"]
    got = pooled(carried)
    assert _run(got) == _run(carried)
    # each lives in a loop the others live in (`_q4` ends before `_p1`'s read, a turn later): none shares
    assert len(set(re.findall(r"_R[0-9]+", "\n".join(got)))) == 5, got
    late = ["    for _x1 in _k3:", "        if _x1 > 10:", "            out.setdefault('l', []).append(_c2)",
            "        _c2 = _x1", "        _d3 = 5", "        out.setdefault('d', []).append(_d3)"]
    got = pooled(late)
    assert _run(got) == _run(late) == {"l": [10, 20], "d": [5, 5, 5]}  # `_c2` read a turn after its write
    continued = ["    _t1 = max(1,", "        2)", "    _t2 = 4", "    out['r'] = _t2"]
    assert pooled(continued)[2] == "    _R1 = 4"  # no lifetimes read: each its own name


POOL_RULES = """game "Pool" { players 2..3
  step_limit 6000 }
counter per player hp 0..9 = 6
counter per player gold 0..60
counter total 0..100000
round {
  step s "S" {
    for p in players {
      let b = p.hp + 1
      let c = b * 2
      if c > 8 { p.gold += c - 8 }
      for q in players {
        if q != p and q.hp > b - 3 { total += 1 }
      }
      log "{} has {} and {}", p, b, c
      choose k from range(4) by p {
        p.hp -= k
        let d = k + p.gold
        for q in players {
          if q != p { q.gold += d / 3 }
        }
        total += 10 / (p.hp + 1 - k)
        log "{} took {}", p, d
      }
    }
    let m = 0
    for p in players {
      if p.gold > m { m = p.gold }
    }
    total += m
    if round >= 5 { end game }
  }
}
score(p) = p.gold + total
"""


def _played(rules: Ruleset, seed: int) -> object:
    """One random 2-player game, as tests/mode_helpers.py's ``played_in_every_mode`` records each mode's."""
    game = rules.new_game(2, seed)
    game.random_playout(random.Random(seed))
    return (game.digest(), game.error, [game.log_lines(v) for v in (None, 0, 1)], game.result)


def _fused_locals(rules: Ruleset) -> dict[str, int]:
    comp = rules.compiled
    assert comp.gen is not None
    build_all(comp)
    out = {}
    for g in comp.gen.sources.items:
        if g.filename.startswith("<liturgy fused"):
            module = compile(g.text, g.filename, "exec")
            code = next(c for c in module.co_consts if isinstance(c, types.CodeType))
            out[code.co_name] = code.co_nlocals
    return out


def test_a_small_rulesets_fused_frames_shrink_and_play_alike(write_ruleset: Callable[..., str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs, a choice and loops written into fused functions: each function has fewer locals than with every
    temporary its own (the pool turned off), and the games (some stop dividing by zero) are the same in the five
    compile modes and without the pool."""
    path = write_ruleset(POOL_RULES)
    monkeypatch.setenv("LITURGY_CACHE", "off")  # no walk or bytecode of the other build replayed
    built = {repr({}): compiled(path, {})}
    pooled_ = _fused_locals(built[repr({})])
    with monkeypatch.context() as m:
        m.setattr(fuse, "pooled", lambda lines, code=None: lines)
        m.setattr(fusewalk, "pooled_expr", lambda text: text)
        plain_rules = compiled(path, {})
        plain = _fused_locals(plain_rules)
        plain_games = [_played(plain_rules, seed) for seed in range(6)]
    assert pooled_.keys() == plain.keys() and pooled_
    assert all(pooled_[name] < plain[name] for name in plain), (pooled_, plain)
    # the largest (the texts of a choice's two ways and the loops after it) a quarter smaller at least
    assert max(pooled_.values()) * 4 < max(plain.values()) * 3, (pooled_, plain)

    def rules(mode: dict[str, bool]) -> Ruleset:
        if repr(mode) not in built:
            built[repr(mode)] = compiled(path, mode)
        return built[repr(mode)]

    errors = set()
    for seed in range(6):
        seen = played_in_every_mode(rules, seed)
        assert all(x == seen[0] for x in seen) and seen[0] == plain_games[seed], seed
        errors.add(seen[0][1])  # type: ignore[index]
    assert None in errors and any(e is not None and "zero" in e for e in errors), errors
