"""Expressions -> closures ``f(state, env)``: names, operators, aggregates, calls, built-ins, `fn` inlining."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from liturgy.dsl import constructs
from liturgy.dsl.checker.graphs import overlay_name
from liturgy.dsl.diagnostics import Span
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler import budgets, conveniences, graphs, grids
from liturgy.interpreter.compiler.code import FIRST_SLOT, MAX_REROLLS, ROUND_SLOT, ExprFn, Layout, arguments
from liturgy.interpreter.compiler.core import CompilerCore
from liturgy.interpreter.compiler.instructions import _children, _has_effects, _local_names
from liturgy.interpreter.compiler.sizes import INLINE_SIZE
from liturgy.interpreter.runtime import modes, rng, seats
from liturgy.interpreter.runtime.builtins import pure_function
from liturgy.interpreter.runtime.errors import RuleError
from liturgy.interpreter.runtime.graphs import GraphWalk
from liturgy.interpreter.runtime.moves import zone_owner_now
from liturgy.interpreter.runtime.state import GameState


class ExpressionCompiler(CompilerCore):
    # ------------------------------------------------------------ helpers
    def zone_index(self, e: A.Expr) -> ExprFn:
        """Closure giving the zone index an expression of type zone denotes."""
        ref = e.ref
        lay = self.layout
        if ref is not None and ref[0] == "zone":
            zi = lay.zone_global[ref[1].name]
            return lambda s, env: zi
        if ref is not None and ref[0] == "pzone" and isinstance(e, A.Attr):
            base = lay.zone_player_base + lay.zone_player_offsets[ref[1].name]
            return self._strided(e.obj, base, lay.zone_player_stride, "no player")
        if isinstance(ref, tuple) and ref[0] == "czone" and isinstance(e, A.Attr):
            base = lay.zone_card_base + lay.zone_card_offsets[ref[1].name]
            return self._strided(e.obj, base, lay.zone_card_stride, "no card")
        return self.expr(e)  # a local holding a zone index

    def _strided(self, owner: A.Expr, base: int, stride: int, missing: str) -> ExprFn:
        """Closure for ``base + index(owner) * stride``: the slot of a per-player or per-card item."""
        var = self._plain_local(owner)
        if var is not None:
            return lambda s, env: base + env[var] * stride
        of = self.expr(owner)

        def strided(s: GameState, env: dict[str, Any]) -> int:
            i = of(s, env)
            if i is None:
                raise RuleError(missing)
            return base + int(i) * stride

        return strided

    def counter_slot(self, e: A.Expr) -> ExprFn:
        ref = A.ref_of(e)
        lay = self.layout
        if ref == ("first",):
            return lambda s, env: FIRST_SLOT
        if ref[0] == "counter":
            slot = lay.global_slots[ref[1].name]
            return lambda s, env: slot
        if ref[0] == "pcounter" and isinstance(e, A.Attr):
            base = lay.player_base + lay.player_offsets[ref[1].name]
            return self._strided(e.obj, base, lay.player_stride, "no player")
        if ref[0] == "ccounter" and isinstance(e, A.Attr):
            base = lay.card_base + lay.card_offsets[ref[1].name]
            return self._strided(e.obj, base, lay.card_stride, "no card")
        if ref[0] == "gridcell" and isinstance(e, A.Cell):
            return grids.cell_slot(self, e)
        if ref[0] == "icounter" and isinstance(e, A.Index):
            inner = self.counter_slot(e.obj)
            decl = self._counter_decl(e.obj)
            idx_map = lay.enum_index[decl.index_enum or ""]
            ix = self.expr(e.index)

            def islot(s: GameState, env: dict[str, Any]) -> int:
                return inner(s, env) + idx_map[ix(s, env)]  # type: ignore[no-any-return]

            return islot
        raise AssertionError(f"not a counter: {ref}")  # pragma: no cover - checker prevents this

    def _plain_local(self, e: A.Expr) -> str | None:
        """The variable name if ``e`` is a plain local (not an inlined parameter)."""
        if isinstance(e, A.Name) and e.ref == ("local", e.id) and e.id not in self.subst:
            return e.id
        return None

    def _counter_decl(self, e: A.Expr) -> A.CounterDecl:
        ref = A.ref_of(e)
        if ref == ("first",):
            return A.CounterDecl(e.span, "first", "global", False, None, None, None, None, False)
        if ref[0] == "icounter" and isinstance(e, A.Index):
            return self._counter_decl(e.obj)
        if ref[0] in ("counter", "pcounter", "ccounter", "gridcell"):
            return ref[1]
        raise AssertionError(f"not a counter: {ref}")  # pragma: no cover - checker prevents this

    def seq(self, e: A.Expr) -> ExprFn:
        """Closure giving a sequence to iterate (zones are read live, not copied)."""
        t = e.ty
        f = self.expr(e)
        if t is not None and t.kind == "zone":
            zf = self.zone_index(e)
            return lambda s, env: s.zones[zf(s, env)]
        return f

    # ------------------------------------------------------------ expressions
    def expr(self, e: A.Expr) -> ExprFn:
        """One function for ``e``: generated Python source where :mod:`.codegen` knows the shape, else closures."""
        fn = self.gen.function(e) if self.gen is not None else None
        return fn if fn is not None else self.expr_closure(e)

    def expr_closure(self, e: A.Expr) -> ExprFn:
        """The reference closure for ``e``, from the handler :data:`EXPR_HANDLERS` keeps for its node class."""
        handler = EXPR_HANDLERS.get(type(e))
        if handler is None:  # pragma: no cover - tests/test_compiler_tables.py covers every node class
            raise AssertionError(f"cannot compile {type(e).__name__}")
        return handler(self, e)

    def _literal(self, e: A.IntLit | A.StrLit | A.BoolLit) -> ExprFn:
        v = e.value
        return lambda s, env: v

    def _none(self, e: A.NoneLit) -> ExprFn:
        return lambda s, env: None

    def _name(self, e: A.Name) -> ExprFn:
        ref = A.ref_of(e)
        if ref[0] == "local":
            n = e.id
            if n in self.subst:
                return self.subst[n]
            return lambda s, env: env[n]
        if ref[0] == "self":
            return lambda s, env: env["self"]
        if ref[0] == "first":
            return lambda s, env: s.counters[FIRST_SLOT]
        if ref[0] == "builtin":
            return _builtin_name(ref[1], self.layout)
        if ref[0] == "zone":
            zi = self.layout.zone_global[ref[1].name]
            return lambda s, env: zi
        if ref[0] == "counter":
            slot = self.layout.global_slots[ref[1].name]
            return lambda s, env: s.counters[slot]
        if ref[0] in ("enumval", "die"):
            v = ref[1]
            return lambda s, env: v
        if ref[0] == "graph":  # only ever the first argument of a graph built-in, which reads the declaration
            graph_name = ref[1].name
            return lambda s, env: graph_name
        if ref[0] == "enumtype":
            vals = tuple(self.prog.enums[ref[1]])
            return lambda s, env: vals
        if ref[0] in ("grid", "direction", "directions"):
            value = grids.name_value(ref)
            return lambda s, env: value
        raise AssertionError(f"unresolved name {e.id}")  # pragma: no cover

    def _attr(self, e: A.Attr) -> ExprFn:
        ref = A.ref_of(e)
        if ref[0] == "zone":  # a rule mode's shared zone by its qualified name, `seance.candles`
            zi = self.layout.zone_global[ref[1].name]
            return lambda s, env: zi
        if ref[0] == "counter":  # a rule mode's shared counter, `seance.ritual`
            slot = self.layout.global_slots[ref[1].name]
            return lambda s, env: s.counters[slot]
        if ref[0] in ("pzone", "czone"):
            return self.zone_index(e)
        if ref[0] in ("pcounter", "ccounter"):
            var = self._plain_local(e.obj)
            if var is not None and ref[0] == "pcounter":
                lay = self.layout
                base = lay.player_base + lay.player_offsets[ref[1].name]
                stride = lay.player_stride
                pvar: str = var
                return lambda s, env: s.counters[base + env[pvar] * stride]
            sf = self.counter_slot(e)
            return lambda s, env: s.counters[sf(s, env)]
        if ref[0] == "field":
            return self._field(e)
        raise AssertionError(f"unresolved attribute {e.name}")  # pragma: no cover

    def _field(self, e: A.Attr) -> ExprFn:
        """``card.field``: the value from the field's per-card list (an error for no card)."""
        of = self.expr(e.obj)
        name = e.name
        values = self.field_list(name)
        obj = e.obj
        if isinstance(obj, A.Name) and obj.ref == ("local", obj.id) and obj.id not in self.subst:
            var = obj.id

            def local_field(s: GameState, env: dict[str, Any]) -> Any:
                c = env[var]
                if c is None:
                    raise RuleError(f"`.{name}` of no card")
                return values[c]

            return local_field

        def field_value(s: GameState, env: dict[str, Any]) -> Any:
            c = of(s, env)
            if c is None:
                raise RuleError(f"`.{name}` of no card")
            return values[c]

        return field_value

    def _index(self, e: A.Index) -> ExprFn:
        if e.ref == ("icounter",):
            sf = self.counter_slot(e)
            return lambda s, env: s.counters[sf(s, env)]
        lf = self.expr(e.obj)
        ixf = self.expr(e.index)

        def list_index(s: GameState, env: dict[str, Any]) -> Any:
            items = lf(s, env)
            i = ixf(s, env)
            if not 0 <= i < len(items):
                raise RuleError(f"list index {i} out of range (size {len(items)})")
            return items[i]

        return list_index

    def _list_lit(self, e: A.ListLit) -> ExprFn:
        items = [self.expr(x) for x in e.items]
        return lambda s, env: tuple(f(s, env) for f in items)

    def _unary(self, e: A.Unary) -> ExprFn:
        of = self.expr(e.operand)
        if e.op == "not":
            return lambda s, env: not of(s, env)
        return (lambda s, env: -of(s, env)) if self.sizes.safe(e) else budgets.checked_negation(of, e.span)

    def _cond(self, e: A.Cond) -> ExprFn:
        tf, af, bf = self.expr(e.test), self.expr(e.then), self.expr(e.orelse)
        return lambda s, env: af(s, env) if tf(s, env) else bf(s, env)

    def binary(self, e: A.Binary) -> ExprFn:
        op, lt = e.op, e.left.ty
        if op == "+" and lt is not None and lt.kind in ("list", "zone"):  # each operand compiled once, not 2^depth
            ls, rs = self.seq(e.left), self.seq(e.right)
            if self.sizes.concat_fits(e, self.size_limit):  # never past the limit: no check
                return lambda s, env: tuple(ls(s, env)) + tuple(rs(s, env))
            return budgets.checked_concat(ls, rs, self.size_limit, e.span)
        lf = self.expr(e.left)
        if op in ("in", "not in"):
            rf = self.seq(e.right)
            if op == "in":
                return lambda s, env: lf(s, env) in rf(s, env)
            return lambda s, env: lf(s, env) not in rf(s, env)
        rf = self.expr(e.right)
        if op in ("/", "%"):
            return _divide(lf, rf, op, e.span)
        if self.sizes.safe(e):  # an int result provably inside 64 bits: nothing to check
            return _BINARY[op](lf, rf)
        return budgets.checked_binary(e, _BINARY[op](lf, rf), self.size_limit, self.text_limit)

    def _shadow(self, var: str) -> dict[str, ExprFn]:
        """Hide an inlined parameter behind a comprehension variable; return the map to restore."""
        saved = self.subst
        if var in saved:
            self.subst = {k: v for k, v in saved.items() if k != var}
        return saved

    def aggregate(self, e: A.Aggregate) -> ExprFn:
        """Compile ``count/sum/any/all/min/max(… for x in … where …)``.

        Each aggregate gets its own closure (no run-time dispatch on the name, see :data:`_AGGREGATES`);
        the loop variable is restored afterwards so it never leaks into the enclosing scope.
        """
        it = budgets.counted_items(self.seq(e.iterable), self.work_limit, e.span,
                                   budgets.loop_kind(e.iterable, self.sizes, e.elem, e.where))
        shadow = self._shadow(e.var)
        wf = self.expr(e.where) if e.where is not None else None
        ef = self.expr(e.elem)
        kf = self.expr(e.key) if e.key is not None else None
        self.subst = shadow
        var = e.var
        if e.func == "sort":
            order = conveniences.order_key((e.key or e.elem).ty, self.prog)
            body = conveniences.sorted_body(var, wf, ef, kf, order)
        elif wf is None:
            def keep(s: GameState, env: dict[str, Any]) -> bool:
                return True
            body = _AGGREGATES[e.func](var, keep, ef)
        else:
            body = _AGGREGATES[e.func](var, wf, ef)

        def run(s: GameState, env: dict[str, Any]) -> Any:
            had = var in env
            old = env.get(var)
            result = body(s, env, it(s, env))
            if had:
                env[var] = old
            else:
                env.pop(var, None)
            return result
        return run

    def let_in(self, e: A.LetIn) -> ExprFn:
        """A `fn` body's `let`: the value, then the body with the name bound (hiding an inlined parameter)."""
        value = self.expr(e.value)
        shadow = self._shadow(e.name)
        body = self.expr(e.body)
        self.subst = shadow
        return conveniences.let_in(e.name, value, body)

    def list_comp(self, e: A.ListComp) -> ExprFn:
        it = budgets.counted_items(self.seq(e.iterable), self.work_limit, e.span,
                                   budgets.loop_kind(e.iterable, self.sizes, e.elem, e.where))
        shadow = self._shadow(e.var)
        wf = self.expr(e.where) if e.where is not None else None
        ef = self.expr(e.elem)
        self.subst = shadow
        var = e.var
        missing = object()

        def run(s: GameState, env: dict[str, Any]) -> Any:
            old = env.get(var, missing)
            out = []
            for x in tuple(it(s, env)):
                env[var] = x
                if wf is None or wf(s, env):
                    out.append(ef(s, env))
            if old is missing:
                env.pop(var, None)
            else:
                env[var] = old
            return tuple(out)

        return run

    def call(self, e: A.Call) -> ExprFn:
        ref = A.ref_of(e)
        args = [self.expr(a) for a in e.args]
        if ref[0] == "call_fn":
            params, _ = self.fns[ref[1].name]
            name = ref[1].name
            fns = self.fns
            if self.can_inline(ref[1], e.args):
                return self.inline_fn(ref[1], args, e.args)

            limit, at = self.work_limit, f"calling `{name}` at line {e.span.line}"
            fans_out = name not in self.recursive_fns and self.sizes.inline_size(ref[1]) > INLINE_SIZE
            units = self.sizes.call_cost(ref[1]) if fans_out else 1
            count = budgets.call_counter(self.recursive, f"fn:{name}", fans_out)
            return budgets.fn_call(fns, name, arguments(params, args), count, units, limit, at)
        if ref[0] == "call_field":
            assert isinstance(e.func, A.Attr)
            of = self.expr(e.func.obj)
            fname = e.func.name
            field_params = self._field_params(fname)
            limit, at = self.work_limit, f"calling `{fname}` at line {e.span.line}"
            count = budgets.call_counter(self.recursive, f"field:{fname}")
            table = self.functions.get(fname)
            card_def = self.card_def
            if table is None:  # pragma: no cover - effects are compiled as statements
                raise AssertionError("effect used as a value")
            if field_params is None:
                per_card = self._params_per_card(fname)

                def call_mixed_field(s: GameState, env: dict[str, Any]) -> Any:
                    c = of(s, env)
                    if c is None:
                        raise RuleError(f"`{fname}` of no card")
                    d = card_def[c]
                    env2 = {p: a(s, env) for p, a in zip(per_card[d], args, strict=True)}
                    env2["self"] = c
                    count(s, 1, limit, at)
                    return table[d](s, env2)

                return call_mixed_field
            params = field_params

            def call_function_field(s: GameState, env: dict[str, Any]) -> Any:
                c = of(s, env)
                if c is None:
                    raise RuleError(f"`{fname}` of no card")
                env2 = {p: a(s, env) for p, a in zip(params, args, strict=True)}
                env2["self"] = c
                count(s, 1, limit, at)
                return table[card_def[c]](s, env2)

            return call_function_field
        if ref[0] == "call_builtin":
            return budgets.checked_builtin(ref[1], e, self.builtin(ref[1], e, args), args, self.size_limit,
                                           self.text_limit)
        raise AssertionError(f"cannot call {ref[0]}")  # pragma: no cover

    def can_inline(self, fn: A.FnDecl, args: Sequence[A.Expr]) -> bool:
        """Whether a call of ``fn`` with ``args`` may be compiled as the body with the parameters substituted.

        Not when an argument has effects (it must be evaluated exactly once), and not when substituting would
        capture a name: an argument reading a variable that the body binds in a comprehension or aggregate
        (``fn f(k) = count(x for x in L where x > k)`` called as ``f(x)``) would read the loop's item instead
        of the caller's ``x``. Such a call gets its own environment, where the argument is evaluated first.
        An argument naming an enclosing inlined parameter is judged conservatively (its own names are not known
        here). Generated code (interpreter/codegen.py) asks the same question, so both agree.
        """
        if self.inline_depth >= self.inline_limit or any(_has_effects(a) for a in args):
            return False
        if fn.name in self.recursive_fns or self.sizes.inline_size(fn) > INLINE_SIZE:  # counted; or too big
            return False
        if not self._binders(fn.name):
            return True
        for param, arg in zip(fn.params, args, strict=True):
            names = self.names_read([arg])
            if names is None or names & self._binders(fn.name, param.name):
                return False
        return True

    def names_read(self, args: Sequence[A.Expr]) -> set[str] | None:
        """The caller's variables that evaluating ``args`` reads, seeing through inlined parameters (which read
        their own arguments' variables); None when that is not known."""
        names: set[str] = set()
        for a in args:
            for n in _local_names(a):
                if n in self.subst and n in self.subst_names:
                    known = self.subst_names[n]
                    if known is None:
                        return None
                    names |= known
                else:  # a variable, or a loop variable that generated code holds in a Python local
                    names.add(n)
        return names

    def param_names(self, fn: A.FnDecl, args: Sequence[A.Expr]) -> dict[str, frozenset[str] | None]:
        """For each parameter of an inlined ``fn``: the caller's variables its argument reads (see names_read)."""
        out: dict[str, frozenset[str] | None] = {}
        for p, a in zip(fn.params, args, strict=True):
            read = self.names_read([a])
            out[p.name] = None if read is None else frozenset(read)
        return out

    def _binders(self, fn_name: str, param: str | None = None) -> frozenset[str]:
        """Names bound by comprehensions, aggregates and `let`s where an inlined ``param`` of `fn` ``fn_name`` can be
        read: its body's own, and those of each `fn` it calls with an argument that reads ``param`` (every call
        when ``param`` is None). A self-calling callee is never inlined (its arguments are evaluated where it is
        called), so it binds nothing the argument could be read under, and the walk never loops."""
        key = (fn_name, param)
        found = self._binder_cache.get(key)
        if found is not None:
            return found
        out: set[str] = set()
        stack: list[Any] = [self.prog.fns[fn_name].body]
        while stack:
            n = stack.pop()
            out.update(constructs.EXPRESSIONS[type(n)].binds(n))  # an aggregate's variable, a `let`'s name
            if isinstance(n, A.Call) and n.ref and n.ref[0] == "call_fn" and n.ref[1].name not in self.recursive_fns:
                callee = n.ref[1]
                for p, a in zip(callee.params, n.args, strict=True):
                    if param is None or param in _local_names(a):
                        out |= self._binders(callee.name, p.name)
            stack.extend(_children(n))
        result = self._binder_cache[key] = frozenset(out)
        return result

    def inline_fn(self, fn: A.FnDecl, args: list[ExprFn], arg_exprs: Sequence[A.Expr]) -> ExprFn:
        """Compile a call to a `fn` as its body, with parameters bound to the arguments.

        Saves building an environment per call on the hottest paths (helpers
        like `monster()` or `owned(p)`); arguments with effects are never inlined.
        """
        saved = self.subst, self.subst_names
        self.subst_names = self.param_names(fn, arg_exprs)
        self.subst = {p.name: a for p, a in zip(fn.params, args, strict=True)}
        self.inline_depth += 1
        try:
            return self.expr(fn.body)
        finally:
            self.subst, self.subst_names = saved
            self.inline_depth -= 1

    def field_list(self, name: str) -> list[Any]:
        return self.field_lists.setdefault(name, [])

    def _field_params(self, fname: str) -> tuple[str, ...] | None:
        """Parameter names of the function/effect field `fname`; None when card kinds declare fields of that name
        with different parameters (then each call binds the arguments by the called card's own kind)."""
        found = {tuple(p.name for p in f.type.params)
                 for kind in self.prog.kinds.values() for f in kind.fields if f.name == fname}
        if len(found) > 1:
            return None
        return found.pop() if found else ()

    def _params_per_card(self, fname: str) -> list[tuple[str, ...]]:
        """For each card definition, the parameter names of its kind's field `fname` (() if it has none)."""
        out: list[tuple[str, ...]] = []
        for card in self.prog.cards:
            fields = self.prog.kinds[card.kind].fields
            out.append(next((tuple(p.name for p in f.type.params) for f in fields if f.name == fname), ()))
        return out

    def builtin(self, name: str, e: A.Call, args: list[ExprFn]) -> ExprFn:
        """A built-in call: a registered pure built-in runs its reference implementation on the argument values;
        the others (they read the state, the RNG or their arguments' shape) have a handler in
        :data:`BUILTIN_HANDLERS`."""
        if name in constructs.PURE:
            fn = pure_function(name)
            return lambda s, env: fn(*(a(s, env) for a in args))
        return BUILTIN_HANDLERS[name](self, e, args)

    def _text(self, e: A.Call, args: list[ExprFn]) -> ExprFn:
        fmt = e.args[0].value if len(e.args) > 1 and isinstance(e.args[0], A.StrLit) else None
        return conveniences.text_fn(args, [a.ty for a in e.args], fmt, self.text_limit, budgets.where(e.span))

    def _size(self, e: A.Call, args: list[ExprFn]) -> ExprFn:
        sf = self.seq(e.args[0])
        return lambda s, env: len(sf(s, env))

    def _top(self, e: A.Call, args: list[ExprFn]) -> ExprFn:
        zf = self.zone_index(e.args[0])
        if len(args) == 1:
            return lambda s, env: (z[-1] if (z := s.zones[zf(s, env)]) else None)
        nf = args[1]
        return lambda s, env: tuple(reversed(s.zones[zf(s, env)][-nf(s, env):])) if nf(s, env) > 0 else ()

    def _bottom(self, e: A.Call, args: list[ExprFn]) -> ExprFn:
        zf = self.zone_index(e.args[0])
        if len(args) == 1:
            return lambda s, env: (z[0] if (z := s.zones[zf(s, env)]) else None)
        nf = args[1]
        return lambda s, env: tuple(s.zones[zf(s, env)][: max(0, nf(s, env))])

    def _random(self, e: A.Call, args: list[ExprFn]) -> ExprFn:
        sf = self.seq(e.args[0])

        def pick(s: GameState, env: dict[str, Any]) -> Any:
            items = sf(s, env)
            if not items:
                raise RuleError("random() of an empty list")
            s.rng, i = rng.below(s.rng, len(items))
            return items[i]

        return pick

    def _roll(self, e: A.Call, args: list[ExprFn]) -> ExprFn:
        die_of = args[0]
        dice = {d.name: tuple(d.faces) for d in self.prog.dice.values()}

        def roll(s: GameState, env: dict[str, Any]) -> int:
            faces = dice.get(die_of(s, env))
            if faces is None:
                raise RuleError(f"no die named {die_of(s, env)!r}")
            total = 0
            for _ in range(MAX_REROLLS):
                s.rng, i = rng.below(s.rng, len(faces))
                value, again = faces[i]
                total += value
                if not again:
                    return total
            raise RuleError(f"a die exploded more than {MAX_REROLLS} times")

        return roll

    def _value(self, e: A.Call, args: list[ExprFn]) -> ExprFn:
        sf = self.counter_slot(e.args[0])
        values = self._counter_decl(e.args[0]).track_values or [0]
        return lambda s, env: values[s.counters[sf(s, env)]]

    def _min(self, e: A.Call, args: list[ExprFn]) -> ExprFn:
        return lambda s, env: min(a(s, env) for a in args)

    def _max(self, e: A.Call, args: list[ExprFn]) -> ExprFn:
        return lambda s, env: max(a(s, env) for a in args)

    def _abs(self, e: A.Call, args: list[ExprFn]) -> ExprFn:
        return lambda s, env: abs(args[0](s, env))

    def _players_from(self, e: A.Call, args: list[ExprFn]) -> ExprFn:
        pf = args[0]
        return lambda s, env: s.tables.turn_orders[pf(s, env)]

    def _next_player(self, e: A.Call, args: list[ExprFn]) -> ExprFn:
        pf = args[0]
        return lambda s, env: s.tables.turn_orders[pf(s, env)][1 % s.tables.n]

    def graph_walk(self, graph: str) -> tuple[GraphWalk, int | None]:
        """One walker per graph for the whole ruleset (its cache serves every call site), and the slot of the
        graph's changes counter when the ruleset `link`s or `unlink`s it."""
        walk = self.graph_walks.get(graph)
        if walk is None:
            walk = self.graph_walks[graph] = GraphWalk(self.prog.graphs[graph])
        return walk, self.layout.global_slots.get(overlay_name(graph))

    def mode_slots(self) -> dict[str, int]:
        """Each rule mode's flag slot, by mode name (dsl/checker/modes.py)."""
        return {name: self.layout.global_slots[m.flag.name] for name, m in self.prog.modes.items()}

    def _active(self, e: A.Call, args: list[ExprFn]) -> ExprFn:
        arg = e.args[0]
        constant = arg.id if isinstance(arg, A.Name) and arg.ref == ("enumval", arg.id) else None
        return modes.active(self.mode_slots(), args[0], constant)

    def _owner(self, e: A.Call, args: list[ExprFn]) -> ExprFn:
        cf = args[0]

        def owner(s: GameState, env: dict[str, Any]) -> Any:
            zi = s.card_zone[cf(s, env)]
            o = s.tables.zone_owner[zi]
            if o < 0 and s.tables.zone_host and s.tables.zone_host[zi] >= 0:
                o = zone_owner_now(s, zi)  # a zone per card `as host`: the host's zone's owner
            return None if o < 0 else o

        return owner


