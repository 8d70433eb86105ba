"""What compiled code is made of: instruction and closure types, code blocks, callables, log formats,
the counter layout and value formatters.  Shared by the compiler, the code generator and the engine."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from liturgy.dsl.checker.types import Ty
from liturgy.dsl.checker.wording import words
from liturgy.interpreter.runtime import rng
from liturgy.interpreter.runtime.grids import GridInfo
from liturgy.interpreter.runtime.moves import card_visibility
from liturgy.interpreter.runtime.state import GameState, hidden_card

ExprFn = Callable[[GameState, dict[str, Any]], Any]
StmtFn = Callable[[GameState, dict[str, Any]], None]
Ins = Callable[[GameState, list[Any]], bool]



def arguments(params: tuple[str, ...] | list[str], fs: list[ExprFn]) -> Callable[[GameState, dict[str, Any]],
                                                                              dict[str, Any]]:
    """The env of a call of a proc or `fn`: each parameter bound to its argument's value, in order. One or two
    parameters (nearly every call) are written out: a comprehension is a function call of its own, and a
    recursive call's env was a fifth of its cost in the closures (tests/test_attack_budgets.py)."""
    pairs = tuple(zip(params, fs, strict=True))
    if len(pairs) == 1:
        (p0, f0), = pairs
        return lambda s, env: {p0: f0(s, env)}
    if len(pairs) == 2:
        (p0, f0), (p1, f1) = pairs
        return lambda s, env: {p0: f0(s, env), p1: f1(s, env)}
    return lambda s, env: {p: f(s, env) for p, f in pairs}


FIRST_SLOT = 0
ROUND_SLOT = 1
MAX_FIRE_DEPTH = 200
# Beside a `simultaneously … by` loop's key in its frame: the units, one per entry of the pending choice.
UNITS = "/units"
MAX_REROLLS = rng.MAX_REROLLS


class Code:
    """A block of step-machine instructions (a proc, handler, card effect or the main flow)."""

    __slots__ = ("id", "name", "ins", "fast")

    def __init__(self, cid: int, name: str) -> None:
        self.id = cid
        self.name = name
        self.ins: list[Ins] = []
        # what the engine runs while far from the step limit: ``ins`` with fused instructions (see .fuse)
        self.fast: list[Ins] = self.ins


@dataclass
class Callable_:
    """A compiled proc, handler or effect: pure closure or step-machine code."""

    params: tuple[str, ...]
    pure: StmtFn | None
    code: Code | None
    name: str
    # the generated pure body taking its parameters by position (generated callers use it: no dict per call)
    fast: Any = None


def owned(target: Callable_) -> Callable_:
    """``target``, its ``pure`` told where it is held where it has ``bind``: a function compiled on its first call
    (codegen/lazypure.py), which then puts itself there."""
    bind = getattr(target.pure, "bind", None)
    if bind is not None:
        bind(target)
    return target


@dataclass
class LogFormat:
    text: str
    formatters: tuple[Callable[[Any, Any], str], ...]
    card_args: tuple[int, ...]  # positions holding cards or lists of cards


@dataclass
class Layout:
    max_players: int
    global_slots: dict[str, int] = field(default_factory=dict)
    player_offsets: dict[str, int] = field(default_factory=dict)
    player_stride: int = 0
    card_offsets: dict[str, int] = field(default_factory=dict)
    card_stride: int = 0
    player_base: int = 0
    card_base: int = 0
    zone_global: dict[str, int] = field(default_factory=dict)
    zone_player_offsets: dict[str, int] = field(default_factory=dict)
    zone_player_stride: int = 0
    zone_player_base: int = 0
    zone_card_offsets: dict[str, int] = field(default_factory=dict)
    zone_card_stride: int = 0
    zone_card_base: int = 0
    enum_index: dict[str, dict[str, int]] = field(default_factory=dict)
    grids: dict[str, GridInfo] = field(default_factory=dict)  # each grid's slots: in the global block
    # `absent_while FLAG`: FLAG's offset among a player's counters (None without one); `players` and
    # `player_count` then read it (docs/language.md, "Seats that join later")
    absent_offset: int | None = None


