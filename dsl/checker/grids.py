"""Grids in the checker: the declaration (E310, E311), grid and direction names, and cells ``g[c, r]``
(E312, W045).

Kept in one module beside the checker's layers so the grid feature touches each layer with one line: the
declarations layer calls :func:`declare_grid` and :func:`check_grids`, the expressions layer calls
:func:`grid_name` when a name is not otherwise declared and :func:`cell` for ``g[c, r]``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from liturgy.dsl.checker import types as T
from liturgy.dsl.checker.program import Program, _Scope
from liturgy.dsl.checker.types import Ty
from liturgy.dsl.constructs.grids import CELL_KINDS, DIRECTION, DIRECTION_SETS, DIRECTIONS, MAX_GRID_CELLS
from liturgy.dsl.diagnostics import Span
from liturgy.dsl.frontend import ast as A

if TYPE_CHECKING:
    from liturgy.dsl.checker.declarations import DeclarationChecker
    from liturgy.dsl.checker.expressions import ExpressionChecker


def declare_grid(chk: DeclarationChecker, prog: Program, d: A.GridDecl, glob: dict[str, Span]) -> None:
    """A grid's name is global, like a zone's or a counter's."""
    if chk._declare(glob, d.name, d.span, "grid"):
        prog.grids[d.name] = d


def check_grids(chk: DeclarationChecker, prog: Program) -> None:
    """Each grid has at least one cell and at most :data:`MAX_GRID_CELLS` (E310), and its cells hold an int,
    a player or an enum value (E311); the cells' type is kept on the declaration for the passes after."""
    for g in prog.grids.values():
        if g.width < 1 or g.height < 1 or g.width * g.height > MAX_GRID_CELLS:
            chk.err("E310", f"grid `{g.name}` is {g.width} by {g.height}: a grid has 1 to {MAX_GRID_CELLS} cells",
                    g.span, hint="write the number of columns, then of rows: grid board 7 by 6 of player")
        assert g.cell is not None
        ty = chk.resolve_type(g.cell)
        if ty.kind not in CELL_KINDS and ty.kind != "any":
            chk.err("E311", f"a grid cell cannot hold {ty}", g.cell.span,
                    hint="a cell holds an int, a player or an enum value (or `none`)")
            ty = T.ANY
        g.cell_ty = ty
        if g.seen_by == "owner" and ty.kind not in ("player", "any"):
            chk.err("E391", f"grid `{g.name}` has no owners: `visible to owner` needs a grid `of player`", g.span,
                    hint="a cell is seen by the player it holds; write `hidden` for cells nobody sees")


def grid_name(chk: ExpressionChecker, e: A.Name) -> Ty | None:
    """A grid, a direction or a direction set named by ``e`` (its type), or None when ``e`` is none of them.

    Called after every declared name was tried, so a ruleset's own names (and enum values) hide the
    direction names rather than clash with them."""
    assert chk.prog is not None
    n = e.id
    g = chk.prog.grids.get(n)
    if g is not None:
        e.ref = ("grid", g)
        chk.used.add("grid:" + n)
        return Ty("grid", arg=n)
    if n in DIRECTIONS:
        e.ref = ("direction", n)
        return DIRECTION
    if n in DIRECTION_SETS:
        e.ref = ("directions", n)
        return T.list_of(DIRECTION)
    return None


def cell(chk: ExpressionChecker, e: A.Cell, scope: _Scope, statement: bool) -> Ty:
    """``g[c, r]``: g names a grid (E312), c and r are ints; a constant outside the grid is W045."""
    base = chk.expr(e.obj, scope)
    chk.expect(e.col, T.INT, scope)
    chk.expect(e.row, T.INT, scope)
    ref = e.obj.ref
    if not (isinstance(ref, tuple) and ref[0] == "grid"):
        if base.kind != "any":
            chk.err("E312", f"only a grid has cells `[column, row]`, not {base}", e.obj.span,
                    hint="declare one: grid board 7 by 6 of player")
        return T.ANY
    g: A.GridDecl = ref[1]
    e.ref = ("gridcell", g)
    for coord, limit, what in ((e.col, g.width, "column"), (e.row, g.height, "row")):
        v = _constant(coord)
        if v is not None and limit > 0 and not 0 <= v < limit:  # (an empty grid is E310 already)
            chk.warn("W045", f"{what} {v} is outside grid `{g.name}` ({what}s 0..{limit - 1})", coord.span,
                     hint="reading or writing it stops the game with a rule error")
    return g.cell_ty or T.ANY


def _constant(e: A.Expr) -> int | None:
    if isinstance(e, A.IntLit):
        return e.value
    if isinstance(e, A.Unary) and e.op == "-" and isinstance(e.operand, A.IntLit):
        return -e.operand.value
    return None
