"""An aggregate's loop function whose element is arithmetic over aggregates: their loops written into its turn.

Bloodborne's invariant "every hunter owns exactly one Hunter's Dream" is `all(count(…p.hand…) + count(…p.discard…)
+ count(…p.played…) == 1 for p in players)`: its loop function (``ExprGen._loop_function``) called three nested
loop functions per player, a Python frame each (361 calls a game in the bench's checked games). Here each nested
aggregate's loop is written into the outer loop's turn, before the element's test, by
:func:`~liturgy.interpreter.codegen.inline_aggregates.statement_loop` (the loop a statement writes in its own
function: the same folds, the same work count, its temporaries renamed apart), and the element reads their results.

Why the values, errors and work are the calls': the element is only arithmetic and comparisons (``+ - *``, ``== !=
< <= > >=``, unary ``-`` and `not`) over aggregates and int or bool literals (:func:`leaves`), with no filter on the
outer loop, so every aggregate in it is evaluated in every turn, in the same left-to-right order as the calls were.
Between two aggregates the calls' order evaluated only operators; when the element's text has no result check
(``_overflow``: every operation proven within 64 bits) those operators on ints cannot fail, so evaluating all the
aggregates first and the operators after them gives the same value, the same first error and the same work. Where
one of these fails (an operator checked for overflow, an aggregate written in a short form or not at all by
``statement_loop``, an aggregate not reached through ``ExprGen.src``, reached twice, or written for a text the
element does not keep), the element is written again with the calls, as before.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import inline_aggregates

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen
    from liturgy.interpreter.codegen.hoist import Hoist

ENABLED = True  # tests turn it off to compare with the calls this replaces
_OPS = frozenset({"+", "-", "*", "==", "!=", "<", "<=", ">", ">="})
_FOLDS = ("any", "all", "count", "sum", "min", "max")


def leaves(e: A.Expr) -> list[A.Aggregate] | None:
    """The aggregates of element ``e`` in evaluation order when ``e`` is arithmetic and comparisons over aggregates
    and int or bool literals with at least one aggregate; else None."""
    out: list[A.Aggregate] = []

    def walk(x: A.Expr) -> bool:
        if isinstance(x, A.Binary):
            return x.op in _OPS and walk(x.left) and walk(x.right)
        if isinstance(x, A.Unary):
            return x.op in ("-", "not") and walk(x.operand)
        if isinstance(x, A.Aggregate):
            if x.func not in _FOLDS:
                return False
            out.append(x)
            return True
        return isinstance(x, A.IntLit | A.BoolLit)

    return out if walk(e) and out else None


class Turn:
    """The aggregates to write into the turn (by node id, in order) and the lines written so far."""

    def __init__(self, aggs: list[A.Aggregate]) -> None:
        self.wanted = [id(a) for a in aggs]
        self.lines: list[str] = []
        self.results: list[str] = []  # each written aggregate's source in the element
        self.done: set[int] = set()
        self.failed = False


def planned(e: A.Aggregate | A.ListComp, first: bool) -> Turn | None:
    """A :class:`Turn` for loop function ``e`` when its element may be written so (module docstring), else None."""
    if not ENABLED or first or not isinstance(e, A.Aggregate) or e.func not in _FOLDS or e.where is not None:
        return None
    aggs = leaves(e.elem)
    return Turn(aggs) if aggs is not None else None


@contextmanager
def writing(gen: ExprGen, turn: Turn | None) -> Iterator[None]:
    """While the outer loop's parts are written: its element's aggregates go to ``turn`` (None: none do)."""
    saved = gen.turn
    gen.turn = turn
    try:
        yield
    finally:
        gen.turn = saved


def source(gen: ExprGen, e: A.Aggregate | A.ListComp) -> str | None:
    """The source of aggregate ``e`` read from the turn's lines when it is the turn's next aggregate, else None."""
    turn = gen.turn
    if turn is None or turn.failed or not turn.wanted or turn.wanted[0] != id(e):
        if turn is not None and (id(e) in turn.wanted or id(e) in turn.done):
            turn.failed = True  # reached out of order, or a second time: written as before
        return None
    turn.done.add(turn.wanted.pop(0))
    with writing(gen, None):  # its own element's aggregates are its business
        got = inline_aggregates.statement_loop(gen, e)
    if got is None or not got[0]:
        turn.failed = True
        return None if got is None else got[1]
    lines, result = got
    turn.lines.extend(lines)
    turn.results.append(result)
    return result


def parts(gen: ExprGen, e: A.Aggregate | A.ListComp, x: str, params: dict[str, str],
          first: bool) -> tuple[Hoist, str, str, str, bool, list[str] | None]:
    """``ExprGen._hoisted_parts`` of loop function ``e`` with loop variable ``x`` (its fast form), and the lines to
    write first in each turn (None: none): the element's aggregates' loops where they may be (module docstring)."""
    turn = planned(e, first)
    start = gen.unsafe
    with writing(gen, turn):
        hoist, items, where, elem, unsafe = gen._hoisted_parts(e, x, None, params)
    if turn is None or not turn.lines:
        return hoist, items, where, elem, unsafe, None
    # every aggregate written once, in order, and read by the element (none written for a text then thrown away)
    if not (turn.failed or turn.wanted or "_overflow(" in elem or not all(r in elem for r in turn.results)):
        return hoist, items, where, elem, unsafe, turn.lines
    gen.unsafe = start  # written again, with the calls
    return (*gen._hoisted_parts(e, x, None, params), None)


def into(lines: list[str], pre: list[str] | None, head: str) -> list[str]:
    """A loop function's ``lines`` with ``pre`` written first in the turn of its loop (its line ``head``)."""
    if pre:
        at = lines.index(head) + 1
        lines[at:at] = [f"    {line}" for line in pre]
    return lines
