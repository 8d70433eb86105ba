"""Every write path notes what it writes: the invariant certificate's record is complete (the differential proof).

interpreter/runtime/invariants.py no longer finds what changed since the last check by comparing copies of the
counters and zones: every write the generated code and the closures make to a counter slot or a zone list (a
shuffle) notes it in ``GameState.wrote``, and every card move (the runtime's and the generated code's) notes the
card in ``GameState.moved`` (interpreter/runtime/state.py); the certificate checks bounds and pools for exactly
the noted slots, and placement from the moved cards' places and the zones' sizes. A write path that forgot to
note itself would go unseen there until the C-level comparisons after the update (the counters, every zone's size,
every card's place) turn that check into a full one, or not at all when it kept every size and place; these tests
make sure no path relies on that. With ``invariants.AUDIT`` set, every check also compares the copies as the
certificate did before and lists each slot, card place or zone that changed without a note (a zone is noted when
it was noted itself, or when its list is what the noted card moves make of it). Over random checked games of all
16 shipped rulesets (with a corruption planted through the noting functions, as a faulty rule would write it), and
over every registered statement's samples in every compile mode, that list stays empty; a write planted past the
record is listed, and the game is checked in full at once.
"""

from __future__ import annotations

import random
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import ROOT
from liturgy.dsl import constructs
from liturgy.dsl.frontend import ast as A
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.runtime import invariants
from liturgy.interpreter.runtime.errors import InvariantViolation
from liturgy.interpreter.runtime.state import note_card, note_slot, note_zone
from mode_helpers import compiled
from test_invariant_reads import SHIPPED

MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]


@pytest.fixture
def audit() -> Iterator[list[tuple[str, int]]]:
    """The audit list for the test's checks (module state: restored whatever happens)."""
    invariants.AUDIT = []
    try:
        yield invariants.AUDIT
    finally:
        invariants.AUDIT = None


