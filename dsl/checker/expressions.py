"""Expressions: names, fields, operators, calls and built-ins get their type (``ty``) and referent (``ref``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from liturgy.dsl import constructs
from liturgy.dsl.checker import grids
from liturgy.dsl.checker import types as T
from liturgy.dsl.checker.builtin_rules import BUILTIN_RULES, KEY_KINDS, SORTABLE
from liturgy.dsl.checker.declarations import DeclarationChecker
from liturgy.dsl.checker.program import AGGREGATES, BUILTIN_FUNCS, BUILTIN_VALUES, MAX_EXPR_DEPTH, _Scope
from liturgy.dsl.checker.types import Ty
from liturgy.dsl.diagnostics import Span, did_you_mean
from liturgy.dsl.frontend import ast as A


def counter_type(c: A.CounterDecl) -> Ty:
    """What a counter holds: an option's enum value or whole number, a typed counter's reference, a flag's bool,
    else an int."""
    if c.option == "int":
        return T.INT
    if c.option is not None:
        return Ty("enum", arg=c.option)
    if c.held is not None:
        return c.held
    return T.BOOL if c.is_flag else T.INT


class ExpressionChecker(DeclarationChecker):
    """Types every expression; the compiler relies on ``ty`` and ``ref`` being set."""

    def expect(self, e: A.Expr, want: Ty, scope: _Scope) -> Ty:
        got = self.expr(e, scope)
        if not T.assignable(got, want):
            self.err("E140", f"expected {want}, found {got}", e.span)
        return got

    def expect_value(self, e: A.Expr, want: Ty, scope: _Scope) -> A.Expr:
        """``expect``, and the expression to keep in its place: a zone where a list is wanted becomes its cards."""
        got = self.expect(e, want, scope)
        return zone_cards(e) if got.kind == "zone" and want.kind == "list" else e

    def value_type(self, t: Ty, e: A.Expr) -> Ty:
        if t.kind == "void":  # the call itself already reported E141
            return T.ANY
        return t

    def iter_elem(self, e: A.Expr, scope: _Scope) -> Ty:
        t = self.expr(e, scope)
        lt = T.as_list(t)
        if lt is None:
            self.err("E142", f"cannot iterate over {t}", e.span, hint="iterate over a zone, a list, a set or an enum")
            return T.ANY
        return lt.elem or T.ANY

    def expr(self, e: A.Expr, scope: _Scope, statement: bool = False) -> Ty:
        if self.depth == 0:
            self.too_deep = False
        if self.depth >= MAX_EXPR_DEPTH:
            # Past this, compiling and running the expression would need more Python stack than is safe.
            if not self.too_deep:
                self.err("E003", f"expression is nested too deeply (more than {MAX_EXPR_DEPTH} levels)", e.span,
                         hint="split deeply nested expressions into `let` steps, or use an aggregate")
            self.too_deep = True
            e.ty = T.ANY
            return T.ANY
        self.depth += 1
        try:
            t = self._expr(e, scope, statement)
        finally:
            self.depth -= 1
        e.ty = t
        return t

    def _expr(self, e: A.Expr, scope: _Scope, statement: bool) -> Ty:
        return EXPR_HANDLERS[type(e)](self, e, scope, statement)

    def int_lit(self, e: A.IntLit, scope: _Scope, statement: bool) -> Ty:
        if abs(e.value) > 2**62:
            self.err("E143", "number is too large", e.span, hint="numbers must fit in 63 bits")
        return T.INT

    def index(self, e: A.Index, scope: _Scope, statement: bool) -> Ty:
        base = self.expr(e.obj, scope)
        decl = self._counter_of(e.obj)
        if decl is not None and decl.index_enum:
            self.expect(e.index, Ty("enum", arg=decl.index_enum), scope)
            e.ref = ("icounter",)
            return T.BOOL if decl.is_flag else T.INT
        lt = T.as_list(base)
        if base.kind in ("list", "enumtype") and lt is not None:  # `Place[i]`: an enum is the list of its values
            self.expect(e.index, T.INT, scope)
            e.ref = ("list_index",)
            return lt.elem or T.ANY
        self.err("E144", f"cannot index {base}", e.span)
        self.expr(e.index, scope)
        return T.ANY

    def aggregate(self, e: A.Aggregate, scope: _Scope, statement: bool) -> Ty:
        if e.func not in AGGREGATES:
            what = f"unknown aggregate `{e.func}`" if e.func else "only a named aggregate can take `for … in …`"
            self.err("E101", what, e.func_span,
                     hint=did_you_mean(e.func, AGGREGATES) or "use count, sum, any, all, min or max")
        elem = self.iter_elem(e.iterable, scope)
        inner = scope.child(**{e.var: elem})
        et = self.expr(e.elem, inner)
        if e.where is not None:
            self.expect(e.where, T.BOOL, inner)
        if e.func == "sort":
            return self._sort_key(e, et, inner)
        if e.key is not None:
            self.err("E301", f"only `sort` takes `by`, not `{e.func}`", e.key.span,
                     hint="write `sort(x for x in L by KEY)`, or `max(KEY for x in L)` for the largest key")
            self.expr(e.key, inner)
        if e.func in ("sum", "min", "max"):
            if not T.assignable(et, T.INT):
                self.err("E140", f"`{e.func}` needs numbers, found {et}", e.elem.span)
            return T.INT
        if e.func in ("any", "all"):
            if not T.assignable(et, T.BOOL):
                self.err("E140", f"`{e.func}` needs conditions, found {et}", e.elem.span)
            return T.BOOL
        return T.INT

    def _sort_key(self, e: A.Aggregate, elem: Ty, inner: _Scope) -> Ty:
        """`sort(ELEM for x in L [where C] [by KEY])`: the elements as a list, ordered by the key (E302 when the
        key, or without one the element, is not an int, text, bool, player or enum value)."""
        if e.key is None:
            if elem.kind not in (*SORTABLE, "any"):
                self.err("E302", f"`sort` orders ints, texts or players, not {elem}", e.elem.span,
                         hint=f"order them by a key: `sort({e.var} for {e.var} in … by {e.var}.FIELD)`")
        else:
            kt = self.expr(e.key, inner)
            if kt.kind not in KEY_KINDS:
                self.err("E302", f"cannot order by {kt}", e.key.span,
                         hint="a sort key is an int, text, bool, player or enum value")
        return T.list_of(elem)

    def user_value(self, n: str) -> bool:
        """Does the ruleset (or the mode being checked) declare a value named ``n``? Then it shadows the
        built-in value of that name (W080 at the declaration)."""
        assert self.prog is not None
        prog = self.prog
        return (n in prog.zones or n in prog.counters or n in prog.graphs or n in prog.modes
                or n in self.enum_of_value or n in prog.enums or n in prog.grids)

    def local_name(self, name: str, span: Span) -> None:
        """A `let` naming its value: `self` is the card whose effect runs (E104); a built-in value's name
        (`players`, `first`, …) is shadowed for the rest of the block, with a note (W080)."""
        if name == "self":
            self.err("E104", "`self` is a built-in name", span)
        elif name in BUILTIN_VALUES:
            self.warn("W080", f"`{name}` is declared here and shadows the built-in of the same name in this block",
                      span, hint=f"fine if meant; rename it to use the built-in `{name}`")

    def let_in(self, e: A.LetIn, scope: _Scope, statement: bool) -> Ty:
        """A `let` of a `fn` body: the value's type names ``e.name`` for the rest of the body."""
        self.local_name(e.name, e.name_span)
        value = self.value_type(self.expr(e.value, scope), e.value)
        return self.expr(e.body, scope.child(**{e.name: value}))

    def list_lit(self, e: A.ListLit, scope: _Scope, statement: bool) -> Ty:
        if not e.items:
            return T.list_of(T.ANY)
        et = self.expr(e.items[0], scope)
        for item in e.items[1:]:
            it = self.expr(item, scope)
            u = T.unify(et, it)
            if u is None:
                self.err("E140", f"list items disagree: {et} and {it}", item.span)
            else:
                et = u
        kinds = {i.ty.kind for i in e.items if i.ty is not None}
        if {"zone", "list"} <= kinds:  # `[stock, [x]]`: a list of lists of cards, so the zone stands for its cards
            zone = next(i for i in e.items if i.ty is not None and i.ty.kind == "zone")
            e.items = [zone_cards(i) if i.ty is not None and i.ty.kind == "zone" else i for i in e.items]
            et = T.list_of(T.card((zone.ty or T.zone(None)).arg))
        return T.list_of(et)

    def list_comp(self, e: A.ListComp, scope: _Scope, statement: bool) -> Ty:
        elem = self.iter_elem(e.iterable, scope)
        inner = scope.child(**{e.var: elem})
        et = self.expr(e.elem, inner)
        if e.where is not None:
            self.expect(e.where, T.BOOL, inner)
        return T.list_of(et)

    def unary(self, e: A.Unary, scope: _Scope, statement: bool) -> Ty:
        if e.op == "not":
            self.expect(e.operand, T.BOOL, scope)
            return T.BOOL
        self.expect(e.operand, T.INT, scope)
        return T.INT

    def cond(self, e: A.Cond, scope: _Scope, statement: bool) -> Ty:
        self.expect(e.test, T.BOOL, scope)
        a = self.expr(e.then, scope)
        b = self.expr(e.orelse, scope)
        if a.kind == "zone" and b.kind == "list":  # `if c then stock else []`: both branches are lists of cards
            e.then = zone_cards(e.then)
            a = e.then.ty or a
        elif b.kind == "zone" and a.kind == "list":
            e.orelse = zone_cards(e.orelse)
            b = e.orelse.ty or b
        u = T.unify(a, b)
        if u is None:
            self.err("E140", f"the branches have different types: {a} and {b}", e.span)
            return T.ANY
        return u

    def binary(self, e: A.Binary, scope: _Scope, statement: bool = False) -> Ty:
        op = e.op
        if op in ("and", "or"):
            self.expect(e.left, T.BOOL, scope)
            self.expect(e.right, T.BOOL, scope)
            return T.BOOL
        if op in ("in", "not in"):
            lt = self.expr(e.left, scope)
            elem = self.iter_elem(e.right, scope)
            if not (T.assignable(lt, elem) or T.assignable(elem, lt)):
                self.err("E140", f"cannot look for {lt} in a collection of {elem}", e.span)
            return T.BOOL
        if op in ("==", "!="):
            a = self.expr(e.left, scope)
            b = self.expr(e.right, scope)
            if not (T.assignable(a, b) or T.assignable(b, a)):
                self.err("E140", f"cannot compare {a} with {b}", e.span)
            return T.BOOL
        if op in ("<", "<=", ">", ">="):
            self.expect(e.left, T.INT, scope)
            self.expect(e.right, T.INT, scope)
            return T.BOOL
        if op == "+":
            a = self.expr(e.left, scope)
            if a.kind in ("list", "zone"):
                b = self.expr(e.right, scope)
                la, lb = T.as_list(a), T.as_list(b)
                if lb is None or la is None or T.unify(la, lb) is None:
                    self.err("E140", f"cannot join {a} and {b}", e.span)
                    return T.ANY
                return T.unify(la, lb) or T.ANY
            if a.kind == "text":  # joining texts: what a `prompt` or `describe` says can be put together
                self.expect(e.right, T.TEXT, scope)
                return T.TEXT
            if not T.assignable(a, T.INT):
                self.err("E140", f"expected int, found {a}", e.left.span)
            self.expect(e.right, T.INT, scope)
            return T.INT
        self.expect(e.left, T.INT, scope)
        self.expect(e.right, T.INT, scope)
        return T.INT

    def name(self, e: A.Name, scope: _Scope) -> Ty:
        assert self.prog is not None
        prog = self.prog
        n = e.id
        if n in scope.names:
            e.ref = ("local", n)
            return scope.names[n]
        if n == "self":
            if scope.self_kind is None:
                self.err("E101", "`self` is only available in a card's effects and functions", e.span)
                return T.ANY
            e.ref = ("self",)
            return T.card(scope.self_kind)
        if n in BUILTIN_VALUES and not self.user_value(n):
            e.ref = ("first",) if n == "first" else ("builtin", n)
            return {"players": T.list_of(T.PLAYER), "seats": T.list_of(T.PLAYER), "first": T.PLAYER}.get(n, T.INT)
        if n in prog.zones and not prog.zones[n].per_player and not prog.zones[n].per_card:
            e.ref = ("zone", prog.zones[n])
            self.used.add("zone:" + prog.zones[n].name)
            return T.zone(prog.zones[n].of_kind)
        c = prog.counters.get(n)
        if c is not None and c.scope == "global":
            e.ref = ("counter", c)
            self.used.add("counter:" + c.name)
            return counter_type(c)
        if n in prog.graphs:
            e.ref = ("graph", prog.graphs[n])
            self.used.add("graph:" + n)
            return Ty("graph", arg=n)
        if n in prog.modes:  # a rule mode's name: a constant value, like an enum value
            prog.modes[n].named |= not prog.modes[n].inside
            e.ref = ("enumval", n)
            return T.MODE
        if n in self.enum_of_value:
            e.ref = ("enumval", n)
            return Ty("enum", arg=self.enum_of_value[n])
        if n in prog.enums:
            e.ref = ("enumtype", n)
            return Ty("enumtype", arg=n)
        grid_ty = grids.grid_name(self, e)
        if grid_ty is not None:
            return grid_ty
        hint_pool = list(scope.names) + list(prog.zones) + list(prog.counters) + list(self.enum_of_value) + list(
            prog.enums) + sorted(BUILTIN_VALUES) + list(prog.modes)
        if n in prog.zones or (c is not None):
            z0 = prog.zones.get(n)
            owner = "a card" if (z0 is not None and z0.per_card) or (c and c.scope == "card") else "a player"
            self.err("E102", f"`{n}` belongs to {owner}; write it as `p.{n}`", e.span)
        elif n in prog.fns or n in prog.procs or n in BUILTIN_FUNCS:
            self.err("E102", f"`{n}` is a function; call it as `{n}(…)`", e.span)
        else:
            self.err("E101", f"unknown name `{n}`", e.span, hint=did_you_mean(n, hint_pool))
        return T.ANY

    def attr(self, e: A.Attr, scope: _Scope) -> Ty:
        assert self.prog is not None
        prog = self.prog
        if isinstance(e.obj, A.Name) and e.obj.id in prog.modes and e.obj.id not in scope.names:
            return self.mode_member(e, e.obj, scope)
        base = self.expr(e.obj, scope)
        n = e.name
        if base.kind == "player":
            z = prog.zones.get(n)
            if z is not None and z.per_player:
                e.ref = ("pzone", z)
                self.used.add("zone:" + z.name)
                return T.zone(z.of_kind)
            c = prog.counters.get(n)
            if c is not None and c.scope == "player":
                e.ref = ("pcounter", c)
                self.used.add("counter:" + c.name)
                return counter_type(c)
            cands = [k for k, z2 in prog.zones.items() if z2.per_player] + [
                k for k, c2 in prog.counters.items() if c2.scope == "player"]
            self.err("E101", f"players have no `{n}`", e.name_span, hint=did_you_mean(n, cands))
            return T.ANY
        if base.kind == "card":
            z = prog.zones.get(n)
            if z is not None and z.per_card:
                e.ref = ("czone", z)
                self.used.add("zone:" + n)
                return T.zone(z.of_kind)
            c = prog.counters.get(n)
            if c is not None and c.scope == "card":
                e.ref = ("ccounter", c)
                self.used.add("counter:" + c.name)
                return counter_type(c)
            kinds = [base.arg] if base.arg else list(prog.kinds)
            found: list[Ty] = []
            for k in kinds:
                ft = prog.field_types.get(k, {})
                if n in ft:
                    found.append(ft[n])
            if not found:
                field_names: list[str] = []
                for k in kinds:
                    field_names += list(prog.field_types.get(k, {}))
                field_names += [k for k, c2 in prog.counters.items() if c2.scope == "card"]
                what = f"`{base.arg}` cards" if base.arg else "cards"
                self.err("E101", f"{what} have no field `{n}`", e.name_span, hint=did_you_mean(n, field_names))
                return T.ANY
            if any(f != found[0] for f in found):
                self.err("E145", f"field `{n}` has different types in different card kinds", e.span,
                         hint="declare the zone `of Kind` or use distinct field names")
            e.ref = ("field", n)
            return found[0]
        if base.kind == "any":
            return T.ANY
        self.err("E146", f"{base} has no fields", e.span)
        return T.ANY

    def mode_member(self, e: A.Attr, mode: A.Name, scope: _Scope) -> Ty:
        """``MODE.NAME``: a mode's global counter or zone, written from anywhere by its qualified name (views and
        saves show it so too); its other names are only visible inside the mode."""
        assert self.prog is not None
        m = self.prog.modes[mode.id]
        mode.ref, mode.ty = ("enumval", mode.id), T.MODE
        z = m.zones.get(e.name)
        if z is not None and not z.per_player:
            e.ref = ("zone", z)
            self.used.add("zone:" + z.name)
            return T.zone(z.of_kind)
        c = m.counters.get(e.name)
        if c is not None and c.scope == "global":
            e.ref = ("counter", c)
            self.used.add("counter:" + c.name)
            return T.BOOL if c.is_flag else T.INT
        shared = [k for k, z2 in m.zones.items() if not z2.per_player] + [
            k for k, c2 in m.counters.items() if c2.scope == "global"]
        self.err("E101", f"mode `{m.name}` has no shared counter or zone `{e.name}`", e.name_span,
                 hint=did_you_mean(e.name, shared) or "outside a mode, only its shared counters and zones can be "
                 "named (`MODE.NAME`)")
        return T.ANY

    def call(self, e: A.Call, scope: _Scope, statement: bool) -> Ty:
        assert self.prog is not None
        prog = self.prog
        f = e.func
        if isinstance(f, A.Attr):
            return self.call_field(e, f, scope, statement)
        if not isinstance(f, A.Name):
            self.err("E147", "only named functions, procedures and card fields can be called", f.span)
            return T.ANY
        n = f.id
        if n in prog.procs:
            proc = prog.procs[n]
            self.used.add("proc:" + proc.name)
            if not statement:
                self.err("E141", f"procedure `{n}` is run with `do`, it has no value", e.span)
            self.args(e.args, [self.resolve_type(p.type) for p in proc.params], e.span, scope, f"procedure `{n}`")
            e.ref = ("call_proc", proc)
            self.calls.setdefault(self.owner, set()).add(f"proc:{proc.name}")
            return T.VOID
        if n in prog.fns:
            fn = prog.fns[n]
            self.used.add("fn:" + fn.name)
            self.args(e.args, [self.resolve_type(p.type) for p in fn.params], e.span, scope, f"function `{n}`")
            e.ref = ("call_fn", fn)
            self.calls.setdefault(self.owner, set()).add(f"fn:{fn.name}")
            return self.resolve_type(fn.ret)
        b = constructs.BUILTINS.get(n)
        if b is not None:
            e.ref = ("call_builtin", n)
            return self.builtin(b, e, scope)
        self.err("E101", f"unknown function `{n}`", f.span,
                 hint=did_you_mean(n, list(prog.fns) + list(prog.procs) + sorted(BUILTIN_FUNCS)))
        for a in e.args:
            self.expr(a, scope)
        return T.ANY

    def call_field(self, e: A.Call, f: A.Attr, scope: _Scope, statement: bool) -> Ty:
        """``c.field(args)``: a card's effect (run with `do`) or function field."""
        assert self.prog is not None
        prog = self.prog
        base = self.expr(f.obj, scope)
        if base.kind not in ("card", "any"):
            self.attr(f, scope)
            self.err("E147", f"`{f.name}` is not something to call", f.span,
                     hint="only card effect and function fields, procedures and functions can be called")
            for a in e.args:
                self.expr(a, scope)
            return T.ANY
        ftype = self.attr(f, scope) if base.kind == "card" else T.ANY
        f.ty = ftype
        if ftype.kind == "effect":
            if not statement:
                self.err("E141", "an effect is run with `do`, it has no value", e.span)
            self.args(e.args, list(ftype.params), e.span, scope, f"effect `{f.name}`")
            e.ref = ("call_field", f.name, "effect")
            kinds = [base.arg] if base.arg else list(prog.kinds)
            for k in kinds:
                if f.name in prog.field_types.get(k, {}):
                    self.calls.setdefault(self.owner, set()).add(f"field:{k}.{f.name}")
            return T.VOID
        if ftype.kind == "function":
            self.args(e.args, list(ftype.params), e.span, scope, f"function `{f.name}`")
            e.ref = ("call_field", f.name, "function")
            return ftype.ret or T.INT
        if ftype.kind != "any":
            self.err("E147", f"`{f.name}` is {ftype}, not something to call", f.span)
        for a in e.args:
            self.expr(a, scope)
        return T.ANY

    def builtin(self, b: constructs.Builtin, e: A.Call, scope: _Scope) -> Ty:
        """A built-in call, typed from its declaration in the registry (E127 arity, E140 argument types); a
        built-in whose parameters are kinds rather than types, or whose result follows its arguments, has its
        own rule in :data:`~.builtin_rules.BUILTIN_RULES`."""
        args = e.args
        if self.reading and b.reads_rng:
            self.err("E171", f"`{b.name}` in a `display`, `describe` or `prompt`: what a player is shown must not "
                     "draw from the game's random numbers", e.span,
                     hint="compute the value in a step and keep it in a counter")
        if len(args) == 1 and b.params[0].ty == "die" and self.names_die(args[0], hidden_by=scope):
            return T.INT
        types = [self.expr(a, scope) for a in args]
        if not b.accepts(len(args)):
            self.err("E127", b.arity_message(len(args)), e.span)
            return b.result or T.ANY
        rule = BUILTIN_RULES.get(b.name)
        if rule is not None:
            return rule(self, e, types)
        wanted = b.params + (b.params[-1:] * (len(args) - len(b.params)) if b.variadic else ())
        for a, t, p in zip(args, types, wanted, strict=False):
            if isinstance(p.ty, Ty) and not T.assignable(t, p.ty):
                self.err("E140", f"expected {p.ty}, found {t}", a.span)
        assert b.result is not None, f"`{b.name}` has no typing rule and no result type"
        return b.result

    def names_die(self, arg: A.Expr, hidden_by: _Scope | None) -> bool:
        """``arg`` is a die's name (``roll(d6)``): mark it so, it is not a value to type. Before the argument is
        typed, a local of the same name in ``hidden_by`` hides the die; the typing rule's second look does not."""
        assert self.prog is not None
        if not (isinstance(arg, A.Name) and arg.id in self.prog.dice):
            return False
        if hidden_by is not None and arg.id in hidden_by.names:
            return False
        arg.ref = ("die", arg.id)
        arg.ty = T.TEXT
        return True

    # ------------------------------------------------------------ analysis

    def _counter_of(self, e: A.Expr) -> A.CounterDecl | None:
        ref = e.ref
        if ref is not None:
            if ref[0] in ("counter", "pcounter", "ccounter", "gridcell"):
                return ref[1]
            if ref[0] == "icounter" and isinstance(e, A.Index):
                return self._counter_of(e.obj)
        return None

    def args(self, args: list[A.Expr], want: list[Ty], span: Span, scope: _Scope, what: str) -> None:
        if len(args) != len(want):
            self.err("E127", f"{what} takes {len(want)} argument(s), {len(args)} given", span)
        for i, (a, w) in enumerate(zip(args, want, strict=False)):
            args[i] = self.expect_value(a, w, scope)
        for a in args[len(want):]:
            self.expr(a, scope)


