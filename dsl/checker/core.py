"""The checker's shared state and reporting; the base of its layers.

The checker is a stack of layers, each a class built on the one below: core -> declarations ->
expressions -> statements -> analysis -> :class:`~.checker.Checker` (the driver)."""

from __future__ import annotations

from liturgy.dsl.checker.program import Program
from liturgy.dsl.checker.wording import shown_enum
from liturgy.dsl.diagnostics import Diagnostic, Span
from liturgy.dsl.frontend import ast as A


class CheckerCore:
    """Diagnostics, the program being built and the state every layer reads."""

    def __init__(self, ruleset: A.Ruleset) -> None:
        self.rs = ruleset
        self.diags: list[Diagnostic] = []
        self.prog: Program | None = None
        self.enum_of_value: dict[str, str] = {}
        self.enum_value_spans: dict[str, Span] = {}  # where each enum value is first declared
        self.unknown_types: set[Span] = set()  # where an unknown type was reported (E101 once per place)
        self.used: set[str] = set()
        self.calls: dict[str, set[str]] = {}  # owner -> callees ("proc:x", "window:x", "field:K.f")
        self.suspends_directly: set[str] = set()
        self.ends: set[str] = set()  # owners that contain `end game` directly
        self.reachable_steps: set[str] = set()
        self.owner = ""
        self.reading = False  # checking a `display` or `describe`: random numbers are refused (E171)
        self.depth = 0  # nesting of the expression being checked (MAX_EXPR_DEPTH)
        self.too_deep = False  # the current top-level expression was already reported too deep
        self.shown: dict[str, Span] = {}  # enums whose values players see (text, options): where first (W090)

    def shows(self, ty: object, span: Span) -> None:
        """Values of type ``ty`` are shown to players at ``span`` (a log line, a text, a choice's options)."""
        enum = shown_enum(ty)
        if enum is not None:
            self.shown.setdefault(enum, span)

    # ------------------------------------------------------------ reporting
    def err(self, code: str, msg: str, span: Span, hint: str = "") -> None:
        self.diags.append(Diagnostic(code, "error", msg, span, hint))

    def warn(self, code: str, msg: str, span: Span, hint: str = "") -> None:
        self.diags.append(Diagnostic(code, "warning", msg, span, hint))

    # ------------------------------------------------------------ entry
