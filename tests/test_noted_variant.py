"""Checked games run code that notes its writes; unchecked games run code with no note at all (engine/ruleset.py).

Session 16's notes (``if (_wr := s.wrote) is not None: …`` after every write) were in the one generated code both
kinds of game ran, and cost unchecked play 2 %. Now a ruleset compiles the noted variant once, for its first
checked game (``Ruleset.noted``), and hands every checked game to it; the unchecked code is what it was before the
record existed. These tests pin that split: no note in the unchecked code, notes in the checked code, the same
games either way, and a game that starts checking later (its code has no notes) never trusts a certificate.
"""

from __future__ import annotations

import random

import pytest
from conftest import ROOT, played_plain_and_checked
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.runtime import invariants
from liturgy.interpreter.runtime.state import noted_source

RULESETS = [("bloodborne.rules", 4), ("classic/goofspiel.rules", 2), ("classic/hex.rules", 2),
            ("classic/crazy_eights.rules", 3)]
NOTE = noted_source(("0",)).split(":")[0]  # the test every generated note starts with


def _dump(rules: object) -> str:
    gen = rules.compiled.gen  # type: ignore[attr-defined]
    assert gen is not None
    return str(gen.sources.dump())  # every fused function compiled too


@pytest.mark.parametrize(("name", "players"), RULESETS, ids=[n for n, _ in RULESETS])
def test_unchecked_code_has_no_note_and_checked_code_has_them(name: str, players: int) -> None:
    rules = load_ruleset(str(ROOT / "rulesets" / name))
    assert not rules.notes and "s.wrote" not in _dump(rules)
    noted = rules.noted()
    assert noted.notes and noted is rules.noted() and noted.noted() is noted  # compiled once
    assert NOTE in _dump(noted)
    game = rules.new_game(players, 1, check_invariants=True)
    assert game.ruleset is noted
    assert rules.new_game(players, 1).ruleset is rules


@pytest.mark.parametrize(("name", "players"), RULESETS, ids=[n for n, _ in RULESETS])
def test_checked_and_unchecked_games_are_the_same_games(name: str, players: int) -> None:
    rules = load_ruleset(str(ROOT / "rulesets" / name))
    for seed in range(3):
        plain, checked = played_plain_and_checked(rules, players, seed)
        assert checked.digest() == plain.digest()
        assert checked.log_lines(None) == plain.log_lines(None)


def test_the_variants_share_the_tables_of_each_player_count() -> None:
    """Both compile one program the same way: a test (or tool) that sets a table's flag on the ruleset it holds sets
    it for the checked games too."""
    rules = load_ruleset(str(ROOT / "rulesets" / "classic" / "goofspiel.rules"))
    tables = rules._build(2)[0]
    assert rules.noted()._build(2)[0] is tables
    assert rules.noted()._templates is rules._templates
    assert rules.noted().compiled.invariants is rules.compiled.invariants  # wrapped in place by the rule profiler


def test_a_game_that_starts_checking_later_is_checked_in_full(monkeypatch: pytest.MonkeyPatch) -> None:
    """An unchecked game's code notes nothing, so a certificate taken for it could miss a change: when such a game is
    switched to checking, every check is a full one (and finds what a checked game finds)."""
    rules = load_ruleset(str(ROOT / "rulesets" / "bloodborne.rules"))
    rules._build(4)[0].incremental_checks = True
    game = rules.new_game(4, 2)
    game.check = True
    fulls = [0]
    full = invariants.full

    def counting(s: object) -> object:
        fulls[0] += 1
        return full(s)  # type: ignore[arg-type]

    monkeypatch.setattr(invariants, "full", counting)
    rng = random.Random(2)
    for _ in range(5):
        p = game.waiting_for()[0]
        game.apply(rng.randrange(game.option_count(p)), p)
    assert game._certified is None and game.state.wrote is None
    assert fulls[0] > 0
    before = fulls[0]
    assert game.violations() == []
    assert fulls[0] == before + 1 and game._certified is None  # every check, this one too, in full


def test_a_checked_game_names_the_ruleset_it_was_loaded_as(monkeypatch: pytest.MonkeyPatch) -> None:
    """What is known of a ruleset from outside is keyed by the ruleset loaded (the web's search bots find its file
    by it), while a checked game's ``ruleset`` is the noted variant: ``plain()`` leads back. Before it, a web table
    of search bots with invariant checks refused every bot decision ("was not loaded from a file")."""
    from liturgy.interpreter.web.tables import SOURCES

    rules = load_ruleset(str(ROOT / "rulesets" / "classic" / "kuhn_poker.rules"))
    game = rules.new_game(2, 1, check_invariants=True)
    assert game.ruleset is rules.noted() and game.ruleset is not rules
    assert game.ruleset.plain() is rules and rules.plain() is rules
    # the shared compile (tests/conftest.py) may be a web test's served ruleset: its entry is put back as it was,
    # not deleted (deleting it once left a later web test's search bots "not loaded from a file")
    monkeypatch.setitem(SOURCES, rules, "kuhn_poker.rules")
    assert SOURCES.get(game.ruleset.plain()) == "kuhn_poker.rules"


def test_both_compiles_read_one_copy_of_the_card_data() -> None:
    """The noted variant reads the printed card data lists of the ruleset it was compiled for, not a copy of them: one
    list per field for both compiles (before, a change to a field, as a scenario test makes, reached one of them)."""
    rules = load_ruleset(str(ROOT / "rulesets" / "bloodborne.rules"))
    plain, noted = rules.compiled.field_lists, rules.noted().compiled.field_lists
    assert plain and noted is plain
    checked, unchecked = rules.new_game(4, 1, check_invariants=True), rules.new_game(4, 1)
    assert checked.state.tables.fields is unchecked.state.tables.fields is plain
