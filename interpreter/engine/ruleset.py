"""A compiled ruleset: card data tables, option values, game templates; starts and loads games."""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from contextlib import nullcontext
from operator import itemgetter
from random import Random as _Random
from types import MethodType as _Bound
from typing import Any

from liturgy.dsl.checkcache import check_cached
from liturgy.dsl.checker.program import Program
from liturgy.dsl.checker.types import Ty
from liturgy.dsl.constructs.grids import cell_start
from liturgy.dsl.diagnostics import LiturgyError
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.codegen import GENERATORS, codecache
from liturgy.interpreter.compiler.code import FIRST_SLOT, ROUND_SLOT, Code
from liturgy.interpreter.compiler.compiler import Compiler
from liturgy.interpreter.compiler.display import Display
from liturgy.interpreter.engine import checkpick
from liturgy.interpreter.engine.game import Game, uniform_picker
from liturgy.interpreter.engine.saves import load_verified
from liturgy.interpreter.runtime import invariants
from liturgy.interpreter.runtime.moves import hosted_mask, players_mask, zone_vis_masks
from liturgy.interpreter.runtime.rng import mt_below
from liturgy.interpreter.runtime.state import GameState, Tables

# The start of every game with one player count and options: tables, counters, zones, card -> zone.
Template = tuple[Tables, list[Any], list[list[int]], list[int]]
# Templates are keyed by the player count alone when no option is given, else (players, sorted options).
TemplateKey = int | tuple[int, tuple[tuple[str, str], ...]]

# object.__new__ as a module name, for new_game's Game made without a class call: Python 3.11 specializes no call of
# a class, so ``Game(...)`` ran ``type.__call__``, looked up ``__init__`` and entered it as a frame of its own, about
# 0.8 % of a Kuhn playout (docs/performance.md, Session 24); what __init__ sets is set in new_game in the same order
# (tests/test_new_game_playout.py compares the two games' attributes)
_new = object.__new__
_copy = list.copy  # as in GameState.start: the specialized call of a method descriptor, not a slice


