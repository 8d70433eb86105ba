"""Statements and bodies: rounds, steps, procs, handlers, card effects, displays and prompts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from liturgy.dsl.checker import modes as M
from liturgy.dsl.checker import types as T
from liturgy.dsl.checker.expressions import ExpressionChecker
from liturgy.dsl.checker.graphs import declare_overlay, overlay_name
from liturgy.dsl.checker.program import BUILTIN_VALUES, Program, _Scope
from liturgy.dsl.checker.walk import describable
from liturgy.dsl.diagnostics import Span, did_you_mean
from liturgy.dsl.frontend import ast as A

# what an assignment may write: counters of every scope (an enum-indexed one too), `first`, a grid cell
_ASSIGNABLE = ("counter", "pcounter", "ccounter", "icounter", "first", "gridcell")

class StatementChecker(ExpressionChecker):
    """Checks every body of the program, statement by statement."""

    def _check_bodies(self, prog: Program) -> None:
        """Every body, in the order diagnostics have always come: defaults, callables, setup, steps, finish,
        outcome, invariants, display, card values."""
        self._check_field_defaults(prog)
        self._check_callables(prog)
        self.owner = "setup"
        self.block(prog.setup, _Scope(where="setup"))
        placed = {id(s) for s in prog.steps}
        unplaced = [s for m in prog.modes.values() for s in m.steps if id(s) not in placed]  # E371 or E372
        for s in prog.steps + unplaced:
            self.owner = f"step:{s.name}"
            with M.scope(prog, s):
                self.block(s.body, _Scope(in_step=True, where="step"))
        self.owner = "finish"
        self.block(prog.finish, _Scope(where="finish"))
        self._check_outcome(prog)
        step_names = [st.name for st in prog.steps]
        for inv in prog.invariants:
            self.expect(inv.expr, T.BOOL, _Scope())
            for name, span in inv.outside:
                if name not in step_names:
                    self.err("E101", f"unknown step `{name}`", span, hint=did_you_mean(name, step_names))
        self._check_display(prog)
        self._check_zone_groups(prog)
        self._check_counter_starts(prog)
        self._check_card_values(prog)
        for m in M.never_named(prog):
            self.warn("W065", f"mode `{m.name}` is never entered: nothing names it", m.decl.span,
                      hint=f"add `enter {m.name}` where it begins, or give a card a `mode` field that holds it")

    def _check_counter_starts(self, prog: Program) -> None:
        """A typed counter's `= VALUE` is a value of its type, known before the game starts (no state)."""
        for c in prog.counters.values():
            if c.held is not None and c.default is not None:
                self.owner = f"counter:{c.name}"
                self.expect(c.default, c.held, _Scope())
                if not isinstance(c.default, A.NoneLit | A.Name) or (
                        isinstance(c.default, A.Name) and c.default.ref is not None and c.default.ref[0] != "enumval"):
                    self.err("E322", f"counter `{c.name}` must start at `none` or at a value of its enum",
                             c.default.span, hint="set it in `setup` instead, where players and cards exist")

    def _check_zone_groups(self, prog: Program) -> None:
        """`visible to EXPR`: a group of players computed from the state whenever a view or a log line asks, so
        read-only like a `display` (E171); a per-player zone's expression names its player `owner`."""
        reading, self.reading = self.reading, True
        for z in prog.zones.values():
            if z.group is not None:
                prog.group_visibility = True
                self.owner = f"zone:{z.name}"
                self.players(z.group, _Scope({"owner": T.PLAYER} if z.per_player else {}), "`visible to`")
        for c in [*prog.counters.values(), *prog.grids.values()]:  # counters and grids `visible to` a group
            if c.seen_group is not None:
                self.owner = f"counter:{c.name}"
                self.players(c.seen_group, _Scope({"owner": T.PLAYER} if c.scope == "player" else {}),
                             "`visible to`")
        self.reading = reading

    def _check_outcome(self, prog: Program) -> None:
        """`score`, `tiebreak` and `winner`: typed per player; a tiebreak beside `winner` is E172."""
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
        for r in prog.reports:  # read with the outcome, once the game has ended: the same owner
            got = self.expr(r.expr, _Scope())
            if not _reportable(got):
                self.err("E175", f"`report {r.name}` has type `{got}`: a result holds plain values only", r.expr.span,
                         hint="report numbers, yes/no, text, enum values or players, or lists of them "
                              "(a card's name: `c.name`; a zone's size: `size(z)`)")

    def _check_card_values(self, prog: Program) -> None:
        """Card files' field values: effects are checked as blocks, functions as expressions, in the card's
        scope (``self``, the field's parameters); player and card fields cannot be set in a file (E128)."""
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
                    c.values[f.name] = self.expect_value(value, fty.ret or T.INT, scope)

    def _check_field_defaults(self, prog: Program) -> None:
        """Card fields' defaults: an effect's is `none`, a function's is typed in its parameters' scope."""
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
                    f.default = self.expect_value(f.default, fty.ret or T.INT, scope)
                else:
                    self.expect(f.default, fty, _Scope())

    def _check_callables(self, prog: Program) -> None:
        """Bodies of `fn`s, procs and handlers (a handler's parameters must match its window's, E131)."""
        for fn in prog.fns.values():
            self.owner = f"fn:{fn.name}"
            with M.scope(prog, fn):
                scope = _Scope({p.name: self.resolve_type(p.type) for p in fn.params})
                fn.body = self.expect_value(fn.body, self.resolve_type(fn.ret), scope)
        for proc in prog.procs.values():
            self.owner = f"proc:{proc.name}"
            with M.scope(prog, proc):
                self.block(proc.body, _Scope({p.name: self.resolve_type(p.type) for p in proc.params},
                                             where="proc"))
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
                with M.scope(prog, h):
                    self.block(h.body, _Scope({p.name: self.resolve_type(p.type) for p in h.params},
                                              where="handler"))

    def block(self, stmts: list[A.Stmt], scope: _Scope) -> None:
        i = 0
        while i < len(stmts):
            s = stmts[i]
            if isinstance(s, A.Choose) and s.or_pass is not None:
                stmts[i:i + 1] = self._or_pass(s)
                continue
            self.stmt(s, scope)
            i += 1

    def _or_pass(self, s: A.Choose) -> list[A.Stmt]:
        """`choose x from L where C by P { body } or pass ["LABEL"] [otherwise { E }]`: P must choose when an
        item qualifies and is offered only LABEL (`pass`) when none does, which then runs E.

        Written with the choices every later pass already knows, so the compiler, the generated code, views and
        the adapters need nothing new: the options once, into a local, then a plain choice when there are some
        and an `optional "LABEL"` choice (asked even with no item, its one option LABEL) when there are none.
        `optional` and `or pass` together would say two things about passing (E174)."""
        if s.optional:
            self.err("E174", "a choice is `optional` or `or pass`, not both", s.or_pass_span or s.span,
                     hint="`optional` always offers `pass`; `or pass` offers it only when there is nothing to choose")
        at = s.span
        name = f"or_pass_options_{at.line}_{at.column}"
        options = A.ListComp(s.source.span, elem=A.Name(at, id=s.var), var=s.var, iterable=s.source, where=s.where)
        label = s.or_pass or "pass"
        chosen = A.Choose(at, s.var, A.Name(at, id=name), None, s.chooser, False, s.body, None, prompt=s.prompt)
        passed = A.Choose(at, s.var, A.Name(at, id=name), None, s.chooser, True, [], s.none_body or [], label,
                          s.or_pass_span, s.prompt)
        # `any(true for x in NAME)`: an aggregate, which a ruleset's own `fn any` or `fn size` cannot shadow
        some = A.Aggregate(at, "any", at, A.BoolLit(at, True), s.var, A.Name(at, id=name), None)
        return [A.Let(at, name, options), A.If(at, [(some, [chosen])], [passed])]

    def stmt(self, s: A.Stmt, scope: _Scope) -> None:
        STMT_HANDLERS[type(s)](self, s, scope)

    def let(self, s: A.Let, scope: _Scope) -> None:
        self.local_name(s.name, s.span)
        scope.names[s.name] = self.value_type(self.expr(s.value, scope), s.value)

    def move(self, s: A.Move, scope: _Scope) -> None:
        t = self.expr(s.what, scope)
        is_cards = t.kind == "list" and t.elem is not None and t.elem.kind in ("card", "any")
        if t.kind not in ("card", "zone", "any") and not is_cards:
            self.err("E121", f"`move` needs a card, a list of cards or a zone, not {t}", s.what.span)
        dest = self.zone_type(s.dest, scope)
        kind = t.elem.arg if is_cards and t.elem is not None else t.arg if t.kind in ("card", "zone") else None
        if kind and dest.kind == "zone" and dest.arg and dest.arg != kind:
            # the zone would hold a card whose fields its readers (`top(z).field`) do not have: they read `none`
            self.err("E340", f"cannot move {'cards' if t.kind != 'card' else 'a card'} of kind `{kind}` into a zone "
                     f"of `{dest.arg}`", s.span,
                     hint=f"move it to a zone declared `of {kind}`, or declare the zone without `of {dest.arg}`")

    def reveal(self, s: A.Reveal, scope: _Scope) -> None:
        t = self.expr(s.target, scope)
        if t.kind not in ("zone", "card", "any"):
            self.err("E121", f"`reveal` needs a zone or a card, not {t}", s.target.span)
        if s.to is not None:
            self.players(s.to, scope, "`reveal … to`")
            if self.prog is not None:
                self.prog.group_visibility = True

    def players(self, e: A.Expr, scope: _Scope, what: str) -> None:
        """A group of players (`log to`, `reveal … to`, `visible to`): one player or a list of players."""
        t = self.expr(e, scope)
        if t.kind == "any" or t == T.PLAYER or (t.kind == "list" and t.elem == T.PLAYER):
            return
        self.err("E390", f"{what} needs a player or a list of players, not {t}", e.span,
                 hint="e.g. `[p for p in players where p.team == 1]`, or a `fn` that returns `list of player`")

    def transfer(self, s: A.Transfer, scope: _Scope) -> None:
        if s.amount is not None:
            self.expect(s.amount, T.INT, scope)
        p1 = self.holder(s.source, scope)
        p2 = self.holder(s.dest, scope)
        if p1 and p2 and p1 != p2:
            self.err("E122", f"cannot transfer between pools `{p1}` and `{p2}`", s.span,
                     hint="tokens move only between holders of the same pool")
        if s.bind:
            scope.names[s.bind] = T.INT

    def if_(self, s: A.If, scope: _Scope) -> None:
        for cond, body in s.branches:
            if isinstance(cond, A.NoneLit):
                # the first rulesets wrote `choose … { … } if none { … }`; `none` is never a condition, so this
                # is that old form, renamed `otherwise` (docs/compatibility.md): say so instead of E140
                self.err("E380", "`if none` after a choice is now written `otherwise`", s.span,
                         hint="write `} otherwise {` (it also runs when the chooser passes)")
                self.block(body, scope.child())
                continue
            self.expect(cond, T.BOOL, scope)
            self.block(body, scope.child())
        self.block(s.orelse, scope.child())

    def for_(self, s: A.For, scope: _Scope) -> None:
        elem = self.iter_elem(s.iterable, scope)
        inner = scope.child(**{s.var: elem})
        inner.loops += 1
        self.block(s.body, inner)

    def repeat_while(self, s: A.RepeatWhile, scope: _Scope) -> None:
        self.expect(s.cond, T.BOOL, scope)
        inner = scope.child()
        inner.loops += 1
        self.block(s.body, inner)

    def break_(self, s: A.Break, scope: _Scope) -> None:
        if scope.loops == 0:
            self.err("E132", "`break` outside a loop", s.span)

    def choose(self, s: A.Choose, scope: _Scope) -> None:
        elem = self.iter_elem(s.source, scope)
        self.shows(elem, s.source.span)
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

    def simultaneous(self, s: A.Simultaneous, scope: _Scope) -> None:
        ptype = self.iter_elem(s.players, scope)
        if s.by is None and not T.assignable(ptype, T.PLAYER):
            self.err("E123", f"`simultaneously` needs a list of players, not a list of {ptype}", s.players.span,
                     hint="to let a player choose for each item of the list, name who decides: "
                     "`simultaneously … by PLAYER`")
        inner = scope.child(**{s.player_var: T.PLAYER if s.by is None else ptype})
        if s.by is not None:
            self.expect(s.by, T.PLAYER, inner)
        elem = self.iter_elem(s.source, inner)
        self.shows(elem, s.source.span)
        if s.prompt is not None:
            self._prompt(s.prompt, inner)
        inner.names[s.var] = elem
        if s.where is not None:
            self.expect(s.where, T.BOOL, inner)
        self.suspends_directly.add(self.owner)
        self.block(s.body, inner)

    def fire(self, s: A.Fire, scope: _Scope) -> None:
        assert self.prog is not None
        w = self.prog.windows.get(s.window)
        self.calls.setdefault(self.owner, set()).add(f"window:{s.window}")
        self.prog.fired.add(s.window)
        if w is None:
            self.err("E101", f"unknown window `{s.window}`", s.span, hint=did_you_mean(s.window, self.prog.windows))
            for a in s.args:
                self.expr(a, scope)
        else:
            self.args(s.args, [self.resolve_type(p.type) for p in w.params], s.span, scope, f"window `{s.window}`")

    def end_game(self, s: A.EndGame, scope: _Scope) -> None:
        self.ends.add(self.owner)

    def skip_to(self, s: A.SkipTo, scope: _Scope) -> None:
        assert self.prog is not None
        if not scope.in_step:
            self.err("E133", "`skip to` is only allowed directly in a round step", s.span,
                     hint="procs, handlers and cards cannot jump; set a flag and test it in the step")
        elif s.step not in {st.name for st in self.prog.steps}:
            self.err("E101", f"unknown step `{s.step}`", s.span,
                     hint=did_you_mean(s.step, [st.name for st in self.prog.steps]))

    def log(self, s: A.Log, scope: _Scope) -> None:
        if s.to is not None:
            self.players(s.to, scope, "`log to`")
        for a in s.args:
            self.shows(self.expr(a, scope), a.span)
        holes = s.text.count("{}")
        if holes != len(s.args):
            self.err("E134", f"log text has {holes} `{{}}` but {len(s.args)} values follow", s.span)

    def mode_switch(self, s: A.ModeSwitch, scope: _Scope) -> None:
        """`enter MODE` / `leave MODE`: MODE is a mode's name or a `mode` value (a card's field); E370 for a
        name that is nothing at all."""
        assert self.prog is not None
        prog = self.prog
        e = s.mode
        if isinstance(e, A.Name) and not (e.id in scope.names or e.id in prog.modes or e.id in prog.zones
                                          or e.id in prog.counters or e.id in self.enum_of_value
                                          or e.id in prog.enums or e.id in BUILTIN_VALUES or e.id == "self"):
            word = "enter" if s.enter else "leave"
            self.err("E370", f"unknown mode `{e.id}`", e.span,
                     hint=did_you_mean(e.id, prog.modes) or f"declare it: mode {e.id} {{ … }}, then `{word} {e.id}`")
            e.ty = T.ANY
            return
        self.expect(e, T.MODE, scope)

    def graph_link(self, s: A.GraphLink, scope: _Scope) -> None:
        """`link A to B on G by K` / `unlink A from B on G [by K]`: G a graph (E325), A and B its places, K one of
        its kinds; `link` needs `by` (E326: a connection always has a kind)."""
        assert self.prog is not None
        graph = self.prog.graphs.get(s.graph)
        if graph is None:
            self.err("E325", f"`{s.graph}` is not a graph", s.graph_span,
                     hint=did_you_mean(s.graph, self.prog.graphs) or "declare it: graph NAME: Places by Kinds from "
                     '"file.yaml"')
            for e in (s.a, s.b, s.kind):
                if e is not None:
                    self.expr(e, scope)
            return
        place = T.Ty("enum", arg=graph.nodes)
        self.expect(s.a, place, scope)
        self.expect(s.b, place, scope)
        if s.kind is not None:
            self.expect(s.kind, T.Ty("enum", arg=graph.kinds), scope)
        elif s.link:
            self.err("E326", f"`link` on `{s.graph}` needs the kind of the connection", s.span,
                     hint=f"add `by KIND`, one of {graph.kinds}: "
                     f"{', '.join(self.prog.enums.get(graph.kinds, [])[:4])}")
        declare_overlay(self.prog.counters, graph)
        self.used.add("counter:" + overlay_name(graph.name))

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
                         hint=did_you_mean(desc.kind, [*prog.kinds, *prog.enums, "player", "bool", "int"]) or
                         "`describe` takes a card kind, an enum, `player`, `bool` or `int`")
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
            self.shows(self.expr(a, scope), a.span)
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
            if not (ref is not None and ref[0] in _ASSIGNABLE):
                self.err("E124", "only counters, flags, tracks, grid cells, `first` and `let` names can be assigned",
                         tgt.span)
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
            s.value = self.expect_value(s.value, tt, scope)

    def holder(self, e: A.Expr, scope: _Scope) -> str | None:
        self.expr(e, scope)
        decl = self._counter_of(e)
        if decl is None or decl.pool is None:
            self.err("E122", "tokens can only be transferred between pool holders", e.span,
                     hint="declare holders in a `pool { … }` block")
            return None
        return decl.pool

    def zone_target(self, e: A.Expr, scope: _Scope) -> None:
        self.zone_type(e, scope)

    def zone_type(self, e: A.Expr, scope: _Scope) -> T.Ty:
        """The type of an expression that must be a zone (E121 when it is not): `move`'s and `shuffle`'s target."""
        t = self.expr(e, scope)
        if t.kind not in ("zone", "any"):
            self.err("E121", f"expected a zone, found {t}", e.span)
        return t

    def do_call(self, s: A.Do, scope: _Scope) -> None:
        call = s.call
        if not isinstance(call, A.Call):
            self.err("E126", "`do` needs a procedure or effect call like `do hurt(p, 1)`", call.span)
            return
        t = self.expr(call, scope, statement=True)
        ref = call.ref
        if t.kind != "any" and not (ref is not None and (ref[0] == "call_proc" or ref[:3:2] == (
                "call_field", "effect"))):
            self.err("E126", "`do` runs a procedure or a card effect; this call computes a value", call.span,
                     hint="use `let x = …` to keep a value")


