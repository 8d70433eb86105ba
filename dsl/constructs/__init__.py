"""The registry of language constructs: each statement kind, expression kind and built-in declared once.

- :mod:`.statements` — ``STATEMENTS``: node class -> syntax, child blocks and expressions, names bound,
  whether it can suspend the step machine;
- :mod:`.expressions` — ``EXPRESSIONS``: node class -> syntax, child expressions, names bound;
- :mod:`.builtins` — ``BUILTINS``: name -> parameters, arity, result type, what it reads, doc, and (for pure
  ones) the reference implementation.

Every pass reads these tables; tests/test_registry.py fails when a pass lacks a handler for a kind declared
here, or a node class of dsl/frontend/ast.py is not declared.
"""
from liturgy.dsl.constructs.builtins import (
    BUILTINS,
    MAX_BUILT_LIST,
    NAMES,
    PURE,
    STATEFUL,
    Builtin,
    BuiltinError,
    Param,
    PureBuiltin,
)
from liturgy.dsl.constructs.expressions import EXPRESSIONS, ExprConstruct
from liturgy.dsl.constructs.statements import STATEMENTS, StmtConstruct

__all__ = [
    "BUILTINS", "EXPRESSIONS", "MAX_BUILT_LIST", "NAMES", "PURE", "STATEFUL", "STATEMENTS", "Builtin", "BuiltinError",
    "ExprConstruct", "Param", "PureBuiltin", "StmtConstruct",
]
