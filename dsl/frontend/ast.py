"""The typed syntax tree of a ruleset.

Nodes are plain dataclasses with a source span.  Expression nodes carry two
slots the checker fills in (``ty`` and ``ref``) so the compiler never has to
resolve a name a second time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeAlias

from liturgy.dsl.diagnostics import NOWHERE, Span

if TYPE_CHECKING:  # the checker's types; the checker imports this module, so only for annotations
    from liturgy.dsl.checker.types import Ty

# ---------------------------------------------------------------- types


@dataclass(eq=False)
class TypeExpr:
    """A type as written: ``int``, ``card Monster``, ``set of Trophy``, ``effect(p: player)``."""

    kind: str  # int bool text player card set list effect function named
    span: Span
    arg: str | None = None  # card kind, set element enum, or named type
    elem: TypeExpr | None = None  # list element
    params: list[Param] = field(default_factory=list)
    ret: TypeExpr | None = None


@dataclass(eq=False)
class Param:
    name: str
    type: TypeExpr
    span: Span


# ---------------------------------------------------------------- expressions


@dataclass(eq=False)
class Expr:
    span: Span
    ty: Ty | None = field(default=None, init=False, repr=False, compare=False)  # set by the checker
    # what a name refers to, set by the checker: a tagged tuple (see ``Ref`` at the end of this module)
    ref: Ref | None = field(default=None, init=False, repr=False, compare=False)


@dataclass(eq=False)
class IntLit(Expr):
    value: int = 0


@dataclass(eq=False)
class StrLit(Expr):
    value: str = ""


@dataclass(eq=False)
class BoolLit(Expr):
    value: bool = False


@dataclass(eq=False)
class NoneLit(Expr):
    pass


@dataclass(eq=False)
class Name(Expr):
    id: str = ""


@dataclass(eq=False)
class Attr(Expr):
    obj: Expr = field(default_factory=lambda: NoneLit(NOWHERE))
    name: str = ""
    name_span: Span = NOWHERE


@dataclass(eq=False)
class Index(Expr):
    obj: Expr = field(default_factory=lambda: NoneLit(NOWHERE))
    index: Expr = field(default_factory=lambda: NoneLit(NOWHERE))


@dataclass(eq=False)
class Cell(Expr):
    """``board[c, r]``: the cell of a grid at column ``col`` and row ``row``."""

    obj: Expr = field(default_factory=lambda: NoneLit(NOWHERE))
    col: Expr = field(default_factory=lambda: NoneLit(NOWHERE))
    row: Expr = field(default_factory=lambda: NoneLit(NOWHERE))


@dataclass(eq=False)
class Call(Expr):
    func: Expr = field(default_factory=lambda: NoneLit(NOWHERE))
    args: list[Expr] = field(default_factory=list)


@dataclass(eq=False)
class Aggregate(Expr):
    """``count(c for c in p.hand where c.kind == melee)`` and friends."""

    func: str = ""
    func_span: Span = NOWHERE
    elem: Expr = field(default_factory=lambda: NoneLit(NOWHERE))
    var: str = ""
    iterable: Expr = field(default_factory=lambda: NoneLit(NOWHERE))
    where: Expr | None = None
    key: Expr | None = None  # `sort(… by KEY)`: the order of the items (only `sort` takes one)


@dataclass(eq=False)
class ListLit(Expr):
    items: list[Expr] = field(default_factory=list)


@dataclass(eq=False)
class ListComp(Expr):
    elem: Expr = field(default_factory=lambda: NoneLit(NOWHERE))
    var: str = ""
    iterable: Expr = field(default_factory=lambda: NoneLit(NOWHERE))
    where: Expr | None = None


@dataclass(eq=False)
class Unary(Expr):
    op: str = ""  # "-" or "not"
    operand: Expr = field(default_factory=lambda: NoneLit(NOWHERE))


@dataclass(eq=False)
class Binary(Expr):
    op: str = ""
    left: Expr = field(default_factory=lambda: NoneLit(NOWHERE))
    right: Expr = field(default_factory=lambda: NoneLit(NOWHERE))


@dataclass(eq=False)
class Cond(Expr):
    test: Expr = field(default_factory=lambda: NoneLit(NOWHERE))
    then: Expr = field(default_factory=lambda: NoneLit(NOWHERE))
    orelse: Expr = field(default_factory=lambda: NoneLit(NOWHERE))


@dataclass(eq=False)
class LetIn(Expr):
    """A local binding inside a `fn` body: ``{ let NAME = VALUE … return BODY }`` is one ``LetIn`` per `let`,
    nested, so a function can name a value once and use it several times (``value`` is evaluated once)."""

    name: str = ""
    name_span: Span = NOWHERE
    value: Expr = field(default_factory=lambda: NoneLit(NOWHERE))
    body: Expr = field(default_factory=lambda: NoneLit(NOWHERE))


# ---------------------------------------------------------------- statements


@dataclass(eq=False)
class Stmt:
    span: Span


@dataclass(eq=False)
class Let(Stmt):
    name: str
    value: Expr


@dataclass(eq=False)
class Assign(Stmt):
    target: Expr
    op: str  # = += -=
    value: Expr


@dataclass(eq=False)
class Move(Stmt):
    what: Expr
    dest: Expr
    place: str  # "top" or "bottom" ("" = the zone's natural end)


@dataclass(eq=False)
class Shuffle(Stmt):
    zone: Expr


@dataclass(eq=False)
class Reveal(Stmt):
    target: Expr
    to: Expr | None = None  # a player or a list of players: shown to them only (None: to everyone)


@dataclass(eq=False)
class Transfer(Stmt):
    amount: Expr | None  # None = all
    source: Expr
    dest: Expr
    bind: str | None


@dataclass(eq=False)
class If(Stmt):
    branches: list[tuple[Expr, list[Stmt]]]
    orelse: list[Stmt]


@dataclass(eq=False)
class For(Stmt):
    var: str
    iterable: Expr
    body: list[Stmt]


@dataclass(eq=False)
class RepeatWhile(Stmt):
    cond: Expr
    body: list[Stmt]


@dataclass(eq=False)
class Break(Stmt):
    pass


@dataclass(eq=False)
class Prompt:
    """`prompt "TEXT", args…` of a choice: the question a player is asked, formatted like a log line."""

    span: Span
    text: str
    args: list[Expr]


@dataclass(eq=False)
class Choose(Stmt):
    var: str
    source: Expr
    where: Expr | None
    chooser: Expr
    optional: bool
    body: list[Stmt]
    none_body: list[Stmt] | None
    # `optional "LABEL"`: the extra option's label; it is offered even when no item qualifies
    label: str | None = None
    label_span: Span | None = None
    prompt: Prompt | None = None
    # `} or pass ["LABEL"]`: the label of the one option offered only when no item qualifies; the checker
    # rewrites such a choice before any later pass sees it (None: a plain choice)
    or_pass: str | None = None
    or_pass_span: Span | None = None


@dataclass(eq=False)
class Simultaneous(Stmt):
    player_var: str
    players: Expr
    var: str
    source: Expr
    where: Expr | None
    body: list[Stmt]
    prompt: Prompt | None = None
    # `by EXPR`: who decides for each item of the list (units); None: the items are the deciding players
    by: Expr | None = None


@dataclass(eq=False)
class Do(Stmt):
    call: Expr


@dataclass(eq=False)
class Fire(Stmt):
    window: str
    args: list[Expr]


@dataclass(eq=False)
class EndGame(Stmt):
    pass


@dataclass(eq=False)
class SkipTo(Stmt):
    step: str


@dataclass(eq=False)
class Log(Stmt):
    to: Expr | None
    text: str
    args: list[Expr]


@dataclass(eq=False)
class ModeSwitch(Stmt):
    """`enter MODE` / `leave MODE`: switch a rule mode's handlers and steps on or off."""

    mode: Expr
    enter: bool  # False: `leave`


