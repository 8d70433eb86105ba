"""Kept options: a choice whose options can only shrink is filtered from its last options, not from every item.

Why: in a placement game (Hex, Gomoku, Go-like fills) the choice `choose m from cells where board[m.c, m.r] ==
none` scans every cell at every decision, though a taken cell never becomes free again. When the program
itself proves that, the cells that failed the test once fail it forever, so the scan can start from the cells
that passed last time: on average half a Hex board instead of all 121 cells, with the same options in the
same order (the kept list is a subsequence of the zone, filtered by the same test).

A second, weaker form needs no shrinking: when the test is ``G[m.f, m.g] == V`` for any `V` the same for every
card (Breakthrough: `board[m.fc, m.fy] == p`), cards side by side on one cell (a square's three steps) are
tested once per cell, from runs cut once per game; the rest of the `where` follows in the same comprehension.

The proof, made once from the checked program (anything unproved compiles the ordinary filter of
:mod:`.scans`; the second form needs the first two points only):

* the choice is a `choose` (not `simultaneously`) over a zone named directly and public, in a program without
  rule modes; no `move` or `shuffle` statement of the program names a zone or a card of the zone's kind, so
  its cards and their order are the ones it was dealt;
* its `where` is ``G[m.f, m.g] == none`` (the second form: ``== V``), or that `and` more tests, with ``G`` a
  public grid not reset each round and ``m.f``, ``m.g`` printed fields (data: they never change) that put every
  card on the grid;
* every statement that writes a cell of ``G`` is ``G[c, r] = V`` with ``V`` that cannot be `none`: an
  integer, text or truth literal, or a player bound by an enclosing ``for p in players`` that nothing rebinds.
  No `transfer` names a cell of ``G``.

The kept list lives in :attr:`GameState.kept` (derived data, keyed by the choice's filter): it is not part of
the game's digest, saves or views, and a clone, a loaded save or a sampled world starts without it and makes it
with one full scan.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import count
from typing import TYPE_CHECKING, Any

from liturgy.dsl.checker.program import Program
from liturgy.dsl.checker.walk import all_statements, top_bodies
from liturgy.dsl.constructs.statements import child_blocks
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import cardtab, cse
from liturgy.interpreter.codegen.hoist import Hoist, function_text

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen

# ``s.counters`` in the inlined test, read from the filter's ``_cs`` instead (left alone where a string literal,
# a ruleset's own text, is in the test)
_COUNTERS = re.compile(r"(?<![\w.])s\.counters\b")
_STRING = re.compile(r"'|\"")
_SITES = count(1)  # each kept filter's key in GameState.kept: unique in the process, so rulesets never share one


def _cell_test(where: A.Expr, var: str) -> tuple[A.Cell, A.Expr, A.Expr | None] | None:
    """(the cell of ``G[..] == V``, ``V``, the rest of an `and`) when ``where`` starts with that test and ``V``
    is `none`, a literal or a variable other than the choice's (the same for every item)."""
    conj: list[A.Expr] = []  # `A and B and C` is `(A and B) and C`: its tests in the order they run
    e = where
    while isinstance(e, A.Binary) and e.op == "and":
        conj.append(e.right)
        e = e.left
    test, conj = e, conj[::-1]
    rest: A.Expr | None = None
    for more in conj:  # the same tests after the first, in the same order (`and` runs them left to right)
        rest = more if rest is None else _and(rest, more, where)
    if not (isinstance(test, A.Binary) and test.op == "==" and isinstance(test.left, A.Cell)):
        return None
    value = test.right
    if isinstance(value, A.NoneLit | A.IntLit) or (
            isinstance(value, A.Name) and value.id != var and value.ref == ("local", value.id)):
        return test.left, value, rest
    return None


def _and(left: A.Expr, right: A.Expr, like: A.Expr) -> A.Expr:
    both = A.Binary(left.span, "and", left, right)
    both.ty, both.ref = like.ty, like.ref
    return both


def _field_of(e: A.Expr, var: str) -> bool:
    """Whether ``e`` is ``var.f`` with ``f`` a printed field (data that never changes)."""
    return (isinstance(e, A.Attr) and e.ref is not None and e.ref[0] == "field" and isinstance(e.obj, A.Name)
            and e.obj.id == var and e.obj.ref == ("local", var))


def _never_none(value: A.Expr, players: frozenset[str]) -> bool:
    if isinstance(value, A.IntLit | A.StrLit | A.BoolLit):
        return True
    return isinstance(value, A.Name) and value.ref == ("local", value.id) and value.id in players


