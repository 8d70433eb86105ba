"""Liturgy: a rules-as-data engine for tabletop card and board games.

The language lives in :mod:`liturgy.dsl`, the engine in :mod:`liturgy.interpreter`.
"""

__version__ = "0.1.0"
