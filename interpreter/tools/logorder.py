"""Log lines written after the change they describe: narration would quote them under the wrong change.

Why: narration with causes (engine/causes.py) says each change a player sees under the last log line written
before it. A block that changes a counter and only then logs what happened ("h.hp -= 2" then "{} loses 2 Health
and hurries to {}") has the change said under the line before the block, and the line that describes it comes
after with nothing under it. The rulesets must log first, then change.

What is found (general, from the checked program alone): in one statement block, a `log` line that follows
changes of counters (assignments and transfers; not flags, which narration does not tell) made since the
block's previous log line, and that names what changed (the player or card whose counter it is, or the global
counter) without reading the changed value itself. A line that prints the value after the change ("the Vampire
track is at {}", vampires) reports a result and must come after; a line that only names who was changed can
move up. Card moves are left out: a log line's card arguments are shown or hidden by where each card lies when
the line is written, so moving a line across a move could change who reads a card's name.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from liturgy.dsl.checker.program import Program
from liturgy.dsl.frontend import ast as A

Path = tuple[str, tuple[str, ...]]  # a name and the fields read through it: `p.hp` is ("p", ("hp",))


@dataclass(frozen=True)
class LateLog:
    """A log line written after a change it describes: where, its text, and the counters changed before it."""

    file: str
    line: int
    text: str
    counters: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: log {self.text!r} follows the change of {', '.join(self.counters)} " \
               "it describes (narration would quote the line before it as the cause)"


def late_log_lines(prog: Program) -> list[LateLog]:
    """Every log line of ``prog`` (steps, procs, handlers, card effects) written after a counter change it
    describes, in the order of the program's blocks."""
    found: list[LateLog] = []
    for block in _blocks(prog):
        changed: list[tuple[str, Path, str | None]] = []  # (the name changed through, the path, a transfer's `as`)
        for st in block:
            if isinstance(st, A.Log):
                named = {n for arg in st.args for n in _names(arg)}
                read = {p for arg in st.args for p in _paths(arg)}
                hit = [path for root, path, bound in changed
                       if root in named and path not in read and (bound is None or bound not in named)]
                if hit:
                    found.append(LateLog(st.span.file, st.span.line, st.text,
                                         tuple(dict.fromkeys(".".join((r, *f)) for r, f in hit))))
                changed = []
            elif isinstance(st, A.Assign):
                changed.extend(_counter_change(prog, st.target, None))
            elif isinstance(st, A.Transfer):
                for end in (st.source, st.dest):
                    changed.extend(_counter_change(prog, end, st.bind))
            elif _nests(st):  # a branch or a loop may log inside: what came before it is not this block's own
                changed = []
    return found


def _counter_change(prog: Program, target: A.Expr, bound: str | None) -> list[tuple[str, Path, str | None]]:
    """The change a statement makes to a counter narration tells (not a flag), as (root name, path, `as` name)."""
    path = _path(target)
    if path is None:
        return []
    root, fields = path
    name = fields[-1] if fields else root
    decl = prog.counters.get(name)
    if decl is None or decl.is_flag or (not fields and decl.scope != "global"):
        return []
    return [(root, path, bound)]


def _nests(st: A.Stmt) -> bool:
    return any(isinstance(v, list) and any(isinstance(x, A.Stmt) for x in v)
               for v in (getattr(st, f.name) for f in dataclasses.fields(st))) or isinstance(st, A.If)


def _path(e: A.Expr) -> Path | None:
    fields: list[str] = []
    while isinstance(e, A.Attr):
        fields.append(e.name)
        e = e.obj
    return (e.id, tuple(reversed(fields))) if isinstance(e, A.Name) else None


def _children(e: Any) -> list[Any]:
    if isinstance(e, list | tuple):
        return list(e)
    if isinstance(e, A.Expr):
        return [getattr(e, f.name) for f in dataclasses.fields(e) if f.name not in ("ty", "ref")]
    return []


def _names(e: A.Expr) -> set[str]:
    """Every name an expression mentions."""
    out: set[str] = set()
    todo: list[Any] = [e]
    while todo:
        x = todo.pop()
        if isinstance(x, A.Name):
            out.add(x.id)
        todo.extend(_children(x))
    return out


def _paths(e: A.Expr) -> set[Path]:
    """Every name and field path an expression reads (`p.hp` reads ("p", ("hp",)) and ("p", ()))."""
    out: set[Path] = set()
    todo: list[Any] = [e]
    while todo:
        x = todo.pop()
        if isinstance(x, A.Attr | A.Name):
            path = _path(x)
            if path is not None:
                out.add(path)
        todo.extend(_children(x))
    return out


def _blocks(prog: Program) -> list[list[A.Stmt]]:
    """Every list of statements reachable from the program, each once."""
    out: list[list[A.Stmt]] = []
    seen: set[int] = set()
    todo: list[Any] = [prog]
    while todo:
        node = todo.pop()
        if id(node) in seen or isinstance(node, str | int | float | bool) or node is None:
            continue
        seen.add(id(node))
        if isinstance(node, list):
            if any(isinstance(x, A.Stmt) for x in node):
                out.append(node)
            todo.extend(node)
        elif isinstance(node, tuple):
            todo.extend(node)
        elif isinstance(node, dict):
            todo.extend(node.values())
        elif dataclasses.is_dataclass(node) and not isinstance(node, type):
            todo.extend(getattr(node, f.name) for f in dataclasses.fields(node) if f.name not in ("ty", "ref", "held"))
    out.sort(key=lambda b: (b[0].span.file, b[0].span.line, b[0].span.column))
    return out
