"""The `display` panel's memo: a panel is rendered again only when something it can read has changed.

Why: a panel is a pure function of what its expressions read, who views it and which cards that viewer sees,
and it is asked for far more often than any of those change. The noninterference probe (tools/noninterference.py)
renders the panel of both worlds at every compared decision; the second world differs from the first in two
hidden cards the panel rarely reads, and Betrayal's panel (the house drawn floor by floor) cost 4 ms a render,
most of that probe's time. `liturgy serve` renders each seat's panel after every decision at its table.

What a panel reads is worked out the strict way invariants' read sets are (compiler/readsets.py): every
expression of the `display` (its `show` values, `for` sources and filters, `if` conditions) and every `fn`
they call, with the graph walks known too (their arguments and the graph's overlay slot). A display that reads
anything the read set cannot list (`random`, `active`, a card's effect…) is never memoised. A panel is then
kept under a key of exactly what it is a function of:

- the viewer;
- the game's tables (the ruleset's fixed data for this player and card count), by identity;
- the values of every counter slot the read set lists, and the lists of every zone it lists;
- which cards the viewer sees now (``visible_cards``): a card in a shown value reads as its name only to a viewer
  who sees it, else as `a hidden card`.

The one thing a panel depends on besides those is the game's work budget (a `for` in an expression costs work,
and the budget is the whole game's): a kept panel notes the work its rendering used, and is reused only when the
state's work plus that stays within the limit (the rendering then could not have stopped on the budget, and
ran exactly as before). A panel whose rendering failed (an error line) is never kept.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any

from liturgy.dsl.checker.program import Program
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.code import Layout
from liturgy.interpreter.compiler.readsets import ReadSet, read_set
from liturgy.interpreter.runtime.moves import visible_cards
from liturgy.interpreter.runtime.state import GameState, Tables

# kept panels per ruleset: past this many the memo starts again (memory stays bounded over any number of games)
MAX_PANELS = 512

Getter = Callable[[list[Any]], tuple[Any, ...]]


def _exprs(items: list[A.ShowItem]) -> list[A.Expr]:
    """Every expression of a `display` body: `show` values, `for` sources and filters, `if` conditions."""
    out: list[A.Expr] = []
    for it in items:
        if isinstance(it, A.ShowLine):
            out.extend(it.args)
        elif isinstance(it, A.ShowFor):
            out.append(it.source)
            if it.where is not None:
                out.append(it.where)
            out.extend(_exprs(it.body))
        else:
            out.append(it.cond)
            out.extend(_exprs(it.body))
            out.extend(_exprs(it.orelse))
    return out


def _getter(indices: frozenset[int]) -> Getter:
    """The values at ``indices`` of a list, as one tuple (itemgetter's, which returns a lone item bare)."""
    order = sorted(indices)
    if not order:
        return lambda values: ()
    if len(order) == 1:
        i = order[0]
        return lambda values: (values[i],)
    return itemgetter(*order)


class PanelMemo:
    """Rendered panels of one ruleset's `display`, keyed by what they read (see the module's docstring)."""

    def __init__(self, prog: Program, lay: Layout, widths: dict[str, int], work_limit: int) -> None:
        body = prog.display.body if prog.display is not None else []
        self.reads: ReadSet | None = read_set(_exprs(body), lay, widths, graphs=True)
        self.layout = lay
        self.work_limit = work_limit
        # per tables (by id; the tables kept alive here, so an id is never reused while its panels are kept):
        # the getters of the slots and zones read in a game of that player and card count
        self._getters: dict[int, tuple[Tables, Getter, Getter]] = {}
        self._panels: dict[tuple[Any, ...], tuple[list[str], int]] = {}

    def key(self, state: GameState, player: int) -> tuple[Any, ...] | None:
        """What ``player``'s panel of ``state`` is a function of, or None when the panel is never memoised."""
        reads = self.reads
        if reads is None:
            return None
        t = state.tables
        got = self._getters.get(id(t))
        if got is None or got[0] is not t:
            if len(self._getters) >= 64:
                self._getters.clear()
                self._panels.clear()
            slots, zones = reads.resolve(self.layout, t.n, len(state.card_zone))
            got = self._getters[id(t)] = (t, _getter(slots), _getter(zones))
        _, slot_values, zone_lists = got
        return (player, id(t), slot_values(state.counters), tuple(map(tuple, zone_lists(state.zones))),
                bytes(visible_cards(state, player)))

    def get(self, key: tuple[Any, ...], state: GameState) -> list[str] | None:
        """The panel kept under ``key``, if its rendering's work fits in what is left of ``state``'s budget."""
        kept = self._panels.get(key)
        if kept is None or state.work + kept[1] > self.work_limit:
            return None
        return list(kept[0])

    def put(self, key: tuple[Any, ...], lines: list[str], work: int) -> None:
        """Keep a panel that rendered without an error, with the work its rendering used."""
        if len(self._panels) >= MAX_PANELS:
            self._panels.clear()
        self._panels[key] = (list(lines), work)
