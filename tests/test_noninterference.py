"""Noninterference (issue 17, item 2): `liturgy fuzz` catches leaks that name no card.

Each leaky ruleset below passes `check --strict`, and the card-name leak check finds nothing in the first three:
the leak is a face-down tile's rank in a log line, the same rank copied into a public counter, or a public
choice filtered by it. The fuzz harness must report each as a violation that shrinks to a replay, and must find
nothing in the same game without the leak. A fourth, names printed through a list of lists, was a leak until the
engine redacted cards at any depth (tests/test_secrets.py): fuzz must now find it clean.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset, load_ruleset
from liturgy.interpreter.tools import noninterference as ni
from liturgy.interpreter.tools.fuzz import fuzz_ruleset
from liturgy.interpreter.tools.leaks import LeakCheck

BASE = '''game "Discards" { players 2..3 }
card Tile { rank: int }
cards "tiles.yaml"
zone bag: deck hidden of Tile
zone hand: per player set owner of Tile
zone pit: pile hidden of Tile
counter per player points 0..100
counter last 0..10
setup {
  shuffle bag
  move top(bag) to pit
  for p in players { move top(bag, 3) to p.hand }
}
round {
  step call "Call a number" {
    choose n from [0, 1, 2, 3, 4, 5, 6] by first {
      log "{} calls {}", first, n
    }
  }
  step drop "Drop a tile face down" {
    simultaneously p in players choose t from p.hand {
      move t to pit
      log "{} drops a tile", p
      p.points += 1
    }
    for p in players { move top(bag) to p.hand }
    if size(bag) < player_count { end game }
  }
}
score(p) = p.points + last * 0
'''
TILES = "kind: Tile\nstart: bag\ncards:\n" + "".join(f"  - {{name: T{i}, rank: {i % 7}}}\n" for i in range(20))
DROP_LOG = '      log "{} drops a tile", p\n'
LEAKS = {
    "a face-down tile's rank in a log line": (DROP_LOG, '      log "{} drops a tile of rank {}", p, t.rank\n'),
    "the rank copied into a public counter": (DROP_LOG, DROP_LOG + "      last = t.rank\n"),
    "a public choice filtered by it": ("choose n from [0, 1, 2, 3, 4, 5, 6] by first",
                                       "choose n from [m for m in [0, 1, 2, 3, 4, 5, 6] where m != top(pit).rank] "
                                       "by first"),
}
NESTED = (DROP_LOG, DROP_LOG + '      log "{} holds {}", p, [[u] for u in p.hand]\n')


def _write(tmp_path: Path, text: str) -> str:
    (tmp_path / "tiles.yaml").write_text(TILES, encoding="utf-8")
    path = tmp_path / "discards.rules"
    path.write_text(text, encoding="utf-8")
    program, diags = check_file(str(path))
    assert program is not None and not [d for d in diags if d.is_error], diags
    return str(path)


def test_the_game_without_a_leak_is_clean(tmp_path: Path) -> None:
    path = _write(tmp_path, BASE)
    report = fuzz_ruleset(load_ruleset(path), path, examples=60, replay_path=str(tmp_path / "r.json"))
    assert report.violation is None, report.violation


@pytest.mark.parametrize("leak", list(LEAKS))
def test_fuzz_catches_a_leak_that_names_no_card(tmp_path: Path, leak: str) -> None:
    old, new = LEAKS[leak]
    assert old in BASE
    path = _write(tmp_path, BASE.replace(old, new))
    replay = tmp_path / "leak.replay.json"
    report = fuzz_ruleset(load_ruleset(path), path, examples=100, replay_path=str(replay))
    assert report.violation is not None and ("is told what it may not see" in report.violation
                                             or "never entitled to see" in report.violation), leak
    assert replay.exists() and report.shrunk_decisions is not None


def test_names_through_a_list_of_lists_are_redacted_now(tmp_path: Path) -> None:
    path = _write(tmp_path, BASE.replace(*NESTED))
    report = fuzz_ruleset(load_ruleset(path), path, examples=40, replay_path=str(tmp_path / "r.json"))
    assert report.violation is None, report.violation


def test_the_name_check_alone_misses_the_rank_leak(tmp_path: Path) -> None:
    """Why this check exists: the card-name leak check is clean on the log leak, which names no card."""
    old, new = LEAKS["a face-down tile's rank in a log line"]
    rules = load_ruleset(_write(tmp_path, BASE.replace(old, new)))
    for seed in range(10):
        game = rules.new_game(2, seed)
        leaks = LeakCheck(game)
        rng = random.Random(seed)
        while not game.finished:
            for p in game.waiting_for():
                game.apply(rng.randrange(game.option_count(p)), p)
            assert leaks.check(game) is None


def test_a_choice_probe_names_the_cards_and_what_changed(tmp_path: Path) -> None:
    old, new = LEAKS["a face-down tile's rank in a log line"]
    rules = load_ruleset(_write(tmp_path, BASE.replace(old, new)))
    game = rules.new_game(2, 4)
    game.apply(0, 0)  # P1 calls 0: now both drop a tile in secret
    leaks = LeakCheck(game)
    found = [ni.check_choice(game, 0, leaks.seen, random.Random(k)) for k in range(20)]
    messages = [m for m in found if m]
    assert messages and all("P1 is told what it may not see: P2 choosing" in m and "its log" in m
                            for m in messages)


def test_a_swap_never_moves_a_card_the_running_code_holds(tmp_path: Path) -> None:
    """A card held in a local variable ("the tile dropped") is tied to its place: swapping it would build a world
    the rules cannot reach, so it is never chosen."""
    rules = load_ruleset(_write(tmp_path, BASE))
    game = rules.new_game(2, 1)
    held = ni._referenced(game)
    leaks = LeakCheck(game)
    for k in range(50):
        swap = ni.choose_swap(game, k % 2, leaks.seen, random.Random(k))
        assert swap is not None and swap.first not in held and swap.second not in held
        t = game.state.tables
        assert t.card_def[swap.first] != t.card_def[swap.second]  # different cards, of one kind
        assert not (leaks.seen[swap.first] | leaks.seen[swap.second]) & (1 << swap.observer)


def test_a_swap_keeps_the_cards_backs_alike() -> None:
    """A face-down card shows its `back` fields, so two hidden cards with different backs are told apart by design:
    a swap pairs only cards whose backs read the same (in smugglers.rules, sea with sea, land with land)."""
    path = str(Path(__file__).resolve().parent.parent / "docs" / "examples" / "smugglers.rules")
    game = load_ruleset(path).new_game(2, 3)
    leaks = LeakCheck(game)
    backs = game.state.tables.card_backs
    swaps = [ni.choose_swap(game, k % 2, leaks.seen, random.Random(k)) for k in range(60)]
    pairs = [(s.first, s.second) for s in swaps if s is not None]
    assert pairs and all(backs[a] == backs[b] for a, b in pairs)
    assert {backs[a] for a, _ in pairs} >= {"terrain: sea", "terrain: land"}


def test_probing_changes_nothing_in_the_game(tmp_path: Path) -> None:
    rules = load_ruleset(_write(tmp_path, BASE))
    game = rules.new_game(3, 2)
    before = game.digest()
    leaks = LeakCheck(game)
    for k in range(10):
        ni.check_point(game, leaks.seen, random.Random(k))
    assert game.digest() == before


@pytest.mark.parametrize("name", ["whispers.rules", "high_card.rules", "market.rules"])
def test_shipped_examples_are_clean(name: str) -> None:
    path = str(Path(__file__).resolve().parent.parent / "docs" / "examples" / name)
    program, _ = check_file(path)
    assert program is not None
    report = fuzz_ruleset(Ruleset(program), path, examples=30, replay_path="/dev/null")
    assert report.violation is None, report.violation


# ---------------------------------------------------------------- the third probe: a world from sample_world


def _world_probes(rules: Ruleset, seeds: range) -> list[str]:
    """Every decision point of random games, probed with a world drawn from a random observer's information
    set only (no choice varied, no pair swapped): the messages found."""
    from liturgy.interpreter.tools.fuzz import _knowledge

    found: list[str] = []
    for seed in seeds:
        game = rules.new_game(2 + seed % 2, seed)
        knows = _knowledge(game)
        rng = random.Random(seed)
        while not game.finished:
            observer = rng.randrange(game.players)
            message = ni.check_world(game, observer, knows[observer], random.Random(rng.random()))
            if message:
                found.append(message)
            for p in game.waiting_for():
                game.apply(rng.randrange(game.option_count(p)), p)
                for know in knows:
                    know.observe(game)
    return found


@pytest.mark.parametrize("leak", list(LEAKS))
def test_a_world_from_sample_world_alone_finds_each_leak(tmp_path: Path, leak: str) -> None:
    rules = load_ruleset(_write(tmp_path, BASE.replace(*LEAKS[leak])))
    # Whether a probe finds a leak depends on the worlds drawn. Seeds 0-11 and 12-23 both find all three since the
    # session-13 merge (one world in two varies one group alone; another player's plain choice is asked again);
    # with the one-shuffle deal alone only 12-23 did (docs/performance.md "Session 13 — search and invariants")
    found = _world_probes(rules, range(24))
    assert found and all("a world drawn from P" in m and "information set" in m for m in found), leak


def test_a_world_from_sample_world_finds_nothing_without_a_leak(tmp_path: Path) -> None:
    assert _world_probes(load_ruleset(_write(tmp_path, BASE)), range(12)) == []
    assert _world_probes(load_ruleset(_write(tmp_path, BASE.replace(*NESTED))), range(6)) == []


@pytest.mark.parametrize("leak", list(LEAKS))
def test_fuzz_with_only_the_world_probe_shrinks_each_leak_to_a_replay(tmp_path: Path, leak: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """`liturgy fuzz` runs the world probe by default; with the other two probes switched off it still reports
    every leak, shrunk to a replay file that reproduces the game."""
    monkeypatch.setattr(ni, "check_choice", lambda *args, **kwargs: None)
    monkeypatch.setattr(ni, "choose_swap", lambda *args, **kwargs: None)
    path = _write(tmp_path, BASE.replace(*LEAKS[leak]))
    replay = tmp_path / "leak.replay.json"
    # run seeds 1 and 3 both find all three leaks in 300 examples since the session-13 merge's sharper world probe
    # (with 100 examples, 3-4 of 6 run seeds find each; 2 of 6 before it); which examples catch a leak depends on
    # the worlds drawn
    report = fuzz_ruleset(load_ruleset(path), path, examples=300, run_seed=3, replay_path=str(replay))
    assert report.violation is not None and "a world drawn from P" in report.violation, (leak, report.violation)
    assert replay.exists() and report.shrunk_decisions is not None


def test_the_world_probe_keeps_the_real_rng_and_changes_nothing(tmp_path: Path) -> None:
    """Public rolls agree in both worlds (the real RNG is one nobody can rule out), and probing is read-only."""
    from liturgy.interpreter.tools.fuzz import _knowledge

    rules = load_ruleset(_write(tmp_path, BASE))
    game = rules.new_game(3, 5)
    game.apply(0, game.waiting_for()[0])
    knows = _knowledge(game)
    for know in knows:
        know.observe(game)
    before = game.digest()
    for k in range(10):
        assert ni.check_world(game, k % 3, knows[k % 3], random.Random(k)) is None
    assert game.digest() == before


# ---------------------------------------------------------------- the first leak, as written there

CHASE = '''game "Chase" { players 2..3 }
card Road { place: text }
cards "roads.yaml"
zone roads: deck hidden of Road
zone hand: per player set owner of Road
zone trail: pile hidden of Road
counter per player steps 0..100
setup {
  shuffle roads
  for p in players { move top(roads, 3) to p.hand }
}
round {
  step go "Go" {
    simultaneously d in players choose c from d.hand {
      move c to trail
      log "{} goes somewhere", d
      d.steps += 1
    }
    for p in players { move top(roads) to p.hand }
    if size(roads) < player_count { end game }
  }
}
score(p) = p.steps
'''
ROADS = "kind: Road\nstart: roads\ncards:\n" + "".join(f"  - {{name: R{i}, place: Town{i % 9}}}\n" for i in range(24))
PLACE_LEAK = ('      log "{} goes somewhere", d\n', '      log "{} goes to {}", d, c.place\n')


@pytest.mark.parametrize("leaky", [False, True])
def test_fuzz_catches_a_face_down_cards_place_in_a_log_line(tmp_path: Path, leaky: bool,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 17's first example (`log "{} goes to {}", d, c.place` of a card played face down): `liturgy fuzz`
    reports it, shrunk to a replay that `liturgy replay` plays back; the same game logging no place is clean."""
    from liturgy.interpreter.tools.cli import main

    (tmp_path / "roads.yaml").write_text(ROADS, encoding="utf-8")
    path = tmp_path / "chase.rules"
    path.write_text(CHASE.replace(*PLACE_LEAK) if leaky else CHASE, encoding="utf-8")
    replay = tmp_path / "chase.replay.json"
    code = main(["fuzz", str(path), "--examples", "60", "--replay", str(replay)])
    out = capsys.readouterr().out
    if not leaky:
        assert code == 0 and "0 violations" in out, out
        return
    assert code == 1 and "VIOLATION: P" in out and "is told what it may not see" in out, out
    assert main(["replay", str(replay)]) == 0
    assert "Replay matches" in capsys.readouterr().out


def test_fuzz_would_catch_the_nested_list_leak_if_redaction_regressed(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine redacts a `list of list of card` now (tests/test_secrets.py), so the issue's nested-list leak
    cannot happen; with the old one-level rule put back in the compiler, `liturgy fuzz` reports it, shrunk."""
    from liturgy.interpreter.compiler import statements

    def one_level(t: object) -> bool:  # the rule before the fix: only `list of card` holds cards
        return getattr(t, "kind", None) == "list" and getattr(getattr(t, "elem", None), "kind", None) == "card"

    monkeypatch.setattr(statements, "nests_cards", one_level)
    path = _write(tmp_path, BASE.replace(*NESTED))
    replay = tmp_path / "nested.replay.json"
    report = fuzz_ruleset(load_ruleset(path), path, examples=40, replay_path=str(replay))
    # the card-name check, or a noninterference probe when it meets the names first ("P1 holds T18, T4")
    assert report.violation is not None and ("never entitled to see" in report.violation
                                             or "is told what it may not see" in report.violation), report.violation
    assert replay.exists() and report.shrunk_decisions is not None
