"""The temporaries of the texts written into a fused function, renamed from one pool of locals by their lifetimes.

A statement run, a choice and a condition were each the body of a generated function of their own: every
temporary such a text stores is that function's local, bound before it is read, and dead when the text ends (no
later text reads it: a fused function's own state is its ``_F…`` locals). Written into a fused function with
their names unique in the ruleset (``_t883``, ``_E884``, ``_x905``…), every text's temporaries were locals of
the whole function, and Python 3.11 sets every local slot of a frame to NULL at the call and clears it at the
return, whichever path the call takes: Bloodborne's hottest fused function had 97 locals, and its fused calls
cleared 8.6 k slots a game.

Each text's temporaries are renamed ``_R0``, ``_R1``… here (session 22 built the renaming by text, per run;
session 25 added choices, f-strings and lifetimes): texts on different paths or one after another share the
slots, and within one text two temporaries whose lifetimes do not overlap share one. A temporary's lifetime is
the lines from its first to its last occurrence, widened to the whole of every loop it occurs in (a value read
in a later turn, or the loop's own variable); a generated text is structured Python (``if``, ``for``,
``while``, ``try``, ``break``, ``continue``; a raise or return leaves the text), so every way from a write of a
temporary to a read of it stays within those lines, and a temporary given the same slot is neither written nor
read there. Two lifetimes share a slot only where one ends on a line before the other begins. Bloodborne's
hottest fused function: 97 → 42 locals by texts, 31 by lifetimes; its fused calls clear 3.4 k slots a game
(docs/performance.md, "Session 25: fused frames").
"""

from __future__ import annotations

import functools
import re
import types

# a generated temporary (``_t37``, ``_E46``, ``_it51``; group 4): a prefix and the generator's counter, not an
# attribute or part of a longer name; ``_F…`` are the fused function's own (pc, loop pairs, held variables), never
# a text's. Matched with the plain string literals around it (text in a string is never renamed), with a one-line
# f-string (group 2: left as it is, and the whole text too if it holds one of the text's own temporaries: its
# braces are code, its other characters are not), and with what it does not read exactly (group 1: a
# triple-quoted string or a name of the pool already; group 3: another prefixed string): the text is then left
# as it is.
_TEMP = re.compile(r"""(\'\'\'|\"\"\"|(?<![\w.])_R[0-9])|((?<!\w)[fF](?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"))|"""
                   r"""(\w['"])|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|(?<![\w.])(_(?!F)[A-Za-z]+[0-9]+)\b""")
_WORD = re.compile(r"\w+")
_NAME = re.compile(r"_(?!F)[A-Za-z]+[0-9]+")
_WALRUS = re.compile(r"(?<![\w.])(_(?!F)[A-Za-z]+[0-9]+) :=")
# a string literal (one line; the text holds no other kind when it is renamed): dropped before brackets are counted
# or walrus targets read
_STRING = re.compile(r"'(?:[^'\\\n]|\\.)*'" r'|"(?:[^"\\\n]|\\.)*"')


@functools.lru_cache(maxsize=4096)
def pooled_expr(text: str) -> str:
    """A condition's or a loop's sequence's text (one line) with its own temporaries (the walrus names it caches
    parts in, read within it alone: it was the body of an instruction's function) renamed from the same pool
    as the runs' (:func:`pooled`)."""
    if "\n" in text or ":=" not in text:
        return text
    if "lambda" in text or " for " in text:  # a nested scope: which names are its own is Python's to say
        return pooled([f"return ({text})"])[0][8:-1]
    # an expression without a nested scope stores only its walrus targets (outside its string literals): no
    # compile needed to know them (a ruleset's fusing met a few hundred conditions)
    own = frozenset(_WALRUS.findall(_STRING.sub("''", text)))
    return pooled([f"return ({text})"], own=own)[0][8:-1]


