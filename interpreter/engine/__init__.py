"""The engine: rulesets, games, decisions, views and saves.

``load_ruleset`` parses, checks and compiles a ruleset once (:mod:`.ruleset`); ``Ruleset.new_game`` starts a
:class:`Game` (:mod:`.game`), a step function that stops at each :class:`Decision` (:mod:`.decision`); what
each player may see is derived in :mod:`.views`; outcomes read as text in :mod:`.outcome`.
"""

from liturgy.interpreter.engine.decision import Decision
from liturgy.interpreter.engine.game import Game, replay_decisions
from liturgy.interpreter.engine.ruleset import Ruleset, load_ruleset

__all__ = ["Decision", "Game", "Ruleset", "load_ruleset", "replay_decisions"]