class Ruleset:
    """A parsed, checked and compiled ruleset; it creates games."""

    def __init__(self, program: Program, codegen: bool = True, stmtgen: bool = True, inline_fns: bool = True,
                 fuse: bool = True, notes: bool = False, card_data_of: Ruleset | None = None) -> None:
        """``notes``: compile the variant whose code notes every counter slot and zone it writes, for the invariant
        certificate (:meth:`noted`); games of a ruleset compiled without it run code with no note at all.
        ``card_data_of``: read that ruleset's printed card data (its field lists, already filled) rather than a
        copy: one list per field for both compiles of a program, so nothing can tell them apart."""
        self.program = program
        self._modes = {"codegen": codegen, "stmtgen": stmtgen, "inline_fns": inline_fns, "fuse": fuse}
        self.notes = notes
        self._noted: Ruleset | None = None  # built by noted() (not self when notes: no cycle to keep it alive)
        self._plain: weakref.ref[Ruleset] | None = None  # a noted variant: the ruleset it was compiled for
        # the compile cache's bytecode bundle this compile used (load_ruleset's), which names the noted variant's
        self._bundle = codecache.stored_bundle()
        generators = GENERATORS if codegen else None  # the compiler is handed the code generators
        self.compiled = Compiler(program, generators, stmtgen, inline_fns, fuse, notes)
        self._shares_card_data = card_data_of is not None
        if card_data_of is not None:
            self.compiled.field_lists = card_data_of.compiled.field_lists
        self.name = program.game.title
        # the ruleset's and card files' SHA-256 when loaded from files ("" otherwise): saves record it
        self.fingerprint = program.fingerprint
        self.min_players = program.game.min_players
        self.max_players = program.game.max_players
        # Every declared option and its values, and every `option NAME: int LO..HI` with its range (their values
        # are whole numbers, not enum names): built once, as new_game checks its options on every call (scanning
        # every counter declaration was ~2 % of a Slay the Spire combat). Plain attributes set here, not
        # functools.cached_property: that reads the instance's `__dict__`, which in Python 3.11 turns the inline
        # attribute values into a split dictionary that the specialized attribute load cannot read, so every
        # later `self.compiled`, `self.step_limit`, … of the step loop took the generic lookup (about 1 % of a
        # Kuhn playout, callgrind; docs/performance.md, Session 21)
        self._option_values: dict[str, tuple[str, ...]] = {
            n: tuple(str(v) for v in range(c.lo or 0, (c.hi or 0) + 1)) if c.option == "int"
            else tuple(program.enums[c.option]) for n, c in program.counters.items() if c.option is not None}
        self._int_options: dict[str, tuple[int, int]] = {
            n: (c.lo or 0, c.hi or 0) for n, c in program.counters.items() if c.option == "int"}
        # the card data before the code: the generators tabulate expressions of printed fields (codegen/cardtab.py)
        self._fill_card_data()
        self.compiled.compile()
        self.step_limit = program.game.step_limit
        # whether the ruleset has a `finish` block (the game's scoring in Game._advance calls its function only then)
        self.has_finish = bool(program.finish)
        self._tables: dict[int, tuple[Tables, list[Any], list[list[int]], list[int]]] = {}
        self._templates: dict[TemplateKey, Template] = {}
        self._certs: dict[TemplateKey, invariants.Certified | None] = {}
        # option labels of choices whose labels depend on the options alone (Game.next_choice): a search asks them
        # at every node of every simulation
        self.label_cache: dict[tuple[int, str, Any], tuple[str, ...]] = {}
        # each log entry's line per viewer (engine/views.py, log_lines), keyed by the entry's and tables' identity
        self.line_cache: dict[tuple[int, int, int | None], tuple[tuple[Any, ...], Tables, str | None]] = {}
        self.codes: list[Code] = self.compiled.codes
        self.display = Display(program, self.compiled)
        # counters and grids `visible to EXPR`: who sees their values, a function of the state and the env (a
        # per-player counter's player is `owner` there), for views (engine/views.py)
        self.value_groups = {c.name: self.compiled.expr(c.seen_group)
                             for c in [*program.counters.values(), *program.grids.values()] if c.seen_group}
        assert self.compiled.main is not None
        self._main: Code = self.compiled.main

    def noted(self) -> Ruleset:
        """These rules compiled with notes (``GameState.wrote``): the ruleset invariant-checked games run on.

        Why a second compile: a note is a test of ``s.wrote`` at every write, which cost unchecked play 2 % when
        both kinds of game ran one code (docs/performance.md, sessions 16 and 17). So checked games get their
        own variant, compiled once, on the first checked game, from the program already parsed and checked;
        it shares this ruleset's card data, per-player-count tables, templates, certificates and option labels
        (plain data of the same layout: both compile one program the same way), so it starts the same games.
        """
        if self.notes:
            return self
        twin = self._noted
        if twin is None:
            # its generated texts byte-compiled once per cache, as load_ruleset's are: a process that plays
            # checked games (`liturgy play`, every test worker) compiled the noted variant's ~8,000 texts of Slay
            # the Spire again each time (docs/performance.md, Session 18: the suite's wall time)
            with codecache.bundle(f"{self._bundle}|notes") if self._bundle is not None else nullcontext():
                twin = Ruleset(self.program, notes=True, card_data_of=self, **self._modes)
            twin._tables, twin._templates, twin._certs = self._tables, self._templates, self._certs
            twin.label_cache = self.label_cache
            # the declared invariants too (expressions, which write nothing): a tool that wraps them in place, as
            # the rule profiler times them (tools/ruleprof.py), wraps the ones checked games evaluate
            twin.compiled.invariants = self.compiled.invariants
            # and their read sets: a filtered read's per-card test reads the card data of this ruleset's compile
            twin.compiled.invariant_reads = self.compiled.invariant_reads
            twin._plain = weakref.ref(self)
            self._noted = twin
        return twin

    def plain(self) -> Ruleset:
        """The ruleset this one was compiled for: itself, or for a noted variant the ruleset whose checked games it
        runs. What is known of a ruleset from outside (the file it was loaded from: the web's search bots replay a
        table from it) is keyed by that one, while a checked game's ``ruleset`` is the variant."""
        base = self._plain() if self._plain is not None else None
        return base if base is not None else self

    def _card_layout(self, n: int) -> list[tuple[int, int]]:
        """(definition index, start zone) per card id for an ``n``-player game.

        Shared cards come first, then each player's cards in seat order, so the
        card ids of a smaller game are a prefix of a larger game's: one table of
        card data, compiled into the closures, serves every player count.
        """
        prog, lay = self.program, self.compiled.layout
        out: list[tuple[int, int]] = []
        for i, cd in enumerate(prog.cards):
            if not prog.zones[cd.start].per_player:
                out += [(i, lay.zone_global[cd.start])] * cd.count
        for p in range(n):
            for i, cd in enumerate(prog.cards):
                if prog.zones[cd.start].per_player:
                    zi = lay.zone_player_base + p * lay.zone_player_stride + lay.zone_player_offsets[cd.start]
                    out += [(i, zi)] * cd.count
        return out

    def _fill_card_data(self) -> None:
        prog, comp = self.program, self.compiled
        layout = self._card_layout(self.max_players)
        card_def = [d for d, _ in layout]
        comp.card_def[:] = card_def
        enum_pos = comp.layout.enum_index
        # Defaults are per kind: two kinds may declare a field of the same name with different defaults.
        defaults: dict[tuple[str, str], Any] = {}
        names: set[str] = set()
        for kind in prog.kinds.values():
            for f in kind.fields:
                ft = prog.field_types[kind.name][f.name]
                if ft.kind in ("effect", "function"):
                    continue
                default = comp.expr(f.default)(None, {}) if f.default is not None else None  # type: ignore[arg-type]
                defaults[(kind.name, f.name)] = default
                names.add(f.name)
        for name in names:
            if self._shares_card_data:  # filled by the ruleset whose lists these are
                continue
            values: list[Any] = [None] * len(card_def)
            for cid, d in enumerate(card_def):
                cd = prog.cards[d]
                fty = prog.field_types[cd.kind].get(name)
                if fty is None or fty.kind in ("effect", "function"):
                    continue
                v = cd.values.get(name, defaults.get((cd.kind, name)))
                if fty.kind == "set" and v is not None:
                    order = enum_pos.get(fty.arg or "", {})
                    v = tuple(sorted(v, key=lambda x: order.get(x, 0)))
                values[cid] = v
            comp.field_list(name)[:] = values
        self._fill_callable_fields(card_def, names)
        comp.field_list("name")[:] = [prog.cards[d].name for d in card_def]
        comp.field_list("provisional")[:] = [prog.cards[d].provisional for d in card_def]
        comp.field_list("text")[:] = [prog.cards[d].text for d in card_def]

    def _fill_callable_fields(self, card_def: list[int], data_names: set[str]) -> None:
        """An effect or function field read as a value (`c.on_play == none`): `none` where the card has none.

        Calls reach effects and functions through their own tables; only a comparison with `none` reads the field
        itself, so each card's entry says just whether it has one (`true`) or not (`none`). A name that another
        kind uses for a data field shares that field's list: only this kind's cards are filled in."""
        prog, comp = self.program, self.compiled
        fresh: set[str] = set()
        for kind in prog.kinds.values():
            for f in kind.fields:
                if prog.field_types[kind.name][f.name].kind not in ("effect", "function"):
                    continue
                present = f.default is not None and not isinstance(f.default, A.NoneLit)
                values = comp.field_list(f.name)
                if f.name not in data_names and f.name not in fresh:
                    values[:] = [None] * len(card_def)
                    fresh.add(f.name)
                for cid, d in enumerate(card_def):
                    cd = prog.cards[d]
                    if cd.kind == kind.name:
                        values[cid] = True if present or f.name in cd.values else None

    # ------------------------------------------------------------ tables
    def _build(self, n: int) -> tuple[Tables, list[Any], list[list[int]], list[int]]:
        cached = self._tables.get(n)
        if cached is not None:
            return cached
        prog, comp = self.program, self.compiled
        lay = comp.layout
        layout = self._card_layout(n)
        card_def = [d for d, _ in layout]
        card_start = [z for _, z in layout]
        ncards = len(card_def)
        fields = comp.field_lists
        zone_names, zone_owner, zone_vis, zone_order, zone_final, zone_cap, zone_host = self._zone_tables(
            ncards, fields["name"])
        nzones = len(zone_names)
        nslots = lay.card_base + lay.card_stride * ncards
        counters: list[Any] = [0] * nslots
        names = [""] * nslots
        bounds: list[tuple[int | None, int | None]] = [(None, None)] * nslots
        names[FIRST_SLOT], names[ROUND_SLOT] = "first", "round"
        reset: list[tuple[int, Any]] = []
        pools: dict[str, list[int]] = {}
        for cname, c in prog.counters.items():
            width = len(prog.enums[c.index_enum]) if c.index_enum else 1
            init = comp.expr(c.default)(None, {}) if c.default is not None else (c.lo or 0)  # type: ignore[arg-type]
            if c.is_flag:
                init = 1 if init else 0
            slots: list[tuple[int, str]] = []
            if c.scope == "global":
                base = lay.global_slots[cname]
                slots = [(base + k, cname) for k in range(width)]
            elif c.scope == "player":
                for p in range(n):
                    base = lay.player_base + p * lay.player_stride + lay.player_offsets[cname]
                    slots += [(base + k, f"P{p + 1}.{cname}") for k in range(width)]
            else:
                for cid in range(ncards):
                    base = lay.card_base + cid * lay.card_stride + lay.card_offsets[cname]
                    slots += [(base + k, f"{fields['name'][cid]}.{cname}") for k in range(width)]
            if c.held is not None and c.default is None:
                init = None  # a typed counter starts empty
            for slot, label in slots:
                counters[slot] = init
                names[slot] = label
                bounds[slot] = (c.lo, c.hi)
                if c.reset_each_round:
                    reset.append((slot, init))
                if c.pool:
                    pools.setdefault(c.pool, []).append(slot)
        for g in lay.grids.values():  # every cell starts empty: `none`, or 0 in an int grid
            start = cell_start((prog.grids[g.name].cell_ty or Ty("any")).kind)
            for i in range(g.width * g.height):
                counters[g.base + i] = start
                names[g.base + i] = f"{g.name}[{i % g.width}, {i // g.width}]"
        players = tuple(range(n))
        clockwise = prog.game.seats != "counterclockwise"
        turn_orders = {
            p: tuple(((p + i) % n) if clockwise else ((p - i) % n) for i in range(n)) for p in players
        }
        tables = Tables(
            n=n,
            card_def=card_def,
            card_names=fields["name"],
            fields=fields,
            players=players,
            reset_slots=tuple(reset),
            zone_names=zone_names,
            zone_owner=zone_owner,
            zone_vis=zone_vis,
            zone_order=zone_order,
            zone_final=zone_final,
            zone_capacity=zone_cap,
            counter_names=names,
            counter_bounds=bounds,
            pool_slots={k: tuple(v) for k, v in pools.items()},
            pool_totals={k: prog.pools[k].supply for k in pools},
            turn_orders=turn_orders,
        )
        tables.capped_zones = tuple(zi for zi, cap in enumerate(zone_cap) if cap is not None)
        tables.final_zones = tuple(zi for zi, final in enumerate(zone_final) if final)
        tables.pool_of_slot = {slot: pool for pool, slots in pools.items() for slot in slots}
        tables.zone_vis_mask = zone_vis_masks(n, zone_vis, zone_owner, zone_host)
        tables.zone_host = zone_host
        tables.zone_group = self._zone_groups(n) | {
            zi: functools.partial(hosted_mask, zi=zi) for zi, host in enumerate(zone_host)
            if host >= 0 and zone_vis[zi] != "public"}
        tables.card_backs = self._card_backs(card_def, fields)
        if lay.absent_offset is not None:  # `absent_while FLAG`: each seat's FLAG slot (runtime/seats.py)
            tables.absent_slots = tuple(lay.player_base + p * lay.player_stride + lay.absent_offset for p in range(n))
        groups: dict[tuple[int | None, int | None], list[int]] = {}
        for i, b in enumerate(bounds):
            if b != (None, None):
                groups.setdefault(b, []).append(i)
        # itemgetter over many slots returns a tuple in one C call: bounds checks stay cheap
        tables.bounded_groups = tuple((b, tuple(v), itemgetter(*v, v[0])) for b, v in groups.items())
        # after bounded_groups: worth_it counts the bounded slots (before it, every ruleset with fewer than 500
        # cards was checked in full after every decision, however many counters it had)
        tables.incremental_checks = invariants.worth_it(tables)
        zones: list[list[int]] = [[] for _ in range(nzones)]
        for cid, zi in enumerate(card_start):
            zones[zi].append(cid)
        built = (tables, counters, zones, card_start)
        self._tables[n] = built
        return built

    def _zone_tables(self, ncards: int, names: list[str]) -> tuple[
            list[str], list[int], list[str], list[str], list[bool], list[int | None], list[int]]:
        """Per zone index: name, owner, visibility, order, final, capacity and host card (zones per card `as host`)."""
        prog, lay = self.program, self.compiled.layout
        nzones = lay.zone_card_base + lay.zone_card_stride * ncards
        zone_names = [""] * nzones
        zone_owner = [-1] * nzones
        zone_vis = ["hidden"] * nzones
        zone_order = ["set"] * nzones
        zone_final = [False] * nzones
        zone_cap: list[int | None] = [None] * nzones
        for name, z in prog.zones.items():
            if z.per_card:
                continue  # below: one zone per card id
            if z.per_player:
                for p in range(lay.max_players):
                    zi = lay.zone_player_base + p * lay.zone_player_stride + lay.zone_player_offsets[name]
                    zone_names[zi] = f"P{p + 1}.{name}"
                    zone_owner[zi] = p
                    zone_vis[zi], zone_order[zi], zone_final[zi], zone_cap[zi] = (
                        z.visibility, z.order, z.final, z.capacity)
            else:
                zi = lay.zone_global[name]
                zone_names[zi] = name
                zone_vis[zi], zone_order[zi], zone_final[zi], zone_cap[zi] = z.visibility, z.order, z.final, z.capacity
        zone_host = [-1] * nzones
        for name, z in prog.zones.items():
            if z.per_card:  # card c's zone: after every player's, in the group of card id c
                for cid in range(ncards):
                    zi = lay.zone_card_base + cid * lay.zone_card_stride + lay.zone_card_offsets[name]
                    zone_names[zi] = f"{names[cid]}.{name}"
                    zone_vis[zi], zone_order[zi], zone_final[zi], zone_cap[zi] = (
                        z.visibility, z.order, z.final, z.capacity)
                    zone_host[zi] = cid if z.as_host else -1
        return zone_names, zone_owner, zone_vis, zone_order, zone_final, zone_cap, zone_host

    def _card_backs(self, card_def: list[int], fields: dict[str, list[Any]]) -> list[str]:
        """Per card id, its `back` fields as text (`region: sea`); empty when no kind prints anything on the back."""
        prog = self.program
        backs = {k.name: [f.name for f in k.fields if f.back] for k in prog.kinds.values()}
        if not any(backs.values()):
            return []

        def text(v: Any) -> str:
            return ("yes" if v else "no") if isinstance(v, bool) else str(v)

        return [", ".join(f"{f}: {text(fields[f][cid])}" for f in backs.get(prog.cards[d].kind, []))
                for cid, d in enumerate(card_def)]

    # ------------------------------------------------------------ games
    def option_values(self) -> dict[str, tuple[str, ...]]:
        """Every declared ``option`` and the values it can take (its enum), in declaration order."""
        return dict(self._option_values)

    def resolve_options(self, options: dict[str, str] | None) -> dict[str, str]:
        """Check ``options`` against the declarations; raise ValueError naming the problem.

        A whole-number option's value is written back in its plain form (`07` is `7`), so two spellings of one
        value share a template, a save and a digest."""
        known, ints = self._option_values, self._int_options
        out: dict[str, str] = {}
        for name, value in (options or {}).items():
            if name not in known:
                have = ", ".join(known) or "none"
                raise ValueError(f"{self.name} has no option `{name}` (options: {have})")
            if name in ints:
                lo, hi = ints[name]
                number = _whole(value)
                if number is None or not lo <= number <= hi:
                    raise ValueError(f"option `{name}` takes a whole number from {lo} to {hi}, not `{value}`")
                out[name] = str(number)
            elif value not in known[name]:
                raise ValueError(f"option `{name}` takes one of {', '.join(known[name])}, not `{value}`")
            else:
                out[name] = value
        return out

    def new_game(
        self, players: int, seed: int = 0, check_invariants: bool = False, options: dict[str, str] | None = None,
        rng_state: int | None = None, playout: _Random | None = None,
    ) -> Game:
        """A new game, set up and waiting for its first decision.

        ``rng_state`` replaces the seeded RNG state (the explicit-chance mode of
        :mod:`.chance` passes a script here); normal play leaves it ``None``.

        With ``playout`` (a driver ``Random``), the game is played to its end with uniformly random legal choices
        before it is returned: exactly ``new_game(...).random_playout(playout)`` (the same choices, draws from
        ``playout``, final state and log; ``len(game.state.decisions)`` is what that call returned), in one run of
        the step loop instead of two. Why: a simulation or a bench that plays fresh games pays the loop's entry,
        the first choice's suspension and ``random_playout``'s own work once more per game, a tenth of a short game
        such as Kuhn poker (docs/performance.md, Session 24).
        """
        if check_invariants and not self.notes:  # checked games run the code that notes its writes
            return self.noted().new_game(players, seed, check_invariants, options, rng_state, playout)
        if options:
            if not self.min_players <= players <= self.max_players:  # before the options' own errors, as always
                raise ValueError(f"{self.name} is for {self.min_players}..{self.max_players} players, not {players}")
            chosen = self.resolve_options(options)
            key: TemplateKey = (players, tuple(sorted(chosen.items())))
        else:
            chosen = {}
            key = players
        try:
            # a subscript, not ``.get`` (a method call, about a tenth of a percent of a Kuhn poker game): only a
            # ruleset's first game of a player count (and options) takes the exception; the template is built
            # outside the handler, so its own errors carry no KeyError as their context
            template: Template | None = self._templates[key]
        except KeyError:
            template = None
        if template is None:
            # A template exists only for a player count that passed this check: a game of a known count (every
            # game but a ruleset's first) skips it
            if not self.min_players <= players <= self.max_players:
                raise ValueError(f"{self.name} is for {self.min_players}..{self.max_players} players, not {players}")
            template = self._templates[key] = self._template(players, chosen)
        tables, counters, zones, card_zone = template
        # GameState.start written here (one Python call less a game; docs/performance.md, Session 24): the same
        # slots in the same order with the same values, which tests/test_new_game_playout.py compares
        s: GameState = _new(GameState)
        s.tables = tables
        s.counters = _copy(counters)
        s.zones = [*map(_copy, zones)]
        s.card_zone = _copy(card_zone)
        s.face_up = set()
        s.shown = {}
        s.rng = 0
        s.frames = [[self._main, 0, {}]]
        s.pending = None
        s.commits = {}
        s.log = []
        s.decisions = []
        s.steps = 0
        s.status = "running"
        s.result = None
        s.error = None
        s.fire_stack = []
        s.removed_count = 0
        s.work = 0
        s.kept = {}
        s.wrote = None
        s.moved = None
        s.pick = None
        if rng_state is None:
            # rng.seed_state(seed) written in (one per game: its call was a sixth of new_game's own cost): SplitMix64's
            # first output from the seed; tests/test_rng_picker.py checks the two agree
            z = (seed + 0x9E3779B97F4A7C15 if 0 <= seed < 0x61C8864680B583EB  # (the two masks change nothing there)
                 else ((seed & 0xFFFFFFFFFFFFFFFF) + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF)
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
            s.rng = z ^ (z >> 31)
        else:
            s.rng = rng_state
        game: Game = _new(Game)
        game.ruleset = self
        game.state = s
        game.seed = seed
        game.check = check_invariants
        game.options = chosen
        game._certified = None
        game.float_free = True
        game.log_plain = 0
        if check_invariants and tables.incremental_checks:  # (self.notes: unchecked rulesets hand these on)
            game._certified = self._certified_start(key, template)
            if game._certified is not None:  # setup's writes and moves too: the certificate is from before it
                s.wrote, s.moved = [], []
        if playout is None:
            game._advance()
            return game
        # random_playout's picker and run, from the set-up on: the first choice is picked where the others are (in
        # place by the fused code, or at the suspension by the step loop), which is where random_playout's own
        # first pick would have taken the same draw; a checked game checks its invariants before each pick, as
        # new_game's own run does before it returns (the noted code, every checked game's: engine/checkpick.py)
        pick = _Bound(mt_below, playout.getrandbits) if playout.__class__ is _Random else uniform_picker(playout)
        if self.notes:
            checkpick.play(game, pick)
            return game
        s.pick = pick
        try:
            game._advance(pick)
        finally:
            s.pick = None
        return game

    def _certified_start(self, key: TemplateKey, template: Template) -> invariants.Certified | None:
        """A copy of the template's certificate (see :mod:`.invariants`), checked in full once per template.

        Games start from the template's counters, zones and card places, so a checked game's first
        check is already incremental instead of a full pass over every card and counter slot.
        """
        if key not in self._certs:
            probe = GameState.start(*template, [])
            _, certifiable = invariants.full(probe)
            self._certs[key] = invariants.Certified.take(probe) if certifiable else None
        cert = self._certs[key]
        return None if cert is None else cert.copy()

    def _template(self, players: int, chosen: dict[str, str]) -> Template:
        """What every ``players``-player game with options ``chosen`` starts from, before setup runs.

        Built once; :meth:`new_game` copies it (``GameState.start``). Setup itself still runs per
        game, because it may shuffle or draw with the game's own seed.
        """
        tables, counters, zones, card_start = self._build(players)
        counters = counters[:]
        ints = self._int_options
        for name, value in chosen.items():
            counters[self.compiled.layout.global_slots[name]] = int(value) if name in ints else value
        return tables, counters, zones, card_start

    def _zone_groups(self, n: int) -> dict[int, Callable[[GameState], int]]:
        """Per zone `visible to EXPR`, the function of the state that says who is in the group now (a per-player
        zone's expression reads its player as `owner`)."""
        lay = self.compiled.layout
        out: dict[int, Callable[[GameState], int]] = {}
        for name, z in self.program.zones.items():
            if z.group is None:
                continue
            fn = self.compiled.expr(z.group)
            if z.per_player:
                for p in range(lay.max_players):  # every seat the layout has, as the other zone tables do
                    zi = lay.zone_player_base + p * lay.zone_player_stride + lay.zone_player_offsets[name]
                    out[zi] = _group_mask(fn, {"owner": p})
            else:
                out[lay.zone_global[name]] = _group_mask(fn, {})
        return out

    def load_game(self, data: dict[str, Any], check_invariants: bool = False, force: bool = False) -> Game:
        """Rebuild a game saved with :meth:`Game.to_json`: from its fields when this user's key sealed it
        (engine/seal.py), else by replaying it (engine/saves.py). A save that is not exactly what these rules make
        of its own decisions raises ``CorruptSave`` (a ``ValueError``); one that records no fingerprint is loaded
        only with ``force``."""
        return load_verified(self, data, check_invariants, force)


def _group_mask(fn: Callable[[GameState, dict[str, Any]], Any], env: dict[str, Any]) -> Callable[[GameState], int]:
    def group_mask(s: GameState) -> int:
        return players_mask(fn(s, dict(env)))  # a fresh env: comprehensions bind their variables in it

    return group_mask


def load_ruleset(path: str) -> Ruleset:
    """Parse, check and compile a ruleset file once; raise LiturgyError on any error. Through the compile cache
    (dsl/checkcache.py, codegen/codecache.py): a ruleset another process loaded is checked and byte-compiled once."""
    program, diags = check_cached(path)
    if program is None:
        raise LiturgyError([d for d in diags if d.is_error] or diags)
    with codecache.bundle(program.fingerprint):
        return Ruleset(program)


def _whole(text: str) -> int | None:
    """``text`` as a whole number (ASCII digits, an optional minus sign, at most 9 digits), else ``None``: a value
    typed by a user is untrusted, and ``int()`` would also take `1_0`, `٣` or a thousand digits."""
    digits = text[1:] if text.startswith("-") else text
    if not (0 < len(digits) <= 9 and digits.isascii() and digits.isdigit()):
        return None
    return int(text)
