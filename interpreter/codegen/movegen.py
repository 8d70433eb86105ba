"""Card moves in generated statement code: `move` of a card, a list or a zone, written in place where it can be.

A card moved to a declared zone without a capacity is :data:`~liturgy.interpreter.runtime.moves.OPEN_MOVE`
written in place; to one with a capacity, the same behind the capacity test (a full zone: ``_move`` raises
its error); ``move top(Z) to D`` pops Z's last card. Every form checks in ``move_card``'s order and raises its
errors, so every compile mode gives the same digests (tests/test_moves.py, tests/test_codegen_facts.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen.slots import proven
from liturgy.interpreter.runtime.moves import open_move_source
from liturgy.interpreter.runtime.state import moved_source

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.stmtgen import StmtGen


def move(gen: StmtGen, st: A.Move) -> None:
    place = repr(st.place)
    wt = st.what.ty
    if wt is not None and wt.kind == "zone":
        src, dst = gen.tmp("_z"), gen.tmp("_z")
        gen.emit(f"{src} = {gen.zone(st.what)}")
        gen.emit(f"{dst} = {gen.zone(st.dest)}")
        if _zone_inline(st):
            dest: Any = st.dest.ref  # a declared zone (_zone_inline)
            move_zone_inline(gen, src, dst, st.place, dest[1].final)
            return
        gen.emit(f"if s.zones[{src}]:")  # moving an empty zone does nothing (both zones are valid)
        gen.emit(f"    _move_zone(s, {src}, {dst}, {place})")
        return
    if wt is not None and wt.kind == "card" and _move_top(gen, st):
        return
    if wt is not None and wt.kind == "card":
        c = gen.tmp("_c")
        what = gen.src(st.what)
        if gen.gen.is_nonnull(what) or proven(gen.gen, st.what):
            gen.emit(f"{c} = {what}")
        else:
            gen.emit(f"if ({c} := {what}) is None:")
            gen.emit(f"    raise _RuleError({f'nothing to move at line {st.span.line}'!r})")
            gen.checked(what)
        cap = _capacity(st.dest)
        decl: Any = st.dest.ref  # a declared zone's (zone, decl) where _open_zone or _capacity accepts it
        if _open_zone(st.dest):
            move_inline(gen, c, gen.zone(st.dest), st.place, decl[1].final)
        elif cap is not None:  # full and elsewhere: `_move` raises; else the move written in place
            d = gen.tmp("_d")
            gen.emit(f"{d} = {gen.zone(st.dest)}")
            gen.emit(f"if {_full(d, cap)} and s.card_zone[{c}] != {d}:")
            gen.emit(f"    _move(s, {c}, {d}, {place})")
            gen.emit("else:")
            gen.depth += 1
            final = decl[1].final
            for line in open_move_source(c, d, gen.tmp("_o"), gen.tmp("_l"), st.place, final, gen.comp.notes,
                                 _finals(gen)):
                gen.emit(line)
            gen.depth -= 1
        else:
            gen.emit(f"_move(s, {c}, {gen.zone(st.dest)}, {place})")
        return
    dst = gen.tmp("_z")
    gen.emit(f"{dst} = {gen.zone(st.dest)}")
    # a comprehension's loop written here (inline_aggregates ``statement_loop``), after the destination as before
    gen.emit(f"_move_all(s, tuple({gen.inline_loop(st.what)}), {dst}, {place})")


def _move_top(gen: StmtGen, st: A.Move) -> bool:
    """`move top(Z) to D` between declared zones, Z not final and D with no capacity: the card is Z's last,
    so it is popped there (no look-up of its zone, no search). The checks keep their order: nothing in Z,
    then D's own evaluation, and only then the move (a failing D leaves Z as it was). False: not that shape."""
    what: Any = st.what
    ref = what.ref
    cap = _capacity(st.dest)
    if not (isinstance(what, A.Call) and ref is not None and ref[:2] == ("call_builtin", "top")
            and len(what.args) == 1 and (_open_zone(st.dest) or cap is not None)):
        return False
    zref = what.args[0].ref
    if zref is None or zref[0] not in ("zone", "pzone") or zref[1].final:
        return False
    src = gen.zone(what.args[0])
    lst, c, d = gen.tmp("_l"), gen.tmp("_c"), gen.tmp("_d")
    gen.emit(f"if not ({lst} := s.zones[{src}]):")
    gen.emit(f"    raise _RuleError({f'nothing to move at line {st.span.line}'!r})")
    gen.emit(f"{d} = {gen.zone(st.dest)}")
    if cap is not None:  # a full destination: `_move` raises its error (Z is not final)
        gen.emit(f"if {_full(d, cap)} and {d} != {src}:")
        gen.emit(f"    _move(s, {lst}[-1], {d}, {st.place!r})")
        gen.emit("else:")
        gen.depth += 1
    gen.emit(f"{c} = {lst}.pop()")
    gen.emit(f"s.zones[{d}].insert(0, {c})" if st.place == "bottom" else f"s.zones[{d}].append({c})")
    if gen.comp.notes:  # the checked variant notes the moved card (runtime/state.py)
        gen.emit(moved_source(c))
    gen.emit(f"s.card_zone[{c}] = {d}")
    gen.emit(f"if s.face_up or s.shown: _unmark(s, ({c},))")
    dest: Any = st.dest.ref  # a declared zone (_open_zone, _capacity)
    if dest[1].final:  # out of play from now on (Z is not final)
        gen.emit("s.removed_count += 1")
    if cap is not None:
        gen.depth -= 1
    return True


