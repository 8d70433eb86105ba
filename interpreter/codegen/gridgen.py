"""Grids in generated code: a cell's slot as inline arithmetic with one bounds test, and the grid built-ins with
the grid's size and tables as constants, so reading ``board[c, r]`` costs what reading a counter costs.

Each form evaluates its operands once and in the closures' order (column, then row) and raises the closures'
error off the grid (:func:`~liturgy.interpreter.runtime.grids.off_grid`), so both paths give the same digests.
A grid argument that is not a grid's own name (a local holding one) is left to the closures.
"""
from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from liturgy.dsl import constructs
from liturgy.dsl.constructs.grids import DIRECTION_SETS, DIRECTIONS, OPPOSITE
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import cardtab
from liturgy.interpreter.codegen.locals import _scan
from liturgy.interpreter.compiler import budgets
from liturgy.interpreter.runtime.graphs import overlay_of
from liturgy.interpreter.runtime.grids import GridInfo, off_grid

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen

# the graph walks (runtime/graphs.py) are written here too: a call of the walker's method, no closure per argument
GRAPH_BUILTINS = frozenset({"neighbours", "adjacent", "reach", "distance"})
GRID_BUILTINS = frozenset({"on_grid", "line", "span", "width", "height", "ord"}) | GRAPH_BUILTINS
# direction built-ins written as a lookup in their table (a direction value is always one of its keys)
DIRECTION_TABLES: dict[str, dict[str, object]] = {
    "opposite": dict(OPPOSITE),
    "dx": {d: dc for d, (dc, _) in DIRECTIONS.items()},
    "dy": {d: dr for d, (_, dr) in DIRECTIONS.items()},
}
NAMESPACE = {"_off_grid": off_grid}


def direction_lookup(gen: ExprGen, name: str, d: str) -> str:
    """`dx(d)`, `dy(d)`, `opposite(d)`: a lookup in the table, or the value itself when ``d`` is a known direction
    (an unrolled loop's item, codegen/unroll.py)."""
    table = DIRECTION_TABLES[name]
    known = _direction(gen, d)
    return repr(table[known]) if known is not None else f"{gen.const(table)}[{d}]"


def _direction(gen: ExprGen, src: str) -> str | None:
    """The direction ``src`` always is: a direction name written as a constant of the generated code or a literal."""
    value = gen.ns.get(src) if src.startswith("_k") else src[1:-1] if src[:1] == "'" and src[-1:] == "'" else None
    return value if isinstance(value, str) and value in DIRECTIONS else None


def _static(gen: ExprGen, e: A.Expr) -> GridInfo | None:
    ref = e.ref
    if isinstance(ref, tuple) and ref and ref[0] == "grid":
        return gen.comp.layout.grids[ref[1].name]
    return None


def constant(gen: ExprGen, e: A.Expr) -> int | None:
    """The value of an int expression known when the ruleset is compiled: a literal, a named grid's
    `width`/`height`, and `+`, `-`, `*` of those (``board[c, height(board) - 1]`` reads one fixed row)."""
    if isinstance(e, A.IntLit):
        return None if isinstance(e.value, bool) else e.value
    if isinstance(e, A.Unary) and e.op == "-":
        v = constant(gen, e.operand)
        return None if v is None else -v
    if isinstance(e, A.Binary) and e.op in _FOLD:
        a, b = constant(gen, e.left), constant(gen, e.right)
        return None if a is None or b is None else _FOLD[e.op](a, b)
    if isinstance(e, A.Call) and e.ref is not None and e.ref[0] == "call_builtin" and e.args:
        g = _static(gen, e.args[0])
        if g is not None and e.ref[1] in ("width", "height"):
            return g.width if e.ref[1] == "width" else g.height
    return None


_FOLD: dict[str, Callable[[int, int], int]] = {"+": operator.add, "-": operator.sub, "*": operator.mul}


