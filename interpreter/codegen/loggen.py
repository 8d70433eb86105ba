"""`log` in generated statement code: its values read once, and the two masks of who may read the line.

The first mask is who the line is for (everyone, or `log to` players); the second narrows it to those who also
see every card it names, as the closures compute them (interpreter/compiler/statements.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen.slots import proven

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.stmtgen import StmtGen


def log(gen: StmtGen, st: A.Log) -> None:
    """`log`: the line's values, read once, and the masks of who may read it and who sees every card in it."""
    fmt_id, card_args, zone_args = gen.comp.log_format(st)
    values = []
    known = set()  # the arguments proven not `none` here (a card just moved, a loop's item): no `None` test
    for i, a in enumerate(st.args):
        src = gen.src(a)
        if gen.gen.is_nonnull(src) or proven(gen.gen, a):
            known.add(i)
        if i not in zone_args and (isinstance(a, A.IntLit | A.StrLit | A.BoolLit | A.NoneLit)
                                   or src.startswith("\x00_E")):
            values.append(src)  # a literal or a variable's Python local: read where it is used
            continue
        v = gen.tmp()
        gen.emit(f"{v} = {src}")
        values.append(v)
    for i in zone_args:
        gen.emit(f"{values[i]} = tuple(s.zones[{values[i]}])")
    mask, full = gen.tmp("_m"), gen.tmp("_m")
    if st.to is None:
        gen.emit(f"{mask} = s.tables.everyone")
    else:
        gen.emit(f"{mask} = _players_mask({gen.src(st.to)})")
    gen.emit(f"{full} = {mask}")
    start = len(gen.lines)
    hosted = any(z.as_host for z in gen.comp.prog.zones.values())
    for i in card_args + zone_args:
        v = values[i]
        a_ty = st.args[i].ty
        if a_ty is not None and a_ty.kind == "list" and a_ty.elem is not None and a_ty.elem.kind != "card":
            c = gen.tmp("_c")  # a list of lists of cards: every card inside, at any depth
            gen.emit(f"for {c} in _card_ids({v}):")
            gen.emit(f"    {full} &= _card_vis(s, {c})")
        elif gen.comp.prog.group_visibility or hosted:  # masks computed from the state: ask `_card_vis`
            c = gen.tmp("_c")
            gen.emit(f"for {c} in ({v} if isinstance({v}, tuple) else ({v},)):")
            gen.emit(f"    if {c} is not None:")
            gen.emit(f"        {full} &= _card_vis(s, {c})")
        elif _public_end(st.args[i]):  # the card lies in a public zone: everyone sees it, `full` stays
            continue
        # `_card_vis` written in place: a revealed card is seen by everyone, and `full` holds no one else
        elif a_ty is not None and a_ty.kind == "card":
            gen.emit(f"if {v} not in s.face_up:" if i in known else f"if {v} is not None and {v} not in s.face_up:")
            gen.emit(f"    {full} &= s.tables.zone_vis_mask[s.card_zone[{v}]]")
        else:
            c = gen.tmp("_c")
            gen.emit(f"for {c} in ({v} if isinstance({v}, tuple) else ({v},)):")
            gen.emit(f"    if {c} is not None and {c} not in s.face_up:")
            gen.emit(f"        {full} &= s.tables.zone_vis_mask[s.card_zone[{c}]]")
    packed = "(" + "".join(f"{v}, " for v in values) + ")"
    if len(gen.lines) == start:  # no card narrows who sees the line: one mask serves as both
        gen.lines.pop()
        full = mask
    gen.emit(f"s.log.append(({mask}, {full}, {fmt_id}, {packed}))")


def _public_end(e: A.Expr) -> bool:
    """Whether ``e`` is ``top(Z)`` or ``bottom(Z)`` of a declared public zone (or a player's): a logged card that
    is there (or `none`) is seen by everyone, so its line's mask needs no narrowing. Called only where no zone is
    `visible to` a group or hosted (the masks are then the declared ones, fixed for the game)."""
    ref: Any = e.ref
    if not (isinstance(e, A.Call) and ref is not None and tuple(ref[:2]) in (("call_builtin", "top"),
            ("call_builtin", "bottom")) and len(e.args) == 1):
        return False
    zref: Any = e.args[0].ref
    return zref is not None and zref[0] in ("zone", "pzone") and zref[1].visibility == "public"
