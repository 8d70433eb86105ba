"""`liturgy fmt`: one canonical layout for `.rules` text.

Why this shape: a ruleset is read far more often than written, and diffs between authors are only useful when
whitespace carries no opinions. The formatter keeps every token and comment and the author's line breaks (a
line break is a decision about reading: where a long condition wraps, which statements share a line), and
decides everything else: indentation (two spaces per open brace, four more for a line continuing a statement),
the spaces between tokens, two spaces between statements that share a line, trailing comments aligned in runs of
consecutive lines, no trailing spaces, at most one blank line in a row, one newline at the end.

Keeping the line breaks also keeps line numbers, so diagnostics, docs and tests that cite `file:line` stay right.
Because only whitespace between tokens changes, the parsed program is the same; :func:`format_text` re-parses its
output and compares the syntax trees (spans aside) before handing it back, so a bug here can never change a game.

The layout depends only on the tokens and the line breaks, never on the old spacing, so formatting is idempotent.
Which lines start a statement, a declaration or an item (and so sit at the block's indentation rather than a
continuation's) comes from Lark's parse tree of the text, with every token kept.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedInput
from liturgy.dsl.constructs.extensions import grammar_key
from liturgy.dsl.diagnostics import Diagnostic, Span
from liturgy.dsl.frontend.grammar_cache import grammar_cache_file
from liturgy.dsl.frontend.parser import _grammar, _syntax_diag, parse_ruleset_text

INDENT = 2  # per open brace, the shipped rulesets' convention
CONTINUATION = 4  # a line that continues the statement above

# Parse-tree rules whose first token starts a line at the block's indentation: every `*_decl` and `*_stmt` rule
# (so a statement or declaration added to the grammar is laid out without a change here), and these items.
_ITEMS = frozenset({
    "players_item", "step_limit_item", "seats_item", "absent_item", "field_decl", "pool_global", "pool_per_player",
    "pool_per_card", "fn_let", "mode_step", "show_line", "show_for", "show_if",
})


def _is_head(rule: str) -> bool:
    return rule.endswith(("_decl", "_stmt")) or rule in _ITEMS


# Clauses that continue a statement after its block; at a line's start they sit at the block's indentation.
_CLAUSES = frozenset({"elif_clause", "else_clause", "none_clause"})
# Keywords written against their `(`: `score(p)`, `effect(p: player)`, `display(p)`.
_GLUED_KEYWORDS = frozenset({"score", "winner", "tiebreak", "display", "effect", "function"})
_NO_SPACE_BEFORE = frozenset({")", "]", ",", ":", ".", ".."})
_NO_SPACE_AFTER = frozenset({"(", "[", ".", ".."})


class FormatError(Exception):
    """The text could not be formatted: it does not parse (diagnostics attached), or formatting would change
    the program (a bug in the formatter, refused rather than written)."""

    def __init__(self, diagnostics: list[Diagnostic], message: str = "") -> None:
        super().__init__(message or "\n".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics


@lru_cache(maxsize=2)
def _lark_all_tokens(key: str = "") -> Lark:
    """The language's grammar with every token kept in the tree (keywords, punctuation), for layout; ``key``:
    the registered extensions' (dsl/constructs/extensions.py)."""
    cache = grammar_cache_file(key)  # the analysed tables, kept like the main parser's (a file of its own)
    # no propagated positions: the layout reads only the tokens' own line and column (a tree's first token stands
    # for where it starts), and working out every node's span cost a quarter of Lark's parse
    return Lark(_grammar(key), parser="lalr", propagate_positions=False, maybe_placeholders=True, keep_all_tokens=True,
                start="start", cache=cache[:-len(".cache")] + "-layout.cache" if isinstance(cache, str) else False)


@dataclasses.dataclass
class _Facts:
    """What the parse tree says about positions (line, column) of tokens."""

    heads: set[tuple[int, int]] = dataclasses.field(default_factory=set)  # a statement / declaration / item starts
    clauses: set[tuple[int, int]] = dataclasses.field(default_factory=set)  # else / elif / otherwise
    unary: set[tuple[int, int]] = dataclasses.field(default_factory=set)  # a prefix `-`
    exploding: set[tuple[int, int]] = dataclasses.field(default_factory=set)  # a die face's `+`


def _tokens(tree: Tree[Any]) -> list[Token]:
    return [c for sub in tree.iter_subtrees() for c in sub.children if isinstance(c, Token)]