def slot(gen: ExprGen, e: A.Cell) -> str:
    """Source for the slot of ``g[c, r]``: digits when both are constants on the grid, and no bounds test for a
    coordinate known to be on the grid (a constant, or a loop's variable over a constant `range`)."""
    ref = A.ref_of(e)
    assert ref[0] == "gridcell", ref
    g = gen.comp.layout.grids[ref[1].name]
    b, w, h = g.base, g.width, g.height
    cc, rc = constant(gen, e.col), constant(gen, e.row)
    if cc is not None and rc is not None and 0 <= cc < w and 0 <= rc < h:
        return str(b + cc + w * rc)
    a = gen.around
    near = _near(gen, g, e.col, e.row) if a is not None else None
    if a is not None and near is not None and _on(gen, None, "", w, e.col) and _on(gen, None, "", h, e.row):
        return f"({a.index} + {b + near[0] + w * near[1]})"  # a neighbour the test proved on the grid
    if cc is None and rc is None:
        tab = cardtab.tabulated_slot(gen, e.col, e.row, b, w, h)  # a cell named by one card's fields
        if tab is not None:
            return tab
    c_src = str(cc) if cc is not None else gen.src(e.col)
    r_src = str(rc) if rc is not None else gen.src(e.row)
    cc = int(c_src) if cc is None and _INT_SRC.fullmatch(c_src) else cc  # an unrolled loop's item (unroll.py)
    rc = int(r_src) if rc is None and _INT_SRC.fullmatch(r_src) else rc
    if cc is not None and rc is not None and 0 <= cc < w and 0 <= rc < h:
        return str(b + cc + w * rc)
    tests = []
    tc, tr = c_src, r_src
    if not _on(gen, cc, c_src, w, e.col):
        tc = gen._name("_t")
        tests.append(f"(0 <= ({tc} := {c_src}) < {w})")
    if not _on(gen, rc, r_src, h, e.row):
        tr = gen._name("_t")
        tests.append(f"(0 <= ({tr} := {r_src}) < {h})")
    offset = f"{b + w * rc} + {tc}" if rc is not None else f"{b} + {tc} + {w} * {tr}"
    if not tests:
        return f"({offset})"
    return f"({offset} if {' & '.join(tests)} else _off_grid({g.name!r}, {w}, {h}, {tc}, {tr}))"


@dataclass(frozen=True)
class Around:
    """A loop over directions written out for one base cell (X, Y) proven on the grid (codegen/unroll.py): the
    shapes of X and Y (:func:`fingerprint`), the loop variable, the grid's size, and the Python local that holds
    X + W * Y. Inside, ``on_grid(g, X + dx(d), Y + dy(d))`` is one read of a table of that step
    (:meth:`GridInfo.steps_on`) and a cell ``g[X + dx(d), Y + dy(d)]`` the test proved on the grid is the slot
    ``index + K`` with K folded: no coordinate arithmetic, no bounds test."""

    col: Any
    row: Any
    var: str
    width: int
    height: int
    index: str
    aliases: dict[str, A.Expr] = field(default_factory=dict)  # names bound to X + dx(d) / Y + dy(d) in the copy


def around(gen: ExprGen, e: A.Aggregate) -> tuple[Around, str, str] | None:
    """For an aggregate over a direction set that tests ``on_grid(g, X + dx(d), Y + dy(d))`` (X and Y a variable
    other than d or a number): the :class:`Around` to write its items with, and X's and Y's sources.

    Only where nothing inside can give X or Y another meaning or read them elsewhere: no `let`, no nested
    loop or aggregate, no call but of built-ins (an inlined `fn`'s body names its own parameters, which could
    share X's name), and X and Y read as plain names or numbers (no test, no call, no error)."""
    if _directions(e.iterable) is None:
        return None
    nodes = budgets._nodes([e.where, e.elem])
    if any(isinstance(n, A.LetIn | A.Aggregate | A.ListComp) or (
            isinstance(n, A.Call) and (n.ref is None or n.ref[0] != "call_builtin")) for n in nodes):
        return None
    for call in nodes:
        ref: Any = call.ref
        if not (isinstance(call, A.Call) and ref is not None and ref[:2] == ("call_builtin", "on_grid")
                and len(call.args) == 3):
            continue
        g = _static(gen, call.args[0])
        x, y = _step(call.args[1], "dx", e.var), _step(call.args[2], "dy", e.var)
        if g is None or x is None or y is None:
            continue
        unsafe = gen.unsafe
        srcs = [gen.src(x), gen.src(y)]
        gen.unsafe = unsafe  # only plain names and numbers are used, which call nothing
        if all(_PLAIN_SRC.fullmatch(v.strip("()")) for v in srcs):
            return (Around(fingerprint(x), fingerprint(y), e.var, g.width, g.height, gen._name("_u")),
                    srcs[0].strip("()"), srcs[1].strip("()"))
    return None


