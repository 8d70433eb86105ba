"""Declared invariants at a check: evaluated, skipped while nothing they read changed, or re-evaluated per player.

A checked game evaluates every declared `invariant` after every step that stops at a decision. Two things make
most of those evaluations unnecessary, and both are exact:

- An invariant that held in the last checked state, none of whose counter slots and zones (its read set,
  interpreter/compiler/readsets.py) changed since, still holds: skipped.
- An invariant ``all(TERM for p in players [where COND])`` whose terms read, besides what all of them read, only
  the places of their own player (``p.hand``, ``p.health``, a `fn` given ``p``) is kept per player
  (readsets.py ``Term``). When it held and only some players' own places changed, only those players' terms
  are evaluated, in player order: the others read what they read when they were true.

Why the per-player answer is the whole invariant's, budget included: the whole evaluation walks the players in
order, charges at most one work unit per player for the loop, and stops at the first term that is false or
raises. Each term is evaluated here on a budget counted from 0, and what it used is kept with the certificate;
an unchanged term would use exactly as much again. When the loop's units plus every term's work, up to where the
evaluation stopped, is within the game's ``work_limit``, the whole evaluation would not have run out either, so it
reaches the same term and gets the same value or error. Otherwise (or when a term runs out of budget itself,
whose error names the line where the whole evaluation might have run out elsewhere) the invariant's own compiled
function runs, as it would without terms: the rare case pays, the answer never changes.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from liturgy.interpreter.compiler.readsets import Term
from liturgy.interpreter.runtime.budget import BudgetExceeded
from liturgy.interpreter.runtime.errors import RuleError
from liturgy.interpreter.runtime.state import GameState

if TYPE_CHECKING:
    from liturgy.interpreter.compiler.core import CompilerCore

Violations = list[tuple[str, str]]
Works = list[int] | None  # per player: the work each term of a per-player invariant used (None: not known)


class Before:
    """What the last check found, for the certified state: which invariants held, the per-player terms' work,
    and the counter slots and zones that changed since."""

    __slots__ = ("held", "works", "slots", "zones")

    def __init__(self, held: list[bool], works: list[Works], slots: list[int], zones: list[int]) -> None:
        self.held = held
        self.works = works
        self.slots = slots
        self.zones = zones


def check(compiled: CompilerCore, s: GameState, step_name: Callable[[], str], before: Before | None,
          out: Violations) -> tuple[list[bool], list[Works]]:
    """Append every failing declared invariant to ``out``; return which held and the per-player terms' work.

    ``step_name`` is called (once) only for an invariant that is evaluated and names steps it does not hold in.
    """
    reads = compiled.invariant_reads
    terms = reads.terms
    n = s.tables.n
    whole: set[int] = set()  # invariants some of whose shared reads changed
    players: dict[int, set[int]] = {}  # per-player invariants: the players whose own places changed
    known: list[bool] = []
    if before is not None:
        plan = reads.plan(n, len(s.tables.card_def))
        known = plan.known
        for touched in (map(plan.touch_slot.get, before.slots), map(plan.touch_zone.get, before.zones)):
            for pairs in touched:
                if pairs:
                    for k, p in pairs:
                        if p < 0:
                            whole.add(k)
                        else:
                            players.setdefault(k, set()).add(p)
    passed: list[bool] = []
    works: list[Works] = []
    step: str | None = None
    limit = compiled.work_limit
    for k, (text, fn, outside) in enumerate(compiled.invariants):
        term = terms[k]
        todo: list[int] | None = None  # the players whose terms to evaluate (None: every one)
        recorded: Works = None
        if before is not None and before.held[k] and known[k] and k not in whole:
            changed = players.get(k)
            recorded = before.works[k]
            if changed is None:  # held, and nothing it reads changed: its value is the one it had
                passed.append(True)
                works.append(recorded)
                continue
            if recorded is not None:
                todo = sorted(changed)
        if outside:
            if step is None:
                step = step_name()
            if step in outside:
                passed.append(False)  # not evaluated here: not known to hold
                works.append(None)
                continue
        work = s.work
        try:
            if term is not None:
                got = _terms(s, term, n, todo, recorded if todo is not None else None, limit)
                if got is not None:
                    ok, error, used = got
                    passed.append(ok)
                    works.append(used)
                    if error is not None:
                        out.append((text, f"could not evaluate: {error}"))
                    elif not ok:
                        out.append((text, ""))
                    continue
            s.work = 0  # a budget of its own: its outcome depends on what it reads, not on when it runs
            try:
                ok = bool(fn(s, {}))
            except RuleError as err:
                out.append((text, f"could not evaluate: {err}"))
                passed.append(False)
                works.append(None)
                continue
        finally:
            s.work = work  # checking is not playing: a checked game's work stays the unchecked game's
        passed.append(ok)
        works.append(None)
        if not ok:
            out.append((text, ""))
    return passed, works


def _terms(s: GameState, term: Term, n: int, todo: list[int] | None, recorded: Works,
           limit: int) -> tuple[bool, str | None, Works] | None:
    """Evaluate the terms of the players ``todo`` (None: all, in order), the others taken as true with the work
    ``recorded``: (held, the error that stopped it or None, every term's work when it held). None: the answer is
    not proven the whole evaluation's (see the module's docstring); the caller evaluates the invariant whole."""
    works = list(recorded) if recorded is not None else [0] * n
    order = todo if todo is not None else range(n)
    where = term.where
    elem = term.elem
    var = term.var
    for p in order:
        env = {var: p}
        s.work = 0
        try:
            # as the aggregate: false only where the condition (if any) holds and the element does not
            ok = bool(elem(s, env)) if where is None else not where(s, env) or bool(elem(s, env))
        except BudgetExceeded:
            return None
        except RuleError as err:
            works[p] = s.work
            return (False, str(err), None) if n + sum(works) <= limit else None
        works[p] = s.work
        if not ok:
            return (False, None, None) if n + sum(works) <= limit else None
    # within the budget: the loop's units (at most one per player) and the terms' work up to where it stopped
    # (the terms after it, where known, are counted too: an upper bound is enough; unknown ones are still 0)
    if n + sum(works) > limit:
        return None
    return True, None, works
