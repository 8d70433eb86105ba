"""How the expression generator writes each expression kind, spelled out per kind (issue 29).

:mod:`.exprgen` writes most expressions as Python text and calls the closure compiler's function for the rest.
Which kinds may take that slower path, and when, is declared here instead of left to a final ``else``: a kind
the table does not list stops code generation with an error naming it, and tests/test_registry.py fails when
the table and the construct registry (dsl/constructs/expressions.py) disagree. An extension construct never
gets here: the parser lowered it to core kinds (dsl/constructs/extensions.py).
"""
from __future__ import annotations

from typing import Any

from liturgy.dsl.frontend import ast as A

WRITTEN = "written"  # always Python text of its own
# Each kind: WRITTEN, or when it falls back to its closure (``ExprGen.closure``); beyond ``MAX_TEXT_DEPTH``
# levels every kind does (a subtree's closure, so deep expressions cannot overflow Python's parser).
EXPR_SOURCES: dict[type[A.Expr], str] = {
    A.IntLit: WRITTEN, A.StrLit: WRITTEN, A.BoolLit: WRITTEN, A.NoneLit: WRITTEN,
    A.Name: "closure for a name the generator has no text for (a parameter bound by the caller's env)",
    A.Attr: "closure for an attribute that is not a counter, a zone or a card field",
    A.Index: WRITTEN,
    A.Cell: "closure for a cell the checker did not resolve to a grid cell",
    A.Call: "closure for a call the generator does not write (ExprGen._call_ok: a built-in without a template)",
    A.Aggregate: "closure for `sort(…)` (rare); the other aggregates are generated loop functions",
    A.ListComp: WRITTEN,  # a generated loop function
    A.ListLit: WRITTEN, A.Unary: WRITTEN, A.Cond: WRITTEN, A.Binary: WRITTEN,
    A.LetIn: WRITTEN,  # codegen/letgen.py
}


def fallback(gen: Any, e: A.Expr) -> str:
    """The closure call for ``e``, where its kind declares that fallback; any other kind is a generator bug."""
    how = EXPR_SOURCES.get(type(e))
    if how is None or how == WRITTEN:
        raise AssertionError(f"the expression generator has no source for {type(e).__name__}: declare it in "
                             "interpreter/codegen/kinds.py EXPR_SOURCES")
    text: str = gen.closure(e)
    return text