def around_statement(gen: ExprGen, st: A.For) -> tuple[Around, str, str] | None:
    """For ``for d in DIRS { let nx = X + dx(d)  let ny = Y + dy(d) … }`` (the two `let`s first, X and Y plain
    names or numbers the body never writes, nx and ny written nowhere else in it) whose body tests
    ``on_grid(g, nx, ny)``: the :class:`Around` its copies are written with (nx and ny standing for their
    values), and X's and Y's sources. Only a body of statements, built-ins and no `let … in` (nothing there can
    name nx, ny, X or Y otherwise)."""
    if _directions(st.iterable) is None or len(st.body) < 3:
        return None
    lets = {x.name: x.value for x in st.body[:2] if isinstance(x, A.Let)}
    nodes = budgets._nodes(st.body[2:])
    cols = [n for n, v in lets.items() if _step(v, "dx", st.var) is not None]
    rows = [n for n, v in lets.items() if _step(v, "dy", st.var) is not None]
    if len(cols) != 1 or len(rows) != 1 or any(
            isinstance(n, A.LetIn | A.Let) or (isinstance(n, A.Call) and (n.ref is None or n.ref[0] != "call_builtin"))
            or (isinstance(n, A.Assign) and isinstance(n.target, A.Name) and n.target.id in lets) for n in nodes):
        return None
    x, y = _step(lets[cols[0]], "dx", st.var), _step(lets[rows[0]], "dy", st.var)
    assert x is not None and y is not None
    written, invalid = _scan(st.body[2:], gen.comp)
    if invalid or any(isinstance(v, A.Name) and (v.id in written or v.id in lets) for v in (x, y)):
        return None  # X or Y changed by the body (or by the copy's own `let`s: `let nx = nx + dx(d)`)
    for call in nodes:
        ref: Any = getattr(call, "ref", None)  # statements have none
        if not (isinstance(call, A.Call) and ref is not None and ref[:2] == ("call_builtin", "on_grid")
                and len(call.args) == 3 and isinstance(call.args[1], A.Name) and call.args[1].id == cols[0]
                and isinstance(call.args[2], A.Name) and call.args[2].id == rows[0]):
            continue
        g = _static(gen, call.args[0])
        srcs = [gen.src(x), gen.src(y)] if g is not None else []
        if g is not None and all(_PLAIN_SRC.fullmatch(v.strip("()")) for v in srcs):
            return (Around(fingerprint(x), fingerprint(y), st.var, g.width, g.height, gen._name("_u"),
                           {cols[0]: lets[cols[0]], rows[0]: lets[rows[0]]}),
                    srcs[0].strip("()"), srcs[1].strip("()"))
    return None


def base_ranges(a: Around) -> dict[str, tuple[int, int]]:
    """The base cell's coordinates that are variables, with the grid's range: where the copies of a statement
    loop run they are on it (the guard tested them, and the body never writes them)."""
    out = {}
    for value in a.aliases.values():
        for fn, size in (("dx", a.width), ("dy", a.height)):
            x = _step(value, fn, a.var)
            if isinstance(x, A.Name):
                out[x.id] = (0, size - 1)
    return out


def _step(e: A.Expr, fn: str, var: str) -> A.Expr | None:
    """X in ``X + dx(var)`` (``fn`` "dx") or ``X + dy(var)``, X a variable other than ``var`` or a number."""
    if not (isinstance(e, A.Binary) and e.op == "+" and isinstance(e.right, A.Call) and len(e.right.args) == 1):
        return None
    ref: Any = e.right.ref
    arg, x = e.right.args[0], e.left
    if ref is None or ref[:2] != ("call_builtin", fn) or not (isinstance(arg, A.Name) and arg.id == var):
        return None
    if isinstance(x, A.IntLit) and not isinstance(x.value, bool):
        return x
    return x if isinstance(x, A.Name) and x.ref is not None and x.ref[0] == "local" and x.id != var else None


