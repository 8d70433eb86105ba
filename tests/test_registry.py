"""The construct registry is complete, and every pass reads it.

dsl/constructs/ declares each statement kind, expression kind and built-in once; dsl/checker/declarations.py
dispatches each declaration kind from one table. These tests fail when the AST has a node class the registry
does not declare, when a pass lacks a handler (or a declared fallback) for a core kind the registry declares,
when fuse meets an instruction kind it has no rule for or the formatter changes a kind's samples, when the
registry's child accessors miss a child of a node, or when the registry and a pass disagree about a built-in —
and they play the registered built-in `range`, added through the registry alone, in every compile mode
(tests/test_extensions.py does the same for a statement and an expression registered at test time).
"""
from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from liturgy.dsl import constructs
from liturgy.dsl.checker import declarations
from liturgy.dsl.checker.builtin_rules import BUILTIN_RULES
from liturgy.dsl.checker.expressions import EXPR_HANDLERS
from liturgy.dsl.checker.flow import FLOW_STMTS, FlowChecker, _Env
from liturgy.dsl.checker.program import BUILTIN_FUNCS
from liturgy.dsl.checker.statements import STMT_HANDLERS
from liturgy.dsl.checker.walk import effect_bodies
from liturgy.dsl.constructs import expressions as construct_exprs
from liturgy.dsl.constructs import statements as construct_stmts
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.frontend.includes import main_rulesets
from liturgy.dsl.loader import check_file
from liturgy.interpreter.codegen.fuselimits import FUSED
from liturgy.interpreter.codegen.kinds import EXPR_SOURCES
from liturgy.interpreter.codegen.locals import SCAN
from liturgy.interpreter.codegen.stmtgen import STMT_WRITERS
from liturgy.interpreter.compiler.expressions import EXPR_HANDLERS as CLOSURE_EXPR_HANDLERS
from liturgy.interpreter.compiler.machine import CONTROL_HANDLERS
from liturgy.interpreter.compiler.statements import STMT_HANDLERS as CLOSURE_STMT_HANDLERS
from liturgy.interpreter.engine import Ruleset
from liturgy.interpreter.runtime.builtins import pure_function

MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]
# declaration kinds handled outside the per-kind table: the game header (the driver), card files (loaded after
# every kind is known), steps (inside their round), includes (replaced by the front end, dsl/frontend/includes.py)
ELSEWHERE = {A.GameDecl, A.CardsDecl, A.StepDecl, A.IncludeDecl}
SHIPPED = [Path(p) for p in main_rulesets(
    [str(p) for p in sorted((Path(__file__).resolve().parent.parent / "rulesets").rglob("*.rules"))])]

# Every pass's handler table, keyed by node class, beside the registry table it must cover: a pass that
# dispatches on statement or expression kinds adds one line here. Each table spells out what it does with every
# core kind, a slower path included (the code generators' closure fallbacks are named per kind); extension
# constructs (dsl/constructs/extensions.py) are lowered by the parser, so no pass has, or needs, a line for one.
# Passes that dispatch on no kind: `fuse` (on instruction kinds: FUSED, checked below), the formatter (on
# grammar rules: every `*_stmt` and `*_decl` rule starts a line, dsl/frontend/layout.py; checked below on every
# kind's samples), the language server (declarations by kind, expressions through the registry's walkers).
Construct = constructs.StmtConstruct | constructs.ExprConstruct
PASSES: list[tuple[str, Mapping[type, Construct], Mapping[type, object]]] = [
    ("checker: statements", constructs.STATEMENTS, STMT_HANDLERS),
    ("checker: expressions", constructs.EXPRESSIONS, EXPR_HANDLERS),
    ("closure compiler: expressions", constructs.EXPRESSIONS, CLOSURE_EXPR_HANDLERS),
    # pure statements by their closure, the others by their step-machine instructions (both for `if`, `for`…)
    ("closure compiler: statements", constructs.STATEMENTS, {**CONTROL_HANDLERS, **CLOSURE_STMT_HANDLERS}),
    ("leak analysis: statements", constructs.STATEMENTS, FLOW_STMTS),
    ("code generator: statements", constructs.STATEMENTS, STMT_WRITERS),
    ("code generator: expressions", constructs.EXPRESSIONS, EXPR_SOURCES),
    ("code generator: locals cache", constructs.STATEMENTS, SCAN),
]


def _core(registry: Mapping[type, Construct]) -> set[type]:
    """The kinds a pass handles itself: all but the extensions, which the parser lowers to core kinds."""
    return {node for node, c in registry.items() if c.extension is None}


def _subclasses(base: type) -> set[type]:
    return {c for _, c in inspect.getmembers(A, inspect.isclass) if issubclass(c, base) and c is not base}


