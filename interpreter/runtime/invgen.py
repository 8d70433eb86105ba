"""A declared invariant's generated function written out inline, for the whole check (:mod:`.checkgen`).

The written check called each declared invariant it evaluates as ``_f{k}(s, {})``: a Python frame, a fresh
environment dict, then the function's own reads of ``s.zones``, ``s.counters`` and ``s.tables`` (Bloodborne's hand
limit reads ``s.zones`` three times a player). Each invariant the expression code generator wrote (a text
:class:`codegen.source.Sources` loaded: ``def _a1084(s, env): ...``; the closures have no text) is taken here from
that very text and made into lines of the check: its locals renamed apart (``_L{k}_`` prefixed), the globals it
reads bound in the check's namespace under names of their own (``_V_`` prefixed, the same objects), its final
``return X`` an assignment of the invariant's value, and its reads of ``s.zones``, ``s.counters`` and ``s.tables``
the check's locals, loaded once before the invariants run.

Why it is the call's value, error and work: the lines are the function's own statements in its order, on the same
objects (its parameter ``s`` is the check's ``s``; where the text reads ``env`` a fresh ``{}`` is bound first, as the
call passed one; its globals are the objects its namespace held when the check was written, and the generated
namespace only gains names after a ruleset's compile); a RuleError it raises is raised in the check's
``try`` for that invariant, which reports it as the call's was; the only ``return`` is the last line. The state's
zone list, counter list and tables are not replaced while a check runs (the check writes none of them and no
expression assigns them: a text assigning one is not written here), so a read of the hoisted local is a read of
the attribute. A text that reads nothing of the work budget (no ``work``, no call of a generated function or a
closure, no ``env``) cannot see or change ``s.work``: its ``s.work = 0`` is left out, as nothing reads the budget
before the next invariant sets its own, or the check puts the game's back. Anything else — a closure, a free or
cell variable, a name neither local, global nor a builtin (a comprehension's or a lambda's), a ``return`` before
the end, a ``yield``, ``global``, ``def`` or ``class``, a text over :data:`MAX_LINES` — keeps the call.
"""

from __future__ import annotations

import builtins
import io
import keyword
import linecache
import tokenize
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ENABLED = True  # tests turn it off to compare with the calls this replaces
MAX_LINES = 60  # a longer function keeps its call (the check's text stays short)
HOISTED = {"zones": "_zs", "counters": "_cz", "tables": "_tz"}  # s.<attribute> -> the check's local
_PURE = frozenset({"len", "True", "False", "None"})  # builtins that read no budget
_REFUSE = frozenset({"yield", "global", "nonlocal", "def", "class", "lambda", "await", "async", "import", "del"})
_ASSIGN = frozenset({"=", "+=", "-=", "*=", "/=", "//=", "%=", "|=", "&=", "^=", "<<=", ">>=", "**=", "@="})


@dataclass
class Inline:
    """One invariant's lines (indented from column 0), the source of its value, the globals they read (by their
    names in the check) and whether they need a work budget of their own and which of :data:`HOISTED` they read."""

    lines: list[str]
    value: str
    binds: dict[str, Any]
    budget: bool
    hoisted: set[str]


def text_of(fn: Callable[..., Any]) -> list[str] | None:
    """The generated text that defined ``fn`` (kept in :mod:`linecache` by :class:`codegen.source.Sources` while
    its ruleset lives), or None for a function without one."""
    code = getattr(fn, "__code__", None)
    if code is None or getattr(fn, "__closure__", None) or code.co_firstlineno != 1:
        return None
    got = linecache.cache.get(code.co_filename)
    name = code.co_filename
    if got is None or len(got) != 4 or not name.startswith("<liturgy ") or f" {code.co_name} " not in name:
        return None
    lines = [line.rstrip("\n") for line in got[2]]
    if not lines or lines[0] != f"def {code.co_name}(s, env):" or len(lines) > MAX_LINES + 1:
        return None
    return lines


def inline(k: int, fn: Callable[..., Any]) -> Inline | None:
    """``fn``, invariant ``k``'s function, as lines of the check, or None where it keeps its call (module docstring)."""
    if not ENABLED:
        return None
    lines = text_of(fn)
    if lines is None:
        return None
    code = fn.__code__
    if code.co_argcount != 2 or code.co_varnames[:2] != ("s", "env") or code.co_cellvars or code.co_freevars:
        return None
    if not all(line.startswith("    ") for line in lines[1:]) or len(lines) < 2:
        return None
    rows = [line[4:] for line in lines[1:]]
    try:
        toks = list(tokenize.generate_tokens(io.StringIO("\n".join(rows) + "\n").readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    got = _Rewrite(k, set(code.co_varnames[2:]), fn.__globals__, len(rows))
    if not all(got.token(toks, i) for i in range(len(toks))):
        return None
    for row, start, end, new in sorted(got.edits, reverse=True):
        line = rows[row - 1]
        rows[row - 1] = line[:start] + new + line[end:]
    tail = rows.pop()
    if not tail.startswith("return "):
        return None
    if got.env:
        rows.insert(0, "env = {}")
    return Inline(rows, tail[len("return "):], got.binds, got.budget, got.hoisted)


class _Rewrite:
    """The renaming of one function's text, token by token (:meth:`token`), and what it found."""

    def __init__(self, k: int, local: set[str], space: dict[str, Any], last: int) -> None:
        self.k = k
        self.local = local  # the function's own variables (renamed ``_L{k}`` + name)
        self.space = space  # its globals (bound as ``_V`` + name)
        self.last = last  # the row of the only ``return`` allowed
        self.edits: list[tuple[int, int, int, str]] = []  # (row, start column, end column, replacement)
        self.binds: dict[str, Any] = {}
        self.hoisted: set[str] = set()
        self.budget = False
        self.env = False

    def token(self, toks: list[tokenize.TokenInfo], i: int) -> bool:
        """Take token ``i`` in: False where the text cannot be written out."""
        tok = toks[i]
        if tok.type == tokenize.STRING:  # an f-string's names are not tokens here: they would not be renamed
            return "f" not in tok.string[:tok.string.index(tok.string[-1])].lower()
        if tok.type != tokenize.NAME:
            return True
        name = tok.string
        prev = toks[i - 1].string if i else ""
        nxt = toks[i + 1].string if i + 1 < len(toks) else ""
        if name in _REFUSE or (name == "return" and tok.start != (self.last, 0)):
            return False
        if prev == ".":
            self.budget |= name == "work"
            return True
        if keyword.iskeyword(name):
            return True
        row, col = tok.start
        if name == "s":
            attr = toks[i + 2].string if nxt == "." and i + 2 < len(toks) else ""
            if attr in HOISTED:
                if i + 3 < len(toks) and toks[i + 3].string in _ASSIGN:
                    return False
                self.hoisted.add(attr)
                self.edits.append((row, col, toks[i + 2].end[1], HOISTED[attr]))
            return True
        if name == "env":
            self.env = self.budget = True
            return True
        if name in self.local:
            self.edits.append((row, col, tok.end[1], f"_L{self.k}{name}"))
            return True
        if name in self.space:
            if nxt in _ASSIGN:  # (a keyword argument's name, or a global assigned: not written here)
                return False
            obj = self.space[name]
            self.budget |= callable(obj) and nxt == "("
            self.binds[f"_V{name}"] = obj
            self.edits.append((row, col, tok.end[1], f"_V{name}"))
            return True
        if hasattr(builtins, name):
            self.budget |= name not in _PURE
            return True
        return False  # a comprehension's or lambda's variable: not a name of the function
