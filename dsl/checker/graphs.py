"""Graph files: the connections of a `graph` declaration, read from YAML like card files and checked to the line.

A graph file maps each kind of connection to a list of pairs of places::

    road:
      - [ashford, bellmoor]
      - [bellmoor, corvale]
    sea:
      - [corvale, dunmere]

Connections go both ways. Every place must be a value of the graph's node enum and every kind a value of its
kind enum (E323, located in the file); anything else in the file's shape is E324; a pair given twice is W055.
The result is the adjacency per kind, each place's neighbours in the enum's order, so every built-in that walks
the graph visits places in one fixed order and games stay deterministic.
"""

from __future__ import annotations

import os

import yaml
from liturgy.dsl.diagnostics import Diagnostic, Span, did_you_mean, remember_source
from liturgy.dsl.files import FileRefused, read_limited
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.frontend.cards import compose_fast

MAX_GRAPH_FILE_BYTES = 2_000_000

# Connections made and removed during play (`link` / `unlink`) live in one hidden global counter per graph,
# named with a space so no author can write it: its value is the graph's difference from its file
# (interpreter/runtime/graphs.py), and it exists only in rulesets that change that graph.
_OVERLAY = "graph "


def overlay_name(graph: str) -> str:
    """The name of the counter holding ``graph``'s connections changed during play."""
    return _OVERLAY + graph


def is_overlay(counter: str) -> bool:
    """Whether a counter of the program is a graph's changes (shown under ``graphs`` in views, not counters)."""
    return counter.startswith(_OVERLAY)


def declare_overlay(counters: dict[str, A.CounterDecl], graph: A.GraphDecl) -> None:
    """Give ``graph`` its changes counter, once (the first `link` or `unlink` on it does this)."""
    name = overlay_name(graph.name)
    if name not in counters:
        counters[name] = A.CounterDecl(graph.span, name, "global", False, None, None, None, None, False)


def _at(path: str, node: yaml.Node) -> Span:
    m, e = node.start_mark, node.end_mark
    return Span(path, m.line + 1, m.column + 1, e.line + 1, e.column + 1)


def _read(path: str, decl: A.GraphDecl) -> yaml.Node | list[Diagnostic]:
    try:
        text = read_limited(path, MAX_GRAPH_FILE_BYTES).decode("utf-8")
    except FileRefused as err:
        return [Diagnostic("E201", "error", f"cannot read graph file: {err.reason}", Span.point(path, 1, 1))]
    except (OSError, UnicodeDecodeError) as err:
        return [Diagnostic("E201", "error", f"cannot read graph file {decl.path}: {err}", decl.span)]
    remember_source(path, text)
    try:
        root = compose_fast(text)  # libyaml; PyYAML's own composer for anything it refuses, to word the error
        if root is None:
            root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        span = Span.point(path, mark.line + 1, mark.column + 1) if mark else Span.point(path, 1, 1)
        return [Diagnostic("E324", "error", f"graph file is not valid YAML: {getattr(err, 'problem', err)}", span)]
    if not isinstance(root, yaml.MappingNode):
        return [Diagnostic("E324", "error", "a graph file maps each kind of connection to a list of pairs",
                           Span.point(path, 1, 1), hint="e.g.  road:\n  - [ashford, bellmoor]")]
    return root


def load_graph(decl: A.GraphDecl, path: str, nodes: list[str], kinds: list[str]) -> list[Diagnostic]:
    """Read ``path`` into ``decl.edges``; the diagnostics found on the way (named as card files are: relative
    to the working folder when inside it)."""
    rel = os.path.relpath(path)
    path = path if rel.startswith("..") else rel
    root = _read(path, decl)
    if isinstance(root, list):
        return root
    diags: list[Diagnostic] = []
    links: dict[str, dict[str, set[str]]] = {k: {n: set() for n in nodes} for k in kinds}
    for key, value in root.value:
        kind = key.value if isinstance(key, yaml.ScalarNode) else None
        if kind not in kinds:
            diags.append(Diagnostic("E323", "error", f"`{kind}` is not a kind of connection of `{decl.kinds}`",
                                    _at(path, key), hint=did_you_mean(str(kind), kinds) or
                                    f"one of: {', '.join(kinds)}"))
            continue
        if not isinstance(value, yaml.SequenceNode):
            diags.append(Diagnostic("E324", "error", f"`{kind}` must list pairs of places", _at(path, value)))
            continue
        for pair in value.value:
            _add_pair(decl, path, pair, nodes, links[kind], diags)
    order = {n: i for i, n in enumerate(nodes)}
    decl.edges = {k: {n: tuple(sorted(near, key=order.__getitem__)) for n, near in links[k].items()}
                  for k in kinds}
    return diags


def _add_pair(decl: A.GraphDecl, path: str, pair: yaml.Node, nodes: list[str], links: dict[str, set[str]],
              diags: list[Diagnostic]) -> None:
    if not (isinstance(pair, yaml.SequenceNode) and len(pair.value) == 2
            and all(isinstance(x, yaml.ScalarNode) for x in pair.value)):
        diags.append(Diagnostic("E324", "error", "a connection is a pair of places: [a, b]", _at(path, pair)))
        return
    a, b = (x.value for x in pair.value)
    for end, node in zip((a, b), pair.value, strict=True):
        if end not in nodes:
            diags.append(Diagnostic("E323", "error", f"`{end}` is not a place of `{decl.nodes}`", _at(path, node),
                                    hint=did_you_mean(end, nodes) or f"add it to enum {decl.nodes}"))
            return
    if a == b:
        diags.append(Diagnostic("E324", "error", f"`{a}` is connected to itself", _at(path, pair)))
        return
    if b in links[a]:
        diags.append(Diagnostic("W055", "warning", f"`{a}` and `{b}` are connected twice this way", _at(path, pair),
                                hint="remove the repeated pair"))
    links[a].add(b)
    links[b].add(a)
