"""Fused functions' locals (codegen/fusebook.py ``pooled``): the temporaries of statement runs and of the
conditions and loop sequences written into a fused function share one pool of names, and what a `do` hands its
callee reads the caller's held locals (session 22, issue 29). The renaming is checked on its own (the same
results, names a text only reads left alone, texts with a scope of their own left as they are), then on Kuhn
poker's generated text."""

from __future__ import annotations

import random
import re

from conftest import ROOT
from liturgy.interpreter.codegen.fuse import build_all
from liturgy.interpreter.codegen.fusebook import pooled, pooled_expr
from liturgy.interpreter.engine import load_ruleset


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