def loops(lines: list[str]) -> list[tuple[int, int]] | None:
    """The (first, last) line of every loop of a text (its ``for``/``while`` header and indented body), or None
    where a statement goes on to another line (an open bracket, a backslash): a block's extent read from the
    indentation would then not be exact."""
    found: list[tuple[int, int]] = []
    open_: list[tuple[int, int]] = []  # (indentation, header line) of the loops around the line
    last = 0
    for i, line in enumerate(lines):
        body = line.lstrip(" ")
        if not body:
            continue
        bare = _STRING.sub("", body)
        if bare.endswith("\\") or sum(map(bare.count, "([{")) != sum(map(bare.count, ")]}")):
            return None
        pad = len(line) - len(body)
        while open_ and pad <= open_[-1][0]:
            found.append((open_.pop()[1], last))
        if body.startswith(("for ", "while ")) and body.endswith(":"):
            open_.append((pad, i))
        last = i
    found.extend((start, last) for _, start in open_)
    return found


def slots(spans: list[tuple[int, str]], blocks: list[tuple[int, int]] | None) -> dict[str, str]:
    """Each temporary's pool name, from its occurrences (line, name) in text order: lifetimes that do not overlap
    share a name (``blocks``: the text's loops; None: every temporary lives through the whole text)."""
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for row, name in spans:
        first.setdefault(name, row)
        last[name] = row
    if blocks is None:
        return {name: f"_R{n}" for n, name in enumerate(first)}
    for name in first:
        lo, hi = first[name], last[name]
        moved = True
        while moved:  # a loop it occurs in is all its own (nested loops: the outer one's too)
            moved = False
            for start, end in blocks:
                if start <= hi and lo <= end and (start < lo or end > hi):
                    lo, hi, moved = min(lo, start), max(hi, end), True
        first[name], last[name] = lo, hi
    ends: list[int] = []  # the last line of each pool name's latest lifetime
    out: dict[str, str] = {}
    for name in sorted(first, key=lambda name: first[name]):  # stable: in order of appearance on a line
        free = next((n for n, end in enumerate(ends) if end < first[name]), None)
        if free is None:
            free = len(ends)
            ends.append(0)
        ends[free] = last[name]
        out[name] = f"_R{free}"
    return out


def pooled(lines: list[str], code: types.CodeType | None = None, own: frozenset[str] | None = None) -> list[str]:
    """A text's lines with its own temporaries renamed from the pool (the module's docstring).

    Renamed: the text's locals as Python compiles them (so never a constant or a global it reads) of the
    generators' form; a text Python does not compile as a function's body, with a variable a nested function
    reads, or with a string the pattern does not read exactly, is left as it is. ``code``: the compiled function
    whose body the lines are, when there is one (its locals, without compiling the text again); ``own``: the
    names it stores, where they are known without compiling it (:func:`pooled_expr`).
    """
    if own is None:
        fn = code
        if fn is None:
            try:
                module = compile("def _f():\n" + "\n".join(" " + line for line in lines), "<pool>", "exec")
            except SyntaxError:
                return lines
            fn = next(c for c in module.co_consts if isinstance(c, types.CodeType))
        if fn.co_cellvars or fn.co_freevars:
            return lines
        own = frozenset(fn.co_varnames)
    text = "\n".join(lines)
    found: list[tuple[int, int, str]] = []  # (start, end, name) of each occurrence
    for m in _TEMP.finditer(text):
        name = m[4]
        if name is not None and name in own:
            found.append((m.start(), m.end(), name))
        elif m[1] is not None or m[3] is not None or (
                m[2] is not None and any(_NAME.fullmatch(word) and word in own for word in _WORD.findall(m[2]))):
            return lines
    if not found:
        return lines
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    row = 0
    spans: list[tuple[int, str]] = []
    for start, _, name in found:
        while row + 1 < len(starts) and starts[row + 1] <= start:
            row += 1
        spans.append((row, name))
    new = slots(spans, loops(lines))
    out: list[str] = []
    at = 0
    for start, end, name in found:
        out += (text[at:start], new[name])
        at = end
    out.append(text[at:])
    return "".join(out).split("\n")
