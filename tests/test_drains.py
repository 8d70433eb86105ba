"""Dealing loops written as one bulk move (interpreter/codegen/drains.py).

``repeat while size(Z) > K { move top(Z) to D }`` and ``repeat while size(D) < K { move top(Z) to D }`` move
their cards as one slice in generated code. Each shape must leave the state the passes leave: the same zone
lists (order included), card places, face-up and shown marks, removed-card count, work and errors, in every
compile mode (the closures run the passes one by one).
"""
from __future__ import annotations

from collections.abc import Callable

from liturgy.interpreter.engine import Ruleset
from mode_helpers import compiled, played_in_every_mode

HEAD = '''game "Drains" { players 2..2
  step_limit 20 }
card Tok { v: int }
cards "tok.yaml"
zone pool: deck hidden of Tok
zone pile: pile public of Tok
zone gone: pile public final of Tok
zone hand: per player row owner of Tok
counter got 0..100000
'''
TOKS = "kind: Tok\nstart: pool\ncards:\n" + "".join(f"  - {{name: t{i}, v: {i}}}\n" for i in range(20))

DEALS = '''
round {
  step s "S" {
    let p = players[0]
    let q = players[1]
    reveal top(pool) to q
    reveal pile
    repeat while size(pool) > 12 { move top(pool) to p.hand }
    reveal p.hand
    repeat while size(p.hand) > 3 { move top(p.hand) to pile bottom }
    repeat while size(q.hand) < 5 { move top(pool) to q.hand }
    repeat while size(pile) != 0 { move top(pile) to pool }
    repeat while size(q.hand) > 0 { move top(q.hand) to gone }
    got += sum(c.v for c in pool)
    log "pool {}, hand {}, top {}", size(pool), size(p.hand), top(pool)
    end game
  }
}
score(p) = got
'''

SHORT = '''
round {
  step s "S" {
    let p = players[0]
    repeat while size(pool) > 0 { move top(pool) to pile }
    repeat while size(pool) < 25 { move top(pile) to pool }
    end game
  }
}
score(p) = 0
'''


def _rules(write_ruleset: Callable[..., str], body: str, mode: dict[str, bool]) -> Ruleset:
    return compiled(write_ruleset(HEAD + body, {"tok.yaml": TOKS}), mode)


def _text(write_ruleset: Callable[..., str], body: str) -> str:
    gen = _rules(write_ruleset, body, {}).compiled.gen
    assert gen is not None
    return gen.sources.dump()


def test_each_shape_moves_as_the_passes(write_ruleset: Callable[..., str]) -> None:
    text = _text(write_ruleset, DEALS)
    assert text.count(".reverse()") == 5  # every loop in bulk
    assert "ran 100000 times" in text
    seen = played_in_every_mode(lambda mode: _rules(write_ruleset, DEALS, mode), 1)
    assert all(x == seen[0] for x in seen)
    digest, error, logs, _ = seen[0]  # type: ignore[misc]
    assert error is None, error
    assert any("pool 12, hand 3" in line for line in logs[0])


def test_bulk_state_equals_the_passes(write_ruleset: Callable[..., str]) -> None:
    """Beyond the digest: the card places, marks and removed count are the passes' too."""
    states = []
    for mode in ({}, {"codegen": False, "stmtgen": False}):
        game = _rules(write_ruleset, DEALS, mode).new_game(2, 3)
        s = game.state
        states.append((s.zones, s.card_zone, sorted(s.face_up), sorted(s.shown.items()), s.removed_count, s.work))
    assert states[0] == states[1]
    assert states[0][4] == 5  # the five cards that entered `gone`


def test_running_out_fails_after_moving_every_card(write_ruleset: Callable[..., str]) -> None:
    assert text_has_bulk(_text(write_ruleset, SHORT))
    seen = played_in_every_mode(lambda mode: _rules(write_ruleset, SHORT, mode), 0)
    assert all(x == seen[0] for x in seen)
    assert "nothing to move at line 15" in str(seen[0][1])  # type: ignore[index]
    game = _rules(write_ruleset, SHORT, {}).new_game(2, 0)
    assert len(game.state.zones[0]) == 20 and not game.state.zones[1]


def text_has_bulk(text: str) -> bool:
    return "nothing to move at line 15" in text and ".reverse()" in text


def test_out_of_a_final_zone_stays_pass_by_pass(write_ruleset: Callable[..., str]) -> None:
    body = DEALS.replace("    got += ", "    repeat while size(gone) > 0 { move top(gone) to pile }\n    got += ")
    assert _text(write_ruleset, body).count(".reverse()") == 5  # the new loop is not in bulk
    seen = played_in_every_mode(lambda mode: _rules(write_ruleset, body, mode), 1)
    assert all(x == seen[0] for x in seen)
    assert "cannot leave `gone`" in str(seen[0][1])  # type: ignore[index]
