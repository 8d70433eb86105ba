"""A card's `function` field called where most cards answer a literal or one of the arguments: no Python call.

``sum(c.shield(p, loss) for c in p.played)`` calls each card's body by position (exprgen ``positional``): one
Python frame a card. Most cards keep the field's default (``shield: function(p: player, d: int) -> int = 0``,
``damage_taken: … = amount``), whose body is ``return 0`` or ``return _P0``: the frame is the whole cost of the
call (Bloodborne: about 160 such calls a game of about 1,000 Python calls). Here the call site reads a per-card
table of truths first, written ``(0 if K[card_def[c]] else T[card_def[c]](s, p, loss, c))``: where the card's
body is that one shape the value is written in place, elsewhere the call is made as before.

Why it is exact: a body's shape is read from the card's own expression, the one ``positional`` compiles into
``return <source>``: a literal (``repr`` of its value, as ``_src`` writes it; ``None`` for a card whose kind
declares the field without a body, as ``_none_positional`` answers) or a bare parameter name (which ``Params``
reads as that argument). Such a body reads nothing else, cannot fail, and charges no work (the rule is off where
the field can call itself: there each call charges the game's work, budgetgen ``charge_call``). What the call
site skips is only evaluating the other arguments and the card, so it is used only where each of those is a plain
name or a literal (``_PLAIN``: nothing to evaluate that could fail, draw from the RNG or write); an argument the
shape returns is evaluated in both branches, in the same place the call evaluated it (the card is a plain name:
it had nothing to evaluate before it). Card definitions are fixed when the ruleset is compiled, so the table is a
constant tuple. The most common shape is chosen over the kinds that declare the field (a call site only reaches
those: other kinds' cards are called as before).
"""

from __future__ import annotations

import re
import weakref
from collections import Counter
from typing import TYPE_CHECKING

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen.hoist import bare

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen

# a source that reads nothing but one Python name (a local, a parameter, a marker) or a literal (exprgen's)
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\x00L?_E[0-9]+\x00|-?[0-9]+")
# an argument the shortcut writes twice (once in each branch) is at most this long: the text stays small
MAX_ARG_TEXT = 240
ENABLED = True

# per generator, per field: the chosen shape (a literal's source, or the index of the parameter returned) and
# its per-card-definition truths; None where no card has a shape
_SHAPES: weakref.WeakKeyDictionary[ExprGen, dict[str, tuple[str | int, tuple[bool, ...]] | None]] = (
    weakref.WeakKeyDictionary())


def _shape(expr: A.Expr | None, params: list[str]) -> str | int | None:
    """What a card's body for the field returns when it is one fixed thing, else None (the call is made)."""
    if expr is None or isinstance(expr, A.NoneLit):
        return "None"
    if isinstance(expr, A.BoolLit | A.IntLit | A.StrLit):
        return repr(expr.value)
    if isinstance(expr, A.Name) and expr.ref is not None and expr.ref[0] == "local" and expr.id in params:
        return params.index(expr.id)
    return None


def shapes(gen: ExprGen, fname: str) -> tuple[str | int, tuple[bool, ...]] | None:
    """The most common fixed shape of ``fname``'s bodies over the card definitions, and which have it."""
    per = _SHAPES.setdefault(gen, {})
    if fname in per:
        return per[fname]
    comp = gen.comp
    prog = comp.prog
    params = comp._field_params(fname)
    found: list[str | int | None] = []
    for card in prog.cards:  # as exprgen ``positional`` finds each card's body
        field = next((f for f in prog.kinds[card.kind].fields if f.name == fname), None)
        if field is None or prog.field_types[card.kind][fname].kind != "function" or params is None:
            found.append(None)  # a kind without the field: its `None` is called as before (never a call site's)
            continue
        found.append(_shape(card.values.get(fname, field.default), list(params)))
    counts = Counter(x for x in found if x is not None)
    best: tuple[str | int, tuple[bool, ...]] | None = None
    if counts:
        top = max(counts.values())
        shape = next(x for x in found if x is not None and counts[x] == top)  # the first of the most common
        best = (shape, tuple(x == shape for x in found))
    per[fname] = best
    return best


def wrap(gen: ExprGen, fname: str, args: list[str], card_def: str, obj: str, call: str) -> str:
    """``call`` (a call of card ``obj``'s body for ``fname`` with the sources ``args``), or the same call behind
    a test of the card's shape, which writes the shape's value where the card has it."""
    if not ENABLED or f"field:{fname}" in gen.comp.recursive or not _PLAIN.fullmatch(bare(obj)):
        return call
    found = shapes(gen, fname)
    if found is None:
        return call
    shape, truths = found
    if isinstance(shape, int):
        value = args[shape]
        if len(value) > MAX_ARG_TEXT or not all(_PLAIN.fullmatch(bare(a)) for i, a in enumerate(args) if i != shape):
            return call
        value = f"({value})"
    else:
        if not all(_PLAIN.fullmatch(bare(a)) for a in args):
            return call
        value = shape
    if all(truths):  # every card answers the shape: the card and the arguments are plain, nothing to evaluate
        return value
    return f"({value} if {gen.const(truths)}[{card_def}[{obj}]] else {call})"
