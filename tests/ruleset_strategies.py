"""Hypothesis strategies that write well-typed rulesets, for the compile-mode differential fuzzer.

The generator is driven by the construct registry (issue 29): every statement kind and every expression kind
declares how it is written (``samples``, dsl/constructs/sample.py) against a small ruleset (``WORLD``), and the
generator fills those templates' holes with generated expressions and blocks. So every registered kind is
generated (tests/test_compile_modes_fuzz.py checks it), and a construct added to the registry is fuzzed
without an edit here. Every expression is generated at a known type (int, bool, text) from what is in scope,
so the checker accepts nearly every example; what varies is the shape — and the two things that broke
generated code before: string literals and variable names that look like the generator's own helper names,
and deep expressions.

``HEADER`` and ``CARDS`` are the smaller world older tests (tests/test_compile_modes_lets.py) write against.
"""
from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from hypothesis import strategies as st
from liturgy.dsl import constructs
from liturgy.dsl.constructs.sample import WORLD, WORLD_FILES, Sample

# Names the code generator gives its helpers (interpreter/codegen/*: _x loop items, _E locals, _P parameters,
# _k constants, _t/_v/_c/_b temporaries, _r/_out results), plus the generated functions' own parameters.
HELPER_LIKE = ["_x4", "_x7", "_E2", "_E5", "_P0", "_P1", "_Pself", "_k3", "_t1", "_v2", "_c1", "_b1", "_r", "_out",
               "env", "s", "fr"]
TEXTS = [*HELPER_LIKE, "", "a b", "it's", 'say "hi"', "x\\ny", "{}", "{x}", "None", "True"]
LOCALS = ["_x4", "_E2", "_P0", "v", "env_", "_k3"]

HEADER = '''game "Fuzz" { players 2..3
  step_limit 20000 }
card Tok { v: int }
cards "tok.yaml"
zone bag: deck hidden of Tok
zone row: row public of Tok
zone hand: per player set owner of Tok
counter per player sc -40..40
counter g0 -60..60
counter g1 0..30
flag f0
fn twice(k: int) -> int = k + k
fn pick(t: text, u: text) -> int = count(x for x in [t, "_x4", u] where x == u)
fn named(k: int) -> text = if k > 0 then "_x7" else "_E2"
'''

CARDS = '''kind: Tok
start: bag
cards:
  - name: One
    count: 3
    v: 1
  - name: Two
    count: 2
    v: 2
  - name: Five
    count: 1
    v: 5
'''


def _lit_text(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Chooser(Protocol):
    """Where the generator's choices come from: Hypothesis's ``draw`` (shrinkable) or a seeded ``Random``."""

    def integer(self, lo: int, hi: int) -> int: ...


@dataclass
class _Draws:
    draw: st.DrawFn

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))


@dataclass
class _Rolls:
    rnd: random.Random

    def integer(self, lo: int, hi: int) -> int:
        return self.rnd.randint(lo, hi)


@dataclass
class Scope:
    """What generated code may read where it stands: int locals, the innermost player variable, and whether
    it stands in a loop (`break`) and in a step's own body (`skip to`)."""

    ints: list[str] = field(default_factory=list)
    player: str | None = None
    loop: bool = False
    step: bool = True

    def inner(self, ints: list[str], player: str | None, loop: bool, step: bool) -> Scope:
        return Scope([*self.ints, *ints], player or self.player, self.loop or loop, self.step and step)


HOLE = re.compile(r"\{(int|bool|text|block|var|player|bind|name|local|p|proc)(\*?)\}")
_EXPR_TYPES = ("int", "bool", "text")


def _kinds(table: Mapping[type, constructs.StmtConstruct | constructs.ExprConstruct]) -> dict[type, tuple[Sample, ...]]:
    return {node: c.samples for node, c in table.items()}


def _eligible(sample: Sample, scope: Scope, depth: int) -> bool:
    holes = {h for h, _ in HOLE.findall(sample.text)}
    if "local" in holes and not scope.ints or "p" in holes and scope.player is None:
        return False
    if "block" in holes and depth <= 0:
        return False
    return sample.needs <= {n for n, ok in (("loop", scope.loop), ("step", scope.step)) if ok}