def _rebinds(stmts: list[A.Stmt], name: str) -> bool:
    """Whether a statement in ``stmts`` (nested ones included) can give ``name`` another value."""
    for s in _walk(stmts):
        if isinstance(s, A.Let) and s.name == name:
            return True
        if isinstance(s, A.Assign) and isinstance(s.target, A.Name) and s.target.id == name:
            return True
        if isinstance(s, A.For | A.Choose) and s.var == name:
            return True
        if isinstance(s, A.Simultaneous) and name in (s.var, s.player_var):
            return True
        if isinstance(s, A.Transfer) and s.bind == name:
            return True
    return False


def _walk(stmts: list[A.Stmt]) -> Iterator[A.Stmt]:
    for s in stmts:
        yield s
        for block in child_blocks(s):
            yield from _walk(block)


def _writes_fill(stmts: list[A.Stmt], grid: str, players: frozenset[str]) -> bool:
    """Whether every write to a cell of ``grid`` in ``stmts`` sets a value that cannot be `none`."""
    for s in stmts:
        if (isinstance(s, A.Assign) and isinstance(s.target, A.Cell) and grid_name(s.target) == grid
                and (s.op != "=" or not _never_none(s.value, players))):
            return False
        if isinstance(s, A.Transfer) and grid in (grid_name(s.source), grid_name(s.dest)):
            return False
        inner = players
        if (isinstance(s, A.For) and isinstance(s.iterable, A.Name) and s.iterable.ref == ("builtin", "players")
                and not _rebinds(s.body, s.var)):
            inner = players | {s.var}
        elif isinstance(s, A.For | A.Choose):
            inner = players - {s.var}  # a loop or choice variable of another kind hides an outer player
        elif isinstance(s, A.Simultaneous):
            inner = players - {s.var, s.player_var}
        for block in child_blocks(s):
            if not _writes_fill(block, grid, inner):
                return False
    return True


def grid_name(e: A.Expr | None) -> str | None:
    ref = e.ref if isinstance(e, A.Cell) else None
    return ref[1].name if isinstance(ref, tuple) and ref and ref[0] == "gridcell" else None


def _zone_fixed(prog: Program, zone: A.ZoneDecl) -> bool:
    """Whether no statement can move, add or reorder a card of the zone's kind (or the zone itself)."""
    kind = zone.of_kind
    if kind is None or zone.visibility != "public" or zone.per_player or zone.per_card:
        return False
    for s in all_statements(prog):
        if isinstance(s, A.Move):
            for e in (s.what, s.dest):
                t = e.ty
                arg = t.elem.arg if t is not None and t.kind == "list" and t.elem is not None else (
                    t.arg if t is not None else None)
                if t is None or arg is None or arg == kind:
                    return False
        if isinstance(s, A.Shuffle):
            t = s.zone.ty
            if t is None or t.arg is None or t.arg == kind:
                return False
    return True


def provable(prog: Program, source: A.Expr, where: A.Expr,
             var: str) -> tuple[A.Cell, A.Expr, A.Expr | None, str, bool] | None:
    """When the choice is over a fixed zone and its `where` starts with a test of the card's own cell: the
    cell, the value it is compared with, the rest of the `where`, the zone's card kind and whether the options
    can only shrink (the test is ``== none`` and no cell of the grid is ever set back to none). Else None."""
    found = _cell_test(where, var)
    zones = _zones_of(source)
    if found is None or prog.modes or not zones or len({z.of_kind for z in zones}) != 1:
        return None
    cell, value, rest = found
    gref = cell.ref
    if not (isinstance(gref, tuple) and gref and gref[0] == "gridcell"):
        return None
    grid = gref[1]
    if grid.seen_by or grid.reset_each_round or not (_field_of(cell.col, var) and _field_of(cell.row, var)):
        return None
    if zones[0].of_kind is None or not all(_zone_fixed(prog, z) for z in zones):
        return None
    shrinks = isinstance(value, A.NoneLit) and all(
        _writes_fill(body, grid.name, frozenset()) for body in top_bodies(prog))
    return cell, value, rest, zones[0].of_kind, shrinks


def _zones_of(source: A.Expr) -> list[A.ZoneDecl]:
    """The zones a choice's source names: one zone, or ``if … then Z1 else Z2`` of zones (empty: anything else)."""
    ref = source.ref
    if isinstance(ref, tuple) and ref and ref[0] == "zone" and isinstance(ref[1], A.ZoneDecl):
        return [ref[1]]
    if isinstance(source, A.Cond):
        a, b = _zones_of(source.then), _zones_of(source.orelse)
        return a + b if a and b else []
    return []