def _fmt_player(s: Any, v: Any) -> str:
    return "nobody" if v is None else f"P{v + 1}"


def _fmt_card(s: Any, v: Any) -> str:
    return "no card" if v is None else s.tables.card_names[v]


def _fmt_plain(s: Any, v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def formatter_for(t: Ty | None, names: Mapping[str, str] | None = None) -> Callable[[Any, Any], str]:
    """How a value of type ``t`` is written in text. With ``names`` (a log line's or a shown text's values, which
    players read), an enum value is written in words: its entry there (dsl/checker/wording.py: declared or from
    the card data), else the identifier as words (`pass_turn` → "pass turn"); without, as the identifier."""
    if t is None:
        return _fmt_plain
    if t.kind == "player":
        return _fmt_player
    if t.kind == "card":
        return _fmt_card
    if t.kind == "bool":
        return lambda s, v: "yes" if v else "no"
    if t.kind == "enum" and names is not None:
        return lambda s, v: (names.get(v) or words(v)) if isinstance(v, str) else _fmt_plain(s, v)
    if t.kind in ("list", "zone", "set"):
        elem = t.elem if t.kind == "list" else Ty("card") if t.kind == "zone" else (
            t.elem if names is not None and t.elem is not None and t.elem.kind == "enum" else None)  # a set of enums
        inner = formatter_for(elem, names)
        if t.kind == "zone":
            return lambda s, v: ", ".join(inner(s, c) for c in s.zones[v]) or "nothing"
        return lambda s, v: ", ".join(inner(s, x) for x in v) or "nothing"
    return _fmt_plain


def plain_value(t: Ty | None) -> Callable[[Any], Any]:
    """How a value of type ``t`` goes into a game's result (`report`): a list (a tuple here) as a list, a yes/no
    (a flag is stored as 0 or 1) as ``True``/``False``, anything else (numbers, text, enum names, seats) as it is,
    so the result is JSON and compares equal after a save and a load."""
    if t is not None and t.kind == "bool":
        return lambda v: None if v is None else bool(v)
    if t is not None and t.kind == "list":
        inner = plain_value(t.elem)
        return lambda v: [inner(x) for x in v]
    return lambda v: v


def nests_cards(t: Ty | None) -> bool:
    """A list (of lists…) of cards: each card inside must be shown by name only to those who see it."""
    return t is not None and t.kind in ("list", "set") and t.elem is not None and (
        t.elem.kind == "card" or nests_cards(t.elem))


def seen_text(s: GameState, v: Any, t: Ty | None, who: int) -> str:
    """``v`` of type ``t`` as text for viewer ``who``, every card inside it the viewer cannot see now written
    `a hidden card` (at any depth: a list of lists of cards too)."""
    if t is not None and t.kind == "card":
        if v is None:
            return "no card"
        if (card_visibility(s, v) >> who) & 1:
            return str(s.tables.card_names[v])
        return hidden_card(s.tables, v, "a hidden card")
    if nests_cards(t) and isinstance(v, tuple):
        assert t is not None
        return ", ".join(seen_text(s, x, t.elem, who) for x in v) or "nothing"
    return formatter_for(t)(s, v)


@dataclass(frozen=True)
class Generators:
    """The code generators the compiler is handed (interpreter/codegen/__init__.py's :data:`GENERATORS`).

    The compiler never imports interpreter/codegen: the engine passes these in, so the closure compiler stands
    on its own (it is the reference the generated code is tested against) and the two packages do not import
    each other. Each field builds one generator for a compiler: ``expr(comp)`` the expression generator,
    ``stmt(comp, expr_gen)`` the statement generator, ``choice(expr_gen)`` the choice generator, and
    ``fuse(comp)`` fuses the step machine's instructions, returning the most original instructions one fused
    call runs.
    """

    expr: Callable[[Any], Any]
    stmt: Callable[[Any, Any], Any]
    choice: Callable[[Any], Any]
    fuse: Callable[[Any], int]
    # ``score(expr_gen, expr, var)``: every player's score in one function of (state, players), or None
    score: Callable[[Any, Any, str], Any] | None = None

