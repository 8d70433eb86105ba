"""Counter writes in generated code: only the clamp tests the value's proven range leaves live.

A counter with bounds clamps every write (`total += v` stores ``min(max(total + v, lo), hi)``). Where plain
Python adds to a local, the generated loop tested both ends at every update, although adding a value that is
never negative can never pass the lower bound of a counter that was within its bounds before. This module says
which of the two tests a write still needs, from what is known about the written value:

- compiler/sizes.py's range of the value (literals, loop variables over constant ranges, ``%``, …);
- a fact the enclosing statement `if` proves about a grid cell: in ``if board[c, r] > 0 { total += board[c, r] }``
  the second read of the cell is at least 1. :func:`test_facts` reads such facts from an `if`'s test (a named
  grid's cell compared with an int literal; `and` of such tests), keyed by the cell's shape (gridgen.fingerprint:
  the same grid, coordinates made of literals, variables, printed fields, ``+ - *`` and ``dx``/``dy``).

Why a fact stays true: expressions never write counters (only statements do), so a cell tested by an `if` holds
the tested value while its body's leading statements evaluate their values, as long as nothing before them can
change the cell or the names its coordinates read. :func:`keeps_facts` admits only a write of a global counter
of one declaration (it can reach no grid cell, and binds no name); any other statement ends the facts for the
rest of the body, before it is written (so a nested block, which may bind the coordinates' names again, never
sees them).

Why the old value is within the bounds: every write to a plain bounded counter clamps (the closures and this
code), which is what compiler/sizes.py already relies on; counters that hold tokens, track values, are set by an
option or are indexed by an enum are left with both tests. A `=` write needs no assumption about the old value.
The result is the same value the two tests would give, so digests are unchanged in every compile mode
(tests/test_clampgen.py compares games across the modes and with the closures).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields as _dc_fields
from typing import TYPE_CHECKING, Any

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen.gridgen import fingerprint
from liturgy.interpreter.codegen.locals import _scan

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen
    from liturgy.interpreter.compiler.compiler import Compiler


def fields(e: A.Expr) -> list[str]:
    """The dataclass fields of an expression node that may hold sub-expressions."""
    return [f.name for f in _dc_fields(e) if f.name not in ("span", "ty", "ref")]

Bounds = tuple[int | None, int | None]  # a least and a greatest value, each None when not known
_MIRROR = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "==": "=="}


def cell_key(e: A.Expr) -> Any:
    """The shape of a named grid's int cell (its grid and coordinates, gridgen.fingerprint), or None for anything
    else (a cell whose coordinates draw or read the state, or a grid held in a local)."""
    if not (isinstance(e, A.Cell) and e.ref is not None and e.ref[0] == "gridcell"):
        return None
    if e.ty is None or e.ty.kind != "int" or not isinstance(e.obj, A.Name):
        return None
    col, row = fingerprint(e.col), fingerprint(e.row)
    if col is None or row is None:
        return None
    return ("cell", e.ref[1].name, col, row)


def _int_literal(e: A.Expr) -> int | None:
    if isinstance(e, A.IntLit) and not isinstance(e.value, bool):
        return e.value
    if isinstance(e, A.Unary) and e.op == "-" and isinstance(e.operand, A.IntLit):
        v = e.operand.value
        return None if isinstance(v, bool) else -v
    return None


def test_facts(test: A.Expr) -> dict[Any, Bounds]:
    """Where ``test`` holds: bounds on the grid cells it compares with an int literal (``board[c, r] > 0``: at
    least 1), and both sides' facts for `and` (a cell tested on both sides: the tighter bound of each end)."""
    if isinstance(test, A.Binary) and test.op == "and":
        out = dict(test_facts(test.left))
        for key, (lo, hi) in test_facts(test.right).items():
            old_lo, old_hi = out.get(key, (None, None))
            out[key] = (lo if old_lo is None else old_lo if lo is None else max(lo, old_lo),
                        hi if old_hi is None else old_hi if hi is None else min(hi, old_hi))
        return out
    if not (isinstance(test, A.Binary) and test.op in _MIRROR):
        return {}
    op, cell, k = test.op, cell_key(test.left), _int_literal(test.right)
    if cell is None or k is None:  # `0 < board[c, r]`: the literal on the left
        op, cell, k = _MIRROR[test.op], cell_key(test.right), _int_literal(test.left)
    if cell is None or k is None:
        return {}
    bounds: Bounds = {">": (k + 1, None), ">=": (k, None), "<": (None, k - 1), "<=": (None, k),
                      "==": (k, k)}[op]
    return {cell: bounds}


def _names(e: Any, out: set[str]) -> set[str]:
    """The local names an expression reads (every `Name` in it, whatever it refers to: a superset is safe)."""
    if isinstance(e, A.Name):
        out.add(e.id)
    if isinstance(e, A.Expr):
        for k in fields(e):
            _names(getattr(e, k, None), out)
    elif isinstance(e, list | tuple):
        for x in e:
            _names(x, out)
    return out


def names_kept(test: A.Expr, body: Sequence[A.Stmt], comp: Compiler) -> bool:
    """Whether a statement `if`'s body leaves every name its test reads as it was (so what the test proves of
    those names, gridgen.narrowed's ranges, holds throughout the body): no `let`, assignment, loop or `as` of
    those names in it, and nothing left to the closure compiler (locals._scan)."""
    written, invalid = _scan(body, comp)
    return not invalid and not (written & _names(test, set()))


def keeps_facts(st: A.Stmt) -> bool:
    """Whether the cell facts of an enclosing `if` still hold after ``st`` runs: a write to a global counter of
    one declaration reaches no grid cell and binds no name (see the module's docstring)."""
    if not isinstance(st, A.Assign) or not isinstance(st.target, A.Name):
        return False
    ref: Any = st.target.ref
    return ref is not None and ref[0] == "counter" and type(ref[1]) is A.CounterDecl


def value_bounds(gen: ExprGen, e: A.Expr, facts: dict[Any, Bounds]) -> Bounds:
    """What is known of the int expression ``e``'s value here: a fact on its cell, else its proven range."""
    key = cell_key(e) if facts else None
    if key is not None and key in facts:
        return facts[key]
    known = gen.int_range(e)
    return (None, None) if known is None else known


def _plain_bounds(decl: A.CounterDecl) -> bool:
    """A counter whose every write clamps to its bounds (compiler/sizes.py's condition): its value is inside."""
    return (type(decl) is A.CounterDecl and not decl.is_flag and decl.track_values is None and decl.holds is None
            and decl.option is None and decl.index_enum is None)


def clamp_tests(decl: A.CounterDecl, op: str, value: Bounds) -> tuple[bool, bool]:
    """Whether a write ``op`` (``=``, ``+=``, ``-=``) of a value within ``value`` to ``decl`` still needs its lower
    and its upper clamp test: a bound the counter lacks needs none; a `=` of a value proven inside needs none;
    `+=` of a value never negative (`-=` of one never positive) cannot pass the lower bound, and the mirror
    case the upper one, when the old value is within the bounds."""
    lo, hi = decl.lo, decl.hi
    vlo, vhi = value
    if op == "=":
        return (lo is not None and (vlo is None or vlo < lo), hi is not None and (vhi is None or vhi > hi))
    if not _plain_bounds(decl):
        return lo is not None, hi is not None
    rises = vlo is not None and vlo >= 0 if op == "+=" else vhi is not None and vhi <= 0
    falls = vhi is not None and vhi <= 0 if op == "+=" else vlo is not None and vlo >= 0
    return lo is not None and not rises, hi is not None and not falls
