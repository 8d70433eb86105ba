"""The noninterference probe renders views and narration only where the two worlds may differ (tools/alike.py).

Session 15 (issues 30, 32, 34): comparing the narration timeline made the fuzz harness 30-55 % slower, most of it
in rendering views' counters at every state copy the narration splits at. The probe now compares the data those
views are a function of first, state copy by state copy, and renders only where it differs. These tests pin
both sides: what the shortcut calls alike does render alike, what it may not vouch for is rendered; and every
probe of games with leaks planted in log lines, counters, zones and in the narration alone (a value or a card
that changes and changes back within one step, between two log lines) says the same with the shortcut as
without it. The last session's shortcut (views at decisions only) missed the narration-only leaks; so does this
one if the timeline's copies are not compared, which the last test shows.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.engine.causes import _copy
from liturgy.interpreter.runtime.moves import visible_cards
from liturgy.interpreter.runtime.state import GameState
from liturgy.interpreter.tools import alike
from liturgy.interpreter.tools import noninterference as ni
from liturgy.interpreter.tools.fuzz import _knowledge
from liturgy.interpreter.tools.leaks import LeakCheck
from test_noninterference import BASE, DROP_LOG, LEAKS, _write

DROP = "      move t to pit\n" + DROP_LOG
# per-card values and a second hidden pile: the shortcut skips the values of cards the observer does not see
MARKED = BASE.replace("counter last 0..10\n", "counter last 0..10\ncounter per card marks 0..9\n").replace(
    "zone pit: pile hidden of Tile\n", "zone pit: pile hidden of Tile\nzone heap: pile hidden of Tile\n").replace(
    DROP, DROP + "      t.marks = t.rank\n")
PLANTED = {
    **LEAKS,
    # narration alone: the views at every decision agree, the state between two log lines does not
    "a rank in a public counter for a moment": (DROP, "      move t to pit\n      last = t.rank\n" + DROP_LOG
                                                + "      last = 0\n"),
    "a hidden pile's size by a rank": (DROP, "      if t.rank > 3 { move t to heap } else { move t to pit }\n"
                                       + DROP_LOG),
    "a hidden pile's size by a rank, after the last line": (DROP, DROP_LOG + "      if t.rank > 3 { move t to heap }"
                                                             " else { move t to pit }\n"),
    "a hidden pile's size for a moment": (DROP, "      if t.rank > 3 { move t to heap }\n" + DROP_LOG
                                          + "      move t to pit\n"),
}
# a value shown to a `visible to` group (who is in it is worked out from the state): clean, and leaking a rank
GROUP = ("counter last 0..10\n", "counter last 0..10 visible to [p for p in players where p.points > 0]\n")
CLEAN = {"a value shown to a group": [GROUP]}
PLANTED["the rank copied into a value shown to a group"] = (DROP, DROP + "      last = t.rank\n")
GROUPED = {"the rank copied into a value shown to a group"}
# games played per comparison: each variant's leak is found in the first four
GAMES = 4
MOMENTS = ("a rank in a public counter for a moment", "a hidden pile's size for a moment")


def _rules(tmp_path: Path, leak: str | None) -> Ruleset:
    text = MARKED
    changes = [] if leak is None else CLEAN[leak] if leak in CLEAN else [PLANTED[leak]]
    for old, new in changes + ([GROUP] if leak in GROUPED else []):
        assert old in text
        text = text.replace(old, new)
    return load_ruleset(_write(tmp_path, text))


def _probes(rules: Ruleset, games: int) -> list[str | None]:
    """Every probe (all four kinds) at every decision of ``games`` random games."""
    verdicts: list[str | None] = []
    for seed in range(games):
        game = rules.new_game(2 + seed % 2, seed)
        leaks = LeakCheck(game)
        knows = _knowledge(game)
        rng = random.Random(seed)
        while not game.finished:
            verdicts.append(ni.check_point(game, leaks.seen, random.Random(rng.random()), knows))
            for p in game.waiting_for():
                game.apply(rng.randrange(game.option_count(p)), p)
                for know in knows:
                    know.observe(game)
                if game.finished:
                    break
            leaks.check(game, full_view=False)
    return verdicts


def _game(tmp_path: Path) -> Game:
    return _rules(tmp_path, None).new_game(2, 3)


def test_a_hidden_cards_value_is_skipped_and_renders_alike(tmp_path: Path) -> None:
    game = _game(tmp_path)
    world = game.clone()
    lay = game.ruleset.compiled.layout
    bag = game.state.zones[lay.zone_global["bag"]]
    assert not any(visible_cards(game.state, 0)[c] for c in bag)
    world.state.counters[lay.card_base + lay.card_offsets["marks"] + bag[0] * lay.card_stride] = 7
    assert alike.Alike(game.ruleset, 0).states(game.state, world.state)
    assert game.view(0) == world.view(0)


def test_what_the_observer_reads_is_not_alike(tmp_path: Path) -> None:
    """A seen card's value, a player's or a global value, a card moved in sight, a hidden pile's size."""
    game = _game(tmp_path)
    lay = game.ruleset.compiled.layout
    s = game.state
    mine = s.zones[lay.zone_player_base + lay.zone_player_offsets["hand"]][0]
    slots = (lay.card_base + lay.card_offsets["marks"] + mine * lay.card_stride, lay.global_slots["last"],
             lay.player_base + lay.player_stride + lay.player_offsets["points"])
    check = alike.Alike(game.ruleset, 0)
    for slot in slots:
        world = game.clone()
        world.state.counters[slot] = 5
        assert not check.states(s, world.state) and game.view(0) != world.view(0)
    world = game.clone()
    bag, heap = lay.zone_global["bag"], lay.zone_global["heap"]
    world.state.zones[heap].append(world.state.zones[bag].pop())
    world.state.card_zone[world.state.zones[heap][0]] = heap
    assert not check.states(s, world.state) and game.view(0) != world.view(0)
    assert check.states(s, world.state, zones=False)  # the counters alone still agree


