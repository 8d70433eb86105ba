"""The cache of parsed card snippets (dsl/frontend/snippetcache.py) changes nothing but the time.

A snippet served from the cache is the tree an uncached parse builds in the same place — node types, every
field, every span — and its syntax errors are the same diagnostics at the same file:line:column; each caller
gets a tree of its own; a change to the registered extensions is a different key; the cache is bounded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from liturgy.dsl.constructs.extensions import registered
from liturgy.dsl.diagnostics import NOWHERE, Span
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.frontend import parser
from liturgy.dsl.frontend.snippetcache import ADMIT, PLACEHOLDER, SNIPPETS, SnippetCache, freeze, thaw
from liturgy.dsl.loader import check_file

ROOT = Path(__file__).resolve().parent.parent


def dump(node: Any) -> Any:
    """A comparable picture of a tree: node types, every attribute (the checker's slots too), every span."""
    if isinstance(node, Span):
        return node
    if isinstance(node, list | tuple):
        return (type(node).__name__, tuple(dump(x) for x in node))
    if isinstance(node, dict):
        return ("dict", tuple((dump(k), dump(v)) for k, v in node.items()))
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return (type(node).__name__,) + tuple((k, dump(v)) for k, v in vars(node).items())
    if isinstance(node, str) and hasattr(node, "type"):
        return ("token", node.type, str(node), node.line, node.column, node.end_line, node.end_column)
    return node


@pytest.fixture
def fresh_cache() -> Iterator[None]:
    SNIPPETS.clear()
    yield
    SNIPPETS.clear()
    SNIPPETS.enabled = True


def _parse(start: str, text: str, where: tuple[str, int, int, int], cached: bool) -> tuple[Any, Any]:
    SNIPPETS.enabled = cached
    try:
        fn = parser.parse_effect_text if start == "effect_body" else parser.parse_expr_text
        tree, errors = fn(text, *where)
    finally:
        SNIPPETS.enabled = True
    return dump(tree), errors


PLACES = [("cards/a.yaml", 1, 1, 0), ("cards/b.yaml", 12, 14, 6), ("deep/c.yaml", 300, 3, 2)]


def _same_everywhere(start: str, text: str) -> None:
    """Kept in the cache from a parse at one place (its ADMIT-th sighting), then served at every place: each
    tree and each diagnostic is the uncached parse's at that place."""
    references = {where: _parse(start, text, where, cached=False) for where in PLACES}
    for kept_at in PLACES:
        SNIPPETS.clear()
        for _ in range(ADMIT):  # seen, then parsed in place and kept
            assert _parse(start, text, kept_at, cached=True) == references[kept_at], (text, kept_at)
        assert len(SNIPPETS) == 1
        for where in PLACES:
            assert _parse(start, text, where, cached=True) == references[where], (text, kept_at, where)
        assert SNIPPETS.hits == len(PLACES)


EFFECTS = [
    "hp -= 1",
    'let n = 2\nfor p in players {\n  p.hp -= n\n  log "{p} loses {n}", p\n}',
    "if self.cost > 0 { move top of deck to hand }",
]
BROKEN = [
    "hp -= ",  # at the end
    "let n = 2\n  if n > { hp = 1 }",  # on the second line, under the snippet's indent
    "for p in players {\n  p.hp -= 1",  # an unclosed brace
    "hp = $",  # a character the language does not have
    "let = 3",  # a keyword where a name should be
]


@pytest.mark.parametrize("text", EFFECTS + BROKEN)
def test_a_cached_effect_is_the_parsed_one_with_its_spans_and_diagnostics(fresh_cache: None, text: str) -> None:
    _same_everywhere("effect_body", text)


@pytest.mark.parametrize("text", ["self.cost + 1", "count(c in hand where c.cost > 2)", "1 +", "(2"])
def test_a_cached_expression_is_the_parsed_one(fresh_cache: None, text: str) -> None:
    _same_everywhere("expr_only", text)


def test_syntax_errors_from_the_cache_point_into_the_callers_file(fresh_cache: None) -> None:
    text = "let n = 2\n  if n > { hp = 1 }"
    for _ in range(ADMIT):
        parser.parse_effect_text(text, "first.yaml", 5, 10, 4)
    _, errors = parser.parse_effect_text(text, "second.yaml", 40, 12, 6)
    assert SNIPPETS.hits >= 1
    assert errors and all(d.span.file == "second.yaml" for d in errors)
    assert errors[0].span.line == 41  # the snippet's second line, 40 being its first


def test_each_caller_gets_a_tree_of_its_own(fresh_cache: None) -> None:
    """The checker writes `ty` and `ref` into the nodes and passes may edit lists: nothing reaches the cache."""
    text = 'let n = 2\nlog "{n}", n'
    reference = _parse("effect_body", text, PLACES[1], cached=False)
    for _ in range(ADMIT):
        first, _ = parser.parse_effect_text(text, *PLACES[1])
    second, _ = parser.parse_effect_text(text, *PLACES[1])
    assert SNIPPETS.hits == 1
    assert second is not first and second[0] is not first[0]
    second[0].value.ty = "spoiled"  # type: ignore[union-attr]
    second.append(second[0])  # type: ignore[union-attr]
    assert _parse("effect_body", text, PLACES[1], cached=True) == reference


def test_a_checked_ruleset_is_the_same_with_and_without_the_cache(
    fresh_cache: None, write_ruleset: Callable[..., str]
) -> None:
    """Cards that share an effect text, valid and broken: the program's cards and every diagnostic (text, file,
    line, column) are alike; the broken cards' errors each point at their own card's line."""
    rules = '''game "G" { players 2..2 }
card Spell {
  power: int
  effect: effect
}
cards "spells.yaml"
zone deck: deck hidden of Spell
counter pool 0..100
round { step s "S" { end game } }
'''
    good = "pool += self.power"
    bad = "pool = ("
    entries = "".join(f'  - name: "S{i}"\n    power: {i}\n    effect: "{good if i % 2 else bad}"\n'
                      for i in range(8))
    path = write_ruleset(rules, {"spells.yaml": f"kind: Spell\nstart: deck\ncards:\n{entries}"})
    SNIPPETS.enabled = False
    plain = check_file(path)[1]
    SNIPPETS.enabled = True
    for _ in range(ADMIT):
        cached = check_file(path)[1]
        assert cached == plain
    assert SNIPPETS.hits > 0
    lines = sorted(d.span.line for d in plain if d.code == "E205")
    assert len(lines) == 4 and len(set(lines)) == 4  # each broken card's own line

    fixed = write_ruleset(rules, {"spells.yaml": f"kind: Spell\nstart: deck\ncards:\n{entries.replace(bad, good)}"})
    SNIPPETS.enabled = False
    program, diags = check_file(fixed)
    SNIPPETS.enabled = True
    cached_program, cached_diags = check_file(fixed)
    assert program is not None and cached_program is not None and diags == cached_diags
    assert [dump(c.values["effect"]) for c in program.cards] == [
        dump(c.values["effect"]) for c in cached_program.cards]


def test_a_registered_extension_is_another_key(fresh_cache: None) -> None:
    """The same text parses differently once a construct is registered, and again after it is withdrawn."""
    from tests.test_extensions import SWAP

    text = "swap a, b"
    for _ in range(3):
        assert parser.parse_effect_text(text, "x.yaml", 1, 1)[0] is None
    with registered(SWAP):
        for _ in range(3):
            tree, errors = parser.parse_effect_text(text, "x.yaml", 1, 1)
            assert tree is not None and not errors
    assert parser.parse_effect_text(text, "x.yaml", 1, 1)[0] is None


def test_the_copy_keeps_sharing_and_leaves_other_spans() -> None:
    """A node used twice stays one node used twice; a span that is not the snippet's (a default) is kept."""
    shared = A.Name(Span(PLACEHOLDER, 1, 3, 1, 4), id="a")
    tree = [A.Assign(Span(PLACEHOLDER, 2, 1, 2, 9), shared, "=", shared), A.Name(NOWHERE, id="b")]
    frozen = freeze(tree)
    assert frozen is not None
    copy = thaw(frozen, "f.yaml", 10, 5, 2)
    assert copy[0].target is copy[0].value and copy[0].target is not shared
    assert copy[0].target.span == Span("f.yaml", 10, 7, 10, 8)
    assert copy[0].span == Span("f.yaml", 11, 3, 11, 11)
    assert copy[1].span is NOWHERE


def test_a_tree_that_cannot_be_kept_is_not_cached() -> None:
    """An object that does not pickle (a local class, here) leaves the tree out of the cache: parsed each time."""

    class Local:
        pass

    assert freeze([A.Name(Span(PLACEHOLDER, 1, 1, 1, 2), id="a"), Local()]) is None


def test_the_cache_is_bounded() -> None:
    cache = SnippetCache(max_entries=3)
    for i in range(10):
        key = ("effect_body", f"hp -= {i}", 0)
        assert not any(cache.worth_storing(key) for _ in range(ADMIT - 1))
        assert cache.worth_storing(key)
        cache.put(key, [], [])
    assert len(cache) == 3 and len(cache._seen) <= 3
    assert cache.get(("effect_body", "hp -= 9", 0)) is not None
    assert cache.get(("effect_body", "hp -= 0", 0)) is None  # the least recently used went first
