"""What the compiler can prove about a ruleset's values before any game runs: how many items a list or zone can
hold at most, and the range an int expression stays in (issue 18's budget checks, made free where provable).

The per-game budgets (interpreter/runtime/budget.py) add checks to the hot path: a flat loop tests its length
against SMALL_LOOP, a list `+` compares sizes, every int `+`, `-`, `*` compares its result with the 64-bit
range. Each check can only fire when its operands are large, so where the compiler can prove they never are,
the check is left out and the game behaves exactly as with it (the same counts, the same stops). Proofs come
from the ruleset's text and card data alone:

- a zone holds at most as many cards as the game has at its largest player count (a card is in one zone), at
  most its ``capacity``, and, when every ``move`` into a zone that can be an ``of Kind`` zone moves cards the
  checker types as that kind, at most the cards of that kind (:func:`sound_kinds`);
- the players, `players_from(p)` and an enum hold at most 64 items, a set of an enum's values at most that
  enum's; a list literal its items; a printed list field its longest list; a comprehension at most its
  source's items; a `fn` call what its body holds;
- an int literal is itself; a counter with bounds stays within them (writes clamp); a printed int field is
  within its cards' values; `size` and `count` are at most 2^48 (no machine holds more items); `+`, `-`, `*`,
  `/`, `min`, `max`, `abs`, `if … then … else`, a `let` and a `fn` or card `function` field follow their parts;
  `a % b` lies in 0 … b-1 for a divisor known to be positive, whatever `a` is (ints floor, as Python's);
  `dx`/`dy` are -1 … 1, `width`/`height` of a named grid its size, `line`/`span` at most its cells, `ord` an
  enum value's position;
- a local variable whose range the caller knows: ``env`` maps a name to an interval (the code generator's `let`s,
  inlined parameters and loop variables over a constant `range`, which are never assigned) or to the `let` value
  that binds it here.

Anything else is unknown (None), and unknown keeps every check.
"""

from __future__ import annotations

from typing import Any

from liturgy.dsl.frontend import ast as A

Range = tuple[int, int]
_LEN_MAX = 1 << 48  # more items than any list can hold: `size` and `count` stay below
_SAFE = (1 << 62) - 1  # a proven range must stay well inside 64 bits to leave its check out
_BUSY = object()  # a fn being analysed (a call of itself inside is unknown)
# the most expression nodes one inlined `fn` call may write, its own inlined calls included (Sizes.inline_size)
INLINE_SIZE = 4000


_NOT_FOLLOWED = frozenset({"span", "ty", "ref", "name_span", "func_span", "field_spans"})
_FOLLOWED: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    """The fields of a dataclass worth following (not positions, types or referents), per class, cached."""
    got = _FOLLOWED.get(cls)
    if got is None:
        names = getattr(cls, "__dataclass_fields__", {})
        got = _FOLLOWED[cls] = tuple(k for k in names if k not in _NOT_FOLLOWED)
    return got


def statements(root: Any) -> list[A.Stmt]:
    """Every statement reachable from ``root`` (a program: declarations, steps, procs, handlers, card effects).
    Expressions hold no statements, so they are never entered: one pass over a program costs little."""
    out: list[A.Stmt] = []
    seen: set[int] = set()
    todo = [root]
    while todo:
        n = todo.pop()
        if n is None or isinstance(n, str | int | float | A.Expr):
            continue
        if isinstance(n, list | tuple):
            todo.extend(n)
        elif isinstance(n, dict):
            todo.extend(n.values())
        elif id(n) not in seen:
            seen.add(id(n))
            if isinstance(n, A.Stmt):
                out.append(n)
            todo.extend(getattr(n, k, None) for k in _fields(type(n)))
    return out


def _kind_of_moved(t: Any) -> str | None:
    """The card kind a moved value (a card, a list of cards, a zone) is typed with, or None when any kind."""
    if t is None:
        return None
    if t.kind in ("card", "zone"):
        return t.arg  # type: ignore[no-any-return]
    if t.kind == "list" and t.elem is not None and t.elem.kind == "card":
        return t.elem.arg  # type: ignore[no-any-return]
    return None