# ------------------------------------------------------------ dispatch tables (tests/test_compiler_tables.py)

# the reference closure of each expression node class
EXPR_HANDLERS: dict[type[A.Expr], Callable[[ExpressionCompiler, Any], ExprFn]] = {
    A.IntLit: ExpressionCompiler._literal,
    A.StrLit: ExpressionCompiler._literal,
    A.BoolLit: ExpressionCompiler._literal,
    A.NoneLit: ExpressionCompiler._none,
    A.Name: ExpressionCompiler._name,
    A.Attr: ExpressionCompiler._attr,
    A.Index: ExpressionCompiler._index,
    A.Call: ExpressionCompiler.call,
    A.Aggregate: ExpressionCompiler.aggregate,
    A.ListLit: ExpressionCompiler._list_lit,
    A.ListComp: ExpressionCompiler.list_comp,
    A.Unary: ExpressionCompiler._unary,
    A.Binary: ExpressionCompiler.binary,
    A.Cond: ExpressionCompiler._cond,
    A.Cell: grids.cell,
    A.LetIn: ExpressionCompiler.let_in,
}


# the built-ins that are not registered pure functions (dsl/constructs.py), by name
def _ord(self: ExpressionCompiler, e: A.Call, args: list[ExprFn]) -> ExprFn:
    t = e.args[0].ty
    assert t is not None and t.arg is not None  # the checker typed the argument as a value of one enum
    position = {v: i for i, v in enumerate(self.prog.enums[t.arg])}
    xf = args[0]

    def ord_(s: GameState, env: dict[str, Any]) -> int:
        x = xf(s, env)
        if x is None:
            raise RuleError(f"ord() of none at line {e.span.line}")
        return position[x]

    return ord_


