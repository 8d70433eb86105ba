"""What the language server knows about one ruleset: its declarations, every use of a name, its cards.

Kept apart from pygls (the server in :mod:`.server` only translates) so it is plain, typed and testable.

Why mostly words and declarations, not only the checker's resolved references: an author's file is broken most
of the time they are typing, and navigation must still work then. Declarations come from the last ruleset that
parsed; uses are the identifiers of the current text outside strings and comments (a word after `.` is a field,
a per-player zone or a per-card counter; any other word is a global declaration of that name, or a local bound
earlier in the same declaration by `let`, `for`, `choose`, a parameter …). Card files contribute their cards and,
through the effect strings the checker parsed (spans already point into the YAML), the names those use.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from liturgy.dsl.checker.program import Program
from liturgy.dsl.diagnostics import Span
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.frontend.cards import CardDef

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Where a declaration's name is the first word after these words (`counter per player gold`, `step draw "…"`).
_NAME_AFTER = re.compile(
    r"\b(?:enum|die|card|zone|graph|counter|flag|option|track|pool|window|proc|fn|step|grid|mode)\s+"
    r"(?:per\s+(?:player|card)\s+)?([A-Za-z_][A-Za-z0-9_]*)"
)
# Words that bind a local name inside a declaration, and the parameter lists' `name:`.
BINDERS = re.compile(
    r"\b(?:let|for|choose|simultaneously)\s+([A-Za-z_][A-Za-z0-9_]*)"
    r"|\bchoose\s+([A-Za-z_][A-Za-z0-9_]*)\s+from"
    r"|[(,]\s*([A-Za-z_][A-Za-z0-9_]*)\s*:"
    r"|\b(?:score|winner|tiebreak|display)\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)"
    r"|\bdescribe\s+[A-Za-z_]\w*\s*\(\s*([A-Za-z_]\w*)\s*,\s*([A-Za-z_]\w*)\s*\)"
)
# Symbol kinds that are reached after a dot (`c.damage`, `p.hand`, `c.echoes`) rather than by a bare word.
DOTTED_KINDS = frozenset({"field", "zone", "counter", "flag", "track", "pool holder"})


@dataclass
class Symbol:
    """One declared name: where it is declared and what to show for it."""

    name: str
    kind: str  # proc fn zone counter flag track option window step card kind field enum enum value die ...
    span: Span  # the name itself
    detail: str  # the declaration as written (its first line), or a card's kind and start
    doc: str = ""  # the comment lines just above the declaration
    container: str = ""  # the card kind of a field, the enum of a value, the mode of a mode's declaration
    scope: str = ""  # "player" or "card" for per-player / per-card zones and counters
    children: list[Symbol] = field(default_factory=list)
    decl_span: Span | None = None  # the whole declaration (the outline's range)


@dataclass
class Occurrence:
    """A word in a file: a use of a name (or its declaration)."""

    name: str
    span: Span
    dotted: bool  # after a `.`: a field, a per-player zone, a per-card counter


@dataclass
class Index:
    """The symbols of one ruleset and where every name occurs, in the ruleset and its card files."""

    path: str
    symbols: list[Symbol] = field(default_factory=list)  # top level, in source order (the outline)
    by_name: dict[str, list[Symbol]] = field(default_factory=dict)  # every symbol, children included
    occurrences: dict[str, list[Occurrence]] = field(default_factory=dict)  # file -> words in it
    cards: dict[str, Symbol] = field(default_factory=dict)  # card name -> its definition in YAML
    card_kind_of: dict[str, str] = field(default_factory=dict)  # card name -> card kind
    effect_params: dict[str, list[tuple[str, Span, str]]] = field(default_factory=dict)  # kind.field -> params
    card_files: list[str] = field(default_factory=list)
    rule_files: list[str] = field(default_factory=list)  # the ruleset's own files: the main one, then its includes
    program: Program | None = None
    decls: list[A.Decl] = field(default_factory=list)  # the checked declarations (their expressions are typed)
    typed_cache: list[A.Expr] | None = None
    declared_at: dict[Span, Symbol] = field(default_factory=dict)  # a declaration's name -> its symbol

    @property
    def typed(self) -> list[A.Expr]:
        """Every checked name and field access with its type (for hover and `.` completion), found on first use."""
        if self.typed_cache is None:
            effects = [v for c in self.program.cards for v in c.values.values()] if self.program else []
            named = (e for e in walk_exprs([self.decls, effects]) if isinstance(e, A.Name | A.Attr))
            self.typed_cache = [e for e in named if e.ty is not None]
        return self.typed_cache

    def add(self, sym: Symbol, top: bool = True) -> None:
        self.by_name.setdefault(sym.name, []).append(sym)
        self.declared_at[sym.span] = sym
        if top:
            self.symbols.append(sym)
        for child in sym.children:
            self.add(child, top=False)

    def lookup(self, name: str, dotted: bool) -> list[Symbol]:
        """The declarations a word may mean: after a dot, fields and per-player / per-card components;
        otherwise everything else (a zone or counter read without a dot, an enum value, a proc …)."""
        found = self.by_name.get(name, [])
        if dotted:
            return [s for s in found if s.kind in DOTTED_KINDS]
        return [s for s in found if s.kind != "field"] or [s for s in found if s.kind == "pool holder"]


# ---------------------------------------------------------------- scanning text
_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"?|#.*|[A-Za-z_][A-Za-z0-9_]*|\.\.|\.')


@functools.lru_cache(maxsize=32)  # a few hundred KB each for a large file
def words(text: str, file: str) -> list[Occurrence]:
    """Every identifier outside strings and comments, with whether a `.` comes right before it.

    Kept for the last texts scanned (the list is shared: callers only read it): the language server indexes a
    ruleset again at every pause in typing, and all but the edited one of its files are as they were (Slay the
    Spire's twelve files: about a tenth of a re-check)."""
    out: list[Occurrence] = []
    for number, line in enumerate(text.split("\n"), start=1):
        dot = False
        for m in _TOKENS.finditer(line):
            tok = m.group()
            first = tok[0]
            if first == "#":
                break
            if first == ".":
                dot = tok == "."
                continue
            if first != '"':
                out.append(Occurrence(tok, Span(file, number, m.start() + 1, number, m.end() + 1), dot))
            dot = False
    return out


def _string_end(line: str, start: int) -> int:
    i = start + 1
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        if line[i] == '"':
            return i + 1
        i += 1
    return i


def strings(text: str, file: str) -> list[tuple[str, Span]]:
    """Every string literal's value and span (card names are referred to by name: `c.name == "Kirkhammer"`)."""
    out: list[tuple[str, Span]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        i = 0
        while i < len(line):
            if line[i] == "#":
                break
            if line[i] == '"':
                end = _string_end(line, i)
                out.append((line[i + 1:end - 1], Span(file, number, i + 1, number, end + 1)))
                i = end
                continue
            i += 1
    return out


def _doc_above(lines: list[str], line: int) -> str:
    """The comment lines right above 1-based ``line``, without their `#`."""
    out: list[str] = []
    n = line - 2
    while n >= 0 and lines[n].lstrip().startswith("#"):
        out.append(lines[n].lstrip()[1:].strip())
        n -= 1
    return "\n".join(reversed(out)).strip()


def _name_span(lines: list[str], file: str, at: Span, name: str) -> Span:
    """Where ``name`` is written in the declaration starting at ``at`` (its first occurrence as a word)."""
    for n in range(at.line - 1, min(len(lines), at.end_line)):
        start = at.column - 1 if n == at.line - 1 else 0
        m = _word_pattern(name).search(lines[n], start)
        if m is not None:
            return Span(file, n + 1, m.start() + 1, n + 1, m.end() + 1)
    return at


@functools.lru_cache(maxsize=4096)
def _word_pattern(name: str) -> re.Pattern[str]:
    """``name`` as a whole word. Kept here: a large ruleset declares more names (Slay the Spire about 700) than
    ``re``'s own cache holds (512), so each re-check compiled every pattern again."""
    return re.compile(rf"\b{re.escape(name)}\b")


def _first_line(lines: list[str], at: Span) -> str:
    text = lines[at.line - 1] if 0 < at.line <= len(lines) else ""
    return text.split("#", 1)[0].strip() if '"' not in text else text.strip()


# ---------------------------------------------------------------- declarations
class _Builder:
    """Turns a parsed ruleset's declarations into symbols (with the text for names and docs)."""

    def __init__(self, text: str, file: str) -> None:
        self.lines = text.split("\n")
        self.file = file

    def sym(self, name: str, kind: str, at: Span, **more: Any) -> Symbol:
        span = _name_span(self.lines, self.file, at, name)
        return Symbol(name, kind, span, _first_line(self.lines, at), _doc_above(self.lines, at.line),
                      decl_span=at, **more)

    def decl(self, d: A.Decl, mode: str = "") -> list[Symbol]:  # noqa: C901 - one branch per declaration kind
        if isinstance(d, A.EnumDecl):
            values = [Symbol(v, "enum value", s, f"{d.name}.{v}", container=d.name, decl_span=s) for v, s in d.values]
            return [self.sym(d.name, "enum", d.span, children=values, container=mode)]
        if isinstance(d, A.DieDecl):
            return [self.sym(d.name, "die", d.span, container=mode)]
        if isinstance(d, A.CardKindDecl):
            fields = [self.sym(f.name, "field", f.span, container=d.name) for f in d.fields]
            return [self.sym(d.name, "card kind", d.span, children=fields)]
        if isinstance(d, A.PoolDecl):
            holders = [self.sym(h.name, "pool holder", h.span, container=d.name, scope=h.scope) for h in d.holders]
            return [self.sym(d.name, "pool", d.span, children=holders)]
        if isinstance(d, A.GridDecl):
            return [self.sym(d.name, "grid", d.span, container=mode)]
        if isinstance(d, A.CounterDecl):
            kind = "option" if d.option else "track" if d.track_values is not None else "flag" if d.is_flag \
                else "counter"
            return [self.sym(d.name, kind, d.span, container=mode, scope=d.scope if d.scope != "global" else "")]
        if isinstance(d, A.ZoneDecl):
            scope = "player" if d.per_player else "card" if d.per_card else ""
            return [self.sym(d.name, "zone", d.span, container=mode, scope=scope)]
        if isinstance(d, A.GraphDecl | A.WindowDecl | A.ProcDecl | A.FnDecl):
            kind = {A.GraphDecl: "graph", A.WindowDecl: "window", A.ProcDecl: "proc", A.FnDecl: "fn"}[type(d)]
            return [self.sym(d.name, kind, d.span, container=mode)]
        if isinstance(d, A.RoundDecl):
            steps = [self.sym(s.name, "step", s.span) for s in d.steps]
            return [Symbol("round", "round", d.span, "round", children=steps, decl_span=d.span)]
        if isinstance(d, A.StepDecl):
            return [self.sym(d.name, "step", d.span, container=mode)]
        if isinstance(d, A.ModeDecl):
            inner = [s for sub in d.decls for s in self.decl(sub, d.name)]
            return [self.sym(d.name, "mode", d.span, children=inner)]
        return self._unnamed(d)

    def _unnamed(self, d: A.Decl) -> list[Symbol]:
        """Declarations without a name of their own, for the outline only (`on`, `setup`, `score`, …)."""
        if isinstance(d, A.HandlerDecl):
            label = f"on {d.window}"
        elif isinstance(d, A.GameDecl):
            label = f'game "{d.title}"'
        elif isinstance(d, A.InvariantDecl):
            label = f'invariant "{d.text}"'
        else:
            label = self.lines[d.span.line - 1].strip().split("{")[0].split("=")[0].strip() or type(d).__name__
        return [Symbol(label, "section", d.span, _first_line(self.lines, d.span), decl_span=d.span)]


def build_index(path: str, text: str, rs: A.Ruleset, program: Program | None,
                read: Callable[[str], str] | None = None, parts: dict[str, str] | None = None) -> Index:
    """The index of a ruleset parsed from ``text`` (and checked into ``program`` when that succeeded); ``parts``
    holds the text of each file it includes (dsl/frontend/includes.py), whose declarations ``rs`` also holds."""
    index = Index(path, program=program)
    texts = {path: text, **(parts or {})}
    builders = {file: _Builder(t, file) for file, t in texts.items()}
    for d in rs.decls:
        builder = builders.get(d.span.file, builders[path])
        for sym in builder.decl(d):
            index.add(sym)
    for file, t in texts.items():
        index.occurrences[file] = words(t, file)
    index.rule_files = list(texts)
    kinds = {d.name: d for d in rs.decls if isinstance(d, A.CardKindDecl)}
    for kind in kinds.values():
        for f in kind.fields:
            if f.type.kind in ("effect", "function"):
                params = [(p.name, p.span, p.type.arg or p.type.kind) for p in f.type.params]
                index.effect_params[f"{kind.name}.{f.name}"] = params
    if program is not None:
        index.card_files = [os.path.abspath(f) for f in program.card_files]
        _add_cards(index, program, read or _read)
        index.decls = rs.decls
    return index


def absolute(span: Span) -> Span:
    """The span with its file as an absolute path (card files' spans name them relative to the working folder)."""
    return span if os.path.isabs(span.file) else span._replace(file=os.path.abspath(span.file))


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return ""


def _key_span(lines: list[str], file: str, near: int, key: str, value: str = "") -> Span | None:
    """Where ``key:`` (followed by ``value`` if given) is written in a YAML file, at or a few lines above ``near``."""
    for n in range(min(near, len(lines)) - 1, max(-1, near - 6), -1):
        line = lines[n]
        body = line.lstrip(" -")
        if not body.startswith(key) or not body[len(key):].lstrip().startswith(":"):
            continue
        start = len(line) - len(body)
        if not value:
            return Span(file, n + 1, start + 1, n + 1, start + len(key) + 1)
        at = line.find(value, start + len(key))
        if at >= 0:
            return Span(file, n + 1, at + 1, n + 1, at + len(value) + 1)
    return None


# card file -> (its text, its cards' symbols, the words in it): a card file is re-read only when it changed
_CARD_CACHE: dict[str, tuple[str, list[Symbol], list[Occurrence]]] = {}


def _add_cards(index: Index, program: Program, read: Callable[[str], str]) -> None:
    by_file: dict[str, list[CardDef]] = {}
    for card in program.cards:
        by_file.setdefault(absolute(card.span).file, []).append(card)
    for file, cards in by_file.items():
        text = read(file)
        cached = _CARD_CACHE.get(file)
        if cached is None or cached[0] != text:
            cached = (text, *_card_file_symbols(file, text, cards))
            _CARD_CACHE[file] = cached
        _, syms, occs = cached
        index.occurrences[file] = occs
        for sym in syms:
            index.cards[sym.name] = sym
            index.card_kind_of[sym.name] = sym.container
            index.declared_at[sym.span] = sym
            index.by_name.setdefault(sym.name, []).append(sym)


def _card_file_symbols(file: str, text: str, cards: list[CardDef]) -> tuple[list[Symbol], list[Occurrence]]:
    lines = text.split("\n")
    syms: list[Symbol] = []
    occs: list[Occurrence] = []
    for card in cards:
        name_span = _key_span(lines, file, card.span.line + 4, "name", card.name) or absolute(card.span)
        syms.append(Symbol(card.name, "card", name_span, f"{card.kind} card, starts in {card.start}"
                           + (f" ×{card.count}" if card.count != 1 else ""), doc=card.text, container=card.kind))
        occs.append(Occurrence(card.name, name_span, False))
        for fname, fspan in card.field_spans.items():
            key = _key_span(lines, file, fspan.line, fname)
            if key is not None:
                occs.append(Occurrence(fname, key, True))
        for value in card.values.values():
            if isinstance(value, A.Expr | list):
                for e in walk_exprs(value):
                    if isinstance(e, A.Name) and e.span.file == card.span.file:
                        occs.append(Occurrence(e.id, absolute(e.span), False))
                    elif isinstance(e, A.Attr) and e.name_span.file == card.span.file:
                        occs.append(Occurrence(e.name, absolute(e.name_span), True))
    return syms, occs


def walk_exprs(node: Any) -> Iterator[A.Expr]:
    """Every expression under ``node`` (declarations, statements, lists of them), outermost first."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, list | tuple):
            stack.extend(reversed(cur))
            continue
        if not dataclasses.is_dataclass(cur) or isinstance(cur, type):
            continue
        if isinstance(cur, A.Expr):
            yield cur
        for f in dataclasses.fields(cur):
            if f.name in ("ty", "ref", "span", "cell_ty", "held", "edges"):
                continue
            value = getattr(cur, f.name)
            if isinstance(value, list | tuple) or (dataclasses.is_dataclass(value) and not isinstance(value, type)):
                stack.append(value)
