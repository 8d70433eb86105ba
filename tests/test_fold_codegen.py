"""Aggregates, card reads and logs written tighter in generated code (docs/performance.md, "Session 18:
goofspiel"): every form plays as the closures do, and the generated text has lost what it no longer needs."""

from __future__ import annotations

import random
from collections.abc import Callable

from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset
from test_codegen import played_alike

FOLDS = '''\
game "Folds" { players 2..4
  step_limit 100000 }
card Tok { v: int }
cards "tok.yaml"
zone bag: deck hidden of Tok
zone table: pile public of Tok
zone bid: per player slot public of Tok
zone hold: per player pile hidden of Tok
counter turns
counter best
counter low
counter tops
fn bid_of(p: player) -> int = top(p.bid).v
fn twice(p: player) -> int = bid_of(p) + bid_of(p)
setup { shuffle bag }
round {
  step s "S" {
    turns += 1
    for p in players {
      choose c from bag by p optional { move c to p.bid }
    }
    best = max(bid_of(p) for p in players where size(p.bid) > 0)
    low = min(twice(p) for p in players where size(p.bid) > 0)
    tops = count(p for p in players where size(p.bid) > 0 and bid_of(p) == best)
    log "best {}, low {}, {} at the top; the table shows {}", best, low, tops, top(table)
    log "P1 bids {}", bottom(players[0].bid)
    choose k from [0, 1, 2, 3] by players[0] {
      if k == 1 { log "P1's bid is worth {}", top(players[0].bid).v }
      elif k == 2 { move players[0].bid to table bottom }
      elif k == 3 { log "the second bidder is {}", [p for p in players where size(p.bid) > 0][1] }
    }
    for p in players { move p.bid to p.hold }
    if size(table) > 0 { move table to players[1].hold }
    if turns >= 8 { end game }
  }
}
score(p) = size(p.hold) + best
'''

TOK = '''\
kind: Tok
start: bag
cards:
  - name: Ace
    count: 6
    v: 1
  - name: Bee
    count: 30
    v: 2
  - name: Cat
    count: 6
    v: 7
'''


def _variants(path: str) -> list[Ruleset]:
    out = []
    for mode in ({}, {"inline_fns": False}, {"fuse": False}, {"stmtgen": False},
                 {"codegen": False, "stmtgen": False}):
        program, _ = check_file(path)
        assert program is not None
        out.append(Ruleset(program, **mode))  # type: ignore[arg-type]
    return out


def test_folds_reads_and_logs_play_as_the_closures_do(write_ruleset: Callable[..., str]) -> None:
    """Every game, log view, error and work count the same in five compile modes: `max` and `min` kept as a
    running value (0 when nothing qualifies), a leaf `fn` in a loop's element, `top(Z).f` of an empty zone
    (the same error), a logged card of a public zone, a seat's zone by number, zones moved in place."""
    variants = _variants(write_ruleset(FOLDS, {"tok.yaml": TOK}))
    errors = finished = 0
    for players in (2, 3, 4):
        for seed in range(12):
            _, error, _, _ = played_alike(variants, players, seed)
            works = set()
            for rules in variants:
                game = rules.new_game(players, seed)
                game.random_playout(random.Random(seed))
                works.add(game.state.work)
            assert len(works) == 1, works
            errors += error is not None
            finished += error is None
    assert errors and finished  # both the empty bid's error and whole games were played
    seen = _errors(variants[0])
    assert any("`.v` of no card" in e for e in seen) and any("list index 1 out of range" in e for e in seen), seen


def _errors(rules: Ruleset) -> list[str]:
    out = []
    for seed in range(60):
        game = rules.new_game(2, seed)
        game.random_playout(random.Random(seed))
        if game.error is not None:
            out.append(str(game.error))
    return out


def test_the_generated_text_is_tighter(write_ruleset: Callable[..., str]) -> None:
    """What the text no longer holds: the `none` test of a seat, the list and call of `max`, the work count of
    a loop whose element only calls a leaf `fn`, the zone test of a card logged from a public zone, the `none`
    test of a seat given by number, the call of `move_zone` between two open zones."""
    text = _text(write_ruleset, FOLDS.replace("min(twice(p)", "min(bid_of(p) + 1").replace(
        "fn twice(p: player) -> int = bid_of(p) + bid_of(p)\n", ""))
    assert "_no_card('no player')" not in text
    assert "max(_r)" not in text and "min(_r)" not in text and "_r is _MISSING or _v > _r" in text
    assert "s.work" not in text  # every loop is flat: seats, and calls of leaf fns only
    assert "zone_vis_mask" not in text  # every logged card is the top or bottom of a public zone
    assert "_move_zone(" not in text
    assert "zone_final" not in text and "_move(s, _c" in text  # no final zone: a card is never in one
    assert "_index(_t" in text and "> 1 else _index(" in text  # `L[1]`: read in place, `_index` for its error

    # `twice` calls `bid_of`: not a leaf, so the loop over it still counts its items
    plain = _text(write_ruleset, FOLDS)
    assert "s.work" in plain
    # a filter of the seats behind a `fn`, its variable passed to a nested aggregate: no `none` test is added
    more = _text(write_ruleset, FOLDS.replace(
        "    tops = count(", "    tops = count(q for q in bidders() where any(c.v == best for c in q.bid))\n"
        "    tops = count(").replace(
        "fn twice", "fn bidders() -> list of player = [p for p in players where size(p.bid) > 0]\nfn twice"))
    assert more.count("def _a") > plain.count("def _a")
    assert more.count("_no_card('no player')") == plain.count("_no_card('no player')")


def _text(write_ruleset: Callable[..., str], rules: str) -> str:
    program, _ = check_file(write_ruleset(rules, {"tok.yaml": TOK}))
    assert program is not None
    gen = Ruleset(program).compiled.gen
    assert gen is not None
    return "".join(item.text for item in gen.sources.items)
