"""The certificate's check written for a ruleset's tables (interpreter/runtime/certgen.py) answers as the generic one.

At every check of a small ruleset's checked games (two pools, bounded and unbounded counters, a capped zone, a
final zone, a shuffle, invariants reading counters, zones and zones through a per-card test), the written check
runs on the game's certificate and ``Certified.holds`` on a twin of it with the same record: the same answer, and
when it holds the same ``bits``, ``out`` and brought-up-to-date copies. Some games get corruptions planted through
the noting functions (a counter pushed out of its bounds or a pool, cards moved into a capped zone, a card listed
twice), so the "not proven" paths are compared too.
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.runtime import certgen, invariants
from liturgy.interpreter.runtime.errors import InvariantViolation
from liturgy.interpreter.runtime.state import GameState, note_card, note_slot, note_zone

CERT = '''\
game "Cert" { players 2..3
  step_limit 100000 }
card Tok { v: int }
cards "tok.yaml"
zone bag: deck hidden of Tok
zone pile: pile public final of Tok
zone shelf: row public of Tok capacity 5
zone hand: per player set owner of Tok
pool gems {
  bank: 30
  per player purse
}
pool coins {
  chest: 20
  per player stash
}
counter per player score 0..1000
counter per card heat 0..3
counter round_no
counter holder: player
invariant "gems": bank + sum(p.purse for p in players) == 30
invariant "score": all(p.score >= 0 for p in players)
invariant "specials on the shelf": count(c for c in shelf where c.v == 2) <= 12
invariant "hands": all(size(p.hand) <= 30 for p in players)
invariant "holder": holder == none or holder in players
setup {
  repeat while size(shelf) < 2 { move top(bag) to shelf }
}
round {
  step s "S" {
    for i in range(0, 40) {
      choose k from range(0, 9) by first {
        if k == 0 { transfer 1 from bank to first.purse }
        if k == 1 { first.score += 1 }
        if k == 2 { if size(shelf) > 0 { if top(shelf).heat < 3 { top(shelf).heat += 1 } } }
        if k == 3 { if size(bag) > 0 { move top(bag) to pile } }
        if k == 4 { transfer 1 from chest to first.stash }
        if k == 5 { shuffle bag }
        if k == 6 { if holder == none { holder = first } else { holder = none } }
        if k == 7 { if size(bag) > 0 { move top(bag) to first.hand } }
        if k == 8 { round_no += 1 }
      }
    }
    end game
  }
}
score(p) = p.score
'''

TOK = "kind: Tok\nstart: bag\ncards:\n" + "".join(
    f"  - name: T{i}\n    count: 1\n    v: {1 + i % 3}\n" for i in range(30))


def _twin(c: invariants.Certified) -> invariants.Certified:
    """A certificate with ``c``'s copies (its own lists) and masks: the generic check runs on it."""
    t = invariants.Certified(c.counters.copy(), c.zones, c.card_zone[:], c.int_pools, c.checks, len(c.deltas),
                             c.sizes[:])
    t.masks, t.lift, t.deltas = c.masks, c.lift, c.deltas[:]
    return t


def _plant(s: GameState, rng: random.Random) -> None:
    """A corruption written the way a faulty rule writes it, through the noting functions."""
    kind = rng.randrange(4)
    if kind == 0:  # a counter slot moved by a little or a lot (out of its bounds or its pool, or not)
        i = rng.randrange(len(s.counters))
        if type(s.counters[i]) is int:
            s.counters[i] += rng.choice((-1, 1, 2, -50, 5000))
            note_slot(s, i)
    elif kind == 1:  # cards moved into another zone (the shelf is capped), places updated
        dst = rng.randrange(len(s.zones))
        for _ in range(rng.randint(1, 8)):
            c = rng.randrange(len(s.card_zone))
            if s.card_zone[c] != dst:
                s.zones[s.card_zone[c]].remove(c)
                s.zones[dst].append(c)
                s.card_zone[c] = dst
                note_card(s, c)
    elif kind == 2:  # a card listed twice in a zone noted as a zone
        zi = rng.randrange(len(s.zones))
        if s.zones[zi]:
            s.zones[zi].append(s.zones[zi][0])
            note_zone(s, zi)
    else:  # a pool slot given a value that is no int
        i = rng.randrange(len(s.counters))
        if i in s.tables.pool_of_slot:
            s.counters[i] = float(s.counters[i])
            note_slot(s, i)


