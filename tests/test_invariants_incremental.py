"""The incremental invariant check must report exactly what the full check reports, for any state.

A checked game keeps a certified copy of the last state whose built-in invariants held and then looks
only at what changed (interpreter/invariants.py). These tests break states in every way the
built-in invariants describe (and in ways that keep them), then compare the incremental answer with
a full check of the same state.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import LARGE, ROOT, sized
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.runtime import invariants
from liturgy.interpreter.runtime.state import GameState

RULESETS = [ROOT / "rulesets" / "bloodborne.rules", ROOT / "rulesets" / "slay_the_spire.rules",
            ROOT / "rulesets" / "classic" / "crazy_eights.rules", ROOT / "rulesets" / "classic" / "goofspiel.rules"]


def _cards_in_zones(s: GameState) -> list[tuple[int, int]]:
    return [(zi, c) for zi, z in enumerate(s.zones) for c in z]


def _legal_move(s: GameState, rng: random.Random) -> None:
    """Move a card as the engine does (both indexes updated): every invariant but capacity still holds."""
    zi, c = rng.choice(_cards_in_zones(s))
    dst = rng.randrange(len(s.zones))
    s.zones[zi].remove(c)
    s.zones[dst].append(c)
    s.card_zone[c] = dst


def _list_only(s: GameState, rng: random.Random) -> None:
    """A card listed in another zone, its place not updated."""
    zi, c = rng.choice(_cards_in_zones(s))
    dst = (zi + 1 + rng.randrange(len(s.zones) - 1)) % len(s.zones)
    s.zones[zi].remove(c)
    s.zones[dst].append(c)


def _place_only(s: GameState, rng: random.Random) -> None:
    """A card's place changed while the zone lists stay (the card sits in an unchanged zone)."""
    c = rng.randrange(len(s.card_zone))
    s.card_zone[c] = (s.card_zone[c] + 1) % len(s.zones)


def _duplicate(s: GameState, rng: random.Random) -> None:
    _, c = rng.choice(_cards_in_zones(s))
    s.zones[rng.randrange(len(s.zones))].append(c)


def _drop(s: GameState, rng: random.Random) -> None:
    zi, c = rng.choice(_cards_in_zones(s))
    s.zones[zi].remove(c)


def _swap_places(s: GameState, rng: random.Random) -> None:
    """Two cards in different zones swap their places but not their lists."""
    a, b = rng.sample(_cards_in_zones(s), 2)
    s.card_zone[a[1]], s.card_zone[b[1]] = s.card_zone[b[1]], s.card_zone[a[1]]


def _swap_cards(s: GameState, rng: random.Random) -> None:
    """Two cards exchange zones, lists and places both: still consistent."""
    (za, a), (zb, b) = rng.sample(_cards_in_zones(s), 2)
    ia, ib = s.zones[za].index(a), s.zones[zb].index(b)
    s.zones[za][ia], s.zones[zb][ib] = b, a
    s.card_zone[a], s.card_zone[b] = zb, za


def _move_and_misplace(s: GameState, rng: random.Random) -> None:
    """A legal move, then a card of an untouched zone names the destination as its place."""
    _legal_move(s, rng)
    _place_only(s, rng)


def _out_of_bounds(s: GameState, rng: random.Random) -> None:
    if not s.tables.bounded_groups:
        return _duplicate(s, rng)
    (lo, hi), slots, _ = rng.choice(s.tables.bounded_groups)
    i = rng.choice(slots)
    s.counters[i] = hi + 1 if hi is not None and (lo is None or rng.random() < 0.5) else lo - 1


def _within_bounds(s: GameState, rng: random.Random) -> None:
    if not s.tables.bounded_groups:
        return _swap_cards(s, rng)
    (lo, hi), slots, _ = rng.choice(s.tables.bounded_groups)
    s.counters[rng.choice(slots)] = lo if lo is not None else hi


def _pool_leak(s: GameState, rng: random.Random) -> None:
    if not s.tables.pool_slots:
        return _out_of_bounds(s, rng)
    slots = rng.choice(list(s.tables.pool_slots.values()))
    s.counters[rng.choice(slots)] += 1


def _pool_shift(s: GameState, rng: random.Random) -> None:
    """Tokens move between two slots of one pool: the total holds (bounds may not)."""
    pools = [v for v in s.tables.pool_slots.values() if len(v) > 1]
    if not pools:
        return _within_bounds(s, rng)
    a, b = rng.sample(rng.choice(pools), 2)
    s.counters[a] += 1
    s.counters[b] -= 1