def runs(items: list[int], slots: tuple[int, ...], cache: dict[tuple[int, ...], Any],
         tables: tuple[tuple[Any, ...], ...] = ()) -> tuple[tuple[tuple[int, tuple[Any, ...]], ...],
                                                            tuple[int, ...], list[Any] | None]:
    """The zone's cards cut into runs of neighbours on the same cell: (the cell's slot, the run's cards). With
    ``tables`` (per-card tables the rest of the test reads at the card), each card comes as ``(card, its entry
    in each table…)``: the test reads them from the run, not from the tables, at every decision.

    Returned with the runs' slots in order and, when no two runs share a cell, a list from slot to that cell's
    run (None when two do): the filter's loop then walks plain slots, with no pair to unpack per cell.

    Every game of a ruleset deals a fixed zone alike, so the runs are also kept per filter across games, by the
    zone's cards (``cache``, at most 16 entries): a new game pays a copy of the zone, not the cutting."""
    key = tuple(items)
    found = cache.get(key)
    if found is not None:
        return found  # type: ignore[no-any-return]
    out: list[tuple[int, list[Any]]] = []
    for x in items:
        sl = slots[x]
        entry = (x, *(t[x] for t in tables)) if tables else x
        if out and out[-1][0] == sl:
            out[-1][1].append(entry)
        else:
            out.append((sl, [entry]))
    if len(cache) >= 16:
        cache.clear()
    pairs = tuple((sl, tuple(xs)) for sl, xs in out)
    cells = tuple(sl for sl, _ in pairs)
    by_slot: list[Any] | None = None
    if len(set(cells)) == len(cells) and all(sl >= 0 for sl in cells):
        by_slot = [()] * (max(cells, default=-1) + 1)
        for sl, xs in pairs:
            by_slot[sl] = xs
    made = cache[key] = (pairs, cells, by_slot)
    return made


def cells_of(items: list[int], slots: tuple[int, ...], cache: dict[tuple[int, ...], Any]) -> dict[int, tuple[int, ...]]:
    """The zone's cards by the slot of their cell (a cell's cards in zone order), kept per filter across games by
    the zone's cards, as :func:`runs` is: which options a filled cell takes away."""
    key = tuple(items)
    found = cache.get(key)
    if found is None:
        at: dict[int, list[int]] = {}
        for x in items:
            at.setdefault(slots[x], []).append(x)
        if len(cache) >= 16:
            cache.clear()
        found = cache[key] = {sl: tuple(xs) for sl, xs in at.items()}
    return found


def fills_key(grid: str) -> tuple[str, str]:
    """The key in :attr:`GameState.kept` of the slots of ``grid`` filled by generated statements, in order."""
    return ("fills", grid)


def recorded(gen: ExprGen, grid: str) -> bool:
    """Whether generated statements note each cell of ``grid`` they fill (:func:`fill_note`): some choice of the
    program has a shrinking kept filter on it. Decided once per compile, from the program alone."""
    table: dict[str, bool] = vars(gen.comp).setdefault("kept_recorded", {})
    if grid not in table:
        table[grid] = any(
            isinstance(st, A.Choose) and st.where is not None and (found := provable(
                gen.comp.prog, st.source, st.where, st.var)) is not None and found[4] and grid_name(found[0]) == grid
            for st in all_statements(gen.comp.prog))
    return table[grid]


def fill_note(slot: str, grid: str) -> str:
    """The line a generated write of a cell of ``grid`` at ``slot`` runs before it writes (when :func:`recorded`):
    a cell still empty is noted as filled. The value is computed first, so a note is never left for a write that
    failed."""
    return f"if s.counters[{slot}] is None: s.kept.setdefault({fills_key(grid)!r}, []).append({slot})"


