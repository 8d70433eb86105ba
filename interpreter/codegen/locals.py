"""Rule variables held in Python locals inside generated statement functions, kept in step with ``env``.

:class:`Locals` tracks which variables a generated function may read from a Python local (and whether they
can be `none`); :func:`_scan` finds what a block writes and whether it may invalidate those locals.
"""

from __future__ import annotations

import ast
import functools
import re
import textwrap
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from liturgy.dsl.frontend import ast as A

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen
    from liturgy.interpreter.compiler.compiler import Compiler



class Locals:
    """A generated statement function's view of ``env``: which variables it can read from Python locals.

    Variable ``x`` gets one Python local per function, written together with ``env['x']`` by every
    generated write (`let`, assignment, `for`, `transfer … as`), so the two stay in step until
    something the function calls could bind names in its ``env``: a statement left to the closure
    compiler or a block generated as a separate function ("invalidation", after which reads go to
    ``env`` again until the next write).  A read before any write comes from a load at the top of the
    function, made only when the variable is read at least twice there (a read in a loop counts twice):
    a variable in scope is always bound (the checker scopes names lexically), and nothing wrote it
    before the read, neither generated code nor (no invalidation yet) anything else.

    ``state`` holds, for each variable readable from its local at the current point of the text, whether
    that read is a *lazy* one (from the top's load) and whether the value can never be `none` (a card of
    a zone, a value already checked): control flow merges states (:meth:`merge`).  Reads are written as
    markers, resolved by :meth:`finish` once the whole function is known.
    """

    def __init__(self, gen: ExprGen) -> None:
        self.gen = gen
        self.names: dict[str, str] = {}
        self.state: dict[str, tuple[bool, bool]] = {}  # variable -> (lazy, never none)
        self.lazy_weight: dict[str, int] = {}
        self.written: set[str] = set()
        self.lazy_ok = True
        self.loops = 0
        self.steady = 0  # enclosing loops written on the promise that nothing in them invalidates

    def _name(self, var: str) -> str:
        name = self.names.get(var)
        if name is None:
            name = self.names[var] = self.gen._name("_E")
            self.gen.plain.update((f"\x00{name}\x00", f"\x00L{name}\x00"))
        return name

    def read(self, var: str) -> str:
        got = self.state.get(var)
        if got is None:
            if not self.lazy_ok or var in self.written:
                return f"env[{var!r}]"
            got = self.state[var] = (True, False)
        name = self._name(var)
        if got[0]:
            self.lazy_weight[var] = self.lazy_weight.get(var, 0) + (2 if self.loops else 1)
            return f"\x00L{name}\x00"
        return f"\x00{name}\x00"

    def write(self, var: str, nonnull: bool) -> str:
        """The assignment targets that write ``var`` (``env['x'] = <local> = ``)."""
        self.written.add(var)
        self.state[var] = (False, nonnull)
        return f"env[{var!r}] = \x00{self._name(var)}\x00 = "

    def checked(self, src: str) -> None:
        """``src`` was just found not to be `none` (the code raises otherwise)."""
        for var, (lazy, _) in self.state.items():
            if src == f"\x00{'L' if lazy else ''}{self.names.get(var)}\x00":
                self.state[var] = (lazy, True)

    def is_nonnull(self, src: str) -> bool:
        return any(nn and src == f"\x00{'L' if lazy else ''}{self.names.get(var)}\x00"
                   for var, (lazy, nn) in self.state.items())

    def invalidate(self) -> None:
        assert not self.steady, "a loop body that _scan found harmless invalidated the locals"
        self.state = {}
        self.lazy_ok = False

    def forget_nonnull(self, names: set[str]) -> None:
        """Loop head: variables written in the loop body may hold anything on the next turn."""
        for var in names & self.state.keys():
            self.state[var] = (self.state[var][0], False)

    @staticmethod
    def merge(states: list[dict[str, tuple[bool, bool]]]) -> dict[str, tuple[bool, bool]]:
        """Where paths join: readable from the local on every path (lazy if lazy on any), non-none on all."""
        first, *rest = states
        out = {}
        for var, (lazy, nn) in first.items():
            if all(var in st for st in rest):
                out[var] = (lazy or any(st[var][0] for st in rest), nn and all(st[var][1] for st in rest))
        return out

    def export(self, src: str, into: Callable[[str], str]) -> str:
        """``src`` for another generated function (in step with ``env`` there), whose reads are ``into(var)``."""
        for var, name in self.names.items():
            for marker in (f"\x00{name}\x00", f"\x00L{name}\x00"):
                if marker in src:
                    src = src.replace(marker, into(var))
        return src

    def finish(self, text: str, params: Sequence[str] = ()) -> tuple[list[str], str]:
        """The loads for the function's top, and ``text`` with its markers resolved (``params``: variables
        the function receives as Python parameters of their locals' names, so never loaded)."""
        loads = []
        for var, name in self.names.items():
            real, lazy = f"\x00{name}\x00", f"\x00L{name}\x00"
            if var in params:
                text = text.replace(lazy, name)
            elif self.lazy_weight.get(var, 0) >= 2:
                loads.append(f"{name} = env[{var!r}]")
                text = text.replace(lazy, name)
            else:
                text = text.replace(lazy, f"env[{var!r}]")
                if text.count(real) == text.count(f" = {real} = "):  # written, never read back
                    text = text.replace(f" = {real} = ", " = ")
                if text.count(real) == 1:  # a loop's variable (codegen/loopvars.py) no statement reads
                    text = re.sub(f"^[ ]*{re.escape(real)} = _x[0-9]+\n", "", text, flags=re.MULTILINE)
            text = text.replace(real, name)
        return loads, text


