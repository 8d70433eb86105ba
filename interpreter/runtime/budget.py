"""Per-game budgets: total work, collection sizes, text lengths and 64-bit integers (issue 18).

The step limit bounds the engine's steps, but one step can run any amount of pure code: a proc calling itself
twice per level, three nested `repeat while` loops, aggregates nested over an enum, a window firing itself
twice per level. Each of those stays within every depth limit and still never ends, and `x = x * x` or doubling
a text in a loop exhausts memory before anything notices. A game therefore has budgets, set in its `game`
block (docs/language.md §6), and passing one stops the game with a :class:`BudgetExceeded` naming the budget,
the line, and the setting that raises it:

- ``work_limit`` (default 1,000,000 units for the whole game; a whole Bloodborne game uses about 500, and a
  runaway recursion reaches the default within a few seconds): every call of a proc, `fn`, handler or card
  field that can call itself (compiler/budgets.py, recursive_names: nothing else can run away), every `fire`
  of such a window, every pass of a `repeat while`, and every item a `for`, aggregate or list comprehension
  walks costs one unit; a flat loop (nothing nested) of at most 64 items is not counted. Compiled code adds
  a loop's items once when it starts and a `repeat while`'s passes once when it stops (its own bound of
  100,000 passes holds in between), so the count costs an addition per loop or call, not per statement. A
  `fn` that can call itself is never inlined, so each of its calls is counted.
- ``size_limit`` (default 100,000 items): a list made by `+` or `range`.
- ``text_limit`` (default 100,000 characters): a text made by `+`, `join` or `text(…)`.
- integers are 64-bit: an int `+`, `-`, `*`, `abs` or unary minus whose result is outside
  -2^63 .. 2^63-1 stops the game (``integer overflow``); nothing wraps around silently.

The counter lives in the state (``GameState.work``), is copied by ``clone`` and is rebuilt by replay when a
save is loaded, so a game stops at the same point in every run: budgets keep determinism.
"""

from __future__ import annotations

from typing import Any, NoReturn

from liturgy.dsl.checker.checker import BUDGET_DEFAULTS
from liturgy.interpreter.runtime.errors import RuleError

INT_MIN = -(1 << 63)
INT_MAX = (1 << 63) - 1
DEFAULT_WORK = BUDGET_DEFAULTS["work_limit"]
DEFAULT_SIZE = BUDGET_DEFAULTS["size_limit"]
DEFAULT_TEXT = BUDGET_DEFAULTS["text_limit"]


class BudgetExceeded(RuleError):
    """The game used up one of its budgets; the message names it and how to raise it."""


def limits(budgets: dict[str, tuple[int, Any]]) -> tuple[int, int, int]:
    """The (work, size, text) limits a `game` block sets, defaults elsewhere."""
    def get(name: str, default: int) -> int:
        got = budgets.get(name)
        return got[0] if got is not None else default
    return get("work_limit", DEFAULT_WORK), get("size_limit", DEFAULT_SIZE), get("text_limit", DEFAULT_TEXT)


def over_work(s: Any, limit: int, where: str) -> NoReturn:
    """Stop the game: it has done more than ``limit`` units of work."""
    raise BudgetExceeded(f"the game used up its work budget of {limit} units (game work_limit) {where}: a "
                         "runaway recursion or loop? raise it with `work_limit N` in the `game` block")


def overflow(value: int, where: str) -> NoReturn:
    """Stop the game: an integer left the 64-bit range."""
    sign = "-" if value < 0 else ""
    raise BudgetExceeded(f"integer overflow {where}: a result of about {sign}2^{abs(value).bit_length() - 1} is "
                         "outside the 64-bit range -2^63..2^63-1 (integers do not grow without bound)")


def too_big(what: str, size: int, limit: int, where: str, at_least: bool = False) -> NoReturn:
    """Stop the game: a list or text grew past its budget (``at_least``: it was stopped while being built, at
    ``size``; the whole would have been longer)."""
    name, unit = ("size_limit", "items") if what == "list" else ("text_limit", "characters")
    of = "at least " if at_least else ""
    raise BudgetExceeded(f"a {what} of {of}{size} {unit} {where} passes the game's {name} of {limit}: raise it "
                         f"with `{name} N` in the `game` block")


def int_checked(value: int, where: str) -> int:
    """``value`` when it is a 64-bit integer; else the game stops."""
    if INT_MIN <= value <= INT_MAX:
        return value
    overflow(value, where)


def sized(value: Any, size_limit: int, text_limit: int, where: str) -> Any:
    """A list or text ``value`` within its budget (an int: within 64 bits); else the game stops."""
    if isinstance(value, str):
        if len(value) > text_limit:
            too_big("text", len(value), text_limit, where)
    elif isinstance(value, tuple | list):
        if len(value) > size_limit:
            too_big("list", len(value), size_limit, where)
    elif isinstance(value, int) and not INT_MIN <= value <= INT_MAX:
        overflow(value, where)
    return value


def join_checked(items: Any, sep: str, text_limit: int, where: str) -> str:
    """``sep.join(items)``, its length counted first: a list of long texts must not be joined to see."""
    total = len(sep) * max(0, len(items) - 1) + sum(len(x) for x in items)
    if total > text_limit:
        too_big("text", total, text_limit, where)
    return sep.join(items)


def concat_checked(left: Any, right: Any, size_limit: int, text_limit: int, where: str) -> Any:
    """``left + right`` for two lists or two texts, the sizes compared before the copy is made."""
    total = len(left) + len(right)
    if isinstance(left, str):
        if total > text_limit:
            too_big("text", total, text_limit, where)
        return left + right
    if total > size_limit:
        too_big("list", total, size_limit, where)
    return tuple(left) + tuple(right)