def _facts(tree: Tree[Any]) -> _Facts:
    facts = _Facts()
    first: dict[int, Token] = {}  # id(subtree) -> its leftmost token; children come before parents (no recursion)
    for sub in tree.iter_subtrees():
        lead = None
        for child in sub.children:
            lead = child if isinstance(child, Token) else first.get(id(child)) if isinstance(child, Tree) else None
            if lead is not None:
                break
        if lead is None:
            continue
        first[id(sub)] = lead
        rule = sub.data if isinstance(sub.data, str) else sub.data.value
        at = (lead.line or 0, lead.column or 0)
        if _is_head(rule):
            facts.heads.add(at)
        elif rule in _CLAUSES:
            facts.clauses.add(at)
        elif rule in ("neg", "negative") and lead.value == "-":
            facts.unary.add(at)
        elif rule == "exploding_face":
            plus = sub.children[-1]
            if isinstance(plus, Token):
                facts.exploding.add((plus.line or 0, plus.column or 0))
    return facts


def _comments(text: str) -> list[tuple[int, int, str]]:
    """Every comment as (line, column, text), 1-based. Strings cannot span lines and `#` inside one is text, so
    a scan of each line that skips strings (with their escapes) finds exactly what the lexer ignores."""
    out: list[tuple[int, int, str]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        i, in_string = 0, False
        while i < len(line):
            ch = line[i]
            if in_string:
                if ch == "\\":
                    i += 1
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
            elif ch == "#":
                out.append((number, i + 1, line[i:].rstrip()))
                break
            i += 1
    return out


def _parse(text: str, file: str) -> Tree[Any]:
    """The parse tree with every token kept; a syntax error is the parser's own diagnostic."""
    try:
        return _lark_all_tokens(grammar_key()).parse(text)
    except UnexpectedInput as err:
        raise FormatError([_syntax_diag(err, file, text)]) from err
    except (LarkError, RecursionError) as err:
        raise FormatError([Diagnostic("E001", "error", f"could not parse: {err}", Span.point(file, 1, 1))]) from err


def _separator(prev: Token, tok: Token, facts: _Facts) -> str:
    """The spaces between two tokens on one line."""
    at = (tok.line or 0, tok.column or 0)
    if at in facts.heads and prev.value != "{":
        return "  "  # a second statement (or declaration) on the line
    if (prev.line or 0, prev.column or 0) in facts.unary or at in facts.exploding:
        return ""
    if tok.value in _NO_SPACE_BEFORE or prev.value in _NO_SPACE_AFTER:
        return ""
    glued = prev.type == "NAME" or prev.value in (")", "]")
    if tok.value == "(" and (glued or prev.value in _GLUED_KEYWORDS):
        return ""
    if tok.value == "[" and glued:
        return ""
    return " "


@dataclasses.dataclass
class _Line:
    tokens: list[Token]
    comment: str | None
    indent: int = 0
    code: str = ""


def _lines(text: str, tree: Tree[Any]) -> list[_Line]:
    count = text.count("\n") + 1
    lines = [_Line([], None) for _ in range(count)]
    for tok in _tokens(tree):
        lines[(tok.line or 1) - 1].tokens.append(tok)
    for line in lines:
        line.tokens.sort(key=lambda t: t.column or 0)
    for number, _column, comment in _comments(text):
        lines[number - 1].comment = comment
    return lines


def _indent(lines: list[_Line], facts: _Facts) -> None:
    """Each code line's indentation from the braces open before it and whether it starts a statement; a
    comment line takes the indentation of the code line after it (the block's, before a closing brace)."""
    depth = 0
    head_depth = 0
    brackets = 0  # `(` and `[` open at the line's start: each nests a continuation four more
    for line in lines:
        if not line.tokens:
            continue
        first = line.tokens[0]
        at = (first.line or 0, first.column or 0)
        if first.value == "}":
            head_depth = max(0, depth - 1)
            line.indent = INDENT * head_depth
        elif at in facts.heads or at in facts.clauses or first.value == "return":
            head_depth = depth
            line.indent = INDENT * depth
        else:
            nested = brackets - (1 if first.value in (")", "]") else 0)
            line.indent = INDENT * head_depth + CONTINUATION * (1 + max(0, nested))
        for tok in line.tokens:
            if tok.value == "{":
                depth += 1
            elif tok.value == "}":
                depth = max(0, depth - 1)
            elif tok.value in ("(", "["):
                brackets += 1
            elif tok.value in (")", "]"):
                brackets = max(0, brackets - 1)
    upcoming: int | None = None
    depths = _depths_before(lines)
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index]
        if line.tokens:
            closing = line.tokens[0].value == "}"
            upcoming = INDENT * depths[index] if closing else line.indent
        elif line.comment is not None:
            line.indent = upcoming if upcoming is not None else 0


