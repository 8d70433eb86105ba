"""A table-driven LALR(1) driver that builds the AST while it parses.

Lark's own path builds a parse tree (a ``Tree`` and a ``Meta`` per rule, with
``propagate_positions`` walking the children of every node twice), and then a
second pass transforms that tree into :mod:`liturgy.dsl.ast` nodes.  For a
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


class Unsupported(Exception):
    """The grammar uses something the fast driver does not implement; Lark's path is used instead."""


class _Pos:
    """The ``meta`` the builder methods read: a node's span, or ``empty``."""

    __slots__ = ("empty", "line", "column", "end_line", "end_column")

    def __init__(self, ext: tuple[int, int, int, int] | None) -> None:
        if ext is None:
            self.empty = True
        else:
            self.empty = False
            self.line, self.column, self.end_line, self.end_column = ext


@dataclass(frozen=True)
class _Rule:
    size: int
    origin: str
    kind: int
    method: str
    # (index into the raw children, splice it?, Nones to insert before it); None: keep all as they are
    plan: tuple[tuple[int, bool, int], ...] | None
    trailing_nones: int


class Tables:
    """Everything the driver needs, derived once from a Lark LALR parser."""

    def __init__(self, lark: Lark, builder_class: type) -> None:
        parser = lark.parser.parser.parser  # ParsingFrontend -> LALR_Parser -> _Parser
        table = parser.parse_table
        self.start_states: dict[str, int] = dict(table.start_states)
        self.end_states: dict[str, int] = dict(table.end_states)
        rules = list(parser.callbacks)
        rule_index = {id(r): i for i, r in enumerate(rules)}
        self.rules = [self._rule(r, lark.options.maybe_placeholders) for r in rules]
        self.builders: list[Callable[..., Any] | None] = [
            _builder_function(builder_class, r.method) if r.kind != _INLINE else None for r in self.rules
        ]
        nstates = max(table.states) + 1
        # action[state][terminal] >= 0: shift to that state; < 0: reduce rule ~value
        self.action: list[dict[str, int]] = [{} for _ in range(nstates)]
        self.goto: list[dict[str, int]] = [{} for _ in range(nstates)]
        for state, row in table.states.items():
            for sym, (act, arg) in row.items():
                if act.name == "Shift":
                    if sym.isupper() or sym == "$END":
                        self.action[state][sym] = arg
                    else:
                        self.goto[state][sym] = arg
                else:
                    self.action[state][sym] = ~rule_index[id(arg)]
        self._scanner(lark)

    @staticmethod
    def _rule(rule: Any, maybe_placeholders: bool) -> _Rule:
        """The child filter of Lark's ``maybe_create_child_filter``, as data."""
        expansion = rule.expansion
        flags = rule.options.empty_indices if maybe_placeholders else ()
        if flags:
            ones = "".join(str(int(b)) for b in flags).split("0")
            empty = [len(o) for o in ones]
        else:
            empty = [0] * (len(expansion) + 1)
        plan: list[tuple[int, bool, int]] = []
        nones = 0
        for i, sym in enumerate(expansion):
            nones += empty[i]
            if rule.options.keep_all_tokens or not (sym.is_term and sym.filter_out):
                plan.append((i, not sym.is_term and sym.name.startswith("_"), nones))
                nones = 0
        nones += empty[len(expansion)]
        trivial = not flags and len(plan) == len(expansion) and not any(x for _, x, _ in plan)
        origin = rule.origin.name
        if origin.startswith("_"):
            kind = _INLINE
        elif rule.options.expand1 and not rule.alias:
            kind = _EXPAND1
        else:
            kind = _NODE
        method = rule.alias or rule.options.template_source or origin
        return _Rule(len(expansion), origin, kind, str(method), None if trivial else tuple(plan),
                     nones if not trivial else 0)

    def _scanner(self, lark: Lark) -> None:
        """One regular expression for every terminal, ordered as Lark's lexer orders them.

        String terminals that a regular-expression terminal matches in full
        (the keywords, which ``NAME`` matches) are not alternatives of their
        own: a ``NAME`` match is retyped to the keyword, as Lark's lexer does,
        and the driver types it back to ``NAME`` where the parser state takes
        a name but not that keyword (what the contextual lexer does).
        """
        terminals = list(lark.terminals)
        if any(t.pattern.flags for t in terminals):
            raise Unsupported("terminal flags")
        regex_terms = [t for t in terminals if type(t.pattern).__name__ == "PatternRE"]
        self.keywords: dict[str, dict[str, str]] = {}  # regex terminal -> {text: keyword terminal}
        embedded: set[str] = set()
        for rt in regex_terms:
            words: dict[str, str] = {}
            rx = re.compile(rt.pattern.to_regexp())
            for st in terminals:
                if type(st.pattern).__name__ != "PatternStr" or st.priority != rt.priority:
                    continue
                if rx.fullmatch(st.pattern.value) is not None:
                    words[st.pattern.value] = st.name
                    embedded.add(st.name)
            if words:
                self.keywords[rt.name] = words
        kept = [t for t in terminals if t.name not in embedded]
        kept.sort(key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name))
        self.names = {f"t{i}": t.name for i, t in enumerate(kept)}
        self.regex = re.compile("|".join(f"(?P<t{i}>{t.pattern.to_regexp()})" for i, t in enumerate(kept)))
        self.ignore = frozenset(lark.lexer_conf.ignore)
        self.keyword_types = frozenset(k for words in self.keywords.values() for k in words.values())