@dataclass(eq=False)
class GraphLink(Stmt):
    """`link A to B on GRAPH by KIND` / `unlink A from B on GRAPH [by KIND]`: a connection made or removed
    during play (a placed tile, a blocked road); without `by`, `unlink` removes every kind between A and B."""

    a: Expr
    b: Expr
    graph: str
    graph_span: Span
    kind: Expr | None
    link: bool  # False: `unlink`


# ---------------------------------------------------------------- declarations


@dataclass(eq=False)
class Decl:
    span: Span


@dataclass(eq=False)
class GameDecl(Decl):
    title: str
    min_players: int = 1
    max_players: int = 1
    step_limit: int = 100_000
    seats: str = "clockwise"
    # `absent_while FLAG`: the `flag per player` that marks a seat as not playing (yet); its name and where
    # it is written, or None (docs/language.md, "Seats that join later")
    absent: tuple[str, Span] | None = None
    # the per-game budgets (interpreter/runtime/budget.py): name -> (value, where it was declared)
    budgets: dict[str, tuple[int, Span]] = field(default_factory=dict)


@dataclass(eq=False)
class EnumDecl(Decl):
    name: str
    values: list[tuple[str, Span]]


@dataclass(eq=False)
class DieDecl(Decl):
    name: str
    faces: list[tuple[int, bool]]


@dataclass(eq=False)
class FieldDecl:
    name: str
    type: TypeExpr
    default: Expr | None
    span: Span
    # `back NAME: T`: printed on the card's back, so shown wherever the card's existence is (hidden or not)
    modifier: str | None = None

    @property
    def back(self) -> bool:
        return self.modifier == "back"


