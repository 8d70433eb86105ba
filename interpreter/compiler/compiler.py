"""Compile a checked program into closures and step-machine code, once.

Two shapes of compiled code exist:

* **Pure** code (no decision can happen inside it) becomes nested Python
  closures ``f(state, env)`` that run straight through.
* **Suspending** code (it may ask a player for a decision) becomes a list of
  instructions for the step machine in :mod:`.engine`, whose program counter
  and locals are plain data in the state, so a game can stop at a decision,
  be cloned or saved, and continue exactly.

The checker already resolved every name (``expr.ref``) and type (``expr.ty``),
so compiling is a single walk with no lookups left for run time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from liturgy.dsl.checker.checker import Program
from liturgy.dsl.checker.types import Ty
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen.choicegen import ChoiceGen
from liturgy.interpreter.codegen.exprgen import ExprGen
from liturgy.interpreter.codegen.stmtgen import StmtGen
from liturgy.interpreter.runtime import rng
from liturgy.interpreter.runtime.errors import BreakLoop, GameOver, RuleError, SkipTo
from liturgy.interpreter.runtime.moves import card_visibility as card_visibility  # re-exported: engine, tests
from liturgy.interpreter.runtime.moves import move_card as move_card
from liturgy.interpreter.runtime.state import GameState

ExprFn = Callable[[GameState, dict[str, Any]], Any]
StmtFn = Callable[[GameState, dict[str, Any]], None]
Ins = Callable[[GameState, list[Any]], bool]

FIRST_SLOT = 0
ROUND_SLOT = 1
MAX_FIRE_DEPTH = 200
MAX_REROLLS = rng.MAX_REROLLS


class Code:
    """A block of step-machine instructions (a proc, handler, card effect or the main flow)."""

    __slots__ = ("id", "name", "ins", "fast")

    def __init__(self, cid: int, name: str) -> None:
        self.id = cid
        self.name = name
        self.ins: list[Ins] = []
        # what the engine runs while far from the step limit: ``ins`` with fused instructions (see .fuse)
        self.fast: list[Ins] = self.ins


@dataclass
class Callable_:
    """A compiled proc, handler or effect: pure closure or step-machine code."""

    params: tuple[str, ...]
    pure: StmtFn | None
    code: Code | None
    name: str
    # the generated pure body taking its parameters by position (generated callers use it: no dict per call)
    fast: Any = None


@dataclass
class LogFormat:
    text: str
    formatters: tuple[Callable[[Any, Any], str], ...]
    card_args: tuple[int, ...]  # positions holding cards or lists of cards


@dataclass
class Layout:
    max_players: int
    global_slots: dict[str, int] = field(default_factory=dict)
    player_offsets: dict[str, int] = field(default_factory=dict)
    player_stride: int = 0
    card_offsets: dict[str, int] = field(default_factory=dict)
    card_stride: int = 0
    player_base: int = 0
    card_base: int = 0
    zone_global: dict[str, int] = field(default_factory=dict)
    zone_player_offsets: dict[str, int] = field(default_factory=dict)
    zone_player_stride: int = 0
    zone_player_base: int = 0
    enum_index: dict[str, dict[str, int]] = field(default_factory=dict)


def _fmt_player(s: Any, v: Any) -> str:
    return "nobody" if v is None else f"P{v + 1}"


def _fmt_card(s: Any, v: Any) -> str:
    return "no card" if v is None else s.tables.card_names[v]


def _fmt_plain(s: Any, v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def formatter_for(t: Ty | None) -> Callable[[Any, Any], str]:
    if t is None:
        return _fmt_plain
    if t.kind == "player":
        return _fmt_player
    if t.kind == "card":
        return _fmt_card
    if t.kind == "bool":
        return lambda s, v: "yes" if v else "no"
    if t.kind in ("list", "zone", "set"):
        inner = formatter_for(t.elem if t.kind == "list" else (Ty("card") if t.kind == "zone" else None))
        if t.kind == "zone":
            return lambda s, v: ", ".join(inner(s, c) for c in s.zones[v]) or "nothing"
        return lambda s, v: ", ".join(inner(s, x) for x in v) or "nothing"
    return _fmt_plain


class Compiler:
    def __init__(self, prog: Program, codegen: bool = True, stmtgen: bool = True, inline_fns: bool = True,
                 fuse: bool = True) -> None:
        self.prog = prog
        # fused step-machine instructions (needs generated statements); fuse_span: the most original
        # instructions one fused call runs (0: none), which the engine keeps away from the step limit
        self.fuse = fuse
        self.fuse_span = 0
        # what each step-machine instruction does, for the fuser: id(fn) -> (fn, kind, *data)
        self.ins_info: dict[int, tuple[Any, ...]] = {}
        # calls to `fn`s nest inline up to this depth; the rule profiler sets 0 so every call is counted
        self.inline_limit = 6 if inline_fns else 0
        # generated code may call a proc's, handler's or card function's body directly, by position; off with
        # inline_fns=False, so every call goes through the objects the rule profiler wraps
        self.direct_calls = inline_fns
        self.gen = ExprGen(self) if codegen else None
        # whole blocks of pure statements as generated functions (needs generated expressions)
        self.sgen = StmtGen(self, self.gen) if self.gen is not None and stmtgen else None
        self.cgen = ChoiceGen(self.gen) if self.gen is not None and self.sgen is not None else None
        self.codes: list[Code] = []
        self.layout = self._layout()
        self.log_formats: list[LogFormat] = []
        self.fns: dict[str, tuple[tuple[str, ...], ExprFn]] = {}
        self.procs: dict[str, Callable_] = {}
        self.handlers: dict[str, list[Callable_]] = {}
        # per field name: list indexed by CardDef index
        self.effects: dict[str, list[Callable_ | None]] = {}
        self.functions: dict[str, list[ExprFn]] = {}
        self.step_pcs: dict[str, int] = {}
        self.step_names_by_pc: list[tuple[int, str]] = []
        self.step_titles: dict[str, str] = {}
        self.choice_nones: dict[int, int] = {}
        self._uid = 0
        self.main: Code | None = None
        self.finish: StmtFn | None = None
        self.score: ExprFn | None = None
        self.tiebreaks: list[ExprFn] = []
        self.winner: ExprFn | None = None  # `winner(p)`: who wins, instead of the best score
        self.invariants: list[tuple[str, ExprFn, frozenset[str]]] = []
        self.choice_formats: list[Callable[[Any, Any], str]] = []
        # per choice (indexed like choice_formats): the label of the `optional` option
        self.choice_pass_labels: list[str] = []
        # per choice: its `prompt` (compiled by display.py), the type of its options (for `describe`), and the
        # player name a `simultaneously` binds (its prompt may use it)
        self.choice_prompts: list[A.Prompt | None] = []
        self.choice_elems: list[Ty | None] = []
        self.choice_pvars: list[str | None] = []
        # Card data shared by every game: filled in by the Ruleset for the
        # largest player count (card ids of smaller games are a prefix).
        self.field_lists: dict[str, list[Any]] = {}
        self.card_def: list[int] = []
        # Inlining of `fn` calls: parameter name -> argument closure.
        self.subst: dict[str, ExprFn] = {}
        self.inline_depth = 0
        self._binder_cache: dict[str, frozenset[str]] = {}
        # for each inlined parameter in ``subst``: the caller's variables its argument reads (None: unknown)
        self.subst_names: dict[str, frozenset[str] | None] = {}

    # ------------------------------------------------------------ layout
    def _layout(self) -> Layout:
        prog = self.prog
        lay = Layout(max_players=prog.game.max_players)
        for name, vals in prog.enums.items():
            lay.enum_index[name] = {v: i for i, v in enumerate(vals)}
        counters = prog.counters.items()
        globals_, width = _pack((n, self._width(c)) for n, c in counters if c.scope == "global")
        lay.global_slots = {name: 2 + off for name, off in globals_.items()}  # after FIRST_SLOT, ROUND_SLOT
        lay.player_base = 2 + width
        lay.player_offsets, lay.player_stride = _pack((n, self._width(c)) for n, c in counters if c.scope == "player")
        lay.card_base = lay.player_base + lay.player_stride * lay.max_players
        lay.card_offsets, lay.card_stride = _pack((n, self._width(c)) for n, c in counters if c.scope == "card")
        lay.zone_global, lay.zone_player_base = _pack((n, 1) for n, z in prog.zones.items() if not z.per_player)
        lay.zone_player_offsets, lay.zone_player_stride = _pack((n, 1) for n, z in prog.zones.items() if z.per_player)
        return lay

    def _width(self, c: A.CounterDecl) -> int:
        return len(self.prog.enums[c.index_enum]) if c.index_enum else 1

    def new_code(self, name: str) -> Code:
        code = Code(len(self.codes), name)
        self.codes.append(code)
        return code

    def uid(self) -> str:
        self._uid += 1
        return f"#{self._uid}"

    # ------------------------------------------------------------ top level
    def compile(self) -> Compiler:
        prog = self.prog
        for name, fn in prog.fns.items():
            self.fns[name] = (tuple(p.name for p in fn.params), lambda s, e: None)
        # procs and handlers first get shells so recursive calls resolve
        for name, proc in prog.procs.items():
            susp = f"proc:{name}" in prog.suspending
            self.procs[name] = Callable_(tuple(p.name for p in proc.params), None,
                                         self.new_code(f"proc {name}") if susp else None, f"proc {name}")
        for wname, hs in prog.handlers.items():
            susp = f"window:{wname}" in prog.suspending
            self.handlers[wname] = [
                Callable_(tuple(p.name for p in h.params), None,
                          self.new_code(f"on {wname}") if susp else None, f"on {wname}")
                for h in hs
            ]
        for kind in prog.kinds.values():
            for f in kind.fields:
                ft = prog.field_types[kind.name][f.name]
                if ft.kind == "effect":
                    self.effects.setdefault(f.name, [None] * len(prog.cards))
                elif ft.kind == "function":
                    self.functions.setdefault(f.name, [lambda s, e: None] * len(prog.cards))
        # bodies
        for name, fn in prog.fns.items():
            self.fns[name] = (self.fns[name][0], self.expr(fn.body))
        for name, proc in prog.procs.items():
            self._fill(self.procs[name], proc.body)
        for wname, hs in prog.handlers.items():
            for target, h in zip(self.handlers[wname], hs, strict=True):
                self._fill(target, h.body)
        self._compile_cards()
        self._compile_main()
        self.finish = self.block(prog.finish)
        if prog.score is not None:
            self.score = self._player_expr(prog.score)
        self.tiebreaks = [self._player_expr(t) for t in prog.tiebreaks]
        if prog.winner is not None:
            self.winner = self._player_expr(prog.winner)
        self.invariants = [(inv.text, self.expr(inv.expr), frozenset(n for n, _ in inv.outside))
                           for inv in prog.invariants]
        if self.fuse and self.sgen is not None:
            from liturgy.interpreter.codegen.fuse import fuse_codes

            self.fuse_span = fuse_codes(self)
        return self

    def note(self, fn: Ins, kind: str, *data: Any) -> Ins:
        """Record what instruction ``fn`` does (``kind`` and its targets), so the fuser can inline it."""
        self.ins_info[id(fn)] = (fn, kind, *data)
        return fn

    def goto(self, target: int) -> Ins:
        return self.note(_goto(target), "goto", target)

    def _player_expr(self, sc: A.ScoreDecl | A.WinnerDecl) -> ExprFn:
        body = self.expr(sc.expr)
        var = sc.var

        def score(s: GameState, env: dict[str, Any]) -> Any:
            return body(s, {var: env["player"]})

        return score

    def _fill(self, target: Callable_, body: list[A.Stmt]) -> None:
        if target.code is not None:
            self.emit(body, target.code, [])
            target.code.ins.append(_ret)
        elif (self.sgen is not None and self.direct_calls
              and (both := self.sgen.block_positional(body, target.params)) is not None):
            target.pure, target.fast = both
        else:
            target.pure = self.block(body)

    def _compile_cards(self) -> None:
        prog = self.prog
        for i, card in enumerate(prog.cards):
            kind = prog.kinds[card.kind]
            for f in kind.fields:
                ft = prog.field_types[card.kind][f.name]
                if ft.kind == "effect":
                    body = card.values.get(f.name)
                    if body is None:
                        continue
                    owner = f"field:{card.kind}.{f.name}"
                    params = tuple(p.name for p in f.type.params)
                    name = f"{f.name} of {card.name}"
                    if owner in prog.suspending and _suspends_block(body, prog):
                        code = self.new_code(name)
                        self.emit(body, code, [])
                        code.ins.append(_ret)
                        self.effects[f.name][i] = Callable_(params, None, code, name)
                    else:
                        both = (self.sgen.block_positional(body, (*params, "self"))
                                if self.sgen is not None and self.direct_calls else None)
                        if both is not None:  # also by position, `self` last
                            self.effects[f.name][i] = Callable_(params, both[0], None, name, both[1])
                        else:
                            self.effects[f.name][i] = Callable_(params, self.block(body), None, name)
                elif ft.kind == "function":
                    expr = card.values.get(f.name, f.default)
                    self.functions[f.name][i] = self.expr(expr) if expr is not None else (lambda s, e: None)

    def _compile_main(self) -> None:
        prog = self.prog
        main = self.new_code("main")
        self.main = main
        self.emit(prog.setup, main, [])
        round_start = len(main.ins)

        def start_round(s: GameState, fr: list[Any]) -> bool:
            c = s.counters
            c[ROUND_SLOT] += 1
            for slot, initial in s.tables.reset_slots:
                c[slot] = initial
            fr[1] += 1
            return False

        main.ins.append(self.note(start_round, "run"))
        for st in prog.steps:
            self.step_pcs[st.name] = len(main.ins)
            self.step_names_by_pc.append((len(main.ins), st.name))
            self.step_titles[st.name] = st.title
            self.emit(st.body, main, [])

        def loop(s: GameState, fr: list[Any]) -> bool:
            fr[1] = round_start
            return False

        main.ins.append(self.note(loop, "goto", round_start))

    # ------------------------------------------------------------ helpers
    def zone_index(self, e: A.Expr) -> ExprFn:
        """Closure giving the zone index an expression of type zone denotes."""
        ref = e.ref
        lay = self.layout
        if isinstance(ref, tuple) and ref[0] == "zone":
            zi = lay.zone_global[ref[1].name]
            return lambda s, env: zi
        if isinstance(ref, tuple) and ref[0] == "pzone" and isinstance(e, A.Attr):
            base = lay.zone_player_base + lay.zone_player_offsets[ref[1].name]
            return self._strided(e.obj, base, lay.zone_player_stride, "no player")
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
        ref = e.ref
        lay = self.layout
        if ref == ("first",):
            return lambda s, env: FIRST_SLOT
        kind = ref[0]
        if kind == "counter":
            slot = lay.global_slots[ref[1].name]
            return lambda s, env: slot
        if kind == "pcounter" and isinstance(e, A.Attr):
            base = lay.player_base + lay.player_offsets[ref[1].name]
            return self._strided(e.obj, base, lay.player_stride, "no player")
        if kind == "ccounter" and isinstance(e, A.Attr):
            base = lay.card_base + lay.card_offsets[ref[1].name]
            return self._strided(e.obj, base, lay.card_stride, "no card")
        if kind == "icounter" and isinstance(e, A.Index):
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
        ref = e.ref
        if ref == ("first",):
            return A.CounterDecl(e.span, "first", "global", False, None, None, None, None, False)
        if ref[0] == "icounter" and isinstance(e, A.Index):
            return self._counter_decl(e.obj)
        return ref[1]  # type: ignore[no-any-return]

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

    def expr_closure(self, e: A.Expr) -> ExprFn:  # noqa: C901 - one dispatch on expression kind
        lay = self.layout
        if isinstance(e, A.IntLit | A.StrLit | A.BoolLit):
            v = e.value
            return lambda s, env: v
        if isinstance(e, A.NoneLit):
            return lambda s, env: None
        ref = e.ref
        if isinstance(e, A.Name):
            kind = ref[0] if isinstance(ref, tuple) else None
            if kind == "local":
                n = e.id
                if n in self.subst:
                    return self.subst[n]
                return lambda s, env: env[n]
            if kind == "self":
                return lambda s, env: env["self"]
            if kind == "first":
                return lambda s, env: s.counters[FIRST_SLOT]
            if kind == "builtin":
                which = ref[1]
                if which == "players":
                    return lambda s, env: s.tables.players
                if which == "player_count":
                    return lambda s, env: s.tables.n
                return lambda s, env: s.counters[ROUND_SLOT]
            if kind == "zone":
                zi = lay.zone_global[ref[1].name]
                return lambda s, env: zi
            if kind == "counter":
                slot = lay.global_slots[ref[1].name]
                return lambda s, env: s.counters[slot]
            if kind == "enumval":
                v2 = ref[1]
                return lambda s, env: v2
            if kind == "enumtype":
                vals = tuple(self.prog.enums[ref[1]])
                return lambda s, env: vals
            if kind == "die":
                d = ref[1]
                return lambda s, env: d
            raise AssertionError(f"unresolved name {e.id}")  # pragma: no cover
        if isinstance(e, A.Attr):
            kind = ref[0]
            if kind == "pzone":
                return self.zone_index(e)
            if kind in ("pcounter", "ccounter"):
                var = self._plain_local(e.obj)
                if var is not None and kind == "pcounter":
                    base = lay.player_base + lay.player_offsets[ref[1].name]
                    stride = lay.player_stride
                    pvar: str = var
                    return lambda s, env: s.counters[base + env[pvar] * stride]
                sf = self.counter_slot(e)
                return lambda s, env: s.counters[sf(s, env)]
            if kind == "field":
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
            raise AssertionError(f"unresolved attribute {e.name}")  # pragma: no cover
        if isinstance(e, A.Index):
            if ref == ("icounter",):
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
        if isinstance(e, A.Call):
            return self.call(e)
        if isinstance(e, A.Aggregate):
            return self.aggregate(e)
        if isinstance(e, A.ListLit):
            items = [self.expr(x) for x in e.items]
            return lambda s, env: tuple(f(s, env) for f in items)
        if isinstance(e, A.ListComp):
            return self.list_comp(e)
        if isinstance(e, A.Unary):
            of = self.expr(e.operand)
            if e.op == "not":
                return lambda s, env: not of(s, env)
            return lambda s, env: -of(s, env)
        if isinstance(e, A.Binary):
            return self.binary(e)
        if isinstance(e, A.Cond):
            tf, af, bf = self.expr(e.test), self.expr(e.then), self.expr(e.orelse)
            return lambda s, env: af(s, env) if tf(s, env) else bf(s, env)
        raise AssertionError(f"cannot compile {type(e).__name__}")  # pragma: no cover

    def binary(self, e: A.Binary) -> ExprFn:  # noqa: C901
        op = e.op
        lf = self.expr(e.left)
        if op in ("in", "not in"):
            rf = self.seq(e.right)
            if op == "in":
                return lambda s, env: lf(s, env) in rf(s, env)
            return lambda s, env: lf(s, env) not in rf(s, env)
        rf = self.expr(e.right)
        if op == "and":
            return lambda s, env: bool(lf(s, env)) and bool(rf(s, env))
        if op == "or":
            return lambda s, env: bool(lf(s, env)) or bool(rf(s, env))
        if op == "==":
            return lambda s, env: lf(s, env) == rf(s, env)
        if op == "!=":
            return lambda s, env: lf(s, env) != rf(s, env)
        if op == "<":
            return lambda s, env: lf(s, env) < rf(s, env)
        if op == "<=":
            return lambda s, env: lf(s, env) <= rf(s, env)
        if op == ">":
            return lambda s, env: lf(s, env) > rf(s, env)
        if op == ">=":
            return lambda s, env: lf(s, env) >= rf(s, env)
        if op == "+":
            lt = e.left.ty
            if lt is not None and lt.kind in ("list", "zone"):
                ls, rs = self.seq(e.left), self.seq(e.right)
                return lambda s, env: tuple(ls(s, env)) + tuple(rs(s, env))
            return lambda s, env: lf(s, env) + rf(s, env)
        if op == "-":
            return lambda s, env: lf(s, env) - rf(s, env)
        if op == "*":
            return lambda s, env: lf(s, env) * rf(s, env)
        if op in ("/", "%"):
            span = e.span

            def divide(s: GameState, env: dict[str, Any]) -> Any:
                b = rf(s, env)
                if b == 0:
                    raise RuleError(f"division by zero at {span.file}:{span.line}:{span.column}")
                a = lf(s, env)
                return a // b if op == "/" else a % b

            return divide
        raise AssertionError(op)  # pragma: no cover

    def _shadow(self, var: str) -> dict[str, ExprFn]:
        """Hide an inlined parameter behind a comprehension variable; return the map to restore."""
        saved = self.subst
        if var in saved:
            self.subst = {k: v for k, v in saved.items() if k != var}
        return saved

    def aggregate(self, e: A.Aggregate) -> ExprFn:  # noqa: C901 - one specialised closure per aggregate
        """Compile ``count/sum/any/all/min/max(… for x in … where …)``.

        Each aggregate gets its own closure (no run-time dispatch on the name);
        the loop variable is restored afterwards so it never leaks into the
        enclosing scope.
        """
        it = self.seq(e.iterable)
        shadow = self._shadow(e.var)
        wf = self.expr(e.where) if e.where is not None else None
        ef = self.expr(e.elem)
        self.subst = shadow
        var = e.var
        func = e.func
        if wf is None:
            def keep(s: GameState, env: dict[str, Any]) -> bool:
                return True
            wf2: ExprFn = keep
        else:
            wf2 = wf

        def scoped(body: Callable[[GameState, dict[str, Any], Any], Any]) -> ExprFn:
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

        if func == "count":
            def count(s: GameState, env: dict[str, Any], items: Any) -> int:
                n = 0
                for x in items:
                    env[var] = x
                    if wf2(s, env):
                        n += 1
                return n
            return scoped(count)
        if func == "sum":
            def total(s: GameState, env: dict[str, Any], items: Any) -> int:
                t = 0
                for x in items:
                    env[var] = x
                    if wf2(s, env):
                        t += ef(s, env)
                return t
            return scoped(total)
        if func == "any":
            def any_(s: GameState, env: dict[str, Any], items: Any) -> bool:
                for x in items:
                    env[var] = x
                    if wf2(s, env) and ef(s, env):
                        return True
                return False
            return scoped(any_)
        if func == "all":
            def all_(s: GameState, env: dict[str, Any], items: Any) -> bool:
                for x in items:
                    env[var] = x
                    if wf2(s, env) and not ef(s, env):
                        return False
                return True
            return scoped(all_)
        pick = min if func == "min" else max

        def extreme(s: GameState, env: dict[str, Any], items: Any) -> int:
            values = []
            for x in items:
                env[var] = x
                if wf2(s, env):
                    values.append(ef(s, env))
            return pick(values) if values else 0
        return scoped(extreme)

    def list_comp(self, e: A.ListComp) -> ExprFn:
        it = self.seq(e.iterable)
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

    def call(self, e: A.Call) -> ExprFn:  # noqa: C901
        ref = e.ref
        kind = ref[0]
        args = [self.expr(a) for a in e.args]
        if kind == "call_fn":
            params, _ = self.fns[ref[1].name]
            name = ref[1].name
            fns = self.fns
            if self.can_inline(ref[1], e.args):
                return self.inline_fn(ref[1], args, e.args)

            def call_fn(s: GameState, env: dict[str, Any]) -> Any:
                body = fns[name][1]
                return body(s, {p: a(s, env) for p, a in zip(params, args, strict=True)})

            return call_fn
        if kind == "call_field":
            assert isinstance(e.func, A.Attr)
            of = self.expr(e.func.obj)
            fname = e.func.name
            field_params = self._field_params(fname)
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
                    return table[d](s, env2)

                return call_mixed_field
            params = field_params

            def call_function_field(s: GameState, env: dict[str, Any]) -> Any:
                c = of(s, env)
                if c is None:
                    raise RuleError(f"`{fname}` of no card")
                env2 = {p: a(s, env) for p, a in zip(params, args, strict=True)}
                env2["self"] = c
                return table[card_def[c]](s, env2)

            return call_function_field
        if kind == "call_builtin":
            return self.builtin(ref[1], e, args)
        raise AssertionError(f"cannot call {kind}")  # pragma: no cover

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
        bound = self._binders(fn.name)
        if not bound:
            return True
        names = self.names_read(args)
        return names is not None and not (names & bound)

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

    def _binders(self, fn_name: str) -> frozenset[str]:
        """Names bound by comprehensions and aggregates in a `fn`'s body and in every `fn` it calls."""
        found = self._binder_cache.get(fn_name)
        if found is not None:
            return found
        self._binder_cache[fn_name] = frozenset()  # a recursive fn sees its own names through the callers
        out: set[str] = set()
        stack: list[Any] = [self.prog.fns[fn_name].body]
        while stack:
            n = stack.pop()
            if isinstance(n, (A.Aggregate, A.ListComp)):
                out.add(n.var)
            if isinstance(n, A.Call) and n.ref and n.ref[0] == "call_fn":
                out |= self._binders(n.ref[1].name)
            stack.extend(_children(n))
        result = self._binder_cache[fn_name] = frozenset(out)
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

    def builtin(self, name: str, e: A.Call, args: list[ExprFn]) -> ExprFn:  # noqa: C901
        if name == "size":
            sf = self.seq(e.args[0])
            return lambda s, env: len(sf(s, env))
        if name in ("top", "bottom"):
            zf = self.zone_index(e.args[0])
            if len(args) == 1:
                if name == "top":
                    return lambda s, env: (z[-1] if (z := s.zones[zf(s, env)]) else None)
                return lambda s, env: (z[0] if (z := s.zones[zf(s, env)]) else None)
            nf = args[1]
            if name == "top":
                return lambda s, env: tuple(reversed(s.zones[zf(s, env)][-nf(s, env):])) if nf(s, env) > 0 else ()
            return lambda s, env: tuple(s.zones[zf(s, env)][: max(0, nf(s, env))])
        if name == "random":
            sf = self.seq(e.args[0])

            def pick(s: GameState, env: dict[str, Any]) -> Any:
                items = sf(s, env)
                if not items:
                    raise RuleError("random() of an empty list")
                s.rng, i = rng.below(s.rng, len(items))
                return items[i]

            return pick
        if name == "roll":
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
        if name == "value":
            sf = self.counter_slot(e.args[0])
            values = self._counter_decl(e.args[0]).track_values or [0]
            return lambda s, env: values[s.counters[sf(s, env)]]
        if name == "min":
            return lambda s, env: min(a(s, env) for a in args)
        if name == "max":
            return lambda s, env: max(a(s, env) for a in args)
        if name == "abs":
            return lambda s, env: abs(args[0](s, env))
        if name == "players_from":
            pf = args[0]
            return lambda s, env: s.tables.turn_orders[pf(s, env)]
        if name == "next_player":
            pf = args[0]
            return lambda s, env: s.tables.turn_orders[pf(s, env)][1 % s.tables.n]
        if name == "owner":
            cf = args[0]

            def owner(s: GameState, env: dict[str, Any]) -> Any:
                o = s.tables.zone_owner[s.card_zone[cf(s, env)]]
                return None if o < 0 else o

            return owner
        raise AssertionError(name)  # pragma: no cover

    # ------------------------------------------------------------ pure statements
    def block(self, stmts: Sequence[A.Stmt]) -> StmtFn:
        """One function running pure ``stmts``: generated source where :mod:`.stmtgen` is on, else closures."""
        fn = self.sgen.block(stmts) if self.sgen is not None else None
        return fn if fn is not None else self.block_closure(stmts)

    def block_closure(self, stmts: Sequence[A.Stmt]) -> StmtFn:
        fns = [self.stmt(s) for s in stmts]
        if not fns:
            return lambda s, env: None
        if len(fns) == 1:
            return fns[0]
        if len(fns) == 2:
            f0, f1 = fns

            def two(s: GameState, env: dict[str, Any]) -> None:
                f0(s, env)
                f1(s, env)

            return two
        t = tuple(fns)

        def many(s: GameState, env: dict[str, Any]) -> None:
            for f in t:
                f(s, env)

        return many

    def stmt(self, st: A.Stmt) -> StmtFn:  # noqa: C901 - one dispatch on statement kind
        if isinstance(st, A.Let):
            vf = self.expr(st.value)
            n = st.name

            def let(s: GameState, env: dict[str, Any]) -> None:
                env[n] = vf(s, env)

            return let
        if isinstance(st, A.Assign):
            return self.assign(st)
        if isinstance(st, A.Move):
            return self.move(st)
        if isinstance(st, A.Shuffle):
            zf = self.zone_index(st.zone)

            def shuffle(s: GameState, env: dict[str, Any]) -> None:
                s.rng = rng.shuffle(s.zones[zf(s, env)], s.rng)

            return shuffle
        if isinstance(st, A.Reveal):
            tf = self.expr(st.target)
            is_zone = st.target.ty is not None and st.target.ty.kind == "zone"
            rzf: ExprFn | None = self.zone_index(st.target) if is_zone else None

            def reveal(s: GameState, env: dict[str, Any]) -> None:
                if rzf is not None:
                    s.face_up.update(s.zones[rzf(s, env)])
                else:
                    c = tf(s, env)
                    if c is not None:
                        s.face_up.add(c)

            return reveal
        if isinstance(st, A.Transfer):
            return self.transfer(st)
        if isinstance(st, A.If):
            branches = [(self.expr(c), self.block_closure(b)) for c, b in st.branches]
            orelse = self.block_closure(st.orelse) if st.orelse else None
            if len(branches) == 1:
                (cf, bf), = branches

                def if1(s: GameState, env: dict[str, Any]) -> None:
                    if cf(s, env):
                        bf(s, env)
                    elif orelse is not None:
                        orelse(s, env)

                return if1

            def ifn(s: GameState, env: dict[str, Any]) -> None:
                for cf, bf in branches:
                    if cf(s, env):
                        bf(s, env)
                        return
                if orelse is not None:
                    orelse(s, env)

            return ifn
        if isinstance(st, A.For):
            it = self.seq(st.iterable)
            body = self.block_closure(st.body)
            var = st.var
            has_break = _has_break(st.body)

            def for_(s: GameState, env: dict[str, Any]) -> None:
                items = tuple(it(s, env))
                if has_break:
                    try:
                        for x in items:
                            env[var] = x
                            body(s, env)
                    except BreakLoop:
                        pass
                else:
                    for x in items:
                        env[var] = x
                        body(s, env)

            return for_
        if isinstance(st, A.RepeatWhile):
            cf = self.expr(st.cond)
            body = self.block_closure(st.body)
            span = st.span

            def repeat(s: GameState, env: dict[str, Any]) -> None:
                # A loop that needs no decision runs inside one engine step, so it has its own bound.
                rounds = 0
                try:
                    while cf(s, env):
                        body(s, env)
                        rounds += 1
                        if rounds > 100_000:
                            raise RuleError(f"`repeat while` at line {span.line} ran 100000 times without ending")
                except BreakLoop:
                    pass

            return repeat
        if isinstance(st, A.Break):
            def brk(s: GameState, env: dict[str, Any]) -> None:
                raise BreakLoop

            return brk
        if isinstance(st, A.Do):
            return self.do_pure(st)
        if isinstance(st, A.Fire):
            return self.fire_pure(st)
        if isinstance(st, A.EndGame):
            def end(s: GameState, env: dict[str, Any]) -> None:
                raise GameOver

            return end
        if isinstance(st, A.SkipTo):
            step = st.step

            def skip(s: GameState, env: dict[str, Any]) -> None:
                raise SkipTo(self.step_pcs[step])

            return skip
        if isinstance(st, A.Log):
            return self.log(st)
        raise AssertionError(f"statement {type(st).__name__} needs the step machine")  # pragma: no cover

    def assign(self, st: A.Assign) -> StmtFn:
        vf = self.expr(st.value)
        op = st.op
        tgt = st.target
        if isinstance(tgt.ref, tuple) and tgt.ref[0] == "local":
            n = tgt.ref[1]
            if op == "=":
                return lambda s, env: env.__setitem__(n, vf(s, env))
            sign = 1 if op == "+=" else -1
            return lambda s, env: env.__setitem__(n, env[n] + sign * vf(s, env))
        sf = self.counter_slot(tgt)
        decl = self._counter_decl(tgt)
        lo, hi = decl.lo, decl.hi
        if decl.is_flag:

            def set_flag(s: GameState, env: dict[str, Any]) -> None:
                s.counters[sf(s, env)] = 1 if vf(s, env) else 0

            return set_flag
        sign = 0 if op == "=" else (1 if op == "+=" else -1)

        def set_counter(s: GameState, env: dict[str, Any]) -> None:
            slot = sf(s, env)
            v = vf(s, env)
            if sign:
                v = s.counters[slot] + sign * v
            if lo is not None and v < lo:
                v = lo
            elif hi is not None and v > hi:
                v = hi
            s.counters[slot] = v

        return set_counter

    def move(self, st: A.Move) -> StmtFn:
        dz = self.zone_index(st.dest)
        place = st.place
        wt = st.what.ty
        if wt is not None and wt.kind == "zone":
            sz = self.zone_index(st.what)

            def move_zone(s: GameState, env: dict[str, Any]) -> None:
                src = sz(s, env)
                dst = dz(s, env)
                for c in tuple(s.zones[src]):
                    move_card(s, c, dst, place)

            return move_zone
        wf = self.expr(st.what)
        if wt is not None and wt.kind == "card":

            def move_one(s: GameState, env: dict[str, Any]) -> None:
                c = wf(s, env)
                if c is None:
                    raise RuleError(f"nothing to move at line {st.span.line}")
                move_card(s, c, dz(s, env), place)

            return move_one

        def move_many(s: GameState, env: dict[str, Any]) -> None:
            dst = dz(s, env)
            for c in tuple(wf(s, env)):
                move_card(s, c, dst, place)

        return move_many

    def transfer(self, st: A.Transfer) -> StmtFn:
        src = self.counter_slot(st.source)
        dst = self.counter_slot(st.dest)
        amount = self.expr(st.amount) if st.amount is not None else None
        bind = st.bind

        def transfer(s: GameState, env: dict[str, Any]) -> None:
            c = s.counters
            a = src(s, env)
            b = dst(s, env)
            have = c[a]
            n = have if amount is None else amount(s, env)
            if n > have:
                n = have
            if n < 0:
                n = 0
            c[a] = have - n
            c[b] += n
            if bind is not None:
                env[bind] = n

        return transfer

    def _proc_args(self, args: list[A.Expr], params: tuple[str, ...]) -> Callable[[GameState, dict[str, Any]],
                                                                                  dict[str, Any]]:
        fs = [self.expr(a) for a in args]
        pairs = tuple(zip(params, fs, strict=True))
        return lambda s, env: {p: f(s, env) for p, f in pairs}

    def do_pure(self, st: A.Do) -> StmtFn:
        call = st.call
        assert isinstance(call, A.Call)
        ref = call.ref
        if ref[0] == "call_proc":
            target = self.procs[ref[1].name]
            make_env = self._proc_args(call.args, target.params)

            def do_proc(s: GameState, env: dict[str, Any]) -> None:
                assert target.pure is not None
                target.pure(s, make_env(s, env))

            return do_proc
        resolve = self._effect_target(call)

        def do_effect(s: GameState, env: dict[str, Any]) -> None:
            found = resolve(s, env)
            if found is not None:
                eff, env2 = found
                if eff.pure is None:  # pragma: no cover - suspension analysis prevents this
                    raise RuleError(f"{eff.name} asks for a decision where none can be made")
                eff.pure(s, env2)

        return do_effect

    def _effect_target(
        self, call: A.Call
    ) -> Callable[[GameState, dict[str, Any]], tuple[Callable_, dict[str, Any]] | None]:
        """For `do c.field(args)`: the card's compiled effect and its environment (None: no effect)."""
        assert isinstance(call.func, A.Attr)
        of = self.expr(call.func.obj)
        fname = call.func.name
        table = self.effects[fname]
        card_def = self.card_def
        params = self._field_params(fname)
        if params is None:  # kinds declare `fname` with different parameters: bind by the callee's own
            fs = [self.expr(a) for a in call.args]

            def resolve_mixed(s: GameState, env: dict[str, Any]) -> tuple[Callable_, dict[str, Any]] | None:
                c = of(s, env)
                if c is None:
                    raise RuleError(f"`{fname}` of no card")
                eff = table[card_def[c]]
                if eff is None:
                    return None
                env2 = {p: f(s, env) for p, f in zip(eff.params, fs, strict=True)}
                env2["self"] = c
                return eff, env2

            return resolve_mixed
        make_env = self._proc_args(call.args, params)

        def resolve(s: GameState, env: dict[str, Any]) -> tuple[Callable_, dict[str, Any]] | None:
            c = of(s, env)
            if c is None:
                raise RuleError(f"`{fname}` of no card")
            eff = table[card_def[c]]
            if eff is None:
                return None
            env2 = make_env(s, env)
            env2["self"] = c
            return eff, env2

        return resolve

    def fire_pure(self, st: A.Fire) -> StmtFn:
        targets = self.handlers.get(st.window, [])
        window = self.prog.windows[st.window]
        params = tuple(p.name for p in window.params)
        make_env = self._proc_args(st.args, params)
        name = st.window

        def fire(s: GameState, env: dict[str, Any]) -> None:
            if len(s.fire_stack) >= MAX_FIRE_DEPTH:
                raise RuleError(f"trigger chain deeper than {MAX_FIRE_DEPTH} windows: " + " -> ".join(
                    _fire_chain(s.frames, s.fire_stack, name)))
            s.fire_stack.append(name)
            try:
                args = make_env(s, env)
                for h in targets:
                    if h.pure is not None:
                        h.pure(s, {h.params[i]: args[p] for i, p in enumerate(params)})
            finally:
                s.fire_stack.pop()

        return fire

    def log_format(self, st: A.Log) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
        """Register the text of a `log` statement: its format id, card-valued and zone-valued argument positions.

        Format ids are part of every log entry (and so of the digest): both compilers register them in
        statement order through this one function.
        """
        fmt_id = len(self.log_formats)
        card_args = tuple(i for i, a in enumerate(st.args) if a.ty is not None and (
            a.ty.kind == "card" or (a.ty.kind == "list" and a.ty.elem is not None and a.ty.elem.kind == "card")))
        # a zone argument is logged as a snapshot of its cards
        zone_args = tuple(i for i, a in enumerate(st.args) if a.ty is not None and a.ty.kind == "zone")
        fmts = [formatter_for(a.ty) for a in st.args]
        for i in zone_args:
            fmts[i] = formatter_for(Ty("list", elem=Ty("card")))
        self.log_formats.append(LogFormat(st.text, tuple(fmts), card_args + zone_args))
        return fmt_id, card_args, zone_args

    def log(self, st: A.Log) -> StmtFn:
        fmt_id, card_args, zone_args = self.log_format(st)
        args = tuple(self.expr(a) for a in st.args)
        to = self.expr(st.to) if st.to is not None else None

        def log(s: GameState, env: dict[str, Any]) -> None:
            values = [f(s, env) for f in args]
            for i in zone_args:
                values[i] = tuple(s.zones[values[i]])
            everyone = (2 << s.tables.n) - 1  # every player, plus bit n: the spectator
            mask = everyone if to is None else (1 << to(s, env))
            full = mask
            for i in card_args + zone_args:
                v = values[i]
                for c in (v if isinstance(v, tuple) else (v,)):
                    if c is not None:
                        full &= card_visibility(s, c)
            s.log.append((mask, full, fmt_id, tuple(values)))

        return log

    # ------------------------------------------------------------ the step machine
    def emit(self, stmts: Sequence[A.Stmt], code: Code, loops: list[list[int]]) -> None:
        """Append instructions for ``stmts``; runs of pure statements become one instruction."""
        run: list[A.Stmt] = []

        def flush() -> None:
            if run:
                gen = self.sgen.instruction(run) if self.sgen is not None else None
                if gen is not None:
                    run.clear()
                    code.ins.append(self.note(gen, "run"))
                    return
                fn = self.block_closure(list(run))
                run.clear()

                def exec_(s: GameState, fr: list[Any]) -> bool:
                    fn(s, fr[2])
                    fr[1] += 1
                    return False

                code.ins.append(self.note(exec_, "run"))

        for st in stmts:
            if _suspends(st, self.prog) or (loops and _has_break([st])):
                flush()
                self.emit_control(st, code, loops)
            else:
                run.append(st)
        flush()

    def emit_control(self, st: A.Stmt, code: Code, loops: list[list[int]]) -> None:  # noqa: C901
        ins = code.ins
        if isinstance(st, A.Break):
            patch = loops[-1]
            at = len(ins)
            patch.append(at)
            ins.append(_jump_placeholder())
            return
        if isinstance(st, A.If):
            end_patches: list[int] = []
            for cond, body in st.branches:
                at = len(ins)
                ins.append(_jump_placeholder())
                self.emit(body, code, loops)
                end_patches.append(len(ins))
                ins.append(_jump_placeholder())
                ins[at] = self._branch(cond, at + 1, len(ins))
            self.emit(st.orelse, code, loops)
            for p in end_patches:
                ins[p] = self.goto(len(ins))
            return
        if isinstance(st, A.For):
            key = self.uid()
            ins.append(self.sgen.for_init(st.iterable, key) if self.sgen is not None
                       else _for_init(self.seq(st.iterable), key))
            head = len(ins)
            ins.append(_jump_placeholder())
            breaks: list[int] = []
            self.emit(st.body, code, [*loops, breaks])
            ins.append(self.goto(head))
            end = len(ins)
            ins[head] = self._for_next(key, (st.var,), end)
            for b in breaks:
                ins[b] = self.goto(end)
            return
        if isinstance(st, A.RepeatWhile):
            head = len(ins)
            ins.append(_jump_placeholder())
            breaks = []
            self.emit(st.body, code, [*loops, breaks])
            ins.append(self.goto(head))
            end = len(ins)
            ins[head] = self._branch(st.cond, head + 1, end)
            for b in breaks:
                ins[b] = self.goto(end)
            return
        if isinstance(st, A.Choose):
            self.emit_choose(st, code, loops)
            return
        if isinstance(st, A.Simultaneous):
            self.emit_simultaneous(st, code, loops)
            return
        if isinstance(st, A.Do):
            self.emit_do(st, code)
            return
        if isinstance(st, A.Fire):
            self.emit_fire(st, code)
            return
        raise AssertionError(f"unexpected control statement {type(st).__name__}")  # pragma: no cover

    def _branch(self, cond: A.Expr, then_pc: int, else_pc: int) -> Ins:
        if self.sgen is not None:
            return self.sgen.branch(cond, then_pc, else_pc)
        return _branch(self.expr(cond), then_pc, else_pc)

    def _for_next(self, key: str, names: tuple[str, ...], end: int) -> Ins:
        return self.sgen.for_next(key, names, end) if self.sgen is not None else _for_next(key, names, end)

    def _option_filter(self, var: str, source: A.Expr, where: A.Expr | None,
                       pop: bool) -> Callable[..., tuple[Any, ...]] | None:
        """The items of a choice that pass its `where`, as a tuple (None: no `where`)."""
        if where is None:
            return None
        if self.gen is not None and self.sgen is not None:
            return self.gen.filter_function(var, source, where, pop)  # type: ignore[no-any-return]
        wf = self.expr(where)

        def keep(s: GameState, env: dict[str, Any], items: Any) -> tuple[Any, ...]:
            options = tuple(x for x in tuple(items) if _bind(env, var, x) and wf(s, env))
            if pop:
                env.pop(var, None)
            return options

        return keep

    def emit_choose(self, st: A.Choose, code: Code, loops: list[list[int]]) -> None:
        ins = code.ins
        src = self.seq(st.source)
        var = st.var
        wf = self._option_filter(var, st.source, st.where, pop=True)
        chooser = self.expr(st.chooser)
        optional = st.optional
        elem_ty = st.source.ty
        fmt_id = len(self.choice_formats)
        elem = None
        if elem_ty is not None:
            from liturgy.dsl.checker.types import as_list

            lt = as_list(elem_ty)
            elem = lt.elem if lt is not None else None
        self.choice_formats.append(formatter_for(elem))
        self.choice_pass_labels.append(st.label if st.label is not None else "pass")
        self.choice_prompts.append(st.prompt)
        self.choice_elems.append(elem)
        self.choice_pvars.append(None)
        # a named option (`optional "draw"`) is a move of its own: it is offered even when no item qualifies
        always_ask = st.label is not None
        at = len(ins)
        ins.append(_jump_placeholder())
        self.emit(st.body, code, loops)
        skip_none = len(ins)
        ins.append(_jump_placeholder())
        none_pc = len(ins)
        if st.none_body is not None:
            self.emit(st.none_body, code, loops)
        end = len(ins)
        ins[skip_none] = self.goto(end)
        has_none = st.none_body is not None
        span = st.span
        self.choice_nones[at] = none_pc if has_none else end

        if self.cgen is not None:
            generated = self.cgen.choose(st, wf, at, none_pc if has_none else end, always_ask, has_none, fmt_id)
            ins[at] = self.note(generated, "stop", at + 1, none_pc if has_none else end, end)
            return

        def choose(s: GameState, fr: list[Any]) -> bool:
            env = fr[2]
            items = src(s, env)
            options = tuple(items) if wf is None else wf(s, env, items)
            if not options and not always_ask:
                fr[1] = none_pc if has_none else end
                if not has_none and not optional:
                    raise RuleError(
                        f"no legal option for the choice at {span.file}:{span.line} and no `otherwise` branch")
                return False
            p = chooser(s, env)
            if p is None:
                raise RuleError(f"no player to make the choice at line {span.line}")
            if optional:
                options = (*options, None)
            s.pending = ("choose", p, options, var, at + 1, none_pc if has_none else end, fmt_id)
            return True

        ins[at] = self.note(choose, "stop", at + 1, none_pc if has_none else end, end)

    def emit_simultaneous(self, st: A.Simultaneous, code: Code, loops: list[list[int]]) -> None:
        ins = code.ins
        players = self.seq(st.players)
        src = self.seq(st.source)
        pvar, var = st.player_var, st.var
        wf = self._option_filter(var, st.source, st.where, pop=False)
        key = self.uid()
        from liturgy.dsl.checker.types import as_list

        lt = as_list(st.source.ty) if st.source.ty is not None else None
        fmt_id = len(self.choice_formats)
        self.choice_formats.append(formatter_for(lt.elem if lt else None))
        self.choice_pass_labels.append("pass")
        self.choice_prompts.append(st.prompt)
        self.choice_elems.append(lt.elem if lt else None)
        self.choice_pvars.append(pvar)
        span = st.span
        at = len(ins)
        ins.append(_jump_placeholder())
        # after everyone commits: loop over (player, choice) pairs in the players' order
        head = len(ins)
        ins.append(_jump_placeholder())
        self.emit(st.body, code, loops)
        ins.append(self.goto(head))
        end = len(ins)
        ins[head] = self._for_next(key, (pvar, var), end)

        if self.cgen is not None:
            ins[at] = self.note(self.cgen.collect(st, wf, key, at, end, fmt_id), "stop", at + 1, end)
            return

        def collect(s: GameState, fr: list[Any]) -> bool:
            env = fr[2]
            per = []
            for p in tuple(players(s, env)):
                env[pvar] = p
                items = tuple(src(s, env))
                options = items if wf is None else wf(s, env, items)
                if not options:
                    raise RuleError(f"P{p + 1} has no legal option for the choice at {span.file}:{span.line}")
                per.append((p, options))
            env.pop(pvar, None)
            env.pop(var, None)
            if not per:
                fr[1] = end
                return False
            s.pending = ("simul", tuple(per), key, at + 1, fmt_id)
            s.commits = {}
            return True

        ins[at] = self.note(collect, "stop", at + 1, end)

    def emit_do(self, st: A.Do, code: Code) -> None:
        generated = self.sgen.do_instruction(st) if self.sgen is not None else None
        if generated is not None:
            code.ins.append(self.note(generated, "call_end"))
            return
        call = st.call
        assert isinstance(call, A.Call)
        ref = call.ref
        if ref[0] == "call_proc":
            target = self.procs[ref[1].name]
            make_env = self._proc_args(call.args, target.params)

            def do_proc(s: GameState, fr: list[Any]) -> bool:
                env2 = make_env(s, fr[2])
                fr[1] += 1
                _invoke(s, target, env2)
                return False

            code.ins.append(self.note(do_proc, "call_end"))
            return
        resolve = self._effect_target(call)

        def do_effect(s: GameState, fr: list[Any]) -> bool:
            found = resolve(s, fr[2])
            fr[1] += 1
            if found is not None:
                _invoke(s, *found)
            return False

        code.ins.append(self.note(do_effect, "call_end"))

    def emit_fire(self, st: A.Fire, code: Code) -> None:
        if self.sgen is not None:
            code.ins.append(self.note(self.sgen.fire_instruction(st), "call_end"))
            return
        targets = self.handlers.get(st.window, [])
        window = self.prog.windows[st.window]
        params = tuple(p.name for p in window.params)
        make_env = self._proc_args(st.args, params)

        def fire(s: GameState, fr: list[Any]) -> bool:
            args = make_env(s, fr[2])
            fr[1] += 1
            # push in reverse so handlers run in declaration order
            for h in reversed(targets):
                _invoke(s, h, {h.params[i]: args[p] for i, p in enumerate(params)})
            return False

        code.ins.append(self.note(fire, "call_end"))