def test_the_written_check_answers_as_the_generic_one(write_ruleset: Callable[..., str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    rules = load_ruleset(write_ruleset(CERT, {"tok.yaml": TOK}))
    seen: Counter[Any] = Counter()
    install = certgen.install

    def comparing(cert: invariants.Certified, masks: invariants.Masks, lift: int, t: Any) -> invariants.Masks:
        out = install(cert, masks, lift, t)
        written = cert.test
        assert written is not invariants.Certified.holds  # these tables are written for

        def both(c: invariants.Certified, s: GameState) -> bool:
            twin = _twin(c)
            wrote, moved = s.wrote, s.moved
            kept = (None if wrote is None else wrote[:], None if moved is None else moved[:])
            want = invariants.Certified.holds(twin, s)
            if wrote is not None and kept[0] is not None:
                wrote[:] = kept[0]
            if moved is not None and kept[1] is not None:
                moved[:] = kept[1]
            got = written(c, s)
            assert got == want
            if got:
                assert (c.bits, c.out, c.counters.blocks, c.sizes, c.card_zone) == (
                    twin.bits, twin.out, twin.counters.blocks, twin.sizes, twin.card_zone)
            seen[got] += 1
            return got

        cert.test = both
        return out

    monkeypatch.setattr(certgen, "install", comparing)
    for players in (2, 3):
        assert rules._build(players)[0].incremental_checks
        for seed in range(6):
            game = rules.new_game(players, seed, check_invariants=True)
            rng = random.Random(seed)
            try:
                for _step in range(60):
                    if game.state.status != "running":
                        break
                    if seed % 2 and rng.random() < 0.3:
                        _plant(game.state, rng)
                    for p in game.waiting_for():
                        game.apply(rng.randrange(game.option_count(p)), p)
            except InvariantViolation:
                pass  # a planted corruption caught: the checks up to it were compared
    assert seen[True] > 100 and seen[False] > 3, seen


def test_the_written_check_names_what_the_tables_fix(write_ruleset: Callable[..., str]) -> None:
    """The text carries the tables' constants (bounds, capacity, final zones) and no per-pool list for one pool."""
    rules = load_ruleset(write_ruleset(CERT, {"tok.yaml": TOK}))
    game = rules.new_game(2, 0, check_invariants=True)
    game.violations()
    t = game.state.tables
    masks, lift, fn = t.cert_test
    assert fn is not None
    got = certgen.source(t, masks, lift)
    assert got is not None
    text = got[0]
    assert "if not 0 <= v <= 3:" in text  # a card's heat
    assert "deltas[1] += v - was" in text  # the second pool
    assert "len(zones[" in text and "_capacity(s, out)" in text


def _corrupt(s: GameState, kind: int) -> None:
    """A change the record does not describe, or a record naming what is not there (test below)."""
    zones = s.zones
    full = [zi for zi, z in enumerate(zones) if z]
    if kind == 0:  # a card listed again in another zone, with no note: a size differs
        c = zones[full[0]][-1]
        zones[(full[0] + 1) % len(zones)].append(c)
    elif kind == 1:  # a card dropped from its zone's list, with no note
        zones[full[-1]].pop()
    elif kind == 2:  # a noted slot past the counters
        s.wrote.append(len(s.counters) + 3)
    elif kind == 3:  # a noted zone past the zones, near and far (a negative note reads the class list's end)
        s.wrote.append(~(len(zones) + 2))
    elif kind == 4:
        s.wrote.append(~(3 * len(s.counters) + len(zones)))
    elif kind == 5:  # a noted zone whose note falls in the class list's slot part
        s.wrote.append(~(len(s.counters) + len(zones)))
    elif kind == 6:  # one zone more than the tables have
        zones.append([])
    elif kind == 7:  # a zone reordered and noted as a zone: holds
        zones[full[0]].reverse()
        note_zone(s, full[0])


def test_unnoted_changes_and_bad_notes_answer_as_the_generic_check(write_ruleset: Callable[..., str]) -> None:
    """The written zone sizes (the zones unpacked into locals, :func:`certgen._sizes`) and the record's loop that
    reads a note's class first (a zone's note found at the class list's end) answer as ``Certified.holds`` for
    unnoted changes of a zone's size, a zone count the tables do not have, and notes of slots and zones that do not
    exist; a zone noted as a zone still holds. Each corruption is planted in a fresh game after a few decisions."""
    rules = load_ruleset(write_ruleset(CERT, {"tok.yaml": TOK}))
    answers: list[tuple[int, bool]] = []
    for kind in range(8):
        game = rules.new_game(2, kind, check_invariants=True)
        rng = random.Random(kind)
        for _ in range(3):
            for p in game.waiting_for():
                game.apply(rng.randrange(game.option_count(p)), p)
        cert, s = game._certified, game.state
        assert cert is not None and cert.test is not invariants.Certified.holds and s.wrote is not None
        assert s.moved is not None
        _corrupt(s, kind)
        twin = _twin(cert)
        kept = s.wrote[:], s.moved[:]
        want = invariants.Certified.holds(twin, s)
        s.wrote[:], s.moved[:] = kept
        got = cert.test(cert, s)
        assert got == want, kind
        answers.append((kind, got))
    assert answers == [(k, k == 7) for k in range(8)]
    text = certgen.source(game.state.tables, *game.state.tables.cert_test[:2])
    assert text is not None and "= zones\n" in text[0] and "if not k:" in text[0]
