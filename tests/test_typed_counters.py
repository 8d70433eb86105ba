"""Typed counters and enum indexing (issue 14, item 2), played on docs/examples/crossroads.rules.

A counter can hold an enum value, a player or a card, or `none`; an enum's name is the list of its values and
can be indexed. Each is checked, runs alike in every compile mode, reads right in views (a hidden card never by
name), survives saves and digests, and is refused clearly where it cannot work.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset, load_ruleset

ROOT = Path(__file__).resolve().parent.parent
CROSSROADS = ROOT / "docs" / "examples" / "crossroads.rules"
MODES: list[dict[str, bool]] = [{}, {"inline_fns": False}, {"stmtgen": False},
                                {"codegen": False, "stmtgen": False}, {"fuse": False}]


def test_typed_counters_start_empty_or_at_their_enum_value() -> None:
    game = load_ruleset(str(CROSSROADS)).new_game(3, 1)
    counters = game.view(0)["counters"]
    assert counters["at"] == {"P1": "ashford", "P2": "ashford", "P3": "ashford"}
    assert counters["leader"] is None
    # at the first decision one relic is on the (public) altar: listed although nobody found it yet
    assert counters["offered"] is not None and counters["found_by"] == {counters["offered"]: None}


def test_a_typed_counter_reads_as_a_name_a_seat_or_null() -> None:
    rules = load_ruleset(str(CROSSROADS))
    for seed in range(30):
        game = rules.new_game(3, seed)
        game.random_playout(random.Random(seed))
        counters = game.view(1)["counters"]
        assert counters["leader"] in (None, "P1", "P2", "P3")
        assert set(counters["at"].values()) <= {"ashford", "bellmoor", "corvale", "dunmere"}
        found = counters["found_by"]  # every relic a player carries is visible (packs are public)
        assert all(v in ("P1", "P2", "P3") for v in found.values())
        if counters["leader"] is not None:
            assert found and any(line.endswith("takes the relic and leads") for line in game.log_lines(None))
            assert counters["offered"] is None
            return
    pytest.fail("nobody ever took a relic in 30 games")


def test_a_public_counter_never_names_a_hidden_card(tmp_path: Path) -> None:
    text = CROSSROADS.read_text(encoding="utf-8").replace(
        "    move top(vault) to altar\n    offered = top(altar)\n",
        "    offered = top(vault)\n    move top(vault) to altar\n    offered = top(vault)\n")
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "crossroads.yaml").write_text(
        (CROSSROADS.parent / "cards" / "crossroads.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    path = tmp_path / "peek.rules"
    path.write_text(text, encoding="utf-8")
    game = load_ruleset(str(path)).new_game(2, 3)
    assert game.view(0)["counters"]["offered"] == "?"  # the top of the hidden vault
    assert game.view(None)["counters"]["offered"] == "?"


def test_every_compile_mode_agrees_and_saves_keep_typed_values() -> None:
    program, _ = check_file(str(CROSSROADS))
    assert program is not None
    for seed in range(10):
        seen = set()
        for mode in MODES:
            game = Ruleset(program, **mode).new_game(2 + seed % 3, seed)
            game.random_playout(random.Random(seed))
            assert game.error is None
            seen.add((game.digest(), tuple(game.log_lines(None))))
        assert len(seen) == 1, seed
    rules = Ruleset(program)
    game = rules.new_game(3, 4)
    for _ in range(5):
        game.apply(1, game.waiting_for()[0])
    loaded = rules.load_game(json.loads(json.dumps(game.to_json())))
    assert loaded.digest() == game.digest() and loaded.view(0) == game.view(0)


def test_an_enum_index_out_of_range_stops_the_game(tmp_path: Path) -> None:
    path = tmp_path / "g.rules"
    path.write_text('game "G" { players 1..2 }\nenum Town { a, b }\ncounter at: Town\n'
                    'round { step s { at = Town[2]  end game } }\nscore(p) = 0\n', encoding="utf-8")
    game = load_ruleset(str(path)).new_game(1, 1)
    assert game.state.status == "aborted" and "list index 2 out of range (size 2)" in (game.error or "")


@pytest.mark.parametrize(("decl", "code"), [
    ("counter name: text", "E320"),
    ("counter n: list of int", "E320"),
    ("counter leader: player 0..3", "E321"),
    ("flag leader: player", "E321"),
    ("counter leader: player reset each round", "E321"),
    ("counter leader: player = players[0]", "E322"),
    ("counter leader: player = 3", "E140"),
    ("counter at: Town = london", "E101"),
])
def test_a_typed_counter_that_cannot_work_is_refused(tmp_path: Path, decl: str, code: str) -> None:
    name = decl.split()[1].rstrip(":")
    path = tmp_path / "g.rules"
    path.write_text(f'game "G" {{ players 1..2 }}\nenum Town {{ a, b }}\n{decl}\n'
                    f'round {{ step s {{ log "{{}}", {name}  end game }} }}\nscore(p) = 0\n', encoding="utf-8")
    program, diags = check_file(str(path))
    assert program is None
    assert code in [d.code for d in diags if d.is_error], diags


def test_adding_to_a_typed_counter_is_a_type_error(tmp_path: Path) -> None:
    path = tmp_path / "g.rules"
    path.write_text('game "G" { players 1..2 }\ncounter leader: player\n'
                    'round { step s { leader += 1  end game } }\nscore(p) = 0\n', encoding="utf-8")
    program, diags = check_file(str(path))
    assert program is None and [d.code for d in diags if d.is_error] == ["E125"]


def test_ord_is_the_inverse_of_enum_indexing(tmp_path: Path) -> None:
    path = tmp_path / "g.rules"
    path.write_text('game "G" { players 1..1 }\nenum Town { a, b, c, d }\ncounter at: Town = c\n'
                    'round { step s { log "{} {} {}", ord(at), Town[ord(at)], [ord(t) for t in Town]  end game } }\n'
                    "score(p) = 0\n", encoding="utf-8")
    program, _ = check_file(str(path))
    assert program is not None
    for mode in MODES:
        game = Ruleset(program, **mode).new_game(1, 1)
        assert game.log_lines(None)[0] == "2 c 0, 1, 2, 3"


def test_ord_needs_an_enum_value_and_refuses_none(tmp_path: Path) -> None:
    path = tmp_path / "g.rules"
    path.write_text('game "G" { players 1..1 }\nround { step s { log "{}", ord(3)  end game } }\nscore(p) = 0\n',
                    encoding="utf-8")
    program, diags = check_file(str(path))
    assert program is None and [d.code for d in diags if d.is_error] == ["E140"]
    path.write_text('game "G" { players 1..1 }\nenum T { a }\ncounter at: T\n'
                    'round { step s { log "{}", ord(at)  end game } }\nscore(p) = 0\n', encoding="utf-8")
    game = load_ruleset(str(path)).new_game(1, 1)
    assert game.state.status == "aborted" and "ord() of none" in (game.error or "")
