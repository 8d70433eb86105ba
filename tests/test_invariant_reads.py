"""A checked game evaluates a declared invariant again only when something it can read changed.

interpreter/compiler/readsets.py gives each `invariant` the counter slots and zones it can read (through the
`fn`s it calls too); interpreter/engine/game.py ``violations`` skips one that held at the last check when the
certificate found none of those changed. The first test writes through every kind of place (a counter, a
per-player counter, a per-card counter, an enum-indexed counter, a typed counter, `first`, a grid cell, a card
move, a shuffle) one decision at a time and checks that exactly the invariants reading it run again. The last
one plays random games of every shipped ruleset with one planted violation each and checks that the skipping
check stops at the same decision, with the same report, as evaluating every invariant at every check.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from conftest import ROOT
from liturgy.interpreter.compiler.readsets import InvariantReads
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.runtime.errors import InvariantViolation
from liturgy.interpreter.runtime.state import note_card, note_slot

WRITES = '''\
game "Reads" { players 2..2
  step_limit 100000 }
enum Colour { red, blue }
card Tok { v: int }
cards "tok.yaml"
zone bag: deck hidden of Tok
zone pile: pile public of Tok
zone shelf: row public of Tok
zone hand: per player set owner of Tok
counter total 0..1000
counter per player score 0..1000
counter per card heat 0..1000
counter per player tint[Colour] 0..1000
counter holder: player
grid board 3 by 3 of int
fn tally() -> int = total + 0
invariant "total": total >= 0
invariant "through a fn": tally() < 1000
invariant "score": all(p.score >= 0 for p in players)
invariant "heat": all(c.heat >= 0 for c in shelf)
invariant "tint": all(p.tint[red] >= 0 for p in players)
invariant "holder": holder == none or holder in players
invariant "first": first in players
invariant "board": board[1, 1] >= 0
invariant "pile": size(pile) >= 0
invariant "bag": size(bag) >= 0
invariant "hands": all(size(p.hand) <= 20 for p in players)
invariant "places": count(c for c in shelf where owner(c) == none) >= 0
invariant "fields": all(c.v >= 0 for c in shelf)
setup {
  repeat while size(shelf) < 2 { move top(bag) to shelf }
}
round {
  step s "S" {
    for i in range(0, 60) {
      choose k from range(0, 11) by first {
        if k == 0 { total += 1 }
        if k == 1 { first.score += 1 }
        if k == 2 { top(shelf).heat += 1 }
        if k == 3 { move top(bag) to pile }
        if k == 4 { board[1, 1] += 1 }
        if k == 5 { shuffle bag }
        if k == 6 { if holder == none { holder = first } else { holder = none } }
        if k == 7 { first.tint[red] += 1 }
        if k == 8 { first = next_player(first) }
        if k == 9 { log "nothing changes" }
        if k == 10 { move top(bag) to first.hand }
      }
    }
    end game
  }
}
score(p) = p.score
'''

TOK = "kind: Tok\nstart: bag\ncards:\n  - name: Tok\n    count: 14\n    v: 1\n"

PLACES = {"places"}  # `owner(c)` reads every card's place: any zone change
# what each option writes, and the invariants that read it (beside those reading every zone)
RUNS: dict[int, set[str]] = {
    0: {"total", "through a fn"},
    1: {"score"},
    2: {"heat"},
    3: {"bag", "pile"} | PLACES,
    4: {"board"},
    5: {"bag"} | PLACES,
    6: {"holder"},
    7: {"tint"},
    8: {"first"},
    9: set(),
    10: {"bag", "hands"} | PLACES,
}


def _recording(rules: Ruleset) -> list[str]:
    """Wrap every compiled invariant so each evaluation appends its text to the returned list."""
    ran: list[str] = []
    comp = rules.noted().compiled  # the variant checked games run (its invariants are the ruleset's own list)

    def wrap(text: str, fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        def recorded(s: Any, env: Any) -> Any:
            ran.append(text)
            return fn(s, env)
        return recorded

    comp.invariants[:] = [(text, wrap(text, fn), outside) for text, fn, outside in comp.invariants]
    return ran


def test_a_write_runs_exactly_the_invariants_that_read_it(write_ruleset: Callable[..., str]) -> None:
    rules = load_ruleset(write_ruleset(WRITES, {"tok.yaml": TOK}))
    assert all(r is not None for r in rules.compiled.invariant_reads.sets)  # every reference kind here is listed
    rules._build(2)[0].incremental_checks = True  # small rulesets check in full otherwise
    ran = _recording(rules)
    game = rules.new_game(2, 7, check_invariants=True)
    texts = [text for text, _, _ in rules.compiled.invariants]
    assert ran == texts  # the first check: nothing known yet, every invariant runs
    bag = rules.compiled.layout.zone_global["bag"]
    seen_shuffle_change = False
    for k in [*RUNS, *RUNS]:
        ran.clear()
        before = game.state.zones[bag][:]
        game.apply(k)
        assert game.error is None
        expected = RUNS[k]
        if k == 5 and game.state.zones[bag] == before:
            expected = set()  # the shuffle left the order as it was: nothing changed
        seen_shuffle_change |= k == 5 and bool(expected)
        assert set(ran) == expected, k
        assert len(ran) == len(set(ran))
    assert seen_shuffle_change


def test_an_invariant_that_failed_runs_again_until_it_holds(write_ruleset: Callable[..., str]) -> None:
    """Only an invariant that held is skipped: one that could not be evaluated or was false is evaluated again."""
    text = WRITES.replace('invariant "board": board[1, 1] >= 0', 'invariant "board": board[1, 1] >= 0\n'
                          'invariant "odd": (total + 1) / (total % 2) >= 0')
    rules = load_ruleset(write_ruleset(text, {"tok.yaml": TOK}))
    rules._build(2)[0].incremental_checks = True
    ran = _recording(rules)
    # unchecked (the division by zero would stop a checked game), on the variant whose code notes its writes (a game of
    # the unchecked variant switched to checking is checked in full every time: tests/test_noted_variant.py)
    game = rules.noted().new_game(2, 7)
    game.check = True
    game._certified = None
    assert [name for name, _ in game.violations()] == ["odd"]  # total is 0: could not be evaluated
    ran.clear()
    assert [name for name, _ in game.violations()] == ["odd"]
    assert ran == ["odd"]  # nothing changed: everything else held and is skipped, "odd" runs again
    game.apply(0)  # total 1: holds now
    ran.clear()
    assert game.violations() == []
    assert ran == []  # "odd" held at the check inside apply; nothing changed since


def test_unknown_reads_run_every_time(write_ruleset: Callable[..., str]) -> None:
    """A reference kind the read sets do not list (here a card's function field) makes an invariant run always."""
    text = WRITES.replace("card Tok { v: int }", "card Tok { v: int\n  f: function() -> int = 1 }").replace(
        'invariant "fields": all(c.v >= 0 for c in shelf)', 'invariant "fields": all(c.f() >= 0 for c in shelf)')
    rules = load_ruleset(write_ruleset(text, {"tok.yaml": TOK}))
    sets = rules.compiled.invariant_reads.sets
    texts = [t for t, _, _ in rules.compiled.invariants]
    assert sets[texts.index("fields")] is None
    rules._build(2)[0].incremental_checks = True
    ran = _recording(rules)
    game = rules.new_game(2, 7, check_invariants=True)
    ran.clear()
    game.apply(9)
    assert ran == ["fields"]


# ---------------------------------------------------------------- planted violations, every shipped ruleset

SHIPPED = [("bloodborne.rules", 3), ("slay_the_spire.rules", 1), ("betrayal.rules", 3), ("fury_of_dracula.rules", 2),
           ("classic/crazy_eights.rules", 3), ("classic/goofspiel.rules", 2), ("classic/kuhn_poker.rules", 2),
           ("classic/leduc_poker.rules", 2), ("classic/liars_dice.rules", 2), ("classic/liars_poker.rules", 2),
           ("classic/hex.rules", 2), ("classic/breakthrough.rules", 2), ("classic/connect_four.rules", 2),
           ("classic/tic_tac_toe.rules", 2), ("classic/block_dominoes.rules", 2), ("classic/dark_hex.rules", 2)]


def _plant(game: Game, rng: random.Random, sets: InvariantReads) -> None:
    """Corrupt the state the way a faulty rule could, through the noting functions (as every write path writes,
    tests/test_recorded_writes.py), so that the certificate proves the next check and the read sets decide what
    runs: a counter slot a declared invariant reads (most of the time) or any slot moved by a little or a lot,
    or a few cards moved into a zone an invariant reads; where an invariant reads a zone through a per-card test,
    often one or two cards the test holds for, moved into such a zone (a Hunter's Dream into another hunter's
    hand), which only a sound filtered read set re-checks. Some declared or built-in invariant may or may not notice;
    both checks must agree on it."""
    s = game.state
    reads = [r for r in sets.resolved(s.tables.n, len(s.tables.card_def)) if r]
    ncards = len(s.card_zone)
    # the zones read through a per-card test, and the cards a test holds for, worked out here from the tests
    # themselves (not from the engine's masks, which a faulty relevance computation would empty)
    filtered = [f for r in sets.sets if r for f in r.filter_zones(sets.lay, s.tables.n, ncards)]
    fzone = {z for zones, _ in filtered for z in zones}
    read_slots = sorted({i for r in reads for i in r[0]})
    read_zones = sorted({z for r in reads for z in r[1]} | fzone)
    tested = sorted({c for _, f in filtered for c in range(ncards) if _test_holds(f.test, f.var, s, c)})
    if tested and rng.random() < 0.4:  # cards a per-card test holds for, into a zone read through it
        dst = rng.choice(sorted(fzone))
        for _ in range(rng.randint(1, 2)):
            _move_noted(s, rng.choice(tested), dst)
        return
    if rng.random() < 0.7:
        if read_slots and (rng.random() < 0.5 or not read_zones):
            i = rng.choice(read_slots)
        elif read_zones:  # move a few cards into a zone an invariant reads, as the engine moves them
            dst = rng.choice(read_zones)
            for _ in range(rng.randint(1, 8)):
                c = rng.choice(tested) if tested and rng.random() < 0.5 else rng.randrange(len(s.card_zone))
                _move_noted(s, c, dst)
            return
        else:
            i = rng.randrange(len(s.counters))
    else:
        i = rng.randrange(len(s.counters))
    v = s.counters[i]
    if type(v) is int:
        s.counters[i] = v + rng.choice((-1, 1, 2, -50))
        note_slot(s, i)


def _test_holds(test: Callable[[Any, Any], Any], var: str, s: Any, c: int) -> bool:
    work = s.work
    try:
        return bool(test(s, {var: c}))
    finally:
        s.work = work


def _move_noted(s: Any, c: int, dst: int) -> None:
    """Move card ``c`` to the top of zone ``dst`` as the engine does: lists, place and the note."""
    if s.card_zone[c] != dst:
        s.zones[s.card_zone[c]].remove(c)
        s.zones[dst].append(c)
        s.card_zone[c] = dst
        note_card(s, c)


def _run(rules: Ruleset, players: int, seed: int, every: bool, reads: InvariantReads | None = None,
         plant: Callable[[Game, random.Random, InvariantReads], None] = _plant) -> tuple[object, ...]:
    """Play a random checked game, corrupting its state once early on; where and how it stopped. ``reads``: the
    read sets the skipping check uses instead of the compiled ones (a test of this test)."""
    comp = rules.noted().compiled  # what checked games run (engine/ruleset.py: Ruleset.noted)
    keep = comp.invariant_reads
    if every:
        comp.invariant_reads = InvariantReads([None] * len(keep.sets), keep.lay)
    elif reads is not None:
        comp.invariant_reads = reads
    try:
        game = rules.new_game(players, seed, check_invariants=True)
        rng = random.Random(seed)
        plant_at = rng.randrange(0, 4)
        steps = 0
        try:
            while game.state.status == "running" and steps < 120:
                if steps == plant_at:
                    plant(game, rng, keep)
                for p in game.waiting_for():
                    game.apply(rng.randrange(game.option_count(p)), p)
                steps += 1
        except InvariantViolation as err:
            return ("raised", steps, str(err), game.digest())
        return (steps, game.state.status, game.error, game.digest())
    finally:
        comp.invariant_reads = keep


@pytest.mark.parametrize(("name", "players"), SHIPPED, ids=[n for n, _ in SHIPPED])
def test_skipping_stops_where_checking_everything_stops(name: str, players: int) -> None:
    rules = load_ruleset(str(ROOT / "rulesets" / name))
    tables = rules._build(players)[0]
    was = tables.incremental_checks
    tables.incremental_checks = True  # the skip needs the certificate: use it everywhere (rulesets are shared)
    rules._certs.clear()
    try:
        for seed in range(3 if players == 1 or name.startswith(("betrayal", "fury")) else 6):
            assert _run(rules, players, seed, every=False) == _run(rules, players, seed, every=True), seed
    finally:
        tables.incremental_checks = was
        rules._certs.clear()


def test_an_invariant_has_a_work_budget_of_its_own(write_ruleset: Callable[..., str]) -> None:
    """Checking never changes the game's work count, and an invariant's outcome does not depend on how much of the
    game's budget is left (so skipping one whose reads did not change is exact late in a game too)."""
    text = WRITES.replace("step_limit 100000 }", "step_limit 100000\n  work_limit 2000 }").replace(
        'invariant "board": board[1, 1] >= 0', 'invariant "board": board[1, 1] >= 0\ninvariant "heavy": '
        'count(x for x in range(0, 300) where any(y == x + total for y in range(0, 3))) >= 0')
    rules = load_ruleset(write_ruleset(text, {"tok.yaml": TOK}))
    checked = rules.new_game(2, 7, check_invariants=True)
    plain = rules.new_game(2, 7)
    for k in (0, 3, 1, 0, 10):
        checked.apply(k)
        plain.apply(k)
        assert checked.error is None and checked.state.work == plain.state.work
    checked.state.work = 1990  # ten units left: the game's own next loop would run out, not the check
    assert checked.violations() == []
    assert checked.state.work == 1990
    runaway = load_ruleset(write_ruleset(text.replace("range(0, 300)", "range(0, 3000)"), {"tok.yaml": TOK},
                                         name="runaway.rules"))
    game = runaway.new_game(2, 7)
    game.check = True
    assert [(name, detail.startswith("could not evaluate: ") and "work budget" in detail)
            for name, detail in game.violations()] == [("heavy", True)]


def test_masks_say_exactly_which_invariants_read_each_place(write_ruleset: Callable[..., str]) -> None:
    """The bit masks the check uses are the read sets turned around: invariant k's bit is set for a slot or zone
    exactly when its read set holds it, and an invariant with an unknown read set has its bit in ``unknown``."""
    text = WRITES.replace("card Tok { v: int }", "card Tok { v: int\n  f: function() -> int = 1 }").replace(
        'invariant "fields": all(c.v >= 0 for c in shelf)', 'invariant "fields": all(c.f() >= 0 for c in shelf)')
    rules = load_ruleset(write_ruleset(text, {"tok.yaml": TOK}))
    reads = rules.compiled.invariant_reads
    game = rules.new_game(2, 7)
    cards = len(game.state.card_zone)
    slot_mask, zone_mask, unknown = reads.masks(2, cards)
    resolved = reads.resolved(2, cards)
    texts = [t for t, _, _ in rules.compiled.invariants]
    assert unknown == 1 << texts.index("fields")
    for k, r in enumerate(resolved):
        if r is None:
            continue
        assert {i for i, m in slot_mask.items() if m >> k & 1} == set(r[0])
        assert {z for z, m in zone_mask.items() if m >> k & 1} == set(r[1])
    assert all(m for m in slot_mask.values()) and all(m for m in zone_mask.values())


# ---------------------------------------------------------------- reads through a per-card test

FILTERED = '''\
game "Filtered" { players 2..2
  step_limit 100000 }
card Tok { v: int
  special: bool = false }
cards "tok.yaml"
zone bag: deck hidden of Tok
zone shelf: row public of Tok
zone hand: per player set owner of Tok
counter total 0..1000
invariant "specials on the shelf": count(c for c in shelf where c.special) <= 6
invariant "specials in hands": all(count(c for c in p.hand where c.special and c.v > 3) <= 6 for p in players)
invariant "every v on the shelf": all(c.v >= 0 for c in shelf)
invariant "some v on the shelf": not any(c.v > 100 for c in shelf)
invariant "size of the shelf": size(shelf) <= 6
invariant "a total": count(c for c in shelf where c.v > total) >= 0
round {
  step s "S" {
    for i in range(0, 60) {
      choose k from range(0, 9) by first {
        if k >= 1 and k <= 6 { move [c for c in bag where c.v == k] to shelf }
        if k == 7 { move [c for c in shelf] to bag }
        if k == 8 { move [c for c in bag where c.v == 5] to first.hand }
        if k == 0 { total += 1 }
      }
    }
    end game
  }
}
score(p) = 0
'''

SIX = ("kind: Tok\nstart: bag\ncards:\n" + "".join(
    f"  - name: T{v}\n    v: {v}\n" + ("    special: true\n" if v in (2, 5) else "") for v in range(1, 7)))


def test_a_filtered_read_runs_only_when_a_card_its_test_holds_for_moves(write_ruleset: Callable[..., str]) -> None:
    """`count(c for c in shelf where c.special)` runs again only when a special card enters or leaves the shelf;
    `all(c.v >= 0 …)` (no card fails the element) and `not any(c.v > 100 …)` (no card passes it) never run again
    for a move; `size(shelf)` and a `where` that reads a counter are plain reads, run for every move."""
    rules = load_ruleset(write_ruleset(FILTERED, {"tok.yaml": SIX}))
    sets = rules.compiled.invariant_reads.sets
    texts = [t for t, _, _ in rules.compiled.invariants]
    shape = {t: (None if r is None else len(r.filtered)) for t, r in zip(texts, sets, strict=True)}
    assert shape == {"specials on the shelf": 1, "specials in hands": 1, "every v on the shelf": 1,
                     "some v on the shelf": 1, "size of the shelf": 0, "a total": 0}
    rules._build(2)[0].incremental_checks = True  # small rulesets check in full otherwise
    ran = _recording(rules)
    game = rules.new_game(2, 7, check_invariants=True)
    assert ran == texts
    plain = {"size of the shelf", "a total"}
    # (option, what runs): a plain card, a special one, a special one into a hand (v 5 > 3), a counter, all back
    for k, expected in [(1, plain), (2, plain | {"specials on the shelf"}), (3, plain),
                        (8, {"specials in hands"}), (0, {"a total"}), (7, plain | {"specials on the shelf"}),
                        (4, plain), (7, plain)]:
        ran.clear()
        game.apply(k)
        assert game.error is None
        assert set(ran) == expected, k
        assert len(ran) == len(set(ran))


def test_filtered_masks_moved_down_still_name_their_invariants(write_ruleset: Callable[..., str]) -> None:
    """With a plain invariant first, the filtered ones start at bit 1: the certificate's masks carry their bits moved
    down by one (readsets.py ``lift``: small ints, no allocation per OR) and move them back up, so a special card
    entering a hand still runs "specials in hands" (bit 2) and nothing else, and the masks say what they said."""
    rules = load_ruleset(write_ruleset(FILTERED.replace("counter total 0..1000\n", "counter total 0..1000\n"
                                                        'invariant "total first": total >= 0\n'), {"tok.yaml": SIX}))
    rules._build(2)[0].incremental_checks = True
    ran = _recording(rules)
    game = rules.new_game(2, 7, check_invariants=True)
    reads = rules.noted().compiled.invariant_reads
    assert reads.lift(game.state) == 1
    _, _, _, shift, relevant = reads.lists(game.state)
    assert shift == 7 and any(m >> shift & 1 for m in relevant)  # bit 1 (a special card's) moved down to 0
    plain = {"size of the shelf", "a total"}
    for k, expected in [(2, plain | {"specials on the shelf"}), (8, {"specials in hands"}),
                        (0, {"a total", "total first"}), (3, plain)]:
        ran.clear()
        game.apply(k)
        assert game.error is None
        assert set(ran) == expected, k


def test_a_filtered_read_without_a_work_bound_is_a_plain_read(write_ruleset: Callable[..., str]) -> None:
    """With a work budget the invariant could reach when every card is in the zone, a skipped evaluation could have
    been a budget error: the filtered read then counts as reading the zone, and every move into it runs it."""
    rules = load_ruleset(write_ruleset(FILTERED.replace("step_limit 100000 }", "step_limit 100000\n  work_limit 5 }"),
                                       {"tok.yaml": SIX}))
    reads = rules.compiled.invariant_reads
    shelf = rules.compiled.layout.zone_global["shelf"]
    texts = [t for t, _, _ in rules.compiled.invariants]
    k = texts.index("specials on the shelf")
    assert reads.sets[k] is not None and reads.sets[k].filtered  # type: ignore[union-attr]
    assert not reads.sets[k].filters_apply(2, 6)  # type: ignore[union-attr]  # 1 + 6 * (1 + 3) units > 5
    assert shelf in reads.resolved(2, 6)[k][1]  # type: ignore[index]
    rules._build(2)[0].incremental_checks = True
    ran = _recording(rules)
    game = rules.new_game(2, 7, check_invariants=True)
    ran.clear()
    game.apply(1)  # a plain card onto the shelf
    assert "specials on the shelf" in ran


def test_what_reads_through_a_per_card_test(write_ruleset: Callable[..., str]) -> None:
    """Only an order-blind aggregate straight over a zone, whose test reads the card's printed fields and constants,
    reads through a test; a `where` reading another local, a `sort`, a comprehension or `count` with no `where` read
    the zone itself."""
    rules = load_ruleset(write_ruleset(FILTERED.replace(
        'invariant "a total"', 'invariant "other local": all(count(c for c in shelf where c.v == p) >= 0 for p in '
        'range(0, 2))\ninvariant "sorted": size(sort(c.v for c in shelf where c.special)) >= 0\n'
        'invariant "listed": size([c for c in shelf where c.special]) >= 0\n'
        'invariant "counted": count(c for c in shelf) >= 0\n'
        'invariant "of a list": count(c for c in [x for x in shelf] where c.special) >= 0\n'
        'invariant "a total"'), {"tok.yaml": SIX}))
    texts = [t for t, _, _ in rules.compiled.invariants]
    sets = rules.compiled.invariant_reads.sets
    for name in ("other local", "sorted", "listed", "counted", "of a list"):
        r = sets[texts.index(name)]
        assert r is not None and not r.filtered and r.zones, name


def _sabotaged(reads: InvariantReads) -> InvariantReads:
    """``reads`` with every per-card test holding for no card: a read set that misses reads."""
    bad = InvariantReads(reads.sets, reads.lay)
    real = bad.filters

    def filters(s: Any) -> tuple[dict[int, int], list[int]]:
        zone, relevant = real(s)
        return zone, [0] * len(relevant)

    bad.filters = filters  # type: ignore[method-assign]
    return bad


def _dream_to_the_next_hunter(game: Game, rng: random.Random, sets: InvariantReads) -> None:
    """Hand the first hunter's Hunter's Dream to the second hunter (noted, as the engine moves cards)."""
    s = game.state
    hand = rules_zone(game, "hand", 1)
    permanent = game.ruleset.compiled.field_lists["permanent"]
    dream = next(c for c in range(len(s.card_zone)) if permanent[c] and s.tables.zone_owner[s.card_zone[c]] == 0)
    _move_noted(s, dream, hand)


def rules_zone(game: Game, name: str, player: int) -> int:
    lay = game.ruleset.compiled.layout
    return lay.zone_player_base + player * lay.zone_player_stride + lay.zone_player_offsets[name]


def test_a_read_set_that_misses_a_read_is_caught() -> None:
    """The differential above is what proves read sets sound: with the per-card tests made to hold for no card, the
    skipping check misses a Hunter's Dream handed to another hunter (noted, so the certificate proves the check),
    and the comparison with evaluating everything fails; with the real tests it stops where that does."""
    rules = load_ruleset(str(ROOT / "rulesets" / "bloodborne.rules"))
    reads = rules.noted().compiled.invariant_reads
    for seed in range(2):
        every = _run(rules, 3, seed, every=True, plant=_dream_to_the_next_hunter)
        assert "invariant violated: every hunter owns exactly one Hunter's Dream" in str(every)  # the game stopped
        assert _run(rules, 3, seed, every=False, plant=_dream_to_the_next_hunter) == every
        assert _run(rules, 3, seed, every=False, reads=_sabotaged(reads), plant=_dream_to_the_next_hunter) != every
