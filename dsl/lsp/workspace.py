"""The language server's model: open documents, their rulesets, diagnostics and the answers to queries.

Positions here are 1-based (line, column) like the checker's spans; :mod:`.server` converts to and from the
protocol's 0-based ones. A card YAML file is served through the ruleset whose `cards` pattern names it (found
by looking in the folders above it), so hover, definitions and diagnostics in an effect string are the ruleset's.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from liturgy.dsl import constructs
from liturgy.dsl.checker.checker import check_ruleset
from liturgy.dsl.checker.types import Ty
from liturgy.dsl.diagnostics import Diagnostic, Span
from liturgy.dsl.files import FileRefused, read_limited
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.frontend import cards as card_files
from liturgy.dsl.frontend.includes import include_target, included_files, refusal, resolve
from liturgy.dsl.frontend.parser import _lark
from liturgy.dsl.frontend.reserved import grammar_words
from liturgy.dsl.loader import MAX_RULESET_BYTES
from liturgy.dsl.lsp.symbols import BINDERS, WORD, Index, Occurrence, Symbol, build_index, strings, words

_CARDS_LINE = re.compile(r'^\s*cards\s+"([^"\n]*)"', re.M)
_TOP_DECL = re.compile(r"^\S", re.M)
_INCLUDE_PATH = re.compile(r'^[ \t]*include[ \t]+"([^"\n]*)"')  # an include line and its quoted path
CARD_BUILTIN_FIELDS = {"name": "text: the card's name", "text": "text: the card's rules text",
                       "provisional": "bool: whether the card's numbers are provisional"}


def keywords() -> list[str]:
    """The language's words, from the grammar (so completion never offers a word the parser would refuse)."""
    return sorted(grammar_words(_lark().terminals))


@dataclass
class Analysis:
    """The result of checking one ruleset's current text."""

    path: str
    version: int
    diagnostics: dict[str, list[Diagnostic]]  # file -> its diagnostics (the ruleset and its card files)
    index: Index | None  # from this text if it parsed, else the last text that did
    seconds: float = 0.0


