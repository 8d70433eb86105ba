"""A seat's slot read from a table (interpreter/codegen/slots.py): ``_Ks5[p]`` for ``(base + p * stride)``.

Written only where the player is proven to be a seat (a loop over the seats, a value just tested for `none`);
a plain variable read with no proof keeps the arithmetic, so a `none` player fails with the same error in every
compile mode. Every case plays the same in every mode (digest, error, logs, result).
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.engine import Ruleset
from mode_helpers import compiled, played_in_every_mode

RULES = '''game "Slots" { players 2..2
  step_limit 2000 }
counter per player pts 0..1000 = 0
counter per player bonus 0..1000 = 1
flag per player out
counter leader: player
counter total 0..100000
round {
  step s "S" {
    for p in players {
      choose k from range(3) by p {
        p.pts += k + p.bonus
        if k == 2 { p.out = true }
      }
    }
    total += sum(q.pts + q.bonus for q in players where not q.out)
    leader = [q for q in players where q.pts >= 2][0]
    log "{} leads with {}", leader, leader.pts
    FAIL
    if round >= 5 { end game }
  }
}
score(p) = p.pts
'''


def _rules(write_ruleset: Callable[..., str], fail: str, mode: dict[str, bool]) -> Ruleset:
    return compiled(write_ruleset(RULES.replace("FAIL", fail)), mode)


def _source(write_ruleset: Callable[..., str], fail: str) -> str:
    gen = _rules(write_ruleset, fail, {}).compiled.gen
    assert gen is not None
    return str(gen.sources.dump())


def test_seat_slots_come_from_tables_and_play_alike(write_ruleset: Callable[..., str]) -> None:
    """The seats' loops and the tested `leader` read their slots from tables; the games are the same in every
    mode, including the ones where no player has 2 points (the empty list's error)."""
    text = _source(write_ruleset, "")
    assert "_Ks" in text
    gen = _rules(write_ruleset, "", {}).compiled.gen
    assert gen is not None
    tables = {k: v for k, v in gen.ns.items() if k.startswith("_Ks") and isinstance(v, tuple)}
    assert tables and all(len(v) == 2 and v[1] - v[0] > 1 for v in tables.values())  # max_players, a stride
    for seed in range(3):
        seen = played_in_every_mode(lambda mode: _rules(write_ruleset, "", mode), seed)
        assert all(x == seen[0] for x in seen), seed


def test_a_none_player_fails_alike(write_ruleset: Callable[..., str]) -> None:
    """`none`'s counter: through a tested value ("no player", the table read after the test) and through a plain
    `let` (no test: Python's own error, the arithmetic kept), the same error in every mode."""
    for fail in ("leader = none\n    total += leader.pts", "let x = leader\n    leader = none\n    let y = leader\n"
                 "    total += x.pts + y.pts"):
        errors = set()
        for seed in range(3):
            seen = played_in_every_mode(lambda mode, fail=fail: _rules(write_ruleset, fail, mode), seed)
            assert all(x == seen[0] for x in seen), (fail, seed)
            errors.add(str(seen[0][1]))  # type: ignore[index]
        assert any("player" in e or "NoneType" in e for e in errors), errors


PROOFS = '''game "Proofs" { players 2..2
  step_limit 4000 }
card Tok { v: int }
cards "tok.yaml"
zone pool: deck hidden of Tok
zone hand: per player row owner of Tok
counter per player pts 0..1000 = 0
counter spare: player
counter total 0..100000
setup {
  shuffle pool
  for p in players { move top(pool, 3) to p.hand }
}
round {
  step s "S" {
    for p in players {
      p.pts += size(p.hand)
      for c in p.hand { total += c.v }
      choose c from p.hand by p {
        total += c.v
        log "{} shows {}", p, c
        move c to pool
      }
    }
    simultaneously p in players choose c from pool where c.v > 1 {
      p.pts += c.v
      log "{} takes {}", p, c
      move c to p.hand
    }
    for q in [spare] {
      SPARE
    }
    for p in players {
      let k = sum(c.v for c in p.hand)
      total += k + count(p for p in players where p.pts > 3)
    }
    if round >= 4 { end game }
  }
}
score(p) = p.pts
'''
TOKS = "kind: Tok\nstart: pool\ncards:\n" + "".join(f"  - {{name: t{i}, v: {i % 4}}}\n" for i in range(16))


def _proofs(write_ruleset: Callable[..., str], spare: str, mode: dict[str, bool]) -> Ruleset:
    return compiled(write_ruleset(PROOFS.replace("SPARE", spare), {"tok.yaml": TOKS}), mode)


def test_loop_items_are_proven_and_play_alike(write_ruleset: Callable[..., str]) -> None:
    """The reads of a `for`'s, a `choose`'s and a `simultaneously`'s variable over the seats or a zone are proven
    (slots.loop_items); a loop over a list that may hold `none`, and a loop whose body binds its name again in a
    comprehension, are not. Every mode plays the same games."""
    from liturgy.interpreter.codegen import slots
    rules = _proofs(write_ruleset, "total += 1", {})
    prog = rules.program
    proven = slots.loop_items(prog)
    names: dict[str, int] = {}
    from liturgy.dsl.constructs import expressions, statements
    for st in statements.walk(prog.steps[0].body):
        for top in statements.STATEMENTS[type(st)].exprs(st):
            for e in expressions.walk(top):
                if id(e) in proven and hasattr(e, "id"):
                    names[e.id] = names.get(e.id, 0) + 1
    assert names.get("p", 0) >= 5 and names.get("c", 0) >= 4, names  # the seats' loops and choices, the cards
    assert "q" not in names  # `for q in [spare]`: the list may hold `none`
    last = prog.steps[0].body[-2]  # the loop whose body counts `p for p in players`: its own name bound again
    assert isinstance(last, A.For) and not any(
        id(e) in proven for st in statements.walk(last.body) for top in statements.STATEMENTS[type(st)].exprs(st)
        for e in expressions.walk(top))
    for seed in range(2):
        seen = played_in_every_mode(lambda mode: _proofs(write_ruleset, "total += 1", mode), seed)
        assert all(x == seen[0] for x in seen), seed


CALLS = '''game "Calls" { players 2..2
  step_limit 4000 }
card Tok {
  v: int
  on_play: effect(p: player) = none
}
cards "tok.yaml"
zone pool: deck hidden of Tok
zone hand: per player row owner of Tok
counter per player pts 0..1000 = 0
counter per player bonus 0..10 = 0
counter spare: player
counter total 0..100000
fn twice(q: player) -> int = q.pts + q.pts
proc score_up(p: player, n: int) { p.pts += n }
proc maybe(p: player) {
  if p == spare { total += 1 }
}
proc rebinds(p: player) {
  p = spare
  total += 1
}
proc deep(p: player, k: int) {
  p.pts += 1
  if k > 0 { do deep(p, k - 1) }
}
setup {
  shuffle pool
  for p in players { move top(pool, 3) to p.hand }
}
round {
  step s "S" {
    for p in players {
      do score_up(p, 1)
      total += twice(p)
      do deep(p, 2)
      do rebinds(p)
      choose c from p.hand by p {
        do c.on_play(p)
        move c to pool
      }
    }
    do maybe(spare)
    if round >= 4 { end game }
  }
}
score(p) = p.pts
'''
CALL_TOKS = "kind: Tok\nstart: pool\ncards:\n" + "".join(
    f'  - {{name: t{i}, v: {i % 4}, on_play: "do score_up(p, self.v)"}}\n' for i in range(16))


def test_parameters_every_call_passes_a_seat_are_proven(write_ruleset: Callable[..., str]) -> None:
    """A proc's (or an effect's) parameter whose every `do` passes a proven read, a card's `self` or a proven
    parameter (a recursive call) is proven in the body; one called with a counter that may be `none`, or that
    its body assigns, is not (slots._params). Every mode plays the same games."""
    from liturgy.dsl.constructs import expressions, statements
    from liturgy.interpreter.codegen import slots
    path = write_ruleset(CALLS, {"tok.yaml": CALL_TOKS})
    prog = compiled(path, {}).program
    proven = slots.loop_items(prog)

    def reads(proc: str) -> list[bool]:
        return [id(e) in proven for st in statements.walk(prog.procs[proc].body)
                for top in statements.STATEMENTS[type(st)].exprs(st) for e in expressions.walk(top)
                if isinstance(e, A.Name) and e.id == "p"]
    assert reads("score_up") == [True] and all(reads("deep")) and reads("deep")
    assert reads("maybe") and reads("rebinds") and not any(reads("maybe") + reads("rebinds"))
    gen = compiled(path, {}).compiled.gen
    assert gen is not None  # `twice(p)`, inlined: its parameter's slots from a table (its argument is proven)
    assert re.search(r"_Ks[0-9]+\[\(", gen.sources.dump())
    for seed in range(2):
        seen = played_in_every_mode(lambda mode: compiled(path, mode), seed)
        assert all(x == seen[0] for x in seen), seed


FIRST = '''game "First" { players 2..2
  step_limit 2000 }
counter per player pts 0..1000 = 0
flag per player out
counter spare: player
counter total 0..100000
proc hurt(p: player, n: int) { p.pts += n }
round {
  step s "S" {
    total += first.pts
    choose k from range(3) by first {
      first.pts += k
      do hurt(first, k)
      if k == 2 and round > 2 { first.out = true }
    }
    if round == 2 {
      first = random(players)
    } else {
      first = [q for q in players_from(next_player(first)) where not q.out][0]
    }
    MORE
    if round >= 8 { end game }
  }
}
score(p) = p.pts
'''


def test_first_is_proven_from_every_assignment(write_ruleset: Callable[..., str]) -> None:
    """`first` starts as seat 0, and every `first = …` here gives a seat or fails (a `random` draw from the seats,
    a filter of the seats indexed, `next_player`): its reads are proven, its slots read from a table, and a proc
    every call passes `first` has its parameter proven (slots.first_is_seat). One assignment that may give `none`
    (a typed counter, empty) and nothing about `first` is proven: the game fails with "no player" as the closures
    do. Every mode plays the same games."""
    from liturgy.dsl.constructs import expressions, statements
    from liturgy.interpreter.codegen import slots
    for more, seat in (("total += 1", True), ("if round == 4 { first = spare }", False)):
        path = write_ruleset(FIRST.replace("MORE", more))
        rules = compiled(path, {})
        prog = rules.program
        assert slots.first_is_seat(prog) is seat, more
        proven = slots.loop_items(prog)
        hurt = [id(e) in proven for st in statements.walk(prog.procs["hurt"].body)
                for top in statements.STATEMENTS[type(st)].exprs(st) for e in expressions.walk(top)
                if isinstance(e, A.Name) and e.id == "p"]
        assert hurt == [seat], more
        rules.new_game(2, 0).random_playout(random.Random(0))  # the steps' functions are written as they first run
        assert rules.compiled.gen is not None
        text = rules.compiled.gen.sources.dump()
        assert bool(re.search(r"_Ks[0-9]+\[(_cs|s\.counters)\[0\]\]", text)) is seat, more
        errors = set()
        for seed in range(2):
            seen = played_in_every_mode(lambda mode, path=path: compiled(path, mode), seed)
            assert all(x == seen[0] for x in seen), (more, seed)
            errors.add(str(seen[0][1]))  # type: ignore[index]
        assert seat or any("no player" in e for e in errors), errors


TESTED = '''game "Tested" { players 2..2
  step_limit 2000 }
card Tok { v: int }
cards "tok.yaml"
zone pool: deck hidden of Tok
zone hand: per player row owner of Tok
counter total 0..100000
round {
  step s "S" {
    for p in players {
      let m = top(pool)
      if round % 2 == 0 { total += m.v + 2 }
      let k = m.v + 1
      total += k + m.v * 3
      move m to p.hand
    }
    if round >= 12 { end game }
  }
}
score(p) = size(p.hand)
'''


def test_a_card_tested_by_a_let_is_not_tested_again(write_ruleset: Callable[..., str]) -> None:
    """`let k = m.v + 1` reads `m`'s field on every path through it, so `m` is not `none` after it (slots.tested):
    `total += … m.v * 3` and the `move` read `m` with no test. The read behind the `if` before it keeps its own,
    and so does every read on the loop's next turn (`m` is bound again). An `if`'s first test proves it for both
    branches and after. The pool runs out in round 9: the first read fails with the closures' "`.v` of no card" in
    every mode."""
    branches = "if m.v > 1 { total += m.v } else { total += 2 * m.v }\n      total += m.v\n      move m to p.hand"
    iffy = TESTED.replace("if round % 2 == 0 { total += m.v + 2 }", "").replace(
        "let k = m.v + 1\n      total += k + m.v * 3\n      move m to p.hand", branches)
    for text, tests in ((TESTED, 2), (iffy, 1)):
        path = write_ruleset(text, {"tok.yaml": TOKS})
        rules = compiled(path, {})
        rules.new_game(2, 0).random_playout(random.Random(0))
        assert rules.compiled.gen is not None
        step = rules.compiled.gen.sources.dump().split("\n\n#")[0]  # the step's statement (a fused copy follows)
        assert step.count("_no_card('`.v` of no card')") == tests and "nothing to move" not in step, step
        for seed in range(2):
            seen = played_in_every_mode(lambda mode, path=path: compiled(path, mode), seed)
            assert all(x == seen[0] for x in seen), seed
            assert "`.v` of no card" in str(seen[0][1])  # type: ignore[index]


REBOUND = '''game "Rebound" { players 2..2
  step_limit 2000 }
card Tok {
  v: int
  nxt: card Tok = none
}
cards "tok.yaml"
zone pool: deck hidden of Tok
counter total 0..100000
round {
  step s "S" {
    let m = top(pool)
    m = m.nxt
    total += m.v
    if round >= 3 { end game }
  }
}
score(p) = total
'''


def test_a_card_tested_then_assigned_is_tested_again(write_ruleset: Callable[..., str]) -> None:
    """`m = m.nxt` tests the old `m`, not the `none` it assigns: `total += m.v` keeps its test and fails alike in
    every mode (a mutant that forgets the written name fails with Python's own error in some modes)."""
    path = write_ruleset(REBOUND, {"tok.yaml": TOKS})
    seen = played_in_every_mode(lambda mode: compiled(path, mode), 0)
    assert all(x == seen[0] for x in seen) and "`.v` of no card" in str(seen[0][1])  # type: ignore[index]
