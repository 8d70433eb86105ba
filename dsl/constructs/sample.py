"""Samples: how the cross-mode fuzzer writes each construct, declared with the construct (issue 29).

Every statement and expression kind of the registry carries one or more :class:`Sample` templates. The fuzzer
(tests/ruleset_strategies.py) fills their holes with generated expressions and blocks and plays the result in
every compile mode, so a construct added to the registry is fuzzed without anyone editing the generator
(tests/test_registry.py checks that every kind has a sample the checker accepts).

A sample is written against :data:`WORLD`, a small ruleset whose declarations give every kind something to act
on (zones and cards, counters, a pool, a proc, a window and its handler, a mode, a graph, a grid, a second step
to skip to). Holes, filled left to right:

- ``{int}`` ``{bool}`` ``{text}``: a generated expression of that type over the enclosing scope;
  ``{int*}`` ``{bool*}`` ``{text*}``: the same, also seeing the names this sample binds (loop variables);
- ``{block}``, ``{block*}``: a generated block of statements (on its own line), likewise;
- ``{var}``: a new int name bound inside the sample (a loop's variable); ``{player}``: a new player name;
  ``{bind}``: a new int name that stays bound after the statement (`let`, `transfer … as`);
  ``{name}``: a new name the sample uses itself (a card, a counter of its own) and nothing generated reads;
- ``{local}``: an int name the enclosing scope already binds and may assign (the sample is not drawn where
  there is none); ``{p}``: the innermost player variable (likewise);
- ``{proc}``: a procedure taking one int: ``bump``, or one the fuzzer declared with a generated body.

``needs`` names where a statement sample may stand: ``loop`` (inside a loop: `break`), ``step`` (in a step,
not a `fn` body: `skip to`). An expression sample has a type (``ty``); a sample of type ``fnbody`` is the body
of a ``fn NAME(k: int) -> int`` the fuzzer declares and calls, written after the signature (`let … return` is
a `fn` body only).
"""
from __future__ import annotations

from dataclasses import dataclass

# The declarations every sample may use (the fuzzer's ruleset starts with these; its steps are `s` then `t`).
WORLD = '''game "Fuzz" { players 2..3
  step_limit 20000 }
enum Town { mill, ford, abbey }
enum Lane { road }
graph roads: Town by Lane from "roads.yaml"
grid cells 3 by 2 of int
card Tok { v: int }
cards "tok.yaml"
zone bag: deck hidden of Tok
zone row: row public of Tok
zone hand: per player set owner of Tok
counter per player sc -40..40
counter g0 -60..60
counter g1 0..30
flag f0
flag f1
pool gems {
  bank: 20
  heap: 0
}
window poked(k: int)
on poked(k: int) {
  g1 += 1
  log "poked {}", k
}
proc bump(k: int) {
  g0 = k
}
proc ask() {
  choose c from row by first optional {
    move c to bag
  }
}
mode alert {
  counter level 0..9
}
fn twice(k: int) -> int = k + k
fn pick(t: text, u: text) -> int = count(x for x in [t, "_x4", u] where x == u)
fn named(k: int) -> text = if k > 0 then "_x7" else "_E2"
'''

# The files :data:`WORLD` names, written beside the ruleset.
WORLD_FILES = {
    "tok.yaml": "kind: Tok\nstart: bag\ncards:\n  - name: One\n    count: 3\n    v: 1\n"
                "  - name: Two\n    count: 2\n    v: 2\n  - name: Five\n    count: 1\n    v: 5\n",
    "roads.yaml": "road:\n  - [mill, ford]\n",
}


@dataclass(frozen=True)
class Sample:
    """One way to write a construct, as a template over :data:`WORLD` (holes: see the module docstring)."""

    text: str
    ty: str = "stmt"  # a statement; or the type of an expression: int, bool, text; or fnbody
    needs: frozenset[str] = frozenset()  # where a statement may stand: loop, step


def stmt(text: str, *needs: str) -> Sample:
    return Sample(text, "stmt", frozenset(needs))


def expr(ty: str, text: str) -> Sample:
    return Sample(text, ty)
