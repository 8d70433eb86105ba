"""Rule modes (`mode NAME { … }`): how a mode's declarations are named, scoped, guarded and placed.

A mode is checked and compiled with the ruleset, so it needs no machinery of its own at run time:

- **Names.** A mode's counters, zones, `fn`s and `proc`s are stored under qualified names (``haunt.ritual``)
  and are visible by their short names only inside the mode (its handlers, steps, fns and procs); the core,
  card files and other modes cannot name them. A short name may not also be a core name (E372), so a name
  inside a mode never silently means something else. Two modes may use the same short names.
- **State.** Each mode has an on/off flag, a global flag counter named ``mode NAME`` (not a name an author can
  write), and its own counters and zones exist from the start like the core's: entering a mode only sets its
  flag, so saves, digests, clones and views need nothing new.
- **Guards.** A mode's handlers and steps run only while its flag is set: their bodies are wrapped in
  ``if <flag> { … }`` (:func:`guard`), which every compile mode already compiles.
- **Steps.** A mode's `step NAME after|before STEP` is placed into the round next to that step
  (:func:`place_steps`); steps placed after the same step keep the order they are declared in.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from liturgy.dsl.diagnostics import Diagnostic, Span, did_you_mean
from liturgy.dsl.frontend import ast as A

if TYPE_CHECKING:  # program.py imports this module for ModeInfo
    from liturgy.dsl.checker.program import Program


def flag_name(mode: str) -> str:
    """The name of a mode's on/off flag counter: a space keeps it out of every author's namespace."""
    return f"mode {mode}"


@dataclass
class ModeInfo:
    """One checked mode: its flag and what it declares (by short name), and the bodies checked in its scope."""

    decl: A.ModeDecl
    flag: A.CounterDecl
    zones: dict[str, A.ZoneDecl] = field(default_factory=dict)
    counters: dict[str, A.CounterDecl] = field(default_factory=dict)
    fns: dict[str, A.FnDecl] = field(default_factory=dict)
    procs: dict[str, A.ProcDecl] = field(default_factory=dict)
    handlers: list[A.HandlerDecl] = field(default_factory=list)
    steps: list[A.StepDecl] = field(default_factory=list)
    names: dict[str, Span] = field(default_factory=dict)  # every short name it declares (zones, counters, …)
    owned: set[int] = field(default_factory=set)  # id() of its fns, procs, handlers and steps
    named: bool = False  # an expression outside it names the mode (`enter haunt`, `active(haunt)`, `let m = haunt`)
    inside: bool = False  # its own bodies are being checked (they run only while it is active: no way in)

    @property
    def name(self) -> str:
        return self.decl.name


def new_mode(d: A.ModeDecl) -> ModeInfo:
    flag = A.CounterDecl(d.span, flag_name(d.name), "global", True, None, None, None, None, False)
    return ModeInfo(d, flag)


def qualify(mode: ModeInfo, decl: A.ZoneDecl | A.CounterDecl | A.FnDecl | A.ProcDecl) -> str:
    """Rename a mode's declaration to ``MODE.NAME`` (its key in the program and the state); the short name."""
    short = decl.name
    decl.name = f"{mode.name}.{short}"
    mode.names[short] = decl.span
    return short


def guard(mode: ModeInfo, body: list[A.Stmt], span: Span) -> list[A.Stmt]:
    """``body`` run only while the mode is active: ``if <the mode's flag> { body }``."""
    return [A.If(span, [(A.Name(span, id=mode.flag.name), body)], [])]


def mode_of(prog: Program, decl: object) -> ModeInfo | None:
    """The mode that declares this fn, proc, handler or step (None: the core's)."""
    for m in prog.modes.values():
        if id(decl) in m.owned:
            return m
    return None


@contextmanager
def scope(prog: Program, decl: object) -> Iterator[None]:
    """While checking ``decl``'s body: its mode's short names resolve (on top of the core's), else nothing."""
    m = mode_of(prog, decl)
    if m is None:
        yield
        return
    saved = prog.zones, prog.counters, prog.fns, prog.procs
    prog.zones = {**prog.zones, **m.zones}
    prog.counters = {**prog.counters, **m.counters}
    prog.fns = {**prog.fns, **m.fns}
    prog.procs = {**prog.procs, **m.procs}
    m.inside = True
    try:
        yield
    finally:
        prog.zones, prog.counters, prog.fns, prog.procs = saved
        m.inside = False


def place_steps(prog: Program) -> list[Diagnostic]:
    """Put every mode's steps into the round next to their anchors (E371: no such step; E372: a step name
    already used); each step's body is guarded by its mode's flag."""
    diags: list[Diagnostic] = []
    steps = list(prog.steps)
    after: dict[str, list[str]] = {}  # anchor -> steps placed after it so far, in order
    for m in prog.modes.values():
        for st in m.steps:
            names = [s.name for s in steps]
            if st.name in names:
                diags.append(Diagnostic("E372", "error", f"step `{st.name}` of mode `{m.name}` is already a step of "
                                        "the round", st.span, "give the mode's step its own name"))
                continue
            if st.anchor not in names:
                diags.append(Diagnostic("E371", "error", f"mode `{m.name}` places step `{st.name}` {st.place} "
                                        f"unknown step `{st.anchor}`", st.anchor_span,
                                        did_you_mean(st.anchor, names) or "name a step of the `round` block"))
                continue
            if st.place == "before":
                at = names.index(st.anchor)
            else:
                chain = [st.anchor, *after.get(st.anchor, [])]
                at = max(names.index(n) for n in chain) + 1
                after.setdefault(st.anchor, []).append(st.name)
            st.body = guard(m, st.body, st.span)
            steps.insert(at, st)
    prog.steps = steps
    return diags


def never_named(prog: Program) -> list[ModeInfo]:
    """Modes nothing can enter: no expression outside them names them and no card's `mode` field holds them
    (W065). A mode's own bodies run only while it is active, so naming itself there cannot let it in."""
    held: set[str] = set()
    for c in prog.cards:
        types = prog.field_types.get(c.kind, {})
        held.update(v for k, v in c.values.items() if isinstance(v, str) and k in types
                    and types[k].kind == "mode")
    return [m for m in prog.modes.values() if not m.named and m.name not in held]
