"""The engine: a step function over compiled rulesets.

``Game`` runs the compiled step machine until a player must decide, then
exposes a :class:`Decision`.  ``apply`` records the choice and continues.
Simultaneous choices are collected hidden and revealed together once every
chooser has committed.  The state is plain data (see :mod:`.state`), so a game
can be cloned, saved to JSON and loaded at any decision point.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from liturgy.dsl.checker.program import Program
from liturgy.dsl.diagnostics import LiturgyError
from liturgy.dsl.loader import check_file
from liturgy.interpreter.compiler.code import FIRST_SLOT, ROUND_SLOT, Code, _fmt_card
from liturgy.interpreter.compiler.compiler import Compiler
from liturgy.interpreter.compiler.display import Display
from liturgy.interpreter.runtime import digest as digestmod
from liturgy.interpreter.runtime import invariants, rng
from liturgy.interpreter.runtime.errors import GameOver, IllegalChoice, RuleError, SkipTo, StepLimitError
from liturgy.interpreter.runtime.moves import card_visibility, zone_vis_masks
from liturgy.interpreter.runtime.state import GameState, Tables, freeze, thaw

SAVE_FORMAT = 1


# The start of every game with one player count and options: tables, counters, zones, card -> zone.
Template = tuple[Tables, list[Any], list[list[int]], list[int]]
# Templates are keyed by the player count alone when no option is given, else (players, sorted options).
TemplateKey = int | tuple[int, tuple[tuple[str, str], ...]]


class InvariantViolation(RuleError):
    """A declared or built-in invariant failed after a step."""

    def __init__(self, name: str, detail: str) -> None:
        super().__init__(f"invariant violated: {name}" + (f" ({detail})" if detail else ""))
        self.name = name


@dataclass(frozen=True)
class Decision:
    """What the game is waiting for: who decides, and among which options."""

    players: tuple[int, ...]
    simultaneous: bool
    options: dict[int, tuple[str, ...]]
    prompt: str
    # per waiting player: the choice's own `prompt` as that player reads it (empty when the ruleset gives none)
    prompts: dict[int, str] = field(default_factory=dict)

    def option_count(self, player: int) -> int:
        return len(self.options[player])

    def prompt_for(self, player: int) -> str:
        """What ``player`` is asked: the ruleset's `prompt` for this choice, else the step and `choose`."""
        return self.prompts.get(player) or self.prompt


