"""Explicit chance: every random draw of a game becomes a visible chance node.

Normal play draws from the SplitMix64 integer inside the state, so a game is a
function of its seed and decisions.  Search algorithms and game-theory tools
(OpenSpiel's chance nodes, MCTS that samples outcomes itself) instead need the
*draws* as choices: "the game now needs a number in range(n)".

The engine is a step machine whose compiled steps cannot pause halfway, so this
mode re-runs instead of pausing.  Before a decision is applied, the settled game
is kept (games held here are never mutated: every change happens on a clone).
The step then runs on a clone with a :class:`Script` RNG that replays the
outcomes chosen so far and raises :class:`NeedChance` at the first draw it has
no outcome for.  That is a chance node with ``n`` uniform outcomes; once an
outcome is picked the step re-runs from the kept game with one more outcome.
A step with k draws costs k + 1 runs of that step; clones are cheap.

The mode is opt-in: ``rng.below`` only consults a script when the state's RNG
is one, so normal play and its digests are untouched.  The same decisions and
outcomes always give the same game (see tests/test_chance.py).
"""

from __future__ import annotations

from typing import Any

from liturgy.interpreter.engine.game import Game
from liturgy.interpreter.engine.ruleset import Ruleset
from liturgy.interpreter.runtime.errors import IllegalChoice

CHANCE = -1  # the "player" of a chance outcome in a history


class NeedChance(BaseException):
    """Raised at a draw the script has no outcome for.

    A ``BaseException`` so that no ``except RuleError``/``except ValueError`` of
    the engine can swallow it: it must unwind the whole step.
    """

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.n = n


class Script(int):
    """An RNG state that replays chosen outcomes (an ``int`` so typed code keeps working)."""

    outcomes: list[int]
    pos: int

    def __new__(cls, outcomes: list[int]) -> Script:
        self = super().__new__(cls, 0)
        self.outcomes = outcomes
        self.pos = 0
        return self

    def draw(self, n: int) -> int:
        """The next outcome in ``range(n)``; a draw among one item needs no chance node."""
        if n <= 1:
            return 0
        pos = self.pos
        if pos < len(self.outcomes):
            k = self.outcomes[pos]
            if not 0 <= k < n:
                raise IllegalChoice(f"chance outcome {k} is not in range({n})")
            self.pos = pos + 1
            return k
        raise NeedChance(n)


class ChanceGame:
    """A game whose random draws are explicit chance nodes.

    ``need`` > 0 means the game waits for a chance outcome in ``range(need)``
    (:meth:`apply_chance`); otherwise :attr:`game` is the settled engine game,
    waiting for a player's decision (:meth:`apply`) or finished.  At a chance
    node :attr:`game` is the game as it was before the decision that is being
    resolved (``None`` while setup itself is drawing).  Treat :attr:`game` as
    read-only: it may be shared with clones.
    """

    __slots__ = ("ruleset", "players", "check", "options", "history", "game", "need", "_base", "_pending",
                 "_outcomes")

    def __init__(self, ruleset: Ruleset, players: int, check_invariants: bool = False,
                 options: dict[str, str] | None = None) -> None:
        self.ruleset = ruleset
        self.players = players
        self.check = check_invariants
        self.options = ruleset.resolve_options(options)  # the ruleset's declared `option`s
        self.history: list[tuple[int, int]] = []  # (player or CHANCE, option or outcome)
        self.game: Game | None = None
        self.need = 0
        self._base: Game | None = None
        self._pending: tuple[int, int] | None = None  # (choice, player) being resolved; None: setup
        self._outcomes: list[int] = []
        self._run()

    # ------------------------------------------------------------ running
    def _run(self) -> None:
        script = Script(self._outcomes)
        try:
            if self._pending is None:
                g = self.ruleset.new_game(self.players, check_invariants=self.check, options=self.options,
                                          rng_state=script)
            else:
                assert self._base is not None
                g = self._base.clone()
                g.state.rng = script
                g.apply(*self._pending)
        except NeedChance as need:
            self.need = need.n
            return
        g.state.rng = 0  # plain data again between steps
        self.game = g
        self.need = 0
        self._base = None
        self._pending = None
        self._outcomes = []

    @property
    def at_chance(self) -> bool:
        return self.need > 0

    @property
    def finished(self) -> bool:
        return self.need == 0 and self.game is not None and self.game.finished

    def apply(self, choice: int, player: int) -> None:
        """Apply a player's option index; illegal choices raise and change nothing."""
        g = self.game
        if self.need or g is None:
            raise IllegalChoice("the game is waiting for a chance outcome, not a decision")
        if g.finished or player not in g.waiting_for():
            raise IllegalChoice(f"P{player + 1} has no decision to make now")
        if not isinstance(choice, int) or isinstance(choice, bool) or not 0 <= choice < g.option_count(player):
            raise IllegalChoice(f"option {choice!r} is not legal (0..{g.option_count(player) - 1})")
        self._base = g
        self._pending = (choice, player)
        self._outcomes = []
        self.history.append((player, choice))
        self._run()

    def apply_chance(self, outcome: int) -> None:
        """Pick the outcome of the pending draw, in ``range(need)``."""
        if not self.need:
            raise IllegalChoice("the game is not waiting for a chance outcome")
        if not isinstance(outcome, int) or isinstance(outcome, bool) or not 0 <= outcome < self.need:
            raise IllegalChoice(f"chance outcome {outcome!r} is not in range({self.need})")
        self._outcomes = [*self._outcomes, outcome]
        self.history.append((CHANCE, outcome))
        self._run()

    # ------------------------------------------------------------ copies
    def clone(self) -> ChanceGame:
        """A cheap copy: the settled games are shared, because nothing here mutates them."""
        c = ChanceGame.__new__(ChanceGame)
        c.ruleset, c.players, c.check, c.options = self.ruleset, self.players, self.check, self.options
        c.history = self.history[:]
        c.game, c.need, c._base, c._pending = self.game, self.need, self._base, self._pending
        c._outcomes = self._outcomes[:]
        return c

    def __deepcopy__(self, memo: dict[int, Any]) -> ChanceGame:
        return self.clone()

    @classmethod
    def replay(cls, ruleset: Ruleset, players: int, history: list[tuple[int, int]],
               check_invariants: bool = False, options: dict[str, str] | None = None) -> ChanceGame:
        """Rebuild a game from its history of decisions and chance outcomes."""
        cg = cls(ruleset, players, check_invariants, options)
        for who, value in history:
            if who == CHANCE:
                cg.apply_chance(int(value))
            else:
                cg.apply(int(value), int(who))
        return cg
