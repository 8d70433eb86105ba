"""A table-driven LALR(1) driver that builds the AST while it parses.

Lark's own path builds a parse tree (a ``Tree`` and a ``Meta`` per rule, with
``propagate_positions`` walking the children of every node twice), and then a
second pass transforms that tree into :mod:`liturgy.dsl.frontend.ast` nodes.  For a
2,000-line ruleset plus hundreds of card snippets that was most of the time
spent in parse + check.  This module reuses the grammar's analysed LALR tables
and terminal definitions from the very same ``Lark`` object, but runs its own
loop: one regular expression scans the text, each reduction calls the AST
builder directly, and node spans are computed on the fly with exactly the
rules of Lark's ``PropagatePositions`` (a node spans from the start of its
first child's *container* to the end of its last one's; a ``?rule`` that
passes its only child through widens that child's container, which is why
``(a + b) * c`` starts at the parenthesis while ``a + b`` starts at ``a``).

It is a fast path only.  Whenever anything is out of the ordinary (a syntax
error, a token that only Lark's contextual lexer would split differently, or
nesting deeper than :data:`MAX_FAST_DEPTH`) :func:`fast_parse` returns
``None`` and the caller takes Lark's path, which produces every diagnostic
exactly as before.  ``tests/test_fastparse.py`` checks that both paths give
identical trees, spans included, for every shipped ruleset, card snippet and
docs example, and for randomly damaged sources.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lark import Lark, Token

# Deeper trees go to Lark's path, which reports E003 when its recursive
# transform gives up (at several hundred levels); real rulesets stay far below.
MAX_FAST_DEPTH = 120

# Reduction kinds.
_INLINE = 0  # `_rule` / Lark's helper rules: children are spliced into the parent
_NODE = 1  # an ordinary rule: the builder method makes the value
_EXPAND1 = 2  # a `?rule` without alias: one child passes through, more make a node
_UNIT = 3  # a `?rule` with one symbol, kept as it is: the value, span and depth pass through unchanged

# Lark's ``Token(...)`` passes through a compatibility ``__new__`` (it still takes a deprecated keyword) into
# ``Token._future_new``; calling that directly makes the very same token with one Python call fewer, for each of
# the tens of thousands of tokens a large ruleset has. Lark versions without it take the public constructor.
_new_token: Callable[..., Token] = getattr(Token, "_future_new", Token)


class Unsupported(Exception):
    """The grammar uses something the fast driver does not implement; Lark's path is used instead."""


@dataclass(frozen=True)
class _Rule:
    size: int
    origin: str
    kind: int
    method: str
    # (index into the raw children, splice it?, Nones to insert before it); None: keep all as they are
    plan: tuple[tuple[int, bool, int], ...] | None
    trailing_nones: int


FORMAT = 1  # bump when the table data below changes shape


