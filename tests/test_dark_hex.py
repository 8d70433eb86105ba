"""Dark Hex (issue 33 item 4): a classic with secret state and no cards, against OpenSpiel's `dark_hex`.

tests/test_classic_diff.py compares it move by move (who moves, the legal actions, the returns) like every
classic. Here the information states are compared too: Liturgy's OpenSpiel adapter (interop/openspiel.py) and
OpenSpiel's own game are played in lock step through the pyspiel API, and at every non-terminal state, for
both players, two histories must give equal information-state strings in Liturgy exactly when they do in
OpenSpiel. OpenSpiel's reveal-nothing string also holds the number of moves made so far (refused moves
included). A player observes whether it is to move, not how many times the other was refused (docs/classic.md):
OpenSpiel's partition is taken with that line replaced by whether the player is to move, and a test pins
that the count of refused moves is the only difference.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from liturgy.interpreter.interop.openspiel import register  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RULES = str(ROOT / "rulesets" / "classic" / "dark_hex.rules")
GAMES = int(os.environ.get("DARK_HEX_GAMES", os.environ.get("DIFF_GAMES", "300")))  # 2,000: docs/classic.md


def _games() -> tuple[Any, Any]:
    short, _ = register(RULES)
    return pyspiel.load_game(short, {"returns": "score", "score_min": -1.0, "score_max": 1.0}), \
        pyspiel.load_game("dark_hex")


def _without_count(text: str) -> str:
    """OpenSpiel's string less its move-count line: the board as the player sees it, then its own moves (with
    whether the player is to move, what it observes of the count)."""
    lines = text.split("\n")
    assert lines[-2].isdigit(), text
    return "\n".join(lines[:-2] + lines[-1:])


def _action(state: Any, player: int, os_action: int) -> int:
    """Liturgy's option (its index) whose label is OpenSpiel's action (the cell, row by row)."""
    for a in state.legal_actions(player):
        if state.action_to_string(player, a).split(": ", 1)[1] == str(os_action):
            return int(a)
    raise AssertionError(f"no Liturgy option for OpenSpiel's action {os_action}")


def _partitions(games: int, seed: int) -> tuple[dict[str, set[str]], dict[str, set[str]], int]:
    """Play ``games`` random games in lock step; per player, which Liturgy strings each OpenSpiel string (less
    its count) meets, and the other way round; and how many states were compared."""
    lit_game, os_game = _games()
    rng = random.Random(seed)
    os_to_lit: dict[str, set[str]] = {}
    lit_to_os: dict[str, set[str]] = {}
    compared = 0
    for _ in range(games):
        lit, os_ = lit_game.new_initial_state(), os_game.new_initial_state()
        while not os_.is_terminal():
            assert not lit.is_terminal() and lit.current_player() == os_.current_player()
            for p in range(2):
                a = f"P{p}:{os_.current_player() == p}:" + _without_count(os_.information_state_string(p))
                b = f"P{p}:" + lit.information_state_string(p)
                os_to_lit.setdefault(a, set()).add(b)
                lit_to_os.setdefault(b, set()).add(a)
                compared += 1
            player = os_.current_player()
            move = rng.choice(os_.legal_actions(player))
            lit.apply_action(_action(lit, player, move))
            os_.apply_action(move)
        assert lit.is_terminal() and lit.returns() == os_.returns()
    return os_to_lit, lit_to_os, compared


def test_the_information_state_partitions_agree_at_every_step() -> None:
    os_to_lit, lit_to_os, compared = _partitions(GAMES, seed=1)
    assert compared >= 10 * GAMES
    split = {k: v for k, v in os_to_lit.items() if len(v) > 1}
    merged = {k: v for k, v in lit_to_os.items() if len(v) > 1}
    assert not split, f"one OpenSpiel information state is several in Liturgy: {next(iter(split.items()))}"
    assert not merged, f"one Liturgy information state is several in OpenSpiel: {next(iter(merged.items()))}"
    assert len(os_to_lit) > 1000  # many information states, not a trivial partition


def test_openspiel_counts_the_refused_moves_that_the_rules_do_not_show() -> None:
    """After P1 takes the centre, P2 refused there then taking a corner, or taking it at once, looks the same to
    P1 in Liturgy; OpenSpiel's string differs only in its count of moves (3 against 2)."""
    lit_game, os_game = _games()
    strings = []
    for moves in ([4, 4, 0], [4, 0]):
        lit, os_ = lit_game.new_initial_state(), os_game.new_initial_state()
        for m in moves:
            player = os_.current_player()
            lit.apply_action(_action(lit, player, m))
            os_.apply_action(m)
        strings.append((lit.information_state_string(0), os_.information_state_string(0)))
    (lit_a, os_a), (lit_b, os_b) = strings
    assert lit_a == lit_b
    assert os_a != os_b and _without_count(os_a) == _without_count(os_b)
    assert os_a.split("\n")[-2:] == ["3", "0,4 "] and os_b.split("\n")[-2:] == ["2", "0,4 "]
