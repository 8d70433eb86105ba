"""Fields printed on a card's back and zones per card (issue 14, item 3).

docs/examples/smugglers.rules: places carry their terrain on the back; crates lie on places in a zone per card
declared `owner as host`, so a crate is seen by whoever owns the zone its place lies in, now. Views, log lines,
option labels, `owner`, saves, digests and every compile mode; the leak check stays quiet.
"""

from __future__ import annotations

import random
from pathlib import Path

from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.runtime.moves import card_visibility
from liturgy.interpreter.tools.leaks import LeakCheck

ROOT = Path(__file__).resolve().parents[1]
SMUGGLERS = ROOT / "docs" / "examples" / "smugglers.rules"
MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]
CLUES = {"ropes", "oil", "sand", "flour", "wax", "fog", "gulls", "reefs", "whales", "wrecks"}


def _game(seed: int = 5, **mode: bool) -> Game:
    program, diags = check_file(str(SMUGGLERS))
    assert program is not None and diags == []
    return Ruleset(program, **mode).new_game(2, seed, check_invariants=True)


def _drive(game: Game, rng: random.Random) -> None:
    while not game.finished:
        p = game.waiting_for()[0]
        game.apply(rng.randrange(game.option_count(p)), p)


def _card(game: Game, name: str) -> int:
    return game.state.tables.card_names.index(name)


def _stash(game: Game, host: str) -> int:
    lay = game.ruleset.compiled.layout
    return lay.zone_card_base + _card(game, host) * lay.zone_card_stride + lay.zone_card_offsets["stash"]


def test_face_down_cards_show_their_back_and_nothing_else() -> None:
    game = _game()
    d = game.decision
    assert d is not None
    # the runner chooses blindly between the map's top two places, knowing their terrain only
    assert all(label.startswith("hidden card ") and "(terrain: " in label for label in d.options[0])
    game.apply(0, 0)
    runner, hunter, spectator = game.view(0), game.view(1), game.view(None)
    laid = runner["zones"]["trail"]["P1"][0]
    terrain = game.state.tables.fields["terrain"][_card(game, laid)]
    for view in (hunter, spectator):
        assert view["zones"]["trail"]["P1"] == [f"? (terrain: {terrain})"]
        assert all(c.startswith("? (terrain: ") for c in view["zones"]["map"])
        assert view["zones"]["crates"] == ["?"] * len(view["zones"]["crates"])  # crates print nothing on the back
    assert game.log_lines(0)[-1] == f"P1 lays {laid}"
    assert game.log_lines(1)[-1] == game.log_lines(None)[-1] == f"P1 lays a hidden card (terrain: {terrain})"
    text = repr(hunter) + repr(game.log_lines(1)) + repr(spectator)
    assert laid not in text and not any(clue in text for clue in CLUES)


def test_a_crate_is_seen_by_whoever_holds_its_place() -> None:
    game = _game()
    rng = random.Random(3)
    while not game.finished:
        stash = game.view(0)["zones"]["stash"]
        if stash:
            break
        p = game.waiting_for()[0]
        game.apply(rng.randrange(game.option_count(p)), p)
    (host, crates), = game.view(0)["zones"]["stash"].items()
    assert game.state.card_zone[_card(game, host)] != _stash(game, host)
    crate = _card(game, crates[0])
    assert game.view(1)["zones"]["stash"] == {} and game.view(None)["zones"]["stash"] == {}
    assert card_visibility(game.state, crate) == 0b001  # the runner only (bit 2 is the spectator)
    # the hunter takes the place into `found`: the crate's owner follows its host
    found = game.ruleset.compiled.layout
    zi = found.zone_player_base + 1 * found.zone_player_stride + found.zone_player_offsets["found"]
    h = _card(game, host)
    game.state.zones[game.state.card_zone[h]].remove(h)
    game.state.zones[zi].append(h)
    game.state.card_zone[h] = zi
    assert card_visibility(game.state, crate) == 0b010
    assert game.view(1)["zones"]["stash"] == {host: crates}
    assert game.view(0)["zones"]["stash"] == {host: ["?"]}  # the runner sees the place (public), not the crate


