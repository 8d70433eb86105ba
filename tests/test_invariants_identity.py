"""The incremental invariant certificate against mutations an identity-based cache could miss.

The certificate (interpreter/runtime/invariants.py) tells a counter slot unchanged when it holds the very
object it held when certified, and keeps its own copies of the zone lists and card places. These tests corrupt
a checked game's state in the ways such a cache could overlook (a list changed in place, a certificate sharing
a list with the state, a game restored from a save, a clone, a template's certificate shared by many games)
and check that the violation is reported at the first check after it happens: by the very decision that
follows, with the error a full check of the same state gives.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from conftest import ROOT
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.engine.ruleset import Ruleset
from liturgy.interpreter.runtime import invariants
from liturgy.interpreter.runtime.state import GameState

PATHS = [ROOT / "rulesets" / "bloodborne.rules", ROOT / "rulesets" / "slay_the_spire.rules"]

Corruption = Callable[[GameState, random.Random], None]


def _duplicate_in_place(s: GameState, rng: random.Random) -> None:
    """A card listed a second time, appended to a zone list in place (the list object stays the same)."""
    zi = rng.choice([z for z, cards in enumerate(s.zones) if cards])
    s.zones[rng.randrange(len(s.zones))].append(s.zones[zi][0])


def _duplicate_in_every_zone(s: GameState, rng: random.Random) -> None:
    """Every non-empty zone lists its first card twice, in place: whichever zone a certificate might share with
    the state (rather than copy), one of them is changed."""
    for cards in s.zones:
        if cards:
            cards.append(cards[0])


def _drop_in_place(s: GameState, rng: random.Random) -> None:
    """A card vanishes from its zone list (``del`` in place)."""
    zi = rng.choice([z for z, cards in enumerate(s.zones) if cards])
    del s.zones[zi][0]


def _misplace_in_place(s: GameState, rng: random.Random) -> None:
    """A card's recorded place changed in the ``card_zone`` list, its zone lists untouched."""
    c = rng.randrange(len(s.card_zone))
    s.card_zone[c] = (s.card_zone[c] + 1) % len(s.zones)


def _reorder_and_misplace(s: GameState, rng: random.Random) -> None:
    """A zone's list reordered in place (harmless) plus one card's place pointing elsewhere (not)."""
    zi = max(range(len(s.zones)), key=lambda z: len(s.zones[z]))
    s.zones[zi].reverse()
    c = s.zones[zi][0]
    s.card_zone[c] = (zi + 1) % len(s.zones)


def _out_of_bounds_in_place(s: GameState, rng: random.Random) -> None:
    """A bounded counter slot set past its bound in the counters list itself."""
    (lo, hi), slots, _ = rng.choice(s.tables.bounded_groups)
    s.counters[rng.choice(slots)] = hi + 1 if hi is not None else lo - 1


def _equal_but_new_object(s: GameState, rng: random.Random) -> None:
    """A slot given an equal value that is another object, and a card misplaced: only the card is wrong."""
    (_, _), slots, _ = rng.choice(s.tables.bounded_groups)
    i = rng.choice(slots)
    s.counters[i] = int(str(s.counters[i]))  # equal, and for large values a distinct int object
    _misplace_in_place(s, rng)


CORRUPTIONS: list[Corruption] = [_duplicate_in_place, _duplicate_in_every_zone, _drop_in_place, _misplace_in_place,
                                 _reorder_and_misplace, _out_of_bounds_in_place, _equal_but_new_object]


def _rules(path: object) -> Ruleset:
    rules = load_ruleset(str(path))
    rules._build(rules.min_players)[0].incremental_checks = True
    return rules


def _play(game: Game, rng: random.Random, decisions: int) -> None:
    for _ in range(decisions):
        if game.finished:
            return
        p = game.waiting_for()[0]
        game.apply(rng.randrange(game.option_count(p)), p)


def _full_report(game: Game) -> list[tuple[str, str]]:
    """What a check that has never seen this game reports (a clone starts without a certificate)."""
    ref = game.clone()
    assert ref._certified is None
    return ref.violations()


def _assert_caught_next(game: Game, rng: random.Random) -> bool:
    """The state is corrupt now: the next time the engine runs (after the decision, or the last commit of a
    simultaneous choice) it stops the game exactly as a game checked in full from there on does (the same error,
    decisions and step count). True when it stopped (False: the step repaired the state, and both play on)."""
    expected = _full_report(game)
    assert expected, "the corruption must break a built-in invariant"
    s = game.state
    ref = game.clone()  # checks in full: the reference answer for the same decisions
    for p in game.waiting_for():  # every commit of a simultaneous choice: the engine runs after the last one
        assert s.status == "running"
        pick = rng.randrange(game.option_count(p))
        game.apply(pick, p)
        ref.apply(pick, p)
    assert (s.status, s.error, s.decisions, s.steps) == (ref.state.status, ref.state.error, ref.state.decisions,
                                                          ref.state.steps)
    if s.status == "running":  # the step itself put the broken value right (a counter it sets): nothing to catch
        assert not _full_report(game) and game._certified is not None
        return False
    # the reference's error: the check's own violation, or the step's code tripping over the broken state first
    # (a card listed twice, moved twice; a zone over capacity; a declared invariant)
    assert s.error is not None
    return True


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__.strip("_"))
def test_an_in_place_mutation_is_caught_at_the_next_decision(path: object, corrupt: Corruption) -> None:
    rules = _rules(path)
    caught = 0
    for seed in range(3):
        rng = random.Random(seed)
        game = rules.new_game(rules.min_players, seed, check_invariants=True)
        _play(game, rng, 4 + seed)
        assert not game.finished and game._certified is not None
        corrupt(game.state, rng)
        # a check now, without playing, answers as the full check does
        probe = game.clone()
        probe._certified = game._certified.copy()
        assert probe.violations() == _full_report(game)
        caught += _assert_caught_next(game, rng)
    assert caught >= 2