class Writer:
    """Writes one ruleset from the registry's samples; ``kinds_used`` records which kind each sample came from."""

    def __init__(self, choose: Chooser, depth: int = 2, width: int = 4) -> None:
        self.c = choose
        self.depth, self.width = depth, width  # nesting of blocks, statements per block (at most)
        self.fresh_count = 0
        self.used: set[str] = set()
        self.ints_used: set[str] = set()  # of those, the names of ints (a player's or a card's is never reused)
        self.fns: list[str] = []  # generated `fn NAME(k: int) -> int` (their bodies are fnbody samples)
        self.procs: list[str] = []  # generated `proc NAME(k: int)` whose bodies are generated blocks
        self.kinds_used: set[type] = set()

    def pick(self, items: list[str]) -> str:
        return items[self.c.integer(0, len(items) - 1)]

    def fresh(self, int_name: bool = False) -> str:
        """A new name; an int one is sometimes a name used before (a `let` again, or one that shadows a name
        in scope: the language allows both, and generated code must keep them apart)."""
        if int_name and self.ints_used and self.c.integer(0, 3) == 0:
            return self.pick(sorted(self.ints_used))
        free = [n for n in LOCALS if n not in self.used]
        if free and self.c.integer(0, 2) == 0:
            name = self.pick(free)
        else:
            self.fresh_count += 1
            name = f"v{self.fresh_count}"
        self.used.add(name)
        if int_name:
            self.ints_used.add(name)
        return name

    # ------------------------------------------------------------ expressions
    def leaf(self, ty: str, scope: Scope) -> str:
        if ty == "int":
            leaves = ["g0", "g1", "size(row)", "size(bag)", "round", *scope.ints, *(f"{f}(g1)" for f in self.fns)]
            if scope.player:
                leaves.append(f"{scope.player}.sc")
            return str(self.c.integer(-5, 9)) if self.c.integer(0, 1) == 0 else self.pick(leaves)
        if ty == "bool":
            return self.pick(["true", "false", "f0", "(g0 > 0)"])
        numbered = f"{self.pick(['_x', '_x', '_E', '_k', '_P'])}{self.c.integer(0, 30)}"
        return _lit_text(numbered if self.c.integer(0, 1) == 0 else self.pick(TEXTS))

    def expr(self, ty: str, scope: Scope, depth: int = 3) -> str:
        if depth <= 0 or self.c.integer(0, 3) == 0:
            return self.leaf(ty, scope)
        return self.construct(constructs.EXPRESSIONS, ty, scope, depth - 1) or self.leaf(ty, scope)

    def construct(self, table: Mapping[type, constructs.StmtConstruct | constructs.ExprConstruct], ty: str,
                  scope: Scope, depth: int) -> str | None:
        """A sample of type ``ty`` filled in: the kind drawn first (each kind alike), then one of its samples."""
        options = {node: [s for s in samples if s.ty == ty and _eligible(s, scope, depth)]
                   for node, samples in _kinds(table).items()}
        kinds = [node for node, samples in options.items() if samples]
        if not kinds:
            return None
        node = kinds[self.c.integer(0, len(kinds) - 1)]
        samples = options[node]
        self.kinds_used.add(node)
        return self.fill(samples[self.c.integer(0, len(samples) - 1)], scope, depth, table is constructs.STATEMENTS)

    def fill(self, sample: Sample, scope: Scope, depth: int, is_stmt: bool, after: Scope | None = None) -> str:
        """The sample's text with every hole filled; names it binds for good are added to ``after``."""
        names: dict[str, str] = {}
        bound: list[str] = []
        player: str | None = None
        loop = is_stmt and any(c.loop and sample in c.samples for c in constructs.STATEMENTS.values())
        for hole, _ in HOLE.findall(sample.text):  # the names first: a starred hole sees them wherever it stands
            if hole in ("var", "player", "bind", "name") and hole not in names:
                names[hole] = self.fresh(hole in ("var", "bind"))
                if hole == "var":
                    bound.append(names[hole])
                elif hole == "player":
                    player = names[hole]

        def one(m: re.Match[str]) -> str:
            hole, star = m.group(1), m.group(2) == "*"
            if hole in names:
                return names[hole]
            if hole == "local":
                return self.pick(scope.ints)
            if hole == "p":
                return scope.player or "first"
            if hole == "proc":  # a generated procedure (none inside one: no recursion), else the world's
                return self.pick(["bump", *self.procs * 3]) if scope.step else "bump"
            inner = scope.inner(bound if star else [], player if star else None, loop, True)
            if hole == "block":
                return "\n".join(self.block(inner, depth - 1))
            return self.expr(hole, inner, depth)

        text = HOLE.sub(one, sample.text)
        if after is not None and "bind" in names:
            after.ints.append(names["bind"])
        return text

    # ------------------------------------------------------------ statements
    def statement(self, scope: Scope, depth: int = 2) -> list[str]:
        options = {node: [s for s in c.samples if s.ty == "stmt" and _eligible(s, scope, depth)]
                   for node, c in constructs.STATEMENTS.items()}
        kinds = [node for node, samples in options.items() if samples]
        node = kinds[self.c.integer(0, len(kinds) - 1)]
        self.kinds_used.add(node)
        samples = options[node]
        text = self.fill(samples[self.c.integer(0, len(samples) - 1)], scope, depth, True, after=scope)
        return text.split("\n")

    def block(self, scope: Scope, depth: int = 2) -> list[str]:
        lines: list[str] = []
        inner = Scope(list(scope.ints), scope.player, scope.loop, scope.step)
        for _ in range(self.c.integer(1, self.width)):
            lines += self.statement(inner, depth)
        return lines

    def fnbodies(self) -> list[str]:
        """`fn` declarations whose bodies are the registry's fnbody samples (`let … return`)."""
        decls = []
        for i in range(self.c.integer(0, 2)):
            fnbody = [s for c in constructs.EXPRESSIONS.values() for s in c.samples if s.ty == "fnbody"]
            sample = fnbody[self.c.integer(0, len(fnbody) - 1)]
            self.kinds_used |= {n for n, c in constructs.EXPRESSIONS.items() if sample in c.samples}
            decls.append(f"fn fb{i}(k: int) -> int {self.fill(sample, Scope(['k'], None, False, False), 2, False)}")
            self.fns.append(f"fb{i}")
        return decls

    def procedures(self) -> list[str]:
        """A `proc` declaration with a generated body (`k` in scope; no `skip to`, no call of a generated proc),
        or none, so the samples run in a called frame too, and suspend there when a choice is drawn."""
        if self.c.integer(0, 1) == 0:
            return []
        body = self.block(Scope(["k"], None, False, False), 1)
        self.procs.append("gp0")
        return ["proc gp0(k: int) {", *body, "}"]

    def ruleset(self) -> str:
        """A whole ruleset over :data:`WORLD` (its files: :data:`WORLD_FILES`)."""
        decls = self.fnbodies()
        decls += self.procedures()
        body = self.block(Scope(), self.depth)
        if self.procs:  # called at least once
            body.insert(self.c.integer(0, len(body)), f"do gp0({self.expr('int', Scope(), 1)})")
        if self.c.integer(0, 4) == 0:  # a long chain: at most the checker's limit runs, past it is a located E003
            n = self.c.integer(40, 130)
            body.append("g1 = " + " + ".join(["1"] * n) + " - " + str(n - 3))
        rounds = self.c.integer(1, 3)
        return world_ruleset(body, decls, rounds)


