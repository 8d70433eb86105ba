"""The closures' side of the per-game budgets (interpreter/runtime/budget.py): wrappers that count work and
check sizes around the closures the expression and statement compilers build. Generated code writes the same
checks inline (interpreter/codegen/budgetgen.py); both stop a game at the same point with the same message."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from typing import Any

from liturgy.dsl.diagnostics import Span
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.code import ExprFn
from liturgy.interpreter.compiler.sizes import Sizes, _fields
from liturgy.interpreter.runtime import budget
from liturgy.interpreter.runtime.state import GameState


def where(span: Span) -> str:
    """How a budget error names the place it was passed."""
    return f"at line {span.line}"


def counted_items(it: ExprFn, limit: int, span: Span, kind: str) -> ExprFn:
    """``it``'s items as a tuple, each costing one unit of the game's work (a `for`, aggregate, comprehension);
    a flat loop (:func:`loop_kind`) of at most :data:`SMALL_LOOP` items costs nothing."""
    at = where(span)
    small = -1 if kind == "all" else SMALL_LOOP

    def items(s: GameState, env: dict[str, Any]) -> tuple[Any, ...]:
        got = tuple(it(s, env))
        if len(got) > small:
            s.work += len(got)
            if s.work > limit:
                budget.over_work(s, limit, at)
        return got

    return items


def charge(s: GameState, units: int, limit: int, at: str) -> None:
    """Count ``units`` of work (a call, a fire, a loop's passes) and stop the game past ``limit``."""
    s.work += units
    if s.work > limit:
        budget.over_work(s, limit, at)


def fn_call(fns: dict[str, Any], name: str, make_env: Callable[[GameState, dict[str, Any]], dict[str, Any]],
            count: Any, units: int, limit: int, at: str) -> ExprFn:
    """A call of the `fn` ``name`` (its body looked up in ``fns`` at each call: a recursive one is compiled after
    its own calls), counting ``units`` of work first when ``count`` (:func:`call_counter`) is :func:`charge`.
    The count is written in, not called: in a recursive fn every call is counted, and the call of ``charge`` was
    a tenth of a closures-mode call (tests/test_attack_budgets.py)."""
    if count is not charge:
        return lambda s, env: fns[name][1](s, make_env(s, env))
    over = budget.over_work

    def call_counted(s: GameState, env: dict[str, Any]) -> Any:
        body = fns[name][1]
        s.work += units
        if s.work > limit:
            over(s, limit, at)
        return body(s, make_env(s, env))

    return call_counted


def checked_binary(e: A.Binary, fn: ExprFn, size_limit: int, text_limit: int) -> ExprFn:
    """``fn`` (an arithmetic or text `+`, `-`, `*`) with its result checked: 64-bit ints, texts within
    ``text_limit``; other operators as they are."""
    ty = e.ty.kind if e.ty is not None else None
    at = where(e.span)
    if ty == "int" and e.op in ("+", "-", "*"):
        low, high = budget.INT_MIN, budget.INT_MAX

        def int_op(s: GameState, env: dict[str, Any]) -> Any:
            v = fn(s, env)
            return v if low <= v <= high else budget.overflow(v, at)

        return int_op
    if ty == "text" and e.op == "+":
        def text_op(s: GameState, env: dict[str, Any]) -> Any:
            v = fn(s, env)
            return v if len(v) <= text_limit else budget.too_big("text", len(v), text_limit, at)

        return text_op
    return fn


def checked_concat(ls: ExprFn, rs: ExprFn, size_limit: int, span: Span) -> ExprFn:
    """List ``+``: the two sizes compared with ``size_limit`` before the copy is made."""
    at = where(span)
    return lambda s, env: budget.concat_checked(tuple(ls(s, env)), tuple(rs(s, env)), size_limit, size_limit, at)


def checked_negation(of: ExprFn, span: Span) -> ExprFn:
    """Unary minus: -(-2^63) is the one result that leaves 64 bits."""
    at = where(span)
    return lambda s, env: budget.int_checked(-of(s, env), at)


def checked_builtin(name: str, e: A.Call, fn: ExprFn, args: list[ExprFn], size_limit: int,
                    text_limit: int) -> ExprFn:
    """A built-in whose result can grow: `join` counts its length before joining; `range`, `text` and `abs`
    are checked after (their results are small next to what they read); the others as they are."""
    at = where(e.span)
    if name == "join" and len(args) == 2:
        items, sep = args
        return lambda s, env: budget.join_checked(items(s, env), sep(s, env), text_limit, at)
    if name in ("range", "text", "abs"):
        return lambda s, env: budget.sized(fn(s, env), size_limit, text_limit, at)
    return fn


def _walk(root: Any) -> Iterator[Any]:
    """Every AST node under ``root`` (statements, expressions, the tuples of an `if`'s branches), each before the
    nodes under it."""
    todo = [root]
    while todo:
        n = todo.pop()
        if isinstance(n, list | tuple):
            todo.extend(n)
        elif isinstance(n, A.Expr | A.Stmt):
            yield n
            todo.extend(_children(n))  # not spans, types or referents


def _nodes(root: Any) -> list[Any]:
    """Every node of :func:`_walk`, listed."""
    return list(_walk(root))


def _any_node(roots: Any, found: Callable[[Any], bool]) -> bool:
    """Whether ``found`` holds for some node under ``roots``, walked only until the first (``found`` is a pure
    test, so where the walk stops changes nothing but the time: a loop that nests another was walked whole each
    time a loop around it asked, :func:`is_flat`)."""
    return any(map(found, _walk(roots)))


_GETTERS: dict[type, Callable[[Any], Any]] = {}


def _children(n: Any) -> Any:
    """``n``'s fields that :func:`_nodes` follows (sizes.py's ``_fields``), as a tuple, by a getter made once
    per class (the generator of ``getattr`` calls was a tenth of a large ruleset's compile)."""
    get = _GETTERS.get(n.__class__)
    if get is None:
        names = _fields(n.__class__)
        if len(names) == 1:
            one = operator.attrgetter(names[0])
            get = _GETTERS[n.__class__] = lambda node: (one(node),)
        else:
            get = _GETTERS[n.__class__] = operator.attrgetter(*names) if names else (lambda node: ())
    return get(n)


def _edges(root: Any) -> set[str]:
    """The callables a body can reach directly: `fn:NAME`, `proc:NAME`, `window:NAME`, `field:NAME`."""
    found: set[str] = set()
    for n in _nodes(root):
        if isinstance(n, A.Fire):
            found.add(f"window:{n.window}")
        elif isinstance(n, A.Call) and n.ref is not None:
            ref: Any = n.ref
            kind = ref[0]
            if kind in ("call_fn", "call_proc"):
                found.add(f"{kind[5:]}:{ref[1].name}")
            elif kind != "call_builtin" and isinstance(n.func, A.Attr):
                found.add(f"field:{n.func.name}")
    return found


def recursive_names(prog: Any) -> frozenset[str]:
    """The procs, fns, windows and card fields that can call (or fire) themselves, directly or through others,
    as `proc:NAME`, `fn:NAME`, `window:NAME`, `field:NAME`.

    Only these, and fns too big to inline (:func:`call_counter`), can make a step's work grow without bound
    (anything else runs a body of fixed size, whose own loops are counted), so only their calls are counted as
    work: a call of any other proc costs nothing extra. A recursive `fn` is also never inlined: inlining one
    that calls itself twice copies its body 2^6 times into each call, work the count would not see."""
    bodies: dict[str, list[Any]] = {}
    for name, fn in prog.fns.items():
        bodies[f"fn:{name}"] = [fn.body]
    for name, proc in prog.procs.items():
        bodies[f"proc:{name}"] = [proc.body]
    for window, handlers in prog.handlers.items():
        bodies[f"window:{window}"] = [h.body for h in handlers]
    for card in prog.cards:
        for key, value in card.values.items():
            if isinstance(value, list | A.Expr):
                bodies.setdefault(f"field:{key}", []).append(value)
    for kind in prog.kinds.values():
        for f in kind.fields:
            if f.default is not None:
                bodies.setdefault(f"field:{f.name}", []).append(f.default)
    calls = {name: _edges(body) for name, body in bodies.items()}
    out = set()
    for name in calls:
        seen: set[str] = set()
        todo = list(calls[name])
        while todo:
            k = todo.pop()
            if k == name:
                out.add(name)
                break
            if k not in seen:
                seen.add(k)
                todo.extend(calls.get(k, ()))
    return frozenset(out)


def _no_charge(s: GameState, units: int, limit: int, at: str) -> None:
    """A call of something that cannot call itself: nothing to count (see :func:`recursive_names`)."""


def call_counter(recursive: frozenset[str], key: str, fans_out: bool = False) -> Any:
    """:func:`charge` for a call of ``key`` (`proc:NAME`, …) when it can call itself, or when it ``fans_out``
    (a `fn` too big to inline, sizes.INLINE_SIZE), else a no-op.

    A chain of distinct fns that each call the next six times runs 6^depth bodies without any self-call: once
    inlining stops at INLINE_SIZE those calls run at play time, so each is counted, as many units as its body
    evaluates nodes (Sizes.call_cost). A call below the bound
    evaluates at most INLINE_SIZE expression nodes besides its counted loops, so leaving it uncounted keeps
    the work between two counts within a factor fixed by the ruleset's text (no shipped ruleset has such a fn:
    tests/test_attack_compile.py)."""
    return charge if fans_out or key in recursive else _no_charge


# A loop whose body repeats nothing (no loop, aggregate, comprehension, call or fire) over at most this many
# items is not counted: counting it cost more than the loop (Bloodborne ran 8% slower), and the work it leaves
# out is at most SMALL_LOOP times that of the counted construct around it, so the budget still bounds the
# game's work to within a factor fixed by the ruleset's text. Loops that nest anything are always counted.
SMALL_LOOP = 64


def small_iterable(e: A.Expr, sizes: Sizes) -> bool:
    """Whether ``e`` provably never holds more than :data:`SMALL_LOOP` items (compiler/sizes.py: the players,
    an enum, a list literal, a zone that cannot hold more cards, a comprehension or `fn` over one of these). A
    flat loop over one needs no counting code: its count would never be made."""
    most = sizes.max_len(e)
    return most is not None and most <= SMALL_LOOP


def loop_kind(iterable: A.Expr, sizes: Sizes, *bodies: Any) -> str:
    """How a loop's items are counted: "none" (flat over a small iterable), "small" (flat: only past
    SMALL_LOOP items), "all"."""
    if not is_flat(*bodies):
        return "all"
    return "none" if small_iterable(iterable, sizes) else "small"
_REPEATS = (A.For, A.RepeatWhile, A.Aggregate, A.ListComp, A.Do, A.Fire, A.Choose, A.Simultaneous)


def is_flat(*roots: Any) -> bool:
    """Whether the bodies ``roots`` repeat nothing: no nested loop, aggregate, comprehension, call or fire, but
    for calls of a *leaf* `fn`, one whose own body is flat and calls no `fn` (:func:`_leaf_call`)."""
    return not _any_node(list(roots), _repeats)


def _repeats(n: Any) -> bool:
    """Whether the node ``n`` repeats something (:func:`is_flat`)."""
    return isinstance(n, _REPEATS) or (isinstance(n, A.Call) and (n.ref is None or n.ref[0] != "call_builtin")
                                       and not _leaf_call(n))


def _leaf_call(n: A.Call) -> bool:
    """A call of a `fn` whose body has no loop, aggregate, comprehension, call (but of built-ins) or fire.

    Such a call evaluates at most its body's nodes, a number fixed by the ruleset's text, so a loop that calls it
    is as flat as one that writes the body out: Goofspiel's `max(bid_of(p) for p in players)`, with `fn
    bid_of(p) = top(p.bid).value`, needs no count. Only a leaf: a `fn` calling another could fan out (a chain of
    fns each calling the next twice runs 2^depth bodies), so any call inside keeps the loop counted."""
    ref: Any = n.ref
    if ref is None or ref[0] != "call_fn" or not isinstance(ref[1], A.FnDecl):
        return False
    return not _any_node(ref[1].body, _repeats_or_calls)


def _repeats_or_calls(m: Any) -> bool:
    """Whether the node ``m`` repeats something or calls anything but a built-in (:func:`_leaf_call`)."""
    return isinstance(m, _REPEATS) or (isinstance(m, A.Call) and (m.ref is None or m.ref[0] != "call_builtin"))
