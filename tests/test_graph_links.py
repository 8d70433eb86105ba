"""Graphs changed during play (issue 14, item 1, dynamic edges): `link` and `unlink`.

The walker's answers on a changed graph are checked against a breadth-first search over an edge set kept
independently in this file, after random sequences of links and unlinks; the change is checked to be
canonical (the same board, the same state, whatever order built it); and docs/examples/bridges.rules is
played in every compile mode, cloned, saved and loaded, and encoded for learning agents.
"""

from __future__ import annotations

import random
from collections import deque
from pathlib import Path

import pytest
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset, load_ruleset
from liturgy.interpreter.interop.common import ViewEncoder
from liturgy.interpreter.runtime.errors import RuleError
from liturgy.interpreter.runtime.graphs import GraphWalk, Overlay

ROOT = Path(__file__).resolve().parent.parent
BRIDGES = ROOT / "docs" / "examples" / "bridges.rules"
PLACES = ["a", "b", "c", "d", "e", "f"]
KINDS = ["road", "rail"]
FILE_EDGES = {("road", "a", "b"), ("road", "b", "c"), ("rail", "c", "d"), ("road", "d", "e")}
MODES: list[dict[str, bool]] = [{}, {"inline_fns": False}, {"stmtgen": False},
                                {"codegen": False, "stmtgen": False}, {"fuse": False}]


def _walk() -> GraphWalk:
    graph = A.GraphDecl(A.Span("t", 1, 1, 1, 1), "m", "P", "K", "m.yaml")
    graph.edges = {k: {p: tuple(q for q in PLACES
                                if (k, p, q) in FILE_EDGES or (k, q, p) in FILE_EDGES) for p in PLACES}
                   for k in KINDS}
    return GraphWalk(graph)


def _bfs(edges: set[tuple[str, str, str]], start: str, kinds: tuple[str, ...]) -> dict[str, int]:
    dist = {start: 0}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        for k, x, y in sorted(edges):
            if k in kinds and p in (x, y):
                q = y if x == p else x
                if q not in dist:
                    dist[q] = dist[p] + 1
                    queue.append(q)
    return dist


def _random_changes(rng: random.Random, walk: GraphWalk, steps: int) -> tuple[Overlay, set[tuple[str, ...]]]:
    overlay: Overlay = ()
    edges = {(k, *sorted((a, b))) for k, a, b in FILE_EDGES}
    for _ in range(steps):
        a, b = rng.sample(PLACES, 2)
        x, y = sorted((a, b))
        kind = rng.choice([*KINDS, None])
        link = rng.random() < 0.5 and kind is not None
        overlay = walk.changed(overlay, a, b, kind, link)
        for k in KINDS if kind is None else [kind]:
            (edges.add if link else edges.discard)((k, x, y))
    return overlay, edges


@pytest.mark.parametrize("seed", range(12))
def test_every_answer_on_a_changed_graph_matches_a_breadth_first_search(seed: int) -> None:
    rng = random.Random(seed)
    walk = _walk()
    overlay, edges = _random_changes(rng, walk, 3 + seed)
    for kinds in [("road",), ("rail",), ("road", "rail")]:
        for p in PLACES:
            dist = _bfs(edges, p, kinds)  # type: ignore[arg-type]
            near = [q for q in PLACES if dist.get(q) == 1]
            assert list(walk.neighbours(p, kinds, overlay)) == near
            assert list(walk.reach(p, 2, kinds, overlay)) == [q for q in PLACES if 0 < dist.get(q, 99) <= 2]
            for q in PLACES:
                assert walk.distance(p, q, kinds, overlay) == dist.get(q, -1)
                assert walk.adjacent(p, q, kinds, overlay) == (q in near)


@pytest.mark.parametrize("seed", range(8))
def test_the_same_board_is_the_same_state_whatever_built_it(seed: int) -> None:
    walk = _walk()
    overlay, edges = _random_changes(random.Random(seed), walk, 10)
    # rebuild the same edge set from the file in another order: link what is new, unlink what is gone
    rebuilt: Overlay = ()
    file_edges = {(k, *sorted((a, b))) for k, a, b in FILE_EDGES}
    for k, x, y in sorted(edges - file_edges, reverse=True):
        rebuilt = walk.changed(rebuilt, y, x, k, True)
    for k, x, y in sorted(file_edges - edges):
        rebuilt = walk.changed(rebuilt, x, y, k, False)
    assert rebuilt == overlay
    # and undoing every change gives back the file's graph: nothing is left to remember
    for k, x, y, present in overlay:
        rebuilt = walk.changed(rebuilt, x, y, k, not present)
    assert rebuilt == ()


