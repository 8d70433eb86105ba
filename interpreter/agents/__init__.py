"""Agents that take decisions: random bots and the human at a terminal."""