def _invoke(s: GameState, target: Callable_, env: dict[str, Any]) -> None:
    """Run a proc, handler or effect: push its code on the step machine, or call its closure."""
    if target.code is not None:
        _push(s, target.code, env)
    else:
        assert target.pure is not None
        target.pure(s, env)


def _ret(s: GameState, fr: list[Any]) -> bool:
    s.frames.pop()
    return False


def _fire_chain(frames: list[Any], fired: list[str], last: str) -> list[str]:
    """Name the loop for the error message: the windows being handled, then the one firing now."""
    names = [f[0].name[3:] for f in frames[1:] if f[0].name.startswith("on ")] + fired
    return [*names[-6:], last]


def _push(s: GameState, code: Code, env: dict[str, Any]) -> None:
    if len(s.frames) > 500:
        chain = " -> ".join(f[0].name for f in s.frames[-6:])
        raise RuleError(f"call chain deeper than 500 frames (…{chain})")
    s.frames.append([code, 0, env])


def _bind(env: dict[str, Any], var: str, value: Any) -> bool:
    env[var] = value
    return True


def _jump_placeholder() -> Ins:
    def placeholder(s: GameState, fr: list[Any]) -> bool:  # pragma: no cover - always patched
        raise AssertionError("unpatched jump")

    return placeholder


