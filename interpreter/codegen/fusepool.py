"""The temporaries of the texts written into a fused function, renamed from one pool of locals.

A statement run, a choice and a condition were each the body of a generated function of their own: every
temporary such a text stores is that function's local, bound before it is read, and dead when the text ends (no
later text reads it: a fused function's own state is its ``_F…`` locals). Written into a fused function with
their names unique in the ruleset (``_t883``, ``_E884``, ``_x905``…), every text's temporaries were locals of
the whole function, and Python 3.11 sets every local slot of a frame to NULL at the call and clears it at the
return, whichever path the call takes: Bloodborne's hottest fused function had 97 locals, and its fused calls
cleared 8.6 k slots a game.

Each text's temporaries are renamed ``_R0``, ``_R1``… in order of first appearance (session 22 built it for runs
and conditions, not merged then; session 25 added choices and f-strings), so texts on different paths or one
after another share the slots, and a fused function has as many as its largest text needs (Bloodborne's: 97 → 42
locals, 8.6 k → 4.3 k slots cleared a game). Session 25 also tried sharing a slot between two temporaries of one
text whose lifetimes do not overlap (3.4 k slots a game): no fewer instructions (frame clearing −0.27 M on
``warm 40``, object frees +0.26 M: each value freed when its slot is taken, not with the frame), so not kept
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


@functools.lru_cache(maxsize=4096)
def pooled_expr(text: str) -> str:
    """A condition's or a loop's sequence's text (one line) with its own temporaries (the walrus names it caches
    parts in, read within it alone: it was the body of an instruction's function) renamed from the same pool
    as the runs' (:func:`pooled`)."""
    return text if "\n" in text or ":=" not in text else pooled([f"return ({text})"])[0][8:-1]


def pooled(lines: list[str], code: types.CodeType | None = None) -> list[str]:
    """A text's lines with its own temporaries renamed ``_R0``, ``_R1``… in order of first appearance.

    Renamed: the text's locals as Python compiles them (so never a constant or a global it reads) of the
    generators' form; a text Python does not compile as a function's body, with a variable a nested function
    reads, or with a string the pattern does not read exactly, is left as it is. ``code``: the compiled function
    whose body the lines are, when there is one (its locals, without compiling the text again).
    """
    fn = code
    if fn is None:
        try:
            module = compile("def _f():\n" + "\n".join(" " + line for line in lines), "<pool>", "exec")
        except SyntaxError:
            return lines
        fn = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    if fn.co_cellvars or fn.co_freevars:
        return lines
    own = set(fn.co_varnames)
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
    new: dict[str, str] = {}
    for _, _, name in found:
        new.setdefault(name, f"_R{len(new)}")
    out: list[str] = []
    at = 0
    for start, end, name in found:
        out += (text[at:start], new[name])
        at = end
    out.append(text[at:])
    return "".join(out).split("\n")