def _shrinking_lines(gen: ExprGen, key: str, x: str, table: str, info: Any) -> list[str]:
    """The shrinking filter's body: the options kept last time less the cards on cells filled since, when that
    is known, else those options filtered again.

    Known when the generated statements noted every change of the grid since (``fills``, :func:`fill_note`):
    the grid as it was then (kept beside the options), with each noted cell set to what it holds now, equals the
    grid now. Cells only fill, never empty (the proof), so a noted cell was empty when the options were last made
    and its cards are among them. A change no note saw (a statement left to the closures, the closures' own mode,
    a stone replaced) makes the two differ, and the options are filtered again from the last ones, as before.
    Comparing two lists of the same small ints and `none` is mostly identity tests in C (counting the grid's
    `none`s instead compared every int with `none` the slow way and cost as much as the scan). The options are
    kept as the keys of a dict, in zone order, so a filled cell's cards leave by hash (``list.remove`` compared
    every card before them, which also cost as much as the scan); the dict is the state's own, never offered."""
    lo, hi = info.base, info.base + info.width * info.height
    fk = repr(fills_key(info.name))
    return [
        f"_st = s.kept.get({key})", "_cs = s.counters", f"_f = s.kept.get({fk})",
        "_nf = 0 if _f is None else len(_f)", f"_now = _cs[{lo}:{hi}]",
        "if _st is not None:",
        "    _d, _seen, _at, _then = _st",
        "    if _nf > _seen:",
        "        for _sl in _f[_seen:]:",
        f"            _then[_sl - {lo}] = _now[_sl - {lo}]",
        "    if _then != _now:",
        f"        _d = dict.fromkeys([{x} for {x} in _d if _cs[{table}[{x}]] is None])",
        "    elif _nf > _seen:",
        "        for _sl in _f[_seen:]:",
        "            for _y in _at.get(_sl, ()):",
        "                _d.pop(_y, None)",
        "else:",
        f"    _d = dict.fromkeys([{x} for {x} in items if _cs[{table}[{x}]] is None])",
        f"    _at = {gen.const(cells_of)}(items, {table}, {gen.const({})})",
        f"s.kept[{key}] = (_d, _nf, _at, _now)",
        "_c = tuple(_d)"]


def _slot_loop(x: str, each: str, test: str | None) -> list[str]:
    """The runs scan for a value that is not None over runs on distinct cells (``_X``, from :func:`runs`): a
    loop over the cells' slots, each run read by its slot, the options appended in the runs' order, so the same
    list as the comprehension over ``(slot, run)`` pairs. Why: no pair built and unpacked per cell, and the
    function's names read as plain locals (a comprehension reads them through cells). callgrind: 7 % fewer
    instructions than the comprehension over 876 Breakthrough positions replayed, 48.96 M → 48.42 M for 15 games."""
    inner = [f"        if {test}:", f"            _c.append({x})"] if test is not None else [f"        _c.append({x})"]
    return ["_c = []", "for _sl in _sls:", "    if _cs[_sl] is not None and _cs[_sl] == _v:",
            f"        for {each} in _X[_sl]:", *("    " + line for line in inner)]


def _runs_scan(value: A.Expr, scan: str, loop: list[str]) -> list[str]:
    """The lines that set ``_c`` by ``scan`` (a comprehension whose ``@TEST@`` is each run's cell test, the cell
    ``_cs[_sl]`` against the value ``_v``), with that test written for the value.

    Why: a grid cell holds `none` (Python None) or a number, player, card, truth or text (an int, bool or str),
    and for those ``cell == v`` with ``v`` not None is False when the cell is None, as ``cell is None`` is
    ``cell == None``. So ``_cs[_sl] is not None and _cs[_sl] == _v`` is ``_cs[_sl] == _v`` for a value that is
    not None, and ``_cs[_sl] is None`` is it for None: the same runs kept, and no rich comparison of None with
    an int (both types decline it, then Python falls back to identity: most of the cost of an empty cell's
    test, and most cells of a board are empty): 52.80 M → 48.95 M instructions for 15 Breakthrough games
    (docs/performance.md, "Session 22: the classics' scans"). A variable's value is tested once, before the scan."""
    guarded = "_c = " + scan.replace("@TEST@", "_cs[_sl] is not None and _cs[_sl] == _v", 1)
    empty = "_c = " + scan.replace("@TEST@", "_cs[_sl] is None", 1)
    if isinstance(value, A.NoneLit):
        return [empty]
    looped = ["    " + line for line in loop]
    if isinstance(value, A.IntLit | A.StrLit | A.BoolLit):
        return ["if _X is not None:", *looped, "else:", f"    {guarded}"]
    return ["if _v is None:", f"    {empty}", "elif _X is not None:", *looped, "else:", f"    {guarded}"]


def _card_reads(gen: ExprGen, test: str, x: str) -> tuple[str, list[str], list[str]]:
    """``test`` with each read ``_kN[x]`` of a per-card table (a tuple with an entry for every card, so the read
    cannot fail) replaced by a name the loop binds from the run: (the test, the names, the tables)."""
    ncards = len(gen.comp.card_def)
    names: list[str] = []
    tables: list[str] = []
    seen: dict[tuple[Any, ...], str] = {}  # equal tables (one field read twice) share one name
    for k in dict.fromkeys(re.findall(rf"\b(_k[0-9]+)\[{x}\]", test)):
        table = gen.ns.get(k)
        if isinstance(table, tuple) and len(table) == ncards:
            name = seen.get(table)
            if name is None:
                name = seen[table] = gen._name("_p")
                names.append(name)
                tables.append(k)
            test = re.sub(rf"\b{k}\[{x}\]", name, test)
    return test, names, tables


