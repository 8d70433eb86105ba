"""Common subexpressions of an `and` or `or`: a pure value the left side computed, read again on the right.

Why: rules name the same coordinate several times in one test. Hex's neighbour test
``on_grid(board, c + dx(d), r + dy(d)) and board[c + dx(d), r + dy(d)] == p`` computes ``c + dx(d)`` twice
(three times with the cell of a second grid after it). The generated code now binds such a value once on the
left, ``(_u7 := …)``, and reads ``_u7`` on the right.

The proof, for ``L and R`` (``L or R`` is the mirror: the right runs only when the left was falsy):

* the right side runs only when ``L`` was truthy, and then every part of ``L`` that :func:`certain` lists was
  evaluated: both sides of an `and` chain, only the first operand of an `or` or of a condition's test, both
  operands of arithmetic and comparisons, a cell's coordinates, a field's card, a grid built-in's coordinates.
  The generated text follows the same shape (it never puts such a part behind a test of its own: a failed
  bounds or overflow test raises, and then the right side never runs);
* the shared value is pure: arithmetic on coordinates (:func:`.gridgen.fingerprint`: literals, variables,
  printed fields, ``+ - *``, ``dx``/``dy``). An expression never writes a counter and never binds a variable,
  so its value is the same wherever in the expression it is computed;
* both occurrences mean the same names: nothing between them binds one. The right side's occurrences are
  looked for only through expressions that bind nothing (arithmetic, comparisons, conditions, cells, fields,
  a grid built-in's arguments, indexes), never inside a comprehension, an aggregate, a `let` or a `fn` call's
  arguments (their text is substituted into the inlined body, which may be a loop of its own: another Python
  function, where the name would be unbound; found by Betrayal's `placed(plan[c, f * 9 + r])`); an inlined
  `fn`'s body is not part of its call's expression tree, so its nodes are never matched.

The binding is written only where the generated text of ``L`` really holds it (a per-card table may have
absorbed the part): the right side is generated afterwards, reading the names bound, else computing the value
again as before. Nothing changes in the closures, the reference semantics.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import gridgen

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen

_ARITH = ("+", "-", "*")
_ALWAYS_BOTH = _ARITH + ("==", "!=", "<", "<=", ">", ">=")
_GRID_CALLS = ("on_grid", "dx", "dy")
ENABLED = True  # off: the text as before (tests compare both; benchmarks measure the difference)
_BINDING = re.compile(r"\(_u[0-9]+ := ")


def initial() -> tuple[bool, dict[int, tuple[str, bool]], dict[Any, str]]:
    """An expression generator's state here: whether to share, the nodes bound or read (by id: the node, the
    name, whether it is bound there), the name of each shape shared."""
    return ENABLED, {}, {}


def binds_temporary(text: str) -> bool:
    """Whether generated ``text`` binds a temporary other than a shared value's (those can neither fail nor
    be read before they are bound, so a comprehension may hold them as a loop would)."""
    return ":=" in _BINDING.sub("(", text)


def key(e: A.Expr) -> Any:
    """The shape of a value worth sharing (arithmetic on coordinates), else None. A cell's value is not shared:
    Breakthrough's ``board[m.tc, m.ty] == none or (… and board[m.tc, m.ty] != p)`` bound in its filter's
    comprehension (a closure cell there) cost 0.8 % more instructions than reading the cell again, as the right
    side of an `or` like that one rarely runs."""
    if isinstance(e, A.Binary) and e.op in _ARITH:
        return gridgen.fingerprint(e)
    return None


def always(e: A.Expr) -> Iterator[A.Expr]:
    """``e`` and the parts of it evaluated whenever ``e`` is evaluated to the end."""
    yield e
    ref: Any = e.ref
    if isinstance(e, A.Binary):
        if e.op in _ALWAYS_BOTH:
            yield from always(e.left)
            yield from always(e.right)
        elif e.op in ("and", "or"):
            yield from always(e.left)
    elif isinstance(e, A.Unary):
        yield from always(e.operand)
    elif isinstance(e, A.Cond):
        yield from always(e.test)
    elif isinstance(e, A.Cell) and isinstance(ref, tuple) and ref and ref[0] == "gridcell":
        yield from always(e.col)
        yield from always(e.row)
    elif isinstance(e, A.Attr) and ref is not None and ref[0] == "field":
        yield from always(e.obj)
    elif isinstance(e, A.Call) and ref is not None and ref[:1] == ("call_builtin",) and ref[1] in _GRID_CALLS:
        for a in e.args:
            yield from always(a)


def certain(e: A.Expr, truthy: bool) -> Iterator[A.Expr]:
    """The parts of ``e`` surely evaluated when ``e`` turned out truthy (``truthy``) or falsy."""
    if isinstance(e, A.Binary) and e.op in ("and", "or") and truthy == (e.op == "and"):
        yield from certain(e.left, truthy)  # `a and b` truthy: both ran and were truthy (`or` falsy: the mirror)
        yield from certain(e.right, truthy)
    else:
        yield from always(e)


def _parts(e: A.Expr) -> list[A.Expr]:
    """The parts of ``e`` that mean the same names as ``e`` (none of an expression that binds a name)."""
    if isinstance(e, A.Binary):
        return [e.left, e.right]
    if isinstance(e, A.Unary):
        return [e.operand]
    if isinstance(e, A.Cond):
        return [e.test, e.then, e.orelse]
    if isinstance(e, A.Cell):
        return [e.col, e.row]
    if isinstance(e, A.Attr):
        return [e.obj]
    if isinstance(e, A.Call):
        # only a grid built-in's arguments are generated in place: a `fn`'s argument text is substituted into
        # its inlined body, which may be a loop of its own (another Python function, where the name is unbound)
        ref: Any = e.ref
        return list(e.args) if ref is not None and ref[:1] == ("call_builtin",) and ref[1] in _GRID_CALLS else []
    if isinstance(e, A.Index):
        return [e.obj, e.index]
    return []


def occurrences(e: A.Expr, stop: Callable[[A.Expr], bool] = lambda e: False) -> Iterator[A.Expr]:
    """``e`` and its parts reached through expressions that bind no name (see the module's docstring), not
    below a node for which ``stop`` holds (a shared value read whole: its parts are never computed)."""
    yield e
    if not stop(e):
        for part in _parts(e):
            yield from occurrences(part, stop)


def plan(first: A.Expr, then: A.Expr, truthy: bool) -> dict[Any, tuple[list[A.Expr], list[A.Expr]]]:
    """Each shape shared by ``first`` and ``then`` (which runs only when ``first`` was ``truthy``), with its
    nodes in ``first`` (bound) and in ``then`` (read)."""
    left: dict[Any, list[A.Expr]] = {}
    for n in certain(first, truthy):
        k = key(n)
        if k is not None:
            left.setdefault(k, []).append(n)
    out: dict[Any, tuple[list[A.Expr], list[A.Expr]]] = {}
    for n in occurrences(then, lambda n: key(n) in left):
        k = key(n)
        if k is not None and k in left:
            out.setdefault(k, (left[k], []))[1].append(n)
    return out


def shared(gen: ExprGen, e: A.Binary) -> AbstractContextManager[Callable[[str], None]]:
    """Around the generation of `L and R` (`L or R`): see :func:`sequence`."""
    return sequence(gen, e.left, e.right, e.op == "and")


@contextmanager
def sequence(gen: ExprGen, first: A.Expr | None, then: A.Expr | None,
             truthy: bool = True) -> Iterator[Callable[[str], None]]:
    """Around the generation of ``first`` and then of ``then``, which runs only when ``first`` was ``truthy``
    (an `and`'s sides; an `or`'s with ``truthy`` False; a loop's filter and element): yields ``left``, to be
    called with ``first``'s text, after which ``then`` reads what it bound."""
    found = plan(first, then, truthy) if gen.cse_on and first is not None and then is not None else {}
    saved_nodes, saved_names = gen.cse_nodes, gen.cse_names
    if not found:
        yield lambda text: None
        return
    names = dict(saved_names)
    binds = dict(saved_nodes)
    for k, (lefts, _) in found.items():
        name = names.get(k) or gen._name("_u")
        names[k] = name
        for n in lefts:
            binds.setdefault(id(n), (name, True))
    gen.cse_nodes, gen.cse_names = binds, names

    def left(text: str) -> None:
        uses = dict(gen.cse_nodes)
        for k, (_, rights) in found.items():
            if f"({names[k]} := " in text:  # bound where the left side surely ran (see the docstring)
                for n in rights:
                    uses[id(n)] = (names[k], False)
        gen.cse_nodes = uses

    try:
        yield left
    finally:
        gen.cse_nodes, gen.cse_names = saved_nodes, saved_names


def src(gen: ExprGen, e: A.Expr) -> str | None:
    """The text for a shared node: its name where it is read, None where it is generated as usual (bound
    afterwards by :func:`bind`)."""
    hit = gen.cse_nodes.get(id(e))
    return hit[0] if hit is not None and not hit[1] else None


def bind(gen: ExprGen, e: A.Expr, text: str) -> str:
    hit = gen.cse_nodes.get(id(e))
    return f"({hit[0]} := {text})" if hit is not None else text
