"""Expressions compiled to Python source, once per ruleset: one function call instead of a tree of closures.

The closure compiler turns ``p.health > 0 and not p.dead`` into five nested
closures, each a Python call at run time. For the common, simple expression
shapes this module writes one Python expression instead, e.g.
``(bool(s.counters[4 + env['p'] * 9] > 0) and bool(not s.counters[...]))``,
and compiles it once into a single function. Anything it does not know (an
aggregate, a division, a list index, a language feature added later) is
compiled by the closure compiler as before and called from the generated code,
so both paths always agree and new features need no code here.

Safety: the generated text is built only from this module's templates, integer
slot numbers computed by the compiler, and string literals written with
``repr`` (always a valid, inert Python literal). Every other value (card data
tables, closures, enum tuples) is passed in the function's namespace under a
generated name, never as text. No ruleset text is ever executed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from liturgy.dsl import ast as A

from .errors import RuleError

if TYPE_CHECKING:
    from .compiler import Compiler, ExprFn

_CMP = {"==", "!=", "<", "<=", ">", ">="}
_ARITH = {"-", "*"}


def _no_card(what: str) -> Any:
    raise RuleError(what)


class ExprGen:
    """Writes Python source for an expression; falls back to the closure compiler for the rest."""

    def __init__(self, comp: Compiler) -> None:
        self.comp = comp
        self.ns: dict[str, Any] = {"_no_card": _no_card, "_MISSING": object()}
        self.count = 0
        # sources of inlined `fn` parameters, valid only while comp.subst is this very dict
        self.subst_src: dict[str, str] = {}
        self.subst_owner: dict[str, Any] | None = None

    # ------------------------------------------------------------ entry point
    def function(self, e: A.Expr) -> ExprFn | None:
        """A compiled function for ``e``, or None when its root is not a shape this module writes."""
        if isinstance(e, A.Aggregate | A.ListComp):
            return self._loop_function(e)
        if not self._root_ok(e):
            return None
        body = self.src(e)
        name = self._name("_e")
        code = f"def {name}(s, env):\n    return {body}\n"
        exec(compile(code, f"<liturgy expr {name}>", "exec"), self.ns)  # noqa: S102 - generated, see module doc
        fn: ExprFn = self.ns.pop(name)
        return fn

    def _root_ok(self, e: A.Expr) -> bool:
        if isinstance(e, A.Binary):
            return e.op in _CMP or e.op in _ARITH or e.op in ("and", "or") or (e.op == "+" and not self._is_seq(e))
        if isinstance(e, A.Unary | A.Cond):
            return True
        if isinstance(e, A.Attr):
            return bool(e.ref) and e.ref[0] in ("pcounter", "field")
        if isinstance(e, A.Call):
            return self._call_ok(e)
        return False

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
        return f"{self.const(self.comp.expr_closure(e))}(s, env)"

    def _is_seq(self, e: A.Binary) -> bool:
        lt = e.left.ty
        return lt is not None and lt.kind in ("list", "zone")

    def _local(self, e: A.Expr) -> str | None:
        """Source for a local variable or an inlined parameter, else None."""
        if not (isinstance(e, A.Name) and isinstance(e.ref, tuple) and e.ref and e.ref[0] == "local"):
            return None
        n = e.id
        if n in self.comp.subst:
            if self.comp.subst is self.subst_owner and n in self.subst_src:
                return self.subst_src[n]
            return f"{self.const(self.comp.subst[n])}(s, env)"
        return f"env[{n!r}]"

    def _zone(self, e: A.Expr) -> str | None:
        """Source for the zone index an expression of type zone denotes, when simple."""
        ref = e.ref
        lay = self.comp.layout
        if isinstance(ref, tuple) and ref and ref[0] == "zone":
            return str(lay.zone_global[ref[1].name])
        if isinstance(ref, tuple) and ref and ref[0] == "pzone" and isinstance(e, A.Attr):
            base = lay.zone_player_base + lay.zone_player_offsets[ref[1].name]
            return self._strided(e.obj, base, lay.zone_player_stride, "no player")
        return None

    def _strided(self, owner: A.Expr, base: int, stride: int, missing: str) -> str:
        local = self._local(owner)
        if local is not None and local.startswith("env["):
            return f"({base} + {local} * {stride})"
        t = self._name("_t")
        return f"({base} + (({t}) if ({t} := {self.src(owner)}) is not None else _no_card({missing!r})) * {stride})"

    # ------------------------------------------------------------ expressions
    def src(self, e: A.Expr) -> str:  # noqa: C901 - one dispatch on expression kind
        if isinstance(e, A.BoolLit | A.IntLit):
            return repr(e.value)
        if isinstance(e, A.StrLit):
            return repr(e.value)
        if isinstance(e, A.NoneLit):
            return "None"
        ref = e.ref
        kind = ref[0] if isinstance(ref, tuple) and ref else None
        lay = self.comp.layout
        if isinstance(e, A.Name):
            local = self._local(e)
            if local is not None:
                return local
            if kind == "self":
                return "env['self']"
            if kind == "first":
                return "s.counters[0]"
            if kind == "counter":
                return f"s.counters[{lay.global_slots[ref[1].name]}]"
            if kind == "zone":
                return str(lay.zone_global[ref[1].name])
            if kind == "builtin" and ref[1] == "players":
                return "s.tables.players"
            if kind == "builtin" and ref[1] == "player_count":
                return "s.tables.n"
            return self.closure(e)
        if isinstance(e, A.Attr):
            if kind == "pcounter":
                base = lay.player_base + lay.player_offsets[ref[1].name]
                return f"s.counters[{self._strided(e.obj, base, lay.player_stride, 'no player')}]"
            if kind == "ccounter":
                base = lay.card_base + lay.card_offsets[ref[1].name]
                return f"s.counters[{self._strided(e.obj, base, lay.card_stride, 'no card')}]"
            if kind == "pzone":
                z = self._zone(e)
                if z is not None:
                    return z
            if kind == "field":
                values = self.const(self.comp.field_list(e.name))
                t = self._name("_t")
                missing = f"`.{e.name}` of no card"
                return (f"({values}[{t}] if ({t} := {self.src(e.obj)}) is not None "
                        f"else _no_card({missing!r}))")
            return self.closure(e)
        if isinstance(e, A.Unary):
            inner = self.src(e.operand)
            return f"(not {inner})" if e.op == "not" else f"(-{inner})"
        if isinstance(e, A.Cond):
            return f"({self.src(e.then)} if {self.src(e.test)} else {self.src(e.orelse)})"
        if isinstance(e, A.Binary):
            return self._binary(e)
        if isinstance(e, A.Call) and self._call_ok(e):
            return self._call(e)
        if isinstance(e, A.Aggregate | A.ListComp):
            return f"{self.const(self._loop_function(e))}(s, env)"
        return self.closure(e)

    # ------------------------------------------------------------ aggregates and list comprehensions
    def _seq(self, e: A.Expr) -> str:
        """Source for a sequence to iterate: a zone's live card list, or the value itself."""
        if e.ty is not None and e.ty.kind == "zone":
            z = self._zone(e)
            return f"s.zones[{z if z is not None else self.src(e)}]"
        return self.src(e)

    def _loop_function(self, e: A.Aggregate | A.ListComp) -> ExprFn:
        """One function per aggregate: the loop, its filter and its element inline.

        The loop variable lives in ``env`` (closures called from the loop read it
        there) and is restored afterwards, exactly as the closure compiler does.
        """
        comp = self.comp
        items = self._seq(e.iterable)
        saved = comp.subst, self.subst_src, self.subst_owner
        var = e.var
        if var in comp.subst:
            comp.subst = {k: v for k, v in comp.subst.items() if k != var}
            self.subst_src = {k: v for k, v in self.subst_src.items() if k != var}
            self.subst_owner = comp.subst if saved[2] is saved[0] else None
        try:
            where = self.src(e.where) if e.where is not None else "True"
            elem = self.src(e.elem)
        finally:
            comp.subst, self.subst_src, self.subst_owner = saved
        v = repr(var)
        name = self._name("_a")
        if isinstance(e, A.ListComp):
            lines = [f"_old = env.get({v}, _MISSING)", "_out = []", f"for _x in tuple({items}):",
                     f"    env[{v}] = _x", f"    if {where}:", f"        _out.append({elem})",
                     "if _old is _MISSING:", f"    env.pop({v}, None)", "else:", f"    env[{v}] = _old",
                     "return tuple(_out)"]
        else:
            func = e.func
            body = {
                "count": ["_r = 0", "    if {w}:", "        _r += 1"],
                "sum": ["_r = 0", "    if {w}:", "        _r += {x}"],
                "any": ["_r = False", "    if {w} and {x}:", "        _r = True", "        break"],
                "all": ["_r = True", "    if {w} and not {x}:", "        _r = False", "        break"],
                "min": ["_r = []", "    if {w}:", "        _r.append({x})"],
                "max": ["_r = []", "    if {w}:", "        _r.append({x})"],
            }.get(func)
            if body is None:  # an aggregate this module does not know: the closure compiler's
                return comp.expr_closure(e)
            init, *loop = (line.format(w=where, x=elem) for line in body)
            lines = [f"_had = {v} in env", f"_old = env.get({v})", init, f"for _x in {items}:",
                     f"    env[{v}] = _x", *loop, "if _had:", f"    env[{v}] = _old", "else:",
                     f"    env.pop({v}, None)"]
            if func in ("min", "max"):
                lines.append(f"return {func}(_r) if _r else 0")
            else:
                lines.append("return _r")
        code = f"def {name}(s, env):\n" + "".join(f"    {line}\n" for line in lines)
        exec(compile(code, f"<liturgy {name}>", "exec"), self.ns)  # noqa: S102 - generated, see module doc
        fn: ExprFn = self.ns.pop(name)
        return fn

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
            return f"(bool({self.src(e.left)}) {op} bool({self.src(e.right)}))"
        if op in _CMP or op in _ARITH or (op == "+" and not self._is_seq(e)):
            return f"({self.src(e.left)} {op} {self.src(e.right)})"
        return self.closure(e)

    def _call_ok(self, e: A.Call) -> bool:
        ref = e.ref
        if not (isinstance(ref, tuple) and ref):
            return False
        if ref[0] == "call_builtin":
            if ref[1] == "size":
                t = e.args[0].ty
                return t is not None and (t.kind != "zone" or self._zone(e.args[0]) is not None)
            return ref[1] in ("top", "bottom") and len(e.args) == 1 and self._zone(e.args[0]) is not None
        if ref[0] == "call_fn":
            from .compiler import _has_effects

            return self.comp.inline_depth < 6 and not any(_has_effects(a) for a in e.args)
        return False

    def _call(self, e: A.Call) -> str:
        ref = e.ref
        if ref[0] == "call_builtin":
            arg = e.args[0]
            if ref[1] == "size":
                z = self._zone(arg) if arg.ty is not None and arg.ty.kind == "zone" else None
                return f"len(s.zones[{z}])" if z is not None else f"len({self.src(arg)})"
            z = self._zone(arg)
            t = self._name("_t")
            pick = "-1" if ref[1] == "top" else "0"
            return f"({t}[{pick}] if ({t} := s.zones[{z}]) else None)"
        # an inlined `fn`: its body with the parameters replaced by the arguments' sources
        comp = self.comp
        fn: A.FnDecl = ref[1]
        arg_src = [f"({self.src(a)})" for a in e.args]
        arg_fns = [comp.expr(a) for a in e.args]
        saved = comp.subst, self.subst_src, self.subst_owner
        comp.subst = {p.name: f for p, f in zip(fn.params, arg_fns, strict=True)}
        self.subst_src = {p.name: s for p, s in zip(fn.params, arg_src, strict=True)}
        self.subst_owner = comp.subst
        comp.inline_depth += 1
        try:
            return self.src(fn.body)
        finally:
            comp.subst, self.subst_src, self.subst_owner = saved
            comp.inline_depth -= 1
