"""Typing rules of the built-ins the registry cannot type from its table alone.

dsl/constructs/builtins.py declares every built-in; the checker types a call from that declaration (arity,
parameter types, result). A built-in needs a rule here only when a parameter is a kind rather than a type
(``size`` takes "a zone, list or set", ``roll`` a die) or its result follows its arguments (``top(z)`` is a
card of z's kind). A rule runs after the arguments were typed and the arity was found right; it reports its
own E140/E148/E149 and returns the call's type. tests/test_registry.py checks that exactly the built-ins
without a plain signature have one.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from liturgy.dsl.checker import types as T
from liturgy.dsl.checker.types import Ty
from liturgy.dsl.frontend import ast as A

if TYPE_CHECKING:
    from liturgy.dsl.checker.expressions import ExpressionChecker


def _size(chk: ExpressionChecker, e: A.Call, types: list[Ty]) -> Ty:
    if T.as_list(types[0]) is None:
        chk.err("E140", f"`size` needs a zone, list or set, found {types[0]}", e.args[0].span)
    return T.INT


def _top_or_bottom(chk: ExpressionChecker, e: A.Call, types: list[Ty]) -> Ty:
    """A card of the zone's kind, or with a count a list of them."""
    args = e.args
    if types[0].kind not in ("zone", "any"):
        assert isinstance(e.func, A.Name)
        chk.err("E140", f"`{e.func.id}` needs a zone, found {types[0]}", args[0].span)
        return T.ANY
    if len(args) == 2:
        if not T.assignable(types[1], T.INT):
            chk.err("E140", f"expected int, found {types[1]}", args[1].span)
        return T.list_of(T.card(types[0].arg))
    return T.card(types[0].arg)


def _random(chk: ExpressionChecker, e: A.Call, types: list[Ty]) -> Ty:
    """An item of the list."""
    lt = T.as_list(types[0])
    if lt is None:
        chk.err("E140", f"`random` needs a list, found {types[0]}", e.args[0].span)
        return T.ANY
    return lt.elem or T.ANY


def _roll(chk: ExpressionChecker, e: A.Call, types: list[Ty]) -> Ty:
    """A die, or an enum whose every value names a die (E148). (A die's bare name was taken before typing.)"""
    assert chk.prog is not None
    arg, t = e.args[0], types[0]
    if t.kind == "enum" and t.arg:
        missing = [v for v in chk.prog.enums.get(t.arg, []) if v not in chk.prog.dice]
        if missing:
            chk.err("E148", f"no die named `{missing[0]}` for enum value of {t.arg}", arg.span,
                    hint="declare a die for every value: die NAME { faces }")
    elif chk.names_die(arg, hidden_by=None):
        pass
    elif t.kind != "any":
        chk.err("E148", f"`roll` needs a die name or an enum value naming a die, found {t}", arg.span)
    return T.INT


def _value(chk: ExpressionChecker, e: A.Call, types: list[Ty]) -> Ty:
    decl = chk._counter_of(e.args[0])
    if decl is None or decl.track_values is None:
        chk.err("E149", "`value` needs a track", e.args[0].span, hint="declare one with: track NAME values [..]")
    return T.INT


def _graph_call(chk: ExpressionChecker, e: A.Call, types: list[Ty]) -> Ty:
    """`neighbours`, `adjacent`, `reach`, `distance`: a graph's name, places of its node enum, a count for
    `reach`, and optionally a kind or a list of kinds of its kind enum."""
    assert chk.prog is not None and isinstance(e.func, A.Name)
    name, args = e.func.id, e.args
    graph = chk.prog.graphs.get(types[0].arg or "") if types[0].kind == "graph" else None
    if graph is None:
        if types[0].kind != "any":
            chk.err("E140", f"`{name}` needs a graph's name first, found {types[0]}", args[0].span)
        return T.ANY
    place, kind = Ty("enum", arg=graph.nodes), Ty("enum", arg=graph.kinds)
    places = 2 if name in ("adjacent", "distance") else 1
    for a, t in zip(args[1:1 + places], types[1:1 + places], strict=True):
        if not T.assignable(t, place):
            chk.err("E140", f"expected a place of {graph.nodes}, found {t}", a.span)
    rest = 1 + places
    if name == "reach" and not T.assignable(types[rest], T.INT):
        chk.err("E140", f"expected int, found {types[rest]}", args[rest].span)
    if name == "reach":
        rest += 1
    if len(args) > rest and not (T.assignable(types[rest], kind) or T.assignable(types[rest], T.list_of(kind))):
        chk.err("E140", f"expected a kind of {graph.kinds} or a list of them, found {types[rest]}", args[rest].span)
    return T.list_of(place) if name in ("neighbours", "reach") else T.BOOL if name == "adjacent" else T.INT


def _ord(chk: ExpressionChecker, e: A.Call, types: list[Ty]) -> Ty:
    if types[0].kind not in ("enum", "any"):
        chk.err("E140", f"`ord` needs an enum value, found {types[0]}", e.args[0].span)
    return T.INT
# What `sort` orders by itself (ints and texts by value, players by seat); `sort(… by KEY)` also takes bools and
# enum values (in declaration order), which the closure compiler orders through the key's type.
SORTABLE = ("int", "text", "player")
KEY_KINDS = (*SORTABLE, "bool", "enum", "any")


def _sort(chk: ExpressionChecker, e: A.Call, types: list[Ty]) -> Ty:
    """The same list type, when its items are ints, texts or players (E302 otherwise)."""
    lt = T.as_list(types[0])
    elem = lt.elem if lt is not None else None
    if elem is None or elem.kind not in (*SORTABLE, "any"):
        chk.err("E302", f"`sort` orders ints, texts or players, not {types[0]}", e.args[0].span,
                hint="order other items by a key: `sort(x for x in L by x.cost)`")
        return types[0] if lt is not None else T.ANY
    return T.list_of(elem)


# What `text(x)` can write: everything a log line can, except effects, functions, an enum's name and a bare `none`.
_NO_TEXT = ("effect", "function", "enumtype", "void", "none")


def _text(chk: ExpressionChecker, e: A.Call, types: list[Ty]) -> Ty:
    """`text(x)`, or `text("FORMAT", v…)` whose literal has one `{}` per value (E134)."""
    for a, t in zip(e.args, types, strict=True):
        if t.kind in _NO_TEXT:
            what = f"the enum `{t.arg}` itself" if t.kind == "enumtype" else str(t)
            chk.err("E303", f"`text` cannot write {what}", a.span,
                    hint="`text` writes ints, bools, texts, enum values, players, cards and lists of them")
    if len(e.args) > 1:
        fmt = e.args[0]
        if not isinstance(fmt, A.StrLit):
            chk.err("E303", "`text` with several values needs a quoted format first", fmt.span,
                    hint='write `text("{} of {}", a, b)`, or join texts with `+`')
        elif fmt.value.count("{}") != len(e.args) - 1:
            chk.err("E134", f"text has {fmt.value.count('{}')} `{{}}` but {len(e.args) - 1} values follow",
                    e.span, hint="each `{}` of the format takes the next value")
    return T.TEXT


BUILTIN_RULES: dict[str, Callable[[ExpressionChecker, A.Call, list[Ty]], Ty]] = {
    "ord": _ord,
    "neighbours": _graph_call,
    "adjacent": _graph_call,
    "reach": _graph_call,
    "distance": _graph_call,
    "size": _size,
    "top": _top_or_bottom,
    "bottom": _top_or_bottom,
    "random": _random,
    "roll": _roll,
    "value": _value,
    "sort": _sort,
    "text": _text,
}