def _inline_test(gen: ExprGen, var: str, source: A.Expr, test: A.Expr, x: str, hoist: Hoist) -> str | None:
    """``test`` as a comprehension's condition on ``x``, when the ordinary filter would write it as one (it
    reads the choice's variable only as ``x`` and cannot fail): else None, and the ordinary filter is called."""
    probe = A.ListComp(test.span, A.BoolLit(test.span, True), var, source, test)
    before = gen.unsafe
    with gen.fresh(hoist):
        cond: str = gen._loop_parts(probe, x)[0]
    if gen.unsafe != before or f"env[{var!r}]" in cond or cse.binds_temporary(cond):
        gen.unsafe = before
        return None
    return cond


def kept_filter(gen: ExprGen, var: str, source: A.Expr, where: A.Expr, pop: bool) -> Any:
    """A `choose` filter that starts from the options it kept last time, or None where that is not proved.

    ``plain(where)`` is the ordinary filter (:func:`.scans.filter_function`) for the rest of the test.
    """
    from liturgy.interpreter.codegen import scans

    if not pop:
        return None  # `simultaneously`: its variable stays bound after the filter, as the ordinary one leaves it
    prog, card_def = gen.comp.prog, gen.comp.card_def
    found = provable(prog, source, where, var)
    if found is None:
        return None
    cell, value, rest, kind, shrinks = found
    info = gen.comp.layout.grids[grid_name(cell) or ""]
    cols, rows = cardtab.table(gen, cell.col, var), cardtab.table(gen, cell.row, var)
    if cols is None or rows is None:
        return None
    slots = []
    for cid, (c, r) in enumerate(zip(cols, rows, strict=True)):
        if prog.cards[card_def[cid]].kind != kind:
            slots.append(-1)  # never in the zone
        elif c.__class__ is int and r.__class__ is int and 0 <= c < info.width and 0 <= r < info.height:
            slots.append(info.base + c + info.width * r)
        else:
            return None  # a card off the grid: the ordinary filter raises its error
    # the key: this filter, and which zone's list it was given when the source chooses between zones (a zone's
    # list is the same object for the state's whole life, and the kept entries live exactly as long)
    site = next(_SITES)
    key = f"({site}, id(items))" if len(_zones_of(source)) > 1 else str(site)
    x = gen._name("_x")
    table = gen.const(tuple(slots))
    hoist = Hoist(gen, frozenset({var}), eager=True)
    if shrinks:
        lines = _shrinking_lines(gen, key, x, table, info)
    else:  # the runs of cards on one cell, made once per game: one test per run
        trial = Hoist(gen, frozenset({var}), eager=True)  # thrown away: only whether the test can be inlined
        inline = rest is not None and _inline_test(gen, var, source, rest, x, trial) is not None
        with gen.fresh(hoist):
            v = gen.src(value)  # read as the ordinary filter reads it (hoisted once, before the loop)
        more, names, tables, test = "", list[str](), list[str](), None
        if inline and rest is not None:
            test = _inline_test(gen, var, source, rest, x, hoist)
            assert test is not None  # as in the trial: the same text
            if not _STRING.search(test):
                test, names, tables = _card_reads(gen, _COUNTERS.sub("_cs", test), x)
            more = f" if {test}"
            rest = None
        extra = f", ({''.join(t + ', ' for t in tables)})" if tables else ""
        each = f"({x}, {', '.join(names)})" if names else x
        lines = [f"_q = s.kept.get({key})", "if _q is None:",
                 f"    _q = s.kept[{key}] = {gen.const(runs)}(items, {table}, {gen.const({})}{extra})",
                 "_r, _sls, _X = _q", "_cs = s.counters", f"_v = {v}",
                 *_runs_scan(value, f"[{x} for _sl, _xs in _r if @TEST@ for {each} in _xs{more}]",
                             _slot_loop(x, each, test))]
    if rest is None:
        lines += [f"env.pop({var!r}, None)", "return tuple(_c)"]
    else:
        lines.append(f"return {gen.const(scans.plain_filter(gen, var, source, rest, pop))}(s, env, _c)")
    name = gen._name("_w")
    code = function_text(f"def {name}(s, env, items):", hoist, lines)
    return gen.sources.load(gen.ns, name, "filter", code, where.span)
