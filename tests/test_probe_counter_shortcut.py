"""The noninterference probe leaves counters and grids out of a comparison only when they render alike.

Session 14 (issue 30's fuzz runs): rendering both worlds' counters at every compared decision was most of a fuzzed
Fury of Dracula game's cost. The probe now compares the counter slots first (``_counters_alike``) and renders
the counters and grids only when a slot the observer may read differs. These tests pin both sides: a per-card
value of a card the observer does not see is skipped (its views' counters are indeed equal), anything it reads
is rendered; and the probe's verdicts and messages are the same with the shortcut as without it.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.runtime.moves import visible_cards
from liturgy.interpreter.tools import noninterference as ni
from liturgy.interpreter.tools.leaks import LeakCheck
from test_noninterference import BASE, LEAKS, _write

MARKS = BASE.replace("counter last 0..10\n", "counter last 0..10\ncounter per card marks 0..9\n")


def _slot(game: Game, card: int) -> int:
    lay = game.ruleset.compiled.layout
    return lay.card_base + lay.card_offsets["marks"] + card * lay.card_stride


def _game(tmp_path: Path, text: str = MARKS) -> Game:
    return load_ruleset(_write(tmp_path, text)).new_game(2, 3)


def test_a_hidden_cards_value_is_skipped_and_renders_alike(tmp_path: Path) -> None:
    game = _game(tmp_path)
    world = game.clone()
    seen = visible_cards(game.state, 0)
    hidden = next(c for c in game.state.zones[game.ruleset.compiled.layout.zone_global["bag"]] if not seen[c])
    world.state.counters[_slot(world, hidden)] = 7
    assert ni._counters_alike(game, world, seen)
    assert game.view(0)["counters"] == world.view(0)["counters"]


def test_a_seen_cards_value_is_rendered(tmp_path: Path) -> None:
    game = _game(tmp_path)
    world = game.clone()
    seen = visible_cards(game.state, 0)
    mine = next(c for c, yes in enumerate(seen) if yes)
    world.state.counters[_slot(world, mine)] = 7
    assert not ni._counters_alike(game, world, seen)
    assert game.view(0)["counters"] != world.view(0)["counters"]


def test_a_players_or_global_value_is_rendered(tmp_path: Path) -> None:
    game = _game(tmp_path)
    lay = game.ruleset.compiled.layout
    seen = visible_cards(game.state, 0)
    for slot in (lay.global_slots["last"], lay.player_base + lay.player_stride + lay.player_offsets["points"]):
        world = game.clone()
        world.state.counters[slot] = 5
        assert not ni._counters_alike(game, world, seen)


def test_a_counter_visible_to_a_group_is_always_rendered(tmp_path: Path) -> None:
    """Who sees such a counter is worked out from the state: equal slots do not make equal views."""
    text = MARKS.replace("counter last 0..10\n",
                         "counter last 0..10 visible to [p for p in players where p.points > 0]\n")
    game = _game(tmp_path, text)
    assert not ni._counters_alike(game, game.clone(), visible_cards(game.state, 0))


def test_a_view_without_counters_is_the_view_less_its_counters_and_grids(tmp_path: Path) -> None:
    game = _game(tmp_path)
    full, bare = game.view(0), game.view(0, counters=False)
    assert bare["counters"] is None and "grids" not in bare
    assert {k: v for k, v in full.items() if k != "counters"} == {k: v for k, v in bare.items() if k != "counters"}


@pytest.mark.parametrize("leak", [None, *LEAKS])
def test_the_probe_says_the_same_with_and_without_the_shortcut(tmp_path: Path, leak: str | None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Every probe of 12 games, at every decision, reports the same message (or none) either way."""
    text = MARKS if leak is None else MARKS.replace(*LEAKS[leak])
    rules = load_ruleset(_write(tmp_path, text))
    verdicts: list[list[str | None]] = [[], []]
    for k, alike in enumerate((ni._counters_alike, lambda real, world, seen: False)):
        monkeypatch.setattr(ni, "_counters_alike", alike)
        for seed in range(12):
            game = rules.new_game(2 + seed % 2, seed)
            leaks = LeakCheck(game)
            rng = random.Random(seed)
            while not game.finished:
                verdicts[k].append(ni.check_point(game, leaks.seen, random.Random(rng.random())))
                for p in game.waiting_for():
                    game.apply(rng.randrange(game.option_count(p)), p)
                    if game.finished:
                        break
                leaks.check(game, full_view=False)
    assert verdicts[0] == verdicts[1]
    assert (leak is None) == all(v is None for v in verdicts[0]), verdicts[0]