def _none_value(s: GameState, rng: random.Random) -> None:
    """A slot that cannot be compared at all: both checks must fail the same way."""
    if not s.tables.bounded_groups:
        return _drop(s, rng)
    (_, _), slots, _ = rng.choice(s.tables.bounded_groups)
    s.counters[rng.choice(slots)] = None


def _nothing(s: GameState, rng: random.Random) -> None:
    pass


BREAKS: list[Callable[[GameState, random.Random], None]] = [
    _legal_move, _list_only, _place_only, _duplicate, _drop, _swap_places, _swap_cards, _move_and_misplace,
    _out_of_bounds, _within_bounds, _pool_leak, _pool_shift, _none_value, _nothing,
]


def _report(game: Game) -> object:
    try:
        return game.violations()
    except Exception as err:
        return type(err)


# Each compared break runs the full check once; on Slay the Spire's state that is ~2 ms, and 4 games of 40
# decisions x 14 breaks x 2 cost 8 s of CPU. The test command plays 2 games of each large ruleset (over 2,000
# comparisons for Slay the Spire), HYPOTHESIS_PROFILE=thorough all 4 (conftest.sized).
def _seeds(path: Path) -> range:
    return range(sized(ci=2, thorough=4) if path.name in LARGE else 4)


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: Path(p).stem)
def test_incremental_check_reports_what_the_full_check_reports(path: Path) -> None:
    rules = load_ruleset(str(path))
    rules._build(rules.min_players)[0].incremental_checks = True  # small rulesets check in full otherwise
    rng = random.Random(path.stem)
    compared = 0
    for seed in _seeds(path):
        game = rules.new_game(rules.min_players, seed, check_invariants=True)
        assert game._certified is not None, "a checked game starts certified from its template"
        decisions = 0
        while not game.finished and decisions < 40:
            for p in game.waiting_for():
                game.apply(rng.randrange(game.option_count(p)), p)
                decisions += 1
            if game.finished or game._certified is None:
                break
            for brk in BREAKS:
                for _ in range(2):
                    broken = game.clone()
                    broken._certified = game._certified.copy()
                    for _ in range(rng.randrange(1, 3)):
                        brk(broken.state, rng)
                    reference = broken.clone()
                    assert reference._certified is None
                    assert _report(broken) == _report(reference), (path.stem, seed, brk.__name__)
                    compared += 1
    assert compared > 100


def test_snapshot_finds_every_difference() -> None:
    rng = random.Random(3)
    for n in (0, 1, 15, 16, 17, 255, 256, 257, 1000, 9819):
        before = [rng.randrange(4) for _ in range(n)]
        for k in (0, 1, 5, 40):
            now = before[:]
            picks = sorted(rng.sample(range(n), min(k, n)))
            for i in picks:
                now[i] += 1
            snap = invariants.Snapshot.of(before)
            assert snap.changed(now) == picks
            for i in picks:
                snap[i] = now[i]
            assert snap.changed(now) == [] and [snap[i] for i in range(n)] == now
    assert invariants.Snapshot.of([1]).changed([1, 2]) is None


def test_a_checked_game_runs_incrementally_and_keeps_its_digest() -> None:
    """Checked and unchecked games play alike; the certificate follows the game to its end."""
    rules = load_ruleset(str(ROOT / "rulesets" / "slay_the_spire.rules"))
    for seed in range(3):
        digests = []
        for check in (False, True):
            game = rules.new_game(1, seed, check_invariants=check)
            game.random_playout(random.Random(seed))
            digests.append((game.digest(), game.error))
            if check:
                assert game._certified is not None or game.error is not None
        assert digests[0] == digests[1]