def test_every_declaration_kind_has_exactly_one_place_in_the_checker() -> None:
    kinds = _subclasses(A.Decl)
    table = set(declarations._DECLARE)
    assert kinds - ELSEWHERE <= table, f"no checker handler for {sorted(k.__name__ for k in kinds - ELSEWHERE - table)}"
    assert not table & ELSEWHERE


@pytest.mark.parametrize(("base", "registry"), [(A.Stmt, constructs.STATEMENTS), (A.Expr, constructs.EXPRESSIONS)],
                         ids=["statements", "expressions"])
def test_every_node_class_is_declared_in_the_registry(base: type, registry: Mapping[type, Construct]) -> None:
    nodes = _subclasses(base)
    assert nodes - set(registry) == set(), f"not in the registry: {sorted(c.__name__ for c in nodes - set(registry))}"
    assert set(registry) - nodes == set(registry) - _core(registry)  # an extension's node may live with its entry
    for node, c in registry.items():
        assert c.node is node and c.syntax


@pytest.mark.parametrize(("name", "registry", "handlers"), PASSES, ids=[p[0] for p in PASSES])
def test_every_pass_has_a_handler_for_every_registered_kind(name: str, registry: Mapping[type, Construct],
                                                            handlers: Mapping[type, object]) -> None:
    missing = sorted(c.__name__ for c in _core(registry) - set(handlers))
    extra = sorted(c.__name__ for c in set(handlers) - _core(registry))
    assert not missing, f"{name} has no handler for {missing}"
    assert not extra, f"{name} handles kinds the registry does not declare (or an extension's): {extra}"
    assert all(callable(h) or (isinstance(h, str) and h) for h in handlers.values())


def test_the_closure_compiler_leaves_only_suspending_statements_to_the_step_machine() -> None:
    """A statement without a closure is one that always suspends (`choose`, `simultaneously`)."""
    facts = type("Facts", (), {"suspending": frozenset(), "kinds": {}})()
    for node in _core(constructs.STATEMENTS) - set(CLOSURE_STMT_HANDLERS):
        c = constructs.STATEMENTS[node]
        assert node in CONTROL_HANDLERS and c.suspends_when is not None and c.suspends_when(None, facts), node


def _all_samples_ruleset(tmp_path: Path) -> str:
    import random

    from ruleset_strategies import filled_samples, world_ruleset, write_world

    decls: list[str] = []
    body: list[str] = []
    for table in (constructs.STATEMENTS, constructs.EXPRESSIONS):
        for node in table:
            for more, lines in filled_samples(node, random.Random(11)):
                decls += more
                body += ["if true {", *lines, "}"]
    return write_world(tmp_path, world_ruleset(body, decls))


def test_fuse_and_the_formatter_take_every_kind(tmp_path: Path) -> None:
    """Every construct's samples in one ruleset: each instruction kind its compiled code holds has a rule in
    fuse's FUSED table, and `liturgy fmt` lays it out without changing the program (it refuses otherwise)."""
    from liturgy.dsl.frontend.layout import format_text

    path = _all_samples_ruleset(tmp_path)
    program, diags = check_file(path)
    assert program is not None, [str(d) for d in diags]
    compiled = Ruleset(program).compiled
    kinds = {info[1] for info in compiled.ins_info.values()}
    assert kinds and kinds <= set(FUSED), kinds - set(FUSED)
    text = Path(path).read_text(encoding="utf-8")
    assert format_text(format_text(text, path), path) == format_text(text, path)


def _fields_of(node: object, kind: type) -> list[object]:
    """Every value of ``kind`` in the node's dataclass fields (in lists, `if` branches and prompts too)."""
    out: list[object] = []
    for f in dataclasses.fields(node):  # type: ignore[arg-type]
        v = getattr(node, f.name)
        items = v if isinstance(v, list) else [v]
        for item in items:
            if isinstance(item, tuple):  # an `if` branch: (condition, block)
                out += [x for x in item if isinstance(x, kind)]
            elif isinstance(item, A.Prompt):
                out += list(item.args)
            elif isinstance(item, kind):
                out.append(item)
    return out


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_the_registry_reaches_every_child_of_every_node(path: Path) -> None:
    """On every shipped ruleset: each statement's declared child expressions and blocks, and each expression's
    declared children, are exactly the node's own (so a walker built on the registry misses nothing)."""
    program, diags = check_file(str(path))
    assert program is not None, diags
    bodies: list[list[A.Stmt]] = [program.setup, program.finish, *(s.body for s in program.steps)]
    bodies += [p.body for p in program.procs.values()] + [h.body for hs in program.handlers.values() for h in hs]
    bodies += [b for c in program.cards for b in effect_bodies(program, c)]
    seen: set[type] = set()
    for body in bodies:
        for s in construct_stmts.walk(body):
            c = constructs.STATEMENTS[type(s)]
            assert [id(e) for e in c.exprs(s)] == [id(e) for e in _fields_of(s, A.Expr)], type(s).__name__
            nested = [x for b in c.blocks(s) for x in b]
            assert sorted(map(id, nested)) == sorted(id(x) for x in _block_items(s)), type(s).__name__
            seen.add(type(s))
            for top in c.exprs(s):
                for e in construct_exprs.walk(top):
                    assert [id(x) for x in construct_exprs.children(e)] == [id(x) for x in _fields_of(e, A.Expr)]
    assert seen


