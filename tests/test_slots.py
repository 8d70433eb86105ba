"""A seat's slot read from a table (interpreter/codegen/slots.py): ``_Ks5[p]`` for ``(base + p * stride)``.

Written only where the player is proven to be a seat (a loop over the seats, a value just tested for `none`);
a plain variable read with no proof keeps the arithmetic, so a `none` player fails with the same error in every
compile mode. Every case plays the same in every mode (digest, error, logs, result).
"""
from __future__ import annotations

from collections.abc import Callable

from liturgy.interpreter.engine import Ruleset
from mode_helpers import compiled, played_in_every_mode

RULES = '''game "Slots" { players 2..2
  step_limit 2000 }
counter per player pts 0..1000 = 0
counter per player bonus 0..1000 = 1
flag per player out
counter leader: player
counter total 0..100000
round {
  step s "S" {
    for p in players {
      choose k from range(3) by p {
        p.pts += k + p.bonus
        if k == 2 { p.out = true }
      }
    }
    total += sum(q.pts + q.bonus for q in players where not q.out)
    leader = [q for q in players where q.pts >= 2][0]
    log "{} leads with {}", leader, leader.pts
    FAIL
    if round >= 5 { end game }
  }
}
score(p) = p.pts
'''


def _rules(write_ruleset: Callable[..., str], fail: str, mode: dict[str, bool]) -> Ruleset:
    return compiled(write_ruleset(RULES.replace("FAIL", fail)), mode)


def _source(write_ruleset: Callable[..., str], fail: str) -> str:
    gen = _rules(write_ruleset, fail, {}).compiled.gen
    assert gen is not None
    return str(gen.sources.dump())


def test_seat_slots_come_from_tables_and_play_alike(write_ruleset: Callable[..., str]) -> None:
    """The seats' loops and the tested `leader` read their slots from tables; the games are the same in every
    mode, including the ones where no player has 2 points (the empty list's error)."""
    text = _source(write_ruleset, "")
    assert "_Ks" in text
    gen = _rules(write_ruleset, "", {}).compiled.gen
    assert gen is not None
    tables = {k: v for k, v in gen.ns.items() if k.startswith("_Ks") and isinstance(v, tuple)}
    assert tables and all(len(v) == 2 and v[1] - v[0] > 1 for v in tables.values())  # max_players, a stride
    for seed in range(6):
        seen = played_in_every_mode(lambda mode: _rules(write_ruleset, "", mode), seed)
        assert all(x == seen[0] for x in seen), seed


def test_a_none_player_fails_alike(write_ruleset: Callable[..., str]) -> None:
    """`none`'s counter: through a tested value ("no player", the table read after the test) and through a plain
    `let` (no test: Python's own error, the arithmetic kept), the same error in every mode."""
    for fail in ("leader = none\n    total += leader.pts", "let x = leader\n    leader = none\n    let y = leader\n"
                 "    total += x.pts + y.pts"):
        errors = set()
        for seed in range(3):
            seen = played_in_every_mode(lambda mode, fail=fail: _rules(write_ruleset, fail, mode), seed)
            assert all(x == seen[0] for x in seen), (fail, seed)
            errors.add(str(seen[0][1]))  # type: ignore[index]
        assert any("player" in e or "NoneType" in e for e in errors), errors