def _assert_no_shared_list(game: Game) -> None:
    cert = game._certified
    assert cert is not None
    s = game.state
    mine = {id(z) for z in s.zones} | {id(s.zones), id(s.card_zone), id(s.counters)}
    held = [cert.card_zone, *cert.counters.blocks, *cert.zones.blocks,
            *(z for block in cert.zones.blocks for z in block)]
    assert not [x for x in held if id(x) in mine]
    assert all(type(v) is not list and type(v) is not dict for v in s.counters)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_the_certificate_shares_no_list_with_the_state(path: object) -> None:
    """A certificate holding the state's own lists would change with them and certify anything: it holds copies
    (counter values are never mutable: list values are tuples). Certificates are made three ways: copied from
    the template's (a new game), taken after a full check (a clone's or a restored game's first check), and
    updated in place by each incremental check."""
    rules = _rules(path)
    game = rules.new_game(rules.min_players, 1, check_invariants=True)
    rng = random.Random(1)
    for _ in range(6):
        _play(game, rng, 1)
        _assert_no_shared_list(game)
    assert not game.finished
    for other in (game.clone(), rules.load_game(game.to_json(), check_invariants=True)):
        seen = 0
        for _ in range(6):
            _play(other, rng, 1)
            if other.finished:
                break
            if other._certified is not None:  # None until the engine first runs (a commit alone does not)
                _assert_no_shared_list(other)
                seen += 1
        assert seen


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_a_game_restored_from_a_save_is_checked_from_scratch(path: object) -> None:
    rules = _rules(path)
    caught = 0
    for k, corrupt in enumerate(CORRUPTIONS):
        rng = random.Random(k)
        game = rules.new_game(rules.min_players, k, check_invariants=True)
        _play(game, rng, 5)
        restored = rules.load_game(game.to_json(), check_invariants=True)
        _play(restored, rng, 1)  # certified by its own first check
        if restored.finished:
            continue
        assert restored._certified is not None
        corrupt(restored.state, rng)
        caught += _assert_caught_next(restored, rng)
        _play(game, random.Random(0), 2)  # the original is untouched by the restored game's corruption
        assert game.state.status != "aborted"
    assert caught >= len(CORRUPTIONS) - 2


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_a_clone_and_its_original_do_not_share_a_certificate(path: object) -> None:
    rules = _rules(path)
    caught = 0
    for k, corrupt in enumerate(CORRUPTIONS):
        rng = random.Random(k)
        game = rules.new_game(rules.min_players, k, check_invariants=True)
        _play(game, rng, 5)
        twin = game.clone()
        _play(twin, random.Random(9), 1)  # the clone certifies its own state
        if twin.finished:
            continue
        corrupt(game.state, rng)  # the original breaks after the clone was made
        caught += _assert_caught_next(game, random.Random(2))
        _play(twin, random.Random(3), 2)  # the clone plays on, healthy
        assert twin.state.status != "aborted"
        again = twin.clone()
        corrupt(twin.state, random.Random(k))  # and a clone that breaks is caught too
        caught += _assert_caught_next(twin, random.Random(4))
        _play(again, random.Random(5), 1)
        assert again.state.status != "aborted"
    assert caught >= 2 * len(CORRUPTIONS) - 4


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_games_of_one_template_keep_their_certificates_apart(path: object) -> None:
    """Every game starts from a copy of its template's certificate: one game's checks (which update its copy in
    place) and corruption leave the next game's start as certified in full."""
    rules = _rules(path)
    first = rules.new_game(rules.min_players, 0, check_invariants=True)
    _play(first, random.Random(0), 8)
    _misplace_in_place(first.state, random.Random(0))
    assert _assert_caught_next(first, random.Random(0))
    second = rules.new_game(rules.min_players, 0, check_invariants=True)
    fresh = rules.new_game(rules.min_players, 0, check_invariants=False)
    assert second.fields() == fresh.fields()  # the saves but their seals, which record which game is checked
    cert = second._certified
    assert cert is not None
    s = second.state
    probe = s.clone()
    assert s.wrote is not None and s.moved is not None
    probe.wrote = s.wrote[:]  # what setup wrote since the template's certificate (a clone starts with no record)
    probe.moved = s.moved[:]
    assert cert.holds(probe)  # the copy it started from still describes a healthy start
    _misplace_in_place(second.state, random.Random(1))
    assert _assert_caught_next(second, random.Random(1))


def test_a_pool_total_kept_by_deltas_catches_a_leak_after_many_moves() -> None:
    """Pools are checked by the change of their slots since certified: a leak after long healthy play (each
    decision moving the certified values) is still the full check's violation."""
    rules = _rules(ROOT / "rulesets" / "bloodborne.rules")
    if not rules._build(rules.min_players)[0].pool_slots:
        pytest.fail("bloodborne declares pools: the test needs one")
    game = rules.new_game(rules.min_players, 2, check_invariants=True)
    rng = random.Random(2)
    _play(game, rng, 20)
    assert not game.finished
    slots = next(iter(game.state.tables.pool_slots.values()))
    game.state.counters[slots[0]] += 1
    assert invariants.full(game.state)[0]
    assert _assert_caught_next(game, rng)
