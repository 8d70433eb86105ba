"""The world probe's worlds that make a leak visible, beyond one world with every hidden card dealt afresh.

Found at the session-13 merge: with the sampler's exactly uniform deal, a world almost always also shuffles the
deck a player draws from next, so the step that leaks a dropped tile's rank also shows the observer another
drawn card and the comparison ended before the leaking line was read; and a pending plain choice of another player
was no longer asked again in the world (only simultaneous ones were), so options filtered by a hidden card stayed
the real game's.
"""
from __future__ import annotations

import random
from pathlib import Path

import liturgy.interpreter.tools.noninterference as ni
from liturgy.interpreter.engine import Ruleset, load_ruleset
from liturgy.interpreter.engine.infosets import WorldSampler, knowledge_by_replay
from test_noninterference import BASE, LEAKS, _write


def _leaky(tmp_path: Path, leak: str) -> Ruleset:
    return load_ruleset(_write(tmp_path, BASE.replace(*LEAKS[leak])))


def test_a_commit_redrawn_alone_shows_its_leak_when_the_choice_resolves(tmp_path: Path) -> None:
    """P2 has dropped a tile face down, P1 has not: a world with only P2's commit drawn again logs another rank."""
    game = _leaky(tmp_path, "a face-down tile's rank in a log line").new_game(2, 3)
    game.apply(0, game.waiting_for()[0])  # the call
    game.apply(1, 1)  # P2 commits its tile
    assert game.state.commits and game.waiting_for() == (0,)
    know = knowledge_by_replay(game, 0)
    found = [ni.check_world(game, 0, know, random.Random(k)) for k in range(8)]
    assert any(m and "drops a tile of rank" in m for m in found), found


def test_a_narrow_world_varies_one_group_and_keeps_the_others(tmp_path: Path) -> None:
    game = _leaky(tmp_path, "a face-down tile's rank in a log line").new_game(2, 3)
    sampler = WorldSampler(game, 0, knowledge_by_replay(game, 0), keep_declarations=True)
    assert len(sampler.free) > 1
    for k in range(10):
        world = sampler(random.Random(k), narrow=True)
        changed = [z for z, (a, b) in enumerate(zip(game.state.zones, world.state.zones, strict=True)) if a != b]
        assert len(changed) <= 1 and all(sorted(game.state.zones[z]) == sorted(world.state.zones[z])
                                         for z in changed)


def test_another_players_plain_choice_is_asked_again_in_the_world(tmp_path: Path) -> None:
    """P1 calls a number other than the pit's hidden top rank: in P2's worlds, P1's options follow the world's pit
    (before the fix, every world kept the real game's options)."""
    game = _leaky(tmp_path, "a public choice filtered by it").new_game(2, 3)
    game.apply(0, 0)  # round 1's call
    game.apply(0, 0)  # both drop a tile: the pit holds three, face down
    game.apply(0, 1)
    pending = game.state.pending
    assert pending is not None and pending[0] == "choose" and pending[1] == 0
    sampler = WorldSampler(game, 1, knowledge_by_replay(game, 1), keep_declarations=True)
    options = set()
    for k in range(16):
        world_pending = sampler(random.Random(k)).state.pending
        assert world_pending is not None
        options.add(world_pending[2])
    assert len(options) > 1, "P1's options never followed the world's hidden pit"