class Tables:
    """Everything the driver needs: plain data (see :func:`tables_data`) plus the builder's methods."""

    def __init__(self, data: dict[str, Any], builder_class: type) -> None:
        if data.get("format") != FORMAT:
            raise Unsupported("table format")
        self.start_states: dict[str, int] = {str(k): int(v) for k, v in data["start_states"].items()}
        self.end_states: dict[str, int] = {str(k): int(v) for k, v in data["end_states"].items()}
        self.rules = [
            _Rule(int(size), str(origin), int(kind), str(method),
                  None if plan is None else tuple((int(i), bool(x), int(k)) for i, x, k in plan), int(trailing))
            for size, origin, kind, method, plan, trailing in data["rules"]
        ]
        self.builders: list[Callable[..., Any] | None] = [
            _builder_function(builder_class, r.method) if r.kind in (_NODE, _EXPAND1) else None for r in self.rules
        ]
        # action[state][terminal] >= 0: shift to that state; < 0: reduce rule ~value
        self.action: list[dict[str, int]] = [{str(k): int(v) for k, v in row.items()} for row in data["action"]]
        self.goto: list[dict[str, int]] = [{str(k): int(v) for k, v in row.items()} for row in data["goto"]]
        # terminals some rule keeps as a child; the others only need their position
        self.kept_terminals = frozenset(str(t) for t in data["kept_terminals"])
        self.names: dict[str, str] = {f"t{i}": str(name) for i, (name, _) in enumerate(data["terminals"])}
        self.regex = re.compile("|".join(f"(?P<t{i}>{rx})" for i, (_, rx) in enumerate(data["terminals"])))
        self.keywords: dict[str, dict[str, str]] = {
            str(t): {str(w): str(k) for w, k in words.items()} for t, words in data["keywords"].items()
        }
        self.ignore = frozenset(str(t) for t in data["ignore"])
        self.keyword_types = frozenset(k for words in self.keywords.values() for k in words.values())
        self.end_state_set = frozenset(self.end_states.values())
        # per rule, what the driver unpacks at each reduction: (kind, size, origin, plan, trailing Nones, builder)
        self.steps = [(r.kind, r.size, r.origin, r.plan, r.trailing_nones, f)
                      for r, f in zip(self.rules, self.builders, strict=True)]
        # (state below, top state, lookahead) -> the state after its chain of unit reductions; filled as met
        self.unit_chains: dict[tuple[int, int, str], int] = {}


def tables_data(lark: Lark) -> dict[str, Any]:
    """The driver's tables, derived from a Lark LALR parser, as JSON-compatible data.

    Only Lark's analysed parse table and terminal definitions are read;
    Lark's names are turned into plain ``str`` (some are Tokens, whose ``==``
    is a slow Python method).
    """
    parser = lark.parser.parser.parser  # ParsingFrontend -> LALR_Parser -> _Parser
    table = parser.parse_table
    rules = list(parser.callbacks)
    rule_index = {id(r): i for i, r in enumerate(rules)}
    nstates = max(table.states) + 1
    action: list[dict[str, int]] = [{} for _ in range(nstates)]
    goto: list[dict[str, int]] = [{} for _ in range(nstates)]
    for state, row in table.states.items():
        for lark_sym, (act, arg) in row.items():
            sym = str(lark_sym)
            if act.name == "Shift":
                if sym.isupper() or sym == "$END":
                    action[state][sym] = arg
                else:
                    goto[state][sym] = arg
            else:
                action[state][sym] = ~rule_index[id(arg)]
    return {
        "format": FORMAT,
        "start_states": {str(k): v for k, v in table.start_states.items()},
        "end_states": {str(k): v for k, v in table.end_states.items()},
        "rules": [_rule_data(r, lark.options.maybe_placeholders) for r in rules],
        "action": action,
        "goto": goto,
        "kept_terminals": sorted({
            str(sym.name) for r in rules for sym in r.expansion
            if sym.is_term and (r.options.keep_all_tokens or not sym.filter_out)
        }),
        **_scanner_data(lark),
    }


def _rule_data(rule: Any, maybe_placeholders: bool) -> list[Any]:
    """A rule's reduction: Lark's ``maybe_create_child_filter`` and wrapper choice, as data."""
    expansion = rule.expansion
    flags = rule.options.empty_indices if maybe_placeholders else ()
    if flags:
        ones = "".join(str(int(b)) for b in flags).split("0")
        empty = [len(o) for o in ones]
    else:
        empty = [0] * (len(expansion) + 1)
    plan: list[list[Any]] = []
    nones = 0
    for i, sym in enumerate(expansion):
        nones += empty[i]
        if rule.options.keep_all_tokens or not (sym.is_term and sym.filter_out):
            plan.append([i, not sym.is_term and sym.name.startswith("_"), nones])
            nones = 0
    nones += empty[len(expansion)]
    trivial = not flags and len(plan) == len(expansion) and not any(x for _, x, _ in plan)
    origin = str(rule.origin.name)
    if origin.startswith("_"):
        kind = _INLINE
    elif rule.options.expand1 and not rule.alias:
        kind = _UNIT if trivial and len(expansion) == 1 else _EXPAND1
    else:
        kind = _NODE
    method = str(rule.alias or rule.options.template_source or origin)
    return [len(expansion), origin, kind, method, None if trivial else plan, 0 if trivial else nones]