def _scan(stmts: Sequence[A.Stmt], comp: Compiler) -> tuple[set[str], bool]:
    """The local variables ``stmts`` write, and whether they may make :class:`Locals` invalid."""
    names: set[str] = set()
    invalid = False
    for st in stmts:
        if isinstance(st, A.Let):
            names.add(st.name)
        elif isinstance(st, A.Assign):
            if st.target.ref is not None and st.target.ref[0] == "local":
                names.add(st.target.ref[1])
        elif isinstance(st, A.Transfer):
            if st.bind is not None:
                names.add(st.bind)
        elif isinstance(st, A.If | A.For | A.RepeatWhile):
            if isinstance(st, A.For):
                names.add(st.var)
            bodies = [b for _, b in st.branches] + [st.orelse] if isinstance(st, A.If) else [st.body]
            for body in bodies:
                more, inv = _scan(body, comp)
                names |= more
                invalid = invalid or inv
        elif isinstance(st, A.Do):
            call = st.call
            if (isinstance(call, A.Call) and A.ref_of(call)[0] != "call_proc" and isinstance(call.func, A.Attr)
                    and comp._field_params(call.func.name) is None):
                invalid = True  # left to the closure compiler
        elif _treatment(st) == "closure":
            invalid = True  # a statement this module leaves to the closure compiler
    return names, invalid


# What each statement kind does to the locals held in Python variables (tests/test_registry.py checks that it
# covers the registry; a kind it lacks is an error here, not a silent guess): "binds" a local, runs "nested"
# blocks (scanned), "keeps" them (writes no local, runs as generated text), "do" (invalid when a card effect is
# left to the closures), or runs as the closure compiler's function, which reads and writes ``env``: "closure"
# (the cache is invalid after it). `choose` and `simultaneously` suspend: never in a generated run.
SCAN: dict[type[A.Stmt], str] = {
    A.Let: "binds", A.Assign: "binds", A.Transfer: "binds", A.If: "nested", A.For: "nested",
    A.RepeatWhile: "nested", A.Do: "do", A.Move: "keeps", A.Shuffle: "keeps", A.Reveal: "keeps", A.Log: "keeps",
    A.EndGame: "keeps", A.SkipTo: "keeps", A.Fire: "keeps", A.Break: "keeps", A.ModeSwitch: "closure",
    A.GraphLink: "closure", A.Choose: "closure", A.Simultaneous: "closure",
}


def _treatment(st: A.Stmt) -> str:
    how = SCAN.get(type(st))
    if how is None:
        raise AssertionError(f"the locals cache has no rule for {type(st).__name__}: declare it in "
                             "interpreter/codegen/locals.py SCAN")
    return how


# ``s.counters`` in code (not inside a string literal written with ``repr``), and those literals.
_COUNTERS = re.compile(r"(?<![\w.])s\.counters\b")
_STRING = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")


def hoist_counters(loads: list[str], body: str, least: int = 3) -> tuple[list[str], str]:
    """``s.counters`` read once at the top of a function that uses it three times or more (``_cs``): a local
    costs less than an attribute on every read and write. The state's counter list is never replaced while a
    rule runs (only a clone gets a new one, as a new state), so the local names the same list throughout.
    ``least``: the reads that make it worth a local (one read in a loop is many). Left as it is where a string
    literal in the text holds ``s.counters`` (a ruleset's own text)."""
    found = len(_COUNTERS.findall(body))
    if found < least or len(_COUNTERS.findall(_STRING.sub("''", body))) != found:
        return loads, body
    return ["_cs = s.counters", *loads], _COUNTERS.sub("_cs", body)


