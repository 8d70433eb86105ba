"""A seat filter's last loop merged into the loop that consumes its list: the filter as a gate in each turn.

``simultaneously p in fighters()`` (and a filter of it, ``[q for q in fighters() where any(…)]``) had its seats
built by :func:`.inline_aggregates.seat_items_lines` as a new list, then iterated by the choice's collecting
loop::

    _out7 = []
    for _x6 in SEATS:
        if COND:
            _out7.append(_x6)
    for p in _out7:
        BODY

Where the list is only iterated, once, this writes ``for p in SEATS:``, the filter's lines, ``if not (COND):
continue`` and then BODY: no list, no ``append`` a kept seat, no second iteration.

Why exact: the seats are the same, in the same order (the source is evaluated once either way, before any
turn), and BODY runs for exactly the seats whose filter held. What moves is *when* each seat's filter is
evaluated: in the list form every filter ran before the first BODY, here the filter of seat k runs after the
BODYs of the seats before it. That is the same only if (a) no BODY changes anything a filter reads, and (b) a
filter has no effect and cannot fail (so it cannot stop the game, count work or raise before a BODY would).
(b) is checked on the filter's text (:func:`_plain`): it may read the counters, the zones, the seat tables and
the card tables, bind its own temporaries and loop over a zone, and nothing else: no call but ``len``, no
``env`` or frame, no work count, no ``raise``, no write to the game. (a) is the caller's to give: the choice's
collecting loop only evaluates expressions (the options and their filter), which write no counter and move no
card, so it qualifies; a `for` statement's body, which may, is not given here.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import inline_aggregates, scans

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.stmtgen import StmtGen
    from liturgy.interpreter.compiler.code import Ins

ENABLED = True  # tests turn it off to compare with the list it replaces

_FOR = re.compile(r"for (_x\d+) in (.+):")
_STRING = re.compile(r"'[^'\\]*'")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# the names a plain filter may use: game state it may read, Python keywords, its own temporaries, the generated
# code's tables (``_Ks5`` a seat's counter slot, ``_k855`` a card's field)
_WORDS = frozenset({"s", "counters", "tables", "turn_orders", "zones", "n", "_cs", "not", "and", "or", "if", "for",
                    "in", "is", "None", "True", "False", "break", "continue", "len"})
_LOCAL = re.compile(r"_(?:x|r|t|v)\d+")
_TABLE = re.compile(r"_(?:Ks|k)\d+")
_CALL = re.compile(r"[A-Za-z0-9_\]\)]\(")  # a call: a name, subscript or parenthesis followed by `(`
_ASSIGN = re.compile(r"(?<![=!<>:])=(?!=)")  # a `=` that is no comparison and no walrus
_LOCAL_STORE = re.compile(r"\s*_(?:r|t|v)\d+ = [^=]")
_BY_CONSTANT = re.compile(r"(//|/|%) [1-9][0-9]*\b")  # a division or remainder by a positive literal: never fails
_DIVIDES = re.compile(r"/|%")


def gate(lines: list[str], items: str, var: str) -> tuple[list[str], str, list[str]] | None:
    """Split ``lines`` (which build the list ``items`` by a last filter loop, as :mod:`.inline_aggregates` writes
    it) into the lines to keep before the consuming loop, that loop's source, and the lines to write at the top of
    its turn (indented once, ending in ``continue`` where the filter fails), with the filter's loop variable
    renamed ``var``. None: not that shape, or a filter that is not plain (:func:`_plain`); keep the list."""
    if not ENABLED or not re.fullmatch(r"_out\d+", items) or len(lines) < 4:
        return None
    starts = [i for i, line in enumerate(lines) if _FOR.fullmatch(line)]
    if not starts:
        return None
    at = starts[-1]
    head = _FOR.fullmatch(lines[at])
    assert head is not None
    x, source = head.group(1), head.group(2)
    turn = lines[at + 1:]
    if (len(turn) < 2 or not all(line.startswith("    ") for line in turn)
            or turn[-1] != f"        {items}.append({x})" or not turn[-2].startswith("    if ")
            or not turn[-2].endswith(":")):
        return None
    pre = lines[:at]
    if f"{items} = []" not in pre:
        return None
    pre = [line for line in pre if line != f"{items} = []"]
    if any(re.search(rf"\b{items}\b", line) for line in pre + turn[:-1]) or re.search(rf"\b{var}\b", source):
        return None
    cond = turn[-2][len("    if "):-1]
    test = [*turn[:-2], cond]
    if not all(_plain(line) for line in test) or any(re.search(rf"\b{var}\b", line) for line in test):
        return None
    rename = re.compile(rf"\b{x}\b")
    gated = [rename.sub(var, line) for line in turn[:-2]]
    gated += [f"    if not ({rename.sub(var, cond)}):", "        continue"]
    return pre, source, gated


def _plain(line: str) -> bool:
    """Whether a line of a filter only reads the game and binds its own temporaries (the module's (b))."""
    text = _STRING.sub("''", line)
    if _CALL.search(text.replace("len(", "len ")):
        return False
    if _ASSIGN.search(text) and not _LOCAL_STORE.match(text):
        return False
    if any(op in text for op in ("+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "<<=", ">>=")):
        return False
    if _DIVIDES.search(_BY_CONSTANT.sub("", text)) or "**" in text or "<<" in text or ">>" in text:
        return False  # a division by a value, which may be zero (or a shift, a power): it may fail
    return all(word in _WORDS or _LOCAL.fullmatch(word) or _TABLE.fullmatch(word) for word in _NAME.findall(text))


# a seat list's loop is a few lines (Bloodborne's `hunters()`: four); a longer one, copied into every fused function
# that starts the loop, would grow the text the big rulesets compile more than it saves
_MAX_LINES = 8
_NOT_HERE = re.compile(r"\b(env|fr|_cs|return|yield)\b|\x00")  # what the lines of a step-machine `for` may not use


def for_init(sg: StmtGen, iterable: A.Expr, key: str) -> Ins:
    """Start a step-machine `for` (a loop whose body asks for a decision): a snapshot of the items and the next
    position, kept in the frame's locals. Where the items are a filter of the seats (scans.seat_list: at most the
    player count; Bloodborne's ``for p in hunters()`` around a choice) built by a loop of a few lines, the loop is
    written here (:func:`.inline_aggregates.seat_items_lines`) and travels with the instruction's note, so a fused
    function that starts the `for` writes it too: no call of a loop function, which built the same list by the same
    loop, counted the same way, and returned it as a tuple. The lines read only the game (no ``env``, frame or
    statement local), so they mean the same wherever written."""
    src: list[str] = []
    pre: list[str] = []

    def body() -> None:
        got = None
        # (a game of fixed seats writes a seat list out item by item as one expression: nothing to do here)
        if (ENABLED and isinstance(iterable, A.ListComp | A.Call) and scans.seat_list(iterable)
                and inline_aggregates.fixed_seats(sg.gen) is None):
            got = inline_aggregates.seat_items_lines(sg.gen, iterable)
        if (got is not None and 0 < len(got[0]) <= _MAX_LINES
                and not any(_NOT_HERE.search(line) for line in got[0])):
            pre.extend(got[0])
            src.append(got[1])
        else:
            src.append(sg.gen._seq(iterable))
        for line in pre:
            sg.emit(line)
        sg.emit(f"env[{key!r}] = (tuple({src[0]}), 0)")
        sg.emit("fr[1] += 1")
        sg.emit("return False")
    return sg.comp.note(sg._instruction(body, iterable.span), "for_init", src[0], key, tuple(pre))
