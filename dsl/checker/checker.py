"""The checker: resolves every name and type before anything runs.

It walks the AST once, annotating each expression with its type (``ty``) and
what its name refers to (``ref``), so the compiler can emit closures without
looking anything up again.  Problems become diagnostics with stable codes
(see ``docs/errors.md``); a ruleset with any error never reaches the engine.
"""

from __future__ import annotations

from liturgy.dsl.checker.analysis import AnalysisChecker
from liturgy.dsl.checker.program import Program
from liturgy.dsl.diagnostics import NOWHERE, Diagnostic, Span
from liturgy.dsl.frontend import ast as A

# The per-game budgets a `game` block may set (interpreter/runtime/budget.py enforces them): the default and
# the range allowed; the top of each range keeps one game within a few seconds and a few hundred megabytes.
BUDGET_DEFAULTS = {"work_limit": 1_000_000, "size_limit": 100_000, "text_limit": 100_000}
BUDGET_RANGES = {"work_limit": (1, 1_000_000_000), "size_limit": (1, 10_000_000), "text_limit": (1, 100_000_000)}


class Checker(AnalysisChecker):
    """The driver: checks a parsed ruleset, layer by layer, into a :class:`Program`."""

    def run(self) -> Program | None:
        games = [d for d in self.rs.decls if isinstance(d, A.GameDecl)]
        if not games:
            self.err("E100", "the ruleset has no `game` declaration", Span.point(self.rs.path, 1, 1),
                     hint='start with: game "Name" { players 2..4 }')
            game = A.GameDecl(NOWHERE, "?", 1, 1)
        else:
            game = games[0]
            for extra in games[1:]:
                self.err("E103", "a second `game` declaration", extra.span,
                         hint=f"a ruleset declares one game; the first is at {game.span.file}:{game.span.line}")
            if game.min_players < 1 or game.max_players < game.min_players:
                self.err("E110", f"player range {game.min_players}..{game.max_players} is empty", game.span)
            if game.max_players > 64:
                self.err("E110", "at most 64 players are supported", game.span)
            for name, (value, span) in game.budgets.items():
                low, high = BUDGET_RANGES[name]
                if not low <= value <= high:
                    self.err("E400", f"`{name} {value if value < 10 ** 30 else '…'}` is outside {low}..{high}",
                             span, hint=f"a game's {name} is a whole number from {low} to {high}; leave it out for "
                             f"the default, {BUDGET_DEFAULTS[name]}")
        prog = Program(self.rs.path, game)
        self.prog = prog
        self._collect(prog)
        self._load_cards(prog)
        self._check_bodies(prog)
        self._analyse(prog)
        return prog


def check_ruleset(ruleset: A.Ruleset) -> tuple[Program | None, list[Diagnostic]]:
    checker = Checker(ruleset)
    prog = checker.run()
    return prog, checker.diags