def test_linking_what_is_there_changes_nothing_and_a_place_to_itself_is_an_error() -> None:
    walk = _walk()
    assert walk.changed((), "a", "b", "road", True) == ()
    assert walk.changed((), "a", "f", "road", False) == ()
    assert walk.changed((), "b", "a", None, False) == (("road", "a", "b", False),)
    with pytest.raises(RuleError, match="itself"):
        walk.changed((), "c", "c", "road", True)
    with pytest.raises(RuleError, match="no place given"):
        walk.changed((), None, "c", "road", True)


def test_every_compile_mode_plays_bridges_alike_and_the_view_shows_the_changes() -> None:
    program, _ = check_file(str(BRIDGES))
    assert program is not None
    changed = 0
    for seed in range(8):
        seen = set()
        for mode in MODES:
            game = Ruleset(program, **mode).new_game(2 + seed % 3, seed)
            game.random_playout(random.Random(seed))
            assert game.error is None, game.error
            graphs = game.view(None)["graphs"]["sea"]
            changed += len(graphs["linked"]) + len(graphs["unlinked"])
            seen.add((game.digest(), tuple(game.log_lines(None)), str(graphs)))
        assert len(seen) == 1, seed
    assert changed > 0  # the random games did build bridges


def _play(game: object, rng: random.Random, decisions: int) -> None:
    for _ in range(decisions):
        d = game.decision  # type: ignore[attr-defined]
        if d is None:
            return
        p = d.players[0]
        game.apply(rng.randrange(len(d.options[p])), player=p)  # type: ignore[attr-defined]


def test_a_clone_and_a_loaded_save_keep_the_changes_and_stay_apart() -> None:
    rules = load_ruleset(str(BRIDGES))
    game = rules.new_game(2, 5)
    _play(game, random.Random(5), 20)
    linked = game.view(0)["graphs"]["sea"]
    assert linked["linked"], "twenty decisions build at least one bridge with this seed"
    twin = game.clone()
    loaded = rules.load_game(game.to_json())
    assert loaded.digest() == game.digest() and loaded.view(0)["graphs"]["sea"] == linked
    _play(twin, random.Random(9), 30)
    assert game.view(0)["graphs"]["sea"] == linked  # the clone's changes stay in the clone


def test_learning_agents_observe_the_changes() -> None:
    rules = load_ruleset(str(BRIDGES))
    game = rules.new_game(2, 5)
    encoder = ViewEncoder(rules, 2)
    before = encoder.encode(game.view(0), 0)
    _play(game, random.Random(5), 20)
    after = encoder.encode(game.view(0), 0)
    assert before.shape == after.shape
    linked = game.view(0)["graphs"]["sea"]["linked"]
    places = ["dock", "reed", "moss", "crag", "dune", "light"]
    a, b, _ = linked[0]
    base = encoder.graph_slots["sea"][0]
    assert after[base + (1 * 6 + places.index(a)) * 6 + places.index(b)] == 1  # kind `bridge` is the second


def test_a_ruleset_that_never_links_keeps_its_state_and_digest_layout() -> None:
    program, _ = check_file(str(ROOT / "docs" / "examples" / "couriers.rules"))
    assert program is not None
    assert not any(name.startswith("graph ") for name in program.counters)
    assert "graphs" not in Ruleset(program).new_game(2, 1).view(None)


def test_the_terminal_draws_a_map_without_a_display() -> None:
    from liturgy.interpreter.agents.terminal import status_text

    game = load_ruleset(str(BRIDGES)).new_game(2, 5)
    start = status_text(game, 0)
    assert "map sea:\n    P1.at dock: ferry reed\n    P2.at dock: ferry reed" in start
    _play(game, random.Random(5), 12)
    later = status_text(game, 0)
    linked = game.view(0)["graphs"]["sea"]["linked"]
    assert linked and f"changed: + {linked[0][0]}–{linked[0][1]} (bridge)" in later
    assert "· bridge " in later  # a place's connections are listed by kind