@dataclass(eq=False)
class CardKindDecl(Decl):
    name: str
    fields: list[FieldDecl]


@dataclass(eq=False)
class CardsDecl(Decl):
    pattern: str


@dataclass(eq=False)
class IncludeDecl(Decl):
    """`include "part.rules"`: only the front end (dsl/frontend/includes.py) sees it; it replaces it by the
    included file's declarations, so the checker and the compiler see one program."""

    path: str


@dataclass(eq=False)
class ZoneDecl(Decl):
    name: str
    per_player: bool
    order: str
    visibility: str
    of_kind: str | None = None
    final: bool = False
    capacity: int | None = None
    size_hidden: bool = False  # `size hidden`: a viewer who may not see its cards does not see how many there are
    per_card: bool = False
    group: Expr | None = None  # `visible to EXPR` (visibility "group"): who sees its cards, computed when asked
    # `VISIBILITY as host` (zones per card): the owner is that of the zone the host card lies in, now
    visibility_as: str | None = None
    as_span: Span | None = None

    @property
    def as_host(self) -> bool:
        return self.visibility_as == "host"


@dataclass(eq=False)
class GraphDecl(Decl):
    """`graph NAME: Nodes by Kinds from "file.yaml"`: a fixed map whose places are values of one enum and whose
    connections, each of a kind from another enum, are read from a YAML file like card files."""

    name: str
    nodes: str  # the enum whose values are the places
    kinds: str  # the enum whose values are the kinds of connection
    path: str
    # filled by the checker from the file: kind -> place -> its neighbours by that kind, in the enum's order
    edges: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict, repr=False, compare=False)


@dataclass(eq=False)
class CounterDecl(Decl):
    name: str
    scope: str  # "global" | "player" | "card"
    is_flag: bool
    index_enum: str | None
    lo: int | None
    hi: int | None
    default: Expr | None
    reset_each_round: bool
    track_values: list[int] | None = None
    pool: str | None = None
    option: str | None = None  # an `option`: the enum its value comes from, or `int` (a whole number in lo..hi)
    holds: TypeExpr | None = None  # `counter NAME: T`: it holds an enum value, a player or a card (or none)
    held: Ty | None = field(default=None, repr=False, compare=False)  # ``holds`` resolved by the checker
    seen_by: str = ""  # who sees its values in views: "" everyone, "owner" (`visible to owner`), "hidden" nobody,
    # "group": `visible to EXPR`, the players ``seen_group`` names (computed when a view asks; `owner` in it is the
    # counter's player)
    seen_group: Expr | None = None


@dataclass(eq=False)
class GridDecl(CounterDecl):
    """``grid NAME W by H of T``: W x H cells, each a counter slot of the flat state (so saves, digests and
    clones cover it), read and written as ``NAME[c, r]``. A counter underneath, so assignments, bounds and
    the counter machinery apply to cells unchanged; kept out of ``Program.counters``."""

    width: int = 1
    height: int = 1
    cell: TypeExpr | None = None
    cell_ty: Ty | None = field(default=None, repr=False, compare=False)  # the cells' type, set by the checker


@dataclass(eq=False)
class PoolDecl(Decl):
    name: str
    holders: list[CounterDecl]
    supply: int = 0


@dataclass(eq=False)
class WindowDecl(Decl):
    name: str
    params: list[Param]


@dataclass(eq=False)
class HandlerDecl(Decl):
    window: str
    params: list[Param]
    body: list[Stmt]


@dataclass(eq=False)
class ProcDecl(Decl):
    name: str
    params: list[Param]
    body: list[Stmt]


@dataclass(eq=False)
class FnDecl(Decl):
    name: str
    params: list[Param]
    ret: TypeExpr
    body: Expr


@dataclass(eq=False)
class SetupDecl(Decl):
    body: list[Stmt]


@dataclass(eq=False)
class StepDecl(Decl):
    name: str
    title: str
    body: list[Stmt]
    # a rule mode's step: placed `after` or `before` the step named ``anchor`` ("" for a round's own steps)
    place: str = ""
    anchor: str = ""
    anchor_span: Span = NOWHERE


@dataclass(eq=False)
class RoundDecl(Decl):
    steps: list[StepDecl]


@dataclass(eq=False)
class FinishDecl(Decl):
    body: list[Stmt]


@dataclass(eq=False)
class ScoreDecl(Decl):
    var: str
    expr: Expr
    tiebreak: bool = False


@dataclass(eq=False)
class WinnerDecl(Decl):
    """`winner(p) = BOOL`: exactly the players for whom it holds win (possibly none), instead of the best score."""

    var: str
    expr: Expr


@dataclass(eq=False)
class ReportDecl(Decl):
    """`report NAME = EXPR`: a value of the final state put in the game's result under ``name``, so tools read
    what a ruleset counts (a run's achievements) without parsing its log."""

    name: str
    expr: Expr


