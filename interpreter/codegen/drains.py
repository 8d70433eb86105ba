"""`repeat while` loops that only deal cards from the top of one zone to another, written as one bulk move.

Rules deal and gather cards with a loop whose body is a single ``move top(Z) to D``:

    repeat while size(deck) > 0 { move top(deck) to p.hand }     # gather everything
    repeat while size(deck) > 2 { move top(deck) to discard }     # leave two
    repeat while size(p.hand) < 7 { move top(boneyard) to p.hand }  # deal up to seven

Written pass by pass, each card costs the loop's test, the pop, the append, the card's place, two visibility
tests and the pass count (about seven times what ``hand.append(deck.pop())`` costs in plain Python). The
number of passes is known before the first one: it is fixed by the two zones' sizes and a literal, and
nothing in the body can change either zone except by the moves themselves. So the cards are taken as one
slice, put on D at once, and only each card's place (and its visibility marks, when any card has one) is
written per card. The end state is the one the passes leave: the same lists, places, marks, removed-card
count, work charged and errors, in the same cases:

- more than 100,000 passes: 100,001 cards moved, then the loop's own error (as the passes would);
- dealing up to N from a zone that runs out: every card it had moved, then "nothing to move" at the move's
  line, before the work is charged (as the passes would).

Only declared zones with no capacity, neither of them ``final`` at the source, whose index expressions are
plain arithmetic on constants and locals (no call, no field, no look-up that could fail or change), and which
are provably two different zones (two different declarations): anything else is written pass by pass.
tests/test_drains.py plays each shape, and each error, in every compile mode.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.runtime.state import moved_source

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.stmtgen import StmtGen

# A zone index the loop cannot change and whose evaluation cannot fail: integers, + - *, parentheses and
# locals (generated markers, or a read of ``env``), and a seat's slot from its table (codegen/slots.py: a
# constant tuple read at a proven seat).
_PLAIN_INDEX = re.compile(r"^(?:[0-9 +*()\-]|\x00L?_E[0-9]+\x00|env\['[A-Za-z_][A-Za-z0-9_]*'\]|_Ks[0-9]+\[|\])+$")

_CAP = 100000  # the passes a `repeat while` may make (StmtGen._repeat)


def _builtin(e: A.Expr, name: str) -> A.Expr | None:
    """The argument of a one-argument call of built-in ``name``, else None."""
    ref: Any = e.ref
    if isinstance(e, A.Call) and ref is not None and ref[:2] == ("call_builtin", name) and len(e.args) == 1:
        return e.args[0]
    return None


def _zone_decl(e: A.Expr) -> Any:
    """The declaration of the declared zone (or player's zone) ``e`` names, else None."""
    ref: Any = e.ref
    if ref is None or ref[0] not in ("zone", "pzone"):
        return None
    return ref[1]


def _shape(st: A.RepeatWhile) -> tuple[str, A.Expr, A.Expr, A.Move, int] | None:
    """(``"drain"`` or ``"fill"``, the zone Z the cards leave, D they go to, the move, the literal K) when the
    loop is ``repeat while size(Z) > K { move top(Z) to D }`` (``size(Z) != 0`` is K = 0) or
    ``repeat while size(D) < K { move top(Z) to D }``, K a literal at least 0; else None."""
    if len(st.body) != 1 or not isinstance(st.body[0], A.Move):
        return None
    mv = st.body[0]
    src = _builtin(mv.what, "top")
    cond = st.cond
    if src is None or not isinstance(cond, A.Binary) or not isinstance(cond.right, A.IntLit):
        return None
    k = cond.right.value
    sized = _builtin(cond.left, "size")
    if sized is None or k < 0:
        return None
    if cond.op == ">" or (cond.op == "!=" and k == 0):
        kind = "drain"
    elif cond.op == "<":
        kind = "fill"
    else:
        return None
    return kind, src, mv.dest, mv, k


def _same_text(a: A.Expr, b: A.Expr) -> bool:
    """Whether two zone expressions are written alike (the same zone, as nothing between them rebinds)."""
    if isinstance(a, A.Name) and isinstance(b, A.Name):
        return a.id == b.id
    if isinstance(a, A.Attr) and isinstance(b, A.Attr):
        return a.name == b.name and _same_text(a.obj, b.obj)
    return False


def drain(gen: StmtGen, st: A.RepeatWhile) -> bool:
    """Write ``st`` as one bulk move when it has a shape :func:`_shape` knows and its zones qualify (see the
    module's docstring); False: not written, the caller writes the loop pass by pass."""
    shape = _shape(st)
    if shape is None:
        return False
    kind, src_e, dst_e, mv, k = shape
    cond: Any = st.cond
    sized = _builtin(cond.left, "size")
    assert sized is not None
    if not _same_text(sized, src_e if kind == "drain" else dst_e):
        return False
    sdecl, ddecl = _zone_decl(src_e), _zone_decl(dst_e)
    if sdecl is None or ddecl is None or sdecl is ddecl or sdecl.final or ddecl.capacity is not None:
        return False
    src, dst = gen.zone(src_e), gen.zone(dst_e)
    if not (_PLAIN_INDEX.match(src) and _PLAIN_INDEX.match(dst)):
        return False
    _write(gen, kind, src, dst, k, mv, st.span.line, ddecl.final)
    return True


def _write(gen: StmtGen, kind: str, src: str, dst: str, k: int, mv: A.Move, line: int, final: bool) -> None:
    lst, n, m, c, d, cz = gen.tmp("_l"), gen.tmp("_n"), gen.tmp("_m"), gen.tmp("_c"), gen.tmp("_d"), gen.tmp("_p")
    short = ""
    gen.emit(f"{lst} = s.zones[{src}]")
    if kind == "drain":  # the passes: one for each card above the K at the bottom
        gen.emit(f"{n} = len({lst}) - {k}" if k else f"{n} = len({lst})")
    else:  # the passes: one for each card D lacks; Z may run out first ("nothing to move")
        short = gen.tmp("_w")
        gen.emit(f"{n} = {k} - len(s.zones[{dst}])")
        gen.emit(f"{short} = {n} > len({lst})")
        gen.emit(f"if {short}:")
        gen.emit(f"    {n} = len({lst})")
    gen.emit(f"if {n} > 0:")
    gen.depth += 1
    gen.emit(f"if {n} > {_CAP}:")  # the pass past the limit moves its card, then the loop fails
    gen.emit(f"    {m} = {lst}[-{_CAP + 1}:]")
    gen.emit("else:")
    gen.emit(f"    {m} = {lst}[-{n}:]")
    gen.emit(f"del {lst}[-len({m}):]")
    gen.emit(f"{m}.reverse()")  # the order the cards were taken in: the top first
    gen.emit(f"{d} = {dst}")
    if mv.place == "bottom":  # each card in turn at the bottom: the last taken ends lowest
        gen.emit(f"s.zones[{d}][0:0] = {m}[::-1]")
    else:
        gen.emit(f"s.zones[{d}].extend({m})")
    if gen.comp.notes:  # the checked variant notes the moved cards (runtime/state.py)
        gen.emit(moved_source(m, many=True))
    gen.emit(f"{cz} = s.card_zone")
    gen.emit(f"for {c} in {m}:")
    gen.emit(f"    {cz}[{c}] = {d}")
    gen.emit("if s.face_up:")  # a card that moves is no longer face up, nor shown to anyone
    gen.emit(f"    s.face_up.difference_update({m})")
    gen.emit("if s.shown:")
    gen.emit(f"    for {c} in {m}:")
    gen.emit(f"        s.shown.pop({c}, None)")
    if final:  # out of play from now on (Z is not final)
        gen.emit(f"s.removed_count += len({m})")
    gen.emit(f"if {n} > {_CAP}:")
    message = f"`repeat while` at line {line} ran {_CAP} times without ending"
    gen.emit(f"    raise _RuleError({message!r})")
    gen.depth -= 1
    gen.emit("else:")
    gen.emit(f"    {n} = 0")
    if short:
        gen.emit(f"if {short}:")
        gen.emit(f"    raise _RuleError({f'nothing to move at line {mv.span.line}'!r})")
    gen.charge(n, f"at line {line}")