BUILTIN_HANDLERS: dict[str, Callable[[ExpressionCompiler, A.Call, list[ExprFn]], ExprFn]] = {
    "ord": _ord,
    "neighbours": graphs.neighbours,
    "adjacent": graphs.adjacent,
    "reach": graphs.reach,
    "distance": graphs.distance,
    "size": ExpressionCompiler._size,
    "top": ExpressionCompiler._top,
    "bottom": ExpressionCompiler._bottom,
    "random": ExpressionCompiler._random,
    "roll": ExpressionCompiler._roll,
    "value": ExpressionCompiler._value,
    "min": ExpressionCompiler._min,
    "max": ExpressionCompiler._max,
    "abs": ExpressionCompiler._abs,
    "players_from": ExpressionCompiler._players_from,
    "next_player": ExpressionCompiler._next_player,
    "owner": ExpressionCompiler._owner,
    "on_grid": grids.on_grid,
    "line": grids.line,
    "span": grids.span,
    "width": grids.width,
    "height": grids.height,
    "text": ExpressionCompiler._text,
    "active": ExpressionCompiler._active,
}


def _builtin_name(which: str, lay: Layout) -> ExprFn:
    """A built-in name: `players`, `player_count`, `seats` or `round`. With `absent_while FLAG`, `players` is
    the seats whose FLAG is false now, and `player_count` their number: read from the state each time."""
    if which in ("players", "player_count") and lay.absent_offset is not None:
        return seats.present_fn(lay.player_base + lay.absent_offset, lay.player_stride, which == "player_count")
    if which in ("players", "seats"):
        return lambda s, env: s.tables.players
    if which == "player_count":
        return lambda s, env: s.tables.n
    return lambda s, env: s.counters[ROUND_SLOT]