def _goto(target: int) -> Ins:
    def goto(s: GameState, fr: list[Any]) -> bool:
        fr[1] = target
        return False

    return goto


def _branch(cond: ExprFn, then_pc: int, else_pc: int) -> Ins:
    def branch(s: GameState, fr: list[Any]) -> bool:
        fr[1] = then_pc if cond(s, fr[2]) else else_pc
        return False

    return branch


def _for_init(it: ExprFn, key: str) -> Ins:
    def for_init(s: GameState, fr: list[Any]) -> bool:
        env = fr[2]
        env[key] = (tuple(it(s, env)), 0)
        fr[1] += 1
        return False

    return for_init


def _for_next(key: str, names: tuple[str, ...], end: int) -> Ins:
    single = len(names) == 1
    n0 = names[0]

    def for_next(s: GameState, fr: list[Any]) -> bool:
        env = fr[2]
        items, i = env[key]
        if i >= len(items):
            del env[key]
            fr[1] = end
            return False
        if single:
            env[n0] = items[i]
        else:
            for n, v in zip(names, items[i], strict=True):
                env[n] = v
        env[key] = (items, i + 1)
        fr[1] += 1
        return False

    return for_next


def _pack(widths: Iterable[tuple[str, int]]) -> tuple[dict[str, int], int]:
    """Lay named slots of the given widths one after another: each one's offset, and the total width."""
    offsets: dict[str, int] = {}
    off = 0
    for name, width in widths:
        offsets[name] = off
        off += width
    return offsets, off