@dataclass
class Workspace:
    """Open documents (path -> text) and the latest analysis of each ruleset."""

    texts: dict[str, str] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)
    analyses: dict[str, Analysis] = field(default_factory=dict)
    ruleset_of_card_file: dict[str, str] = field(default_factory=dict)
    card_loads: dict[Any, Any] = field(default_factory=dict)  # card files loaded, kept while unchanged

    # ------------------------------------------------------------ documents
    def open(self, path: str, text: str, version: int) -> None:
        self.texts[path] = text
        self.versions[path] = version

    def close(self, path: str) -> None:
        self.texts.pop(path, None)
        self.versions.pop(path, None)

    def text_of(self, path: str) -> str:
        if path in self.texts:
            return self.texts[path]
        try:
            return Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""

    def ruleset_for(self, path: str) -> str | None:
        """The ruleset a file belongs to: itself for `.rules`; for a card file, a ruleset whose `cards` pattern
        names it, in the folders above it (the first found; the choice is remembered)."""
        if path.endswith(".rules"):
            return self._including(path) or path
        if path in self.ruleset_of_card_file:
            return self.ruleset_of_card_file[path]
        for analysis in self.analyses.values():
            if analysis.index is not None and path in analysis.index.card_files:
                self.ruleset_of_card_file[path] = analysis.path
                return analysis.path
        folder = Path(path).parent
        for _ in range(4):
            for candidate in sorted(folder.glob("*.rules")) + sorted(folder.glob("*/*.rules")):
                if _names_card_file(candidate, path):
                    self.ruleset_of_card_file[path] = str(candidate)
                    return str(candidate)
            if folder.parent == folder:
                break
            folder = folder.parent
        return None

    def _including(self, path: str) -> str | None:
        """The main file of the ruleset that includes the `.rules` file ``path`` (from an analysis, else found in
        the folders above it by the include lines' text), or None when nothing includes it."""
        for analysis in self.analyses.values():
            if analysis.index is not None and path in analysis.index.rule_files[1:]:
                return analysis.path
        folder = Path(path).parent
        for _ in range(4):
            for candidate in sorted(folder.glob("*.rules")):
                if str(candidate) != path and path in included_files(str(candidate)):
                    return str(candidate)
            if folder.parent == folder:
                break
            folder = folder.parent
        return None

    def _read_part(self, path: str, span: Span) -> tuple[str | None, list[Diagnostic]]:
        """An included file's text for :func:`resolve`: the editor's unsaved text when it is open."""
        if path in self.texts:
            return self.texts[path], []
        try:
            return read_limited(path, MAX_RULESET_BYTES).decode("utf-8"), []
        except (OSError, UnicodeDecodeError, FileRefused) as err:
            return None, [Diagnostic("E214", "error", f"cannot read included file `{path}`: {err}", span)]

    # ------------------------------------------------------------ checking
    def analyse(self, ruleset: str) -> Analysis:
        """Parse and check ``ruleset`` with the open documents' current texts (card files and included files
        included)."""
        started = time.perf_counter()
        text = self.text_of(ruleset)
        version = self.versions.get(ruleset, 0)
        diags: dict[str, list[Diagnostic]] = {}
        rs, errors, sources = resolve(ruleset, text, self._read_part)
        previous = self.analyses.get(ruleset)
        index = previous.index if previous is not None else None
        if rs is not None:
            overlay = {p: t for p, t in self.texts.items() if not p.endswith(".rules")}
            if len(self.card_loads) > 500:
                self.card_loads.clear()
            with card_files.unsaved(overlay, self.card_loads):
                try:
                    program, errors = check_ruleset(rs)
                except RecursionError:
                    program, errors = None, [Diagnostic("E003", "error", "nesting is too deep to check",
                                                        Span.point(ruleset, 1, 1))]
            index = build_index(ruleset, text, rs, program, self.text_of,
                                {f: t for f, t in sources.texts.items() if f != ruleset})
        if index is not None and previous is not None and previous.index is not None and index.program is None:
            _keep_cards(index, previous.index)  # the check failed: keep navigating the cards of the last good one
        for file in sources.files:
            diags[file] = []
        for d in errors:
            diags.setdefault(os.path.abspath(d.span.file), []).append(d)
        if index is not None:
            for card_file in index.card_files:
                diags.setdefault(card_file, [])
        analysis = Analysis(ruleset, version, diags, index, time.perf_counter() - started)
        self.analyses[ruleset] = analysis
        return analysis

    # ------------------------------------------------------------ queries
    def index_for(self, path: str) -> Index | None:
        ruleset = self.ruleset_for(path)
        if ruleset is None:
            return None
        analysis = self.analyses.get(ruleset) or self.analyse(ruleset)
        return analysis.index

    def occurrence_at(self, path: str, line: int, column: int) -> Occurrence | None:
        index = self.index_for(path)
        if index is None:
            return None
        source = index.occurrences.get(path, [])
        if path in index.rule_files and path in self.texts:
            source = words(self.texts[path], path)  # the text as typed, even when it does not parse
        for occ in source:
            s = occ.span
            if s.line == line and s.column <= column <= s.end_column:
                return occ
        return None

    def resolve(self, path: str, line: int, column: int) -> list[Symbol]:
        """The declarations the word at a position means (a card's name in a string, too)."""
        index = self.index_for(path)
        if index is None:
            return []
        occ = self.occurrence_at(path, line, column)
        if occ is None:
            part = self._included_at(index, path, line, column)
            if part is not None:
                return [part]
            for value, span in strings(self.text_of(path), path) if path.endswith(".rules") else []:
                if span.line == line and span.column <= column < span.end_column and value in index.cards:
                    return [index.cards[value]]
            return []
        if occ.span in index.declared_at:
            return [index.declared_at[occ.span]]
        if occ.name in index.cards and not path.endswith(".rules"):
            return [index.cards[occ.name]]
        found = index.lookup(occ.name, occ.dotted)
        if found:
            return found
        local = self._local(index, path, occ)
        return [local] if local is not None else []

    def _included_at(self, index: Index, path: str, line: int, column: int) -> Symbol | None:
        """The file an `include "part.rules"` line names, when the position is on its quoted path: go to
        definition there opens the part, as it opens any name declared in one. A refused or missing path is
        no definition (the diagnostics say why)."""
        lines = self.text_of(path).split("\n") if path.endswith(".rules") else []
        m = _INCLUDE_PATH.match(lines[line - 1]) if 1 <= line <= len(lines) else None
        if m is None or not m.start(1) <= column <= m.end(1) + 1:  # the quotes count (columns from 1)
            return None
        written = m.group(1)
        target = include_target(index.path, written)
        if refusal(index.path, written) is not None or not os.path.isfile(target):
            return None
        return Symbol(written, "file", Span.point(target, 1, 1), f'include "{written}"')

    def _local(self, index: Index, path: str, occ: Occurrence) -> Symbol | None:
        """A `let`, loop, choice or parameter name bound earlier in the same top-level declaration."""
        if not path.endswith(".rules"):
            field_key = _yaml_key_above(self.text_of(path).split("\n"), occ.span.line)
            keys = sorted(index.effect_params, key=lambda k: not k.endswith(f".{field_key}"))
            for key in keys:
                for name, span, kind in index.effect_params[key]:
                    if name == occ.name:
                        return Symbol(name, "parameter", span, f"{name}: {kind} (a parameter of {key})")
            return None
        lines = self.text_of(path).split("\n")
        last = min(occ.span.line, len(lines))
        start = last - 1
        while start > 0 and not _TOP_DECL.match(lines[start]):
            start -= 1
        best: Symbol | None = None
        for n in range(max(0, start), last):
            line = lines[n].split("#", 1)[0]
            for m in BINDERS.finditer(line):
                for g in range(1, (m.lastindex or 0) + 1):
                    if m.group(g) == occ.name and (n + 1, m.start(g) + 1) < (occ.span.line, occ.span.column + 1):
                        span = Span(path, n + 1, m.start(g) + 1, n + 1, m.end(g) + 1)
                        best = Symbol(occ.name, "local", span, line.strip())
        return best

    def hover(self, path: str, line: int, column: int) -> str | None:
        """Markdown for the word at a position: a declaration and its type, a built-in's signature and doc."""
        occ = self.occurrence_at(path, line, column)
        syms = self.resolve(path, line, column)
        parts: list[str] = []
        for sym in syms:
            head = f"({sym.kind}{' of ' + sym.container if sym.container else ''}) "
            parts.append(f"```liturgy\n{sym.detail}\n```\n{head.strip()}" + (f"\n\n{sym.doc}" if sym.doc else ""))
        if occ is not None and not syms:
            if occ.dotted and occ.name in CARD_BUILTIN_FIELDS:
                parts.append(f"(card field) `{occ.name}`: {CARD_BUILTIN_FIELDS[occ.name]}")
            elif occ.name in constructs.BUILTINS:
                parts.append(builtin_doc(occ.name))
        ty = self.type_at(path, line, column)
        if ty is not None and parts:
            parts.append(f"type: `{ty}`")
        elif ty is not None and occ is not None:
            parts.append(f"`{occ.name}`: `{ty}`")
        return "\n\n---\n\n".join(parts) if parts else None

    def type_at(self, path: str, line: int, column: int) -> Ty | None:
        """The checker's type of the innermost name at a position (from the last successful check)."""
        index = self.index_for(path)
        if index is None:
            return None
        best: A.Expr | None = None
        for e in index.typed:
            s = e.name_span if isinstance(e, A.Attr) else e.span
            if isinstance(e, A.Name | A.Attr) and os.path.abspath(s.file) == path and s.line == line \
                    and s.column <= column <= s.end_column:
                best = e
        return best.ty if best is not None else None

    def definition(self, path: str, line: int, column: int) -> list[Span]:
        return [s.span for s in self.resolve(path, line, column)]

    def references(self, path: str, line: int, column: int, include_declaration: bool = True) -> list[Span]:
        """Every use of the declaration at a position, in the ruleset and its card files."""
        index = self.index_for(path)
        syms = self.resolve(path, line, column)
        if index is None or not syms:
            return []
        target = syms[0]
        out: list[Span] = [target.span] if include_declaration else []
        if target.kind == "local":
            return out + self._local_uses(index, path, target)
        files = {index.path: self.text_of(index.path)}
        if target.kind == "card":
            for value, span in strings(files[index.path], index.path):
                if value == target.name:
                    out.append(span)
            return _unique(out)
        for file, occs in self._all_occurrences(index).items():
            for occ in occs:
                if occ.name != target.name or occ.span == target.span:
                    continue
                if target in index.lookup(occ.name, occ.dotted) or (
                        file != index.path and target.kind == "field" and occ.dotted):
                    out.append(occ.span)
        return _unique(out)

    def _all_occurrences(self, index: Index) -> dict[str, list[Occurrence]]:
        out = dict(index.occurrences)
        for file in index.rule_files or [index.path]:
            out[file] = words(self.text_of(file), file)
        return out

    def _local_uses(self, index: Index, path: str, target: Symbol) -> list[Span]:
        out: list[Span] = []
        for occ in self._all_occurrences(index).get(path, []):
            if occ.name == target.name and not occ.dotted and occ.span != target.span:
                local = self._local(index, path, occ)
                if local is not None and local.span == target.span:
                    out.append(occ.span)
        return out

    def completions(self, path: str, line: int, column: int) -> list[tuple[str, str, str]]:
        """(label, kind, detail) for the cursor at (line, column): after `.` the fields of the expression's card
        kind (or a player's zones and counters), else names in scope, built-ins, keywords."""
        index = self.index_for(path)
        lines = self.text_of(path).split("\n")
        text_line = lines[line - 1] if 1 <= line <= len(lines) else ""
        before = text_line[:column - 1]
        m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\.\s*[A-Za-z_0-9]*$", before)
        if index is None:  # a ruleset with no parse yet gets the keywords; a YAML file no ruleset loads, nothing
            return [(k, "keyword", "") for k in keywords()] if path.endswith(".rules") else []
        if m is not None:
            return self._member_completions(index, path, line, m.group(1))
        out: list[tuple[str, str, str]] = []
        seen: set[str] = set()
        for sym in self._locals_before(index, path, line, column):
            if sym.name not in seen:
                seen.add(sym.name)
                out.append((sym.name, "local", sym.detail))
        for name, syms in sorted(index.by_name.items()):
            for sym in syms:
                if sym.kind not in ("field", "card", "section", "round") and name not in seen:
                    seen.add(name)
                    out.append((name, sym.kind, sym.detail))
        for name in sorted(constructs.BUILTINS):
            if name not in seen:
                seen.add(name)
                out.append((name, "builtin", signature(name)))
        for word in ("players", "first", "player_count", "round", "seats", *keywords()):
            if word not in seen:
                seen.add(word)
                out.append((word, "keyword", ""))
        return out

    def _locals_before(self, index: Index, path: str, line: int, column: int) -> list[Symbol]:
        if not path.endswith(".rules"):
            return [Symbol(n, "parameter", s, f"{n}: {k}") for params in index.effect_params.values()
                    for n, s, k in params]
        out = []
        text = self.text_of(path)
        for occ in _binders_above(text, path, line):
            local = self._local(index, path, Occurrence(occ.name, Span(path, line, column, line, column), False))
            if local is not None and local.name == occ.name:
                out.append(local)
        return out

    def _member_completions(self, index: Index, path: str, line: int, obj: str) -> list[tuple[str, str, str]]:
        ty = self._type_of_name(index, path, line, obj)
        out: list[tuple[str, str, str]] = []
        if ty is None or ty.kind == "card":
            kinds = [ty.arg] if ty is not None and ty.arg else [s.name for s in index.symbols if s.kind == "card kind"]
            for sym in index.symbols:
                if sym.kind == "card kind" and sym.name in kinds:
                    out.extend((f.name, "field", f.detail) for f in sym.children)
            out.extend((n, "field", d) for n, d in CARD_BUILTIN_FIELDS.items())
        if ty is None or ty.kind == "player" or ty.kind == "card":
            want = {"player"} if ty is not None and ty.kind == "player" else {"card"} if ty is not None else \
                {"player", "card"}
            for syms in index.by_name.values():
                out.extend((s.name, s.kind, s.detail) for s in syms if s.scope in want)
        unique: dict[str, tuple[str, str, str]] = {}
        for c in out:
            unique.setdefault(c[0], c)
        return list(unique.values())

    def _type_of_name(self, index: Index, path: str, line: int, name: str) -> Ty | None:
        """The type the checker gave ``name`` nearest above ``line`` in this file (the text may not parse now)."""
        best: tuple[int, Ty] | None = None
        for e in index.typed:
            if isinstance(e, A.Name) and e.id == name and os.path.abspath(e.span.file) == path and e.ty is not None \
                    and e.span.line <= line and (best is None or e.span.line >= best[0]):
                best = (e.span.line, e.ty)
        if best is None:
            for e in index.typed:
                if isinstance(e, A.Name) and e.id == name and e.ty is not None:
                    return e.ty
        return best[1] if best is not None else None


