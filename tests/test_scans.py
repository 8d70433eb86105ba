"""First-match scans (interpreter/codegen/scans.py): ``[c for c in Z where T][0]`` stops at the first match.

The scan is written only where the test and the element can neither fail nor draw, so stopping early changes
nothing; every case plays the same in every compile mode (digest, error, logs), including the empty case, which
fails with the error of indexing an empty list.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from liturgy.interpreter.codegen import seatgate
from liturgy.interpreter.engine import Ruleset
from mode_helpers import compiled, compiled_once, errors_in_every_mode, played_in_every_mode

HEAD = '''game "Scans" { players 2..2
  step_limit 2000 }
card Tok { v: int }
cards "tok.yaml"
zone pool: deck hidden of Tok
zone hand: per player row owner of Tok
counter got 0..1000
'''
TOKS = "kind: Tok\nstart: pool\ncards:\n" + "".join(f"  - {{name: t{i}, v: {i % 5}}}\n" for i in range(20))

DEAL = '''
proc deal(p: player, k: int) {
  move [c for c in pool where c.v == k][0] to p.hand
}
setup { shuffle pool }
round {
  step s "S" {
    for p in players {
      choose k from range(WIDTH) by p {
        do deal(p, k)
        got += top(p.hand).v
        log "{} takes {}", p, top(p.hand)
      }
    }
    if round >= 4 { end game }
  }
}
score(p) = size(p.hand)
'''


def _rules(write_ruleset: Callable[..., str], body: str, mode: dict[str, bool]) -> Ruleset:
    return compiled(write_ruleset(HEAD + body, {"tok.yaml": TOKS}), mode)


def _play(write_ruleset: Callable[..., str], body: str, seed: int) -> list[object]:
    return played_in_every_mode(lambda mode: _rules(write_ruleset, body, mode), seed)


def _loop_text(write_ruleset: Callable[..., str], body: str) -> str:
    gen = _rules(write_ruleset, body, {}).compiled.gen
    assert gen is not None
    text = gen.sources.dump()
    return text[text.index("[<liturgy loop"):].split("\n\n")[0]


def test_first_match_plays_alike(write_ruleset: Callable[..., str]) -> None:
    body = DEAL.replace("WIDTH", "5")
    assert "return _x" in _loop_text(write_ruleset, body)  # the scan, not the list
    for seed in range(4):
        seen = _play(write_ruleset, body, seed)
        assert all(x == seen[0] for x in seen), seed
        assert seen[0][1] is None


def test_nothing_found_fails_as_the_empty_list(write_ruleset: Callable[..., str]) -> None:
    body = DEAL.replace("WIDTH", "6")  # k = 5 matches no token
    for seed in range(6):
        seen = _play(write_ruleset, body, seed)
        assert all(x == seen[0] for x in seen), seed
        if seen[0][1] is not None:
            assert "list index 0 out of range (size 0)" in str(seen[0][1])
            break
    else:
        raise AssertionError("no seed chose 5")


def test_a_test_that_may_fail_builds_the_whole_list(write_ruleset: Callable[..., str]) -> None:
    # 12 / (c.v - 1) fails on a token worth 1: every token is tested, as the comprehension does
    body = DEAL.replace("WIDTH", "5").replace("where c.v == k", "where 12 / (c.v - 1) == k")
    assert "return _x" not in _loop_text(write_ruleset, body)
    for seed in range(3):
        seen = _play(write_ruleset, body, seed)
        assert all(x == seen[0] for x in seen), seed


SEATS = '''
flag per player out
round {
  step s "S" {
    for p in players {
      choose k from [0, 1] by p { p.out = k == 1 }
    }
    got += 1
    first = [q for q in players_from(next_player(first)) where TEST][0]
    log "{} goes first", first
    if round >= 6 { end game }
  }
}
score(p) = got
'''


def test_seat_counters_scan_and_play_alike(write_ruleset: Callable[..., str]) -> None:
    """``[q for q in players_from(…) where not q.out][0]``: a seat is never `none`, so its counter cannot fail and
    the scan stops at the first match (Bloodborne's next first player). Where no seat matches, every mode fails
    with the empty list's error."""
    body = SEATS.replace("TEST", "not q.out")
    assert "return _x" in _loop_text(write_ruleset, body)  # the scan, not the list
    errors = 0
    for seed in range(8):
        seen = _play(write_ruleset, body, seed)
        assert all(x == seen[0] for x in seen), seed
        errors += seen[0][1] is not None
    assert errors  # some seeds put every player out: the empty list's error, in every mode


def test_another_players_counter_builds_the_whole_list(write_ruleset: Callable[..., str]) -> None:
    # `first.out`: a player read where the text tests nothing for `none`, so every seat is tested, as the list is
    body = SEATS.replace("TEST", "not q.out or first.out")
    gen = _rules(write_ruleset, body, {}).compiled.gen
    assert gen is not None
    text = gen.sources.dump()  # the two seats' list written out (codegen/inline_aggregates.py), each seat tested
    assert "return _x" not in text and ":= (_w" in text, text  # no scan that stops early: the whole list
    for seed in range(3):
        seen = _play(write_ruleset, body, seed)
        assert all(x == seen[0] for x in seen), seed


# the seats' two filters (alive, then ready) both rulesets below test, and the step they open
SEAT_FILTERS = '''
flag per player out
flag per player busy
fn alive() -> list of player = [p for p in players_from(first) where not p.out]
fn ready() -> list of player = [p for p in alive() where not p.busy]
round {
  step s "S" {
'''

FILTERS = SEAT_FILTERS + '''    for p in players {
      choose k from [0, 1, 2, 3] by p { p.out = k == 1
        p.busy = k == 2 }
    }
    got += USE
    log "{} ready", size(ready())
    if round >= 8 or size(alive()) == 0 { end game }
  }
}
score(p) = got
'''


def test_a_filter_of_a_filter_of_the_seats_is_one_loop(write_ruleset: Callable[..., str]) -> None:
    """``ready()`` filters ``alive()``, which filters the seats: the generated code loops over the seats once,
    testing both (scans.seat_filters), and plays as the closures do."""
    body = FILTERS.replace("USE", "size([q for q in ready() where q != first])")
    rules = _rules(write_ruleset, body, {})
    assert rules.compiled.gen is not None
    text = rules.compiled.gen.sources.dump()
    assert "(not _cs[" in text and " and (not _cs[" in text  # out and busy tested in one loop's test
    for seed in range(6):
        seen = _play(write_ruleset, body, seed)
        assert all(x == seen[0] for x in seen), seed


def test_filters_that_charge_work_or_rename_stay_apart(write_ruleset: Callable[..., str]) -> None:
    # the outer test nests an aggregate (a counted loop) or binds another name: the lists are built as before
    for use in ["count(p for p in ready() where count(r for r in players where r == p) > 0)",
                "size([q for q in alive() where not q.busy])"]:
        body = FILTERS.replace("USE", use)
        for seed in range(3):
            seen = _play(write_ruleset, body, seed)
            assert all(x == seen[0] for x in seen), (use, seed)


def test_a_seat_scan_of_a_parameter_from_an_outer_loop(write_ruleset: Callable[..., str]) -> None:
    """``seat(r.rank)`` inlined in ``[seat(r.rank) for r in players …]``: the argument's text reads the outer
    loop's Python local, which a scan's own function does not have, so the list's function reads it (a scan
    there was a NameError)."""
    body = '''
counter per player rank 0..3
fn seat(n: int) -> player = [q for q in players where q.rank == n][0]
round {
  step s "S" {
    for p in players {
      choose k from [0, 1] by p { p.rank = k }
    }
    got += size([seat(r.rank) for r in players where r.rank == 0])
    if round >= 3 { end game }
  }
}
score(p) = got
'''
    for seed in range(4):
        seen = _play(write_ruleset, body, seed)
        assert all(x == seen[0] for x in seen), seed


EMPTINESS = '''
counter per player out 0..1
fn left() -> list of player = [p for p in players where p.out == 0]
setup { shuffle pool }
round {
  step s "S" {
    for p in players {
      choose k from range(3) by p {
        if k == 2 and size(left()) > 1 { p.out = 1 }
        got += k
      }
    }
    if size(left()) > 0 { log "someone is in" }
    if size([q for q in players where q.out == 1]) != 0 { got += 1 }
    if size([c for c in pool where c.v == got % 5]) == 0 { log "none of those left" }
    if size(left()) == 0 or round >= 6 { end game }
  }
}
score(p) = got + p.out
'''


def test_an_emptiness_test_of_a_filter_scans_and_plays_alike(write_ruleset: Callable[..., str]) -> None:
    """``size(L) > 0`` / ``!= 0`` / ``== 0`` of a filter over the seats that cannot fail: an `any` scan that stops
    at the first kept item (scans.emptiness), with the same games in every compile mode."""
    text = _rules(write_ruleset, EMPTINESS, {}).compiled.gen
    assert text is not None
    step = next(b for b in text.sources.dump().split("\n\n") if ":20  [<liturgy stmt" in b)
    assert step.count("len(") == 1  # the seats' filters scanned (here written out); the pool's 20 items counted
    for seed in range(6):
        seen = _play(write_ruleset, EMPTINESS, seed)
        assert all(x == seen[0] for x in seen), seed


WRITTEN = SEAT_FILTERS + '''    simultaneously p in ready() choose k from [0, 1, 2, 3] where k != 3 or got % 2 == 0 {
      p.busy = k == 2
      got += k
    }
    for p in alive() {
      if got % 3 == 0 { for q in players { q.out = true } }
      p.out = got % 4 == 1
      let n = 2
      n += count(q for q in players where q.busy or q == p)
      got += n
      n -= count(q for q in players where q.out)
      log "{} is counted, {}", p, n
    }
    for p in [q for q in players where not q.busy] { p.busy = true }
    for p in [q for q in alive() where any(c.v == got % 5 and not q.busy for c in pool)] { got += 1 }
    if size(ready()) == 0 { got += 2 }
    if round >= 8 { end game }
  }
}
score(p) = got
'''


def test_a_for_over_a_filter_of_the_seats_builds_it_in_the_statement(write_ruleset: Callable[..., str]) -> None:
    """``for p in alive()`` and ``simultaneously p in ready()`` (`fn`s without parameters whose bodies filter the
    seats): the list is built by a loop written in the statement and the choice (inline_aggregates.for_items,
    seat_items_lines), not by a call of a loop function, and is not copied; the body changing what the filter
    reads (`out`) changes nothing of the items already listed, as the closures' snapshot. The `count`s that are
    a local's assignment's whole value (`n += …`, `n -= …`), the list of seats a counted comprehension runs over and
    an `if`'s emptiness test (`size(ready()) == 0`, scans.emptiness's `any`) and an `any` that is a written
    loop's whole filter are loops written there too."""
    def rules(mode: dict[str, bool]) -> Ruleset:  # 2 or 3 seats: the lists are loops, not written out
        return compiled(write_ruleset(HEAD.replace("players 2..2", "players 2..3") + WRITTEN, {"tok.yaml": TOKS}),
                        mode)

    seatgate.ENABLED = False  # the choice's list as built here, not gated into its loop (tests/test_seatgate.py)
    try:
        gen = rules({}).compiled.gen
    finally:
        seatgate.ENABLED = True
    assert gen is not None
    text = gen.sources.dump()
    used = [b for b in text.split("\n\n") if "<liturgy stmt" in b or "<liturgy choice" in b]
    assert not any(re.search(r"_k\d+\(s, env(\)|, _x)", b) for b in used)  # no loop function: each loop here
    assert any("for p in _out" in b for b in used) and any("for _x" in b and "in _out" in b for b in used)
    assert not any("tuple(_out" in b for b in used)  # and not copied
    errors_in_every_mode(rules, 4)  # every mode plays each seed alike


SPLIT = '''
flag per player out
setup {
  shuffle pool
  for p in players { move top(pool, 3) to p.hand }
}
round {
  step s "S" {
    simultaneously p in players choose c from p.hand where c.v != 2 or any(d.v == c.v + 1 for d in pool) {
      got += c.v
      move c to pool
    }
    for p in players {
      choose c from pool where any(d.v == c.v for d in p.hand) and c.v < 4 by p {
        move c to p.hand
      } otherwise { p.out = true }
    }
    for p in players {
      if any(q != p and any(c.v == got % 5 for c in q.hand) for q in players) { got += 2 }
      if all(q.out or any(c.v > 2 for c in q.hand) for q in players) { got += 3 }
      let xs = [q for q in players where q != p and any(c.v == got % 4 for c in q.hand)]
      let n = count(q for q in players where any(c.v == 0 for c in q.hand) or q.out)
      n += size(xs)
      n += count(q for q in players where q != p and any(c.v / (got % 9) > 1 for c in q.hand))
      got += n
      log "{} sees {}", p, got
    }
    if round >= 6 { end game }
  }
}
score(p) = got
'''


def test_an_any_beside_an_and_or_an_or_is_a_loop_in_the_turn(write_ruleset: Callable[..., str]) -> None:
    """An `any` on one side of an `or`/`and` that is a filter (`where c.v != 2 or any(…)`, `where any(…) and …`,
    a list's `where q != p and any(…)`) or the tested element of an `any`/`all` (`any(q != p and any(…) for q in
    …)`): its loop is written at the top of each turn of the loop around it (inline_aggregates._inner_scan's
    gate), not called as a loop function, and the games (one stops dividing by zero inside the `any`, which only
    runs where the `and`'s left side is true) are the same in every compile mode."""
    path = write_ruleset(HEAD.replace("players 2..2", "players 2..3") + SPLIT, {"tok.yaml": TOKS})
    rules = compiled_once(path)  # 2 or 3 seats: the lists are loops, not written out

    gen = rules({}).compiled.gen
    assert gen is not None
    used = [b for b in gen.sources.dump().split("\n\n") if "<liturgy stmt" in b or "<liturgy choice" in b]
    assert not any(re.search(r"_k\d+\(s, env(\)|, _x)", b) for b in used)  # no loop function: each loop here
    assert sum(b.count("continue") for b in used) >= 6
    errors = errors_in_every_mode(rules, 8)
    assert None in errors and any(e is not None and "zero" in e for e in errors), errors
