"""The closure compiler dispatches on node class through tables; every node kind has a handler in every pass.

A new expression, statement or built-in that the compiler's tables miss fails here, not in the middle of a game:
expressions.EXPR_HANDLERS (every expression class), statements.STMT_HANDLERS (every statement that can run
without a decision), machine.CONTROL_HANDLERS (every statement the step machine may have to compile) and
expressions.BUILTIN_HANDLERS (every built-in that is not a registered pure function).
"""
from __future__ import annotations

import inspect

from liturgy.dsl import constructs
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.expressions import BUILTIN_HANDLERS, EXPR_HANDLERS
from liturgy.interpreter.compiler.machine import CONTROL_HANDLERS
from liturgy.interpreter.compiler.statements import STMT_HANDLERS

# always suspend: only the step machine compiles them
ALWAYS_SUSPEND = {A.Choose, A.Simultaneous}
# may contain a statement that suspends (or be one): the step machine compiles them when they do
MAY_SUSPEND = {A.If, A.For, A.RepeatWhile, A.Do, A.Fire}


def _kinds(base: type) -> set[type]:
    return {c for _, c in inspect.getmembers(A, inspect.isclass) if issubclass(c, base) and c is not base}


def _names(kinds: set[type]) -> list[str]:
    return sorted(k.__name__ for k in kinds)


def test_every_expression_class_has_a_closure_handler() -> None:
    kinds = _kinds(A.Expr)
    assert set(EXPR_HANDLERS) == kinds, f"missing {_names(kinds - set(EXPR_HANDLERS))}"


def test_every_statement_that_runs_without_a_decision_has_a_closure_handler() -> None:
    kinds = _kinds(A.Stmt) - ALWAYS_SUSPEND
    assert set(STMT_HANDLERS) == kinds, f"missing {_names(kinds - set(STMT_HANDLERS))}"


def test_every_statement_that_may_suspend_or_jump_has_a_step_machine_handler() -> None:
    needed = ALWAYS_SUSPEND | MAY_SUSPEND | {A.Break}  # a `break` inside a suspending loop is a jump
    assert set(CONTROL_HANDLERS) == needed, f"missing {_names(needed - set(CONTROL_HANDLERS))}"


def test_every_builtin_has_a_closure() -> None:
    """Registered pure built-ins run their reference implementation; every other one has its own handler."""
    assert set(BUILTIN_HANDLERS) == constructs.STATEFUL
    assert not set(BUILTIN_HANDLERS) & set(constructs.PURE)
