"""The generic interpreter: game state, engine, agents and the command line."""
