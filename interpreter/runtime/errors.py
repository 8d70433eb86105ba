"""Runtime errors and the control-flow signals used inside compiled code."""

from __future__ import annotations


class RuleError(Exception):
    """A ruleset did something impossible at run time (the message says where)."""


class StepLimitError(RuleError):
    """The game ran past its declared step limit."""


class IllegalChoice(ValueError):
    """A choice that is not among the legal options; the state is unchanged."""


class GameOver(Exception):
    """Raised by `end game`; unwinds to the engine, which runs `finish`."""


class _Ended:
    """The type of :data:`GAME_ENDED` (one instance): truthy, and never equal to an ``int`` or ``True``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "GAME_ENDED"


# What a fused function (interpreter/codegen/fuse.py) returns where an `end game` written into its own body
# runs, instead of raising GameOver: the engine scores the game as if it had caught GameOver there, without
# the exception, its traceback entries and two handlers' matching, which every finished game paid. The
# instructions completed before it are already in ``s.steps``, as the raise path adds them.
GAME_ENDED = _Ended()


class SkipTo(Exception):
    """Raised by `skip to STEP`; the engine moves the round to that step."""

    def __init__(self, pc: int) -> None:
        super().__init__(pc)
        self.pc = pc


class BreakLoop(Exception):
    """Raised by `break`; caught by the innermost loop."""


class InvariantViolation(RuleError):
    """A declared or built-in invariant failed after a step."""

    def __init__(self, name: str, detail: str) -> None:
        super().__init__(f"invariant violated: {name}" + (f" ({detail})" if detail else ""))
        self.name = name
