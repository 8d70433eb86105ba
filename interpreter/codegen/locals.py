"""Rule variables held in Python locals inside generated statement functions, kept in step with ``env``.

:class:`Locals` tracks which variables a generated function may read from a Python local (and whether they
can be `none`); :func:`_scan` finds what a block writes and whether it may invalidate those locals.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

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
