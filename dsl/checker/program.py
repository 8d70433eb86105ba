"""What the checker produces (:class:`Program`, every declaration resolved), the lexical scope it checks
bodies in, and the built-in names."""

from __future__ import annotations

from dataclasses import dataclass, field

from liturgy.dsl import constructs
from liturgy.dsl.checker import types as T
from liturgy.dsl.checker.modes import ModeInfo
from liturgy.dsl.checker.types import Ty
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.frontend.cards import CardDef

# Deepest expression nesting the checker accepts: the compiler and the closures recurse once or more per level.
MAX_EXPR_DEPTH = 100
BUILTIN_VALUES = {"players", "first", "player_count", "round", "seats"}
BUILTIN_FUNCS = set(constructs.NAMES)  # the registry (dsl/constructs.py) declares every built-in
AGGREGATES = {"count", "sum", "any", "all", "min", "max", "sort"}
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
    graphs: dict[str, A.GraphDecl] = field(default_factory=dict)
    counters: dict[str, A.CounterDecl] = field(default_factory=dict)
    grids: dict[str, A.GridDecl] = field(default_factory=dict)  # not in ``counters``: cells are read as g[c, r]
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
    reports: list[A.ReportDecl] = field(default_factory=list)  # `report NAME = EXPR`, in the order written
    invariants: list[A.InvariantDecl] = field(default_factory=list)
    display: A.DisplayDecl | None = None
    describes: dict[str, A.DescribeDecl] = field(default_factory=dict)
    # `describe ENUM { value = "words" }`: the words a player reads for an enum value, wherever it is shown
    # (enum values are unique across enums, so one map serves them all)
    name_decls: list[A.DescribeNames] = field(default_factory=list)
    value_names: dict[str, str] = field(default_factory=dict)
    # `describe COUNTER { lose = "{who} lose{s} {n} Health" }`: how narration words a counter's changes
    narration_words: dict[str, dict[str, str]] = field(default_factory=dict)
    # `describe narration { causes = "off" }`: narration says what changed, not under which log line it happened
    # (engine/causes.py keeps no state copies for such a ruleset)
    narration_causes: bool = True
    # `describe ZONE { x = "col", y = "floor", links = "next" }`: the zone's cards drawn as a map (the web page)
    zone_layouts: dict[str, dict[str, str]] = field(default_factory=dict)
    cards: list[CardDef] = field(default_factory=list)
    card_files: list[str] = field(default_factory=list)  # every card file read, in the order read
    rule_files: list[str] = field(default_factory=list)  # the main file, then each one it includes (includes.py)
    # SHA-256 of the ruleset's bytes and its card files' (dsl/loader.py): saves and decision logs record it, so a
    # game is never resumed on rules that changed under it without saying so; "" when not read from files
    fingerprint: str = ""
    suspending: set[str] = field(default_factory=set)  # "proc:x", "window:x", "field:Kind.f"
    # a zone `visible to` a group or a `reveal … to`: who sees a card is more than its zone's fixed mask, so
    # generated code asks `card_visibility` instead of reading the mask in place
    group_visibility: bool = False
    fired: set[str] = field(default_factory=set)
    modes: dict[str, ModeInfo] = field(default_factory=dict)  # rule modes by name (dsl/checker/modes.py)


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