def _scanner_data(lark: Lark) -> dict[str, Any]:
    """One regular expression for every terminal, ordered as Lark's lexer orders them.

    String terminals that a regular-expression terminal matches in full (the
    keywords, which ``NAME`` matches) are not alternatives of their own: a
    ``NAME`` match is retyped to the keyword, as Lark's lexer does, and the
    driver types it back to ``NAME`` where the parser state takes a name but
    not that keyword (what Lark's contextual lexer does).
    """
    terminals = list(lark.terminals)
    if any(t.pattern.flags for t in terminals):
        raise Unsupported("terminal flags")
    keywords: dict[str, dict[str, str]] = {}
    embedded: set[str] = set()
    for rt in terminals:
        if type(rt.pattern).__name__ != "PatternRE":
            continue
        words: dict[str, str] = {}
        rx = re.compile(rt.pattern.to_regexp())
        for st in terminals:
            if type(st.pattern).__name__ != "PatternStr" or st.priority != rt.priority:
                continue
            if rx.fullmatch(st.pattern.value) is not None:
                words[str(st.pattern.value)] = str(st.name)
                embedded.add(st.name)
        if words:
            keywords[str(rt.name)] = words
    kept = [t for t in terminals if t.name not in embedded]
    kept.sort(key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name))
    return {
        "terminals": [[str(t.name), t.pattern.to_regexp()] for t in kept],
        "keywords": keywords,
        "ignore": sorted(str(name) for name in lark.lexer_conf.ignore),
    }


def _builder_function(builder_class: type, name: str) -> Callable[..., Any] | None:
    func = builder_class.__dict__.get(name)
    if func is None:
        for base in builder_class.__mro__[1:]:
            func = base.__dict__.get(name)
            if func is not None:
                break
    return func


def _unit_chain(tables: Tables, below: int, top: int, ttype: str) -> int:
    """The state after every unit reduction the lookahead ``ttype`` triggers from ``top``.

    A unit reduction (a ``?rule`` passing its one child through) pops one
    state and pushes its goto from the state below, which it leaves alone, so
    a whole chain of them (``expr`` -> ``or_expr`` -> ... -> ``atom`` around
    each name) depends only on (below, top, lookahead) and is worked out once.
    """
    action, goto, rules, ends = tables.action, tables.goto, tables.rules, tables.end_state_set
    while not (ttype == "$END" and top in ends):
        act = action[top].get(ttype)
        if act is None or act >= 0 or rules[~act].kind != _UNIT:
            break
        top = goto[below][rules[~act].origin]
    return top


