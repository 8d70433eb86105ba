"""The construct registry is complete, and every pass reads it.

dsl/constructs.py declares each built-in once; dsl/checker/declarations.py dispatches each declaration kind from
one table. These tests fail when a pass lacks a handler for a kind the language has, or when the registry and a
pass disagree — and they play the registered built-in `range`, added through the registry alone, in every
compile mode.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable

import pytest
from liturgy.dsl import constructs
from liturgy.dsl.checker import declarations
from liturgy.dsl.checker.program import BUILTIN_FUNCS
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset
from liturgy.interpreter.runtime.builtins import pure_function

MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]
# declaration kinds handled outside the per-kind table: the game header (the driver), card files (loaded after
# every kind is known), steps (inside their round)
ELSEWHERE = {A.GameDecl, A.CardsDecl, A.StepDecl}


def _subclasses(base: type) -> set[type]:
    return {c for _, c in inspect.getmembers(A, inspect.isclass) if issubclass(c, base) and c is not base}


def test_every_declaration_kind_has_exactly_one_place_in_the_checker() -> None:
    kinds = _subclasses(A.Decl)
    table = set(declarations._DECLARE)
    assert kinds - ELSEWHERE <= table, f"no checker handler for {sorted(k.__name__ for k in kinds - ELSEWHERE - table)}"
    assert not table & ELSEWHERE


def test_every_builtin_is_declared_once_and_known_to_the_checker() -> None:
    assert constructs.NAMES == BUILTIN_FUNCS
    assert not set(constructs.PURE) & constructs.STATEFUL
    for name, b in constructs.PURE.items():
        assert b.name == name and b.doc and 0 <= b.required <= len(b.params)
        assert callable(pure_function(name))


RULES = '''game "R" { players 2..2 }
counter a -1000..1000
counter b 0..1000
counter n 0..9
round { step s "S" {
  n = 4
  a = sum(i * i for i in range(1, 4)) + size(range(n)) + count(i for i in range(n, 2))
  b = sum(i for i in range(0, n + 1)) + size([i for i in range(3) where i != 1])
  log "{}", range(2, 5)
  end game } }
score(p) = a + b
'''


@pytest.mark.parametrize("mode", MODES, ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items()) or "default")
def test_range_added_through_the_registry_runs_in_every_mode(write_ruleset: Callable[..., str],
                                                              mode: dict[str, bool]) -> None:
    program, diags = check_file(write_ruleset(RULES))
    assert program is not None, diags
    game = Ruleset(program, **mode).new_game(2, 1)
    assert game.error is None and game.finished
    lay = game.ruleset.compiled.layout
    assert [game.state.counters[lay.global_slots[k]] for k in "ab"] == [14 + 4 + 0, 10 + 2]
    assert "2, 3, 4" in game.log_lines(None)


@pytest.mark.parametrize(("call", "code"), [("range()", "E127"), ("range(1, 2, 3)", "E127"), ('range("a")', "E140")])
def test_range_is_typed_from_its_declaration(write_ruleset: Callable[..., str], call: str, code: str) -> None:
    rules = RULES.replace("size(range(n))", f"size({call})")
    _, diags = check_file(write_ruleset(rules))
    assert code in [d.code for d in diags if d.is_error]


def test_an_overlong_range_is_a_rule_error_not_a_memory_error(write_ruleset: Callable[..., str]) -> None:
    rules = RULES.replace("n = 4", "n = 4\n  a = size(range(0, 1000000 * 1000))").replace("counter a -1000..1000",
                                                                                         "counter a")
    for mode in MODES:
        program, diags = check_file(write_ruleset(rules))
        assert program is not None, diags
        game = Ruleset(program, **mode).new_game(2, 1)
        assert game.error is not None and "at most 100000" in game.error
