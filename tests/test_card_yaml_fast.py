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