def _block_items(s: A.Stmt) -> list[object]:
    out: list[object] = []
    for f in dataclasses.fields(s):
        v = getattr(s, f.name)
        if isinstance(v, list):
            for item in v:
                if isinstance(item, A.Stmt):
                    out.append(item)
                elif isinstance(item, tuple):
                    out += item[1]
    return out


def test_every_builtin_is_declared_once_and_the_checker_agrees() -> None:
    assert constructs.NAMES == BUILTIN_FUNCS
    # a typing rule exactly for the built-ins whose declaration alone cannot type a call
    assert set(BUILTIN_RULES) == {n for n, b in constructs.BUILTINS.items() if not b.typed_by_table}
    for name, b in constructs.BUILTINS.items():
        assert b.name == name and b.doc and b.params and 0 <= b.required <= len(b.params)
        assert b.reads in ("nothing", "state", "rng")
        if b.reference is not None:  # pure; its type may still follow its argument (`sort`: the same list type)
            assert b.reads == "nothing" and callable(pure_function(name))
    assert set(constructs.PURE) == {n for n, b in constructs.BUILTINS.items() if b.reference is not None}
    assert constructs.NAMES - set(constructs.PURE) == constructs.STATEFUL


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


def test_the_leak_analysis_refuses_a_statement_kind_it_has_no_rule_for(tmp_path: Path) -> None:
    """A new statement the flow check does not know must stop it, not pass unexamined (issue 29)."""

    @dataclasses.dataclass(eq=False)
    class Swap(A.Stmt):
        a: A.Expr
        b: A.Expr

    path = tmp_path / "g.rules"
    path.write_text('game "G" { players 2..2 }\nround { step s { end game } }\nscore(p) = 0\n', encoding="utf-8")
    program, _ = check_file(str(path))
    assert program is not None
    flow = FlowChecker(program, lambda *args, **kwargs: None)
    span = program.steps[0].body[0].span
    with pytest.raises(AssertionError, match="no rule for Swap"):
        flow.stmt(Swap(span, A.IntLit(span, 1), A.IntLit(span, 2)), _Env())


POOL = """game "G" { players 2..2 }
card Tile { rank: int }
cards "tiles.yaml"
zone bag: deck hidden of Tile
pool gems {
  bank: 40
  per player purse
}
round {
  step s "S" {
    for p in players {
      BODY
    }
    end game
  }
}
score(p) = p.purse
"""


@pytest.mark.parametrize(("body", "leaks"), [
    ("transfer top(bag).rank from bank to p.purse", True),  # the hidden top card's rank, counted in public
    ("transfer 2 from bank to p.purse as got\n      log \"{}\", got", False),
    ("reveal bag\n      transfer top(bag).rank from bank to p.purse", False),  # shown to all first
])
def test_a_transfer_of_a_hidden_cards_value_is_a_leak(tmp_path: Path, body: str, leaks: bool) -> None:
    """`transfer` puts its amount in pool holders every player sees: the flow check treats it as it treats an
    assignment to a public counter (W075); before issue 29 it skipped the statement silently."""
    (tmp_path / "tiles.yaml").write_text("kind: Tile\nstart: bag\ncards:\n  - {name: A, rank: 3}\n"
                                         "  - {name: B, rank: 4}\n", encoding="utf-8")
    path = tmp_path / "g.rules"
    path.write_text(POOL.replace("BODY", body), encoding="utf-8")
    program, diags = check_file(str(path))
    assert program is not None, [str(d) for d in diags]
    assert any(d.code == "W075" for d in diags) == leaks, [str(d) for d in diags]


@pytest.mark.parametrize(("module", "must_not_load"), [
    ("liturgy.dsl.constructs", "liturgy.dsl.checker"),  # the registry stands below the checker
    ("liturgy.interpreter.compiler.compiler", "liturgy.interpreter.codegen"),  # the compiler is handed them
], ids=["registry-checker", "compiler-codegen"])
def test_the_layers_do_not_import_each_other_back(module: str, must_not_load: str) -> None:
    """Issue 29's import cycles stay broken: importing the lower layer alone loads nothing of the upper one."""
    import subprocess
    import sys

    code = (f"import sys, {module}; loaded = [m for m in sys.modules if m.startswith({must_not_load!r})]; "
            "print(loaded); sys.exit(1 if loaded else 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
