"""The compiler's shared state: what every layer of the compiler reads and writes.

The compiler is a stack of layers, each a class built on the one below: :class:`CompilerCore` (state,
layout, instruction notes) -> expressions -> pure statements -> the step machine -> :class:`Compiler` (the
driver).  Each layer calls only its own methods and those of the layers beneath it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from liturgy.dsl.checker.program import Program
from liturgy.dsl.checker.types import Ty
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler import budgets
from liturgy.interpreter.compiler.code import Callable_, Code, ExprFn, Generators, Ins, Layout, LogFormat, StmtFn
from liturgy.interpreter.compiler.instructions import _goto, _pack
from liturgy.interpreter.compiler.readsets import InvariantReads
from liturgy.interpreter.compiler.sizes import Sizes
from liturgy.interpreter.runtime import budget
from liturgy.interpreter.runtime.graphs import GraphWalk
from liturgy.interpreter.runtime.grids import GridInfo

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.choicegen import ChoiceGen
    from liturgy.interpreter.codegen.exprgen import ExprGen
    from liturgy.interpreter.codegen.stmtgen import StmtGen
    from liturgy.interpreter.compiler.compiler import Compiler
    from liturgy.interpreter.runtime.state import GameState


class CompilerCore:
    """State shared by every layer; the layout of counters and zones; notes on instructions."""

    def __init__(self, prog: Program, generators: Generators | None = None, stmtgen: bool = True,
                 inline_fns: bool = True, fuse: bool = True, notes: bool = False) -> None:
        """``generators``: the code generators to use (None: closures and step-machine code only); ``notes``:
        the code notes every counter slot and zone it writes in ``GameState.wrote`` (the variant checked games
        run, engine/ruleset.py's ``Ruleset.noted``; unchecked games run code without a note at all)."""
        self.prog = prog
        self.notes = notes
        self.generators = generators
        # the game's budgets (interpreter/runtime/budget.py), written into the compiled code as constants
        self.work_limit, self.size_limit, self.text_limit = budget.limits(prog.game.budgets)
        # what can call itself (compiler/budgets.py): only its calls are counted as work; such fns are not inlined
        self.recursive = budgets.recursive_names(prog)
        self.recursive_fns = {n[3:] for n in self.recursive if n.startswith("fn:")}
        # static sizes and int ranges (compiler/sizes.py): budget checks that can never fire are left out
        self.sizes = Sizes(prog)
        # fused step-machine instructions (needs generated statements); fuse_span: the most original
        # instructions one fused call runs (0: none), which the engine keeps away from the step limit
        self.fuse = fuse
        self.fuse_span = 0
        # what each step-machine instruction does, for the fuser: id(fn) -> (fn, kind, *data)
        self.ins_info: dict[int, tuple[Any, ...]] = {}
        # fuse's copies of a called proc's Code, one per call site (same id and instructions; their fused
        # functions return into that caller): built with the fused functions, listed for `liturgy dump`
        self.call_sites: list[Code] = []
        # calls to `fn`s nest inline up to this depth; the rule profiler sets 0 so every call is counted
        self.inline_limit = 6 if inline_fns else 0
        # generated code may call a proc's, handler's or card function's body directly, by position; off with
        # inline_fns=False, so every call goes through the objects the rule profiler wraps
        self.direct_calls = inline_fns
        # the generators work for the whole compiler (every layer above this one): this object is one
        whole = cast("Compiler", self)
        g = generators
        self.gen: ExprGen | None = g.expr(whole) if g is not None else None
        # whole blocks of pure statements as generated functions (needs generated expressions)
        self.sgen: StmtGen | None = g.stmt(whole, self.gen) if g is not None and stmtgen else None
        self.cgen: ChoiceGen | None = g.choice(self.gen) if g is not None and self.sgen is not None else None
        self.codes: list[Code] = []
        self.layout = self._layout()
        self.log_formats: list[LogFormat] = []
        self.fns: dict[str, tuple[tuple[str, ...], ExprFn]] = {}
        self.procs: dict[str, Callable_] = {}
        self.handlers: dict[str, list[Callable_]] = {}
        # per field name: list indexed by CardDef index
        self.effects: dict[str, list[Callable_ | None]] = {}
        self.functions: dict[str, list[ExprFn]] = {}
        self.step_pcs: dict[str, int] = {}
        self.graph_walks: dict[str, GraphWalk] = {}  # one walker (and answer cache) per graph
        self.step_names_by_pc: list[tuple[int, str]] = []
        # the step each main-frame position is in, as found (engine/game.py ``violations``: an invariant that names
        # steps it does not hold in asks at checked decisions, and a dict lookup is a fraction of the search)
        self.step_at_pc: dict[int, str] = {}
        self.step_titles: dict[str, str] = {}
        self.choice_nones: dict[int, int] = {}
        self._uid = 0
        self.main: Code | None = None
        self.finish: StmtFn | None = None
        self.score: ExprFn | None = None
        # `score(p) = EXPR`'s expression and its player's name: the engine's scoring (Game._advance) binds the
        # player itself, one environment and one call a player fewer than through ``score``
        self.score_parts: tuple[ExprFn, str] | None = None
        # every player's score in one generated call, ``score_all(s, players)`` (codegen/scoregen.py), or None: the
        # engine then calls ``score_parts``'s body once per player
        self.score_all: Callable[[GameState, tuple[int, ...]], list[Any]] | None = None
        self.tiebreaks: list[ExprFn] = []
        self.winner: ExprFn | None = None  # `winner(p)`: who wins, instead of the best score
        self.reports: list[tuple[str, ExprFn]] = []  # `report NAME = EXPR`: the result's ``reports``, in order
        self.invariants: list[tuple[str, ExprFn, frozenset[str]]] = []
        # per invariant, what it reads (readsets.py): a checked game skips one whose reads did not change
        self.invariant_reads = InvariantReads([], Layout(max_players=0))
        self.choice_formats: list[Callable[[Any, Any], str]] = []
        # per choice (indexed like choice_formats): the label of the `optional` option
        self.choice_pass_labels: list[str] = []
        # per choice: its `prompt` (compiled by display.py), the type of its options (for `describe`), and the
        # player name a `simultaneously` binds (its prompt may use it)
        self.choice_prompts: list[A.Prompt | None] = []
        self.choice_elems: list[Ty | None] = []
        # per loop key of the step machine (a `for` or `simultaneously` frame entry): the type of its items, so
        # a world sampled for a player (engine/infosets.py) can tell the cards a loop holds from numbers
        self.loop_elems: dict[str, Ty | None] = {}
        self.choice_pvars: list[str | None] = []
        # Card data shared by every game: filled in by the Ruleset for the
        # largest player count (card ids of smaller games are a prefix).
        self.field_lists: dict[str, list[Any]] = {}
        self.card_def: list[int] = []
        # Inlining of `fn` calls: parameter name -> argument closure.
        self.subst: dict[str, ExprFn] = {}
        self.inline_depth = 0
        self._binder_cache: dict[tuple[str, str | None], frozenset[str]] = {}
        # for each inlined parameter in ``subst``: the caller's variables its argument reads (None: unknown)
        self.subst_names: dict[str, frozenset[str] | None] = {}

    # ------------------------------------------------------------ layout
    def _layout(self) -> Layout:
        prog = self.prog
        lay = Layout(max_players=prog.game.max_players)
        for name, vals in prog.enums.items():
            lay.enum_index[name] = {v: i for i, v in enumerate(vals)}
        counters = prog.counters.items()
        globals_, width = _pack([*((n, self._width(c)) for n, c in counters if c.scope == "global"),
                                 *((n, g.width * g.height) for n, g in prog.grids.items())])
        lay.global_slots = {name: 2 + off for name, off in globals_.items()}  # after FIRST_SLOT, ROUND_SLOT
        lay.grids = {n: GridInfo(n, lay.global_slots[n], g.width, g.height) for n, g in prog.grids.items()}
        lay.player_base = 2 + width
        lay.player_offsets, lay.player_stride = _pack((n, self._width(c)) for n, c in counters if c.scope == "player")
        lay.card_base = lay.player_base + lay.player_stride * lay.max_players
        if prog.game.absent is not None:
            lay.absent_offset = lay.player_offsets[prog.game.absent[0]]
        lay.card_offsets, lay.card_stride = _pack((n, self._width(c)) for n, c in counters if c.scope == "card")
        shared = ((n, 1) for n, z in prog.zones.items() if not z.per_player and not z.per_card)
        lay.zone_global, lay.zone_player_base = _pack(shared)
        lay.zone_player_offsets, lay.zone_player_stride = _pack((n, 1) for n, z in prog.zones.items() if z.per_player)
        # zones per card come last: one group per card id, after every player's (their count depends on n)
        lay.zone_card_base = lay.zone_player_base + lay.zone_player_stride * lay.max_players
        lay.zone_card_offsets, lay.zone_card_stride = _pack((n, 1) for n, z in prog.zones.items() if z.per_card)
        return lay

    def _width(self, c: A.CounterDecl) -> int:
        return len(self.prog.enums[c.index_enum]) if c.index_enum else 1

    def new_code(self, name: str) -> Code:
        code = Code(len(self.codes), name)
        self.codes.append(code)
        return code

    def uid(self) -> str:
        self._uid += 1
        return f"#{self._uid}"

    def note(self, fn: Ins, kind: str, *data: Any) -> Ins:
        """Record what instruction ``fn`` does (``kind`` and its targets), so the fuser can inline it."""
        self.ins_info[id(fn)] = (fn, kind, *data)
        return fn

    def goto(self, target: int) -> Ins:
        return self.note(_goto(target), "goto", target)
