"""Choice instructions (`choose`, `simultaneously … choose`) written as one generated function each.

The closure versions in :mod:`.compiler` call a closure for the option source (a zone read through a
``seq`` lambda that calls the zone-index closure), one for the chooser and one for the filter: three to
five Python calls per choice before any work is done. Here the source, the chooser and the zone index are
written into the instruction's text (:mod:`.codegen` writes the expressions), so a choice costs one call
plus its `where` filter. The options, their order, the pending tuple, the errors and the program counters
are exactly the closures': the text follows them statement for statement, and tests/test_codegen.py plays
every ruleset both ways.

Safety: as in :mod:`.codegen`, the text is built from this module's templates, integers and ``repr``
literals; every other value is passed in the namespace under a generated name.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from liturgy.dsl.diagnostics import Span
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import gridgen, inline_aggregates, seatgate
from liturgy.interpreter.codegen.locals import _scan
from liturgy.interpreter.compiler.code import UNITS

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.exprgen import ExprGen
    from liturgy.interpreter.compiler.code import Ins


class ChoiceGen:
    """Writes the step-machine instruction of one choice."""

    def __init__(self, gen: ExprGen) -> None:
        self.gen = gen
        # id(instruction) -> (instruction, its lines after ``env = fr[2]``): the fuser writes a choice into the
        # fused function that reaches it (each ``return True``/``return False`` there becomes that function's)
        self.texts: dict[int, tuple[Ins, list[str]]] = {}
        # id(instruction) -> what a playout's fused function needs to pick that choice in place (codegen/fusepick.py):
        # ("choose", var, body pc, end pc, optional) or ("simul", key, next pc); the texts' last lines suspend
        self.plans: dict[int, tuple[Any, ...]] = {}
        # id(filter) -> (filter, items' name, result's name, its loop's lines): a `simultaneously`'s option filter
        # (scans.plain_filter) as lines to write into the choice's own loop, in place of a call per player
        self.filters: dict[int, tuple[Any, str, str, list[str]]] = {}

    @contextmanager
    def body(self, st: A.Choose) -> Iterator[None]:
        """Generate the choice's body knowing the chosen value's range: the option is an item of the source
        (``apply`` takes an index into the options, and a save is replayed through it), so a choice from a
        constant ``range`` binds a variable inside it while the body writes it nowhere (as a `for` loop's)."""
        gen = self.gen
        saved = gen.var_ranges
        written, invalid = _scan(st.body, gen.comp)
        known = None if invalid or st.var in written else gridgen.loop_range(gen, st.source)
        gen.bind_range(st.var, None, known)
        try:
            yield
        finally:
            gen.var_ranges = saved

    def _items(self, e: A.Expr) -> str:
        """Source for what a choice draws its options from: a zone's live list, or the list value."""
        t = e.ty
        if t is not None and t.kind == "zone":
            z = self.gen._zone(e)
            return f"s.zones[{z if z is not None else self.gen.src(e)}]"
        return self.gen.src(e)

    @staticmethod
    def _filter_lines(inline: tuple[Any, str, str, list[str]], items: str, pad: str) -> list[str]:
        """An option filter's own lines (scans.plain_filter), run where its call was: the items read once, then
        the same hoisted reads, the same `env` writes in the same order (so an error inside it leaves the same
        state and message), and the same new tuple as ``options``; no call, no frame."""
        _, it, out, body = inline
        return [f"{pad}{it} = {items}", *(pad + line for line in body), f"{pad}options = tuple({out})"]

    def _compile(self, prefix: str, lines: list[str], origin: Span, plan: tuple[Any, ...] | None = None) -> Ins:
        gen = self.gen
        name = gen._name(prefix)
        code = f"def {name}(s, fr):\n" + "".join(f"    {line}\n" for line in lines)
        fn: Ins = gen.sources.load(gen.ns, name, "choice", code, origin)
        self.texts[id(fn)] = (fn, lines[1:])
        if plan is not None:
            self.plans[id(fn)] = plan
        return fn

    def choose(self, st: A.Choose, wf: Any, at: int, none_pc: int, always_ask: bool, has_none: bool,
               fmt_id: int) -> Ins:
        """`choose`: see `Compiler.emit_choose` for the closure this mirrors line by line."""
        gen = self.gen
        span = st.span
        lines = ["env = fr[2]"]
        items = self._items(st.source)
        # a constant, non-empty tuple (an enum's values): it is its own `tuple(...)`, and it is never empty
        fixed = wf is None and isinstance(known := gen.ns.get(items), tuple) and type(known) is tuple and known != ()
        if fixed:
            lines.append(f"options = {items}")
        elif wf is None:
            lines.append(f"options = tuple({items})")
        elif (inline := self.filters.get(id(wf))) is not None and inline[0] is wf:
            lines += self._filter_lines(inline, items, "")  # the filter's loop here, not a call (as in `collect`)
        else:
            lines.append(f"options = {gen.const(wf)}(s, env, {items})")
        if not always_ask and not fixed:
            lines += ["if not options:", f"    fr[1] = {none_pc}"]
            if not has_none and not st.optional:
                msg = f"no legal option for the choice at {span.file}:{span.line} and no `otherwise` branch"
                lines.append(f"    raise _RuleError({msg!r})")
            else:
                lines.append("    return False")
        lines += [f"p = {gen.src(st.chooser)}", "if p is None:",
                  f"    raise _RuleError({f'no player to make the choice at line {span.line}'!r})"]
        opts = "(*options, None)" if st.optional else "options"
        lines += [f"s.pending = ('choose', p, {opts}, {st.var!r}, {at + 1}, {none_pc}, {fmt_id})", "return True"]
        return self._compile("_choose", lines, st.span, ("choose", st.var, at + 1, none_pc, st.optional))

    def collect(self, st: A.Simultaneous, wf: Any, key: str, at: int, end: int, fmt_id: int) -> Ins:
        """`simultaneously … choose`: see `Compiler.emit_simultaneous` for the closure this mirrors."""
        gen = self.gen
        span = st.span
        pvar, var = st.player_var, st.var
        lines = ["env = fr[2]", "per = []"]
        built = inline_aggregates.seat_items_lines(gen, st.players) if st.by is None else None
        gated = None if built is None else seatgate.gate(*built, "p")  # only expressions below: (a) of seatgate
        if gated is not None:  # the seats' filter as a gate in the collecting loop, no list (seatgate.py)
            lines += [*gated[0], f"for p in {gated[1]}:", *gated[2], f"    env[{pvar!r}] = p"]
        elif built is not None:  # the seats' loop written here, not a loop function's call (inline_aggregates.py)
            lines += [*built[0], f"for p in {built[1]}:", f"    env[{pvar!r}] = p"]
        elif st.by is None:
            lines += [f"for p in tuple({self._items(st.players)}):", f"    env[{pvar!r}] = p"]
        else:  # one entry per unit, decided by the player `by` names (the units wait beside the loop's key)
            lines += [f"units = tuple({self._items(st.players)})", "for u in units:", f"    env[{pvar!r}] = u",
                      f"    p = {gen.src(st.by)}", "    if p is None:",
                      f"        raise _RuleError({f'no player to make the choice at {span.file}:{span.line}'!r})"]
        inline = self.filters.get(id(wf))
        if wf is None:
            lines.append(f"    options = tuple({self._items(st.source)})")
        elif inline is not None and inline[0] is wf:
            lines += self._filter_lines(inline, self._items(st.source), "    ")
        else:
            # the filter reads its items once and returns a new tuple: a zone's live list needs no copy first
            lines.append(f"    options = {gen.const(wf)}(s, env, {self._items(st.source)})")
        msg = f" has no legal option for the choice at {span.file}:{span.line}"
        lines += ["    if not options:", f"        raise _RuleError(f'P{{p + 1}}' + {msg!r})",
                  "    per.append((p, options))",
                  f"env.pop({pvar!r}, None)", f"env.pop({var!r}, None)",
                  "if not per:", f"    fr[1] = {end}", "    return False",
                  *([] if st.by is None else [f"env[{key + UNITS!r}] = units"]),
                  f"s.pending = ('simul', tuple(per), {key!r}, {at + 1}, {fmt_id})", "s.commits = {}", "return True"]
        # with `by`, the units wait beside the key for the engine's pick (Game._pick): not picked in place
        return self._compile("_collect", lines, st.span, ("simul", key, at + 1) if st.by is None else None)