def _near(gen: ExprGen, g: GridInfo, col: A.Expr, row: A.Expr) -> tuple[int, int] | None:
    """The step (dc, dr) when ``(col, row)`` is ``(X + dx(d), Y + dy(d))`` of the :class:`Around` being written,
    on a grid of its size, and the direction is known here (an item written out); else None."""
    a: Around | None = gen.around
    if a is None or g.width != a.width or g.height != a.height:
        return None
    if isinstance(col, A.Name) and isinstance(row, A.Name) and col.id in a.aliases and row.id in a.aliases:
        col, row = a.aliases[col.id], a.aliases[row.id]  # a copy's `let nx = X + dx(d)`, written once, first
    x, y = _step(col, "dx", a.var), _step(row, "dy", a.var)
    if x is None or y is None or fingerprint(x) != a.col or fingerprint(y) != a.row:
        return None
    assert isinstance(col, A.Binary) and isinstance(row, A.Binary)  # _step said so
    dc, dr = gen.src(col.right), gen.src(row.right)  # the item's dx and dy, folded
    return (int(dc), int(dr)) if _INT_SRC.fullmatch(dc) and _INT_SRC.fullmatch(dr) else None


_PLAIN_SRC = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\x00L?_E[0-9]+\x00|-?[0-9]+")


def _on(gen: ExprGen, value: int | None, src: str, limit: int, e: A.Expr) -> bool:
    """Whether a coordinate is surely in 0 … limit-1: a constant there, a loop variable known to be, or an
    expression whose range compiler/sizes.py proves inside (``i % 8`` on a grid 8 wide)."""
    if value is not None:
        return 0 <= value < limit
    facts = gen.expr_facts
    if facts is not None and facts[0] is gen.var_ranges:
        known = facts[1].get(fingerprint(e))
        if known is not None and known[0] >= 0 and known[1] < limit:
            return True
    return any(known is not None and known[0] >= 0 and known[1] < limit
               for known in (gen.int_ranges.get(src.strip("()")), gen.int_range(e)))


def fingerprint(e: A.Expr) -> Any:
    """A coordinate expression's shape, for matching the same expression written twice (``c + dx(d)`` in an
    `on_grid` test and in the cell after it): literals, variables, printed fields, ``+ - *`` and ``dx``/``dy``
    only (nothing that draws or reads the state); None for anything else."""
    if isinstance(e, A.IntLit) and not isinstance(e.value, bool):
        return ("i", e.value)
    if isinstance(e, A.Name) and e.ref is not None and e.ref[0] == "local":
        return ("n", e.id)
    if isinstance(e, A.Attr) and e.ref is not None and e.ref[0] == "field":
        inner = fingerprint(e.obj)
        return None if inner is None else ("f", inner, e.name)
    if isinstance(e, A.Binary) and e.op in _FOLD:
        left, right = fingerprint(e.left), fingerprint(e.right)
        return None if left is None or right is None else ("b", e.op, left, right)
    ref: Any = e.ref
    if isinstance(e, A.Call) and ref is not None and ref[:1] == ("call_builtin",) and ref[1] in ("dx", "dy"):
        inner = fingerprint(e.args[0]) if len(e.args) == 1 else None
        return None if inner is None else ("c", ref[1], inner)
    return None


@contextmanager
def narrowed(gen: ExprGen, test: A.Expr | None) -> Iterator[None]:
    """Generate what runs only where ``test`` held, with the ranges it proves for plain names (in ``var_ranges``)
    and for coordinate expressions (in ``expr_facts``, valid only while no name is bound again: every binding
    makes a new ``var_ranges`` dict, which the facts are paired with)."""
    facts = on_grid_facts(gen, test) if test is not None else {}
    more = on_grid_facts(gen, test, exprs=True) if test is not None else {}
    saved, saved_expr = gen.var_ranges, gen.expr_facts
    if facts or more:
        gen.var_ranges = {**saved, **facts}
        outer = saved_expr[1] if saved_expr is not None and saved_expr[0] is saved else {}
        gen.expr_facts = (gen.var_ranges, {**outer, **more})
    try:
        yield
    finally:
        gen.var_ranges, gen.expr_facts = saved, saved_expr