# ------------------------------------------------------------ rule variables held in a fused function's locals
# ``env`` used other than as ``env['x']``, ``env.get('x', …)``, ``env.pop('x', …)`` or a plain argument of a named
# function (``_k12(s, env)``), or inside a nested scope, or the frame reached (``fr``, ``s.frames``): anything may
# then read or write a rule variable through it.
_NESTED = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)


class EnvUses(NamedTuple):
    """How a generated text uses ``env``. ``opaque``: something may read or write a rule variable through it
    unseen. Else ``spans``: each ``env['x']`` (line, start and end UTF-8 byte columns, variable, written);
    ``gets``/``pops``: variables read by ``env.get`` or removed by ``env.pop``; ``calls``: the functions handed
    ``env`` (name, argument position), whose own uses :func:`function_uses` tells."""

    opaque: bool
    spans: tuple[tuple[int, int, int, str, bool], ...] = ()
    gets: frozenset[str] = frozenset()
    pops: frozenset[str] = frozenset()
    calls: tuple[tuple[str, int], ...] = ()


_OPAQUE = EnvUses(True)


def _uses(tree: ast.AST, top: ast.AST | None = None) -> EnvUses:
    """The uses of ``env`` in ``tree`` (``top``: the function whose body it is, not a nested scope)."""
    nested: set[int] = set()
    seen: set[int] = set()
    spans = []
    gets: set[str] = set()
    pops: set[str] = set()
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, _NESTED) and node is not top:
            nested.update(id(sub) for sub in ast.walk(node) if sub is not node)
        if isinstance(node, ast.Name) and node.id == "fr" or isinstance(node, ast.Attribute) and node.attr == "frames":
            return _OPAQUE
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "env":
            if (not isinstance(node.slice, ast.Constant) or not isinstance(node.slice.value, str)
                    or isinstance(node.ctx, ast.Del) or node.end_col_offset is None or node.lineno != node.end_lineno):
                return _OPAQUE
            seen.add(id(node.value))
            spans.append((node.lineno - 1, node.col_offset, node.end_col_offset, node.slice.value,
                          isinstance(node.ctx, ast.Store)))
        elif isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "env"
                    and func.attr in ("get", "pop") and node.args and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str) and not node.keywords):
                (gets if func.attr == "get" else pops).add(node.args[0].value)
                seen.add(id(func.value))
            for i, arg in enumerate(node.args):
                if isinstance(arg, ast.Name) and arg.id == "env" and isinstance(func, ast.Name):
                    calls.append((func.id, i))
                    seen.add(id(arg))
    if any(isinstance(node, ast.Name) and node.id == "env" and (id(node) not in seen or id(node) in nested)
           for node in ast.walk(tree)):
        return _OPAQUE
    return EnvUses(False, tuple(spans), frozenset(gets), frozenset(pops), tuple(calls))


@functools.lru_cache(maxsize=8192)
def env_uses(text: str, expr: bool) -> EnvUses:
    """``text`` (statements at one indentation, or one expression when ``expr``) analysed by Python's own parser,
    so that a string literal holding ``env['x']`` is never taken for a read. Unparsable text is opaque."""
    if "env" not in text and "fr" not in text:
        return EnvUses(False)
    try:
        tree = ast.parse(text, mode="eval") if expr else ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return _OPAQUE
    return _uses(tree)