@pytest.fixture
def proven(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the checks the certificate proved from the record (so a test cannot pass by never using it)."""
    count = [0]
    holds = invariants.Certified.holds

    def counted(self: invariants.Certified, s: object) -> bool:
        ok = holds(self, s)  # type: ignore[arg-type]
        count[0] += ok
        return ok

    monkeypatch.setattr(invariants.Certified, "holds", counted)
    return count


def _plant_noted(game: Game, rng: random.Random) -> None:
    """A corruption written the way a faulty rule writes it, through the noting functions: a counter slot moved
    by a little or a lot, or a few cards moved into another zone (places updated)."""
    s = game.state
    if rng.random() < 0.5 or not s.card_zone:
        i = rng.randrange(len(s.counters))
        if type(s.counters[i]) is int:
            s.counters[i] += rng.choice((-1, 1, 2, -50))
            note_slot(s, i)
        return
    dst = rng.randrange(len(s.zones))
    for _ in range(rng.randint(1, 8)):
        c = rng.randrange(len(s.card_zone))
        src = s.card_zone[c]
        if src != dst:
            s.zones[src].remove(c)
            s.zones[dst].append(c)
            s.card_zone[c] = dst
            note_card(s, c)


def _play(rules: Ruleset, players: int, seed: int, plant: bool) -> None:
    game = rules.new_game(players, seed, check_invariants=True)
    rng = random.Random(seed)
    plant_at = rng.randrange(0, 6) if plant else -1
    try:
        for step in range(150):
            if game.state.status != "running":
                break
            if step == plant_at:
                _plant_noted(game, rng)
            for p in game.waiting_for():
                game.apply(rng.randrange(game.option_count(p)), p)
        game.violations()  # the last stretch's writes are audited too
    except InvariantViolation:
        pass  # the planted corruption was caught (or the rules' own break): either way every check was audited


@pytest.mark.parametrize(("name", "players"), SHIPPED, ids=[n for n, _ in SHIPPED])
def test_every_write_of_a_shipped_ruleset_is_noted(name: str, players: int, audit: list[tuple[str, int]],
                                                   proven: list[int]) -> None:
    rules = load_ruleset(str(ROOT / "rulesets" / name))
    tables = rules._build(players)[0]
    was = tables.incremental_checks
    tables.incremental_checks = True  # the certificate everywhere, small rulesets too (rulesets are shared)
    rules._certs.clear()
    try:
        big = players == 1 or name.startswith(("betrayal", "fury"))
        for seed in range(2 if big else 4):
            _play(rules, players, seed, plant=seed % 2 == 1)
    finally:
        tables.incremental_checks = was
        rules._certs.clear()
    assert proven[0] > 0
    assert audit == [], f"{name}: written without a note: {sorted(set(audit))[:10]}"


def test_every_sample_of_every_statement_notes_its_writes_in_every_compile_mode(
        audit: list[tuple[str, int]], proven: list[int]) -> None:
    """Every registered statement kind (its samples, as the cross-mode fuzzer writes them) in every compile mode:
    a construct added to the registry is audited here without anyone editing this test."""
    from ruleset_strategies import filled_samples, world_ruleset, write_world

    decls: list[str] = []
    body: list[str] = []
    last: list[str] = []
    for node in constructs.STATEMENTS:
        for more, lines in filled_samples(node, random.Random(7)):
            decls += more
            (last if node in (A.EndGame, A.SkipTo) else body).extend(["if true {", *lines, "}"])
    text = world_ruleset(body + last, decls, rounds=3)
    with tempfile.TemporaryDirectory() as tmp:
        path = write_world(Path(tmp), text)
        for mode in MODES:
            program, diags = check_file(path)
            assert program is not None, diags
            rules = Ruleset(program, **mode)
            for players in (2, 3):
                rules._build(players)[0].incremental_checks = True
                for seed in range(3):
                    _play(rules, players, seed, plant=False)
    assert proven[0] > 0
    assert audit == [], f"written without a note: {sorted(set(audit))[:10]}"


def _bloodborne_game(decisions: int) -> Game:
    rules = load_ruleset(str(ROOT / "rulesets" / "bloodborne.rules"))
    rules._build(3)[0].incremental_checks = True
    game = rules.new_game(3, 4, check_invariants=True)
    rng = random.Random(4)
    for _ in range(decisions):
        p = game.waiting_for()[0]
        game.apply(rng.randrange(game.option_count(p)), p)
    assert game._certified is not None and not game.finished
    return game


def test_a_write_that_bypasses_the_record_is_listed_and_checked_in_full(audit: list[tuple[str, int]]) -> None:
    """The mutation the audit exists for: a zone reordered and a counter slot rewritten in place, with no note.
    Both are listed. The counter also fails the certificate's own comparison after the update, so the engine's
    check runs in full and takes a new certificate instead of answering from the record (a reorder alone keeps
    every size and place: only this audit sees it, which is why the shipped rulesets are audited above)."""
    game = _bloodborne_game(10)
    s = game.state
    zi = max(range(len(s.zones)), key=lambda z: len(s.zones[z]))
    s.zones[zi].reverse()  # placement still holds: only the order changed
    slot = next(i for i, v in enumerate(s.counters) if type(v) is int and i not in s.tables.pool_of_slot
                and s.tables.counter_bounds[i] == (None, None))
    s.counters[slot] = s.counters[slot] + 1000  # unbounded, in no pool: nothing the built-in checks reject
    before = game._certified
    assert game.violations() == [] or True  # whatever the declared invariants say of the new values
    assert ("zone", zi) in audit and ("counter", slot) in audit
    assert game._certified is not before  # checked in full and certified afresh, not answered from the record


def test_a_noted_write_is_not_listed(audit: list[tuple[str, int]]) -> None:
    """The same writes, noted, are what the record is for: nothing is listed and the certificate is kept."""
    game = _bloodborne_game(10)
    s = game.state
    zi = max(range(len(s.zones)), key=lambda z: len(s.zones[z]))
    s.zones[zi].reverse()
    note_zone(s, zi)
    before = game._certified
    game.violations()
    assert audit == []
    assert game._certified is before


def test_a_promoted_loop_notes_its_counter_once(write_ruleset: Callable[..., str], audit: list[tuple[str, int]],
                                                 proven: list[int]) -> None:
    """A global counter kept in a local for a loop's duration (interpreter/codegen/promote.py) is written back,
    and noted, after the loop: the loop is still promoted, and the write is in the record in every mode."""
    from test_promote import HEAD, LOOP

    path = write_ruleset(HEAD.replace("WORK", "100000") + LOOP.replace("BODY", "other += 1"))
    for mode in MODES:
        rules = compiled(path, mode)
        rules._build(2)[0].incremental_checks = True
        if mode == {}:
            gen = rules.noted().compiled.gen  # the variant checked games run
            assert gen is not None
            # promoted, and noted once, in the `finally` after the loop
            assert re.search(r"finally:\n(        _cs\[[0-9]+\] = _t[0-9]+\n)+"
                             r"        if \(_wr := s\.wrote\) is not None: _wr\.append\([0-9]+\)", gen.sources.dump())
            assert "_wr" not in str(rules.compiled.gen.sources.dump())  # the unchecked variant notes nothing
        game = rules.new_game(2, 0, check_invariants=True)
        assert game.finished and game.state.error is None
        game.violations()
    assert proven[0] >= len(MODES)  # the check at the end of the game, and ours
    assert audit == [], f"written without a note: {sorted(set(audit))}"


def _two_zones_with_cards(game: Game) -> tuple[int, int, int]:
    """A card ``c`` of the fullest zone and another zone ``dst`` it can be moved to (zone ``src`` is c's)."""
    s = game.state
    src = max(range(len(s.zones)), key=lambda z: len(s.zones[z]))
    c = s.zones[src][-1]
    dst = next(z for z in range(len(s.zones)) if z != src and s.tables.zone_capacity[z] is None
               and not s.tables.zone_final[z])
    return c, src, dst


def _move_unnoted(game: Game, c: int, dst: int) -> None:
    """A card moved as the engine moves it (both lists and its place), past the record."""
    s = game.state
    s.zones[s.card_zone[c]].remove(c)
    s.zones[dst].append(c)
    s.card_zone[c] = dst


def test_a_card_moved_past_the_record_is_listed_and_checked_in_full(audit: list[tuple[str, int]]) -> None:
    """A card move with no note (placement still holds: lists and place agree): the audit lists the card and both
    zones, and the certificate's own comparison of the card places turns the check into a full one."""
    game = _bloodborne_game(10)
    c, src, dst = _two_zones_with_cards(game)
    _move_unnoted(game, c, dst)
    before = game._certified
    assert before is not None and game.state.moved == []
    game.violations()
    assert ("card", c) in audit and ("zone", src) in audit and ("zone", dst) in audit
    assert game._certified is not before  # checked in full and certified afresh, not answered from the record


def test_a_noted_card_move_is_not_listed_and_changes_both_zones(audit: list[tuple[str, int]]) -> None:
    """The same move noted (``note_card``): nothing is listed, the certificate is kept, and the invariants it names
    for evaluation (``bits``) include every one reading the zone the card left or the one it entered."""
    game = _bloodborne_game(10)
    c, src, _ = _two_zones_with_cards(game)
    s = game.state
    _, zone_of, _, shift, _ = game.ruleset.compiled.invariant_reads.lists(s)
    plain = (1 << shift) - 1  # the masks' plain reads (the filtered ones are above)
    # a zone some invariant reads (a hunter's hand: the hand limit), so that the assertion below can fail
    dst = next(z for z in range(len(s.zones)) if z != src and zone_of[z] & plain
               and s.tables.zone_capacity[z] is None and not s.tables.zone_final[z])
    _move_unnoted(game, c, dst)
    note_card(s, c)
    before = game._certified
    assert before is not None
    game.violations()
    assert audit == []
    assert game._certified is before and (zone_of[src] | zone_of[dst]) & plain & ~before.bits == 0
    assert before.card_zone[c] == dst and before.sizes[dst] == len(game.state.zones[dst])


def test_an_unnoted_exchange_in_a_zone_a_noted_move_changed_is_listed(audit: list[tuple[str, int]]) -> None:
    """What the certificate does not read: a zone changed by a noted move is checked by its size and the moved
    card's place, not card by card, so a card listed in place of another there (sizes and places kept) passes
    its check. The audit still lists that zone (its list is not what the noted move makes of it), which is why
    the audit over every shipped ruleset and statement above is the proof that no write path does this."""
    game = _bloodborne_game(10)
    s = game.state
    c, src, dst = _two_zones_with_cards(game)
    _move_unnoted(game, c, dst)
    note_card(s, c)
    other = next(z for z in range(len(s.zones)) if z not in (src, dst) and s.zones[z])
    assert s.zones[src], "the fullest zone keeps cards after its top one moved"
    s.zones[src][0], s.zones[other][0] = s.zones[other][0], s.zones[src][0]  # each card now listed where it is not
    game.violations()
    assert ("zone", src) in audit and ("zone", other) in audit


def test_a_card_noted_but_placed_where_no_zone_lists_it_is_checked_in_full() -> None:
    """The moved card's place is checked against the list of the zone it names: a move that updated the place
    but not the lists (the destination's size then also disagrees) is not proven, and the full check reports it
    at this very check, as a game checked in full from the start does."""
    game = _bloodborne_game(10)
    s = game.state
    c, _, dst = _two_zones_with_cards(game)
    s.card_zone[c] = dst
    note_card(s, c)
    ref = game.clone()
    assert ref._certified is None
    expected = ref.violations()
    assert expected and game.violations() == expected