def test_owner_of_a_card_in_a_zone_as_host(tmp_path: Path) -> None:
    text = SMUGGLERS.read_text(encoding="utf-8").replace(
        '      log "{} lays {}", players[0], c\n',
        '      log "{} lays {}", players[0], c\n'
        '      for k in c.stash { if owner(k) != players[0] { players[1].points += 50 } }\n')
    text = text.replace('      players[1].points += sum(k.worth for k in c.stash)\n',
                        '      players[1].points += sum(k.worth for k in c.stash)\n'
                        '      for k in c.stash { if owner(k) != players[1] { players[0].points += 50 } }\n')
    (tmp_path / "cards").mkdir()
    for name in ("smugglers_places.yaml", "smugglers_crates.yaml"):
        (tmp_path / "cards" / name).write_text((SMUGGLERS.parent / "cards" / name).read_text(encoding="utf-8"),
                                               encoding="utf-8")
    path = tmp_path / "owners.rules"
    path.write_text(text, encoding="utf-8")
    for mode in MODES:
        program, _ = check_file(str(path))
        assert program is not None
        for seed in range(4):
            game = Ruleset(program, **mode).new_game(2, seed)
            _drive(game, random.Random(seed))
            assert game.state.status == "finished" and game.result is not None
            assert max(game.result["scores"]) < 50  # a crate's owner: the runner on the trail, then the hunter


def test_every_compile_mode_plays_the_same_games() -> None:
    for seed in range(4):
        seen = set()
        for mode in MODES:
            game = _game(seed, **mode)
            _drive(game, random.Random(seed))
            assert game.state.status == "finished", game.error
            seen.add((game.digest(), tuple(tuple(game.log_lines(v)) for v in (None, 0, 1)),
                      repr(game.view(0)), repr(game.view(1))))
        assert len(seen) == 1


def test_saves_and_digests_cover_zones_per_card() -> None:
    game = _game(7)
    rng = random.Random(7)
    lay = game.ruleset.compiled.layout
    while not any(game.state.zones[lay.zone_card_base:]):
        p = game.waiting_for()[0]
        game.apply(rng.randrange(game.option_count(p)), p)
    copy = load_ruleset(str(SMUGGLERS)).load_game(game.to_json())
    assert copy.digest() == game.digest() and copy.view(0) == game.view(0) and copy.view(1) == game.view(1)
    # moving a crate off its place changes the digest
    other = game.clone()
    zi = next(i for i in range(lay.zone_card_base, len(other.state.zones)) if other.state.zones[i])
    c = other.state.zones[zi].pop()
    crates = lay.zone_global["crates"]
    other.state.zones[crates].append(c)
    other.state.card_zone[c] = crates
    assert other.digest() != game.digest()
    _drive(game, random.Random(1))
    _drive(copy, random.Random(1))
    assert copy.digest() == game.digest()


def test_the_leak_check_stays_quiet() -> None:
    for seed in range(5):
        game = _game(seed)
        check = LeakCheck(game)
        rng = random.Random(seed)
        while not game.finished:
            assert check.check(game) is None
            for v in (None, 0, 1):
                hidden = [c for z in game.view(v)["zones"].values() if isinstance(z, list) for c in z]
                assert not any(clue in repr(hidden) for clue in CLUES)
            p = game.waiting_for()[0]
            game.apply(rng.randrange(game.option_count(p)), p)
        assert game.state.status == "finished"


NESTED = """
game "Nest" { players 2..2  step_limit 200 }
card T { n: int }
cards "t.yaml"
zone pool: set hidden of T
zone hand: per player set owner of T
zone under: per card set owner as host of T
setup {
  move top(pool) to players[0].hand
  move top(pool) to top(players[0].hand).under
  move top(pool) to top(top(players[0].hand).under).under
  move top(pool) to top(pool).under
}
round { step s "S" { end game } }
score(p) = size(p.hand)
"""


def test_hosts_pass_on_their_owner_and_a_loop_has_none(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text("kind: T\nstart: pool\ncards:\n"
                                     + "".join(f"  - {{name: T{i}, n: {i}}}\n" for i in range(6)), encoding="utf-8")
    path = tmp_path / "nest.rules"
    path.write_text(NESTED, encoding="utf-8")
    for mode in MODES:
        program, diags = check_file(str(path))
        assert program is not None and not [d for d in diags if d.is_error]
        game = Ruleset(program, **mode).new_game(2, 1)
        assert game.state.status == "finished", game.error
        t = game.state.tables
        a, b, c = (t.card_names.index(n) for n in ("T5", "T4", "T3"))
        assert [card_visibility(game.state, x) for x in (a, b, c)] == [0b001, 0b001, 0b001]
        assert game.view(0)["zones"]["under"] == {"T5": ["T4"], "T4": ["T3"]}
        # T2 was moved onto T1, then T1 stays in the hidden pool: nobody; a card in its own zone: nobody, no hang
        t2 = t.card_names.index("T2")
        assert card_visibility(game.state, t2) == 0
        s = game.state
        zi = s.card_zone[t2]
        s.zones[zi].remove(t2)
        own = game.ruleset.compiled.layout.zone_card_base + t2 * game.ruleset.compiled.layout.zone_card_stride
        s.zones[own].append(t2)
        s.card_zone[t2] = own
        assert card_visibility(s, t2) == 0