@pytest.fixture
def full_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that gains an item at each full invariant check (``invariants.full``) while the test runs."""
    calls: list[int] = []
    real = invariants.full

    def counting(s: GameState) -> tuple[invariants.Violations, bool]:
        calls.append(1)
        return real(s)

    monkeypatch.setattr(invariants, "full", counting)
    return calls


def test_checked_decisions_do_not_run_the_full_check(full_checks: list[int]) -> None:
    """After the one full check of the template, every check of a healthy game is incremental."""
    calls = full_checks
    rules = load_ruleset(str(ROOT / "rulesets" / "bloodborne.rules"))
    rules._build(4)[0].incremental_checks = True
    for seed in range(3):
        game = rules.new_game(4, seed, check_invariants=True)
        game.random_playout(random.Random(seed))
        assert game.state.status == "finished" and len(game.state.decisions) > 10
    # the template's one full check, or none when an earlier test in this worker built the shared template
    assert len(calls) <= 1


def test_only_large_states_are_checked_incrementally() -> None:
    """Both ways are exact; the incremental one is used where it is the faster (many cards or counters)."""
    big = load_ruleset(str(ROOT / "rulesets" / "slay_the_spire.rules"))
    small = load_ruleset(str(ROOT / "rulesets" / "classic" / "kuhn_poker.rules"))
    assert big.new_game(1, 0, check_invariants=True)._certified is not None
    assert small.new_game(2, 0, check_invariants=True)._certified is None
    assert big.new_game(1, 0)._certified is None  # unchecked games pay nothing


def test_the_certificates_of_one_ruleset_share_their_per_slot_checks() -> None:
    """What each counter slot is checked against is worked out once per player count's tables, not at every
    certificate taken in full: Slay the Spire takes hundreds a run over thousands of slots (session 21 found that
    rebuilding it doubled a checked run's CPU)."""
    big = load_ruleset(str(ROOT / "rulesets" / "slay_the_spire.rules"))
    first, second = big.new_game(1, 0, check_invariants=True), big.new_game(1, 1, check_invariants=True)
    assert first._certified is not None and second._certified is not None
    assert first._certified.checks is second._certified.checks
    assert first._certified.checks is invariants.Certified.take(first.state).checks
    assert len(first._certified.checks) == len(first.state.counters)


@pytest.mark.parametrize("bad", [-1, "past the end", True, "x", [0]],
                         ids=["minus_one", "past_end", "true", "str", "list"])
def test_a_zone_listing_no_card_id_is_a_named_violation_on_both_paths(bad: object) -> None:
    """Issue 29: a zone listing -1 in place of the last card passed the full check (-1 is distinct in the set
    and `card_zone[-1]` is the last card's place); `True` in place of card 1 passed both checks (it indexes card
    1's place); a card past the end raised IndexError. Each is now the placement violation, naming the zone and
    the position, whether the game checks in full or from its certificate (after a legal move of card 0, so the
    corrupted zone is one the certificate must look at)."""
    rules = load_ruleset(str(ROOT / "benchmarks" / "constructs" / "card_moves.rules"))
    rules._build(1)[0].incremental_checks = True  # a small ruleset checks in full otherwise
    for certified in (False, True):
        game = rules.new_game(1, 1, check_invariants=True)
        assert game._certified is not None
        s = game.state
        src = s.card_zone[0]
        dst = (src + 1) % len(s.zones)
        s.zones[src].remove(0)
        s.zones[dst].append(0)
        s.card_zone[0] = dst
        card = 1 if bad is True else len(s.card_zone) - 1
        value = len(s.card_zone) if bad == "past the end" else bad
        zone = s.zones[s.card_zone[card]]
        at = zone.index(card)
        zone[at] = value
        if not certified:
            game._certified = None  # the full check
        report = game.violations()
        assert len(report) == 1 and report[0][0] == "every card in exactly one zone", (certified, report)
        assert f"position {at + 1}, which is no card" in report[0][1], report
        assert report == invariants.full(s)[0]


FAR = '''\
game "Far" { players 2..2
  step_limit 100000 }
card Tok { v: int }
cards "tok.yaml"
zone bag: deck hidden of Tok
zone shelf: row public of Tok
pool gold {
  bank: 3000000000
  per player purse
}
round {
  step s "S" {
    for i in range(0, 6) {
      choose k from range(0, 3) by first {
        if k == 0 { transfer 2000000000 from bank to first.purse }
        if k == 1 { transfer all from first.purse to bank }
        if k == 2 { move top(bag) to shelf }
      }
    }
    end game
  }
}
score(p) = p.purse
'''


def test_a_value_past_the_certificates_missing_bound_is_decided_by_the_full_check(
        write_ruleset: Callable[..., str], full_checks: list[int]) -> None:
    """A slot with no upper bound (a pool's) is checked against an int stand-in (``invariants._FAR``, which keeps
    the comparison on Python's int fast path), not an infinity: a value past it is only "not proven", so the full
    check decides, and reports nothing for a legal state. Here a pool of three billion moves two billion at once."""
    calls = full_checks
    rules = load_ruleset(write_ruleset(FAR, {"tok.yaml": "kind: Tok\nstart: bag\ncards:\n  - name: Tok\n"
                                                       "    count: 14\n    v: 1\n"}))
    rules._build(2)[0].incremental_checks = True  # small rulesets check in full otherwise
    assert invariants._FAR < 2_000_000_000
    for seed in range(3):
        checked, plain = rules.new_game(2, seed, check_invariants=True), rules.new_game(2, seed)
        checked.random_playout(random.Random(seed))
        plain.random_playout(random.Random(seed))
        assert checked.error is None and checked.state.status == "finished"
        assert checked.digest() == plain.digest()
    assert len(calls) > 3  # the far values were the full check's to decide
