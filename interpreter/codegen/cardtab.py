"""Per-card tables: an expression of one card's printed fields, computed for every card once, read as one lookup.

A card's printed fields never change during a game, so ``2 + m.fc + 8 * m.fy`` (the slot of ``board[m.fc,
m.fy]``) or ``m.tc != m.fc`` has one value per card id. Where the card is a Python local that is never `none`
(a loop over a zone, a choice's filter), the generator writes ``_kT[m]`` with ``_kT`` that value for every
card id, computed while compiling: a choice's `where` over 154 step cards then reads one table entry where it
did two field reads and two operations (Breakthrough, Hex).

Only a small pure subset is tabulated: literals, the card variable's printed fields, ``+ - *``, comparisons,
``and``/``or``/``not``, unary ``-`` and ``if … then … else``. A table is made only when every card id gives a
value without an error (a field a card lacks, an overflow past 64 bits): then no card can reach the error the
expression would raise, and the table holds exactly what the written expression computes (the same Python
operators on the same values). Anything else is written as before.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen.hoist import bare

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen

_LO, _HI = -(1 << 63), (1 << 63) - 1
_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
_ARITH = frozenset({"+", "-", "*"})
_PLAIN_VALUES = (int, str, type(None))  # bool is an int


class _Refused(Exception):
    """The expression is outside the tabulated subset, or some card gives no value."""


def _card_var(e: A.Expr, found: set[str]) -> bool:
    """Whether ``e`` is in the subset; collects the local variables it reads into ``found``."""
    if isinstance(e, A.IntLit | A.BoolLit | A.StrLit | A.NoneLit):
        return True
    if isinstance(e, A.Attr):
        ref = e.ref
        if not (ref is not None and ref[0] == "field" and isinstance(e.obj, A.Name)):
            return False
        return _card_var(e.obj, found)
    if isinstance(e, A.Name):
        ref = e.ref
        if ref is None or ref[0] != "local" or e.ty is None or e.ty.kind != "card":
            return False  # only a card's id indexes the tables
        found.add(e.id)
        return True
    if isinstance(e, A.Binary):
        return (e.op in _OPS or e.op in ("and", "or")) and _card_var(e.left, found) and _card_var(e.right, found)
    if isinstance(e, A.Unary):
        return e.op in ("-", "not") and _card_var(e.operand, found)
    if isinstance(e, A.Cond):
        return _card_var(e.test, found) and _card_var(e.then, found) and _card_var(e.orelse, found)
    return False


def _eval(e: A.Expr, var: str, cid: int, fields: Callable[[str], list[Any]]) -> Any:  # noqa: C901 - one dispatch
    """The value the generated text of ``e`` has with ``var`` the card ``cid``; _Refused where it would fail.
    The definition, card by card: :func:`_column` computes the same for all cards at once (tests/test_cardtab.py
    holds the two equal)."""
    if isinstance(e, A.IntLit | A.BoolLit | A.StrLit):
        return e.value
    if isinstance(e, A.NoneLit):
        return None
    if isinstance(e, A.Name):
        if e.id != var:  # pragma: no cover - _card_var admits one variable only
            raise _Refused
        return cid
    if isinstance(e, A.Attr):
        v = fields(e.name)[cid]
        if not isinstance(v, _PLAIN_VALUES):
            raise _Refused
        return v
    if isinstance(e, A.Unary):
        v = _eval(e.operand, var, cid, fields)
        if e.op == "not":
            return not v
        if v.__class__ is not int or not _LO <= -v <= _HI:
            raise _Refused
        return -v
    if isinstance(e, A.Cond):
        if _eval(e.test, var, cid, fields):
            return _eval(e.then, var, cid, fields)
        return _eval(e.orelse, var, cid, fields)
    assert isinstance(e, A.Binary)
    a = _eval(e.left, var, cid, fields)
    if e.op in ("and", "or"):  # the generated text joins bool(…) of both sides: a bool
        if bool(a) == (e.op == "or"):
            return bool(a)
        return bool(_eval(e.right, var, cid, fields))
    b = _eval(e.right, var, cid, fields)
    if e.op in _ARITH:
        if a.__class__ is not int or b.__class__ is not int:
            raise _Refused
        out = _OPS[e.op](a, b)
        if not _LO <= out <= _HI:
            raise _Refused
        return out
    if e.op not in ("==", "!=") and (a is None or b is None or type(a) is not type(b)):
        raise _Refused  # an ordering of none or of mixed kinds: leave the error to the written expression
    return _OPS[e.op](a, b)


def _column(e: A.Expr, var: str, cids: list[int], fields: Callable[[str], list[Any]]) -> list[Any]:  # noqa: C901 - one dispatch on expression kind
    """:func:`_eval` of ``e`` for each card of ``cids`` at once, in their order: one pass of the tree per table,
    not one per card (Slay the Spire's tables were ~12 % of its compile, one recursive call per node and card).

    Exactly :func:`_eval`'s values: each node applies the same Python operator to the same values card by card,
    and a part :func:`_eval` evaluates only for some cards (a branch of ``if``, the right side of ``and``/``or``)
    is evaluated for those cards only, and not at all when there are none, so a card that would refuse is met
    here exactly when it is met there. Every refusal ends the whole table either way (:func:`table`)."""
    if not cids:
        return []
    if isinstance(e, A.IntLit | A.BoolLit | A.StrLit):
        return [e.value] * len(cids)
    if isinstance(e, A.NoneLit):
        return [None] * len(cids)
    if isinstance(e, A.Name):
        if e.id != var:  # pragma: no cover - _card_var admits one variable only
            raise _Refused
        return list(cids)
    if isinstance(e, A.Attr):
        column = fields(e.name)
        out = [column[c] for c in cids]
        if not all(isinstance(v, _PLAIN_VALUES) for v in out):
            raise _Refused
        return out
    if isinstance(e, A.Unary):
        vs = _column(e.operand, var, cids, fields)
        if e.op == "not":
            return [not v for v in vs]
        if not all(v.__class__ is int and _LO <= -v <= _HI for v in vs):
            raise _Refused
        return [-v for v in vs]
    if isinstance(e, A.Cond):
        tests = [bool(t) for t in _column(e.test, var, cids, fields)]
        yes = iter(_column(e.then, var, [c for c, t in zip(cids, tests, strict=True) if t], fields))
        no = iter(_column(e.orelse, var, [c for c, t in zip(cids, tests, strict=True) if not t], fields))
        return [next(yes) if t else next(no) for t in tests]
    assert isinstance(e, A.Binary)
    left = _column(e.left, var, cids, fields)
    if e.op in ("and", "or"):  # as _eval: the left side decides where it can, the right side's bool elsewhere
        decided = e.op == "or"
        lefts = [bool(a) for a in left]
        rest = iter(_column(e.right, var, [c for c, a in zip(cids, lefts, strict=True) if a != decided], fields))
        return [a if a == decided else bool(next(rest)) for a in lefts]
    right = _column(e.right, var, cids, fields)
    op = _OPS[e.op]
    if e.op in _ARITH:
        if not all(a.__class__ is int and b.__class__ is int for a, b in zip(left, right, strict=True)):
            raise _Refused
        out = [op(a, b) for a, b in zip(left, right, strict=True)]
        if not all(_LO <= v <= _HI for v in out):
            raise _Refused
        return out
    if e.op not in ("==", "!=") and not all(
            a is not None and b is not None and type(a) is type(b) for a, b in zip(left, right, strict=True)):
        raise _Refused  # an ordering of none or of mixed kinds: leave the error to the written expression
    return [op(a, b) for a, b in zip(left, right, strict=True)]


def card_source(gen: ExprGen, e: A.Expr) -> tuple[str, str] | None:
    """(variable, Python source of the card id) when ``e`` reads one card local that is never `none`, else None."""
    found: set[str] = set()
    if not _card_var(e, found) or len(found) != 1:
        return None
    (var,) = found
    comp = gen.comp
    if var in comp.subst and not (comp.subst is gen.subst_owner and var in gen.subst_src):
        return None  # a closure would be called for it: not a plain name
    if var in comp.subst:
        src = gen.subst_src[var]
    elif var in gen.var_src:
        src = gen.var_src[var]
    elif gen.reader is not None:
        src = gen.read_env(var)  # as _local reads it: a marker of the function's Python local
    else:
        return None
    name = bare(src)
    if not name.isidentifier() and not name.startswith("\x00"):
        return None
    if not gen.is_nonnull(name):
        return None
    return var, name


def table(gen: ExprGen, e: A.Expr, var: str, value: Callable[[Any], Any] = lambda v: v) -> tuple[Any, ...] | None:
    """``value`` of ``e`` for every card id, or None when some card gives none (or the card data is not there)."""
    comp = gen.comp
    ncards = len(comp.card_def)
    if ncards == 0:
        return None

    def fields(name: str) -> list[Any]:
        values = comp.field_lists.get(name)
        if values is None or len(values) != ncards:
            raise _Refused
        return values

    try:
        return tuple(value(v) for v in _column(e, var, list(range(ncards)), fields))
    except _Refused:
        return None


def tabulated(gen: ExprGen, e: A.Expr) -> str | None:
    """Source reading ``e`` from its per-card table, or None where it is not worth it or not possible."""
    if not isinstance(e, A.Binary | A.Unary | A.Cond):
        return None  # a literal, a name or one field read costs what the lookup would
    found = card_source(gen, e)
    if found is None:
        return None
    values = table(gen, e, found[0])
    if values is None:
        return None
    return f"{gen.const(values)}[{found[1]}]"


def tabulated_slot(gen: ExprGen, col: A.Expr, row: A.Expr, base: int, width: int, height: int) -> str | None:
    """Source of the slot of ``g[col, row]`` from a per-card table, when both read one card's fields and every
    card's cell is on the grid (then no card reaches the off-grid error)."""
    probe = A.Binary(col.span, "+", col, row)  # the variables of both coordinates at once
    found = card_source(gen, probe)
    if found is None:
        return None
    cols, rows = table(gen, col, found[0]), table(gen, row, found[0])
    if cols is None or rows is None:
        return None
    if not all(c.__class__ is int and r.__class__ is int and 0 <= c < width and 0 <= r < height
               for c, r in zip(cols, rows, strict=True)):
        return None
    values = tuple(base + c + width * r for c, r in zip(cols, rows, strict=True))
    return f"{gen.const(values)}[{found[1]}]"