def _finals(gen: StmtGen) -> bool:
    """Whether the ruleset declares any final zone (when none, no card's zone needs the test)."""
    return any(z.final for z in gen.comp.prog.zones.values())


def _full(d: str, cap: int) -> str:
    """The test that zone ``d`` holds ``cap`` cards or more: a slot (capacity 1) is full when it holds any."""
    return f"s.zones[{d}]" if cap == 1 else f"len(s.zones[{d}]) >= {cap}"


def _capacity(e: A.Expr) -> int | None:
    """The capacity of the declared zone (or player's zone) ``e`` names, if it has one."""
    ref: Any = e.ref
    if ref is None or ref[0] not in ("zone", "pzone"):
        return None
    cap: int | None = ref[1].capacity
    return cap


def _open_zone(e: A.Expr) -> bool:
    """Whether ``e`` names a declared zone (or a player's) with no capacity: a card can always enter
    it, so only the card's own zone needs checking when it moves."""
    ref = e.ref
    if ref is None or ref[0] not in ("zone", "pzone"):
        return False
    return ref[1].capacity is None


def move_inline(gen: StmtGen, c: str, dst: str, place: str, final: bool) -> None:
    """`move_card` written in place (runtime/moves.py's template), for a destination `_open_zone` accepts
    (``final``: a final one)."""
    d = gen.tmp("_d")
    gen.emit(f"{d} = {dst}")
    for line in open_move_source(c, d, gen.tmp("_o"), gen.tmp("_l"), place, final, gen.comp.notes,
                                 _finals(gen)):
        gen.emit(line)


def _zone_inline(st: A.Move) -> bool:
    """Whether `move Z to D` takes ``move_zone``'s fast path whatever the zones hold: Z and D are declared
    zones (or players' zones) of two different declarations, so never the same zone; Z is not final; D has
    no capacity. Then no card can fail to move, and the move is written in place (:func:`move_zone_inline`)."""
    what: Any = st.what.ref
    dest: Any = st.dest.ref
    if what is None or dest is None or what[0] not in ("zone", "pzone") or dest[0] not in ("zone", "pzone"):
        return False
    return what[1] is not dest[1] and not what[1].final and _open_zone(st.dest)


def move_zone_inline(gen: StmtGen, src: str, dst: str, place: str, final: bool) -> None:
    """``move_zone``'s fast path written in place, for the zones :func:`_zone_inline` accepts (``final``: D is
    final). Goofspiel moves a one-card slot to a pile three times a turn: the call and its tests were 12 % of
    its bytecodes. The same writes in the same order as ``move_zone``: the cards noted (checked code only), the
    cards put on D (or under it, the last one lowest, as moved one by one), each card's zone, its face-up mark
    and the players it was shown to forgotten, the removed count, and Z emptied last (the loops read it)."""
    lst, c = gen.tmp("_l"), gen.tmp("_c")
    gen.emit(f"if {lst} := s.zones[{src}]:")  # moving an empty zone does nothing
    gen.depth += 1
    if gen.comp.notes:  # the checked variant notes the moved cards (runtime/state.py)
        gen.emit(moved_source(lst, many=True))
    gen.emit(f"s.zones[{dst}][0:0] = {lst}[::-1]" if place == "bottom" else f"s.zones[{dst}] += {lst}")
    gen.emit(f"for {c} in {lst}: s.card_zone[{c}] = {dst}")
    gen.emit(f"if s.face_up or s.shown: _unmark(s, {lst})")
    if final:  # out of play from now on (Z is not final)
        gen.emit(f"s.removed_count += len({lst})")
    gen.emit(f"{lst}.clear()")
    gen.depth -= 1
