"""Declarations: the game, options, counters, zones, types, enums, dice, card kinds and card files."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from liturgy.dsl.checker import modes as M
from liturgy.dsl.checker import types as T
from liturgy.dsl.checker.core import CheckerCore
from liturgy.dsl.checker.graphs import load_graph
from liturgy.dsl.checker.grids import check_grids, declare_grid
from liturgy.dsl.checker.program import AGGREGATES, BUILTIN_FUNCS, BUILTIN_VALUES, CARD_BUILTIN_FIELDS, Program
from liturgy.dsl.checker.types import Ty
from liturgy.dsl.constructs.grids import DIRECTION, DIRECTIONS
from liturgy.dsl.diagnostics import Span, did_you_mean
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.frontend.cards import load_card_file, resolve_card_paths

# An `option NAME: int LO..HI` lists its values where a game is set up (the web page's choices): keep that short.
MAX_INT_OPTION_VALUES = 1000

MAX_CARD_COPIES = 200_000  # physical cards in one game, at its largest player count


class DeclarationChecker(CheckerCore):
    """Collects every declaration into the program, with E1xx diagnostics for bad ones."""

    # ------------------------------------------------------------ declarations
    def _declare(self, seen: dict[str, Span], name: str, span: Span, what: str) -> bool:
        if name in seen:
            first = seen[name]
            where = f"line {first.line}" if first.file == span.file else f"{first.file}:{first.line}:{first.column}"
            self.err("E103", f"`{name}` is declared twice ({what})", span, hint=f"the first declaration is at {where}")
            return False
        seen[name] = span
        return True

    def _collect(self, prog: Program) -> None:
        """Every declaration into ``prog`` (one handler per kind, :data:`_DECLARE`), then the checks across
        kinds: built-in names, field types, zones' card kinds, counters' ranges."""
        names = _Names()
        for d in self.rs.decls:
            declare = _DECLARE.get(type(d))
            if declare is not None:
                declare(self, prog, d, names)
        self._check_global_names(prog, names.glob)
        self._check_mode_names(prog, names)
        self.diags.extend(M.place_steps(prog))
        self._type_fields(prog, names.card)
        self._check_zones(prog)
        self._check_counters(prog)
        self._check_graphs(prog)
        check_grids(self, prog)

    def _check_global_names(self, prog: Program, glob_names: dict[str, Span]) -> None:
        """A global name that is also a built-in shadows it in this ruleset (W080, a note); no global name is an
        enum value (E103); the ruleset has a round (E105).

        Shadowing rather than refusing is a promise of compatibility: every new built-in would otherwise break
        each ruleset that already had a `fn` or counter of that name (`height`, `line`, `dx`, …)."""
        for name in sorted(BUILTIN_VALUES | BUILTIN_FUNCS | AGGREGATES):
            if name in glob_names:
                self._shadows(name, glob_names[name], "ruleset")
            elif name in BUILTIN_VALUES and name in self.enum_value_spans:  # `enum Seat { first, second }`
                self._shadows(name, self.enum_value_spans[name], "ruleset")
        for name, span in glob_names.items():
            if name in self.enum_of_value:
                self.err("E103", f"`{name}` is both a declaration and an enum value", span)
        if not prog.steps:
            self.err("E105", "the ruleset has no `round` block", Span.point(self.rs.path, 1, 1),
                     hint='add: round { step play "Play" { ... } }')

    def _shadows(self, name: str, span: Span, where: str) -> None:
        self.warn("W080", f"`{name}` is declared here and shadows the built-in of the same name in this {where}",
                  span, hint=f"fine if meant; rename it to use the built-in `{name}`")

    def _type_fields(self, prog: Program, card_names: dict[str, Span]) -> None:
        """Each card kind's field types (built-in fields included); a field may not clash with a built-in card
        key (E104), another field or a per-card counter (E103)."""
        for kind in prog.kinds.values():
            ft: dict[str, Ty] = dict(CARD_BUILTIN_FIELDS)
            seen: dict[str, Span] = {}
            for f in kind.fields:
                if f.name in CARD_BUILTIN_FIELDS or f.name in ("count", "source", "text", "designer_note"):
                    self.err("E104", f"`{f.name}` is a built-in card key", f.span)
                    continue
                self._declare(seen, f.name, f.span, "field")
                ft[f.name] = self.resolve_type(f.type)
                if f.modifier is not None:
                    self._check_back(f, ft[f.name])
                if f.name in card_names:
                    self.err("E103", f"field `{f.name}` clashes with per-card counter `{f.name}`", f.span)
            prog.field_types[kind.name] = ft

    def _check_back(self, f: A.FieldDecl, ty: Ty) -> None:
        """`back NAME: T`: only a plain value can be printed on a card's back (a view shows it as text)."""
        if not f.back:
            self.err("E354", f"unknown field modifier `{f.modifier}`", f.span,
                     hint="the only modifier is `back` (the field is printed on the card's back)")
        elif ty.kind not in ("int", "bool", "text", "enum"):
            self.err("E353", f"a field printed on the back must be an int, bool, text or enum, not {ty}", f.span,
                     hint="keep cards, lists and effects on the face")

    def _check_zones(self, prog: Program) -> None:
        for z in prog.zones.values():
            if z.of_kind and z.of_kind not in prog.kinds:
                self.err("E101", f"unknown card kind `{z.of_kind}`", z.span, hint=did_you_mean(z.of_kind, prog.kinds))
            if z.order == "slot" and z.capacity is None:
                z.capacity = 1

    def _check_counters(self, prog: Program) -> None:
        for c in prog.counters.values():
            if c.option is not None:
                self._check_option(prog, c)
            if c.index_enum and c.index_enum not in prog.enums:
                self.err("E101", f"unknown enum `{c.index_enum}`", c.span, hint=did_you_mean(c.index_enum, prog.enums))
            if c.lo is not None and c.hi is not None and c.lo > c.hi and c.option is None:
                self.err("E110", f"counter `{c.name}` has an empty range {c.lo}..{c.hi}", c.span)
            if c.track_values is not None and c.track_values != sorted(c.track_values):
                self.warn("W010", f"track `{c.name}` values decrease along the track", c.span)
            if c.holds is not None:
                self._check_typed_counter(c)
            if c.seen_by == "owner" and c.scope != "player":
                self.err("E391", f"counter `{c.name}` has no owner: `visible to owner` needs `counter per player`",
                         c.span, hint="write `counter per player …`, or `hidden` for a value nobody sees")
            self._check_start(c)
        self._check_absent(prog)

    def _check_absent(self, prog: Program) -> None:
        """E112: `absent_while FLAG` must name a public `flag per player` of the whole game.

        The engine reads that flag to know which seats are not playing (``players`` leaves them out, a decision
        asked of one is a violation, views and play name them): a counter of another shape has no per-seat yes
        or no to read, a mode's flag does not exist outside its mode, and a hidden one would let the list of
        players, which everyone sees, leak it."""
        if prog.game.absent is None:
            return
        name, span = prog.game.absent
        self.used.add("counter:" + name)  # the engine reads it
        c = prog.counters.get(name)
        if c is None or type(c) is not A.CounterDecl:
            self.err("E112", f"`absent_while {name}`: no `flag per player {name}` is declared", span,
                     hint=f"declare `flag per player {name}` (true while a seat is not playing)"
                     + (f"; {did_you_mean(name, prog.counters)}" if did_you_mean(name, prog.counters) else ""))
            return
        shape = ("a global counter" if c.scope == "global" else "a counter per card" if c.scope == "card"
                 else "a counter, not a flag" if not c.is_flag else f"indexed by `{c.index_enum}`" if c.index_enum
                 else "hidden from some players" if c.seen_by else "")
        if shape:
            self.err("E112", f"`absent_while {name}`: `{name}` is {shape}; it must be a public `flag per player`",
                     span, hint=f"declare it `flag per player {name}` (everyone sees who is playing)")

    def _check_start(self, c: A.CounterDecl) -> None:
        """W050: a counter whose range leaves out 0 and says nothing about where it starts.

        Every other counter starts at 0, so an author who writes `counter level 1..5` easily expects 0 and then
        reads 1 (its lower bound) without being told; an explicit `= N` says which start was meant."""
        if c.default is not None or c.is_flag or c.track_values is not None or c.pool or c.option is not None:
            return
        lo, hi = c.lo, c.hi
        if (lo is not None and lo > 0) or (hi is not None and hi < 0):
            start = lo if lo is not None else 0
            self.warn("W050", f"counter `{c.name}` has the range {lo}..{hi}, which leaves out 0: it starts at "
                      f"{start}, not 0", c.span, hint=f"say where it starts: `= {start}` after the range")

    def _check_typed_counter(self, c: A.CounterDecl) -> None:
        """`counter NAME: T` holds an enum value, a player or a card, or `none`: a reference, not a number, so
        it has no range, is no flag and is not indexed by an enum (E320, E321)."""
        assert c.holds is not None
        held = self.resolve_type(c.holds)
        if held.kind not in ("enum", "player", "card", "any"):
            self.err("E320", f"counter `{c.name}` cannot hold {held}", c.holds.span,
                     hint="a counter holds a number, or with `: T` an enum value, a player or a card")
            return
        if c.is_flag or c.lo is not None or c.hi is not None or c.index_enum or c.reset_each_round:
            self.err("E321", f"counter `{c.name}` holds {held}: it takes no range, `flag`, `[Enum]` or reset",
                     c.span, hint=f"write `counter {c.name}: {held}` or `counter {c.name}: {held} = VALUE`")
            return
        c.held = held

    def _check_option(self, prog: Program, c: A.CounterDecl) -> None:
        """An option's type is an enum and its default one of that enum's values (E153)."""
        enum = c.option or ""
        if enum == "int":
            self._check_int_option(c)
            return
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

    def _check_int_option(self, c: A.CounterDecl) -> None:
        """`option NAME: int LO..HI = N`: a non-empty range of at most 1000 values, since every value is listed
        where a table is set up (the web page's choice of options), and a default inside it (E153)."""
        lo, hi, d = c.lo, c.hi, c.default
        assert lo is not None and hi is not None
        if not 0 <= hi - lo < MAX_INT_OPTION_VALUES:
            self.err("E153", f"option `{c.name}` has the range {lo}..{hi}: it must hold 1 to "
                     f"{MAX_INT_OPTION_VALUES} values", c.span, hint="write the smallest value first, e.g. 0..20")
            return
        value = d.value if isinstance(d, A.IntLit) else -d.operand.value \
            if isinstance(d, A.Unary) and d.op == "-" and isinstance(d.operand, A.IntLit) else None
        if not (isinstance(value, int) and lo <= value <= hi):
            self.err("E153", f"the default of option `{c.name}` must be a whole number in {lo}..{hi}",
                     d.span if d is not None else c.span, hint=f"e.g. `= {lo}`")
            return
        assert d is not None  # a number was found in it
        d.ty = T.INT
        if isinstance(d, A.Unary):
            d.operand.ty = T.INT

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
            if t.arg == "mode":  # a rule mode's name: a card can carry its own rules (`enter card.haunt`)
                return T.MODE
            if t.arg == "direction":  # a grid direction (`north`, …): a parameter, field or list item like any value
                return DIRECTION
            if t.span not in self.unknown_types:  # a parameter's type is resolved at every call: say it once
                self.unknown_types.add(t.span)
                self.err("E101", f"unknown type `{t.arg}`", t.span,
                         hint=did_you_mean(t.arg or "", list(self.prog.enums) + list(self.prog.kinds)
                                           + ["int", "bool", "text", "player", "card", "mode", "direction"]))
            return T.ANY
        return T.ANY

    # ------------------------------------------------------------ cards
    def _load_cards(self, prog: Program) -> None:
        zones = list(prog.zones)
        names: dict[str, Span] = {}
        # a field of type `mode` holds a mode's name, one of type `direction` a direction's: checked like an enum's
        # values (a ruleset's own enum of that name comes first)
        enums = {"mode": sorted(prog.modes), "direction": list(DIRECTIONS), **prog.enums}
        for d in self.rs.decls:
            if not isinstance(d, A.CardsDecl):
                continue
            files, diags = resolve_card_paths(self.rs.path, d.pattern, d.span)
            self.diags.extend(diags)
            for path in files:
                prog.card_files.append(path)
                cards, diags = load_card_file(path, prog.kinds, enums, zones)
                self.diags.extend(diags)
                for c in cards:
                    if c.name in names:
                        self.err("E103", f"card `{c.name}` is defined twice", c.span,
                                 hint=f"the first is at {names[c.name].file}:{names[c.name].line}")
                        continue
                    names[c.name] = c.span
                    zone = prog.zones[c.start]
                    if zone.per_card:
                        self.err("E352", f"`{c.name}` cannot start in `{c.start}`: it is a zone per card", c.span,
                                 hint="start it in a shared zone and move it onto its card in `setup`")
                    if zone.of_kind and zone.of_kind != c.kind:
                        self.err("E120", f"`{c.name}` is a {c.kind} but zone `{c.start}` holds {zone.of_kind}",
                                 c.span)
                    prog.cards.append(c)
        # every physical card is a few hundred bytes in every game: 10,000 cards x `count: 1000` in a zone per
        # player at 64 players once took 2.7 GB before the first step; the whole game is capped instead
        copies = sum(c.count * (prog.game.max_players if prog.zones[c.start].per_player else 1) for c in prog.cards)
        if copies > MAX_CARD_COPIES:
            self.err("E212", f"the card files make {copies} physical cards at {prog.game.max_players} players, "
                     f"more than {MAX_CARD_COPIES}", next(d.span for d in self.rs.decls if isinstance(d, A.CardsDecl)),
                     hint="lower the `count`s, or start per-player cards in a shared zone")

    # ------------------------------------------------------------ bodies

    # ------------------------------------------------------------ one method per declaration kind
    def _decl_enum(self, prog: Program, d: A.EnumDecl, names: _Names) -> None:
        if not self._declare(names.glob, d.name, d.span, "enum"):
            return
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
            self.enum_value_spans.setdefault(v, vspan)

    def _decl_die(self, prog: Program, d: A.DieDecl, names: _Names) -> None:
        if not self._declare(names.dice, d.name, d.span, "die"):
            return
        prog.dice[d.name] = d
        if not d.faces:
            self.err("E111", f"die `{d.name}` has no faces", d.span)
        if d.faces and all(x for _, x in d.faces):
            self.err("E111", f"every face of die `{d.name}` explodes, so a roll never ends", d.span,
                     hint="give the die at least one face without `+`")

    def _decl_card_kind(self, prog: Program, d: A.CardKindDecl, names: _Names) -> None:
        if self._declare(names.glob, d.name, d.span, "card kind"):
            prog.kinds[d.name] = d

    def _decl_zone(self, prog: Program, d: A.ZoneDecl, names: _Names) -> None:
        target = names.player if d.per_player else names.card if d.per_card else names.glob
        if self._declare(target, d.name, d.span, "zone"):
            prog.zones[d.name] = d
        if d.visibility_as is not None:
            span = d.as_span or d.span
            if not d.as_host:
                self.err("E351", f"a zone's visibility can follow only its host card, not `{d.visibility_as}`",
                         span, hint=f"write `{d.visibility} as host`")
            elif not d.per_card:
                self.err("E350", f"`as host` needs a zone per card: `{d.name}` lies on no card", span,
                         hint=f"declare it `zone {d.name}: per card …`, or drop `as host`")

    def _decl_graph(self, prog: Program, d: A.GraphDecl, names: _Names) -> None:
        if self._declare(names.glob, d.name, d.span, "graph"):
            prog.graphs[d.name] = d

    def _check_graphs(self, prog: Program) -> None:
        """Each graph's enums exist and its file reads as connections between their values (dsl/checker/graphs.py);
        the file counts as a card file for the ruleset's fingerprint."""
        for g in prog.graphs.values():
            missing = [e for e in (g.nodes, g.kinds) if e not in prog.enums]
            for e in missing:
                self.err("E101", f"unknown enum `{e}`", g.span, hint=did_you_mean(e, prog.enums))
            if missing:
                continue
            files, diags = resolve_card_paths(self.rs.path, g.path, g.span)
            self.diags.extend(diags)
            if len(files) != 1:
                if not diags:
                    self.err("E200", f"graph file `{g.path}` names {len(files)} files, not one", g.span)
                continue
            prog.card_files.append(files[0])
            self.diags.extend(load_graph(g, files[0], prog.enums[g.nodes], prog.enums[g.kinds]))

    def _decl_counter(self, prog: Program, d: A.CounterDecl, names: _Names) -> None:
        self._add_counter(prog, d, names.glob, names.player, names.card)

    def _decl_pool(self, prog: Program, d: A.PoolDecl, names: _Names) -> None:
        if d.name in prog.pools:
            self.err("E103", f"pool `{d.name}` is declared twice", d.span)
        prog.pools[d.name] = d
        for h in d.holders:
            self._add_counter(prog, h, names.glob, names.player, names.card)

    def _decl_window(self, prog: Program, d: A.WindowDecl, names: _Names) -> None:
        if self._declare(names.glob, "window " + d.name, d.span, "window"):
            prog.windows[d.name] = d

    def _decl_handler(self, prog: Program, d: A.HandlerDecl, names: _Names) -> None:
        prog.handlers.setdefault(d.window, []).append(d)

    def _decl_proc(self, prog: Program, d: A.ProcDecl, names: _Names) -> None:
        if self._declare(names.glob, d.name, d.span, "proc"):
            prog.procs[d.name] = d

    def _decl_fn(self, prog: Program, d: A.FnDecl, names: _Names) -> None:
        if self._declare(names.glob, d.name, d.span, "fn"):
            prog.fns[d.name] = d

    def _decl_setup(self, prog: Program, d: A.SetupDecl, names: _Names) -> None:
        if prog.setup:
            self.err("E103", "a second `setup` block", d.span)
        prog.setup = d.body

    def _decl_round(self, prog: Program, d: A.RoundDecl, names: _Names) -> None:
        if prog.steps:
            self.err("E103", "a second `round` block", d.span)
        steps: dict[str, Span] = {}
        for s in d.steps:
            self._declare(steps, s.name, s.span, "step")
        prog.steps = d.steps

    def _decl_finish(self, prog: Program, d: A.FinishDecl, names: _Names) -> None:
        prog.finish = d.body

    def _decl_score(self, prog: Program, d: A.ScoreDecl, names: _Names) -> None:
        if d.tiebreak:
            prog.tiebreaks.append(d)
        elif prog.score is not None:
            self.err("E103", "a second `score` declaration", d.span)
        else:
            prog.score = d

    def _decl_winner(self, prog: Program, d: A.WinnerDecl, names: _Names) -> None:
        if prog.winner is not None:
            self.err("E103", "a second `winner` declaration", d.span)
        else:
            prog.winner = d

    def _decl_report(self, prog: Program, d: A.ReportDecl, names: _Names) -> None:
        """Reports have a namespace of their own (the keys of the result's ``reports``): a name twice is E103."""
        if any(r.name == d.name for r in prog.reports):
            self.err("E103", f"`{d.name}` is reported twice", d.span, hint="give each `report` its own name")
        else:
            prog.reports.append(d)

    def _decl_invariant(self, prog: Program, d: A.InvariantDecl, names: _Names) -> None:
        prog.invariants.append(d)

    def _decl_display(self, prog: Program, d: A.DisplayDecl, names: _Names) -> None:
        if prog.display is not None:
            self.err("E103", "a second `display` declaration", d.span)
        else:
            prog.display = d

    def _decl_mode(self, prog: Program, d: A.ModeDecl, names: _Names) -> None:
        """A rule mode: its flag, and its declarations under qualified names (dsl/checker/modes.py); duplicates
        inside it are E103, as in the core."""
        if not self._declare(names.glob, d.name, d.span, "mode"):
            return
        m = M.new_mode(d)
        prog.modes[d.name] = m
        prog.counters[m.flag.name] = m.flag
        self.used.add("counter:" + m.flag.name)
        inner, scratch = _Names(), Program(prog.path, prog.game)
        for x in d.decls:
            if isinstance(x, A.StepDecl):
                m.steps.append(x)
                m.owned.add(id(x))
            elif isinstance(x, A.HandlerDecl):
                x.body = M.guard(m, x.body, x.span)
                m.handlers.append(x)
                m.owned.add(id(x))
                prog.handlers.setdefault(x.window, []).append(x)
            else:
                _DECLARE[type(x)](self, scratch, x, inner)
        for z in scratch.zones.values():
            m.zones[M.qualify(m, z)] = z
            prog.zones[z.name] = z
        for c in scratch.counters.values():
            m.counters[M.qualify(m, c)] = c
            prog.counters[c.name] = c
        for fn in scratch.fns.values():
            m.fns[M.qualify(m, fn)] = fn
            prog.fns[fn.name] = fn
            m.owned.add(id(fn))
        for proc in scratch.procs.values():
            m.procs[M.qualify(m, proc)] = proc
            prog.procs[proc.name] = proc
            m.owned.add(id(proc))

    def _check_mode_names(self, prog: Program, names: _Names) -> None:
        """E372: a name declared in a mode is also a name outside it (the core's, an enum value); a built-in's
        name shadows the built-in inside the mode (W080)."""
        taken = {**names.glob, **names.player, **names.card}
        for m in prog.modes.values():
            for short, span in m.names.items():
                if short in BUILTIN_VALUES | BUILTIN_FUNCS | AGGREGATES and short not in taken:
                    self._shadows(short, span, "mode")
                elif short in taken or short in self.enum_of_value:
                    self.err("E372", f"`{short}` in mode `{m.name}` is also declared outside the mode", span,
                             hint="names inside a mode must differ from the core's; rename one of them")

    def _decl_describe(self, prog: Program, d: A.DescribeDecl, names: _Names) -> None:
        if d.kind in prog.describes:
            self.err("E103", f"a second `describe` for card kind `{d.kind}`", d.span)
        else:
            prog.describes[d.kind] = d

    def _decl_describe_names(self, prog: Program, d: A.DescribeNames, names: _Names) -> None:
        prog.name_decls.append(d)  # checked with `describe` (statements.py), once every enum is declared