@functools.lru_cache(maxsize=8192)
def function_uses(text: str, at: int) -> EnvUses:
    """The uses of ``env`` by a generated function's text (``def f(s, env, …): …``) handed ``env`` as its
    argument ``at``: opaque unless that parameter is named ``env`` (the generators' convention)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return _OPAQUE
    defs = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    if len(defs) != 1 or len(tree.body) != 1:
        return _OPAQUE
    params = defs[0].args.posonlyargs + defs[0].args.args
    if at >= len(params) or params[at].arg != "env" or defs[0].args.vararg is not None:
        return _OPAQUE
    return _uses(defs[0], defs[0])


class Effects:
    """What the generated functions of one ruleset do to ``env``, by the constant name a text calls them by: the
    variables they (and what they hand ``env`` on to) read and write, or None where that cannot be told (a
    closure of the reference compiler, a function that hands ``env`` to one)."""

    def __init__(self, ns: dict[str, Any], texts: Callable[[], dict[str, str]]) -> None:
        self.ns = ns
        self.texts = texts  # code file name -> generated text (read when first needed)
        self.known: dict[str, str] | None = None
        self.memo: dict[tuple[str, int], tuple[frozenset[str], frozenset[str]] | None] = {}

    def of(self, uses: EnvUses) -> tuple[frozenset[str], frozenset[str]] | None:
        """The variables read and written through ``env`` by what a text with ``uses`` calls, and its own
        ``get``s and ``pop``s; None: something opaque."""
        if uses.opaque:
            return None
        reads, writes = set(uses.gets), set(uses.pops)
        for name, at in uses.calls:
            got = self.call(name, at)
            if got is None:
                return None
            reads |= got[0]
            writes |= got[1]
        return frozenset(reads), frozenset(writes)

    def call(self, name: str, at: int) -> tuple[frozenset[str], frozenset[str]] | None:
        key = (name, at)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = None  # a cycle is opaque
        fn = self.ns.get(name)
        code = getattr(fn, "__code__", None)
        if self.known is None:
            self.known = self.texts()
        text = self.known.get(code.co_filename) if code is not None else None
        got = None
        if text is not None:
            uses = function_uses(text, at)
            inner = self.of(uses)
            if inner is not None:
                got = (inner[0] | {sp[3] for sp in uses.spans if not sp[4]},
                       inner[1] | {sp[3] for sp in uses.spans if sp[4]})
        self.memo[key] = got
        return got


class HeldVars:
    """Rule variables a fused function (codegen/fuse.py) holds in Python locals instead of its frame's ``env``.

    A loop's variables are bound by the step machine's `for` step at every turn (``env['p'] = items[i]``) and read
    back by the statements of the turn; a fused function runs many turns in one call. Here the step binds a local
    (``_Fv1``), the texts written into the function read and write that local where they would use ``env['p']``,
    and ``env`` gets the value only where something else could see it: a return to the engine, a call, a choice,
    a text that hands ``env`` to a function it calls (opaque, :func:`env_uses`), and the error handler.

    The invariant that makes the handler simple: **a variable's local is bound only while it holds the variable's
    current value** (it is held). So wherever something other than this function's text may read or write the
    frame's ``env`` the dirty ones are written back and all are unbound (:meth:`release`), and the handler writes
    back every bound one into the current frame (a call run into or a return changes the frame: :meth:`forget`
    after the caller's :meth:`release`). ``maybe``: at the head of a function that turns through a loop, that
    loop's variables are bound after the first turn (``_Fn``, the completed turns' count, is then not 0: every
    way back to the head holds them, or the function is written again releasing them there), and are written
    back at the loop's end (:meth:`resolve`).
    """

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.held: dict[str, bool] = {}  # variable -> dirty (``env`` holds an older value)
        self.maybe: tuple[str, ...] = ()

    def local(self, var: str) -> str:
        name = self.names.get(var)
        if name is None:
            name = self.names[var] = f"_Fv{len(self.names) + 1}"
        return name

    def bind(self, names: Sequence[str]) -> str:
        """The assignment target for a `for` step binding ``names``: their locals, now held and dirty."""
        self.maybe = ()
        for var in names:
            self.held[var] = True
        return ", ".join(self.local(var) for var in names) + ("," if len(names) > 1 else "")

    def flush(self) -> list[str]:
        """Write the dirty variables back to ``env`` (they stay held: the two agree)."""
        out = [f"env[{var!r}] = {self.local(var)}" for var, dirty in self.held.items() if dirty]
        self.held = dict.fromkeys(self.held, False)
        return out

    def forget(self) -> list[str]:
        """Unbind every held variable's local without writing it: the frame changes or the value goes stale."""
        out = ["del " + ", ".join(self.local(var) for var in self.held)] if self.held else []
        self.held = {}
        return out

    def release(self) -> list[str]:
        """Before anything other than this function's text can use ``env``: written back and unbound."""
        return self.flush() + self.forget()

    def keep(self, names: Sequence[str]) -> list[str]:
        """A loop's next turn: only the head loop's variables stay held (the head resolves them, ``maybe``)."""
        others = {var: dirty for var, dirty in self.held.items() if var not in names}
        kept = {var: dirty for var, dirty in self.held.items() if var in names}
        self.held = others
        out = self.release()
        self.held = kept
        return out

    def resolve(self) -> list[str]:
        """At the head loop's end, variables the earlier turns of this call bound: written back and unbound (an
        ``if``, not a ``try``: it adds no block to Python's limit of 20 nested ones)."""
        if not self.maybe:
            return []
        names, self.maybe = self.maybe, ()
        return ["if _Fn:", *(f"    env[{var!r}] = {self.local(var)}" for var in names),
                "    del " + ", ".join(self.local(var) for var in names)]

    def rewrite(self, text: str, expr: bool, effects: Effects | None = None) -> tuple[list[str], str]:
        """Lines to write before ``text`` and ``text`` itself, reading and writing the held variables' locals.

        A variable a function the text calls reads (``effects``) is written back first and stays held (neither
        changes it during the text); one it writes, or reads while the text writes it, is written back and
        released. A text that hands ``env`` on where that cannot be followed is written as it is, after
        :meth:`release`."""
        assert not self.maybe, "a head loop's variables are resolved by its own step before any text"
        if not self.held:
            return [], text
        uses = env_uses(text, expr)
        if effects is not None:
            got = effects.of(uses)
        else:
            got = None if uses.opaque or uses.calls or uses.gets or uses.pops else (frozenset(), frozenset())
        if got is None:
            return self.release(), text
        reads, writes = got
        stored = {sp[3] for sp in uses.spans if sp[4]}
        out = {var for var in self.held if var in writes or (var in reads and var in stored)}
        pre = []
        for var in sorted(self.held.keys() & (reads | out)):
            if self.held[var]:
                pre.append(f"env[{var!r}] = {self.local(var)}")
                self.held[var] = False
        if out:
            pre.append("del " + ", ".join(self.local(var) for var in sorted(out)))
            self.held = {var: dirty for var, dirty in self.held.items() if var not in out}
        spans = [sp for sp in uses.spans if sp[3] in self.held]
        if not spans:
            return pre, text
        lines = (text if expr else textwrap.dedent(text)).split("\n")
        pad = "" if expr else text[:len(text) - len(text.lstrip(" "))]
        raw = [line.encode() for line in lines]
        for row, start, end, var, store in sorted(spans, reverse=True):
            raw[row] = raw[row][:start] + self.local(var).encode() + raw[row][end:]
            if store:
                self.held[var] = True
        done = [line.decode() for line in raw]
        return pre, "\n".join(done) if expr else "\n".join(pad + line if line else line for line in done)

    def back(self) -> list[str]:
        """The writes that leave ``env`` as the step machine would have it, without changing what is held."""
        return [f"env[{var!r}] = {self.local(var)}" for var, dirty in self.held.items() if dirty]

    def handler(self) -> str:
        """The error handler's part: every bound local written back (only a held one is bound)."""
        return "".join(f"        try:\n            env[{var!r}] = {name}\n        except NameError:\n"
                       "            pass\n" for var, name in self.names.items())

    def snapshot(self) -> tuple[dict[str, bool], tuple[str, ...]]:
        return dict(self.held), self.maybe

    def restore(self, snap: tuple[dict[str, bool], tuple[str, ...]]) -> None:
        self.held, self.maybe = dict(snap[0]), snap[1]