def world_ruleset(body: list[str], decls: list[str] | None = None, rounds: int = 2) -> str:
    """``body`` as step `s` of a ruleset over :data:`WORLD`; step `t` (a `skip to` target) ends the game."""
    lines = [WORLD, *(decls or []), "setup { shuffle bag }", "round {", '  step s "S" {', *_indent(body, 4), "  }",
             '  step t "T" {', "    g1 += 1", f"    if round >= {rounds} {{ end game }}", "  }", "}",
             "score(p) = p.sc + g0"]
    return "\n".join(lines) + "\n"


def _indent(lines: list[str], base: int) -> list[str]:
    out, depth = [], 0
    for line in (x.strip() for x in lines):
        code = re.sub(r'"([^"\\]|\\.)*"', '""', line)
        closes = len(code) - len(code.lstrip("}"))
        out.append(" " * (base + 2 * max(depth - closes, 0)) + line)
        depth += code.count("{") - code.count("}")
    return out


def write_world(folder: Path, text: str) -> str:
    """Write a ruleset over :data:`WORLD` and its files into ``folder``; return the ruleset's path."""
    for name, data in WORLD_FILES.items():
        (folder / name).write_text(data, encoding="utf-8")
    path = folder / "fuzz.rules"
    path.write_text(text, encoding="utf-8")
    return str(path)


@st.composite
def rulesets(draw: st.DrawFn) -> str:
    """A whole ruleset text over :data:`WORLD` (write it with :func:`write_world`)."""
    return Writer(_Draws(draw)).ruleset()


def filled_samples(node: type, rnd: random.Random) -> list[tuple[list[str], list[str]]]:
    """Each sample of one registered kind, filled in once, as (declarations, lines of step `s`) for
    :func:`world_ruleset`; the lines stand in a loop over the players (a loop and a player variable for the
    samples that need them): how a test shows a kind is writable."""
    c = constructs.STATEMENTS.get(node) or constructs.EXPRESSIONS.get(node)  # type: ignore[call-overload]
    assert c is not None, node
    out: list[tuple[list[str], list[str]]] = []
    for i, sample in enumerate(c.samples):
        w = Writer(_Rolls(rnd))
        scope = Scope(["v0"], "p", True, True)
        if sample.ty == "fnbody":
            name = f"fb_{node.__name__.lower()}{i}"
            decl = f"fn {name}(k: int) -> int {w.fill(sample, Scope(['k'], None, False, False), 2, False)}"
            out.append(([decl], [f"g0 = {name}(g1)"]))
            continue
        if sample.ty == "stmt":
            line = w.fill(sample, scope, 2, True, after=Scope())
        else:
            line = f"log \"{{}}\", {w.fill(sample, scope, 2, False)}"
        out.append(([], ["let v0 = 2", "for p in players {", *line.split("\n"), "}"]))
    return out
