"""The loop of an aggregate (`count`, `sum`, `any`, `all`, `min`, `max`) in its generated function.

The element and filter arrive as Python source (interpreter/codegen/exprgen.py writes them, and the function
around the loop); this module writes the loop that folds them, with the same results, and the same errors, as
the closure compiler's aggregates (interpreter/compiler/expressions.py).
"""
from __future__ import annotations

# Per aggregate: the fold's first value and the loop body ({w}: the filter, {x}: the element).
# `min` and `max` keep the best value so far, not a list for the built-in at the end: that list, its appends
# and the call were most of the cost of a fold over a few seats (callgrind: about 1,600 of 4,000 instructions
# of Goofspiel's `max(bid_of(p) for p in players)` for 2 players). `_MISSING` stands for "nothing qualified
# yet" (0 is the result then). The comparison is the built-in's (`max` asks `item > best`, `min` asks
# `item < best`, the first best kept on a tie), so the values, and the errors of values that do not compare,
# are the same.
_BODIES = {
    "count": ["_r = 0", "    if {w}:", "        _r += 1"],
    "sum": ["_r = 0", "    if {w}:", "        _r += {x}"],
    "any": ["_r = False", "    if {w} and {x}:", "        _r = True", "        break"],
    "all": ["_r = True", "    if {w} and not {x}:", "        _r = False", "        break"],
    "min": ["_r = _MISSING", "    if {w}:", "        _v = {x}", "        if _r is _MISSING or _v < _r:",
            "            _r = _v"],
    "max": ["_r = _MISSING", "    if {w}:", "        _v = {x}", "        if _r is _MISSING or _v > _r:",
            "            _r = _v"],
}


def aggregate_lines(func: str, fast: bool, x: str, items: str, where: str, elem: str, v: str) -> list[str] | None:
    """The lines of aggregate ``func`` over ``items`` with loop variable ``x`` (held in ``env[v]`` too unless
    ``fast``), filter ``where`` (``"True"``: none) and element ``elem``; None for an aggregate not written here."""
    body = _BODIES.get(func)
    if body is None:
        return None
    if where == "True":  # no filter: the element's test alone, or no test at all
        body = [body[0], *(line.replace("{w} and ", "") for line in body[1:])]
        if body[1] == "    if {w}:":
            body = [body[0], *(line[4:] for line in body[2:])]
    init, *loop = (line.format(w=where, x=elem) for line in body)
    if fast:
        lines = [init, f"for {x} in {items}:", *loop]
    else:
        lines = [f"_had = {v} in env", f"_old = env.get({v})", init, f"for {x} in {items}:",
                 f"    env[{v}] = {x}", *loop, "if _had:", f"    env[{v}] = _old", "else:",
                 f"    env.pop({v}, None)"]
    lines.append("return 0 if _r is _MISSING else _r" if func in ("min", "max") else "return _r")
    return lines