class Ruleset:
    """A parsed, checked and compiled ruleset; it creates games."""

    def __init__(self, program: Program, codegen: bool = True, stmtgen: bool = True, inline_fns: bool = True,
                 fuse: bool = True) -> None:
        self.program = program
        self.compiled = Compiler(program, codegen, stmtgen, inline_fns, fuse).compile()
        self.name = program.game.title
        # the ruleset's and card files' SHA-256 when loaded from files ("" otherwise): saves record it
        self.fingerprint = program.fingerprint
        self.min_players = program.game.min_players
        self.max_players = program.game.max_players
        self.step_limit = program.game.step_limit
        self._tables: dict[int, tuple[Tables, list[Any], list[list[int]], list[int]]] = {}
        self._templates: dict[TemplateKey, Template] = {}
        self._certs: dict[TemplateKey, invariants.Certified | None] = {}
        self.codes: list[Code] = self.compiled.codes
        self._fill_card_data()
        self.display = Display(program, self.compiled)
        assert self.compiled.main is not None
        self._main: Code = self.compiled.main

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
            values: list[Any] = [None] * len(card_def)
            for cid, d in enumerate(card_def):
                cd = prog.cards[d]
                fty = prog.field_types[cd.kind].get(name)
                if fty is None:
                    continue
                v = cd.values.get(name, defaults.get((cd.kind, name)))
                if fty.kind == "set" and v is not None:
                    order = enum_pos.get(fty.arg or "", {})
                    v = tuple(sorted(v, key=lambda x: order.get(x, 0)))
                values[cid] = v
            comp.field_list(name)[:] = values
        comp.field_list("name")[:] = [prog.cards[d].name for d in card_def]
        comp.field_list("provisional")[:] = [prog.cards[d].provisional for d in card_def]
        comp.field_list("text")[:] = [prog.cards[d].text for d in card_def]

    # ------------------------------------------------------------ tables
    def _build(self, n: int) -> tuple[Tables, list[Any], list[list[int]], list[int]]:
        cached = self._tables.get(n)
        if cached is not None:
            return cached
        prog, comp = self.program, self.compiled
        lay = comp.layout
        nzones = lay.zone_player_base + lay.zone_player_stride * lay.max_players
        zone_names = [""] * nzones
        zone_owner = [-1] * nzones
        zone_vis = ["hidden"] * nzones
        zone_order = ["set"] * nzones
        zone_final = [False] * nzones
        zone_cap: list[int | None] = [None] * nzones
        for name, z in prog.zones.items():
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
        layout = self._card_layout(n)
        card_def = [d for d, _ in layout]
        card_start = [z for _, z in layout]
        ncards = len(card_def)
        fields = comp.field_lists
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
            for slot, label in slots:
                counters[slot] = init
                names[slot] = label
                bounds[slot] = (c.lo, c.hi)
                if c.reset_each_round:
                    reset.append((slot, init))
                if c.pool:
                    pools.setdefault(c.pool, []).append(slot)
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
        tables.incremental_checks = invariants.worth_it(tables)
        tables.zone_vis_mask = zone_vis_masks(n, zone_vis, zone_owner)
        groups: dict[tuple[int | None, int | None], list[int]] = {}
        for i, b in enumerate(bounds):
            if b != (None, None):
                groups.setdefault(b, []).append(i)
        # itemgetter over many slots returns a tuple in one C call: bounds checks stay cheap
        tables.bounded_groups = tuple((b, tuple(v), itemgetter(*v, v[0])) for b, v in groups.items())
        zones: list[list[int]] = [[] for _ in range(nzones)]
        for cid, zi in enumerate(card_start):
            zones[zi].append(cid)
        built = (tables, counters, zones, card_start)
        self._tables[n] = built
        return built

    # ------------------------------------------------------------ games
    def option_values(self) -> dict[str, tuple[str, ...]]:
        """Every declared ``option`` and the values it can take (its enum), in declaration order."""
        return dict(self._option_values)

    @functools.cached_property
    def _option_values(self) -> dict[str, tuple[str, ...]]:
        # built once: new_game checks its options on every call, and scanning every counter declaration
        # was ~2% of a Slay the Spire combat
        prog = self.program
        return {n: tuple(prog.enums[c.option]) for n, c in prog.counters.items() if c.option is not None}

    def resolve_options(self, options: dict[str, str] | None) -> dict[str, str]:
        """Check ``options`` against the declarations; raise ValueError naming the problem."""
        known = self._option_values
        for name, value in (options or {}).items():
            if name not in known:
                have = ", ".join(known) or "none"
                raise ValueError(f"{self.name} has no option `{name}` (options: {have})")
            if value not in known[name]:
                raise ValueError(f"option `{name}` takes one of {', '.join(known[name])}, not `{value}`")
        return dict(options or {})

    def new_game(
        self, players: int, seed: int = 0, check_invariants: bool = False, options: dict[str, str] | None = None,
        rng_state: int | None = None,
    ) -> Game:
        """A new game, set up and waiting for its first decision.

        ``rng_state`` replaces the seeded RNG state (the explicit-chance mode of
        :mod:`.chance` passes a script here); normal play leaves it ``None``.
        """
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"{self.name} is for {self.min_players}..{self.max_players} players, not {players}")
        if options:
            chosen = self.resolve_options(options)
            key: TemplateKey = (players, tuple(sorted(chosen.items())))
        else:
            chosen, key = {}, players
        template = self._templates.get(key)
        if template is None:
            template = self._templates[key] = self._template(players, chosen)
        tables, counters, zones, card_zone = template
        s = GameState.start(tables, counters, zones, card_zone, [[self._main, 0, {}]])
        s.rng = rng.seed_state(seed) if rng_state is None else rng_state
        game = Game(self, s, seed, check_invariants)
        game.options = chosen
        if check_invariants and tables.incremental_checks:
            game._certified = self._certified_start(key, template)
        game._advance()
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
        for name, value in chosen.items():
            counters[self.compiled.layout.global_slots[name]] = value
        return tables, counters, zones, card_start

    def load_game(self, data: dict[str, Any], check_invariants: bool = False) -> Game:
        """Rebuild a game saved with :meth:`Game.to_json`."""
        if data.get("format") != SAVE_FORMAT:
            raise ValueError(f"unsupported save format {data.get('format')!r}")
        if data.get("ruleset") != self.name:
            raise ValueError(f"this save is for {data.get('ruleset')!r}, not {self.name!r}")
        saved_with = data.get("ruleset_fingerprint")
        if saved_with and self.fingerprint and saved_with != self.fingerprint:
            # a save holds positions in the compiled rules: on edited rules they would point elsewhere
            raise ValueError(
                f"this save of {self.name!r} was made with a different version of its ruleset or card files "
                f"(fingerprint {saved_with[:12]}…, now {self.fingerprint[:12]}…); load it with the files it was "
                "saved with, or replay its decisions instead")
        tables, _, _, _ = self._build(int(data["players"]))
        s = GameState(tables)
        s.counters = list(data["counters"])
        s.zones = [list(z) for z in data["zones"]]
        s.card_zone = [0] * len(tables.card_def)
        for zi, z in enumerate(s.zones):
            for c in z:
                s.card_zone[c] = zi
        s.face_up = set(data["face_up"])
        s.rng = int(data["rng"])
        s.frames = [[self.codes[f[0]], int(f[1]), {k: freeze(v) for k, v in f[2].items()}] for f in data["frames"]]
        s.pending = freeze(data["pending"])
        s.commits = {int(k): int(v) for k, v in data["commits"].items()}
        s.log = [freeze(x) for x in data["log"]]
        s.decisions = [(int(p), int(i)) for p, i in data["decisions"]]
        s.steps = int(data["steps"])
        s.status = data["status"]
        s.result = data["result"]
        s.error = data["error"]
        s.removed_count = int(data["removed_count"])
        game = Game(self, s, int(data["seed"]), check_invariants)
        game.options = {str(k): str(v) for k, v in data.get("options", {}).items()}
        game.float_free = None  # a hand-edited save may hold floats: looked for at the first digest
        return game


