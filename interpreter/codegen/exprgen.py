"""Expressions compiled to Python source, once per ruleset: one function call instead of a tree of closures.

The closure compiler turns ``p.health > 0 and not p.dead`` into five nested closures, each a Python call at run
time. For the common, simple expression shapes this module writes one Python expression instead, e.g.
``(bool(s.counters[4 + env['p'] * 9] > 0) and bool(not s.counters[...]))``, and compiles it once into a single
function. Anything it does not know (a language feature added later) is compiled by the closure compiler as
before and called from the generated code, so both paths always agree and new features need no code here.

Safety: the generated text is built only from this module's templates, integer slot numbers computed by the
compiler, and string literals written with ``repr`` (always a valid, inert Python literal). Every other value (card
data tables, closures, enum tuples) is passed in the function's namespace under a generated name, never as text. No
ruleset text is ever executed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

from liturgy.dsl import constructs
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import aggregen, budgetgen, cardtab, cse, gridgen, kinds, letgen, scans, seqgen, unroll
from liturgy.interpreter.codegen import turnloops as turns
from liturgy.interpreter.codegen.copies import zone_copy
from liturgy.interpreter.codegen.fieldcalls import wrap as field_call
from liturgy.interpreter.codegen.helpers import _index, _never, _no_card, _random, _roll
from liturgy.interpreter.codegen.hoist import Hoist, Params, bare, function_text
from liturgy.interpreter.codegen.inline_aggregates import holds_seats
from liturgy.interpreter.codegen.inline_aggregates import unrolled as seats_unrolled
from liturgy.interpreter.codegen.slots import proven as proven_item
from liturgy.interpreter.codegen.slots import strided as seat_strided
from liturgy.interpreter.codegen.source import Refused, Sources
from liturgy.interpreter.codegen.text import rename
from liturgy.interpreter.compiler import budgets, grids
from liturgy.interpreter.compiler.sizes import INLINE_SIZE
from liturgy.interpreter.runtime import seats
from liturgy.interpreter.runtime.builtins import pure_function

if TYPE_CHECKING:
    from liturgy.interpreter.compiler.code import ExprFn
    from liturgy.interpreter.compiler.compiler import Compiler

_CMP = {"==", "!=", "<", "<=", ">", ">="}
# a source that reads nothing but one Python name (a local, a parameter, a marker) or a literal: passable as is
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\x00L?_E[0-9]+\x00|-?[0-9]+")
_ARITH = {"-", "*"}


def _is_on_grid(e: A.Expr) -> bool:
    """`on_grid(g, c, r)` of a named grid: written as ``(a) & (b)`` of two comparisons, a bool already."""
    return isinstance(e, A.Call) and e.ref is not None and e.ref[:2] == ("call_builtin", "on_grid") and bool(
        e.args) and e.args[0].ref is not None and e.args[0].ref[0] == "grid"


def _pure_operand(e: A.Expr) -> bool:
    """Whether evaluating ``e`` can neither fail nor draw from the RNG: a literal or a variable (a divisor like
    that may be read after the dividend, where the closures read it first), or a named grid's `width`/`height`."""
    return isinstance(e, A.IntLit) or (isinstance(e, A.Name) and e.ref is not None and e.ref[0] == "local") or (
        isinstance(e, A.Call) and e.ref in (("call_builtin", "width"), ("call_builtin", "height"))
        and len(e.args) == 1 and e.args[0].ref is not None and e.args[0].ref[0] == "grid")


def _none_positional(s: Any, *args: Any) -> None:
    """A card without a body for the function field (as the closures' ``lambda s, e: None``)."""
    return None


# Deeper expression trees are written as a call of the closure compiler's function for the subtree:
# Python refuses text nested past 200 parentheses, and each level here can open several.
MAX_TEXT_DEPTH = 40

_BUILTINS_INLINE = {"size", "top", "bottom", "min", "max", "abs", "players_from", "next_player", "value",
                    "random", "roll"}


