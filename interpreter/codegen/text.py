"""Edits of generated Python text that never reach inside its string literals.

The generator names its helpers (``_x4``, ``_P0``…) and later renames them in text it has already
written (an inlined argument carried into another function).  A ruleset's own strings — a literal
``"_x4"``, a variable called ``_P0`` read as ``env['_P0']`` — are written into that same text as
Python string literals, so a plain ``re.sub(r"\\b_x4\\b", …)`` also rewrote them and the generated code
computed something else than the reference closures.  Every rename goes through :func:`rename`, which
matches whole string literals first and gives them back unchanged.
"""
from __future__ import annotations

import re
from functools import lru_cache

# A Python string literal as ``repr`` writes it: single or double quotes, backslash escapes, one line.
_STRING = r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\""


@lru_cache(maxsize=4096)
def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"({_STRING})|\b{re.escape(name)}\b")


def rename(src: str, name: str, replacement: str) -> str:
    """``src`` with every use of the Python name ``name`` outside string literals replaced."""
    if name not in src:
        return src
    return _pattern(name).sub(lambda m: m.group(1) if m.group(1) is not None else replacement, src)
