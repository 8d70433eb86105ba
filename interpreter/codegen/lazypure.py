"""A pure proc's, handler's or card effect's ``env`` form compiled on its first call, not with the ruleset.

Why: :meth:`.StmtGen.block_positional` writes such a body twice from one text: ``_sN(s, env)`` (``Callable_.pure``)
and ``_spN(s, a, b)`` taking its parameters by position (``Callable_.fast``). Generated callers call the
positional form wherever it exists (a `do`, a card effect's `do`, a `fire` whose handlers take the window's
arguments; :mod:`.procinline` writes it in place), so the ``env`` form runs only from the reference closures, a
call written before its callee was compiled (a proc calling one declared after it, or itself) and a `fire` whose
handler takes another number of parameters. Every ruleset still paid Python's ``compile`` (or, from the compile
cache, the bundle's lookup and ``exec``) of both: 324 of the four large rulesets' 8,432 texts, 1.6 % of
their counted cold compile (docs/performance.md, session 27).

Here the ``env`` form's text is written and registered as before (``liturgy dump`` and tracebacks list it, at
its place), but compiled on the first call of :class:`LazyPure`, which then puts the function in its
``Callable_``'s ``pure`` (:meth:`LazyPure.bind`): later calls reach it as they did, with no step between. Its
bytecode goes to the compile's late bundle (:func:`.codecache.late`, as the fused functions' traces do), so
processes sharing a compile cache compile each text once; the text is the same whether the ruleset came from
the cache or a fresh compile, and so is the function (tests/test_compile_cache.py).

Where Python refuses the positional text, the ``env`` form is compiled at once, as before (``Callable_.fast``
None). Where Python accepted it but refuses the ``env`` form later (not expected: the two texts have the same
statements and nesting), the ``env`` form calls the positional one with ``env``'s parameters.
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from liturgy.interpreter.codegen.source import Refused

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from liturgy.interpreter.codegen.stmtgen import StmtGen
    from liturgy.interpreter.compiler.code import Callable_

ENABLED = True  # off: both forms compiled with the ruleset, as before (tests compare both)

_LOCK = threading.Lock()  # one thread compiles a form; another finds it made


class LazyPure:
    """``f(s, env)``: the ``env`` form, compiled by ``make`` on the first call (see the module's doc)."""

    __slots__ = ("fn", "make", "owner")

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make
        self.fn: Any = None
        self.owner: Callable_ | None = None

    def __call__(self, s: Any, env: dict[str, Any]) -> Any:
        fn = self.fn
        if fn is None:
            fn = self.made()
        return fn(s, env)

    def made(self) -> Any:
        """The compiled ``env`` form, compiled now if not yet, and put in the owner's ``pure``."""
        with _LOCK:
            fn = self.fn
            if fn is None:
                fn = self.fn = self.make()
                owner = self.owner
                if owner is not None and owner.pure is self:
                    owner.pure = fn
        return fn

    def bind(self, owner: Callable_) -> None:
        """Put the compiled form in ``owner.pure`` (where this is) once made (compiler/code.py ``owned``)."""
        self.owner = owner



def both(sg: StmtGen, name: str, code: str, origin: Any, params: Sequence[str],
         resolved: tuple[list[str], str], marks: int) -> tuple[Any, Any] | None:
    """:meth:`.StmtGen.block_positional`'s two forms: the ``env`` form ``name`` (text ``code``) lazily where the
    positional form (from ``resolved``) compiled, else at once; None where Python refuses both."""
    gen = sg.gen
    later = gen.sources.later(gen.ns, name, "stmt", code, origin)  # registered here: `liturgy dump`'s order
    fast = sg._positional(params, resolved)
    if fast is None or not ENABLED:
        try:
            pure = later()
        except Refused:
            del sg.comp.log_formats[marks:]  # the closure compiler registers these formats again, in order
            return None
        return pure, fast
    names = tuple(params)

    def make() -> Any:
        try:
            return later()
        except Refused:  # not expected (see the module's doc): the positional form, given env's parameters
            return lambda s, env: fast(s, *[env[p] for p in names])

    return LazyPure(make), fast
