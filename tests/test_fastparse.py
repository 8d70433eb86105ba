"""The fast LALR driver builds exactly the tree Lark's own path builds, spans included.

Every shipped ruleset, every card snippet they load and every docs example is
parsed both ways and compared node by node; damaged sources check that
whenever the fast driver gives an answer it is Lark's answer, and that
everything it declines still gets Lark's diagnostics.
"""

from __future__ import annotations

import dataclasses
import glob
import json
import random
from pathlib import Path
from typing import Any

import pytest
from liturgy.dsl.diagnostics import Span
from liturgy.dsl.frontend import cards, fastparse, parser
from liturgy.dsl.frontend.includes import main_rulesets
from liturgy.dsl.loader import check_file

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(
    glob.glob(str(ROOT / "rulesets" / "**" / "*.rules"), recursive=True)
    + glob.glob(str(ROOT / "docs" / "examples" / "*.rules"))
)


_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _fields(cls: type) -> tuple[str, ...] | None:
    """The field names of a node class (None: not a dataclass), read once per class (``dataclasses.fields``
    builds its tuple again at every call, a large part of dumping a whole ruleset's tree)."""
    if cls not in _FIELDS:
        _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) else None
    return _FIELDS[cls]


def dump(node: Any) -> Any:
    """A comparable picture of an AST: node types, every field, every span, token positions."""
    if isinstance(node, list | tuple):
        return (type(node).__name__, tuple(dump(x) for x in node))
    names = _fields(type(node))
    if names is not None:
        return (type(node).__name__,) + tuple((name, dump(getattr(node, name))) for name in names)
    if isinstance(node, str) and hasattr(node, "type"):
        return ("token", node.type, str(node), node.line, node.column, node.end_line, node.end_column)
    return node


def lark_path(text: str, file: str, start: str) -> Any:
    tree, error = parser._parse_once(text, file, start)
    if error is not None:
        return ("error", error)
    return parser._tree_to_ast(tree, parser._AstBuilder(file))


def fast_path(text: str, file: str, start: str) -> Any:
    tables = parser._tables()
    assert tables is not None
    return parser.fast_parse(tables, text, start, parser._AstBuilder(file))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: Path(p).name)
def test_ruleset_trees_are_identical(path: str) -> None:
    text = Path(path).read_text(encoding="utf-8")
    fast = fast_path(text, path, "start")
    assert fast is not None, "the fast driver declined a valid ruleset"
    assert dump(fast) == dump(lark_path(text, path, "start"))


def relocated_reference(text: str, file: str, line: int, column: int, indent: int, start: str) -> Any:
    """The snippet tree as it used to be made: Lark's tree, built in `<effect>`, then every span shifted."""
    tree, error = parser._parse_once(text, "<effect>", start)
    assert error is None, error
    root = parser._tree_to_ast(tree, parser._AstBuilder("<effect>"))
    stack = [root]
    seen: set[int] = set()
    while stack:
        n = stack.pop()
        if isinstance(n, list | tuple):
            stack.extend(n)
            continue
        if not hasattr(n, "__dataclass_fields__") or id(n) in seen:
            continue
        seen.add(id(n))
        for key in n.__dataclass_fields__:
            value = getattr(n, key)
            if isinstance(value, Span):
                setattr(n, key, value.shifted(file, line, column, indent))
            elif isinstance(value, list | tuple) or hasattr(value, "__dataclass_fields__"):
                stack.append(value)
    return root