def test_a_value_visible_to_a_group_is_alike_only_when_the_group_is(tmp_path: Path) -> None:
    """Who sees such a value is worked out from the state: equal slots do not make equal views by themselves."""
    group = "counter last 0..10 visible to [p for p in players where p.points > 0]\n"
    text = MARKED.replace("counter last 0..10\n", group)
    game = load_ruleset(_write(tmp_path, text)).new_game(2, 3)
    lay = game.ruleset.compiled.layout
    world = game.clone()
    check = alike.Alike(game.ruleset, 0)
    assert check.states(game.state, world.state)
    world.state.counters[lay.player_base + lay.player_offsets["points"]] = 1  # P1 joins the group in one world
    game.state.counters[lay.global_slots["last"]] = world.state.counters[lay.global_slots["last"]] = 4
    assert not check._groups(game.state, world.state) and not check.states(game.state, world.state)
    assert game.view(0)["counters"]["last"] == "?" and world.view(0)["counters"]["last"] == 4


def test_a_view_without_counters_is_the_view_less_its_counters_and_grids(tmp_path: Path) -> None:
    game = _game(tmp_path)
    full, bare = game.view(0), game.view(0, counters=False)
    assert bare["counters"] is None and "grids" not in bare
    assert {k: v for k, v in full.items() if k != "counters"} == {k: v for k, v in bare.items() if k != "counters"}


def test_a_baseline_copy_renders_the_view_the_narration_compared_with(tmp_path: Path) -> None:
    game = _game(tmp_path)
    game.apply(0, game.waiting_for()[0])
    state = _copy(game.state)
    state.pending = None
    rendered = ni._rendered(game, 0, state)
    assert rendered is not None
    assert {k: rendered[k] for k in ("viewer", "zones", "counters")} == {k: game.view(0)[k]
                                                                         for k in ("viewer", "zones", "counters")}


@pytest.mark.parametrize("leak", [None, *CLEAN, *PLANTED])
def test_the_probe_says_the_same_with_and_without_the_shortcut(tmp_path: Path, leak: str | None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Every probe of 4 games, at every decision, reports the same message (or none) either way; the leaky games
    are found (a leak for a moment by the narration alone: the views at every decision agree), the clean one is
    not, and the shortcut was taken (else this compares nothing)."""
    rules = _rules(tmp_path, leak)
    taken: list[bool] = []
    states = alike.Alike.states

    def counted(self: alike.Alike, a: GameState, b: GameState, zones: bool = True) -> bool:
        taken.append(states(self, a, b, zones))
        return taken[-1]

    monkeypatch.setattr(alike.Alike, "states", counted)
    with_shortcut = _probes(rules, GAMES)
    monkeypatch.setattr(alike, "ENABLED", False)
    without = _probes(rules, GAMES)
    assert with_shortcut == without
    assert (leak is None or leak in CLEAN) == all(v is None for v in without), without
    assert leak not in MOMENTS or all("its narration" in v for v in without if v)
    assert taken.count(True) > len(taken) // 2


@pytest.mark.parametrize("leak", MOMENTS)
def test_a_leak_for_a_moment_is_missed_without_the_timelines_copies(tmp_path: Path, leak: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """What the last session's shortcut missed (the test above finds these leaks): the views at every decision
    agree, so a shortcut that does not compare the timeline's state copies (``timelines`` always yes) finds
    nothing in the same games."""
    monkeypatch.setattr(alike.Alike, "timelines", lambda self, real, world, player: True)
    assert not any(_probes(_rules(tmp_path, leak), GAMES))


@pytest.mark.parametrize("leak", [None, "a hidden pile's size by a rank", "the rank copied into a public counter"])
def test_views_with_the_zones_built_once_are_the_views_built_in_full(tmp_path: Path, leak: str | None,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Where Alike finds the two worlds alike, the probe builds their zones once (``_alike_views``): each pair
    it compares is the pair built in full, at every probe of clean and leaking games; and the baseline the probe
    keeps is the narration's own (``watch`` takes the probe's copy instead of making another)."""
    made = ni._alike_views
    pairs: list[int] = []

    def checked(worlds: tuple[Game, Game], player: int, asked: ni.Asked | None = None) -> list[dict[str, object]]:
        views = made(worlds, player, asked)
        assert views == [g.view(player, log_from=len(g.state.log), counters=False) for g in worlds]
        pairs.append(player)
        return views

    monkeypatch.setattr(ni, "_alike_views", checked)
    _probes(_rules(tmp_path, leak), 2)
    assert pairs