def on_grid_facts(gen: ExprGen, test: A.Expr, exprs: bool = False) -> dict[Any, tuple[int, int]]:
    """Where ``test`` holds, the ranges it proves for plain local names: ``on_grid(g, x, y)`` puts x and y on the
    grid (and ``a and b`` both sides' facts). No variable changes while an expression is evaluated, so what the
    left side of an `and` proved still holds on its right."""
    if isinstance(test, A.Binary) and test.op == "and":
        return {**on_grid_facts(gen, test.left, exprs), **on_grid_facts(gen, test.right, exprs)}
    ref: Any = test.ref
    if not (isinstance(test, A.Call) and ref is not None and ref[:2] == ("call_builtin", "on_grid")):
        return {}
    g = _static(gen, test.args[0])
    if g is None:
        return {}
    out = {}
    for arg, size in ((test.args[1], g.width), (test.args[2], g.height)):
        if exprs:  # with ``exprs``, the other coordinates: by their shape, on this grid
            key = None if isinstance(arg, A.Name) else fingerprint(arg)
            if key is not None:
                out[key] = (0, size - 1)
        elif isinstance(arg, A.Name) and arg.ref is not None and arg.ref[0] == "local":
            known = gen.var_ranges.get(arg.id)
            lo, hi = (0, size - 1) if known is None else (max(0, known[0]), min(size - 1, known[1]))
            if lo <= hi:
                out[arg.id] = (lo, hi)
    return out