@dataclass
class _Names:
    """Names declared so far, per namespace: global, per player, per card, dice."""

    glob: dict[str, Span] = field(default_factory=dict)
    player: dict[str, Span] = field(default_factory=dict)
    card: dict[str, Span] = field(default_factory=dict)
    dice: dict[str, Span] = field(default_factory=dict)


# Each declaration kind, and the method that records it (a kind missing here is a bug: see tests/test_registry.py).
_DECLARE: dict[type[A.Decl], Callable[[DeclarationChecker, Program, Any, _Names], None]] = {
    A.EnumDecl: DeclarationChecker._decl_enum,
    A.DieDecl: DeclarationChecker._decl_die,
    A.CardKindDecl: DeclarationChecker._decl_card_kind,
    A.ZoneDecl: DeclarationChecker._decl_zone,
    A.GraphDecl: DeclarationChecker._decl_graph,
    A.CounterDecl: DeclarationChecker._decl_counter,
    A.PoolDecl: DeclarationChecker._decl_pool,
    A.WindowDecl: DeclarationChecker._decl_window,
    A.HandlerDecl: DeclarationChecker._decl_handler,
    A.ProcDecl: DeclarationChecker._decl_proc,
    A.FnDecl: DeclarationChecker._decl_fn,
    A.SetupDecl: DeclarationChecker._decl_setup,
    A.RoundDecl: DeclarationChecker._decl_round,
    A.FinishDecl: DeclarationChecker._decl_finish,
    A.ScoreDecl: DeclarationChecker._decl_score,
    A.WinnerDecl: DeclarationChecker._decl_winner,
    A.ReportDecl: DeclarationChecker._decl_report,
    A.InvariantDecl: DeclarationChecker._decl_invariant,
    A.DisplayDecl: DeclarationChecker._decl_display,
    A.DescribeDecl: DeclarationChecker._decl_describe,
    A.DescribeNames: DeclarationChecker._decl_describe_names,
    A.GridDecl: lambda chk, prog, d, names: declare_grid(chk, prog, d, names.glob),
    A.ModeDecl: DeclarationChecker._decl_mode,
}