def test_card_snippets_are_identical(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checks every shipped ruleset while comparing each card snippet's tree with the reference."""
    seen: list[str] = []

    def compared(real: Any, start: str) -> Any:
        def parse(text: str, file: str, line: int, column: int, indent: int = 0) -> Any:
            tree, errors = real(text, file, line, column, indent)
            assert tree is not None, errors
            assert dump(tree) == dump(relocated_reference(text, file, line, column, indent, start)), text
            seen.append(start)
            return tree, errors
        return parse

    monkeypatch.setattr(cards, "parse_effect_text", compared(parser.parse_effect_text, "effect_body"))
    monkeypatch.setattr(cards, "parse_expr_text", compared(parser.parse_expr_text, "expr_only"))
    for path in main_rulesets([p for p in SOURCES if "rulesets" in p]):  # parts are checked through their main file
        program, diags = check_file(path)
        assert program is not None, diags
    assert "effect_body" in seen and "expr_only" in seen


def test_fast_and_lark_paths_shift_snippet_spans_alike() -> None:
    text = "let a = 1\n  if a > 0 {\n    log \"x\", a }"
    for start in ("effect_body",):
        builder = parser._AstBuilder("c.yaml", 7, 12, 4)
        fast = parser.fast_parse(parser._tables(), text, start, builder)  # type: ignore[arg-type]
        assert dump(fast) == dump(relocated_reference(text, "c.yaml", 7, 12, 4, start))


def _mutations(text: str, rng: random.Random, count: int) -> list[str]:
    """Sources with one small edit each: a character deleted, duplicated or replaced."""
    out = []
    alphabet = "{}()[],.:=<>+-*/%\"#\n ax1_"
    for _ in range(count):
        i = rng.randrange(len(text))
        op = rng.randrange(3)
        if op == 0:
            out.append(text[:i] + text[i + 1:])
        elif op == 1:
            out.append(text[:i] + text[i] + text[i:])
        else:
            out.append(text[:i] + rng.choice(alphabet) + text[i + 1:])
    return out


@pytest.mark.parametrize("path", [p for p in SOURCES if "examples" in p], ids=lambda p: Path(p).name)
def test_damaged_sources_parse_as_lark_parses_them(path: str) -> None:
    """Where the fast driver answers, Lark agrees; what it declines, Lark decides (with the same E001/E002)."""
    text = Path(path).read_text(encoding="utf-8")
    rng = random.Random(path)
    declined = 0
    for damaged in _mutations(text, rng, 25):
        fast = fast_path(damaged, "x.rules", "start")
        slow = lark_path(damaged, "x.rules", "start")
        if fast is None:
            declined += 1
            continue
        assert dump(fast) == dump(slow), damaged
    assert declined > 0  # some edits are syntax errors, which always go to Lark


@pytest.mark.parametrize("snippet", [
    "x = x + 1", "", "  # only a comment\n", "log \"a\" , b", "if a { b = 1 } elif c { } else { end game }",
    "choose c from hand(p) where c.cost <= 3 by p optional \"skip\" { } otherwise { }",
    "let v = (a + b) * -c[0].d(e, f)", "move top(deck) to hand(p) bottom", "fire hit(p, 1 + 2)",
    "transfer all from a to b as gold", "repeat while not done { break }",
    "let ifx = in_ + not_", "let x = [y for y in z where y not in w]",
])
def test_effect_snippets(snippet: str) -> None:
    fast = fast_path(snippet, "<effect>", "effect_body")
    slow = lark_path(snippet, "<effect>", "effect_body")
    if fast is None:
        assert slow[0] == "error"
    else:
        assert dump(fast) == dump(slow)


def test_keyword_as_name_where_the_parser_takes_a_name() -> None:
    """`text` is a keyword in types but a field name after `.`: the contextual lexer's rule."""
    snippet = 'log "t", c.text'
    assert dump(fast_path(snippet, "<effect>", "effect_body")) == dump(lark_path(snippet, "<effect>", "effect_body"))


def test_deep_nesting_goes_to_lark(monkeypatch: pytest.MonkeyPatch) -> None:
    deep = "let x = " + "-" * (fastparse.MAX_FAST_DEPTH + 5) + "1"
    assert fast_path(deep, "<effect>", "effect_body") is None
    shallow = "let x = " + "-" * (fastparse.MAX_FAST_DEPTH - 5) + "1"
    assert dump(fast_path(shallow, "<effect>", "effect_body")) == dump(lark_path(shallow, "<effect>", "effect_body"))


def _fresh_tables(monkeypatch: pytest.MonkeyPatch, cache: str) -> fastparse.Tables | None:
    monkeypatch.setenv("LITURGY_CACHE_DIR", cache)
    parser._tables.cache_clear()
    try:
        return parser._tables()
    finally:
        parser._tables.cache_clear()


def test_tables_cache_round_trip_and_damage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables are written as JSON, read back without Lark, and a damaged or stale file is just rebuilt."""
    derived = _fresh_tables(monkeypatch, str(tmp_path))
    (cached_file,) = tmp_path.glob("fastparse-*.json")
    assert (cached_file.stat().st_mode & 0o077) == 0
    monkeypatch.setattr(parser, "_lark", lambda: pytest.fail("Lark was loaded although the tables were cached"))
    loaded = _fresh_tables(monkeypatch, str(tmp_path))
    assert loaded is not None and derived is not None
    assert loaded.action == derived.action and loaded.goto == derived.goto and loaded.rules == derived.rules
    assert loaded.regex.pattern == derived.regex.pattern and loaded.keywords == derived.keywords
    text = (ROOT / "rulesets" / "bloodborne.rules").read_text(encoding="utf-8")
    assert dump(parser.fast_parse(loaded, text, "start", parser._AstBuilder("b"))) == \
        dump(parser.fast_parse(derived, text, "start", parser._AstBuilder("b")))
    monkeypatch.undo()
    for damage in ("{not json", '{"key": "stale", "data": {}}', '{"key": "%s", "data": {"format": 1}}'):
        key = json.loads(cached_file.read_text())["key"]
        cached_file.write_text(damage.replace("%s", key) if "%s" in damage else damage)
        rebuilt = _fresh_tables(monkeypatch, str(tmp_path))
        assert rebuilt is not None and rebuilt.action == derived.action
        assert json.loads(cached_file.read_text())["key"] == key  # rewritten
    assert _fresh_tables(monkeypatch, "off") is not None  # no cache at all still parses


def test_tables_are_derived_from_the_parser_of_their_own_grammar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a cache miss the tables come from the Lark parser of the grammar asked for (no extensions: key ""),
    the one a syntax error later needs too, so one parser is built and cached, not a second one named by the
    tables' digest (the digest used to shadow the key: a second Lark build and a stray cache file)."""
    asked: list[str | None] = []
    real = parser._lark
    monkeypatch.setattr(parser, "_lark", lambda key=None: asked.append(key) or real(key))
    assert _fresh_tables(monkeypatch, str(tmp_path)) is not None
    assert asked == [""]
    assert not [p.name for p in tmp_path.iterdir() if len(p.name) > 80]  # no grammar file named by a full digest


def _grammar_words() -> list[str]:
    tables = parser._tables()
    assert tables is not None
    return sorted({w for words in tables.keywords.values() for w in words})


@pytest.mark.parametrize("word", _grammar_words())
def test_a_word_as_a_let_name_parses_alike_on_both_paths(word: str) -> None:
    """Issue 33: after `let pool = [...]`, LALR's merged lookahead lets the contextual lexer read the next
    statement's `pool` as the declaration word; the fast driver retyped it to a name but Lark's path (the
    reference for card snippets, and the fallback) reported E300. Both paths must now agree for every word of the
    grammar, in a card snippet and in a ruleset's body, and every word the grammar does not need at the start of a
    statement (the zone kinds, the declaration words, `to`, `by`, ...) must name a variable there."""
    tables = parser._tables()
    assert tables is not None
    starting = {w for t, words in tables.keywords.items() for w, k in words.items()
                if k in tables.action[tables.start_states["effect_body"]]}
    body = f'let {word} = [1]\n{word} = {word} + [2]\nlog "{{}}", {word}\n'
    for start, text in (("effect_body", body), ("start", f"proc f() {{\n{body}}}\n")):
        fast = fast_path(text, "<x>", start)
        lark = lark_path(text, "<x>", start)
        if fast is None:
            assert isinstance(lark, tuple) and lark[0] == "error", (start, lark)
            assert word in starting | {"and", "or", "in"}, (start, lark)  # continues the expression before it
        else:
            assert dump(fast) == dump(lark), start