def loop_range(gen: ExprGen, iterable: A.Expr) -> tuple[int, int] | None:
    """The least and greatest item of ``range(…)`` with constant bounds (a loop over it: its variable's range)."""
    ref = iterable.ref
    if not (isinstance(iterable, A.Call) and isinstance(ref, tuple) and ref[:2] == ("call_builtin", "range")):
        return None
    bounds = [constant(gen, a) for a in iterable.args]
    if any(x is None for x in bounds) or not bounds:
        return None
    lo, hi = (0, bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
    return None if lo is None or hi is None or hi <= lo else (lo, hi - 1)


_INT_SRC = re.compile(r"-?[0-9]+")


def fold_pure(name: str, srcs: list[str]) -> tuple[Any] | None:
    """A pure built-in whose arguments are all int constants, computed once (``range(width(board))`` is one
    tuple; any pure built-in benefits): (value,), or None when an argument is not constant or the built-in
    refuses them (the call then stays, to fail at run time with the closures' message)."""
    if not all(_INT_SRC.fullmatch(x) for x in srcs):
        return None
    try:
        return (constructs.PURE[name].reference(*(int(x) for x in srcs)),)
    except constructs.BuiltinError:
        return None


def call_ok(gen: ExprGen, e: A.Call) -> bool:
    """Whether :func:`builtin` writes this grid built-in call (its grid is named, not held in a local)."""
    ref: Any = e.ref  # ("call_builtin", NAME) here: exprgen asks only about built-in calls
    if ref is not None and ref[1] == "ord":  # an enum value's position (a board's square number)
        return True
    if ref is not None and ref[1] in GRAPH_BUILTINS:
        return bool(e.args) and e.args[0].ref is not None and e.args[0].ref[0] == "graph"
    return bool(e.args) and _static(gen, e.args[0]) is not None


def _graph(gen: ExprGen, name: str, e: A.Call) -> str:
    """`neighbours(g, x[, kinds])`, `adjacent(g, a, b[, kinds])`, `reach(g, x, n[, kinds])`, `distance(g, a, b[,
    kinds])`: the arguments, then the graph's changes (when rules change it), in the closures' order
    (compiler/graphs.py); every kind when none is given (None)."""
    graph: Any = A.ref_of(e.args[0])
    graph = graph[1]
    assert isinstance(graph, A.GraphDecl)  # call_ok: the graph is named
    walk, slot = gen.comp.graph_walk(graph.name)
    fixed = 3 if name == "neighbours" else 4
    args = [gen.src(a) for a in e.args[1:]] + (["None"] if len(e.args) < fixed else [])
    if slot is not None:
        args.append(f"{gen.const(overlay_of)}(s.counters[{slot}])")
    return f"{gen.const(getattr(walk, name))}({', '.join(args)})"


def builtin(gen: ExprGen, name: str, e: A.Call) -> str:
    if name in GRAPH_BUILTINS:
        return _graph(gen, name, e)
    if name == "ord":  # as the closures' ord_ (compiler/expressions.py): a table lookup, `none` a rule error
        t, ty = gen._name("_t"), e.args[0].ty
        assert ty is not None and ty.arg is not None  # the checker typed it as a value of one enum
        table = gen.const({v: i for i, v in enumerate(gen.comp.prog.enums[ty.arg])})
        missing = f"ord() of none at line {e.span.line}"
        return f"({table}[{t}] if ({t} := {gen.src(e.args[0])}) is not None else _fail({missing!r}))"
    g = _static(gen, e.args[0])
    assert g is not None  # call_ok said so
    if name == "width":
        return str(g.width)
    if name == "height":
        return str(g.height)
    a = gen.around
    near = _near(gen, g, e.args[1], e.args[2]) if name == "on_grid" and a is not None else None
    if a is not None and near is not None:  # a neighbour of a base cell on the grid: one read of the step's table
        return f"{gen.const(g.steps_on(*near))}[{a.index}]"
    c, r = gen.src(e.args[1]), gen.src(e.args[2])
    if name == "on_grid":
        return f"((0 <= ({c}) < {g.width}) & (0 <= ({r}) < {g.height}))"
    d = gen.src(e.args[3])
    toward = _direction(gen, d)  # a direction named in the rules, or an unrolled loop's
    if name == "span" and g.rays is not None and toward is not None:
        return f"{gen.const(g.span_toward(toward))}(s.counters, {c}, {r})"
    fn = g.line_function() if name == "line" else g.span_function()
    return f"{gen.const(fn)}(s.counters, {c}, {r}, {d})"


def spans_reach(gen: ExprGen, e: A.Aggregate | A.ListComp) -> str | None:
    """``any(span(g, c, r, d) >= n for d in DIRS)`` (the n-in-a-row test) as one call of the grid's
    :meth:`~GridInfo.spans_reach`: one call instead of a loop calling `span` per direction, and each line's rays
    read no further than n decides. Written only where it means the same as the loop: a named grid with rays, n
    a constant, DIRS a constant non-empty list of directions (so the first item always runs), no filter, and
    c and r plain arithmetic of variables, fields and constants that do not read ``d`` -- pure, drawing
    nothing and costing no work, so computing them once gives what every item computed (an error in them
    surfaces at the first item either way). A flat loop over at most SMALL_LOOP constant items counts no
    work (compiler/budgets.py), so none is dropped; anything else is left to the loop. None when it does not apply."""
    if not isinstance(e, A.Aggregate) or e.func != "any" or e.where is not None:
        return None
    el = e.elem
    if not (isinstance(el, A.Binary) and el.op in (">=", ">")) or not budgets.is_flat(el):
        return None
    call, bound = el.left, constant(gen, el.right)
    ref: Any = call.ref
    if bound is None or not (isinstance(call, A.Call) and ref is not None and ref[:2] == ("call_builtin", "span")
                             and len(call.args) == 4):
        return None
    g, d = _static(gen, call.args[0]), call.args[3]
    dirs = _directions(e.iterable)
    if (g is None or g.rays is None or not dirs or len(dirs) > budgets.SMALL_LOOP
            or not (isinstance(d, A.Name) and d.id == e.var) or not all(_plain(a, e.var) for a in call.args[1:3])):
        return None
    need = bound if el.op == ">=" else bound + 1
    cells = _reach_cells(gen, g, tuple(dict.fromkeys(dirs)), need, e)
    c, r = gen.src(call.args[1]), gen.src(call.args[2])
    if cells is None:
        return f"{gen.const(g.spans_reach(dirs, need))}(s.counters, {c}, {r})"
    if _on(gen, None, c, g.width, call.args[1]) and _on(gen, None, r, g.height, call.args[2]):
        return f"{gen.const(cells)}[{c} + {g.width} * {r}](s.counters)"
    tc, tr = gen._name("_t"), gen._name("_t")  # c, then r, each once, as the call's arguments were
    return (f"({gen.const(cells)}[{tc} + {g.width} * {tr}](s.counters) if (0 <= ({tc} := {c}) < {g.width}) & "
            f"(0 <= ({tr} := {r}) < {g.height}) else {need <= 0})")


# the n-in-a-row test is written out per cell (_reach_cells) up to this many cell reads over the whole grid (about
# 8 ms of Python's compiler per 1,000 here; Connect Four's 7 by 6 fours: 696, Hex-sized 11 by 11 sixes: 4,520);
# past it (a big grid with a long run: 15 by 15 fives, 8,440) the grid's loops run instead
MAX_REACH_READS = 4_000


def _reach_cells(gen: ExprGen, g: GridInfo, dirs: tuple[str, ...], need: int,
                 e: A.Expr) -> tuple[Callable[[list[Any]], bool], ...] | None:
    """Per cell index (c + W * r), the n-in-a-row test at that cell written out as one expression of its
    neighbours' slots: ``cs[a1] == v and cs[a2] == v …`` for each way a run can split between a line's two
    rays. No loop, no bounds test, no lookup by direction: about half the time of :meth:`GridInfo.spans_reach`'s
    loops, whose every iteration costs more than its few bytecodes say. The same answer: the run ahead is taken
    as far as it goes (within the ``need - 1`` cells that decide) and the rest must come from behind, which is
    what the loops count. None past :data:`MAX_REACH_READS` reads."""
    key = ("reach", dirs, need)
    if key in g.made:
        return g.made[key]  # type: ignore[no-any-return]
    made = None
    bodies = [" or ".join(_run_test(a, b, need - 1) for a, b in cell) or "False"
              for cell in g.reach_lines(dirs, need)]
    if sum(body.count("== v") for body in bodies) <= MAX_REACH_READS:
        name = gen._name("_rows")
        text = [f"def {name}():"]
        for i, body in enumerate(bodies):
            text.append(f"    def c{i}(cs):")
            if body not in ("True", "False"):
                text.append(f"        v = cs[{g.base + i}]")
            text.append(f"        return {body}")
        text.append(f"    return ({''.join(f'c{i}, ' for i in range(len(bodies)))})")
        made = gen.sources.load(gen.ns, name, "grid", "\n".join(text) + "\n", e.span)()
    g.made[key] = made
    return made


def _run_test(ahead: tuple[int, ...], behind: tuple[int, ...], more: int) -> str:
    """Source that is true when ``more`` cells beyond the tested one hold its value ``v`` along one line (``cs``
    the counters): as many as there are ahead, then the rest from behind."""
    if more <= 0:
        return "True"
    if not ahead:
        return " and ".join(f"cs[{x}] == v" for x in behind[:more]) if len(behind) >= more else "False"
    yes, no = _run_test(ahead[1:], behind, more - 1), _run_test((), behind, more)
    here = f"cs[{ahead[0]}] == v"  # a comparison of cell values (ints, text, none): always a bool
    if no == "False":
        return here if yes == "True" else f"({here} and {yes})"
    if yes == "True":
        return f"({here} or {no})"
    return f"({yes} if {here} else {no})"


def _directions(e: A.Expr) -> tuple[str, ...] | None:
    """The directions of a constant direction list: a named set (`axes`) or a list of direction names."""
    ref: Any = e.ref
    if isinstance(e, A.Name) and ref is not None and ref[0] == "directions" and ref[1] in DIRECTION_SETS:
        return DIRECTION_SETS[ref[1]]
    if isinstance(e, A.ListLit):
        names = [x.ref[1] for x in e.items if isinstance(x, A.Name) and x.ref is not None
                 and x.ref[0] == "direction" and x.ref[1] in DIRECTIONS]
        return tuple(names) if len(names) == len(e.items) else None
    return None


_PLAIN_OPS = frozenset({"+", "-", "*", "/", "%"})


def _plain(e: A.Expr, var: str) -> bool:
    """Whether ``e`` is arithmetic of literals, local variables other than ``var``, printed fields and a named
    grid's size: it reads no state that the loop could see change, draws nothing and costs no work."""
    ref: Any = e.ref
    if isinstance(e, A.IntLit):
        return True
    if isinstance(e, A.Name):
        return ref is not None and ref[0] == "local" and e.id != var
    if isinstance(e, A.Attr):
        return ref is not None and ref[0] == "field" and _plain(e.obj, var)
    if isinstance(e, A.Unary):
        return e.op == "-" and _plain(e.operand, var)
    if isinstance(e, A.Binary):
        return e.op in _PLAIN_OPS and _plain(e.left, var) and _plain(e.right, var)
    return isinstance(e, A.Call) and ref is not None and ref[:1] == ("call_builtin",) and ref[1] in (
        "width", "height") and len(e.args) == 1 and e.args[0].ref is not None and e.args[0].ref[0] == "grid"
