"""Graphs (issue 14, item 1, static maps): declared from a YAML file, walked by four built-ins.

Played on docs/examples/couriers.rules and on small maps written here: every answer is checked against a
breadth-first search written independently in this file, every compile mode plays the example alike, and bad
files are refused where they go wrong.
"""

from __future__ import annotations

import random
from collections import deque
from pathlib import Path

import pytest
import yaml
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset, load_ruleset

ROOT = Path(__file__).resolve().parent.parent
COURIERS = ROOT / "docs" / "examples" / "couriers.rules"
VALLEY = yaml.safe_load((ROOT / "docs" / "examples" / "cards" / "valley.yaml").read_text(encoding="utf-8"))
TOWNS = ["mill", "ford", "abbey", "market", "quarry", "harbour", "keep"]
MODES: list[dict[str, bool]] = [{}, {"inline_fns": False}, {"stmtgen": False},
                                {"codegen": False, "stmtgen": False}, {"fuse": False}]


def _adjacency(kinds: list[str]) -> dict[str, set[str]]:
    adj: dict[str, set[str]] = {t: set() for t in TOWNS}
    for kind in kinds:
        for a, b in VALLEY[kind]:
            adj[a].add(b)
            adj[b].add(a)
    return adj


def _distances(start: str, kinds: list[str]) -> dict[str, int]:
    adj, dist = _adjacency(kinds), {start: 0}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        for q in adj[p]:
            if q not in dist:
                dist[q] = dist[p] + 1
                queue.append(q)
    return dist


