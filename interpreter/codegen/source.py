"""Every piece of generated Python goes through here: compiled, made visible, or refused cleanly.

Generated functions used to be ``exec(compile(text, "<liturgy …>"))`` at nine sites, so a traceback
through them showed ``<string>``-like names with no line, and nothing could print what runs. Here each
text is registered in :mod:`linecache` under its own file name (tracebacks show the generated line) and
kept in its generator's :class:`Sources` with the ruleset ``file:line`` it came from (``liturgy dump``
prints them). Text that Python refuses (nesting past its parser's limits, say) raises :class:`Refused`;
every caller then falls back to the reference closures, so a deep expression runs, never crashes.
"""
from __future__ import annotations

import itertools
import linecache
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from liturgy.dsl.diagnostics import Span
from liturgy.interpreter.codegen import codecache

_unique = itertools.count(1)


class Refused(Exception):
    """Python's compiler refused a generated text; the caller uses the closures instead."""


@dataclass(frozen=True)
class Generated:
    """One generated function: its file name in tracebacks, its text, and where in the ruleset it came from."""

    filename: str
    text: str
    origin: Span | None


@dataclass
class Sources:
    """The generated functions of one compiled ruleset, in the order they were made."""

    items: list[Generated] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.tag = next(_unique)  # file names stay unique across rulesets built in one process
        # forget the linecache entries when the ruleset goes (a fuzzer builds thousands of rulesets)
        weakref.finalize(self, _forget, self.items)

    def load(self, ns: dict[str, Any], name: str, kind: str, text: str, origin: Span | None = None,
             digest: str | None = None) -> Any:
        """Compile ``text`` (which defines ``name``) into ``ns`` and return the function it defines (``digest``: its
        SHA-256, when known, codecache.compiled)."""
        where = f" {origin.file}:{origin.line}" if origin is not None and origin.file else ""
        filename = f"<liturgy {kind} {name}{where} #{self.tag}>"
        try:
            code = codecache.compiled(text, filename, lambda: compile(text, filename, "exec"), digest)
        except (SyntaxError, RecursionError, MemoryError) as err:  # e.g. more than 200 nested parentheses
            raise Refused(f"{kind} {name}: {type(err).__name__}") from err
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        self.items.append(Generated(filename, text, origin))
        exec(code, ns)
        return ns.pop(name)

    def later(self, ns: dict[str, Any], name: str, kind: str, text: str,
              origin: Span | None = None) -> Callable[[], Any]:
        """:meth:`load` on the call of the function returned, ``text`` registered now (its place in :meth:`dump`,
        tracebacks). Compiled under the late bundle of the bundle open now (codecache.late), as a fused function
        is; a refused text is unregistered (codegen/lazypure.py)."""
        where = f" {origin.file}:{origin.line}" if origin is not None and origin.file else ""
        filename = f"<liturgy {kind} {name}{where} #{self.tag}>"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        item = Generated(filename, text, origin)
        self.items.append(item)
        bundle = codecache.stored_bundle()

        def load() -> Any:
            try:
                with codecache.late(bundle):
                    code = codecache.compiled(text, filename, lambda: compile(text, filename, "exec"))
            except (SyntaxError, RecursionError, MemoryError) as err:
                self.items.remove(item)
                linecache.cache.pop(filename, None)
                raise Refused(f"{kind} {name}: {type(err).__name__}") from err
            exec(code, ns)
            return ns.pop(name)

        return load

    def dump(self) -> str:
        """Every generated function, each headed by the ruleset line it came from."""
        out = []
        for g in self.items:
            known = g.origin is not None and g.origin.file
            head = f"# {g.origin.file}:{g.origin.line}" if known and g.origin else "# (several ruleset lines)"
            out.append(f"{head}  [{g.filename}]\n{g.text.rstrip()}\n")
        return "\n".join(out)


def _forget(items: list[Generated]) -> None:
    for g in items:
        linecache.cache.pop(g.filename, None)
