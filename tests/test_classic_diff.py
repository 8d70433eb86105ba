"""Differential tests: each classic ruleset against its OpenSpiel game.

``DIFF_GAMES`` sets the number of random games per ruleset (default 300, the
CI size); ``DIFF_GAMES=5000`` runs the long comparison reported in
docs/classic.md.  (check --strict and the fuzz harness run on every shipped
ruleset in tests/test_shipped_rulesets.py.)  See tests/classic_diff.py for how chance and actions map.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

import pytest
from classic_diff import ADAPTERS, CLASSIC, ROOT, Mismatch, run

GAMES = int(os.environ.get("DIFF_GAMES", "300"))


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_ruleset_matches_openspiel(name: str) -> None:
    games = max(20, int(GAMES * ADAPTERS[name].share))  # breakthrough and hex games are long: fewer of them
    stats = run(ADAPTERS[name], games, seed=1)
    assert stats.games == games
    assert stats.steps >= games and (stats.chance >= GAMES or not ADAPTERS[name].chance_nodes)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_crazy_eights_matches_openspiel_at_other_player_counts(players: int) -> None:
    """Two players are dealt 7 cards, more are dealt 5; the ruleset takes the count like OpenSpiel's `players`."""
    adapter = dataclasses.replace(ADAPTERS["crazy_eights"], players=players, params={"players": players})
    stats = run(adapter, max(GAMES // 6, 20), seed=players)
    assert stats.games == max(GAMES // 6, 20) and stats.steps > stats.games


def _mutant(tmp_path: Path, name: str, old: str, new: str) -> str:
    """A copy of a shipped ruleset (with its cards) where one rule is changed."""
    shutil.copytree(ROOT / "cards" / "classic", tmp_path / "cards" / "classic")
    target = tmp_path / "rulesets" / "classic" / name
    target.parent.mkdir(parents=True)
    text = (CLASSIC / name).read_text(encoding="utf-8")
    assert old in text
    target.write_text(text.replace(old, new, 1), encoding="utf-8")
    return str(target)


@pytest.mark.parametrize(("name", "old", "new", "symptom"), [
    # the answer to a bet is skipped: OpenSpiel still waits for the other player
    ("kuhn_poker.rules", "if size(opened) > 0 {", "if size(opened) > 9 {", "OpenSpiel waits"),
    # the pot goes to the lowest card: returns differ
    ("kuhn_poker.rules", "let best = max(", "let best = min(", "returns differ"),
    # ties keep the point card for P1: returns differ
    ("goofspiel.rules", "if size(top_bidders) == 1 {", "if size(top_bidders) >= 1 {", "returns differ"),
    # the last card is bid with a decision: Liturgy waits where OpenSpiel has ended
    ("goofspiel.rules", "if size(players[0].hand) > 1 {", "if size(players[0].hand) > 0 {", "Liturgy waits"),
    # three raises a round: the legal action sets differ
    ("leduc_poker.rules", "(a != raise or raises < 2)", "(a != raise or raises < 3)", "Liturgy offers"),
    # a pair does not beat a high card: returns differ
    ("leduc_poker.rules", "then 100 + top(p.hand).rank", "then top(p.hand).rank", "returns differ"),
    # sixes are not wild: returns differ
    ("liars_dice.rules", " or top(p.cup).face == 6)", ")", "returns differ"),
    # liar may be called on the very first move: legal action sets differ
    ("liars_dice.rules", "if current < 0 {", "if current < -1 {", "Liturgy offers"),
    # four draws a turn instead of max_draw_cards=5: legal action sets differ
    ("crazy_eights.rules", "draws < 5", "draws < 4", "Liturgy offers"),
    # face value instead of OpenSpiel's penalty table: returns differ
    ("crazy_eights.rules", "sum(c.penalty for c in p.hand)", "sum(c.rank for c in p.hand)", "returns differ"),
    # an eight does not name a suit: OpenSpiel waits for the nomination
    ("crazy_eights.rules", "if eight(c) {", "if eight(c) and false {", "OpenSpiel: P"),
    # three in a row wins: Liturgy ends the game while OpenSpiel plays on
    ("connect_four.rules", "span(board, c, r, d) >= 4", "span(board, c, r, d) >= 3", "OpenSpiel waits"),
    # a full column is still offered: the legal action sets differ
    ("connect_four.rules", "where not full(c) by p", "where true by p", "Liturgy offers"),
    # four in a row needed: OpenSpiel's game is over while Liturgy plays on
    ("tic_tac_toe.rules", "span(board, col(i), row(i), d) >= 3", "span(board, col(i), row(i), d) >= 4",
     "Liturgy waits|returns differ"),
    # a straight step may capture: the legal action sets differ
    ("breakthrough.rules", "(m.tc != m.fc and board[m.tc, m.ty] != p)", "board[m.tc, m.ty] != p",
     "Liturgy offers"),
    # reaching the far row does not win: OpenSpiel's game is over while Liturgy plays on
    ("breakthrough.rules", "if m.ty == far_row(p) or", "if", "Liturgy waits"),
    # chains link only orthogonally: a connection is missed, OpenSpiel's game ends first
    ("hex.rules", "for d in hex\n", "for d in orthogonal\n", "Liturgy waits|returns differ"),
    # no rebid after a challenge: the legal action sets differ
    ("liars_poker.rules", "(not rebid and challenges == size(players) - 1)", "false", "Liturgy offers"),
    # one challenge ends the bidding (no chance to rebid): OpenSpiel waits for the bidder
    ("liars_poker.rules", "counting = challenges == (", "counting = challenges > 0 or challenges == (",
     "OpenSpiel waits"),
    # the player with fewer pips scores their own pips: returns differ
    ("block_dominoes.rules", "then pips(next_player(p))", "then pips(p)", "returns differ"),
    # a blocked player's turn passes anyway: Liturgy asks a player with no move, OpenSpiel the other
    ("block_dominoes.rules", "if can_play(next_player(p)) {", "if true {", "Liturgy"),
])
def test_the_harness_catches_a_changed_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            name: str, old: str, new: str, symptom: str) -> None:
    path = _mutant(tmp_path, name, old, new)
    monkeypatch.setattr("classic_diff.CLASSIC", Path(path).parent)
    adapter = next(a for a in ADAPTERS.values() if a.ruleset == name)
    with pytest.raises(Mismatch, match=symptom):
        run(dataclasses.replace(adapter), 200, seed=1)