def load_ruleset(path: str) -> Ruleset:
    """Parse, check and compile a ruleset file once; raise LiturgyError on any error."""
    program, diags = check_file(path)
    if program is None:
        raise LiturgyError([d for d in diags if d.is_error] or diags)
    return Ruleset(program)


def _labels(s: GameState, f: Callable[[GameState, Any], str], options: Any, p: int,
            pass_label: str = "pass") -> tuple[str, ...]:
    """Option labels for player ``p``: a card ``p`` cannot see is offered by position, not by name."""
    labels = tuple(pass_label if o is None else f(s, o) for o in options)
    if f is not _fmt_card:
        return labels
    return tuple(lab if o is None or (card_visibility(s, o) >> p) & 1 else f"hidden card {i + 1}"
                 for i, (o, lab) in enumerate(zip(options, labels, strict=True)))


def _game_over_line(values: Any) -> str:
    """The log's last line: the scores, and the winners when the ruleset declares `winner`."""
    text = "Game over. Scores: " + ", ".join(f"P{p + 1} {v}" for p, v in enumerate(values[0]))
    if len(values) > 1:
        text += ". " + winners_text(values[1])
    return text


def winners_text(winners: Iterable[int]) -> str:
    """`Winner: P1.`, `Winners: P1, P2.` or `Nobody wins.`: the result in words, for logs and the CLI."""
    names = [f"P{p + 1}" for p in winners]
    if not names:
        return "Nobody wins."
    return ("Winner: " if len(names) == 1 else "Winners: ") + ", ".join(names) + "."


def _uniform_picker(rng: random.Random) -> Callable[[int], int]:
    """``rng.randrange`` for option counts (always >= 1), minus its argument checks when that is exact.

    ``Random.randrange(n)`` with an int ``n > 0`` returns ``self._randbelow(n)``; a subclass that
    overrides ``randrange`` keeps it.
    """
    below = getattr(rng, "_randbelow", None)
    if type(rng).randrange is random.Random.randrange and below is not None:
        return below  # type: ignore[no-any-return]
    return rng.randrange


