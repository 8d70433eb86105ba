"""The checker: resolves every name and type before anything runs.

It walks the AST once, annotating each expression with its type (``ty``) and
what its name refers to (``ref``), so the compiler can emit closures without
looking anything up again.  Problems become diagnostics with stable codes
(see ``docs/errors.md``); a ruleset with any error never reaches the engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from liturgy.dsl.checker import types as T
from liturgy.dsl.checker.types import Ty
from liturgy.dsl.diagnostics import NOWHERE, Diagnostic, Span, did_you_mean
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.frontend.cards import CardDef, load_card_file, resolve_card_paths

# Deepest expression nesting the checker accepts: the compiler and the closures recurse once or more per level.
MAX_EXPR_DEPTH = 100
BUILTIN_VALUES = {"players", "first", "player_count", "round"}
BUILTIN_FUNCS = {
    "size", "top", "bottom", "random", "roll", "value", "min", "max", "abs",
    "players_from", "next_player", "owner",
}
AGGREGATES = {"count", "sum", "any", "all", "min", "max"}
CARD_BUILTIN_FIELDS = {"name": T.TEXT, "provisional": T.BOOL, "text": T.TEXT}


@dataclass
class Program:
    """A checked ruleset: declarations by name, card definitions, analysis facts."""

    path: str
    game: A.GameDecl
    enums: dict[str, list[str]] = field(default_factory=dict)
    dice: dict[str, A.DieDecl] = field(default_factory=dict)
    kinds: dict[str, A.CardKindDecl] = field(default_factory=dict)
    field_types: dict[str, dict[str, Ty]] = field(default_factory=dict)
    zones: dict[str, A.ZoneDecl] = field(default_factory=dict)
    counters: dict[str, A.CounterDecl] = field(default_factory=dict)
    pools: dict[str, A.PoolDecl] = field(default_factory=dict)
    windows: dict[str, A.WindowDecl] = field(default_factory=dict)
    handlers: dict[str, list[A.HandlerDecl]] = field(default_factory=dict)
    procs: dict[str, A.ProcDecl] = field(default_factory=dict)
    fns: dict[str, A.FnDecl] = field(default_factory=dict)
    setup: list[A.Stmt] = field(default_factory=list)
    steps: list[A.StepDecl] = field(default_factory=list)
    finish: list[A.Stmt] = field(default_factory=list)
    score: A.ScoreDecl | None = None
    tiebreaks: list[A.ScoreDecl] = field(default_factory=list)
    winner: A.WinnerDecl | None = None
    invariants: list[A.InvariantDecl] = field(default_factory=list)
    display: A.DisplayDecl | None = None
    describes: dict[str, A.DescribeDecl] = field(default_factory=dict)
    cards: list[CardDef] = field(default_factory=list)
    card_files: list[str] = field(default_factory=list)  # every card file read, in the order read
    # SHA-256 of the ruleset's bytes and its card files' (dsl/loader.py): saves and decision logs record it, so a
    # game is never resumed on rules that changed under it without saying so; "" when not read from files
    fingerprint: str = ""
    suspending: set[str] = field(default_factory=set)  # "proc:x", "window:x", "field:Kind.f"
    fired: set[str] = field(default_factory=set)


class _Scope:
    def __init__(
        self,
        names: dict[str, Ty] | None = None,
        self_kind: str | None = None,
        in_step: bool = False,
        loops: int = 0,
        where: str = "",
    ) -> None:
        self.names = dict(names or {})
        self.self_kind = self_kind
        self.in_step = in_step
        self.loops = loops
        self.where = where

    def child(self, **extra: Ty) -> _Scope:
        s = _Scope(self.names, self.self_kind, self.in_step, self.loops, self.where)
        s.names.update(extra)
        return s


class Checker:
    def __init__(self, ruleset: A.Ruleset) -> None:
        self.rs = ruleset
        self.diags: list[Diagnostic] = []
        self.prog: Program | None = None
        self.enum_of_value: dict[str, str] = {}
        self.used: set[str] = set()
        self.calls: dict[str, set[str]] = {}  # owner -> callees ("proc:x", "window:x", "field:K.f")
        self.suspends_directly: set[str] = set()
        self.ends: set[str] = set()  # owners that contain `end game` directly
        self.reachable_steps: set[str] = set()
        self.owner = ""
        self.reading = False  # checking a `display` or `describe`: random numbers are refused (E171)
        self.depth = 0  # nesting of the expression being checked (MAX_EXPR_DEPTH)
        self.too_deep = False  # the current top-level expression was already reported too deep

    # ------------------------------------------------------------ reporting
    def err(self, code: str, msg: str, span: Span, hint: str = "") -> None:
        self.diags.append(Diagnostic(code, "error", msg, span, hint))

    def warn(self, code: str, msg: str, span: Span, hint: str = "") -> None:
        self.diags.append(Diagnostic(code, "warning", msg, span, hint))

    # ------------------------------------------------------------ entry
    def run(self) -> Program | None:
        games = [d for d in self.rs.decls if isinstance(d, A.GameDecl)]
        if not games:
            self.err("E100", "the ruleset has no `game` declaration", Span.point(self.rs.path, 1, 1),
                     hint='start with: game "Name" { players 2..4 }')
            game = A.GameDecl(NOWHERE, "?", 1, 1)
        else:
            game = games[0]
            for extra in games[1:]:
                self.err("E103", "a second `game` declaration", extra.span, hint="a ruleset declares one game")
            if game.min_players < 1 or game.max_players < game.min_players:
                self.err("E110", f"player range {game.min_players}..{game.max_players} is empty", game.span)
            if game.max_players > 64:
                self.err("E110", "at most 64 players are supported", game.span)
        prog = Program(self.rs.path, game)
        self.prog = prog
        self._collect(prog)
        self._load_cards(prog)
        self._check_bodies(prog)
        self._analyse(prog)
        return prog

    # ------------------------------------------------------------ declarations
    def _declare(self, seen: dict[str, Span], name: str, span: Span, what: str) -> bool:
        if name in seen:
            self.err("E103", f"`{name}` is declared twice ({what})", span,
                     hint=f"the first declaration is at line {seen[name].line}")
            return False
        seen[name] = span
        return True

    def _collect(self, prog: Program) -> None:
        glob_names: dict[str, Span] = {}
        player_names: dict[str, Span] = {}
        card_names: dict[str, Span] = {}
        dice_names: dict[str, Span] = {}
        for d in self.rs.decls:
            if isinstance(d, A.EnumDecl):
                if self._declare(glob_names, d.name, d.span, "enum"):
                    prog.enums[d.name] = [v for v, _ in d.values]
                    seen_vals: set[str] = set()
                    for v, vspan in d.values:
                        if v in seen_vals:
                            self.err("E103", f"enum value `{v}` is listed twice", vspan)
                        seen_vals.add(v)
                        if v in self.enum_of_value and self.enum_of_value[v] != d.name:
                            self.err("E103", f"enum value `{v}` is also in enum `{self.enum_of_value[v]}`", vspan,
                                     hint="enum values share one namespace; rename one")
                        self.enum_of_value[v] = d.name
            elif isinstance(d, A.DieDecl):
                if self._declare(dice_names, d.name, d.span, "die"):
                    prog.dice[d.name] = d
                    if not d.faces:
                        self.err("E111", f"die `{d.name}` has no faces", d.span)
                    if d.faces and all(x for _, x in d.faces):
                        self.err("E111", f"every face of die `{d.name}` explodes, so a roll never ends", d.span,
                                 hint="give the die at least one face without `+`")
            elif isinstance(d, A.CardKindDecl):
                if self._declare(glob_names, d.name, d.span, "card kind"):
                    prog.kinds[d.name] = d
            elif isinstance(d, A.ZoneDecl):
                target = player_names if d.per_player else glob_names
                if d.per_card:
                    self.err("E112", "zones per card are not supported yet", d.span,
                             hint="use a zone per player or a shared zone")
                elif self._declare(target, d.name, d.span, "zone"):
                    prog.zones[d.name] = d
            elif isinstance(d, A.CounterDecl):
                self._add_counter(prog, d, glob_names, player_names, card_names)
            elif isinstance(d, A.PoolDecl):
                if d.name in prog.pools:
                    self.err("E103", f"pool `{d.name}` is declared twice", d.span)
                prog.pools[d.name] = d
                for h in d.holders:
                    self._add_counter(prog, h, glob_names, player_names, card_names)
            elif isinstance(d, A.WindowDecl):
                if self._declare(glob_names, "window " + d.name, d.span, "window"):
                    prog.windows[d.name] = d
            elif isinstance(d, A.HandlerDecl):
                prog.handlers.setdefault(d.window, []).append(d)
            elif isinstance(d, A.ProcDecl):
                if self._declare(glob_names, d.name, d.span, "proc"):
                    prog.procs[d.name] = d
            elif isinstance(d, A.FnDecl):
                if self._declare(glob_names, d.name, d.span, "fn"):
                    prog.fns[d.name] = d
            elif isinstance(d, A.SetupDecl):
                if prog.setup:
                    self.err("E103", "a second `setup` block", d.span)
                prog.setup = d.body
            elif isinstance(d, A.RoundDecl):
                if prog.steps:
                    self.err("E103", "a second `round` block", d.span)
                steps: dict[str, Span] = {}
                for s in d.steps:
                    self._declare(steps, s.name, s.span, "step")
                prog.steps = d.steps
            elif isinstance(d, A.FinishDecl):
                prog.finish = d.body
            elif isinstance(d, A.ScoreDecl):
                if d.tiebreak:
                    prog.tiebreaks.append(d)
                elif prog.score is not None:
                    self.err("E103", "a second `score` declaration", d.span)
                else:
                    prog.score = d
            elif isinstance(d, A.WinnerDecl):
                if prog.winner is not None:
                    self.err("E103", "a second `winner` declaration", d.span)
                else:
                    prog.winner = d
            elif isinstance(d, A.InvariantDecl):
                prog.invariants.append(d)
            elif isinstance(d, A.DisplayDecl):
                if prog.display is not None:
                    self.err("E103", "a second `display` declaration", d.span)
                else:
                    prog.display = d
            elif isinstance(d, A.DescribeDecl):
                if d.kind in prog.describes:
                    self.err("E103", f"a second `describe` for card kind `{d.kind}`", d.span)
                else:
                    prog.describes[d.kind] = d
        for name in BUILTIN_VALUES | BUILTIN_FUNCS | AGGREGATES:
            if name in glob_names:
                self.err("E104", f"`{name}` is a built-in name and cannot be redeclared", glob_names[name])
        for name, span in glob_names.items():
            if name in self.enum_of_value:
                self.err("E103", f"`{name}` is both a declaration and an enum value", span)
        if not prog.steps:
            self.err("E105", "the ruleset has no `round` block", Span.point(self.rs.path, 1, 1),
                     hint='add: round { step play "Play" { ... } }')
        # types of fields, with defaults
        for kind in prog.kinds.values():
            ft: dict[str, Ty] = dict(CARD_BUILTIN_FIELDS)
            seen: dict[str, Span] = {}
            for f in kind.fields:
                if f.name in CARD_BUILTIN_FIELDS or f.name in ("count", "source", "text"):
                    self.err("E104", f"`{f.name}` is a built-in card key", f.span)
                    continue
                self._declare(seen, f.name, f.span, "field")
                ft[f.name] = self.resolve_type(f.type)
                if f.name in card_names:
                    self.err("E103", f"field `{f.name}` clashes with per-card counter `{f.name}`", f.span)
            prog.field_types[kind.name] = ft
        for z in prog.zones.values():
            if z.of_kind and z.of_kind not in prog.kinds:
                self.err("E101", f"unknown card kind `{z.of_kind}`", z.span, hint=did_you_mean(z.of_kind, prog.kinds))
            if z.order == "slot" and z.capacity is None:
                z.capacity = 1
        for c in prog.counters.values():
            if c.option is not None:
                self._check_option(prog, c)
            if c.index_enum and c.index_enum not in prog.enums:
                self.err("E101", f"unknown enum `{c.index_enum}`", c.span, hint=did_you_mean(c.index_enum, prog.enums))
            if c.lo is not None and c.hi is not None and c.lo > c.hi:
                self.err("E110", f"counter `{c.name}` has an empty range {c.lo}..{c.hi}", c.span)
            if c.track_values is not None and c.track_values != sorted(c.track_values):
                self.warn("W010", f"track `{c.name}` values decrease along the track", c.span)

    def _check_option(self, prog: Program, c: A.CounterDecl) -> None:
        """An option's type is an enum and its default one of that enum's values (E153)."""
        enum = c.option or ""
        if enum not in prog.enums:
            self.err("E153", f"option `{c.name}` must take its values from an enum, not `{enum}`", c.span,
                     hint=did_you_mean(enum, prog.enums) or "declare: enum Mode { run, combat }")
            return
        d = c.default
        if not (isinstance(d, A.Name) and d.id in prog.enums[enum]):
            self.err("E153", f"the default of option `{c.name}` must be a value of enum `{enum}`",
                     d.span if d is not None else c.span, hint=f"one of: {', '.join(prog.enums[enum])}")
            return
        d.ref, d.ty = ("enumval", d.id), Ty("enum", arg=enum)

    def _add_counter(
        self,
        prog: Program,
        d: A.CounterDecl,
        glob_names: dict[str, Span],
        player_names: dict[str, Span],
        card_names: dict[str, Span],
    ) -> None:
        target = {"global": glob_names, "player": player_names, "card": card_names}[d.scope]
        if self._declare(target, d.name, d.span, "counter"):
            prog.counters[d.name] = d

    def resolve_type(self, t: A.TypeExpr) -> Ty:
        assert self.prog is not None
        k = t.kind
        if k in ("int", "bool", "text", "player"):
            return Ty(k)
        if k == "card":
            if t.arg and t.arg not in self.prog.kinds:
                self.err("E101", f"unknown card kind `{t.arg}`", t.span, hint=did_you_mean(t.arg, self.prog.kinds))
            return T.card(t.arg)
        if k == "set":
            if t.arg not in self.prog.enums:
                self.err("E101", f"unknown enum `{t.arg}`", t.span, hint=did_you_mean(t.arg or "", self.prog.enums))
            return Ty("set", arg=t.arg)
        if k == "list":
            return T.list_of(self.resolve_type(t.elem) if t.elem else T.ANY)
        if k == "effect":
            return Ty("effect", params=tuple(self.resolve_type(p.type) for p in t.params))
        if k == "function":
            ret = self.resolve_type(t.ret) if t.ret else T.INT
            return Ty("function", params=tuple(self.resolve_type(p.type) for p in t.params), ret=ret)
        if k == "named":
            if t.arg in self.prog.enums:
                return Ty("enum", arg=t.arg)
            if t.arg in self.prog.kinds:
                return T.card(t.arg)
            self.err("E101", f"unknown type `{t.arg}`", t.span,
                     hint=did_you_mean(t.arg or "", list(self.prog.enums) + list(self.prog.kinds)
                                       + ["int", "bool", "text", "player", "card"]))
            return T.ANY
        return T.ANY

    # ------------------------------------------------------------ cards
    def _load_cards(self, prog: Program) -> None:
        zones = list(prog.zones)
        names: dict[str, Span] = {}
        for d in self.rs.decls:
            if not isinstance(d, A.CardsDecl):
                continue
            files, diags = resolve_card_paths(self.rs.path, d.pattern, d.span)
            self.diags.extend(diags)
            for path in files:
                prog.card_files.append(path)
                cards, diags = load_card_file(path, prog.kinds, prog.enums, zones)
                self.diags.extend(diags)
                for c in cards:
                    if c.name in names:
                        self.err("E103", f"card `{c.name}` is defined twice", c.span,
                                 hint=f"the first is at {names[c.name].file}:{names[c.name].line}")
                        continue
                    names[c.name] = c.span
                    zone = prog.zones[c.start]
                    if zone.of_kind and zone.of_kind != c.kind:
                        self.err("E120", f"`{c.name}` is a {c.kind} but zone `{c.start}` holds {zone.of_kind}",
                                 c.span)
                    prog.cards.append(c)

    # ------------------------------------------------------------ bodies
    def _check_bodies(self, prog: Program) -> None:
        for kind in prog.kinds.values():
            for f in kind.fields:
                if f.default is None:
                    continue
                fty = prog.field_types[kind.name][f.name]
                self.owner = f"field:{kind.name}.{f.name}"
                if fty.kind == "effect":
                    if not isinstance(f.default, A.NoneLit):
                        self.err("E130", "an effect field's default must be `none`", f.default.span)
                elif fty.kind == "function":
                    scope = _Scope({p.name: self.resolve_type(p.type) for p in f.type.params}, self_kind=kind.name)
                    self.expect(f.default, fty.ret or T.INT, scope)
                else:
                    self.expect(f.default, fty, _Scope())
        for fn in prog.fns.values():
            self.owner = f"fn:{fn.name}"
            scope = _Scope({p.name: self.resolve_type(p.type) for p in fn.params})
            self.expect(fn.body, self.resolve_type(fn.ret), scope)
        for proc in prog.procs.values():
            self.owner = f"proc:{proc.name}"
            self.block(proc.body, _Scope({p.name: self.resolve_type(p.type) for p in proc.params}, where="proc"))
        for wname, handlers in prog.handlers.items():
            window = prog.windows.get(wname)
            for h in handlers:
                self.owner = f"window:{wname}"
                if window is None:
                    self.err("E101", f"unknown window `{wname}`", h.span,
                             hint=did_you_mean(wname, prog.windows) or "declare it: window NAME(params)")
                else:
                    want = [self.resolve_type(p.type) for p in window.params]
                    got = [self.resolve_type(p.type) for p in h.params]
                    if want != got:
                        self.err("E131", f"handler for `{wname}` takes ({', '.join(map(str, got))}) but the window "
                                 f"passes ({', '.join(map(str, want))})", h.span)
                self.block(h.body, _Scope({p.name: self.resolve_type(p.type) for p in h.params}, where="handler"))
        self.owner = "setup"
        self.block(prog.setup, _Scope(where="setup"))
        for s in prog.steps:
            self.owner = f"step:{s.name}"
            self.block(s.body, _Scope(in_step=True, where="step"))
        self.owner = "finish"
        self.block(prog.finish, _Scope(where="finish"))
        self.owner = "score"
        for sc in [prog.score, *prog.tiebreaks]:
            if sc is not None:
                self.expect(sc.expr, T.INT, _Scope({sc.var: T.PLAYER}))
        if prog.winner is not None:
            self.expect(prog.winner.expr, T.BOOL, _Scope({prog.winner.var: T.PLAYER}))
            for tb in prog.tiebreaks:
                self.err("E172", "a `tiebreak` has no effect: `winner` says who wins", tb.span,
                         hint="remove the `tiebreak`, or fold it into `winner(p) = ...`")
        elif prog.score is None:
            self.warn("W020", "the ruleset declares no `score`; every finished game is a shared win",
                      Span.point(self.rs.path, 1, 1), hint="add: score(p) = ...")
        step_names = [st.name for st in prog.steps]
        for inv in prog.invariants:
            self.expect(inv.expr, T.BOOL, _Scope())
            for name, span in inv.outside:
                if name not in step_names:
                    self.err("E101", f"unknown step `{name}`", span, hint=did_you_mean(name, step_names))
        self._check_display(prog)
        # card values
        for c in prog.cards:
            kind = prog.kinds[c.kind]
            for f in kind.fields:
                if f.name not in c.values:
                    continue
                fty = prog.field_types[c.kind][f.name]
                if fty.kind in ("player", "card"):
                    self.err("E128", f"field `{f.name}` ({fty}) cannot be set in a card file",
                             c.field_spans.get(f.name, c.span),
                             hint="give it no value in YAML (default `none`), or use a `text` field with a card name")
                    continue
                self.owner = f"field:{c.kind}.{f.name}"
                params = {p.name: self.resolve_type(p.type) for p in f.type.params}
                value = c.values[f.name]
                scope = _Scope(params, self_kind=c.kind, where="card")
                if fty.kind == "effect":
                    self.block(value, scope)
                elif fty.kind == "function":
                    self.expect(value, fty.ret or T.INT, scope)

    def block(self, stmts: list[A.Stmt], scope: _Scope) -> None:
        for s in stmts:
            self.stmt(s, scope)

    def stmt(self, s: A.Stmt, scope: _Scope) -> None:  # noqa: C901 - one dispatch on statement kind
        assert self.prog is not None
        if isinstance(s, A.Let):
            if s.name in BUILTIN_VALUES or s.name == "self":
                self.err("E104", f"`{s.name}` is a built-in name", s.span)
            scope.names[s.name] = self.value_type(self.expr(s.value, scope), s.value)
        elif isinstance(s, A.Assign):
            self.assign(s, scope)
        elif isinstance(s, A.Move):
            t = self.expr(s.what, scope)
            is_cards = t.kind == "list" and t.elem is not None and t.elem.kind in ("card", "any")
            if t.kind not in ("card", "zone", "any") and not is_cards:
                self.err("E121", f"`move` needs a card, a list of cards or a zone, not {t}", s.what.span)
            self.zone_target(s.dest, scope)
        elif isinstance(s, A.Shuffle):
            self.zone_target(s.zone, scope)
        elif isinstance(s, A.Reveal):
            t = self.expr(s.target, scope)
            if t.kind not in ("zone", "card", "any"):
                self.err("E121", f"`reveal` needs a zone or a card, not {t}", s.target.span)
        elif isinstance(s, A.Transfer):
            if s.amount is not None:
                self.expect(s.amount, T.INT, scope)
            p1 = self.holder(s.source, scope)
            p2 = self.holder(s.dest, scope)
            if p1 and p2 and p1 != p2:
                self.err("E122", f"cannot transfer between pools `{p1}` and `{p2}`", s.span,
                         hint="tokens move only between holders of the same pool")
            if s.bind:
                scope.names[s.bind] = T.INT
        elif isinstance(s, A.If):
            for cond, body in s.branches:
                self.expect(cond, T.BOOL, scope)
                self.block(body, scope.child())
            self.block(s.orelse, scope.child())
        elif isinstance(s, A.For):
            elem = self.iter_elem(s.iterable, scope)
            inner = scope.child(**{s.var: elem})
            inner.loops += 1
            self.block(s.body, inner)
        elif isinstance(s, A.RepeatWhile):
            self.expect(s.cond, T.BOOL, scope)
            inner = scope.child()
            inner.loops += 1
            self.block(s.body, inner)
        elif isinstance(s, A.Break):
            if scope.loops == 0:
                self.err("E132", "`break` outside a loop", s.span)
        elif isinstance(s, A.Choose):
            elem = self.iter_elem(s.source, scope)
            inner = scope.child(**{s.var: elem})
            if s.where is not None:
                self.expect(s.where, T.BOOL, inner)
            self.expect(s.chooser, T.PLAYER, scope)
            if s.prompt is not None:
                self._prompt(s.prompt, scope)
            if s.label is not None and not s.label.strip():
                self.err("E170", "the label of an `optional` option is empty", s.label_span or s.span,
                         hint='name the move, e.g. `optional "draw"`, or write plain `optional` for `pass`')
            self.suspends_directly.add(self.owner)
            self.block(s.body, inner)
            if s.none_body is not None:
                self.block(s.none_body, scope.child())
        elif isinstance(s, A.Simultaneous):
            ptype = self.iter_elem(s.players, scope)
            if not T.assignable(ptype, T.PLAYER):
                self.err("E123", f"`simultaneously` needs a list of players, not a list of {ptype}", s.players.span)
            inner = scope.child(**{s.player_var: T.PLAYER})
            elem = self.iter_elem(s.source, inner)
            if s.prompt is not None:
                self._prompt(s.prompt, inner)
            inner.names[s.var] = elem
            if s.where is not None:
                self.expect(s.where, T.BOOL, inner)
            self.suspends_directly.add(self.owner)
            self.block(s.body, inner)
        elif isinstance(s, A.Do):
            self.do_call(s, scope)
        elif isinstance(s, A.Fire):
            w = self.prog.windows.get(s.window)
            self.calls.setdefault(self.owner, set()).add(f"window:{s.window}")
            self.prog.fired.add(s.window)
            if w is None:
                self.err("E101", f"unknown window `{s.window}`", s.span, hint=did_you_mean(s.window, self.prog.windows))
                for a in s.args:
                    self.expr(a, scope)
            else:
                self.args(s.args, [self.resolve_type(p.type) for p in w.params], s.span, scope, f"window `{s.window}`")
        elif isinstance(s, A.EndGame):
            self.ends.add(self.owner)
        elif isinstance(s, A.SkipTo):
            if not scope.in_step:
                self.err("E133", "`skip to` is only allowed directly in a round step", s.span,
                         hint="procs, handlers and cards cannot jump; set a flag and test it in the step")
            elif s.step not in {st.name for st in self.prog.steps}:
                self.err("E101", f"unknown step `{s.step}`", s.span,
                         hint=did_you_mean(s.step, [st.name for st in self.prog.steps]))
        elif isinstance(s, A.Log):
            if s.to is not None:
                self.expect(s.to, T.PLAYER, scope)
            for a in s.args:
                self.expr(a, scope)
            holes = s.text.count("{}")
            if holes != len(s.args):
                self.err("E134", f"log text has {holes} `{{}}` but {len(s.args)} values follow", s.span)

    def _check_display(self, prog: Program) -> None:
        """`display` and `describe`: typed like `log` lines, and read-only (E171: no `random` or `roll`)."""
        self.owner = "display"
        self.reading = True
        if prog.display is not None:
            self._show_items(prog.display.body, _Scope({prog.display.var: T.PLAYER}, where="display"))
        for desc in prog.describes.values():
            described = describable(prog, desc.kind)
            if described is None:
                self.err("E101", f"unknown card kind or enum `{desc.kind}`", desc.span,
                         hint=did_you_mean(desc.kind, [*prog.kinds, *prog.enums, "player", "bool"]) or
                         "`describe` takes a card kind, an enum, `player` or `bool`")
                continue
            if desc.card == desc.viewer:
                self.err("E103", f"`{desc.card}` names both the described value and the viewer", desc.span)
            scope = _Scope({desc.card: described, desc.viewer: T.PLAYER}, where="display")
            self._show_text(desc.text, desc.args, desc.span, scope, "describe")
        self.reading = False

    def _show_items(self, items: list[A.ShowItem], scope: _Scope) -> None:
        for it in items:
            if isinstance(it, A.ShowLine):
                self._show_text(it.text, it.args, it.span, scope, "show")
            elif isinstance(it, A.ShowFor):
                inner = scope.child(**{it.var: self.iter_elem(it.source, scope)})
                if it.where is not None:
                    self.expect(it.where, T.BOOL, inner)
                self._show_items(it.body, inner)
            else:
                self.expect(it.cond, T.BOOL, scope)
                self._show_items(it.body, scope)
                self._show_items(it.orelse, scope)

    def _prompt(self, pr: A.Prompt, scope: _Scope) -> None:
        """A choice's `prompt`: a read-only text like a `show` line (E171), asked before the pick, never empty."""
        if not pr.text.strip():
            self.err("E173", "the prompt of a choice is empty", pr.span,
                     hint='say what is asked, e.g. `prompt "Choose a card to discard"`, or leave `prompt` out')
        reading, self.reading = self.reading, True
        self._show_text(pr.text, pr.args, pr.span, scope, "prompt")
        self.reading = reading

    def _show_text(self, text: str, args: list[A.Expr], span: Span, scope: _Scope, what: str) -> None:
        for a in args:
            self.expr(a, scope)
        holes = text.count("{}")
        if holes != len(args):
            self.err("E134", f"{what} text has {holes} `{{}}` but {len(args)} values follow", span)

    def assign(self, s: A.Assign, scope: _Scope) -> None:
        tgt = s.target
        if isinstance(tgt, A.Name) and tgt.id in scope.names:
            tt = scope.names[tgt.id]
            tgt.ty, tgt.ref = tt, ("local", tgt.id)
        else:
            tt = self.expr(tgt, scope)
            ref = tgt.ref
            if ref is None and tt.kind == "any":  # already reported: no cascade
                self.expr(s.value, scope)
                return
            if not (isinstance(ref, tuple) and ref[0] in ("counter", "pcounter", "ccounter", "icounter", "first")):
                self.err("E124", "only counters, flags, tracks, `first` and `let` names can be assigned", tgt.span)
                self.expr(s.value, scope)
                return
            decl = self._counter_of(tgt)
            if decl is not None and decl.option is not None:
                self.err("E152", f"option `{decl.name}` cannot be assigned: options are fixed when the game starts",
                         tgt.span, hint="set it from the command line: --option " + decl.name + "=VALUE")
                self.expr(s.value, scope)
                return
            if decl is not None and decl.pool:
                self.warn("W030", f"writing `{decl.name}` directly creates or destroys `{decl.pool}` tokens",
                          s.span, hint="move tokens with `transfer … from … to …`")
        decl = self._counter_of(tgt)
        if decl is not None and isinstance(s.value, A.IntLit) and not decl.is_flag:
            v = s.value.value
            lo, hi = decl.lo, decl.hi
            width = (hi - lo) if lo is not None and hi is not None else None
            outside = (s.op == "=" and ((lo is not None and v < lo) or (hi is not None and v > hi))) or (
                s.op in ("+=", "-=") and width is not None and v > width)
            if outside:
                self.warn("W006", f"this write can exceed the bounds {lo}..{hi} of `{decl.name}`; the value "
                          f"will be clamped", s.span, hint="counters clamp at their bounds; check the number")
        if s.op in ("+=", "-="):
            if tt.kind != "int" and tt.kind != "any":
                self.err("E125", f"`{s.op}` needs a number, but the target is {tt}", tgt.span)
            self.expect(s.value, T.INT, scope)
        else:
            self.expect(s.value, tt, scope)

    def _counter_of(self, e: A.Expr) -> A.CounterDecl | None:
        ref = e.ref
        if isinstance(ref, tuple):
            if ref[0] in ("counter", "pcounter", "ccounter"):
                return ref[1]  # type: ignore[no-any-return]
            if ref[0] == "icounter" and isinstance(e, A.Index):
                return self._counter_of(e.obj)
        return None

    def holder(self, e: A.Expr, scope: _Scope) -> str | None:
        self.expr(e, scope)
        decl = self._counter_of(e)
        if decl is None or decl.pool is None:
            self.err("E122", "tokens can only be transferred between pool holders", e.span,
                     hint="declare holders in a `pool { … }` block")
            return None
        return decl.pool

    def zone_target(self, e: A.Expr, scope: _Scope) -> None:
        t = self.expr(e, scope)
        if t.kind not in ("zone", "any"):
            self.err("E121", f"expected a zone, found {t}", e.span)

    def do_call(self, s: A.Do, scope: _Scope) -> None:
        call = s.call
        if not isinstance(call, A.Call):
            self.err("E126", "`do` needs a procedure or effect call like `do hurt(p, 1)`", call.span)
            return
        t = self.expr(call, scope, statement=True)
        ref = call.ref
        if t.kind != "any" and not (isinstance(ref, tuple) and (ref[0] == "call_proc" or ref[:3:2] == (
                "call_field", "effect"))):
            self.err("E126", "`do` runs a procedure or a card effect; this call computes a value", call.span,
                     hint="use `let x = …` to keep a value")

    def args(self, args: list[A.Expr], want: list[Ty], span: Span, scope: _Scope, what: str) -> None:
        if len(args) != len(want):
            self.err("E127", f"{what} takes {len(want)} argument(s), {len(args)} given", span)
        for a, w in zip(args, want, strict=False):
            self.expect(a, w, scope)
        for a in args[len(want):]:
            self.expr(a, scope)

    # ------------------------------------------------------------ expressions
    def expect(self, e: A.Expr, want: Ty, scope: _Scope) -> Ty:
        got = self.expr(e, scope)
        if not T.assignable(got, want):
            self.err("E140", f"expected {want}, found {got}", e.span)
        return got

    def value_type(self, t: Ty, e: A.Expr) -> Ty:
        if t.kind == "void":  # the call itself already reported E141
            return T.ANY
        return t

    def iter_elem(self, e: A.Expr, scope: _Scope) -> Ty:
        t = self.expr(e, scope)
        lt = T.as_list(t)
        if lt is None:
            self.err("E142", f"cannot iterate over {t}", e.span, hint="iterate over a zone, a list, a set or an enum")
            return T.ANY
        return lt.elem or T.ANY

    def expr(self, e: A.Expr, scope: _Scope, statement: bool = False) -> Ty:
        if self.depth == 0:
            self.too_deep = False
        if self.depth >= MAX_EXPR_DEPTH:
            # Past this, compiling and running the expression would need more Python stack than is safe.
            if not self.too_deep:
                self.err("E003", f"expression is nested too deeply (more than {MAX_EXPR_DEPTH} levels)", e.span,
                         hint="split deeply nested expressions into `let` steps, or use an aggregate")
            self.too_deep = True
            e.ty = T.ANY
            return T.ANY
        self.depth += 1
        try:
            t = self._expr(e, scope, statement)
        finally:
            self.depth -= 1
        e.ty = t
        return t

    def _expr(self, e: A.Expr, scope: _Scope, statement: bool) -> Ty:  # noqa: C901
        assert self.prog is not None
        if isinstance(e, A.IntLit):
            if abs(e.value) > 2**62:
                self.err("E143", "number is too large", e.span, hint="numbers must fit in 63 bits")
            return T.INT
        if isinstance(e, A.StrLit):
            return T.TEXT
        if isinstance(e, A.BoolLit):
            return T.BOOL
        if isinstance(e, A.NoneLit):
            return T.NONE
        if isinstance(e, A.Name):
            return self.name(e, scope)
        if isinstance(e, A.Attr):
            return self.attr(e, scope)
        if isinstance(e, A.Index):
            base = self.expr(e.obj, scope)
            decl = self._counter_of(e.obj)
            if decl is not None and decl.index_enum:
                self.expect(e.index, Ty("enum", arg=decl.index_enum), scope)
                e.ref = ("icounter",)
                return T.BOOL if decl.is_flag else T.INT
            lt = T.as_list(base)
            if base.kind == "list" and lt is not None:
                self.expect(e.index, T.INT, scope)
                e.ref = ("list_index",)
                return lt.elem or T.ANY
            self.err("E144", f"cannot index {base}", e.span)
            self.expr(e.index, scope)
            return T.ANY
        if isinstance(e, A.Call):
            return self.call(e, scope, statement)
        if isinstance(e, A.Aggregate):
            if e.func not in AGGREGATES:
                what = f"unknown aggregate `{e.func}`" if e.func else "only a named aggregate can take `for … in …`"
                self.err("E101", what, e.func_span,
                         hint=did_you_mean(e.func, AGGREGATES) or "use count, sum, any, all, min or max")
            elem = self.iter_elem(e.iterable, scope)
            inner = scope.child(**{e.var: elem})
            et = self.expr(e.elem, inner)
            if e.where is not None:
                self.expect(e.where, T.BOOL, inner)
            if e.func in ("sum", "min", "max"):
                if not T.assignable(et, T.INT):
                    self.err("E140", f"`{e.func}` needs numbers, found {et}", e.elem.span)
                return T.INT
            if e.func in ("any", "all"):
                if not T.assignable(et, T.BOOL):
                    self.err("E140", f"`{e.func}` needs conditions, found {et}", e.elem.span)
                return T.BOOL
            return T.INT
        if isinstance(e, A.ListLit):
            if not e.items:
                return T.list_of(T.ANY)
            et = self.expr(e.items[0], scope)
            for item in e.items[1:]:
                it = self.expr(item, scope)
                u = T.unify(et, it)
                if u is None:
                    self.err("E140", f"list items disagree: {et} and {it}", item.span)
                else:
                    et = u
            return T.list_of(et)
        if isinstance(e, A.ListComp):
            elem = self.iter_elem(e.iterable, scope)
            inner = scope.child(**{e.var: elem})
            et = self.expr(e.elem, inner)
            if e.where is not None:
                self.expect(e.where, T.BOOL, inner)
            return T.list_of(et)
        if isinstance(e, A.Unary):
            if e.op == "not":
                self.expect(e.operand, T.BOOL, scope)
                return T.BOOL
            self.expect(e.operand, T.INT, scope)
            return T.INT
        if isinstance(e, A.Binary):
            return self.binary(e, scope)
        if isinstance(e, A.Cond):
            self.expect(e.test, T.BOOL, scope)
            a = self.expr(e.then, scope)
            b = self.expr(e.orelse, scope)
            u = T.unify(a, b)
            if u is None:
                self.err("E140", f"the branches have different types: {a} and {b}", e.span)
                return T.ANY
            return u
        return T.ANY  # pragma: no cover

    def binary(self, e: A.Binary, scope: _Scope) -> Ty:
        op = e.op
        if op in ("and", "or"):
            self.expect(e.left, T.BOOL, scope)
            self.expect(e.right, T.BOOL, scope)
            return T.BOOL
        if op in ("in", "not in"):
            lt = self.expr(e.left, scope)
            elem = self.iter_elem(e.right, scope)
            if not (T.assignable(lt, elem) or T.assignable(elem, lt)):
                self.err("E140", f"cannot look for {lt} in a collection of {elem}", e.span)
            return T.BOOL
        if op in ("==", "!="):
            a = self.expr(e.left, scope)
            b = self.expr(e.right, scope)
            if not (T.assignable(a, b) or T.assignable(b, a)):
                self.err("E140", f"cannot compare {a} with {b}", e.span)
            return T.BOOL
        if op in ("<", "<=", ">", ">="):
            self.expect(e.left, T.INT, scope)
            self.expect(e.right, T.INT, scope)
            return T.BOOL
        if op == "+":
            a = self.expr(e.left, scope)
            if a.kind in ("list", "zone"):
                b = self.expr(e.right, scope)
                la, lb = T.as_list(a), T.as_list(b)
                if lb is None or la is None or T.unify(la, lb) is None:
                    self.err("E140", f"cannot join {a} and {b}", e.span)
                    return T.ANY
                return T.unify(la, lb) or T.ANY
            if a.kind == "text":  # joining texts: what a `prompt` or `describe` says can be put together
                self.expect(e.right, T.TEXT, scope)
                return T.TEXT
            if not T.assignable(a, T.INT):
                self.err("E140", f"expected int, found {a}", e.left.span)
            self.expect(e.right, T.INT, scope)
            return T.INT
        self.expect(e.left, T.INT, scope)
        self.expect(e.right, T.INT, scope)
        return T.INT

    def name(self, e: A.Name, scope: _Scope) -> Ty:
        assert self.prog is not None
        prog = self.prog
        n = e.id
        if n in scope.names:
            e.ref = ("local", n)
            return scope.names[n]
        if n == "self":
            if scope.self_kind is None:
                self.err("E101", "`self` is only available in a card's effects and functions", e.span)
                return T.ANY
            e.ref = ("self",)
            return T.card(scope.self_kind)
        if n in BUILTIN_VALUES:
            e.ref = ("first",) if n == "first" else ("builtin", n)
            return {"players": T.list_of(T.PLAYER), "first": T.PLAYER}.get(n, T.INT)
        if n in prog.zones and not prog.zones[n].per_player:
            e.ref = ("zone", prog.zones[n])
            self.used.add("zone:" + n)
            return T.zone(prog.zones[n].of_kind)
        c = prog.counters.get(n)
        if c is not None and c.scope == "global":
            e.ref = ("counter", c)
            self.used.add("counter:" + n)
            if c.option is not None:
                return Ty("enum", arg=c.option)
            return T.BOOL if c.is_flag else T.INT
        if n in self.enum_of_value:
            e.ref = ("enumval", n)
            return Ty("enum", arg=self.enum_of_value[n])
        if n in prog.enums:
            e.ref = ("enumtype", n)
            return Ty("enumtype", arg=n)
        hint_pool = list(scope.names) + list(prog.zones) + list(prog.counters) + list(self.enum_of_value) + list(
            prog.enums) + sorted(BUILTIN_VALUES)
        if n in prog.zones or (c is not None):
            owner = "a player" if (n in prog.zones or (c and c.scope == "player")) else "a card"
            self.err("E102", f"`{n}` belongs to {owner}; write it as `p.{n}`", e.span)
        elif n in prog.fns or n in prog.procs or n in BUILTIN_FUNCS:
            self.err("E102", f"`{n}` is a function; call it as `{n}(…)`", e.span)
        else:
            self.err("E101", f"unknown name `{n}`", e.span, hint=did_you_mean(n, hint_pool))
        return T.ANY

    def attr(self, e: A.Attr, scope: _Scope) -> Ty:
        assert self.prog is not None
        prog = self.prog
        base = self.expr(e.obj, scope)
        n = e.name
        if base.kind == "player":
            z = prog.zones.get(n)
            if z is not None and z.per_player:
                e.ref = ("pzone", z)
                self.used.add("zone:" + n)
                return T.zone(z.of_kind)
            c = prog.counters.get(n)
            if c is not None and c.scope == "player":
                e.ref = ("pcounter", c)
                self.used.add("counter:" + n)
                return T.BOOL if c.is_flag else T.INT
            cands = [k for k, z2 in prog.zones.items() if z2.per_player] + [
                k for k, c2 in prog.counters.items() if c2.scope == "player"]
            self.err("E101", f"players have no `{n}`", e.name_span, hint=did_you_mean(n, cands))
            return T.ANY
        if base.kind == "card":
            c = prog.counters.get(n)
            if c is not None and c.scope == "card":
                e.ref = ("ccounter", c)
                self.used.add("counter:" + n)
                return T.BOOL if c.is_flag else T.INT
            kinds = [base.arg] if base.arg else list(prog.kinds)
            found: list[Ty] = []
            for k in kinds:
                ft = prog.field_types.get(k, {})
                if n in ft:
                    found.append(ft[n])
            if not found:
                field_names: list[str] = []
                for k in kinds:
                    field_names += list(prog.field_types.get(k, {}))
                field_names += [k for k, c2 in prog.counters.items() if c2.scope == "card"]
                what = f"`{base.arg}` cards" if base.arg else "cards"
                self.err("E101", f"{what} have no field `{n}`", e.name_span, hint=did_you_mean(n, field_names))
                return T.ANY
            if any(f != found[0] for f in found):
                self.err("E145", f"field `{n}` has different types in different card kinds", e.span,
                         hint="declare the zone `of Kind` or use distinct field names")
            e.ref = ("field", n)
            return found[0]
        if base.kind == "any":
            return T.ANY
        self.err("E146", f"{base} has no fields", e.span)
        return T.ANY

    def call(self, e: A.Call, scope: _Scope, statement: bool) -> Ty:  # noqa: C901
        assert self.prog is not None
        prog = self.prog
        f = e.func
        if isinstance(f, A.Attr):
            base = self.expr(f.obj, scope)
            if base.kind not in ("card", "any"):
                self.attr(f, scope)
                self.err("E147", f"`{f.name}` is not something to call", f.span,
                         hint="only card effect and function fields, procedures and functions can be called")
                for a in e.args:
                    self.expr(a, scope)
                return T.ANY
            ftype = self.attr(f, scope) if base.kind == "card" else T.ANY
            f.ty = ftype
            if ftype.kind == "effect":
                if not statement:
                    self.err("E141", "an effect is run with `do`, it has no value", e.span)
                self.args(e.args, list(ftype.params), e.span, scope, f"effect `{f.name}`")
                e.ref = ("call_field", f.name, "effect")
                kinds = [base.arg] if base.arg else list(prog.kinds)
                for k in kinds:
                    if f.name in prog.field_types.get(k, {}):
                        self.calls.setdefault(self.owner, set()).add(f"field:{k}.{f.name}")
                return T.VOID
            if ftype.kind == "function":
                self.args(e.args, list(ftype.params), e.span, scope, f"function `{f.name}`")
                e.ref = ("call_field", f.name, "function")
                return ftype.ret or T.INT
            if ftype.kind != "any":
                self.err("E147", f"`{f.name}` is {ftype}, not something to call", f.span)
            for a in e.args:
                self.expr(a, scope)
            return T.ANY
        if not isinstance(f, A.Name):
            self.err("E147", "only named functions, procedures and card fields can be called", f.span)
            return T.ANY
        n = f.id
        if n in prog.procs:
            proc = prog.procs[n]
            self.used.add("proc:" + n)
            if not statement:
                self.err("E141", f"procedure `{n}` is run with `do`, it has no value", e.span)
            self.args(e.args, [self.resolve_type(p.type) for p in proc.params], e.span, scope, f"procedure `{n}`")
            e.ref = ("call_proc", proc)
            self.calls.setdefault(self.owner, set()).add(f"proc:{n}")
            return T.VOID
        if n in prog.fns:
            fn = prog.fns[n]
            self.used.add("fn:" + n)
            self.args(e.args, [self.resolve_type(p.type) for p in fn.params], e.span, scope, f"function `{n}`")
            e.ref = ("call_fn", fn)
            self.calls.setdefault(self.owner, set()).add(f"fn:{n}")
            return self.resolve_type(fn.ret)
        if n in BUILTIN_FUNCS:
            e.ref = ("call_builtin", n)
            return self.builtin(n, e, scope)
        self.err("E101", f"unknown function `{n}`", f.span,
                 hint=did_you_mean(n, list(prog.fns) + list(prog.procs) + sorted(BUILTIN_FUNCS)))
        for a in e.args:
            self.expr(a, scope)
        return T.ANY

    def builtin(self, n: str, e: A.Call, scope: _Scope) -> Ty:  # noqa: C901
        assert self.prog is not None
        args = e.args
        if self.reading and n in ("random", "roll"):
            self.err("E171", f"`{n}` in a `display`, `describe` or `prompt`: what a player is shown must not draw "
                     "from the game's random numbers", e.span,
                     hint="compute the value in a step and keep it in a counter")
        if n == "roll" and len(args) == 1 and isinstance(args[0], A.Name) and args[0].id in self.prog.dice \
                and args[0].id not in scope.names:
            args[0].ref = ("die", args[0].id)
            args[0].ty = T.TEXT
            return T.INT
        types = [self.expr(a, scope) for a in args]

        def arity(*ok: int) -> bool:
            if len(args) not in ok:
                self.err("E127", f"`{n}` takes {' or '.join(map(str, ok))} argument(s), {len(args)} given", e.span)
                return False
            return True

        if n == "size":
            if arity(1) and T.as_list(types[0]) is None:
                self.err("E140", f"`size` needs a zone, list or set, found {types[0]}", args[0].span)
            return T.INT
        if n in ("top", "bottom"):
            if not arity(1, 2):
                return T.ANY
            if types[0].kind not in ("zone", "any"):
                self.err("E140", f"`{n}` needs a zone, found {types[0]}", args[0].span)
                return T.ANY
            if len(args) == 2:
                if not T.assignable(types[1], T.INT):
                    self.err("E140", f"expected int, found {types[1]}", args[1].span)
                return T.list_of(T.card(types[0].arg))
            return T.card(types[0].arg)
        if n == "random":
            if not arity(1):
                return T.ANY
            lt = T.as_list(types[0])
            if lt is None:
                self.err("E140", f"`random` needs a list, found {types[0]}", args[0].span)
                return T.ANY
            return lt.elem or T.ANY
        if n == "roll":
            if not arity(1):
                return T.INT
            t = types[0]
            if t.kind == "enum" and t.arg:
                missing = [v for v in self.prog.enums.get(t.arg, []) if v not in self.prog.dice]
                if missing:
                    self.err("E148", f"no die named `{missing[0]}` for enum value of {t.arg}", args[0].span,
                             hint="declare a die for every value: die NAME { faces }")
            elif isinstance(args[0], A.Name) and args[0].id in self.prog.dice:
                args[0].ref = ("die", args[0].id)
                args[0].ty = T.TEXT
            elif t.kind != "any":
                self.err("E148", f"`roll` needs a die name or an enum value naming a die, found {t}", args[0].span)
            return T.INT
        if n == "value":
            if arity(1):
                decl = self._counter_of(args[0])
                if decl is None or decl.track_values is None:
                    self.err("E149", "`value` needs a track", args[0].span,
                             hint="declare one with: track NAME values [..]")
            return T.INT
        if n in ("min", "max"):
            if len(args) < 1:
                self.err("E127", f"`{n}` needs at least one argument", e.span)
            for a, t in zip(args, types, strict=True):
                if not T.assignable(t, T.INT):
                    self.err("E140", f"expected int, found {t}", a.span)
            return T.INT
        if n == "abs":
            if arity(1) and not T.assignable(types[0], T.INT):
                self.err("E140", f"expected int, found {types[0]}", args[0].span)
            return T.INT
        if n == "players_from":
            if arity(1) and not T.assignable(types[0], T.PLAYER):
                self.err("E140", f"expected player, found {types[0]}", args[0].span)
            return T.list_of(T.PLAYER)
        if n == "next_player":
            if arity(1) and not T.assignable(types[0], T.PLAYER):
                self.err("E140", f"expected player, found {types[0]}", args[0].span)
            return T.PLAYER
        if n == "owner":
            if arity(1) and not T.assignable(types[0], T.ANY_CARD):
                self.err("E140", f"expected card, found {types[0]}", args[0].span)
            return T.PLAYER
        return T.ANY  # pragma: no cover

    # ------------------------------------------------------------ analysis
    def _analyse(self, prog: Program) -> None:
        # which owners may suspend (need the step machine): fixpoint over calls
        susp = set(self.suspends_directly)
        changed = True
        while changed:
            changed = False
            for owner, callees in self.calls.items():
                if owner in susp:
                    continue
                if callees & susp:
                    susp.add(owner)
                    changed = True
        prog.suspending = susp
        spans = {"finish": next((d.span for d in self.rs.decls if isinstance(d, A.FinishDecl)), None),
                 "score": next((d.span for d in self.rs.decls if isinstance(d, A.ScoreDecl | A.WinnerDecl)), None)}
        for owner, what in (("finish", "`finish`"), ("score", "`score`, `tiebreak` and `winner`")):
            if owner in susp:
                self.err("E151", f"{what} cannot ask for decisions", spans[owner] or Span.point(self.rs.path, 1, 1),
                         hint="make the choice in a round step before `end game`")
        # unused declarations
        for name, z in prog.zones.items():
            if "zone:" + name not in self.used and not any(c.start == name for c in prog.cards):
                self.warn("W001", f"zone `{name}` is never used", z.span, hint="remove it or use it")
        for name, c in prog.counters.items():
            if "counter:" + name not in self.used and c.pool is None:
                self.warn("W001", f"counter `{name}` is never used", c.span, hint="remove it or use it")
        for name, p in prog.procs.items():
            if "proc:" + name not in self.used:
                self.warn("W001", f"procedure `{name}` is never called", p.span)
        for name, fn in prog.fns.items():
            if "fn:" + name not in self.used:
                self.warn("W001", f"function `{name}` is never called", fn.span)
        for name, w in prog.windows.items():
            if name not in prog.fired and prog.handlers.get(name):
                self.warn("W002", f"window `{name}` is never fired, so its handlers never run", w.span,
                          hint=f"add `fire {name}(…)` where it happens")
            elif name not in prog.handlers:
                self.warn("W001", f"window `{name}` has no handlers", w.span)
        self._unreachable_steps(prog)
        # reachable end: `end game` in setup, a reachable step, or anything they call or fire
        seen = {"setup"} | {f"step:{name}" for name in self.reachable_steps}
        todo = list(seen)
        while todo:
            for callee in self.calls.get(todo.pop(), ()):
                if callee not in seen:
                    seen.add(callee)
                    todo.append(callee)
        if not seen & self.ends:
            where = "anywhere" if not _contains(prog, A.EndGame) else "that the game can reach"
            self.warn("W003", f"no `end game` {where}: the game can only stop at the step limit",
                      prog.steps[0].span if prog.steps else Span.point(self.rs.path, 1, 1),
                      hint="add `end game` where the game is over (a step, a procedure it calls, or a handler)")
        # trigger cycles (a window whose handlers fire it again)
        self._trigger_cycles(prog)

    def _unreachable_steps(self, prog: Program) -> None:
        """Warn about steps that control flow can never enter.

        A step is entered by falling through from the step before it (the last
        wraps around to the first) or by a `skip to`.  A step whose body ends
        in an unconditional `skip to` or `end game` does not fall through.
        """
        steps = prog.steps
        index = {s.name: i for i, s in enumerate(steps)}
        reached: set[int] = set()
        todo = [0] if steps else []
        while todo:
            i = todo.pop()
            if i in reached:
                continue
            reached.add(i)
            falls_through = True
            for st in steps[i].body:
                if isinstance(st, A.SkipTo | A.EndGame):
                    falls_through = False
            for target in _skip_targets(steps[i].body):
                if target in index:
                    todo.append(index[target])
            if falls_through:
                todo.append((i + 1) % len(steps))
        self.reachable_steps = {steps[i].name for i in reached}
        for i, step in enumerate(steps):
            if i not in reached:
                self.warn("W005", f"step `{step.name}` can never be reached", step.span,
                          hint="an earlier step always skips past it or ends the game")

    def _trigger_cycles(self, prog: Program) -> None:
        graph: dict[str, set[str]] = {}
        for owner, callees in self.calls.items():
            graph.setdefault(owner, set()).update(callees)
        for wname, w in prog.windows.items():
            start = f"window:{wname}"
            stack = [(start, [start])]
            seen: set[str] = set()
            while stack:
                node, path = stack.pop()
                for nxt in graph.get(node, ()):
                    if nxt == start:
                        chain = " -> ".join(p.split(":", 1)[1] for p in [*path, nxt])
                        self.warn("W004", f"trigger chain can loop forever: {chain}", w.span,
                                  hint="make sure a condition ends the chain; at run time the trigger-depth "
                                       "limit stops it with an error")
                        stack = []
                        break
                    if nxt not in seen:
                        seen.add(nxt)
                        stack.append((nxt, [*path, nxt]))