_BIND = re.compile(r"(_Fv\d+) = (_Fa\d+\[(?:_Fb\d+|0)\])")
_PASSING = re.compile(r"_Fb\d+ \+= 1|_Fb\d+ = 1|_Fq = \d+|fr\[1\] = \d+"
                      r"|env\['[^'\\]*'\] = (?:\(_Fa\d+, _Fb\d+\)|_Fv\d+)")


def direct_writes(lines: list[str]) -> list[str]:
    """A fused function's lines with each loop variable that is bound and written back before anything reads it
    (a `for` step followed by a call or a choice) written to ``env`` where it is bound, without the local.

    ``_Fv1 = _Fa1[_Fb1]``, then only lines that neither read it nor raise (the index moved on, positions, the
    frame's pc, other write-backs), then ``env['p'] = _Fv1`` and ``del _Fv1``: the same value reaches ``env``
    before those lines instead of after, where nothing can tell (the handler's write-back of an unbound local
    is skipped, as it is after the ``del``)."""
    out = list(lines)
    for i, line in enumerate(out):
        body = line.lstrip(" ")
        got = _BIND.fullmatch(body)
        if got is None:
            continue
        local, pad = got.group(1), line[:len(line) - len(body)]
        write = j = None
        for k in range(i + 1, len(out)):
            code = out[k].lstrip(" ")
            if out[k][:len(out[k]) - len(code)] != pad:
                break
            if code.startswith("env[") and code.endswith(f"] = {local}") and write is None:
                write = k
            elif code.startswith("del ") and local in code.removeprefix("del ").split(", "):
                j = k
                break
            elif not _PASSING.fullmatch(code) or re.search(rf"\b{local}\b", code):
                break
        if write is None or j is None:
            continue
        out[i] = pad + out[write].lstrip(" ").removesuffix(local) + got.group(2)
        out[write] = ""
        rest = [name for name in out[j].lstrip(" ").removeprefix("del ").split(", ") if name != local]
        out[j] = pad + "del " + ", ".join(rest) if rest else ""
    return [line for line in out if line]
