"""A run's text without the ``env`` writes of the variables no other instruction reads (compiler/liveness.py).

Why: a run of statements writes each `let` and loop variable to a Python local and to the frame's ``env``; for a
*run-local* variable (one no other instruction of its code ever reads from the frame, through any suspension)
the ``env`` write is dead, and was about one dictionary store a decision in Bloodborne. The frame must also hold
the same variables in every compile mode whenever anything can look at it (a suspension's save or clone, a
`skip to`, an error that stops the game), so a run-local variable is never left in ``env`` at all:

- where the run's text reads ``env`` only by constant keys, reads none of the run-local variables it binds and
  hands ``env`` to no function, their writes go (``env['m'] = _E5 = …`` becomes ``_E5 = …``);
- otherwise the text is kept and wrapped in ``try: … finally: env.pop('m', None)``, so the variables leave the
  frame on every way out of the run, an exception included (machine.py does the same around a run left to the
  closure compiler).
"""
from __future__ import annotations

import re
from collections.abc import Collection

from liturgy.interpreter.codegen.locals import env_uses
from liturgy.interpreter.compiler.liveness import bound_in

__all__ = ["bound_in", "droppable", "spill"]


# every use of ``env`` in a text: the key of ``env['x']`` (and whether a plain ``=`` follows), or ``env.get``
# or ``env.pop`` of a constant key, or anything else (a bare ``env``: handed to a function, or read otherwise)
_USE = re.compile(r"\benv(?:\['([^']*)'\]( = (?!=))?|\.(?:get|pop)\('([^']*)'|)")


def droppable(body: str, names: Collection[str]) -> set[str]:
    """Of ``names``, those whose every use in ``body`` is a plain write ``env['x'] = `` that can go.

    A text without a double quote (most: the generators write single-quoted literals, which cannot hold a ``'``
    unescaped) is read with one regular expression, since no string literal can then hold ``env['x']``; any
    other text by Python's parser (:func:`~.locals.env_uses`)."""
    if '"' in body or "\\" in body:
        return _parsed(body, names)
    if _FRAME.search(body):
        return set()
    other: set[str] = set()  # keys read, updated, removed or unpacked into, not only written with ``=``
    for m in _USE.finditer(body):
        key, store, call = m.groups()
        if key is None and call is None:
            return set()  # env used whole: anything may read through it
        if not store:
            other.add(key if key is not None else call)
    return {x for x in names if x not in other}


_FRAME = re.compile(r"\bfr\b")


def _parsed(body: str, names: Collection[str]) -> set[str]:
    uses = env_uses(body, False)
    if uses.opaque or uses.calls:
        return set()
    out = set()
    for x in names:
        spans = [sp for sp in uses.spans if sp[3] == x]
        if (x in uses.gets or x in uses.pops or any(not sp[4] for sp in spans)
                or body.count(f"env[{x!r}] = ") != len(spans) or body.count(f"env[{x!r}]") != len(spans)):
            continue
        out.add(x)
    return out


def spill(body: str, names: Collection[str]) -> str:
    """``body`` (statements indented one level) for a run binding the run-local variables ``names``."""
    if not names:
        return body
    gone = droppable(body, names)
    for x in gone:
        body = body.replace(f"env[{x!r}] = ", "")
    if gone and "finally:" in body:
        body = _without_empty_ends(body)
    kept = sorted(set(names) - gone)
    if not kept:
        return body
    inner = "".join(f"    {line}\n" if line.strip() else "\n" for line in body.splitlines())
    pops = "".join(f"        env.pop({x!r}, None)\n" for x in kept)
    return f"    try:\n{inner}    finally:\n{pops}"


def _without_empty_ends(body: str) -> str:
    """``body`` without the ``try``/``finally`` of a loop whose end write (codegen/loopvars.py) went with its
    variable: the ``finally`` then only names a local (``finally: _E7``, or ``if _x is not _NOTHING: _x``), which
    does nothing, so the loop is written plainly, as a person would (``liturgy dump``)."""
    lines = body.split("\n")
    while (found := _empty_end(lines)) is not None:
        start, at, size, marker = found
        pad = lines[at][: len(lines[at]) - len(lines[at].lstrip(" "))]
        lines[at:at + 1 + size] = []
        lines[start + 1:at] = [line[4:] for line in lines[start + 1:at]]
        del lines[start]
        if marker and start > 0 and lines[start - 1] == f"{pad}{marker} = _NOTHING":
            del lines[start - 1]
    return "\n".join(lines)


def _empty_end(lines: list[str]) -> tuple[int, int, int, str] | None:
    """The first ``try``/``finally`` of ``lines`` whose ``finally`` only names a local: the ``try`` line's index,
    the ``finally`` line's, the number of lines after it that go, and the ``_NOTHING`` marker's name (or "")."""
    for at, line in enumerate(lines):
        rest = line.lstrip(" ")
        if rest != "finally:":
            continue
        pad = line[: len(line) - len(rest)]
        tail = lines[at + 1:at + 4] + ["", "", ""]
        one = _NAME.fullmatch(tail[0][len(pad) + 4:]) if tail[0].startswith(pad + "    ") else None
        guard = _GUARD.fullmatch(tail[0][len(pad) + 4:]) if tail[0].startswith(pad + "    ") else None
        if one is not None and not tail[1].startswith(pad + " "):
            size, marker = 1, ""
        elif (guard is not None and tail[1] == f"{pad}        {guard.group(1)}"
              and not tail[2].startswith(pad + " ")):
            size, marker = 2, guard.group(1)
        else:
            continue
        start = at - 1
        while start >= 0 and lines[start].startswith(pad + " "):
            start -= 1
        if start >= 0 and lines[start] == f"{pad}try:" and start + 1 < at:
            return start, at, size, marker
    return None


_NAME = re.compile(r"_\w+")
_GUARD = re.compile(r"if (_\w+) is not _NOTHING:")