@dataclass(eq=False)
class InvariantDecl(Decl):
    text: str
    expr: Expr
    outside: list[tuple[str, Span]] = field(default_factory=list)  # steps where it need not hold


@dataclass(eq=False)
class ShowLine:
    """`show "text", values…`: one line of a `display`."""

    span: Span
    text: str
    args: list[Expr]


@dataclass(eq=False)
class ShowFor:
    """`for x in L [where C] { … }` in a `display`: its lines once per item."""

    span: Span
    var: str
    source: Expr
    where: Expr | None
    body: list[ShowItem]


@dataclass(eq=False)
class ShowIf:
    """`if C { … } [else { … }]` in a `display`."""

    span: Span
    cond: Expr
    body: list[ShowItem]
    orelse: list[ShowItem]


ShowItem = ShowLine | ShowFor | ShowIf


@dataclass(eq=False)
class DisplayDecl(Decl):
    var: str  # the viewing player
    body: list[ShowItem]


@dataclass(eq=False)
class DescribeDecl(Decl):
    kind: str  # the card kind whose option labels it describes
    card: str
    viewer: str
    text: str
    args: list[Expr]


@dataclass(eq=False)
class DescribeNames(Decl):
    """`describe ENUM { value = "words", … }`: what a player reads for each named value of an enum, wherever the
    value is shown (log lines, `show` and `prompt` text, option labels, the page's map)."""
    enum: str
    names: list[tuple[str, str, Span]]  # (value, words, where the entry is written)


@dataclass(eq=False)
class ModeDecl(Decl):
    """`mode NAME { … }`: declarations, handlers and extra round steps that apply only while the mode is active
    (dsl/checker/modes.py scopes its names; its handlers and steps run only between `enter` and `leave`)."""

    name: str
    decls: list[Decl]


@dataclass(eq=False)
class Ruleset:
    """A parsed ruleset file: its declarations in source order."""

    path: str
    decls: list[Decl]


# ---------------------------------------------------------------- references
# What a name, field, index or call refers to, set by the checker in ``Expr.ref``.  Each is a tuple tagged by its
# first item so consumers narrow on ``ref[0] == "zone"`` (mypy narrows the union by the literal) and building one
# costs a tuple, not an object.

LocalRef: TypeAlias = tuple[Literal["local"], str]  # a let, loop or parameter name
SelfRef: TypeAlias = tuple[Literal["self"]]  # the card whose effect runs
FirstRef: TypeAlias = tuple[Literal["first"]]  # the first player
BuiltinNameRef: TypeAlias = tuple[Literal["builtin"], str]  # players, player_count, round
ZoneRef: TypeAlias = tuple[Literal["zone", "pzone", "czone"], ZoneDecl]  # a global zone; a player's; a card's
CounterRef: TypeAlias = tuple[Literal["counter", "pcounter", "ccounter"], CounterDecl]  # global, player, card
EnumValueRef: TypeAlias = tuple[Literal["enumval", "enumtype", "die"], str]  # a value, an enum's name, a die
FieldRef: TypeAlias = tuple[Literal["field"], str]  # a card's printed field
GraphRef: TypeAlias = tuple[Literal["graph"], GraphDecl]  # a graph's name, the first argument of its built-ins
GridRef: TypeAlias = tuple[Literal["grid", "gridcell"], "GridDecl"]  # a grid's name; a cell `g[c, r]`
DirectionRef: TypeAlias = tuple[Literal["direction", "directions"], str]  # a direction; a named set of them
IndexRef: TypeAlias = tuple[Literal["icounter", "list_index"]]  # an enum-indexed counter; a list element
ProcRef: TypeAlias = tuple[Literal["call_proc"], ProcDecl]
FnRef: TypeAlias = tuple[Literal["call_fn"], FnDecl]
FieldCallRef: TypeAlias = tuple[Literal["call_field"], str, Literal["effect", "function"]]  # a card's effect field
BuiltinCallRef: TypeAlias = tuple[Literal["call_builtin"], str]  # a registry built-in (dsl/constructs/builtins.py)

Ref: TypeAlias = (LocalRef | SelfRef | FirstRef | BuiltinNameRef | ZoneRef | CounterRef | EnumValueRef | FieldRef
                  | IndexRef | ProcRef | FnRef | FieldCallRef | BuiltinCallRef | GraphRef | GridRef | DirectionRef)


def ref_of(e: Expr) -> Ref:
    """``e.ref`` after checking: the compiler only sees checked trees, so a missing referent is a bug, not input."""
    ref = e.ref
    if ref is None:  # pragma: no cover - the checker resolves every name it accepts
        raise AssertionError(f"unresolved {type(e).__name__} at {e.span}")
    return ref