def _binders_above(text: str, path: str, line: int) -> list[Occurrence]:
    """The names bound from the start of the enclosing top-level declaration down to ``line``."""
    lines = text.split("\n")
    line = max(1, min(line, len(lines)))
    start = line - 1
    while start > 0 and not _TOP_DECL.match(lines[start]):
        start -= 1
    chunk = "\n".join(lines[start:line])
    out = []
    for m in BINDERS.finditer(chunk):
        for g in range(1, (m.lastindex or 0) + 1):
            if m.group(g):
                out.append(Occurrence(m.group(g), Span(path, line, 1, line, 1), False))
    return out


_YAML_KEY = re.compile(r"^\s*-?\s*([A-Za-z_][A-Za-z0-9_]*)\s*:")


def _yaml_key_above(lines: list[str], line: int) -> str:
    """The YAML key whose value holds 1-based ``line`` (the effect field an effect string belongs to)."""
    for n in range(min(line, len(lines)) - 1, max(-1, line - 60), -1):
        m = _YAML_KEY.match(lines[n])
        if m is not None:
            return m.group(1)
    return ""


def _keep_cards(index: Index, previous: Index) -> None:
    index.cards = previous.cards
    index.card_kind_of = previous.card_kind_of
    index.card_files = previous.card_files
    index.decls = previous.decls
    index.typed_cache = previous.typed_cache
    for sym in previous.cards.values():
        index.declared_at[sym.span] = sym
        index.by_name.setdefault(sym.name, []).append(sym)
    for file, occs in previous.occurrences.items():
        if file != index.path:
            index.occurrences[file] = occs


