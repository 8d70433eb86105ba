"""Calls the generated code no longer makes. A card `function` field whose body is, for most cards, a literal or one
of its arguments is written at the call site behind a per-card test (interpreter/codegen/fieldcalls.py): such cards
make no Python call, the others call their body as before. A comprehension that copies a zone is the zone's tuple
(codegen/copies.py), and a `move` of a comprehension writes its loop in the statement (codegen/movegen.py). Every
compile mode plays the same games and stops with the same errors."""
from __future__ import annotations

import re
from collections.abc import Callable

from mode_helpers import compiled_once, errors_in_every_mode

RULES = '''game "Field calls" { players 2..3
  step_limit 4000 }
card Tok { v: int
  ward: function(p: player, d: int) -> int = 0
  pass_on: function(d: int, p: player) -> int = d
  fine: function() -> bool = true
  deep: function(n: int) -> int = 0 }
card Gem { ward: function(p: player, d: int) -> int = 1 }
cards "tok.yaml"
cards "gem.yaml"
zone bag: pile public of Tok
zone gems: set public of Gem
zone hand: per player pile public of Tok
counter per player hp 0..40 = 30
counter total 0..100000
round {
  step s "S" {
    for p in players {
      if size(bag) > 0 { move top(bag) to p.hand }
      choose k from range(4) by p {
        let loss = k + sum(c.ward(p, k) for c in p.hand)
        loss = top(p.hand).pass_on(loss, p)
        loss = loss - sum(c.ward(p, k * 2) for c in p.hand) + sum(g.ward(p, k) for g in gems)
        total += sum(c.pass_on(10 / (k + p.hp - 27), p) for c in p.hand where c.v < 3)
        total += count(c for c in p.hand where c.fine()) + sum(c.deep(2) for c in p.hand)
        p.hp -= loss
        log "{} loses {}", p, loss
      }
    }
    if round >= 5 { end game }
  }
}
score(p) = p.hp + total
'''

TOK = '''\
kind: Tok
start: bag
cards:
  - name: Red
    count: 3
    v: 2
    ward: "d + 1"
    fine: "self.v > 1"
  - name: Blue
    count: 6
    v: 1
  - name: Green
    count: 3
    v: 3
    pass_on: "d * 2 + self.v"
    fine: "false"
    deep: "if n > 0 then self.deep(n - 1) + 1 else 0"
'''

GEM = '''\
kind: Gem
start: gems
cards:
  - name: Ruby
  - name: Opal
    ward: "d / 2"
'''


def test_a_field_call_writes_the_literal_or_argument_most_cards_answer(write_ruleset: Callable[..., str]) -> None:
    """`ward` (0 for most Toks, 1 for one Gem), `pass_on` (its argument `d` but for Green, on `top(p.hand)`, which
    may be no card), `fine` (true for Blue) are tested per card: those cards make no call; `ward(p, k * 2)` (an
    argument to evaluate) and `deep` (which calls itself: each call charges work) call every card as before; the
    argument `pass_on` returns is evaluated in both branches (`10 / k`: some games stop dividing by zero)."""
    path = write_ruleset(RULES, {"tok.yaml": TOK, "gem.yaml": GEM})
    rules = compiled_once(path)
    gen = rules({}).compiled.gen
    assert gen is not None
    text = gen.sources.dump()
    # ward's 0 (most Toks; the Gems' site too: Ruby's 1 is called), fine's true, pass_on's argument `loss`
    assert len(re.findall(r"_r \+= \(0 if _k\d+\[_k\d+\[_x\d+\]\] else _k\d+\[", text)) == 2, text
    assert re.search(r"if \(True if _k\d+\[_k\d+\[_x\d+\]\] else _k\d+\[_k\d+\[_x\d+\]\]\(s, _x\d+\)\):", text), text
    assert re.search(r"= \(\(\(_E\d+\) if _k\d+\[_k\d+\[(_t\d+)\]\] else _k\d+\[_k\d+\[\1\]\]\(s, _E\d+, _E\d+, \1\)\) "
                     r"if \(\1 := ", text), text
    # the argument `pass_on` returns is evaluated in either branch, where the call evaluated it
    assert re.search(r"_r \+= \(\(\(\(10 // _t\d+\) if .* if _k\d+\[_k\d+\[_x\d+\]\] else _k\d+\[_k\d+\[_x\d+\]\]\(s, "
                     r"\(\(10 // ", text), text
    # `ward(p, k * 2)` has an argument to evaluate, `deep` calls itself: both are called for every card
    assert re.search(r"_r \+= _k\d+\[_k\d+\[_x\d+\]\]\(s, _E\d+, \(_E\d+ \* 2\), _x\d+\)\n", text), text
    assert re.search(r"_r \+= _k\d+\[_k\d+\[_x\d+\]\]\(s, 2, _x\d+\)\n", text), text
    errors = errors_in_every_mode(rules, 8)
    assert None in errors and any(e is not None and "zero" in e for e in errors), errors


COPIES = '''game "Copies" { players 2..3
  step_limit 4000 }
card Tok { v: int }
cards "tok.yaml"
zone bag: pile public of Tok
zone pool: pile public of Tok
zone hand: per player pile public of Tok
counter per player hp 0..40 = 30
counter total 0..100000
round {
  step s "S" {
    for p in players {
      if size(bag) > 0 { move top(bag) to p.hand }
      choose c from [x for x in p.hand] + [x for x in pool] + [x for x in p.hand where x.v > 1] by p {
        move c to pool
        total += size([x for x in p.hand]) + c.v
        if total > 12 { move [x for x in pool] to bag }
        if total > 20 { move [x for x in p.hand where x.v > 1] to pool }
      }
    }
    if round >= 6 { end game }
  }
}
score(p) = p.hp + total
'''


def test_a_comprehension_that_copies_a_zone_is_written_in_place(write_ruleset: Callable[..., str]) -> None:
    """`[x for x in p.hand]`, `[x for x in pool]` in a choice's options, a `size` and a `move` are the zone's
    tuple where they are used (codegen/copies.py), with no loop function; the filtered one keeps its function in an
    expression, and a `move` of it writes its loop in the statement (movegen); every compile mode plays the same
    games."""
    path = write_ruleset(COPIES, {"tok.yaml": "kind: Tok\nstart: bag\ncards:\n  - name: A\n    count: 5\n    v: 1\n"
                                              "  - name: B\n    count: 5\n    v: 2\n"})
    rules = compiled_once(path)
    gen = rules({}).compiled.gen
    assert gen is not None
    text = gen.sources.dump()
    assert re.search(r"tuple\(tuple\(s\.zones\[\(?\d+ \+ ", text) and "tuple(tuple(s.zones[1]))" in text, text
    # a `move` of a filtered comprehension: its loop written in the statement (inline_aggregates statement_loop)
    assert re.search(r"_out(\d+)\.append\(_x\d+\)\n +_move_all\(s, tuple\(tuple\(_out\1\)\), ", text), text
    loops = [b for b in text.split("\n\n") if "<liturgy loop" in b]
    assert loops and all("_out.append(" in b for b in loops), loops  # only the filtered comprehension's
    errors_in_every_mode(rules, 6)  # every mode plays each seed alike