def _suspends(st: A.Stmt, prog: Program) -> bool:
    """Does this statement need the step machine (a decision may happen inside)?"""
    if isinstance(st, A.Choose | A.Simultaneous):
        return True
    if isinstance(st, A.Do) and isinstance(st.call, A.Call):
        ref = st.call.ref
        if ref[0] == "call_proc":
            return f"proc:{ref[1].name}" in prog.suspending
        if isinstance(st.call.func, A.Attr):
            name = st.call.func.name
            return any(f"field:{k}.{name}" in prog.suspending for k in prog.kinds)
        return False
    if isinstance(st, A.Fire):
        return f"window:{st.window}" in prog.suspending
    if isinstance(st, A.If):
        return any(_suspends_block(b, prog) for _, b in st.branches) or _suspends_block(st.orelse, prog)
    if isinstance(st, A.For | A.RepeatWhile):
        return _suspends_block(st.body, prog)
    return False


def _suspends_block(stmts: Sequence[A.Stmt], prog: Program) -> bool:
    return any(_suspends(s, prog) for s in stmts)


def _children(n: Any) -> list[Any]:
    """The sub-expressions of an expression node."""
    out: list[Any] = []
    if hasattr(n, "__dataclass_fields__"):
        for key in n.__dataclass_fields__:
            v = getattr(n, key)
            if isinstance(v, A.Expr):
                out.append(v)
            elif isinstance(v, list):
                out.extend(x for x in v if isinstance(x, A.Expr))
    return out


def _local_names(e: A.Expr) -> set[str]:
    """Every local variable (or parameter) an expression reads by name."""
    out: set[str] = set()
    stack: list[Any] = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, A.Name) and n.ref and n.ref[0] == "local":
            out.add(n.id)
        stack.extend(_children(n))
    return out


def _has_effects(e: A.Expr) -> bool:
    """Does evaluating ``e`` draw from the RNG (so it must be evaluated exactly once)?"""
    stack: list[Any] = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, A.Call) and isinstance(n.func, A.Name) and n.func.id in ("roll", "random"):
            return True
        if isinstance(n, A.Call) and n.ref and n.ref[0] in ("call_fn", "call_field"):
            return True
        stack.extend(_children(n))
    return False


def _has_break(stmts: Sequence[A.Stmt]) -> bool:
    for s in stmts:
        if isinstance(s, A.Break):
            return True
        if isinstance(s, A.If) and (any(_has_break(b) for _, b in s.branches) or _has_break(s.orelse)):
            return True
    return False