def _names_card_file(ruleset: Path, card_file: str) -> bool:
    try:  # read like the checker reads a ruleset: regular files only, never more than its size limit
        text = read_limited(str(ruleset), MAX_RULESET_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError, FileRefused):
        return False
    target = os.path.abspath(card_file)
    for pattern in _CARDS_LINE.findall(text):
        # matched as text, never globbed: a stray ruleset's pattern (`../../*/*/*`) must not walk the disk
        full = os.path.normpath(os.path.join(os.path.abspath(ruleset.parent), pattern))
        if _pattern_regex(full).fullmatch(target):
            return True
    return False


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """A card-file pattern as a regular expression over absolute paths: `**` any folders, `*` and `?` within
    one name, `[…]` a character class."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2:]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1:end]
            out.append("[" + ("^" + re.escape(body[1:]) if body.startswith("!") else re.escape(body)) + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


def _unique(spans: list[Span]) -> list[Span]:
    seen: set[Span] = set()
    out = []
    for s in spans:
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def signature(name: str) -> str:
    """A built-in's signature from the registry: `draw_count(zone, n: int) -> int`."""
    b = constructs.BUILTINS[name]
    params = []
    for i, p in enumerate(b.params):
        ty = p.ty if isinstance(p.ty, str) else str(p.ty)
        optional = "?" if i >= b.required else ""
        params.append(f"{p.name}{optional}: {ty}" + (", …" if b.variadic and i == len(b.params) - 1 else ""))
    result = str(b.result) if b.result is not None else "(follows the arguments)"
    return f"{name}({', '.join(params)}) -> {result}"


def builtin_doc(name: str) -> str:
    b = constructs.BUILTINS[name]
    return f"```liturgy\n{signature(name)}\n```\n(built-in, reads {b.reads})\n\n{b.doc}"


def word_at(text: str, line: int, column: int) -> str | None:
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return None
    for m in WORD.finditer(lines[line - 1]):
        if m.start() + 1 <= column <= m.end() + 1:
            return m.group()
    return None
