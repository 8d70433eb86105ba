"""Generated functions that read rule variables from Python locals play exactly like the closures.

Statement functions keep a Python local per variable in step with ``env`` (``Locals`` in
``interpreter/stmtgen.py``), and expression and aggregate functions load what they read once
(``Hoist`` in ``interpreter/codegen.py``). These rulesets write variables in loops, read them
on the next turn before writing them again, shadow them in nested blocks, call effects bound by the
card's kind (left to the closure compiler, so the locals are read from ``env`` again), call procs and
handlers by position (``StmtGen.block_positional``; a parameter written in a loop), nest blocks
deeper than generation writes inline, and pass locals to inlined functions with aggregates. Card
`function` fields are called with positional arguments (``ExprGen.positional``): bodies shared by
default, recursive ones, and ones that need an environment dict (an aggregate over a parameter).
The three ways to compile must agree on every digest, log line and error.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset
from test_codegen import _three_ways, played_alike

ENV_LOCALS = '''\
game "Env locals" { players 2..3
  step_limit 100000 }
card Tok { v: int
  zap: effect(p: player) = none
  gain: function(p: player, k: int) -> int = k
  depth: function(n: int) -> int = n }
card Gem { zap: effect(q: player, n: int) = none
  gain: function(p: player, k: int) -> int = 0 }
cards "tok.yaml"
cards "gem.yaml"
zone bag: deck hidden of Tok
zone gems: set public of Gem
zone row: row public of Tok
zone hand: per player set owner of Tok
counter per player score 0..99
counter per card heat -2..9
counter total
pool chips { bank: 30
  per player purse }
fn heavy(c: Tok, p: player) -> bool = c.v + count(d for d in p.hand where d.v >= c.v) > 2
fn gain_of(c: Tok, p: player) -> int = c.gain(p, c.v) + sum(d.heat for d in p.hand where d != c)
window poked(p: player, k: int)
on poked(q: player, k: int) { if k > 0 { q.score += k % 3 } }
proc countdown(p: player, n: int) {
  repeat while n > 0 {
    if n % 2 == 0 { p.score += 1 }
    fire poked(p, n)
    n -= 1
  }
  total += n + count(c for c in p.hand where c.v > n)
}
proc tally(p: player, n: int) {
  let acc = 0
  let best = top(p.hand)
  for c in p.hand {
    if acc > n { c.heat += 1 }
    acc += c.v
    if best == none or c.v > best.v { best = c }
    let acc2 = acc + gain_of(c, p)
    if heavy(c, p) { p.score += 1 }
    else { p.score += acc2 % 2 }
  }
  if best != none { best.heat += acc % 3 }
  let k = 0
  repeat while k < n {
    k += 1
    if k == 2 { let k2 = k * 2
                total += k2 }
  }
  transfer k from bank to p.purse as got
  p.score += got
  do countdown(p, got)
}
setup {
  shuffle bag
  for p in players { repeat while size(p.hand) < 3 { move top(bag) to p.hand } }
}
round {
  step play "Play" {
    for p in players {
      do tally(p, round % 4)
      do countdown(p, size(p.hand))
      fire poked(p, round)
      let n = size(p.hand)
      for g in gems { do g.zap(p, n)
                      n += 1 }
      p.score += n % 5
      total += sum(c.depth(round % 4) for c in p.hand) % 7
      total += count(c for c in row where c.v > 1 and any(d.heat > 0 for d in bag)) % 3
      if size(p.hand) > 0 {
        let c = top(p.hand)
        do c.zap(p)
        move c to row
        c.heat += n % 3
      }
      if size(bag) > 0 { move top(bag) to p.hand }
      choose c from p.hand where heavy(c, p) or c.gain(p, 1) > 1 or any(d.v == 3 for d in p.hand)
          by p optional { move c to bag bottom
        let deep = c.v
        if deep > 0 { if deep > -1 { if deep > -2 { if deep > -3 { if deep > -4 { if deep > -5 { if deep > -6 {
        if deep > -7 { if deep > -8 { if deep > -9 { if deep > -10 { if deep > -11 { if deep > -12 { if deep > -13 {
          total += deep } } } } } } } } } } } } } }
        p.score += deep % 3 }
    }
    if round >= 6 { end game }
  }
}
score(p) = p.score + p.purse
'''

TOK = '''\
kind: Tok
start: bag
cards:
  - name: Red
    count: 4
    v: 2
    zap: "p.score += 1\\nfor d in p.hand { if d != self { self.heat += 1 } }"
    gain: "k + self.heat"
  - name: Blue
    count: 10
    v: 1
  - name: Green
    count: 3
    v: 3
    zap: "let t = self.v\\nrepeat while t > 0 { t -= 1\\n p.score += 1 }"
    gain: "k + count(d for d in p.hand where d.v > k) + self.heat"
    depth: "if n > 0 then n + self.depth(n - 1) else self.v"
'''

GEM = '''\
kind: Gem
start: gems
cards:
  - name: Ruby
    zap: "q.score += n % 2"
  - name: Opal
    zap: "total += n"
'''

LOOP_VAR_REBOUND = '''\
game "G" { players 2..2
 step_limit 1000000 }
card C { v: int = 1
 go: effect = none }
cards "c.yaml"
zone a: pile public of C
zone b: pile public of C
counter n
round { step s "S" { move a to b
  for c in b { n += c.v
               c = top(a)
               n += c.v }
  end game } }
score(p) = n
'''


def _four_ways(path: str) -> list[Ruleset]:
    """test_codegen's three ways (generated statements, generated expressions only, closures only); then
    generated statements without direct calls (``inline_fns=False``: every call through the objects the rule
    profiler wraps)."""
    program, _ = check_file(path)
    assert program is not None
    return [*_three_ways(path), Ruleset(program, inline_fns=False)]


def _local_reads(rules: Ruleset) -> int:
    """Generated step-machine instructions that hold a rule variable in a Python local."""
    return sum(1 for code in rules.codes for ins in code.ins
               if hasattr(ins, "__code__") and any(n.startswith("_E") for n in ins.__code__.co_varnames))


@pytest.mark.parametrize("players", [2, 3])
def test_variables_in_python_locals_play_like_closures(players: int, write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(ENV_LOCALS, {"tok.yaml": TOK, "gem.yaml": GEM})
    variants = _four_ways(path)
    assert _local_reads(variants[0]) > 0 and _local_reads(variants[2]) == 0
    gen = variants[0].compiled.gen
    assert gen is not None and {"gain", "depth"} <= gen.pos_tables.keys()
    procs = variants[0].compiled.procs
    assert procs["countdown"].fast is not None and procs["tally"].fast is not None
    assert any(eff is not None and eff.fast is not None for eff in variants[0].compiled.effects["zap"])
    for seed in range(20):
        assert played_alike(variants, players, seed)[1] is None


def test_a_loop_variable_rebound_to_none_is_checked_again(write_ruleset: Callable[..., str]) -> None:
    """A zone's loop variable is never `none`, until the body assigns it: then `.v` fails as in the closures."""
    path = write_ruleset(LOOP_VAR_REBOUND, {"c.yaml": "kind: C\nstart: a\ncards:\n  - name: X\n"})
    seen = []
    for rules in _four_ways(path):
        game = rules.new_game(2, 1)
        seen.append((game.state.status, game.error, game.digest()))
    assert seen[0] == seen[1] == seen[2] == seen[3]
    assert seen[0][0] == "aborted" and "`.v` of no card" in str(seen[0][1])