def sound_kinds(prog: Any) -> frozenset[str]:
    """The card kinds K for which every zone declared `of K` provably holds only cards of kind K.

    Cards start where E120 allows; after that only `move` puts a card in a zone, and the checker types both
    sides. A move can break the invariant for K only when its destination may be a K zone (typed `zone of K`, or
    `zone` of any kind) and what it moves is not typed as cards of kind K."""
    kinds = {z.of_kind for z in prog.zones.values() if z.of_kind}
    broken: set[str] = set()
    for n in statements(prog):
        if not isinstance(n, A.Move):
            continue
        moved = _kind_of_moved(n.what.ty)
        ref: Any = n.dest.ref
        if ref is not None and ref[0] in ("zone", "pzone", "czone"):  # a named zone: exactly its declaration
            if ref[1].of_kind is not None and moved != ref[1].of_kind:
                broken.add(ref[1].of_kind)
            continue
        dest = n.dest.ty  # a zone held in a name or returned: any zone its type allows
        dest_kind = dest.arg if dest is not None and dest.kind == "zone" else None
        broken |= {k for k in kinds if (dest_kind is None or dest_kind == k) and moved != k}
    return frozenset(kinds - broken)


class Sizes:
    """Static bounds for one checked program (see the module docstring); answers are cached per node."""

    def __init__(self, prog: Any) -> None:
        self.prog = prog
        self.max_players: int = prog.game.max_players
        self.cards_of: dict[str | None, int] = {None: 0}
        for cd in prog.cards:
            copies = cd.count * (self.max_players if prog.zones[cd.start].per_player else 1)
            self.cards_of[None] += copies
            self.cards_of[cd.kind] = self.cards_of.get(cd.kind, 0) + copies
        self.sound = sound_kinds(prog)
        self._fns: dict[tuple[str, str], Any] = {}
        self._inline: dict[str, int] = {}

    # ------------------------------------------------------------ inlining
    def inline_size(self, fn: Any) -> int:
        """How many expression nodes inlining every call of ``fn`` would write: its body's nodes plus, for each
        `fn` it calls, that one's inline size. Nested one-line fns that each call the next a few times grow this
        exponentially with the depth (six calls a level, eight levels: 1.7 million copies of the innermost
        body), so the compiler inlines a call only while this stays within :data:`INLINE_SIZE` (above every
        shipped ruleset's largest, Betrayal's `acts` at 2,724 with its barrier and token actions); past it the
        call is a call, and each fn is compiled once. Memoised per fn, so computing it is linear in the program."""
        found = self._inline.get(fn.name)
        if found is not None:
            return found
        self._inline[fn.name] = INLINE_SIZE + 1  # a fn reached again while being measured is never inlined
        total = self._expanded(fn.body, self.inline_size)
        self._inline[fn.name] = total
        return total

    def call_cost(self, fn: Any) -> int:
        """The most expression nodes one call of ``fn`` evaluates outside the calls counted on their own: its
        body's nodes plus each called `fn`'s inline size, or 1 for a callee past :data:`INLINE_SIZE` (whose
        calls are counted, budgets.call_counter). A call of a fn past the bound is counted as this many units
        of work, so the work budget stops a fan-out of calls after about as many evaluations as it allows
        loop passes, not thousands of times more."""
        return self._expanded(fn.body, lambda f: 1 if self.inline_size(f) > INLINE_SIZE else self.inline_size(f))

    @staticmethod
    def _expanded(body: Any, callee_size: Any) -> int:
        """The expression nodes of ``body``, each `fn` call adding ``callee_size(fn)``."""
        total = 0
        todo: list[Any] = [body]
        while todo:
            n = todo.pop()
            if isinstance(n, list | tuple):
                todo.extend(n)
            elif isinstance(n, A.Expr):
                total += 1
                ref: Any = n.ref
                if isinstance(n, A.Call) and ref is not None and ref[0] == "call_fn":
                    total += callee_size(ref[1])
                todo.extend(getattr(n, k) for k in _fields(type(n)))
        return total

    # ------------------------------------------------------------ list and zone sizes
    def zone_max(self, t: Any, decl: Any = None) -> int:
        """The most cards a zone of type ``t`` (declared by ``decl`` when known) can hold."""
        most = self.cards_of[None]
        kind = t.arg if t is not None else None
        if kind is not None and kind in self.sound:
            most = min(most, self.cards_of.get(kind, 0))
        if decl is not None and decl.capacity is not None:
            most = min(most, decl.capacity)
        return most

    def max_len(self, e: A.Expr, env: dict[str, Any] | None = None) -> int | None:  # noqa: C901 - one dispatch
        """The most items ``e`` (a list, zone or enum type) can hold, or None when unknown."""
        ref: Any = e.ref
        if isinstance(e, A.ListLit):
            return len(e.items)
        if isinstance(e, A.ListComp):
            return self.max_len(e.iterable, env)
        if isinstance(e, A.Aggregate) and e.func == "sort":
            return self.max_len(e.iterable, env)
        if isinstance(e, A.Cond):
            a, b = self.max_len(e.then, env), self.max_len(e.orelse, env)
            return None if a is None or b is None else max(a, b)
        if isinstance(e, A.Binary) and e.op == "+" and e.ty is not None and e.ty.kind in ("list", "zone"):
            a, b = self.max_len(e.left, env), self.max_len(e.right, env)
            return None if a is None or b is None else a + b
        if isinstance(e, A.LetIn):
            return self.max_len(e.body, {**(env or {}), e.name: (e.value, env)})
        if isinstance(e, A.Name) and ref is not None:
            if ref[0] == "builtin" and ref[1] in ("players", "seats"):
                return self.max_players
            if ref[0] == "enumtype":
                return len(self.prog.enums[ref[1]])
            if ref[0] == "local" and env is not None and e.id in env:
                return self.max_len(*env[e.id])
        if isinstance(e, A.Attr) and ref is not None and ref[0] == "field":
            printed: int | None = self._fn_fact("fieldlen", e.name)
            if printed is not None:
                return printed
        if isinstance(e, A.Call) and ref is not None:
            if ref[0] == "call_builtin":
                if ref[1] == "players_from":
                    return self.max_players
                if ref[1] in ("top", "bottom") and len(e.args) == 2:
                    return self.max_len(e.args[0], env)
            if ref[0] == "call_fn":
                return self._fn_fact("len", ref[1])  # type: ignore[no-any-return]
        if e.ty is not None and e.ty.kind == "set" and e.ty.arg in self.prog.enums:  # a set holds each value once
            return len(self.prog.enums[e.ty.arg])
        if e.ty is not None and e.ty.kind == "zone":
            return self.zone_max(e.ty, ref[1] if ref is not None and ref[0] in ("zone", "pzone", "czone") else None)
        return None

    def concat_fits(self, e: A.Binary, size_limit: int) -> bool:
        """Whether the list `+` ``e`` provably never makes more than ``size_limit`` items."""
        most = self.max_len(e)
        return most is not None and most <= size_limit

    # ------------------------------------------------------------ int ranges
    def safe(self, e: A.Expr) -> bool:
        """Whether the int expression ``e`` provably stays inside 64 bits (its overflow check can go)."""
        return self.int_range(e) is not None

    def int_range(self, e: A.Expr, env: dict[str, Any] | None = None) -> Range | None:
        """An interval holding every value of the int expression ``e``, within ±2^62, or None when unknown."""
        r = self._range(e, env)
        if r is None or r[0] < -_SAFE or r[1] > _SAFE:
            return None
        return r

    def _range(self, e: A.Expr, env: dict[str, Any] | None) -> Range | None:  # noqa: C901 - one dispatch
        ref: Any = e.ref
        if isinstance(e, A.IntLit) and not isinstance(e.value, bool):
            return (e.value, e.value)
        if isinstance(e, A.Binary):
            return self._binary(e, env)
        if isinstance(e, A.Unary) and e.op == "-":
            r = self.int_range(e.operand, env)
            return None if r is None else (-r[1], -r[0])
        if isinstance(e, A.Cond):
            a, b = self.int_range(e.then, env), self.int_range(e.orelse, env)
            return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))
        if isinstance(e, A.LetIn):
            return self.int_range(e.body, {**(env or {}), e.name: (e.value, env)})
        if isinstance(e, A.Aggregate) and e.func == "count":
            return (0, _LEN_MAX)
        if isinstance(e, A.Aggregate) and e.func in ("sum", "min", "max") and e.ty is not None and e.ty.kind == "int":
            return self._aggregate_range(e, env)
        if isinstance(e, A.Name | A.Attr) and ref is not None:
            return self._named(e, ref, env)
        if isinstance(e, A.Call) and ref is not None:
            return self._call_range(e, ref, env)
        return None

    def _named(self, e: A.Name | A.Attr, ref: Any, env: dict[str, Any] | None) -> Range | None:
        if ref[0] == "builtin" and ref[1] == "player_count":
            return (0 if self.prog.game.absent is not None else 1, self.max_players)  # every seat may sit out
        if ref[0] in ("counter", "pcounter", "ccounter"):
            d = ref[1]
            if type(d) is A.CounterDecl and d.lo is not None and d.hi is not None and not d.is_flag and (
                    d.track_values is None and d.holds is None and d.option is None and d.index_enum is None):
                return (d.lo, d.hi)
            return None
        if ref[0] == "field" and isinstance(e, A.Attr):
            return self._fn_fact("field", e.name)  # type: ignore[no-any-return]
        if ref[0] == "local" and isinstance(e, A.Name) and env is not None and e.id in env:
            bound = env[e.id]
            if bound is None:  # a name the caller knows nothing about (it hides an outer one)
                return None
            if isinstance(bound[0], int):  # an interval the caller proved
                return bound  # type: ignore[no-any-return]
            return self.int_range(*bound)
        return None

    def _aggregate_range(self, e: A.Aggregate, env: dict[str, Any] | None) -> Range | None:
        """`sum`, `min` or `max` of int elements: each element's interval (its variable unknown), widened to 0 (the
        value of none qualifying), and for `sum` multiplied by the most items the source holds. A score that adds
        up the players' stakes is then bounded, so its arithmetic needs no 64-bit test."""
        r = self.int_range(e.elem, {**(env or {}), e.var: None})
        if r is None:
            return None
        if e.func != "sum":
            return (min(r[0], 0), max(r[1], 0))
        n = self.max_len(e.iterable, env)
        return None if n is None else (min(0, r[0] * n), max(0, r[1] * n))

    def _call_range(self, e: A.Call, ref: Any, env: dict[str, Any] | None) -> Range | None:
        if ref[0] == "call_builtin":
            if ref[1] == "size":
                return (0, _LEN_MAX)
            if ref[1] in ("dx", "dy"):
                return (-1, 1)
            if ref[1] == "abs" and len(e.args) == 1:
                r = self.int_range(e.args[0], env)
                return None if r is None else (0 if r[0] <= 0 <= r[1] else min(abs(r[0]), abs(r[1])),
                                               max(abs(r[0]), abs(r[1])))
            grid: Any = e.args[0].ref if e.args else None
            if ref[1] in ("width", "height", "line", "span") and grid is not None and grid[0] == "grid":
                g = grid[1]
                if ref[1] in ("width", "height"):
                    return (g.width, g.width) if ref[1] == "width" else (g.height, g.height)
                return (0, g.width * g.height)  # a run of cells is at most every cell
            if ref[1] == "ord" and e.args and e.args[0].ty is not None and e.args[0].ty.arg in self.prog.enums:
                return (0, len(self.prog.enums[e.args[0].ty.arg]) - 1)
            if ref[1] in ("min", "max") and e.args:
                rs = [self.int_range(a, env) for a in e.args]
                if any(r is None for r in rs):
                    return None
                pick = min if ref[1] == "min" else max
                return (pick(r[0] for r in rs if r), pick(r[1] for r in rs if r))
            return None
        if ref[0] == "call_fn":
            return self._fn_fact("int", ref[1])  # type: ignore[no-any-return]
        if ref[0] == "call_field" and ref[2] == "function" and isinstance(e.func, A.Attr):
            return self._fn_fact("fieldfn", e.func.name)  # type: ignore[no-any-return]
        return None

    def _binary(self, e: A.Binary, env: dict[str, Any] | None) -> Range | None:
        if e.op not in ("+", "-", "*", "/", "%") or e.ty is None or e.ty.kind != "int":
            return None
        a, b = self.int_range(e.left, env), self.int_range(e.right, env)
        if e.op == "%" and b is not None and (b[0] > 0 or b[1] < 0):  # floored: the divisor's sign, whatever a is
            return (0, b[1] - 1) if b[0] > 0 else (b[0] + 1, 0)
        if a is None or b is None:
            return None
        if e.op == "+":
            return (a[0] + b[0], a[1] + b[1])
        if e.op == "-":
            return (a[0] - b[1], a[1] - b[0])
        if e.op == "*":
            products = [x * y for x in a for y in b]
            return (min(products), max(products))
        if e.op == "/":  # |a / b| <= |a| for a whole b != 0 (b == 0 stops the game)
            m = max(abs(a[0]), abs(a[1]))
            return (-m, m)
        m = max(abs(b[0]), abs(b[1]))  # a % b lies between -|b| and |b|
        return (-m, m)

    # ------------------------------------------------------------ facts about fns and card fields, cached
    def _fn_fact(self, what: str, target: Any) -> Any:
        key = (what, target if isinstance(target, str) else target.name)
        if key in self._fns:
            got = self._fns[key]
            return None if got is _BUSY else got
        self._fns[key] = _BUSY  # a fn reaching itself again is unknown
        if what == "len":
            found: Any = self.max_len(target.body)
        elif what == "int":
            found = self.int_range(target.body)
        elif what == "field":
            found = self._field_range(target)
        elif what == "fieldlen":
            found = self._field_len(target)
        else:
            found = self._union(self._field_bodies(target))
        self._fns[key] = found
        return found

    def _field_bodies(self, name: str) -> list[Any]:
        out: list[Any] = [cd.values[name] for cd in self.prog.cards if name in cd.values]
        for kind in self.prog.kinds.values():
            out += [f.default for f in kind.fields if f.name == name and f.default is not None]
        return out

    def _union(self, bodies: list[Any]) -> Range | None:
        lo = hi = None
        for body in bodies:
            r = self.int_range(body) if isinstance(body, A.Expr) else None
            if r is None:
                return None
            lo = r[0] if lo is None else min(lo, r[0])
            hi = r[1] if hi is None else max(hi, r[1])
        return None if lo is None or hi is None else (lo, hi)

    def _field_len(self, name: str) -> int | None:
        """The longest list a printed list field holds over every card (and kind default) that has it."""
        most = 0
        for v in self._field_bodies(name):
            n = len(v) if isinstance(v, list | tuple) else len(v.items) if isinstance(v, A.ListLit) else None
            if n is None:
                return None
            most = max(most, n)
        return most

    def _field_range(self, name: str) -> Range | None:
        """A printed int field's range over every card (and kind default) that has it."""
        values = self._field_bodies(name)
        ints = [v for v in values if type(v) is int]
        exprs = [v for v in values if isinstance(v, A.Expr)]
        if len(ints) + len(exprs) != len(values):
            return None
        r = self._union(exprs) if exprs else None
        if exprs and r is None:
            return None
        if not ints:
            return r
        lo, hi = min(ints), max(ints)
        return (lo, hi) if r is None else (min(lo, r[0]), max(hi, r[1]))