def fast_parse(tables: Tables, text: str, start: str, builder: Any) -> Any:  # noqa: C901 - the per-token LALR loop; helper calls per token would slow parsing
    """The AST for ``text`` from rule ``start``, or None when Lark's path must decide."""
    regex_match = tables.regex.match
    names = tables.names
    ignore = tables.ignore
    keywords = tables.keywords
    keyword_types = tables.keyword_types
    kept_terminals = tables.kept_terminals
    action = tables.action
    goto = tables.goto
    steps = tables.steps
    unit_chains = tables.unit_chains
    end_state = tables.end_states[start]
    new_token = _new_token

    states = [tables.start_states[start]]
    values: list[Any] = []
    exts: list[tuple[int, int, int, int] | None] = []
    depths: list[int] = []

    pos = 0
    line = 1
    line_start = 0
    n = len(text)
    while True:
        # ---- next token
        if pos < n:
            m = regex_match(text, pos)
            if m is None:
                return None
            ttype = names[m.lastgroup]  # type: ignore[index]
            value = m.group()
            end = m.end()
            if ttype in ignore:
                nl = value.count("\n")
                if nl:
                    line += nl
                    line_start = pos + value.rindex("\n") + 1
                pos = end
                continue
            if ttype in keywords:
                ttype = keywords[ttype].get(value, ttype)
            col = pos - line_start + 1
            row = action[states[-1]]
            if ttype in keyword_types and ttype not in row and "NAME" in row:
                ttype = "NAME"
            end_col = col + len(value)
            tok: Any = new_token(ttype, value, pos, line, col, line, end_col, end) if ttype in kept_terminals else None
            tok_ext: tuple[int, int, int, int] | None = (line, col, line, end_col)
            pos = end
        else:
            ttype = "$END"
            tok = None
            tok_ext = None
            row = action[states[-1]]
        # ---- reduce as long as the table says so, then shift
        while True:
            act = row.get(ttype)
            if act is None:
                if ttype in keyword_types and "NAME" in row and tok_ext is not None:
                    # a keyword where, after the reductions its lookahead allowed, only a name fits: `winner = 2`
                    # after `let winner = 1` (LALR shares the state that ends an expression with the one that
                    # ends a declaration, so `winner` was read as the keyword); any parse that continues is valid
                    ttype = "NAME"
                    tok = new_token("NAME", value, end - len(value), *tok_ext, end)
                    continue
                return None
            if act >= 0:
                states.append(act)
                values.append(tok)
                exts.append(tok_ext)
                depths.append(0)
                break
            kind, size, origin, plan, trailing, func = steps[~act]
            if kind == _UNIT:  # the whole chain at once; value, span and depth stay
                key = (states[-2], states[-1], ttype)
                top = unit_chains.get(key)
                if top is None:
                    top = unit_chains[key] = _unit_chain(tables, states[-2], states[-1], ttype)
                states[-1] = top
                if top == end_state and ttype == "$END":
                    return values[-1]
                row = action[top]
                continue
            result: Any
            ext: tuple[int, int, int, int] | None
            if size == 1 and plan is None and kind == _NODE and func is not None:
                # `name`, `int_lit`, ...: one kept child, so the node replaces it on top of the stack
                ext = exts[-1]
                result = func(builder, ext, [values[-1]])
                depth = depths[-1] + 1
                if depth > MAX_FAST_DEPTH:
                    return None
                new_state = goto[states[-2]][origin]
                states[-1] = new_state
                values[-1] = result
                depths[-1] = depth
                if new_state == end_state and ttype == "$END":
                    return result
                row = action[new_state]
                continue
            if size:
                kids = values[-size:]
                kid_exts = exts[-size:]
                depth = max(depths[-size:])
                del states[-size:], values[-size:], exts[-size:], depths[-size:]
                first = last = None
                for e in kid_exts:
                    if e is not None:
                        first = e
                        break
                if first is not None:
                    for e in reversed(kid_exts):
                        if e is not None:
                            last = e
                            break
                    ext = (first[0], first[1], last[2], last[3])  # type: ignore[index]
                else:
                    ext = None
            else:
                kids = []
                depth = 0
                ext = None
            if plan is not None:
                filtered: list[Any] = []
                for i, splice, nones in plan:
                    if nones:
                        filtered += [None] * nones
                    if splice:
                        if filtered:
                            filtered += kids[i]
                        else:  # left recursion: extend the child's list in place (only the stack holds it)
                            filtered = kids[i]
                    else:
                        filtered.append(kids[i])
                if trailing:
                    filtered += [None] * trailing
            else:
                filtered = kids
            if kind == _INLINE:
                result = filtered
            elif kind == _EXPAND1 and len(filtered) == 1:
                result = filtered[0]
            else:
                if func is None:
                    return None
                result = func(builder, ext, filtered)
                depth += 1
                if depth > MAX_FAST_DEPTH:
                    return None
            new_state = goto[states[-1]][origin]
            states.append(new_state)
            values.append(result)
            exts.append(ext)
            depths.append(depth)
            if new_state == end_state and ttype == "$END":
                return result
            row = action[new_state]
        if ttype == "$END":  # pragma: no cover - the table never shifts $END
            return None