class ExprGen:
    """Writes Python source for an expression; falls back to the closure compiler for the rest."""

    def __init__(self, comp: Compiler) -> None:
        self.comp = comp
        self.ns: dict[str, Any] = {"_no_card": _no_card, "_fail": _no_card, "_index": _index,
                                   "_random": _random, "_roll": _roll, "_MISSING": object(),
                                   **gridgen.NAMESPACE, **budgetgen.NAMESPACE}
        self.count = 0
        # Python locals holding a fast loop's variable; those that iterate a zone are never `none`
        self.loop_locals: set[str] = set()
        self.nonnull: set[str] = set()
        # sources of inlined `fn` parameters, valid only while comp.subst is this very dict
        self.subst_src: dict[str, str] = {}
        self.subst_owner: dict[str, Any] | None = None
        # how a local variable is read: None for ``env[name]``, else a Hoist or a statement function's tracker
        self.reader: Any = None
        self.pos_tables: dict[str, list[Any]] = {}
        # a loop variable that a generated loop keeps both in ``env`` (for closures) and in a Python local
        self.var_src: dict[str, str] = {}
        # calls written so far that may read an inlined name from a closure (see _note_call)
        self.unsafe = 0
        self.let_forms: dict[str, tuple[list[tuple[str, str]], str]] = {}  # letgen.let_source's texts, their parts
        # sources that read a local variable plainly (no "no player" check, as the closures' ``env[name]``)
        self.plain: set[str] = set()
        self.sources = Sources()  # every generated text, for tracebacks and `liturgy dump`
        self.depth = 0  # nesting of the expression being written (see MAX_TEXT_DEPTH)
        # Python locals of loops over a constant `range`: their least and greatest value (grid cells skip tests)
        self.int_ranges: dict[str, tuple[int, int]] = {}
        # what compiler/sizes.py may assume about the rule variables in scope that are never assigned (a fn's
        # `let`s, inlined parameters, aggregate loop variables): an interval, or None to hide an outer name
        self.var_ranges: dict[str, tuple[int, int] | None] = {}
        # ranges proven for coordinate expressions (gridgen.narrowed), valid while var_ranges is the dict paired here
        self.expr_facts: tuple[dict[str, Any], dict[Any, tuple[int, int]]] | None = None
        self.cse_on, self.cse_nodes, self.cse_names = cse.initial()  # shared subexpressions (codegen/cse.py)
        self.around: gridgen.Around | None = None  # a direction loop written out around one cell (unroll.py)
        self.turn: turns.Turn | None = None  # aggregates written into a loop function's turn (turnloops.py)

    def int_range(self, e: A.Expr) -> tuple[int, int] | None:
        """The interval the int expression ``e`` provably stays in here (compiler/sizes.py), or None."""
        return self.comp.sizes.int_range(e, self.var_ranges or None)

    def narrowed(self, test: A.Expr | None) -> AbstractContextManager[None]:
        """Generate what runs only where ``test`` held, with the ranges it proves (gridgen.narrowed)."""
        return gridgen.narrowed(self, test)

    def bind_range(self, var: str, local: str | None, known: tuple[int, int] | None) -> None:
        """Variable ``var`` (held in Python local ``local``, if any) is bound here to a value in ``known``."""
        self.var_ranges = {**{k: v for k, v in self.var_ranges.items() if k != var + "[]"}, var: known}  # see seats_let
        if local is not None and known is not None:
            self.int_ranges[local] = known

    def read_env(self, var: str) -> str:
        """Source reading local variable ``var`` (a parameter, `let`, loop variable or ``self``)."""
        return f"env[{var!r}]" if self.reader is None else str(self.reader.read(var))

    def is_nonnull(self, src: str) -> bool:
        """Whether ``src`` can never be `none` (a zone's card, a value already checked)."""
        src = bare(src)
        return src in self.nonnull or (self.reader is not None and bool(self.reader.is_nonnull(src)))

    # ------------------------------------------------------------ entry point
    def function(self, e: A.Expr) -> ExprFn | None:
        """A compiled function for ``e``, or None when its root is not a shape this module writes."""
        if isinstance(e, A.LetIn):
            return letgen.let_function(self, e)
        if not isinstance(e, A.Aggregate | A.ListComp) and not self._root_ok(e):
            return None
        hoist = Hoist(self)
        with self.fresh(hoist):  # an aggregate over fixed seats: one expression; any other: its loop function
            body = seats_unrolled(self, e) if isinstance(e, A.Aggregate | A.ListComp) else self.src(e)
        if body is None and isinstance(e, A.Aggregate | A.ListComp):
            loop: ExprFn = self._loop_function(e)  # never None without parameters to pass
            return loop
        assert body is not None
        name = self._name("_e")  # the counter list in a local where it is read three times or more (function_text)
        code = function_text(f"def {name}(s, env):", hoist, [f"return {body}"])
        try:
            fn: ExprFn = self.sources.load(self.ns, name, "expr", code, e.span)
        except Refused:
            return None
        return fn

    def positional(self, fname: str) -> list[Any]:
        """Card definition -> ``f(s, *args, self)``: the bodies of `function` field ``fname``, arguments by position.

        The closures call a card's function with a fresh environment dict; here each body is written with
        its parameters and ``self`` as Python parameters, so a call builds no dict and reads no ``env``.
        A body that needs an environment (a closure called from it) gets one built from the parameters,
        exactly the closures' dict.  Built on first use; the list exists before its bodies are written, so
        functions that call each other (or themselves) find it.
        """
        table = self.pos_tables.get(fname)
        if table is not None:
            return table
        comp = self.comp
        prog = comp.prog
        params = comp._field_params(fname)
        assert params is not None
        table = self.pos_tables[fname] = [_none_positional] * len(prog.cards)
        names = {p: f"_P{i}" for i, p in enumerate(params)}
        names["self"] = "_Pself"
        head = ", ".join(["s", *names.values()])
        env = "{" + "".join(f"{p!r}: {n}, " for p, n in names.items()) + "}"
        saved = comp.subst, comp.inline_depth, self.reader, self.subst_src, self.subst_owner, self.var_src
        saved_ranges, self.var_ranges = self.var_ranges, {}
        made: dict[int, Any] = {}  # cards of a kind that keep the field's default share one function
        try:
            for i, card in enumerate(prog.cards):
                field = next((f for f in prog.kinds[card.kind].fields if f.name == fname), None)
                if field is None or prog.field_types[card.kind][fname].kind != "function":
                    continue
                expr = card.values.get(fname, field.default)
                if expr is None:
                    continue
                if id(expr) in made and expr is field.default:
                    table[i] = made[id(expr)]
                    continue
                comp.subst, comp.inline_depth, self.subst_src, self.subst_owner, self.var_src = {}, 0, {}, None, {}
                self.reader = Params(names)
                body = self.src(expr)
                name = self._name("_pf")
                if "env" in body:  # something reads the environment: give it the closures' dict
                    body = f"{self.const(comp.functions[fname])}[{i}](s, {env})"
                code = f"def {name}({head}):\n" + "".join(f"    {x}\n" for x in budgetgen.charge_call(
                    self, f"field:{fname}", f"calling `{fname}`", expr.span)) + f"    return {body}\n"
                try:
                    fn = self.sources.load(self.ns, name, "card", code, expr.span)
                except Refused:  # the closures' body, called with their dict
                    fallback = f"{self.const(comp.functions[fname])}[{i}](s, {env})"
                    fn = self.sources.load(self.ns, name, "card", f"def {name}({head}):\n    return {fallback}\n")
                table[i] = made[id(expr)] = fn
        finally:
            comp.subst, comp.inline_depth, self.reader, self.subst_src, self.subst_owner, self.var_src = saved
            self.var_ranges = saved_ranges
        return table

    def _root_ok(self, e: A.Expr) -> bool:
        if isinstance(e, A.Binary):
            return e.op in _CMP or e.op in _ARITH or e.op in ("and", "or", "+", "/", "%")
        if isinstance(e, A.Unary | A.Cond):
            return True
        if isinstance(e, A.Attr):
            return e.ref is not None and e.ref[0] in ("pcounter", "field")
        if isinstance(e, A.Call):
            return self._call_ok(e)
        return False

    @contextmanager
    def fresh(self, reader: Any) -> Iterator[None]:
        """Generate the text of a new Python function: locals of the enclosing one are not visible there."""
        saved = self.reader, self.subst_src, self.var_src
        self.var_src = {}
        around, self.around = self.around, None  # its base cell's local is the enclosing function's (gridgen)
        if saved[0] is not None:
            adopt = getattr(reader, "adopt", None)
            into: Callable[[str], str] = adopt if adopt is not None else (lambda var: f"env[{var!r}]")
            self.subst_src = {k: saved[0].export(v, into) for k, v in saved[1].items()}
        if saved[2]:  # a slow loop's variable, a Python local here, is in ``env`` there
            into_env = getattr(reader, "adopt", None) or (lambda var: f"env[{var!r}]")
            for var, local in saved[2].items():
                self.subst_src = {k: rename(v, local, into_env(var)) for k, v in self.subst_src.items()}
        self.reader = reader
        try:
            yield
        finally:
            self.reader, self.subst_src, self.var_src = saved
            self.around = around

    # ------------------------------------------------------------ helpers
    def _name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def const(self, value: Any) -> str:
        name = self._name("_k")
        self.ns[name] = value
        return name

    def closure(self, e: A.Expr) -> str:
        """Call the closure compiler's function for ``e`` from generated code."""
        self._note_call(e)
        return f"{self.const(self.comp.expr_closure(e))}(s, env)"

    def _is_seq(self, e: A.Binary) -> bool:
        lt = e.left.ty
        return lt is not None and lt.kind in ("list", "zone")

    def _note_call(self, e: A.Expr) -> None:
        """A call ``f(s, env)`` evaluating ``e`` is written: count it when it may read an inlined name.

        A fast loop keeps its variable out of ``env`` (a Python local; ``comp.subst`` maps it to a closure
        that must never run), so it can call only functions that read no inlined name at all.
        """
        if letgen.free_locals(e) & self.comp.subst.keys():
            self.unsafe += 1

    def _local(self, e: A.Expr) -> str | None:
        """Source for a local variable or an inlined parameter, else None."""
        if not (isinstance(e, A.Name) and e.ref is not None and e.ref[0] == "local"):
            return None
        n = e.id
        if n in self.comp.subst:
            if self.comp.subst is self.subst_owner and n in self.subst_src:
                return self.subst_src[n]
            self.unsafe += 1
            return f"{self.const(self.comp.subst[n])}(s, env)"
        if n in self.var_src:
            return self.var_src[n]
        return self.read_env(n)

    def _zone(self, e: A.Expr) -> str | None:
        """Source for the zone index an expression of type zone denotes, when simple."""
        ref = e.ref
        lay = self.comp.layout
        if ref is not None and ref[0] == "zone":
            return str(lay.zone_global[ref[1].name])
        if ref is not None and ref[0] == "pzone" and isinstance(e, A.Attr):
            base = lay.zone_player_base + lay.zone_player_offsets[ref[1].name]
            return self._strided(e.obj, base, lay.zone_player_stride, "no player")
        if isinstance(ref, tuple) and ref and ref[0] == "czone" and isinstance(e, A.Attr):
            base = lay.zone_card_base + lay.zone_card_offsets[ref[1].name]
            return self._strided(e.obj, base, lay.zone_card_stride, "no card")
        return None

    def _strided(self, owner: A.Expr, base: int, stride: int, missing: str) -> str:
        return seat_strided(self, owner, base, stride, missing)  # a seat's slot from a table (codegen/slots.py)

    # ------------------------------------------------------------ expressions
    def src(self, e: A.Expr) -> str:
        """Python source for ``e``; past :data:`MAX_TEXT_DEPTH` levels, a call of the subtree's closure."""
        if self.cse_nodes and (name := cse.src(self, e)) is not None:
            return name  # a value an `and`'s left side bound (codegen/cse.py)
        if self.depth >= MAX_TEXT_DEPTH:
            return self.closure(e)
        self.depth += 1
        try:
            return cse.bind(self, e, self._src(e)) if self.cse_nodes else self._src(e)
        finally:
            self.depth -= 1

    def _src(self, e: A.Expr) -> str:  # noqa: C901 - one dispatch on expression kind
        if isinstance(e, A.BoolLit | A.IntLit | A.StrLit):
            return repr(e.value)
        if isinstance(e, A.NoneLit):
            return "None"
        if isinstance(e, A.Binary | A.Unary | A.Cond):
            tab = cardtab.tabulated(self, e)  # one card's printed fields only: a lookup in a per-card table
            if tab is not None:
                return tab
        lay = self.comp.layout
        if isinstance(e, A.Name):
            ref = A.ref_of(e)
            local = self._local(e)
            if local is not None:
                return local
            if ref[0] == "self":
                return self.read_env("self")
            if ref[0] == "first":
                return "s.counters[0]"
            if ref[0] == "counter":
                return f"s.counters[{lay.global_slots[ref[1].name]}]"
            if ref[0] == "zone":
                return str(lay.zone_global[ref[1].name])
            if ref[0] == "builtin" and ref[1] in ("players", "seats", "player_count"):
                return seats.source(ref[1], lay, self.const)  # (`absent_while` reads who plays: runtime/seats.py)
            if ref[0] == "builtin" and ref[1] == "round":
                return "s.counters[1]"
            if ref[0] in ("enumval", "die") and isinstance(ref[1], str):
                return repr(ref[1])
            if ref[0] == "enumtype":
                return self.const(tuple(self.comp.prog.enums[ref[1]]))
            if ref[0] in ("grid", "direction", "directions"):
                return self.const(grids.name_value(ref))
            return self.closure(e)
        if isinstance(e, A.Attr):
            ref = A.ref_of(e)
            if ref[0] == "pcounter":
                base = lay.player_base + lay.player_offsets[ref[1].name]
                return f"s.counters[{self._strided(e.obj, base, lay.player_stride, 'no player')}]"
            if ref[0] == "ccounter":
                base = lay.card_base + lay.card_offsets[ref[1].name]
                return f"s.counters[{self._strided(e.obj, base, lay.card_stride, 'no card')}]"
            if ref[0] in ("pzone", "czone"):
                z = self._zone(e)
                if z is not None:
                    return z
            if ref[0] == "field":
                values = self.const(self.comp.field_list(e.name))
                local = self._local(e.obj)
                if local is not None and (self.is_nonnull(local) or proven_item(self, e.obj)):
                    return f"{values}[{local}]"
                t = self._name("_t")
                missing = f"`.{e.name}` of no card"
                end = seqgen.end_card(self, e.obj)
                if end is not None:  # `top(Z).f`: Z's last card's field, or the error when Z is empty
                    return f"({values}[{t}[{end[1]}]] if ({t} := s.zones[{end[0]}]) else _no_card({missing!r}))"
                return (f"({values}[{t}] if ({t} := {self.src(e.obj)}) is not None "
                        f"else _no_card({missing!r}))")
            return self.closure(e)
        if isinstance(e, A.Cell) and e.ref is not None and e.ref[0] == "gridcell":
            return f"s.counters[{gridgen.slot(self, e)}]"
        if isinstance(e, A.Index):
            if e.ref == ("icounter",):
                return f"s.counters[{self.slot(e)}]"
            if (isinstance(e.index, A.IntLit) and isinstance(e.obj, A.Name) and e.obj.ref == ("builtin", "players")
                    and not isinstance(e.index.value, bool) and self.comp.layout.absent_offset is None
                    and 0 <= e.index.value < self.comp.prog.game.min_players):
                return repr(e.index.value)  # `players` is the seats 0 … n-1 (engine/ruleset.py), n >= min_players
            if scans.first_match(e, self):
                assert isinstance(e.obj, A.ListComp)
                passed, unsafe = self._passed(e.obj), self.unsafe
                fn = self._loop_function(e.obj, passed, first=True)
                if fn is not None:
                    return f"{self.const(fn)}(s, env{''.join(', ' + src for src in (passed or {}).values())})"
                self.unsafe = unsafe  # the scan's text is thrown away
            obj, index = self.src(e.obj), self.src(e.index)
            known, items = self.int_range(e.index), self.ns.get(obj) if obj.startswith("_k") else None
            if known is not None and isinstance(items, tuple) and known[0] >= 0 and known[1] < len(items):
                return f"{obj}[{index}]"  # a constant list and an index proven inside it
            return seqgen.index(self, obj, e.index, index)
        if isinstance(e, A.ListLit):
            return "(" + "".join(f"{self.src(x)}, " for x in e.items) + ")"
        if isinstance(e, A.Unary):
            if e.op == "not":
                return f"(not {self.cond(e.operand)})"
            return budgetgen.negation(e, f"(-{self.src(e.operand)})", self)
        if isinstance(e, A.Cond):
            test = self.cond(e.test)
            with self.narrowed(e.test):
                then = self.src(e.then)
            return f"({then} if {test} else {self.src(e.orelse)})"
        if isinstance(e, A.Binary):
            return budgetgen.binary(self, e)
        if isinstance(e, A.Call) and self._call_ok(e):
            return budgetgen.call(self, e)
        if isinstance(e, A.Aggregate | A.ListComp):
            if self.turn is not None and (turn := turns.source(self, e)) is not None:
                return turn  # its loop written into the enclosing loop's turn
            if (short := gridgen.spans_reach(self, e) or unroll.unrolled(self, e)
                    or seats_unrolled(self, e) or zone_copy(self, e)) is not None:
                return short  # the n-in-a-row test, one call; a few constant items or fixed seats, written out
            passed = self._passed(e)
            if passed:
                fn = self._loop_function(e, passed)
                if fn is not None:
                    return f"{self.const(fn)}(s, env{''.join(', ' + src for src in passed.values())})"
            self._note_call(e)
            return f"{self.const(self._loop_function(e))}(s, env)"
        if isinstance(e, A.LetIn):
            return letgen.let_source(self, e)
        return kinds.fallback(self, e)  # only where the kind declares it (codegen/kinds.py)

    def cond(self, e: A.Expr) -> str:
        """Source for ``e`` where only its truth matters (`if`, `where`, `not`): no `bool(…)` wrappers.

        `a and b` is true exactly when `bool(a) and bool(b)` is, with the same operands evaluated.
        """
        if isinstance(e, A.Binary | A.Unary | A.Cond):
            tab = cardtab.tabulated(self, e)
            if tab is not None:
                return tab
        if isinstance(e, A.Binary) and e.op in ("and", "or"):
            with cse.shared(self, e) as bound:
                bound(left := self.cond(e.left))
                with self.narrowed(e.left if e.op == "and" else None):
                    return f"({left} {e.op} {self.cond(e.right)})"
        if isinstance(e, A.Unary) and e.op == "not":
            return f"(not {self.cond(e.operand)})"
        if isinstance(e, A.Cond):  # the test as before; only the chosen branch's truth matters
            return f"({self.cond(e.then)} if {self.cond(e.test)} else {self.cond(e.orelse)})"
        if isinstance(e, A.Call) and e.ref is not None and e.ref[:1] == ("call_fn",) and self._call_ok(e):
            return self._call(e, truth=True)  # an inlined `fn` whose value is only tested: its body, tested
        if isinstance(e, A.Aggregate) and (short := seats_unrolled(self, e, truth=True)) is not None:
            return short  # `any`/`all` over fixed seats, tested: no True/False around the tests
        return self.src(e)

    def _as_bool(self, e: A.Expr) -> str:
        """Source for ``bool(e)``; the call is left out where ``e`` yields a bool anyway (comparisons, `not`…)."""
        if isinstance(e, A.BoolLit) or (isinstance(e, A.Unary) and e.op == "not") or _is_on_grid(e) or (
                isinstance(e, A.Binary) and (e.op in _CMP or e.op in ("in", "not in", "and", "or"))):
            return self.src(e)
        return f"bool({self.src(e)})"

    # ------------------------------------------------------------ aggregates and list comprehensions
    def _seq(self, e: A.Expr) -> str:
        """Source for a sequence to iterate: a zone's live card list, or the value itself."""
        if e.ty is not None and e.ty.kind == "zone":
            z = self._zone(e)
            return f"s.zones[{z if z is not None else self.src(e)}]"
        return self.src(e)

    def _passed(self, e: A.Expr) -> dict[str, str] | None:
        """The inlined names ``e`` reads (an inlined `fn`'s parameters, `let`s and loop variables held in Python
        locals), each with the plain name or constant that holds it here, when every one has one; else None.
        A nested generated function takes them as parameters instead of reading them through ``env``."""
        comp = self.comp
        names = letgen.free_locals(e) & comp.subst.keys()
        if not names or self.subst_owner is not comp.subst:
            return None
        out: dict[str, str] = {}
        for n in sorted(names):
            src = self.subst_src.get(n)
            if src is None or not _PLAIN.fullmatch(src := bare(src)):
                return None
            out[n] = src
        return out

    def _loop_function(self, e: A.Aggregate | A.ListComp, passed: dict[str, str] | None = None,
                       first: bool = False) -> Any:
        """One function per aggregate: the loop, its filter and its element inline. When the filter and element are
        written out completely (no closure or nested function is called from them), the loop variable is a Python
        local and ``env`` is never touched. Otherwise the loop variable lives in ``env`` (closures called from the
        loop read it there) and is restored afterwards, exactly as the closure compiler does. With ``passed``
        (names -> the caller's sources, :meth:`_passed`), the function takes those names as Python parameters
        after ``s, env``; it is None when that cannot be done (something would read one through ``env``)."""
        comp = self.comp
        if isinstance(e, A.Aggregate) and e.func == "sort":  # rare: the closure compiler's loop, not a generated one
            return None if passed else comp.expr_closure(e)
        e = scans.seat_filters(e, comp)  # a filter of a `fn` that filters the seats: one loop (scans.py)
        params = {n: f"{n}_{self._name('')}" for n in passed} if passed else {}
        self.nonnull.update(params[n] for n in params if self.is_nonnull(passed[n]))  # type: ignore[index]
        start, var = self.unsafe, e.var
        x = self._name("_x")
        hoist, items, where, elem, unsafe, pre = turns.parts(self, e, x, params, first)  # (turnloops.py)
        fast: bool = True
        if unsafe or f"env[{var!r}]" in where + elem:
            fast = False
            start = self.unsafe
            hoist, items, where, elem, _ = self._hoisted_parts(e, None, x, params)
        if params and self.unsafe != start:
            self.unsafe = start
            return None
        v = repr(var)
        name = self._name("_a")
        if first:  # [… ][0] that stops at the first match (scans.py); None: write the whole list
            lines = scans.first_lines(x, items, where, elem) if fast and isinstance(e, A.ListComp) else None
            if lines is None:
                return None
        elif isinstance(e, A.ListComp):
            # no snapshot of the items: an expression never moves cards, so a zone cannot change under the loop
            loop = [f"for {x} in {items}:", f"    if {where}:", f"        _out.append({elem})"]
            if where == "True":
                loop[1:] = [f"    _out.append({elem})"]
            if fast and where == "True" and elem == x:
                lines = [f"return tuple({items})"]
            elif fast:
                lines = ["_out = []", *loop, "return tuple(_out)"]
            else:
                loop.insert(1, f"    env[{v}] = {x}")
                lines = [f"_old = env.get({v}, _MISSING)", "_out = []", *loop,
                         "if _old is _MISSING:", f"    env.pop({v}, None)", "else:", f"    env[{v}] = _old",
                         "return tuple(_out)"]
        else:
            got = aggregen.aggregate_lines(e.func, fast, x, items, where, elem, v)
            if got is None:  # an aggregate this module does not know: the closure compiler's
                return None if passed else comp.expr_closure(e)
            lines = turns.into(got, pre if fast else None, f"for {x} in {items}:")
        head = "".join(f", {p}" for p in params.values())
        code = function_text(f"def {name}(s, env{head}):", hoist, budgetgen.counted_loop(
            self, lines, items, e.span, budgets.loop_kind(e.iterable, comp.sizes, e.elem, e.where)))
        try:
            return self.sources.load(self.ns, name, "loop", code, e.span)
        except Refused:
            return None if passed else comp.expr_closure(e)

    def _hoisted_parts(self, e: A.Aggregate | A.ListComp, local: str | None, in_env: str | None = None,
                       params: dict[str, str] | None = None) -> tuple[Hoist, str, str, str, bool]:
        """The iterable, filter and element sources of an aggregate's own function, reading `env` once, and
        whether the filter or element call a function that may read an inlined name (see _note_call).
        ``params``: inlined names read from the function's own Python parameters of those names."""
        hoist = Hoist(self, frozenset({e.var}), eager=True)
        comp = self.comp
        saved = comp.subst, self.subst_owner
        with self.fresh(hoist):
            try:
                if params:
                    comp.subst = {**comp.subst, **{n: _never for n in params}}
                    self.subst_src = {**self.subst_src, **params}
                    self.subst_owner = comp.subst
                items = self._seq(e.iterable)
                before = self.unsafe
                where, elem = self._loop_parts(e, local, in_env)
            finally:
                comp.subst, self.subst_owner = saved
        return hoist, items, where, elem, self.unsafe != before

    def filter_function(self, var: str, source: A.Expr, where: A.Expr, pop: bool) -> Any:
        """A choice's option filter (interpreter/codegen/scans.py)."""
        return scans.filter_function(self, var, source, where, pop)

    def _loop_parts(self, e: A.Aggregate | A.ListComp, local: str | None,
                    in_env: str | None = None) -> tuple[str, str]:
        """Sources of the filter and element; the loop variable read as Python local ``local`` if given. With
        ``local``, the loop variable is an inlined name whose closure must never run: the caller throws the text
        away if any closure call (``(s, env)``) made it into the text.  With ``in_env`` instead, the loop also
        binds the variable in ``env`` for the closures it calls, and the generated text reads the Python local
        ``in_env``, which holds the same value."""
        comp = self.comp
        saved = comp.subst, self.subst_src, self.subst_owner
        saved_var_src, saved_names, saved_ranges = self.var_src, comp.subst_names, self.var_ranges
        var = e.var
        if var in comp.subst_names:  # the loop variable hides an inlined parameter of that name
            comp.subst_names = {k: v for k, v in comp.subst_names.items() if k != var}
        # a zone holds card ids and the seats are players: the loop variable is never `none`, so an inlined `fn`
        # given it (`bid_of(p)` in `max(bid_of(p) for p in players)`) reads `p.bid` without a `none` test
        never_none = (e.iterable.ty is not None and e.iterable.ty.kind == "zone") or holds_seats(self, e.iterable)
        if in_env is not None:
            self.var_src = {**self.var_src, var: in_env}
            self.loop_locals.add(in_env)
            if never_none:
                self.nonnull.add(in_env)
        if local is not None:
            outer_src = self.subst_src if saved[2] is saved[0] else {}
            comp.subst = {**{k: f for k, f in saved[0].items() if k != var}, var: _never}
            self.subst_src = {**{k: s for k, s in outer_src.items() if k != var}, var: local}
            self.subst_owner = comp.subst
        elif var in comp.subst:
            comp.subst = {k: v for k, v in comp.subst.items() if k != var}
            self.subst_src = {k: v for k, v in self.subst_src.items() if k != var}
            self.subst_owner = comp.subst if saved[2] is saved[0] else None
        known = gridgen.loop_range(self, e.iterable)
        self.bind_range(var, local or in_env, known)
        if local is not None:
            self.loop_locals.add(local)
            if never_none:
                self.nonnull.add(local)
        try:
            with cse.sequence(self, e.where, e.elem) as bound:  # the element runs only where the filter held
                bound(where := self.cond(e.where) if e.where is not None else "True")
                with self.narrowed(e.where):  # the element is evaluated only for items that pass the filter
                    elem = (self.cond(e.elem) if isinstance(e, A.Aggregate) and e.func in ("any", "all")
                            else self.src(e.elem))
            return where, elem
        finally:
            comp.subst, self.subst_src, self.subst_owner = saved
            self.var_src, comp.subst_names, self.var_ranges = saved_var_src, saved_names, saved_ranges

    def _binary(self, e: A.Binary) -> str:
        op = e.op
        if op in ("in", "not in"):
            z = self._zone(e.right) if e.right.ty is not None and e.right.ty.kind == "zone" else None
            if z is not None:
                return f"({self.src(e.left)} {op} s.zones[{z}])"
            if e.right.ty is not None and e.right.ty.kind != "zone":
                return f"({self.src(e.left)} {op} {self.src(e.right)})"
            return self.closure(e)
        if op in ("and", "or"):
            with cse.shared(self, e) as bound:
                bound(left := self._as_bool(e.left))
                with self.narrowed(e.left if op == "and" else None):
                    return f"({left} {op} {self._as_bool(e.right)})"
        if op in ("==", "!=") and (isinstance(e.left, A.NoneLit) or isinstance(e.right, A.NoneLit)):
            # the engine's values are plain data (ints, texts, tuples, `none`): equal to None exactly when they are
            # None, and `is` spares int.__eq__'s NotImplemented round trip (a grid scan for empty cells)
            return f"({self.src(e.left)} {'is' if op == '==' else 'is not'} {self.src(e.right)})"
        if op in _CMP and (scan := scans.emptiness(self, e)) is not None:
            return scan  # `size(L) > 0` of a filter that cannot fail: an `any` scan (codegen/scans.py)
        if op in _CMP or op in _ARITH or (op == "+" and not self._is_seq(e)):
            return f"({self.src(e.left)} {op} {self.src(e.right)})"
        if op == "+":
            return f"(tuple({self._seq(e.left)}) + tuple({self._seq(e.right)}))"
        if op in ("/", "%"):
            py_op = "//" if op == "/" else "%"
            known = self.int_range(e.right) if _pure_operand(e.right) else None
            if known is not None and (known[0] > 0 or known[1] < 0):  # never zero, and reading it does nothing
                return f"({self.src(e.left)} {py_op} {self.src(e.right)})"
            # the divisor first, as the closure compiler does; Python's // and % floor like the closures
            b = self._name("_t")
            span = e.span
            message = f"division by zero at {span.file}:{span.line}:{span.column}"
            return f"(({self.src(e.left)} {py_op} {b}) if ({b} := {self.src(e.right)}) != 0 else _fail({message!r}))"
        return self.closure(e)

    def _builtin(self, name: str, e: A.Call) -> str:
        if name in gridgen.DIRECTION_TABLES:
            return gridgen.direction_lookup(self, name, self.src(e.args[0]))
        if name in constructs.PURE:  # the registry's function, the very one the closures call
            srcs = [self.src(a) for a in e.args]
            folded = gridgen.fold_pure(name, srcs)
            if folded is not None:
                return self.const(folded[0])
            return f"{self.const(pure_function(name))}({''.join(x + ', ' for x in srcs)})"
        if name in gridgen.GRID_BUILTINS:
            return gridgen.builtin(self, name, e)
        args = e.args
        arg = args[0]
        if name == "size":
            z = self._zone(arg) if arg.ty is not None and arg.ty.kind == "zone" else None
            return f"len(s.zones[{z}])" if z is not None else f"len({self.src(arg)})"
        if name in ("top", "bottom"):
            z = self._zone(arg)
            if len(args) == 2:  # the count is evaluated twice, as the closure compiler does
                n = self.src(args[1])
                if name == "top":
                    return f"(tuple(reversed(s.zones[{z}][-{n}:])) if {n} > 0 else ())"
                return f"tuple(s.zones[{z}][: max(0, {n})])"
            t = self._name("_t")
            pick = "-1" if name == "top" else "0"
            return f"({t}[{pick}] if ({t} := s.zones[{z}]) else None)"
        if name in ("min", "max"):
            if len(args) == 1:
                return f"({self.src(arg)})"
            return f"{name}(" + ", ".join(self.src(a) for a in args) + ")"
        if name == "abs":
            return f"abs({self.src(arg)})"
        if name == "players_from":
            return f"s.tables.turn_orders[{self.src(arg)}]"
        if name == "random":
            return f"_random(s, {self._seq(arg)})"
        if name == "roll":
            dice = {d.name: tuple(d.faces) for d in self.comp.prog.dice.values()}
            if arg.ref is not None and arg.ref[0] == "die" and arg.ref[1] in dice:
                return f"_roll(s, {self.const(dice[arg.ref[1]])}, None)"
            t = self._name("_t")
            return f"_roll(s, {self.const(dice)}.get({t} := {self.src(arg)}), {t})"
        if name == "next_player":
            return f"s.tables.turn_orders[{self.src(arg)}][1 % s.tables.n]"
        # value(track)
        values = self.const(self.comp._counter_decl(arg).track_values or [0])
        return f"{values}[s.counters[{self.slot(arg)}]]"

    def slot(self, e: A.Expr) -> str:
        """Source for the counter slot a counter expression denotes (digits only when it is constant)."""
        ref = A.ref_of(e)
        lay = self.comp.layout
        if ref == ("first",):
            return "0"
        if ref[0] == "counter":
            return str(lay.global_slots[ref[1].name])
        if ref[0] == "pcounter" and isinstance(e, A.Attr):
            base = lay.player_base + lay.player_offsets[ref[1].name]
            return self._strided(e.obj, base, lay.player_stride, "no player")
        if ref[0] == "ccounter" and isinstance(e, A.Attr):
            base = lay.card_base + lay.card_offsets[ref[1].name]
            return self._strided(e.obj, base, lay.card_stride, "no card")
        if ref[0] == "gridcell" and isinstance(e, A.Cell):
            return gridgen.slot(self, e)
        if ref[0] == "icounter" and isinstance(e, A.Index):
            inner = self.slot(e.obj)
            index = self.const(lay.enum_index[self.comp._counter_decl(e.obj).index_enum or ""])
            return f"({inner} + {index}[{self.src(e.index)}])"
        raise AssertionError(f"not a counter: {ref}")  # pragma: no cover - checker prevents this

    def _call_ok(self, e: A.Call) -> bool:
        ref = e.ref
        if ref is None:
            return False
        if ref[0] == "call_builtin":
            name = ref[1]
            if name in constructs.PURE:
                return True
            if name == "size":
                t = e.args[0].ty
                return t is not None and (t.kind != "zone" or self._zone(e.args[0]) is not None)
            if name in ("top", "bottom"):
                return self._zone(e.args[0]) is not None
            if name in gridgen.GRID_BUILTINS:
                return gridgen.call_ok(self, e)
            return name in _BUILTINS_INLINE and len(e.args) >= 1
        if ref[0] == "call_fn":  # inlined, or an uncounted call with its own environment (budgets.call_counter)
            fn = ref[1]
            return self.comp.can_inline(fn, e.args) or (
                fn.name not in self.comp.recursive_fns and self.comp.sizes.inline_size(fn) <= INLINE_SIZE)
        if ref[0] == "call_field":  # not a field that card kinds declare with different parameters
            return (isinstance(e.func, A.Attr) and self.comp.functions.get(e.func.name) is not None
                    and self.comp._field_params(e.func.name) is not None)
        return False

    def _call(self, e: A.Call, truth: bool = False) -> str:
        ref = A.ref_of(e)
        if ref[0] == "call_builtin":
            return self._builtin(ref[1], e)
        if ref[0] == "call_field":
            # a card's `function` field: the closures' argument dict, then `self`, then the card's entry
            assert isinstance(e.func, A.Attr)
            fname = e.func.name
            params = self.comp._field_params(fname)
            assert params is not None  # fields declared with different parameters are not generated (above)
            c = self._name("_t")
            card_def = self.const(self.comp.card_def)
            if not self.comp.direct_calls:  # through the table the rule profiler wraps: the closures' dict
                table = self.const(self.comp.functions[fname])
                env2 = "{" + "".join(f"{p!r}: {self.src(a)}, " for p, a in zip(params, e.args, strict=True))
                return (f"({table}[{card_def}[{c}]](s, {env2}'self': {c}}}) "
                        f"if ({c} := {self.src(e.func.obj)}) is not None else _no_card({f'`{fname}` of no card'!r}))")
            # each card's body takes the arguments and `self` as Python parameters: no dict per call
            table = self.const(self.positional(fname))
            srcs = [self.src(a) for a in e.args]  # a body that returns a literal or an argument: no call (fieldcalls)
            args, missing, obj = "".join(f"{a}, " for a in srcs), f"`{fname}` of no card", self.src(e.func.obj)
            if self.is_nonnull(obj) or (_PLAIN.fullmatch(bare(obj)) and proven_item(self, e.func.obj)):  # no test
                return field_call(self, fname, srcs, card_def, obj, f"{table}[{card_def}[{obj}]](s, {args}{obj})")
            return (f"({field_call(self, fname, srcs, card_def, c, f'{table}[{card_def}[{c}]](s, {args}{c})')} "
                    f"if ({c} := {obj}) is not None else _no_card({missing!r}))")
        # an inlined `fn`: its body with the parameters replaced by the arguments' sources
        comp = self.comp
        assert ref[0] == "call_fn", ref  # the checker gives a call one of four referents; three returned above
        fn = ref[1]
        if not comp.can_inline(fn, e.args):  # the closures' call_fn: the arguments once, in a dict of its own
            args = "".join(f"{p.name!r}: {self.src(a)}, " for p, a in zip(fn.params, e.args, strict=True))
            return f"{self.const(comp.fns)}[{fn.name!r}][1](s, {{{args}}})"
        arg_src = [f"({self.src(a)})" for a in e.args]
        arg_fns = [comp.expr(a) for a in e.args]
        arg_ranges = {p.name: self.int_range(a) for p, a in zip(fn.params, e.args, strict=True)}
        saved_ranges, self.var_ranges = self.var_ranges, arg_ranges  # the body sees only its parameters
        saved = comp.subst, self.subst_src, self.subst_owner, comp.subst_names
        comp.subst_names = comp.param_names(fn, e.args)
        comp.subst = {p.name: f for p, f in zip(fn.params, arg_fns, strict=True)}
        self.subst_src = {p.name: s for p, s in zip(fn.params, arg_src, strict=True)}
        self.subst_owner = comp.subst
        comp.inline_depth += 1
        # an argument proven a seat or a card (codegen/slots.py): its text is never `none` while the body is written
        seats = {bare(s) for s, a in zip(arg_src, e.args, strict=True) if proven_item(self, a)} - self.nonnull
        self.nonnull |= seats
        try:
            return self.cond(fn.body) if truth else self.src(fn.body)
        finally:
            self.nonnull -= seats
            comp.subst, self.subst_src, self.subst_owner, comp.subst_names = saved
            self.var_ranges = saved_ranges
            comp.inline_depth -= 1