# one closure factory per binary operator without a special case (see ExpressionCompiler.binary)
_BINARY: dict[str, Callable[[ExprFn, ExprFn], ExprFn]] = {
    "and": lambda lf, rf: lambda s, env: bool(lf(s, env)) and bool(rf(s, env)),
    "or": lambda lf, rf: lambda s, env: bool(lf(s, env)) or bool(rf(s, env)),
    "==": lambda lf, rf: lambda s, env: lf(s, env) == rf(s, env),
    "!=": lambda lf, rf: lambda s, env: lf(s, env) != rf(s, env),
    "<": lambda lf, rf: lambda s, env: lf(s, env) < rf(s, env),
    "<=": lambda lf, rf: lambda s, env: lf(s, env) <= rf(s, env),
    ">": lambda lf, rf: lambda s, env: lf(s, env) > rf(s, env),
    ">=": lambda lf, rf: lambda s, env: lf(s, env) >= rf(s, env),
    "+": lambda lf, rf: lambda s, env: lf(s, env) + rf(s, env),
    "-": lambda lf, rf: lambda s, env: lf(s, env) - rf(s, env),
    "*": lambda lf, rf: lambda s, env: lf(s, env) * rf(s, env),
}


def _divide(lf: ExprFn, rf: ExprFn, op: str, span: Span) -> ExprFn:
    """``/`` and ``%`` on integers: floor division and modulo, a located error for division by zero."""

    def divide(s: GameState, env: dict[str, Any]) -> Any:
        b = rf(s, env)
        if b == 0:
            raise RuleError(f"division by zero at {span.file}:{span.line}:{span.column}")
        a = lf(s, env)
        return a // b if op == "/" else a % b

    return divide