def _walk(stmts: list[A.Stmt]) -> Iterator[A.Stmt]:
    """Every statement in ``stmts``, nested blocks included."""
    stack: list[Any] = list(stmts)
    while stack:
        s = stack.pop()
        yield s
        for attr in ("body", "orelse", "none_body"):
            v = getattr(s, attr, None)
            if isinstance(v, list):
                stack.extend(v)
        if isinstance(s, A.If):
            for _, body in s.branches:
                stack.extend(body)


def _skip_targets(stmts: list[A.Stmt]) -> list[str]:
    return [s.step for s in _walk(stmts) if isinstance(s, A.SkipTo)]


def describable(prog: Program, name: str) -> Ty | None:
    """The type of the options a `describe NAME(...)` labels: a card kind, an enum, `player` or `bool`."""
    if name in prog.kinds:
        return T.card(name)
    if name in prog.enums:
        return Ty("enum", arg=name)
    return {"player": T.PLAYER, "bool": T.BOOL}.get(name)


def _contains(prog: Program, cls: type) -> bool:
    bodies: list[list[A.Stmt]] = [prog.setup, prog.finish]
    bodies += [s.body for s in prog.steps]
    bodies += [p.body for p in prog.procs.values()]
    bodies += [h.body for hs in prog.handlers.values() for h in hs]
    for c in prog.cards:
        bodies += [v for v in c.values.values() if isinstance(v, list)]
    return any(isinstance(s, cls) for b in bodies for s in _walk(b))




def check_ruleset(ruleset: A.Ruleset) -> tuple[Program | None, list[Diagnostic]]:
    checker = Checker(ruleset)
    prog = checker.run()
    return prog, checker.diags