def _probe(tmp_path: Path, expr: str, result: str) -> object:
    """The value of ``expr`` on the valley map, read back through a counter or a log line."""
    (tmp_path / "cards").mkdir(exist_ok=True)
    (tmp_path / "cards" / "valley.yaml").write_text(
        (ROOT / "docs" / "examples" / "cards" / "valley.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    path = tmp_path / "probe.rules"
    path.write_text(f'''game "Probe" {{ players 1..1 }}
enum Town {{ {", ".join(TOWNS)} }}
enum Route {{ road, river }}
graph valley: Town by Route from "cards/valley.yaml"
counter answer: {result}
round {{ step s {{ log "{{}}", {expr}  end game }} }}
score(p) = 0
''', encoding="utf-8")
    game = load_ruleset(str(path)).new_game(1, 1)
    assert game.error is None, game.error
    return game.log_lines(None)[0]


@pytest.mark.parametrize("kinds", [["road"], ["river"], ["road", "river"]])
@pytest.mark.parametrize("town", ["mill", "harbour", "keep"])
def test_every_walk_matches_a_breadth_first_search(tmp_path: Path, kinds: list[str], town: str) -> None:
    k = kinds[0] if len(kinds) == 1 else "[" + ", ".join(kinds) + "]"
    dist = _distances(town, kinds)
    near = [t for t in TOWNS if dist.get(t) == 1]
    assert _probe(tmp_path, f"neighbours(valley, {town}, {k})", "Town") == (", ".join(near) or "nothing")
    two = [t for t in TOWNS if t != town and dist.get(t, 99) <= 2]
    assert _probe(tmp_path, f"reach(valley, {town}, 2, {k})", "Town") == (", ".join(two) or "nothing")
    for other in TOWNS:
        assert _probe(tmp_path, f"distance(valley, {town}, {other}, {k})", "Town") == str(dist.get(other, -1))
        assert _probe(tmp_path, f"adjacent(valley, {town}, {other}, {k})", "Town") == (
            "yes" if dist.get(other) == 1 else "no")


def test_without_kinds_every_connection_counts(tmp_path: Path) -> None:
    both = _distances("mill", ["road", "river"])
    assert _probe(tmp_path, "distance(valley, mill, keep)", "Town") == str(both["keep"])
    assert _probe(tmp_path, "neighbours(valley, ford)", "Town") == "mill, market, harbour"  # in the enum's order


def test_every_compile_mode_plays_the_example_alike() -> None:
    program, _ = check_file(str(COURIERS))
    assert program is not None
    for seed in range(8):
        seen = set()
        for mode in MODES:
            game = Ruleset(program, **mode).new_game(2 + seed % 3, seed)
            game.random_playout(random.Random(seed))
            assert game.error is None, game.error
            seen.add((game.digest(), tuple(game.log_lines(None))))
        assert len(seen) == 1, seed


def test_the_map_file_is_part_of_the_fingerprint(tmp_path: Path) -> None:
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "valley.yaml").write_text(
        (ROOT / "docs" / "examples" / "cards" / "valley.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "couriers.rules").write_text(COURIERS.read_text(encoding="utf-8"), encoding="utf-8")
    before = load_ruleset(str(tmp_path / "couriers.rules")).fingerprint
    with (tmp_path / "cards" / "valley.yaml").open("a", encoding="utf-8") as f:
        f.write("  - [mill, keep]\n")
    assert load_ruleset(str(tmp_path / "couriers.rules")).fingerprint != before


def test_a_place_not_on_the_map_stops_the_game(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text("road:\n  - [a, b]\n", encoding="utf-8")
    (tmp_path / "g.rules").write_text('game "G" { players 1..1 }\nenum P { a, b }\nenum R { road }\n'
                                      'graph m: P by R from "m.yaml"\ncounter at: P\n'
                                      'round { step s { log "{}", neighbours(m, at)  end game } }\nscore(p) = 0\n',
                                      encoding="utf-8")
    game = load_ruleset(str(tmp_path / "g.rules")).new_game(1, 1)
    assert game.state.status == "aborted" and "no place given to graph `m`" in (game.error or "")


@pytest.mark.parametrize(("text", "code"), [
    ("road:\n  - [a, c]\n", "E323"),
    ("rail:\n  - [a, b]\n", "E323"),
    ("road:\n  - [a, b, a]\n", "E324"),
    ("road:\n  - [a, a]\n", "E324"),
    ("road: [a, b]\n", "E324"),
    ("- [a, b]\n", "E324"),
    ("road: [[a, b]\n", "E324"),
])
def test_a_bad_map_file_is_refused_where_it_goes_wrong(tmp_path: Path, text: str, code: str) -> None:
    (tmp_path / "m.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "g.rules").write_text('game "G" { players 1..1 }\nenum P { a, b }\nenum R { road }\n'
                                      'graph m: P by R from "m.yaml"\n'
                                      'round { step s { log "{}", neighbours(m, a)  end game } }\nscore(p) = 0\n',
                                      encoding="utf-8")
    program, diags = check_file(str(tmp_path / "g.rules"))
    assert program is None
    errors = [d for d in diags if d.is_error]
    assert errors and {d.code for d in errors} == {code}, diags
    assert errors[0].span.file.endswith("m.yaml") and errors[0].span.line >= 1


@pytest.mark.parametrize(("call", "code"), [
    ("neighbours(a, a)", "E140"),            # not a graph first
    ("neighbours(m, 3)", "E140"),            # not a place
    ("reach(m, a, true)", "E140"),           # not a count
    ("adjacent(m, a, b, 7)", "E140"),        # not a kind
    ("distance(m, a)", "E127"),              # too few arguments
])
def test_a_wrong_call_is_refused(tmp_path: Path, call: str, code: str) -> None:
    (tmp_path / "m.yaml").write_text("road:\n  - [a, b]\n", encoding="utf-8")
    (tmp_path / "g.rules").write_text('game "G" { players 1..1 }\nenum P { a, b }\nenum R { road }\n'
                                      'graph m: P by R from "m.yaml"\n'
                                      f'round {{ step s {{ log "{{}}", {call}  end game }} }}\nscore(p) = 0\n',
                                      encoding="utf-8")
    program, diags = check_file(str(tmp_path / "g.rules"))
    assert program is None and code in [d.code for d in diags if d.is_error], diags
