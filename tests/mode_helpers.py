"""The compile modes a generated-code test compares, and one seeded game played in each of them.

Shared by the tests of code-generation forms (tests/test_cardtab.py, test_scans.py, test_codegen_facts.py): a form
is right when every mode gives the same digest, error, logs for every viewer and result.
"""
from __future__ import annotations

import random
from collections.abc import Callable

from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset

MODES: list[dict[str, bool]] = [
    {}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]


def compiled(path: str, mode: dict[str, bool]) -> Ruleset:
    """The ruleset at ``path``, checked (failing the test with the diagnostics) and compiled in ``mode``."""
    program, diags = check_file(path)
    assert program is not None, "\n".join(map(str, diags))
    return Ruleset(program, **mode)


def compiled_once(path: str) -> Callable[[dict[str, bool]], Ruleset]:
    """:func:`compiled` for ``path``, each mode compiled once: a test reads one mode's generated text, then plays
    the same game in every mode (:func:`played_in_every_mode`)."""
    built: dict[str, Ruleset] = {}

    def rules(mode: dict[str, bool]) -> Ruleset:
        key = repr(mode)
        if key not in built:
            built[key] = compiled(path, mode)
        return built[key]
    return rules


def played_in_every_mode(make: Callable[[dict[str, bool]], Ruleset], seed: int) -> list[object]:
    """One random 2-player game per mode: (digest, error, logs of everyone, P1 and P2, result)."""
    seen: list[object] = []
    for mode in MODES:
        game = make(mode).new_game(2, seed)
        game.random_playout(random.Random(seed))
        seen.append((game.digest(), game.error, [game.log_lines(v) for v in (None, 0, 1)], game.result))
    return seen


def errors_in_every_mode(make: Callable[[dict[str, bool]], Ruleset], seeds: int) -> set[str | None]:
    """The errors the games of seeds 0..``seeds``-1 end with (None: no error), after checking that every mode
    plays each of them alike (:func:`played_in_every_mode`): the tests that want both an error-free game and a
    stopped one among their seeds assert on the set."""
    errors: set[str | None] = set()
    for seed in range(seeds):
        seen = played_in_every_mode(make, seed)
        assert all(x == seen[0] for x in seen), seed
        errors.add(seen[0][1])  # type: ignore[index]
    return errors