# an aggregate's loop over its items, by aggregate name: (loop variable, `where`, element) -> body(s, env, items)
AggregateBody = Callable[[GameState, dict[str, Any], Any], Any]


def _count(var: str, wf: ExprFn, ef: ExprFn) -> AggregateBody:
    def count(s: GameState, env: dict[str, Any], items: Any) -> int:
        n = 0
        for x in items:
            env[var] = x
            if wf(s, env):
                n += 1
        return n
    return count


def _sum(var: str, wf: ExprFn, ef: ExprFn) -> AggregateBody:
    def total(s: GameState, env: dict[str, Any], items: Any) -> int:
        t = 0
        for x in items:
            env[var] = x
            if wf(s, env):
                t += ef(s, env)
        return t
    return total


def _any(var: str, wf: ExprFn, ef: ExprFn) -> AggregateBody:
    def any_(s: GameState, env: dict[str, Any], items: Any) -> bool:
        for x in items:
            env[var] = x
            if wf(s, env) and ef(s, env):
                return True
        return False
    return any_


def _all(var: str, wf: ExprFn, ef: ExprFn) -> AggregateBody:
    def all_(s: GameState, env: dict[str, Any], items: Any) -> bool:
        for x in items:
            env[var] = x
            if wf(s, env) and not ef(s, env):
                return False
        return True
    return all_


def _extreme(pick: Callable[[list[Any]], Any]) -> Callable[[str, ExprFn, ExprFn], AggregateBody]:
    """`min` or `max` over the qualifying elements (0 when none qualifies)."""

    def make(var: str, wf: ExprFn, ef: ExprFn) -> AggregateBody:
        def extreme(s: GameState, env: dict[str, Any], items: Any) -> int:
            values = []
            for x in items:
                env[var] = x
                if wf(s, env):
                    values.append(ef(s, env))
            return pick(values) if values else 0
        return extreme

    return make


_AGGREGATES: dict[str, Callable[[str, ExprFn, ExprFn], AggregateBody]] = {
    "count": _count, "sum": _sum, "any": _any, "all": _all, "min": _extreme(min), "max": _extreme(max),
}