def _depths_before(lines: list[_Line]) -> list[int]:
    """The number of braces open at the start of each line."""
    out = []
    depth = 0
    for line in lines:
        out.append(depth)
        for tok in line.tokens:
            if tok.value == "{":
                depth += 1
            elif tok.value == "}":
                depth = max(0, depth - 1)
    return out


def _render(lines: list[_Line], facts: _Facts) -> str:
    for line in lines:
        parts: list[str] = []
        prev: Token | None = None
        for tok in line.tokens:
            parts.append(tok.value if prev is None else _separator(prev, tok, facts) + tok.value)
            prev = tok
        line.code = "".join(parts)
    _align_comments(lines)
    out: list[str] = []
    blanks = 0
    for line in lines:
        if not line.tokens and line.comment is None:
            blanks += 1
            continue
        if out and blanks:
            out.extend([""] * min(blanks, 2))
        blanks = 0
        out.append(" " * line.indent + line.code)
    return "\n".join(out) + "\n" if out else ""


def _align_comments(lines: list[_Line]) -> None:
    """Trailing comments on consecutive lines line up two spaces after the longest code among them."""
    index = 0
    while index < len(lines):
        if not (lines[index].tokens and lines[index].comment is not None):
            line = lines[index]
            if line.comment is not None:
                line.code = line.comment
            index += 1
            continue
        end = index
        while end < len(lines) and lines[end].tokens and lines[end].comment is not None:
            end += 1
        column = max(lines[i].indent + len(lines[i].code) for i in range(index, end)) + 2
        for i in range(index, end):
            line = lines[i]
            line.code += " " * (column - line.indent - len(line.code)) + (line.comment or "")
        index = end


def layout(text: str, file: str = "<text>") -> str:
    """The canonical layout of ruleset ``text``, without checking it (see :func:`format_text`)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    tree = _parse(text, file)
    facts = _facts(tree)
    lines = _lines(text, tree)
    _indent(lines, facts)
    return _render(lines, facts)


_SHAPE_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _shape_fields(cls: type) -> tuple[str, ...] | None:
    """The fields :func:`shape` compares of a node class (None: not a dataclass), read once per class:
    ``dataclasses.fields`` builds a new tuple at every call, a third of the time of a whole file's shape."""
    names: tuple[str, ...] | None = None
    if dataclasses.is_dataclass(cls):
        names = tuple(f.name for f in dataclasses.fields(cls) if f.compare and f.name != "file")
    _SHAPE_FIELDS[cls] = names
    return names


def shape(node: Any) -> Any:
    """A syntax tree as nested tuples without its source positions: equal shapes mean the same program."""
    if isinstance(node, Span):
        return None
    cls = type(node)
    names = _SHAPE_FIELDS[cls] if cls in _SHAPE_FIELDS else _shape_fields(cls)
    if names is not None:
        return (cls.__name__,) + tuple(shape(getattr(node, name)) for name in names)
    if isinstance(node, list | tuple):
        return tuple(shape(x) for x in node)
    if isinstance(node, dict):
        return tuple(sorted((repr(k), shape(v)) for k, v in node.items()))
    return node


def format_text(text: str, file: str = "<text>") -> str:
    """Format ruleset ``text``; raise :class:`FormatError` if it does not parse, or if the formatted
    text would parse to a different program (a formatter bug, never written; no diagnostics, a message)."""
    before, errors = parse_ruleset_text(text, file)
    if before is None:
        raise FormatError(errors)
    try:
        out = layout(text, file)
        # text already in its layout (what `fmt --check` meets most) is its own program: parsing it again and
        # comparing the two shapes would only repeat the work just done
        if out == text:
            return out
        after, errors = parse_ruleset_text(out, file)
        same = after is not None and shape(after.decls) == shape(before.decls)
    except RecursionError as err:
        raise FormatError([Diagnostic("E003", "error", "nesting is too deep to format", Span.point(file, 1, 1),
                                      hint="split deeply nested expressions into `let` steps")]) from err
    if not same:
        raise FormatError([], f"{file}: formatting would change the program, so the file was left as it was "
                              "(a bug in `liturgy fmt`: please report this file)")
    return out


__all__ = ["FormatError", "format_text", "layout", "shape"]