def _builder_function(builder_class: type, name: str) -> Callable[..., Any] | None:
    func = builder_class.__dict__.get(name)
    if func is None:
        for base in builder_class.__mro__[1:]:
            func = base.__dict__.get(name)
            if func is not None:
                break
    return func


def fast_parse(tables: Tables, text: str, start: str, builder: Any) -> Any:
    """The AST for ``text`` from rule ``start``, or None when Lark's path must decide."""
    regex_match = tables.regex.match
    names = tables.names
    ignore = tables.ignore
    keywords = tables.keywords
    keyword_types = tables.keyword_types
    action = tables.action
    goto = tables.goto
    rules = tables.rules
    builders = tables.builders
    end_state = tables.end_states[start]

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
            tok: Any = Token(ttype, value, pos, line, col, line, col + len(value), end)
            text_ext: tuple[int, int, int, int] | None = (line, col, line, col + len(value))
            pos = end
        else:
            ttype = "$END"
            tok = None
            text_ext = None
        # ---- reduce as long as the table says so, then shift
        while True:
            act = action[states[-1]].get(ttype)
            if act is None:
                return None
            if act >= 0:
                states.append(act)
                values.append(tok)
                exts.append(text_ext)
                depths.append(0)
                break
            ri = ~act
            rule = rules[ri]
            size = rule.size
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
                    ext: tuple[int, int, int, int] | None = (first[0], first[1], last[2], last[3])  # type: ignore[index]
                else:
                    ext = None
            else:
                kids = []
                depth = 0
                ext = None
            plan = rule.plan
            if plan is not None:
                filtered: list[Any] = []
                for i, splice, nones in plan:
                    if nones:
                        filtered += [None] * nones
                    if splice:
                        filtered += kids[i]
                    else:
                        filtered.append(kids[i])
                if rule.trailing_nones:
                    filtered += [None] * rule.trailing_nones
            else:
                filtered = kids
            kind = rule.kind
            if kind == _INLINE:
                result: Any = filtered
            elif kind == _EXPAND1 and len(filtered) == 1:
                result = filtered[0]
            else:
                func = builders[ri]
                if func is None:
                    return None
                result = func(builder, _Pos(ext), filtered)
                depth += 1
                if depth > MAX_FAST_DEPTH:
                    return None
            new_state = goto[states[-1]][rule.origin]
            states.append(new_state)
            values.append(result)
            exts.append(ext)
            depths.append(depth)
            if new_state == end_state and ttype == "$END":
                return result
        if ttype == "$END":  # pragma: no cover - the table never shifts $END
            return None
