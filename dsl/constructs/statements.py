"""Every statement kind of the rules language, declared once.

A declaration names the AST node class and its surface syntax, and gives the small functions every pass
would otherwise write again by hand: the statement's child blocks and child expressions (walkers), the names
it binds in the enclosing block (``let``, ``transfer … as``), and whether it can suspend the step machine
(a decision may happen inside it). The checker's walker (dsl/checker/walk.py) reads ``blocks``;
tests/test_registry.py fails when a statement class has no entry here or a pass has no handler for one.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from liturgy.dsl.constructs.lowering import Extension
from liturgy.dsl.constructs.sample import Sample, stmt
from liturgy.dsl.frontend import ast as A


class SuspendFacts(Protocol):
    """What deciding "can this suspend" needs from a checked program (a :class:`~..checker.program.Program`)."""

    @property
    def suspending(self) -> Collection[str]: ...  # "proc:x", "window:x", "field:Kind.f" that can suspend

    @property
    def kinds(self) -> Mapping[str, object]: ...  # card kinds by name


def _nothing(s: Any) -> list[Any]:
    return []


def _no_names(s: Any) -> tuple[str, ...]:
    return ()


@dataclass(frozen=True)
class StmtConstruct:
    """One statement kind: its node, its syntax and the facts passes read about it."""

    node: type[A.Stmt]
    syntax: str  # as an author writes it
    blocks: Callable[[Any], list[list[A.Stmt]]] = _nothing  # child statement blocks, in source order
    exprs: Callable[[Any], list[A.Expr]] = _nothing  # child expressions, in source order
    # names this statement binds in the rest of its block (loop and choice variables are bound in `blocks` only)
    binds: Callable[[Any], tuple[str, ...]] = _no_names
    # names bound inside its child blocks only (loop variables, the chosen item, the choosing player)
    binds_inside: Callable[[Any], tuple[str, ...]] = _no_names
    # can a decision happen inside? None: exactly when one can inside a child block (see :func:`suspends`)
    suspends_when: Callable[[Any, SuspendFacts], bool] | None = None
    loop: bool = False  # `break` inside leaves this statement
    samples: tuple[Sample, ...] = ()  # how the cross-mode fuzzer writes it (dsl/constructs/sample.py)
    # a construct registered with its own syntax and meaning (dsl/constructs/extensions.py), else None
    extension: Extension | None = None


def _always(s: Any, facts: SuspendFacts) -> bool:
    return True


def _do_suspends(s: A.Do, facts: SuspendFacts) -> bool:
    """`do` suspends when the procedure or the card effect it runs can (a field: in any card kind)."""
    call = s.call
    if not isinstance(call, A.Call):
        return False
    ref = call.ref
    if ref is not None and ref[0] == "call_proc":
        return f"proc:{ref[1].name}" in facts.suspending
    if isinstance(call.func, A.Attr):
        name = call.func.name
        return any(f"field:{k}.{name}" in facts.suspending for k in facts.kinds)
    return False


def _fire_suspends(s: A.Fire, facts: SuspendFacts) -> bool:
    return f"window:{s.window}" in facts.suspending


def _present(*es: A.Expr | None) -> list[A.Expr]:
    return [e for e in es if e is not None]


def _prompt_args(p: A.Prompt | None) -> list[A.Expr]:
    return list(p.args) if p is not None else []


def _if_exprs(s: A.If) -> list[A.Expr]:
    return [cond for cond, _ in s.branches]


def _if_blocks(s: A.If) -> list[list[A.Stmt]]:
    return [body for _, body in s.branches] + [s.orelse]


def _choose_exprs(s: A.Choose) -> list[A.Expr]:
    return _present(s.source, s.where, s.chooser) + _prompt_args(s.prompt)


def _choose_blocks(s: A.Choose) -> list[list[A.Stmt]]:
    return [s.body] if s.none_body is None else [s.body, s.none_body]


def _simultaneous_exprs(s: A.Simultaneous) -> list[A.Expr]:
    # in field order (players, source, where, prompt, by), as every walker built on the registry expects
    return _present(s.players, s.source, s.where) + _prompt_args(s.prompt) + _present(s.by)


STATEMENTS: dict[type[A.Stmt], StmtConstruct] = {
    c.node: c
    for c in (
        StmtConstruct(A.Let, "let NAME = EXPR", exprs=lambda s: [s.value], binds=lambda s: (s.name,),
                      samples=(stmt("let {bind} = {int}"),)),
        StmtConstruct(A.Assign, "TARGET = EXPR | TARGET += EXPR | TARGET -= EXPR",
                      exprs=lambda s: [s.target, s.value],
                      samples=(stmt("g0 = {int}"), stmt("g1 += {int}"), stmt("f0 = {bool}"), stmt("{p}.sc -= {int}"),
                               stmt("{local} = {int}"), stmt("cells[g1 % 3, 1] = {int}"), stmt("first = {p}"))),
        StmtConstruct(A.Move, "move WHAT to ZONE [top | bottom]", exprs=lambda s: [s.what, s.dest],
                      samples=(stmt("if size(bag) > 0 { move top(bag) to row }"),
                               stmt("move [c for c in row where c.v > {int}] to bag bottom"),
                               stmt("if size(bag) > 0 { move top(bag) to {p}.hand }"))),
        StmtConstruct(A.Shuffle, "shuffle ZONE", exprs=lambda s: [s.zone], samples=(stmt("shuffle bag"),)),
        StmtConstruct(A.Reveal, "reveal ZONE-OR-CARD [to PLAYERS]", exprs=lambda s: _present(s.target, s.to),
                      samples=(stmt("reveal row"), stmt("if size(bag) > 0 { reveal top(bag) to [first] }"))),
        StmtConstruct(A.Transfer, "transfer [AMOUNT | all] from HOLDER to HOLDER [as NAME]",
                      exprs=lambda s: _present(s.amount, s.source, s.dest),
                      binds=lambda s: (s.bind,) if s.bind else (),
                      samples=(stmt("transfer {int} from bank to heap as {bind}"),
                               stmt("transfer all from heap to bank"))),
        StmtConstruct(A.If, "if COND { … } elif COND { … } else { … }", blocks=_if_blocks, exprs=_if_exprs,
                      samples=(stmt("if {bool} {\n{block}\n} elif {bool} {\n{block}\n} else {\n{block}\n}"),
                               stmt("if {bool} {\n{block}\n}"))),
        # `for NAME in ITEMS where COND { … }` is parsed as `for NAME in ITEMS { if COND { … } }`
        StmtConstruct(A.For, "for NAME in ITEMS [where COND] { … }", blocks=lambda s: [s.body],
                      exprs=lambda s: [s.iterable], binds_inside=lambda s: (s.var,), loop=True,
                      samples=(stmt("for {var} in [{int}, {int}, 2] {\n{block*}\n}"),
                               stmt("for {player} in players {\n{block*}\n{player}.sc += {int*}\n}"),
                               stmt("for {name} in row where {name}.v > {int} {\ng1 += {name}.v\n{block}\n}"),
                               stmt("for {name} in row {\nif {name}.v > {int} {\nmove {name} to bag\n}\n{block}\n}"))),
        StmtConstruct(A.RepeatWhile, "repeat while COND { … }", blocks=lambda s: [s.body],
                      exprs=lambda s: [s.cond], loop=True,
                      samples=(stmt("let {name} = 0\nrepeat while {name} < 3 {\n{name} += 1\n{block}\n}"),
                               stmt("repeat while size(bag) > 0 and size(row) < {int} {\nmove top(bag) to row\n}"),
                               stmt("repeat while size(row) > {int} {\nchoose {name} from row where {name}.v > 1 "
                                    "by first optional {\nmove {name} to bag\n} otherwise {\nbreak\n}\n}"))),
        StmtConstruct(A.Break, "break", samples=(stmt("if {bool} { break }", "loop"),)),
        StmtConstruct(A.Choose, 'choose NAME from ITEMS [where COND] by PLAYER [optional ["LABEL"]] [prompt "…"] '
                      "{ … } [otherwise { … }]", blocks=_choose_blocks, exprs=_choose_exprs,
                      binds_inside=lambda s: (s.var,), suspends_when=_always,
                      samples=(stmt("choose {name} from row by first optional {\nmove {name} to bag bottom\n"
                                    "{block}\n}"),
                               stmt('choose {var} from [1, 2, {int}] where {var} != {int} by {p} prompt "{}?", {text} '
                                    "{\ng0 = {var}\n{block*}\n} otherwise {\n{block}\n}"))),
        StmtConstruct(A.Simultaneous, 'simultaneously NAME in ITEMS choose NAME from ITEMS [where COND] '
                      '[by PLAYER] [prompt "…"] { … }', blocks=lambda s: [s.body], exprs=_simultaneous_exprs,
                      binds_inside=lambda s: (s.player_var, s.var), suspends_when=_always,
                      samples=(stmt("simultaneously {player} in players choose {var} from [1, 2, 3] "
                                    "where {var} != {int} {\n{player}.sc += {var}\n{block*}\n}"),)),
        StmtConstruct(A.Do, "do PROC(ARGS) | do CARD.EFFECT(ARGS)", exprs=lambda s: [s.call],
                      suspends_when=_do_suspends, samples=(stmt("do {proc}({int})"), stmt("do ask()"))),
        StmtConstruct(A.Fire, "fire WINDOW(ARGS)", exprs=lambda s: list(s.args), suspends_when=_fire_suspends,
                      samples=(stmt("fire poked({int})"),)),
        StmtConstruct(A.EndGame, "end game", samples=(stmt("if {bool} and g1 > 20 { end game }"),)),
        StmtConstruct(A.SkipTo, "skip to STEP", samples=(stmt("if {bool} { skip to t }", "step"),)),
        StmtConstruct(A.Log, 'log [to PLAYERS] "TEXT", ARGS', exprs=lambda s: _present(s.to, *s.args),
                      samples=(stmt('log "{} / {} / {}", {text}, {int}, {text}'),
                               stmt('log to [{p}] "{} sees {}", {p}, {int}'),
                               stmt('log "{} / {} / {}", top(bag), row, {p}.hand'))),
        StmtConstruct(A.ModeSwitch, "enter MODE | leave MODE", exprs=lambda s: [s.mode],
                      samples=(stmt("if active(alert) {\nleave alert\n} else {\nenter alert\n"
                                    "alert.level = {int}\n}"),)),
        StmtConstruct(A.GraphLink, "link A to B on GRAPH by KIND | unlink A from B on GRAPH [by KIND]",
                      exprs=lambda s: _present(s.a, s.b, s.kind),
                      samples=(stmt("unlink mill from ford on roads\nlink mill to ford on roads by road"),
                               stmt("unlink ford from abbey on roads by road"))),
    )
}


def register(c: StmtConstruct) -> None:
    """Add a statement kind (an extension: dsl/constructs/extensions.py registers through here)."""
    if c.node in STATEMENTS:
        raise ValueError(f"statement {c.node.__name__} is already registered")
    STATEMENTS[c.node] = c


def unregister(node: type[A.Stmt]) -> None:
    del STATEMENTS[node]


def construct(s: A.Stmt) -> StmtConstruct:
    return STATEMENTS[type(s)]


def child_blocks(s: A.Stmt) -> list[list[A.Stmt]]:
    """The statement blocks nested directly in ``s``."""
    return STATEMENTS[type(s)].blocks(s)


def walk(stmts: Sequence[A.Stmt]) -> Iterator[A.Stmt]:
    """Every statement in ``stmts``, nested blocks included (no particular order)."""
    stack = list(stmts)
    while stack:
        s = stack.pop()
        yield s
        for block in STATEMENTS[type(s)].blocks(s):
            stack.extend(block)


def suspends(s: A.Stmt, facts: SuspendFacts) -> bool:
    """Can a decision happen while ``s`` runs (it needs the step machine)?"""
    rule = STATEMENTS[type(s)].suspends_when
    if rule is not None:
        return rule(s, facts)
    return any(suspends(c, facts) for block in child_blocks(s) for c in block)

