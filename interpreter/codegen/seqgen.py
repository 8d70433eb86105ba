"""Reads of one item in generated code: a field of a zone's top or bottom card, an item of a list by number.

Each is written so the common case takes one test and no call, and every other case reaches the same error as
the closures (a field of no card, a list index out of range), in the same order of evaluation.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from liturgy.dsl.frontend import ast as A

# a Python local's name, a marker of one that is always a local (a lazy one may become an ``env`` read, which
# the test would repeat) or an int literal
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\x00_E[0-9]+\x00|-?[0-9]+")

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen


def end_card(gen: ExprGen, e: A.Expr) -> tuple[str, str] | None:
    """For ``top(Z)`` or ``bottom(Z)`` of a zone written simply: Z's index source and the list index of that
    card. A field of it is then read in one test (is Z empty?), not a `none` card and a `none` test on it: the
    zone is evaluated first either way, and an empty one is the same error."""
    ref: Any = e.ref
    if not (isinstance(e, A.Call) and ref is not None and tuple(ref[:2]) in (("call_builtin", "top"),
            ("call_builtin", "bottom")) and len(e.args) == 1):
        return None
    z = gen._zone(e.args[0])
    return None if z is None else (z, "-1" if ref[1] == "top" else "0")


def index(gen: ExprGen, obj: str, at: A.Expr, src: str) -> str:
    """``L[k]`` (``obj``, the list's source, ``src`` the index's): for a number k >= 0, the item read in place
    when the list is long enough and ``_index`` (its error) only when it is not; any other index through
    ``_index``. Goofspiel's `top_bidders[0]` was a call twice a turn."""
    if not (isinstance(at, A.IntLit) and type(at.value) is int and at.value >= 0):
        if _PLAIN.fullmatch(obj.strip("()")) and _PLAIN.fullmatch(src.strip("()")):
            # two plain names (Hex's `todo[next]`): read in either order, they neither fail nor change, so the
            # bounds test is written in place and only an index out of range calls ``_index`` for its error
            return f"({obj}[{src}] if 0 <= {src} < len({obj}) else _index({obj}, {src}))"
        return f"_index({obj}, {src})"
    t = gen._name("_t")
    k = at.value
    test = f"({t} := {obj})" if k == 0 else f"len({t} := {obj}) > {k}"
    return f"({t}[{k}] if {test} else _index({t}, {k}))"
