"""Adapters that expose any Liturgy ruleset to other frameworks: OpenSpiel (``pyspiel``) and PettingZoo."""