class Game:
    """One game in progress."""

    def __init__(self, ruleset: Ruleset, state: GameState, seed: int, check_invariants: bool) -> None:
        self.ruleset = ruleset
        self.state = state
        self.seed = seed
        self.check = check_invariants
        # the options given to new_game (the rest keep their declared defaults); logs record them for replay
        self.options: dict[str, str] = {}
        # the last state whose built-in invariants held, for incremental checks (see violations)
        self._certified: invariants.Certified | None = None
        # no float anywhere in the state (the engine never writes one): the digest may then use its fast encoder
        # (interpreter/digest.py). None for a loaded save until its first digest looks (walking a large state
        # at every load would cost more than the load itself)
        self.float_free: bool | None = True

    # ------------------------------------------------------------ running
    @property
    def finished(self) -> bool:
        return self.state.status != "running"

    @property
    def players(self) -> int:
        return self.state.tables.n

    def _advance(self, pick: Callable[[int], int] | None = None) -> None:
        """Run the step machine until a player must decide, the game ends, or a rule fails.

        With ``pick`` (``random_playout``), a suspension does not leave the loop: after the
        invariant check the engine asks ``pick(option count)`` for every waiting chooser, in the
        order the apply loop would, writes the picks back and runs on, to the end of the game.
        """
        s = self.state
        stop = self.ruleset.step_limit + 2
        span = self.ruleset.compiled.fuse_span
        frames = s.frames
        # picking in place, inside the loop below, needs no invariant check between decisions
        inline = pick is not None and not self.check
        try:
            while True:
                calls = (stop - 2 - s.steps) // span if span else 0
                if calls > 0:
                    # Far from the step limit: the fused instructions (interpreter/fuse.py). Each runs at
                    # most ``span`` original ones and returns how many more than one (True: suspended),
                    # so ``calls`` of them cannot pass the limit; near it, the loop below single-steps.
                    extra = i = 0
                    try:
                        for i in range(calls):  # noqa: B007 - read after the loop, and on errors
                            fr = frames[-1]
                            r = fr[0].fast[fr[1]](s, fr)
                            if r:
                                if r is True:
                                    if not inline:
                                        break
                                    # A suspended call ran no instruction: take back its turn of the loop
                                    # (``i`` counts it), pick, and run on.
                                    extra -= 1
                                    self._pick(pick)  # type: ignore[arg-type]
                                    continue
                                extra += r
                        else:
                            i = calls
                    except SkipTo as skip:
                        s.steps += i + extra
                        del frames[1:]
                        frames[0][1] = skip.pc
                        continue
                    except BaseException:
                        s.steps += i + extra
                        raise
                    s.steps += i + extra
                    if i == calls:
                        continue
                    if self.check:
                        self._check_invariants()
                    if pick is None:
                        return
                    self._pick(pick)
                    continue
                # Count the instructions that ran to completion (a suspension is not a step).
                # ``steps`` runs one ahead of the count while an instruction runs.
                first = steps = s.steps + 1
                try:
                    for steps in range(first, stop):  # noqa: B007 - read after the loop, and on errors
                        fr = frames[-1]
                        if fr[0].ins[fr[1]](s, fr):
                            break
                    else:
                        steps = stop  # one past the limit: the last instruction exceeded it
                except SkipTo as skip:
                    s.steps = steps - 1
                    del frames[1:]
                    frames[0][1] = skip.pc
                    continue
                except BaseException:
                    s.steps = steps - 1
                    raise
                s.steps = steps - 1
                if steps == stop:
                    raise StepLimitError(
                        f"the game passed its step limit of {stop - 2} steps (game step_limit) "
                        f"in {self.position()}")
                if self.check:
                    self._check_invariants()
                if pick is None:
                    return
                self._pick(pick)
        except GameOver:
            try:
                self._finish()
            except (GameOver, SkipTo):
                s.status = "aborted"
                s.error = "`end game` or `skip to` inside `finish`"
                s.pending = None
                return
            except RuleError as err:
                s.status = "aborted"
                s.error = f"{err} [while scoring the game]"
                s.pending = None
                return
            except (TypeError, KeyError, IndexError, AttributeError, ValueError, ZeroDivisionError) as err:
                s.status = "aborted"
                s.error = f"internal error ({type(err).__name__}: {err}) [while scoring the game]"
                s.pending = None
                return
            if self.check:
                try:
                    self._check_invariants()
                except RuleError as err:
                    s.status = "aborted"
                    s.error = str(err)
        except RuleError as err:
            s.status = "aborted"
            s.error = f"{err} [{self.position()}]" if not isinstance(err, StepLimitError) else str(err)
            s.pending = None
        except RecursionError:
            s.status = "aborted"
            s.error = f"effects nest too deeply (a recursive procedure or trigger?) [{self.position()}]"
            s.pending = None
        except (TypeError, KeyError, IndexError, AttributeError, ValueError, ZeroDivisionError) as err:
            # A ruleset the checker accepted reached a case the engine cannot run.
            # Stop the game with its position instead of a traceback; this is a bug to report.
            s.status = "aborted"
            s.error = f"internal error ({type(err).__name__}: {err}) [{self.position()}]"
            s.pending = None

    def _pick(self, pick: Callable[[int], int]) -> None:
        """Decide the pending choice with ``pick(option count)`` for each waiting chooser, in seat order.

        Exactly what ``for p in waiting_for(): apply(pick(option_count(p)), p)`` does, without
        ``apply``'s checks (the picks are legal by construction) and without running on.
        """
        s = self.state
        pend = s.pending
        if pend[0] == "choose":
            _, p, options, var, body_pc, end_pc, _ = pend
            choice = pick(len(options))
            fr = s.frames[-1]
            value = options[choice]
            fr[2][var] = value
            fr[1] = end_pc if value is None else body_pc
            s.pending = None
            s.decisions.append((p, choice))
            return
        _, per, key, next_pc, _ = pend
        commits = s.commits
        decisions = s.decisions
        picked = []
        for p, opts in per:
            committed = commits.get(p)
            if committed is None:
                committed = pick(len(opts))
                decisions.append((p, committed))
            picked.append((p, opts[committed]))
        fr = s.frames[-1]
        fr[2][key] = (tuple(picked), 0)
        fr[1] = next_pc
        s.pending = None
        s.commits = {}

    def _finish(self) -> None:
        s = self.state
        comp = self.ruleset.compiled
        s.frames = []
        s.pending = None
        assert comp.finish is not None
        comp.finish(s, {})
        players = s.tables.players
        score = comp.score
        scores = [score(s, {"player": p}) for p in players] if score is not None else [0] * len(players)
        tbs = comp.tiebreaks
        if tbs:
            tiebreaks = [[tb(s, {"player": p}) for tb in tbs] for p in players]
            keys: list[Any] = [(scores[p], *tiebreaks[p]) for p in players]
        else:
            tiebreaks = [[] for _ in players]
            keys = scores  # a score alone orders players as the 1-tuple (score,) would
        winner = comp.winner
        if winner is None:
            best = max(keys)
            winners = [p for p in players if keys[p] == best]
        else:  # the ruleset says who wins: possibly everyone (a co-operative win) or nobody
            winners = [p for p in players if winner(s, {"player": p})]
        s.result = {
            "scores": scores,
            "tiebreaks": tiebreaks,
            "winners": winners,
            "rounds": s.counters[ROUND_SLOT],
        }
        s.status = "finished"
        everyone = (2 << s.tables.n) - 1
        # the last log line; a ruleset with `winner` also names the winners (nobody is news there)
        values = (tuple(scores),) if winner is None else (tuple(scores), tuple(winners))
        s.log.append((everyone, everyone, -1, values))

    def position(self) -> str:
        """Where the game is, for error messages: round, step and call chain."""
        s = self.state
        step = "setup"
        if s.frames:
            main_pc = s.frames[0][1]
            for pc, name in self.ruleset.compiled.step_names_by_pc:
                if pc <= main_pc:
                    step = f"step {name}"
        chain = " > ".join(f[0].name for f in s.frames[1:])
        where = f"round {s.counters[ROUND_SLOT]}, {step}"
        return where + (f", in {chain}" if chain else "")

    def step_name(self) -> str:
        """The name of the round step the game is in ("setup" before the first round)."""
        s = self.state
        name = "setup"
        if s.frames:
            for pc, step in self.ruleset.compiled.step_names_by_pc:
                if pc <= s.frames[0][1]:
                    name = step
        return name

    def step_title(self) -> str:
        """The title of the round step the game is in ("setup" before the first round)."""
        name = self.step_name()
        return self.ruleset.compiled.step_titles.get(name, name)

    @property
    def decision(self) -> Decision | None:
        s = self.state
        pend = s.pending
        if pend is None or self.finished:
            return None
        fmt = self.ruleset.compiled.choice_formats
        asked = self.ruleset.display.prompt
        if pend[0] == "choose":
            _, p, options, _, _, _, fmt_id = pend
            labels = _labels(s, fmt[fmt_id], options, p, self.ruleset.compiled.choice_pass_labels[fmt_id])
            text = asked(s, fmt_id, p, s.frames[-1][2])
            return Decision((p,), False, {p: labels}, text or f"{self.step_title()}: choose",
                            {p: text} if text else {})
        _, per, _, _, fmt_id = pend
        f = fmt[fmt_id]
        waiting = tuple(p for p, _ in per if p not in s.commits)
        texts = {p: asked(s, fmt_id, p, s.frames[-1][2]) for p in waiting}
        return Decision(waiting, True, {p: _labels(s, f, opts, p) for p, opts in per if p in waiting},
                        f"{self.step_title()}: choose secretly", {p: t for p, t in texts.items() if t})

    def display(self, player: int) -> list[str] | None:
        """The ruleset's `display` panel for ``player`` (None when it declares none): what a terminal shows."""
        return self.ruleset.display.panel(self.state, player)

    def option_details(self, player: int) -> list[str | None]:
        """Per option of ``player``'s decision: the ruleset's `describe` text of the option, else None."""
        pend = self.state.pending
        if pend is None or self.finished:
            return []
        if pend[0] == "choose":
            options = pend[2] if pend[1] == player else ()
        else:
            options = next((opts for p, opts in pend[1] if p == player), ())
        return self.ruleset.display.describe(self.state, player, tuple(options), pend[-1])

    def waiting_for(self) -> tuple[int, ...]:
        """Players who must decide now (cheap: builds no labels)."""
        s = self.state
        pend = s.pending
        if pend is None or s.status != "running":
            return ()
        if pend[0] == "choose":
            return (pend[1],)
        return tuple(p for p, _ in pend[1] if p not in self.state.commits)

    def option_count(self, player: int) -> int:
        pend = self.state.pending
        if pend is None:
            return 0
        if pend[0] == "choose":
            return len(pend[2]) if pend[1] == player else 0
        for p, opts in pend[1]:
            if p == player:
                return len(opts)
        return 0

    def apply(self, choice: int, player: int | None = None) -> None:
        """Apply ``player``'s choice (an option index); illegal choices change nothing."""
        s = self.state
        pend = s.pending
        if pend is None or s.status != "running":
            raise IllegalChoice("the game is not waiting for a decision")
        if choice.__class__ is not int and (not isinstance(choice, int) or isinstance(choice, bool)):
            raise IllegalChoice(f"a choice is an option number, not {choice!r}")
        if pend[0] == "choose":
            _, p, options, var, body_pc, end_pc, _ = pend
            if player is not None and player != p:
                raise IllegalChoice(f"it is P{p + 1}'s decision, not P{player + 1}'s")
            if not 0 <= choice < len(options):
                raise IllegalChoice(f"option {choice} is not legal (0..{len(options) - 1})")
            fr = s.frames[-1]
            value = options[choice]
            fr[2][var] = value
            fr[1] = end_pc if value is None else body_pc
            s.pending = None
            s.decisions.append((p, choice))
            self._advance()
            return
        _, per, key, next_pc, _ = pend
        chooser = player
        if chooser is None:
            waiting = [p for p, _ in per if p not in s.commits]
            if len(waiting) != 1:
                raise IllegalChoice("several players choose at once: say which player this choice is for")
            chooser = waiting[0]
        opts = next((o for p, o in per if p == chooser), None)
        if opts is None:
            raise IllegalChoice(f"P{chooser + 1} has no choice to make now")
        if chooser in s.commits:
            raise IllegalChoice(f"P{chooser + 1} has already chosen")
        if not 0 <= choice < len(opts):
            raise IllegalChoice(f"option {choice} is not legal (0..{len(opts) - 1})")
        s.commits = {**s.commits, chooser: choice}
        s.decisions.append((chooser, choice))
        if len(s.commits) == len(per):
            fr = s.frames[-1]
            fr[2][key] = (tuple((p, o[s.commits[p]]) for p, o in per), 0)
            fr[1] = next_pc
            s.pending = None
            s.commits = {}
            self._advance()

    def random_playout(self, rng: random.Random) -> int:
        """Play to the end with uniformly random legal choices; return how many decisions were made.

        Exactly the choices, the draws from ``rng`` and the final state of the driver loop
        ``while not finished: for p in waiting_for(): apply(rng.randrange(option_count(p)), p)``,
        but the step machine never stops at a choice: it picks in place (see :meth:`_advance`),
        so no labels, ``Decision``, per-call checks or re-entries into the step loop are paid.
        Simulations and benchmarks spend much of a short game there.
        """
        s = self.state
        if s.status != "running":
            return 0
        if s.pending is None:
            raise IllegalChoice("the game is not waiting for a decision")
        before = len(s.decisions)
        pick = _uniform_picker(rng)
        self._pick(pick)
        self._advance(pick)
        return len(s.decisions) - before

    # ------------------------------------------------------------ invariants
    def violations(self) -> list[tuple[str, str]]:
        """Every failing invariant now: (name, detail). Empty when all hold.

        The built-in ones are checked against the last state where they held when there is one
        (:mod:`.invariants`: exact, and much cheaper for rulesets with many cards or counters).
        """
        s = self.state
        cert = self._certified
        if cert is not None and cert.holds(s):
            out = invariants.others(s)
        else:
            out, certifiable = invariants.full(s)
            self._certified = invariants.Certified.take(s) if certifiable and s.tables.incremental_checks else None
        step = self.step_name()
        for text, fn, outside in self.ruleset.compiled.invariants:
            if step in outside:
                continue
            try:
                ok = fn(s, {})
            except RuleError as err:
                out.append((text, f"could not evaluate: {err}"))
                continue
            if not ok:
                out.append((text, ""))
        return out

    def _check_invariants(self) -> None:
        bad = self.violations()
        if bad:
            name, detail = bad[0]
            raise InvariantViolation(name, detail)

    # ------------------------------------------------------------ views and logs
    def _render(self, entry: tuple[Any, ...], viewer: int | None) -> str | None:
        mask, full, fmt_id, values = entry
        s = self.state
        if fmt_id == -1:
            return _game_over_line(values)
        if viewer is not None and not (mask >> viewer) & 1:
            return None
        fmt = self.ruleset.compiled.log_formats[fmt_id]
        who = s.tables.n if viewer is None else viewer  # bit n: the spectator
        redact = not (full >> who) & 1
        parts = fmt.text.split("{}")
        out = [parts[0]]
        for i, v in enumerate(values):
            if redact and i in fmt.card_args:
                out.append("a hidden card")
            else:
                out.append(fmt.formatters[i](s, v))
            out.append(parts[i + 1] if i + 1 < len(parts) else "")
        return "".join(out)

    def log_lines(self, viewer: int | None = None) -> list[str]:
        """The event log as text; ``viewer`` None is the public (spectator) view."""
        lines = []
        for entry in self.state.log:
            if viewer is None and not (entry[0] >> self.state.tables.n) & 1:
                continue
            text = self._render(entry, viewer)
            if text is not None:
                lines.append(text)
        return lines

    def view(self, player: int | None) -> dict[str, Any]:
        """What ``player`` may see (None: a spectator). Hidden cards appear as ``?``."""
        s = self.state
        t = s.tables
        prog = self.ruleset.program
        lay = self.ruleset.compiled.layout
        who = t.n if player is None else player  # bit n of a visibility mask: the spectator

        def visible(c: int) -> bool:
            return bool((card_visibility(s, c) >> who) & 1)

        def zone_view(zi: int) -> list[str]:
            return [t.card_names[c] if visible(c) else "?" for c in s.zones[zi]]

        zones: dict[str, Any] = {}
        for name, z in prog.zones.items():
            if z.per_player:
                zones[name] = {
                    f"P{p + 1}": zone_view(lay.zone_player_base + p * lay.zone_player_stride
                                          + lay.zone_player_offsets[name])
                    for p in range(t.n)
                }
            else:
                zones[name] = zone_view(lay.zone_global[name])
        counters: dict[str, Any] = {"first": f"P{s.counters[FIRST_SLOT] + 1}", "round": s.counters[ROUND_SLOT]}
        for name, c in prog.counters.items():
            width = len(prog.enums[c.index_enum]) if c.index_enum else 1
            labels = prog.enums[c.index_enum] if c.index_enum else None

            def read(base: int, labels: list[str] | None = labels, width: int = width) -> Any:
                if labels is None:
                    return s.counters[base]
                return {labels[k]: s.counters[base + k] for k in range(width)}

            if c.scope == "global":
                counters[name] = read(lay.global_slots[name])
            elif c.scope == "player":
                counters[name] = {
                    f"P{p + 1}": read(lay.player_base + p * lay.player_stride + lay.player_offsets[name])
                    for p in range(t.n)
                }
            else:
                shown = {}
                for cid in range(len(t.card_def)):
                    if visible(cid):
                        v = read(lay.card_base + cid * lay.card_stride + lay.card_offsets[name])
                        if v:
                            shown[t.card_names[cid]] = v
                counters[name] = shown
        decision: dict[str, Any] | None = None
        d = self.decision
        if d is not None:
            decision = {
                "waiting_for": [f"P{p + 1}" for p in d.players],
                "simultaneous": d.simultaneous,
                "committed": [f"P{p + 1}" for p in sorted(s.commits)],
            }
            if player is not None and player in d.options:
                decision["your_options"] = list(d.options[player])
                if player in d.prompts:  # only when the ruleset words the question: older views stay as they were
                    decision["your_prompt"] = d.prompts[player]
        return {
            "ruleset": self.ruleset.name,
            "viewer": "spectator" if player is None else f"P{player + 1}",
            "status": s.status,
            "zones": zones,
            "counters": counters,
            "decision": decision,
            "log": self.log_lines(player),
            "result": s.result,
        }

    # ------------------------------------------------------------ copies, saves, digests
    def clone(self) -> Game:
        g = Game(self.ruleset, self.state.clone(), self.seed, self.check)
        g.options = dict(self.options)
        g.float_free = self.float_free
        return g

    def to_json(self) -> dict[str, Any]:
        s = self.state
        return {
            "format": SAVE_FORMAT,
            "ruleset": self.ruleset.name,
            "ruleset_fingerprint": self.ruleset.fingerprint,
            "players": s.tables.n,
            "seed": self.seed,
            "options": self.options,
            "counters": s.counters,
            "zones": s.zones,
            "face_up": sorted(s.face_up),
            "rng": s.rng,
            "frames": [[f[0].id, f[1], thaw(f[2])] for f in s.frames],
            "pending": thaw(s.pending),
            "commits": {str(k): v for k, v in s.commits.items()},
            "log": thaw(s.log),
            "decisions": [list(d) for d in s.decisions],
            "steps": s.steps,
            "status": s.status,
            "result": s.result,
            "error": s.error,
            "removed_count": s.removed_count,
        }

    def digest(self) -> str:
        """A hash of the final state and the log: equal digests mean the same game."""
        # the text is the JSON list of interpreter/digest.py
        if self.float_free is None:  # loaded from a save; what the engine has written since holds no float
            self.float_free = not digestmod.has_float(digestmod.parts(self.state))
        return digestmod.digest(self.state, self.float_free)

    @property
    def result(self) -> dict[str, Any] | None:
        return self.state.result

    @property
    def error(self) -> str | None:
        return self.state.error


def replay_decisions(game: Game, decisions: Iterable[tuple[int, int]]) -> Game:
    """Apply a recorded decision sequence to a fresh game."""
    for p, i in decisions:
        if game.finished:
            raise IllegalChoice("the log has more decisions than the game")
        game.apply(int(i), int(p))
    return game
