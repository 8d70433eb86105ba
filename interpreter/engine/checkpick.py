"""A checked random playout's choices picked in place by the fused code, its invariants checked there first.

An unchecked playout's fused functions pick a choice where they reach it (interpreter/codegen/fusepick.py: they
read the picker from ``state.pick``). A checked game used to suspend at every choice instead: the pending tuple
built, ``s.steps`` settled, ``return True``, then the engine's step loop checked the invariants, unpacked the
tuple, picked, bound the value and called the body (about 7 k bytecodes a Bloodborne game more than the
unchecked game's picks, docs/performance.md, Session 24). The code a checked game runs is the ruleset's noted
variant (``Ruleset.noted``); its fused text asks ``state.pick`` for a *ready* callable instead of a picker::

    _Fpk = s.pick
    if _Fpk is None or (_Fpk := _Fpk()) is None:
        s.pending = (...)                   # suspend exactly as before
        s.steps += k
        return True
    ... the pick in place, as in unchecked play ...

``ready()`` (here :meth:`CheckedPicks.ready`) runs the engine's check (``Game.violations``) on the state the
suspension would leave, and returns the picker when every invariant holds. That state differs from the engine's
only in what no check reads: ``s.steps`` lags by the call's ``k`` (nothing a check evaluates reads it), and the
pending decision is not written yet. Of the checks, only two built-in invariants read it: a decision has a
legal option, which the text has proven (codegen/fusepick.py: it tests its options before it gets here), and no
absent seat is asked, which reads who decides: with `absent_while`, and for a choice whose options the text
does not test, the noted code writes the decision before its ``ready()`` (and clears it after a pick). When the
check fails (a violation, or any exception it raises), ``ready`` keeps its outcome and returns None: the text
then suspends exactly as it always did, and the engine, at that suspension, takes the kept outcome as its
check's (raising the same violation or the same exception) instead of checking again. So a violation stops the
game with the same message, step count, frames and log as before, and the check runs once per choice, with the
same evaluations, as before. No exception passes through the fused function's handler from here (it settles the
steps and the frame's locals its own way).

``ready`` without a check (``repeat(pick).__next__``, a C call) serves an unchecked game of the noted variant (a
sampled world of a checked game, engine/infosets.py, has ``check`` off); code without notes keeps the plain
picker, and a checked game of it (a game switched to checking later) suspends at each choice as before.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from liturgy.interpreter.engine.game import Game


class CheckedPicks:
    """The fused code's ``ready`` of one checked playout (``state.pick`` is its bound :meth:`ready`: a method, which
    Python 3.11 calls through its specialized call), and the outcome of a check that failed there."""

    __slots__ = ("game", "pick", "failed")

    def __init__(self, game: Game, pick: Callable[[int], int]) -> None:
        self.game = game
        self.pick = pick
        # a failed check's outcome (the violations, or the exception the check raised), until the engine takes it
        # at the suspension the fused text makes next (:meth:`outcome`)
        self.failed: list[tuple[str, str]] | BaseException | None = None

    def ready(self) -> Callable[[int], int] | None:
        """The engine's check at the fused code's choice, before its pick: the picker when every invariant holds,
        else None (the outcome kept for the engine, which the text's suspension reaches with nothing between)."""
        try:
            game = self.game
            cert = game._certified
            if cert is not None and (fast := cert.fast) is not None:  # Game.violations' first lines, without its frame
                bad = fast(game, cert, game.state)  # (the check written for the ruleset: runtime/checkgen.py)
                if bad is False:  # not proven: checked in full, as Game.violations does
                    game._certified = None
                    bad = game.violations()
            else:
                bad = game.violations()
        except BaseException as err:  # (the engine's own check would have raised it: it raises it at the suspension)
            self.failed = err
            return None
        if bad:
            self.failed = bad
            return None
        return self.pick

    def outcome(self) -> list[tuple[str, str]]:
        """The engine's check at the suspension the fused text made after its check failed: that check's outcome,
        taken once (its violations, or its exception raised again). The engine checks the suspensions its own
        instructions make (a choice at a path's head, a `simultaneously … by`, a choice near the step limit)
        itself, when ``failed`` is None."""
        failed = self.failed
        self.failed = None
        if isinstance(failed, BaseException):
            raise failed
        assert failed is not None  # (asked only when a check failed)
        return failed


def play(game: Game, pick: Callable[[int], int]) -> None:
    """Run ``game`` (its current choice already picked) to its end with ``pick``, as ``Game.random_playout`` and
    ``Ruleset.new_game(..., playout=)`` do, for a checked game or a game of the noted variant."""
    s = game.state
    if not game.ruleset.notes:  # code without notes: the fused text's picks read a picker, never given in checked play
        game._advance(pick)
        return
    picks = None
    if game.check:
        picks = CheckedPicks(game, pick)
        s.pick = picks.ready
    else:
        s.pick = repeat(pick).__next__
    try:
        game._advance(pick, picks)
    finally:
        s.pick = None
