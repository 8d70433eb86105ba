"""A `simultaneously` over a filter of the seats (interpreter/codegen/seatgate.py): the filter is a gate at the top
of the choice's collecting loop, not a list built first, where the filter can neither fail nor count work; one
that can (a division) keeps the list. A step-machine `for` over one builds it in its start and in the fused
functions that start it, not by a call of a loop function. Every compile mode plays the same games (digest,
error, logs, result), including a body that changes what the filters read (`busy`, `out`, the hands) and
choices left with no option."""
from __future__ import annotations

import re
from collections.abc import Callable

from liturgy.interpreter.codegen import seatgate
from mode_helpers import compiled_once, errors_in_every_mode
from test_scans import HEAD, TOKS

# test_scans' declarations (a deck of Tok cards, a hand per player, ``got``), for up to three players
RULES = HEAD.replace('"Scans" { players 2..2', '"Gates" { players 2..3') + '''flag per player out
flag per player busy
counter per player rank 0..3
fn alive() -> list of player = [p for p in players_from(first) where not p.out]
fn ready() -> list of player = [p for p in alive() where not p.busy]
setup {
  shuffle pool
  for p in players { move top(pool, 3) to p.hand }
}
round {
  step s "S" {
    simultaneously p in ready() choose k from [0, 1, 2, 3] where k != 3 or got % 2 == 0 {
      p.busy = k == 2
      p.out = k == 1 and round > 3
      got += k
    }
    simultaneously p in [q for q in alive() where any(c.v == got % 5 for c in q.hand)] choose c from p.hand {
      move c to pool
      move top(pool) to p.hand
      got += c.v
    }
    simultaneously p in [q for q in players where 12 / (q.rank + 1 - got % 23) > 2] choose k from [0, 1] {
      p.rank = k
    }
    if round >= 5 {
      simultaneously p in alive() choose c from p.hand where c.v > round - 2 { got += 1 }
    }
    for p in ready() {
      choose k from [0, 1, 2] by p {
        p.busy = k == 2
        got += k
      }
    }
    for p in [q for q in alive() where 12 / (q.rank + 2 - got % 29) > 2] { choose k from [0, 1] by p { got += k } }
    for p in players { p.busy = false }
    if round >= 8 { end game }
  }
}
score(p) = got
'''


def test_a_simultaneous_choice_gates_its_seats_and_plays_alike(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(RULES, {"tok.yaml": TOKS})
    rules = compiled_once(path)

    gen = rules({}).compiled.gen
    assert gen is not None
    collects = [b for b in gen.sources.dump().split("\n\n") if "<liturgy choice" in b and "per = []" in b]
    assert len(collects) == 4
    gated = [b for b in collects if re.search(r"for p in (s\.tables\.turn_orders|_it\d+)", b) and "continue" in b]
    assert len(gated) == 3 and not any("for p in _out" in b for b in gated)
    assert sum("for p in _out" in b for b in collects) == 1  # the division can fail: its list is built first
    # a step-machine `for` (its body chooses) over a filter of the seats: the list's loop in its start, no call
    starts = [b for b in gen.sources.dump().split("\n\n") if re.search(r"env\['#\d+'\] = \(tuple\(", b)]
    assert len(starts) == 2 and all("(tuple(_out" in b and not re.search(r"_k\d+\(s, env\)", b) for b in starts)
    errors = errors_in_every_mode(rules, 6)
    assert None in errors and any(e is not None and "no legal option" in e for e in errors), errors


def test_a_filter_that_writes_calls_or_counts_is_no_gate() -> None:
    head = ["_out3 = []", "for _x2 in s.tables.turn_orders[s.counters[0]]:"]
    keep = ["    if (not s.counters[_Ks5[_x2]]):", "        _out3.append(_x2)"]
    assert seatgate.gate([*head, *keep], "_out3", "p") == (
        [], "s.tables.turn_orders[s.counters[0]]", ["    if not ((not s.counters[_Ks5[p]])):", "        continue"])
    for bad in ["    s.counters[_Ks5[_x2]] = 1", "    _k9(s, _x2)", "    s.work += 1", "    env['q'] = _x2",
                "    _t4 = _fail('x')", "    s.counters[1] += 1", "    _t4 = (s.counters[1] // s.counters[_Ks5[_x2]])",
                "    _t4 = (s.counters[1] % _t4)"]:
        assert seatgate.gate([*head, bad, *keep], "_out3", "p") is None, bad
    assert seatgate.gate([*head, *keep, "_y = _out3"], "_out3", "p") is None  # the list used again
    assert seatgate.gate([*head, "    _t4 = ((s.counters[1] % 5) // 2)", *keep], "_out3", "p") is not None
