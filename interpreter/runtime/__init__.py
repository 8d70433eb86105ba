"""Runtime primitives: game state, card moves, RNG, errors, digests, invariants."""
