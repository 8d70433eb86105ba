"""The counters reset at the start of every round are written as slices (``Tables.reset_runs``): the same writes as
the slot-by-slot loop they replace, whatever the slots, values and order."""
from __future__ import annotations

import random
from typing import Any

from conftest import ROOT, load_ruleset
from liturgy.interpreter.runtime.state import reset_runs


def _by_slot(slots: tuple[tuple[int, Any], ...], size: int) -> list[Any]:
    out: list[Any] = ["untouched"] * size
    for slot, initial in slots:
        out[slot] = initial
    return out


def _by_runs(slots: tuple[tuple[int, Any], ...], size: int) -> list[Any]:
    out: list[Any] = ["untouched"] * size
    for run, values in reset_runs(slots):
        out[run] = values
    return out


def test_runs_write_what_the_slots_wrote() -> None:
    rng = random.Random(7)
    values: list[Any] = [0, 1, True, False, None, 3]
    for _ in range(500):
        size = rng.randrange(1, 80)
        order = rng.sample(range(size), rng.randrange(0, size + 1))
        if rng.random() < 0.5:  # laid out as declarations are: a field's slots at one stride, one value
            order = []
            for base in rng.sample(range(12), rng.randrange(0, 6)):
                order += [base + p * 12 for p in range(rng.randrange(1, 5)) if base + p * 12 < size]
            order = list(dict.fromkeys(order))
        slots = tuple((slot, rng.choice(values)) for slot in order)
        got, want = _by_runs(slots, size), _by_slot(slots, size)
        assert got == want and [type(v) for v in got] == [type(v) for v in want], slots


def test_a_field_per_player_is_one_slice() -> None:
    """Bloodborne resets three per-player fields and one global counter each round: four writes, not 13."""
    game = load_ruleset(str(ROOT / "rulesets" / "bloodborne.rules")).new_game(4, 0)
    tables = game.state.tables
    assert len(tables.reset_slots) == 13
    assert [len(values) for _, values in tables.reset_runs] == [4, 4, 4, 1]
    assert _by_runs(tables.reset_slots, len(game.state.counters)) == _by_slot(tables.reset_slots,
                                                                                len(game.state.counters))
