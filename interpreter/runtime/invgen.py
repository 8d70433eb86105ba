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

The check is written per tables, so a loop over the seats (``for x in s.tables.players``) is written seat by seat
for the tables' seats, each ``_Ks…[x]``-style lookup of a tuple of ints folded to its int (:func:`unrolled`: the
hand limit's three zone sizes a seat become ``len(_zs[11])``…); the check gives way to the engine's method on a
state whose tables are not those (checkgen's guard).
"""

from __future__ import annotations

import builtins
import io
import keyword
import linecache
import re
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
    seats: bool = False  # a loop over the tables' seats is written seat by seat (:func:`unrolled`)


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


MAX_SEATS = 8  # a loop over more seats stays a loop
MAX_UNROLLED = 120  # lines of one invariant's unrolled loops, at most
_SEATS = re.compile(r"( *)for (_L\d+\w+) in (_tz\.players|_L\d+\w+):")
_SET = r"\b{0}\s*(?:(?:[-+*/%|&^@]|//|<<|>>|\*\*)?=(?!=)|:=)|\bfor\s+{0}\b"  # an assignment of a name
_ONCE = re.compile(r"(_L\d+\w+) = _tz\.players")  # at the top level: run before any loop below it


def unrolled(got: Inline, players: tuple[int, ...]) -> Inline | None:
    """``got`` with each loop over the seats (``for X in _tz.players:``) written seat by seat for ``players``, the
    tables' seats, and each ``_V…[X]`` of a tuple of ints folded to the int it is; None where nothing was unrolled.

    The check is written per tables and runs only where ``s.tables`` is those tables (checkgen guards its head), so
    ``_tz.players`` is ``players``. The iterations are the loop's, in its order, with the variable replaced by the
    seat; a ``break`` of this loop leaves a ``while True:`` around them (the last line a ``break``), an inner loop's
    stays its own. Not unrolled: a ``continue``, a ``for … else``, a variable read after the loop or assigned in it,
    a line with ``break`` and more, over :data:`MAX_SEATS` seats or :data:`MAX_UNROLLED` lines."""
    if not ENABLED or len(players) > MAX_SEATS:
        return None
    rows = list(got.lines)
    done = False
    i = 0
    seats = {m[1]: j for j, r in enumerate(rows) if (m := _ONCE.fullmatch(r)) is not None}  # locals: the seats
    seats = {y: j for y, j in seats.items() if sum(len(re.findall(_SET.format(y), r)) for r in rows) == 1}
    while i < len(rows):
        m = _SEATS.fullmatch(rows[i])
        if m is None or (m[3] != "_tz.players" and seats.get(m[3], i) >= i):
            i += 1
            continue
        new = _unroll_at(rows, i, len(m[1]), m[2], got, players)
        if new is None:
            i += 1
            continue
        rows = new
        done = True
    if not done or len(rows) > MAX_UNROLLED + len(got.lines):
        return None
    text = "\n".join([*rows, got.value])
    return Inline(rows, got.value, got.binds, got.budget, {a for a in got.hoisted if re.search(
        rf"\b{HOISTED[a]}\b", text)}, True)


def _indent(row: str) -> int:
    return len(row) - len(row.lstrip(" "))


def _unroll_at(rows: list[str], at: int, d: int, x: str, got: Inline,
               players: tuple[int, ...]) -> list[str] | None:
    """``rows`` with the seats' loop at line ``at`` (indent ``d``, variable ``x``) unrolled, or None."""
    end = at + 1
    while end < len(rows) and _indent(rows[end]) > d:
        end += 1
    body = rows[at + 1:end]
    inner = d + 4
    if not body or (end < len(rows) and rows[end].strip().startswith("else")) or not all(
            r.startswith(" " * inner) for r in body):
        return None
    outside = [*rows[:at], *rows[end:], got.value]
    if any(re.search(rf"\b{x}\b", r) for r in outside):
        return None
    own_break = False
    for k, row in enumerate(body):
        if re.search(r"\b(continue|break)\b", row) is None:
            continue
        if row.strip() != "break":
            return None
        own_break |= not _in_inner_loop(body, k)
    try:
        toks = list(tokenize.generate_tokens(io.StringIO("\n".join(r[inner:] for r in body) + "\n").readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    for n, tok in enumerate(toks):  # the variable only read in the body
        if tok.type == tokenize.NAME and tok.string == x:
            nxt = toks[n + 1].string if n + 1 < len(toks) else ""
            prev = toks[n - 1].string if n else ""
            if nxt in _ASSIGN or nxt == ":=" or prev in ("for", "as"):
                return None
    pad = " " * (inner if own_break else d)
    out = [*rows[:at]]
    if own_break:
        out.append(" " * d + "while True:")
    for seat in players:
        lines = [r[inner:] for r in body]
        for at_row, start, stop, text in sorted(_seat_edits(toks, x, seat, got.binds), reverse=True):
            lines[at_row - 1] = lines[at_row - 1][:start] + text + lines[at_row - 1][stop:]
        out += [pad + line for line in lines]
    if own_break:
        out.append(pad + "break")
    return [*out, *rows[end:]]


def _in_inner_loop(body: list[str], k: int) -> bool:
    """Whether line ``k`` of ``body`` is inside a loop that starts in ``body`` (its ``break`` is that loop's)."""
    level = _indent(body[k])
    for j in range(k - 1, -1, -1):
        ind = _indent(body[j])
        if ind < level:  # the next enclosing line
            if re.match(r" *(for|while) ", body[j]):
                return True
            level = ind
    return False


def _seat_edits(toks: list[tokenize.TokenInfo], x: str, seat: int,
                binds: dict[str, Any]) -> list[tuple[int, int, int, str]]:
    """The edits writing ``seat`` for ``x``: ``_V…[x]`` (or ``[(x)]``, or an int) of a tuple holding an int there
    as that int, any other ``x`` as the seat."""
    edits: list[tuple[int, int, int, str]] = []
    n = 0
    while n < len(toks):
        tok = toks[n]
        if tok.type == tokenize.NAME and tok.string in binds and type(binds[tok.string]) is tuple:
            got = _index(toks, n + 1, x, seat)
            if got is not None:
                at, stop = got
                table = binds[tok.string]
                after = toks[stop + 1].string if stop + 1 < len(toks) else ""
                if (0 <= at < len(table) and type(table[at]) is int and toks[stop].start[0] == tok.start[0]
                        and after not in _ASSIGN):
                    edits.append((tok.start[0], tok.start[1], toks[stop].end[1], repr(table[at])))
                    n = stop + 1
                    continue
        if tok.type == tokenize.NAME and tok.string == x:
            edits.append((tok.start[0], tok.start[1], tok.end[1], repr(seat)))
        n += 1
    return edits


def _index(toks: list[tokenize.TokenInfo], n: int, x: str, seat: int) -> tuple[int, int] | None:
    """Where tokens from ``n`` are ``[i]``, ``[(i)]`` with ``i`` the variable ``x`` or an int: (the index, the
    position of the closing bracket)."""
    parts = [t.string for t in toks[n:n + 5]]
    for shape in (3, 5):
        got = parts[:shape]
        if len(got) < shape or got[0] != "[" or got[-1] != "]":
            continue
        if shape == 5 and (got[1], got[3]) != ("(", ")"):
            continue
        item = got[1] if shape == 3 else got[2]
        if item == x:
            return seat, n + shape - 1
        if item.isdigit():
            return int(item), n + shape - 1
    return None