# One handler per statement kind of the registry (dsl/constructs/statements.py); tests/test_registry.py holds
# the two to agreement.
STMT_HANDLERS: dict[type[A.Stmt], Callable[[StatementChecker, Any, _Scope], None]] = {
    A.Let: StatementChecker.let,
    A.Assign: StatementChecker.assign,
    A.Move: StatementChecker.move,
    A.Shuffle: lambda chk, s, scope: chk.zone_target(s.zone, scope),
    A.Reveal: StatementChecker.reveal,
    A.Transfer: StatementChecker.transfer,
    A.If: StatementChecker.if_,
    A.For: StatementChecker.for_,
    A.RepeatWhile: StatementChecker.repeat_while,
    A.Break: StatementChecker.break_,
    A.Choose: StatementChecker.choose,
    A.Simultaneous: StatementChecker.simultaneous,
    A.Do: StatementChecker.do_call,
    A.Fire: StatementChecker.fire,
    A.EndGame: StatementChecker.end_game,
    A.SkipTo: StatementChecker.skip_to,
    A.Log: StatementChecker.log,
    A.ModeSwitch: StatementChecker.mode_switch,
    A.GraphLink: StatementChecker.graph_link,
}


def _reportable(t: T.Ty) -> bool:
    """What a `report` may hold: values that go into a result (JSON, a save) as they are, so no card or zone
    (numbers standing for things only the game's tables can name) and no effect or function."""
    if t.kind == "list":
        return t.elem is None or _reportable(t.elem)
    return t.kind in ("int", "bool", "text", "enum", "player", "none", "any")
