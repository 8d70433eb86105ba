"""The engine: rulesets, games, decisions, views and saves.

``load_ruleset`` parses, checks and compiles a ruleset once; ``Ruleset.new_game``
starts a :class:`Game`, a step function that stops at each :class:`Decision`.
"""

from liturgy.interpreter.engine.game import Decision, Game, Ruleset, load_ruleset, replay_decisions

__all__ = ["Decision", "Game", "Ruleset", "load_ruleset", "replay_decisions"]