def zone_cards(e: A.Expr) -> A.Expr:
    """A zone where a list of cards is wanted, as the list of its cards at that moment: `[c for c in zone]`.

    A zone's value at run time is its index (so `move`, `shuffle` and `size` reach the zone itself); a `list of
    card` parameter, a `fn` result or a list local would receive that index and fail when iterated. Rewriting
    the zone as a comprehension, a construct every compile mode already runs, gives them the cards instead.
    The loop name cannot clash with the author's: the comprehension binds it only inside itself."""
    t = e.ty or T.zone(None)
    elem = T.card(t.arg)
    item = A.Name(e.span, id=ZONE_ITEM)
    item.ty, item.ref = elem, ("local", ZONE_ITEM)
    out = A.ListComp(e.span, elem=item, var=ZONE_ITEM, iterable=e)
    out.ty = T.list_of(elem)
    return out


ZONE_ITEM = "_zone_card"  # the loop name of :func:`zone_cards`

# One handler per expression kind of the registry (dsl/constructs/expressions.py); tests/test_registry.py holds
# the two to agreement.
EXPR_HANDLERS: dict[type[A.Expr], Callable[[ExpressionChecker, Any, _Scope, bool], Ty]] = {
    A.IntLit: ExpressionChecker.int_lit,
    A.StrLit: lambda chk, e, scope, statement: T.TEXT,
    A.BoolLit: lambda chk, e, scope, statement: T.BOOL,
    A.NoneLit: lambda chk, e, scope, statement: T.NONE,
    A.Name: lambda chk, e, scope, statement: chk.name(e, scope),
    A.Attr: lambda chk, e, scope, statement: chk.attr(e, scope),
    A.Index: ExpressionChecker.index,
    A.Call: ExpressionChecker.call,
    A.Aggregate: ExpressionChecker.aggregate,
    A.ListLit: ExpressionChecker.list_lit,
    A.ListComp: ExpressionChecker.list_comp,
    A.Unary: ExpressionChecker.unary,
    A.Binary: ExpressionChecker.binary,
    A.Cond: ExpressionChecker.cond,
    A.Cell: grids.cell,
    A.LetIn: ExpressionChecker.let_in,
}
