"""Card files are composed by libyaml when it is available: it must agree with PyYAML's pure-Python composer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT
from liturgy.dsl.frontend import cards

YAML_FILES = sorted(str(p) for p in ROOT.rglob("*.yaml") if ".git" not in p.parts and "node_modules" not in p.parts)
needs_libyaml = pytest.mark.skipif(not getattr(yaml, "__with_libyaml__", False), reason="PyYAML without libyaml")


def _nodes(node: yaml.Node, out: list[Any]) -> list[Any]:
    s, e = node.start_mark, node.end_mark
    out.append((type(node).__name__, node.tag, s.line, s.column, s.index, e.line, e.column, e.index,
                getattr(node, "style", None) or None, node.value if isinstance(node, yaml.ScalarNode) else None))
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            _nodes(k, out)
            _nodes(v, out)
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            _nodes(v, out)
    return out


@needs_libyaml
@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: str(Path(p).relative_to(ROOT)))
def test_libyaml_nodes_and_marks_match_pure_python(path: str) -> None:
    text = Path(path).read_text(encoding="utf-8")
    exact = cards._compose_exact(text, path)
    fast = cards._compose_fast(text)
    if isinstance(exact, list):  # a file the checker rejects: the fast path must step aside
        assert fast is None
        return
    assert fast is not None
    assert _nodes(fast[0], []) == _nodes(exact[0], [])
    assert fast[1] == exact[1]


@needs_libyaml
@pytest.mark.parametrize("text", [
    "a: &x [1, 2]\nb: *x\n",                # an alias: refused with E203 by the exact path
    "a: *nope\n",                           # an undefined alias
    "a: 1\na: 2\n",                         # a duplicate key
    "",                                     # an empty file
    "a: [1, 2\n",                           # a syntax error
    "[" * 3000 + "]" * 3000,                # deep nesting: never given to libyaml's recursive C composer
    "a: \"é\"\nb: |\n  x é y\n  z\nc: [1, ü]\n",
])
def test_fast_path_steps_aside_or_agrees(text: str) -> None:
    fast = cards._compose_fast(text)
    exact = cards._compose_exact(text, "f.yaml")
    if fast is None:
        return
    assert not isinstance(exact, list)
    assert _nodes(fast[0], []) == _nodes(exact[0], []) and fast[1] == exact[1]


@needs_libyaml
def test_alias_and_duplicate_take_the_exact_path() -> None:
    assert cards._compose_fast("a: &x [1, 2]\nb: *x\n") is None
    assert cards._compose_fast("a: 1\na: 2\n") is None
    assert cards._compose_fast("[" * 3000 + "]" * 3000) is None


def _depth(node: yaml.Node) -> int:
    if isinstance(node, yaml.MappingNode):
        return 1 + max((max(_depth(k), _depth(v)) for k, v in node.value), default=0)
    if isinstance(node, yaml.SequenceNode):
        return 1 + max((_depth(v) for v in node.value), default=0)
    return 1


@pytest.mark.parametrize("text", [
    "- " * 40 + "x\n",                                       # compact sequences: one column each
    "a:\n- b:\n  - c:\n    - d: [e: [f: {g: [h]}]]\n",      # sequences at their key's column, one-pair mappings
    "".join(" " * i + "k:\n" for i in range(30)) + " " * 30 + "v\n",
    "? - - [a: b]\n: x\n",
    "[" * 50 + "]" * 50,
])
def test_the_depth_bound_is_never_below_the_depth(text: str) -> None:
    """A card file with thousands of `-` and `:` (a few hundred cards) is composed by libyaml when the bound on
    its depth from its longest line and its brackets is below the limit; the bound must hold for every way YAML
    nests."""
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()  # type: ignore[no-untyped-call]
    assert root is not None and cards._depth_bound(text) >= _depth(root) + 1


@needs_libyaml
def test_a_file_of_many_cards_takes_libyaml_and_agrees() -> None:
    text = "kind: K\nstart: hand\ncards:\n" + "".join(f"  - name: C{i}\n    n: 1\n    count: 2\n" for i in range(800))
    assert sum(map(text.count, "[{-:?")) >= 2000  # what used to send it to the pure-Python composer
    fast = cards._compose_fast(text)
    exact = cards._compose_exact(text, "f.yaml")
    assert fast is not None and not isinstance(exact, list)
    assert _nodes(fast[0], []) == _nodes(exact[0], []) and fast[1] == exact[1]


_GAME = """game "G" { players 1..2 }
card Relic { weight: int }
cards "cards.yaml"
zone vault: set public of Relic
round { step s "S" { if size(vault) > 0 { end game } } }
score(p) = sum(c.weight for c in vault)
"""


def _card_text(weight: str) -> str:
    return f"kind: Relic\nstart: vault\ncards:\n  - name: Idol\n    weight: {weight}\n  - name: Cup\n    weight: 2\n"


def _check_in(where: Path, text: str) -> tuple[Any, list[Any]]:
    from liturgy.dsl.loader import check_file

    where.mkdir()
    (where / "game.rules").write_text(_GAME, encoding="utf-8")
    (where / "cards.yaml").write_text(text, encoding="utf-8")
    return check_file(str(where / "game.rules"))


@needs_libyaml
def test_a_card_text_is_composed_once_and_each_load_gets_its_own_values(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The composed tree is kept by text: a second load of the same text (another file, another ruleset) does not
    compose it again, and the values each load hands on are its own, so changing them changes no later load."""
    text = _card_text("7") + "# unique to this test\n"
    root, data = cards._compose_fast(text) or pytest.fail("libyaml refused a well-formed file")
    data["cards"][0]["weight"] = 99  # what a careless caller might do with its values
    data["kind"] = "Other"
    monkeypatch.setattr(cards, "compose_fast", lambda text: pytest.fail("a kept text was composed again"))
    again = cards._compose_fast(text)
    assert again is not None and again[0] is root
    assert again[1] == {"kind": "Relic", "start": "vault",
                        "cards": [{"name": "Idol", "weight": 7}, {"name": "Cup", "weight": 2}]}
    program, diags = _check_in(tmp_path / "a", text)
    assert program is not None, diags
    assert not [d for d in diags if d.is_error]


@needs_libyaml
def test_a_kept_text_reports_its_errors_at_every_load_in_the_file_loaded(tmp_path: Path) -> None:
    """Number and duplicate-key errors come from converting the kept tree, at each load: the same line and column
    each time, named in the file being loaded."""
    for weight, code in (("99999999999999999999", "E402"), ("1:30", "E403")):
        text = _card_text(weight)
        first = [d for d in _check_in(tmp_path / f"{code}1", text)[1] if d.is_error]
        second = [d for d in _check_in(tmp_path / f"{code}2", text)[1] if d.is_error]
        assert [d.code for d in first] == [d.code for d in second] == [code]
        assert (first[0].span.line, first[0].span.column) == (second[0].span.line, second[0].span.column) == (5, 13)
        assert first[0].message == second[0].message
        assert first[0].span.file != second[0].span.file
    duplicate = "kind: Relic\nkind: Relic\nstart: vault\ncards: []\n"
    for _ in range(2):
        assert cards._compose_fast(duplicate) is None  # the exact path then words the error, as before
        exact = cards._compose_exact(duplicate, "f.yaml")
        assert isinstance(exact, list) and exact[0].span.line == 2


@needs_libyaml
def test_the_kept_trees_are_bounded_by_their_texts_length(monkeypatch: pytest.MonkeyPatch) -> None:
    """Least recently used trees are dropped past the bound, and a text longer than the bound is not kept."""
    monkeypatch.setattr(cards, "_COMPOSED", {})
    monkeypatch.setattr(cards, "_COMPOSED_CHARS", 300)
    texts = [_card_text(str(i)) for i in range(10, 16)]  # 90 characters each: three fit
    for text in texts[:3]:
        cards._compose_fast(text)
    cards._compose_fast(texts[0])  # used again: now the most recent
    cards._compose_fast(texts[3])
    assert list(cards._COMPOSED) == [texts[2], texts[0], texts[3]]
    assert sum(map(len, cards._COMPOSED)) <= 300
    assert cards._compose_fast(_card_text("x" * 300)) is not None
    assert list(cards._COMPOSED) == [texts[2], texts[0], texts[3]]
