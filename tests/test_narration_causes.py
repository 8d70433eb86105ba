"""Narration names its cause (issue 32): each change a player is told is said under the log line they saw before
it ("P2 rolls the red die: 3 damage" → "You lose 4 health"), never under a line only another seat sees.

- engine/causes.py snapshots a watching player's view before each log entry that player may see; the changes
  between two snapshots follow the first entry's line;
- a line logged only to another seat neither splits the timeline nor is named (its effects are said under the
  last line the player saw);
- the seat that sees the private line has its changes split there;
- the fuzz's noninterference probe compares the timeline (tools/noninterference.py `_observe`);
- games nobody narrates keep the plain log (bench and simulate pay nothing).
"""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Game, causes, load_ruleset
from liturgy.interpreter.engine.causes import (
    TIMELINE_LINES,
    Caused,
    WatchedLog,
    _bounded,
    caused_lines,
    narrate_caused,
    watch,
)
from liturgy.interpreter.engine.seatview import seat_extras
from liturgy.interpreter.tools import noninterference as ni

RULES = '''game "Hits" { players 2..2 }
counter per player health 0..20
setup { for p in players { p.health = 10 } }
round {
  step hit "Hit" {
    for p in players {
      choose k from ["hit", "rest"] by p {
        if k == "hit" {
          log "{} rolls the red die: 3 damage", p
          for q in players where q != p { q.health -= 3 }
          log to p "{} poisons the blade in secret", p
          for q in players where q != p { q.health -= 1 }
        }
      }
    }
    if round >= 2 { end game }
  }
}
score(p) = p.health
'''


@pytest.fixture
def hits(tmp_path: Path) -> Game:
    path = tmp_path / "hits.rules"
    path.write_text(RULES, encoding="utf-8")
    return load_ruleset(str(path)).new_game(2, seed=1)


def test_a_change_is_said_under_the_line_before_it_and_a_hidden_line_is_never_named(hits: Game) -> None:
    game = hits
    before = {p: narrate_caused(game, p, None)[1] for p in (0, 1)}
    for p in (0, 1):
        watch(game, p)
    game.apply(0, 0)  # P1 hits: 3, then 1 more after a line only P1 sees
    game.apply(0, 1)  # P2 hits the same way
    p1, _ = narrate_caused(game, 0, before[0])
    p2, _ = narrate_caused(game, 1, before[1])
    # P1 sees its own secret line: P2's two losses are split there
    assert p1 == [(None, []), ("P1 rolls the red die: 3 damage", ["P2 loses 3 health (now 7)"]),
                  ("P1 poisons the blade in secret", ["P2 loses 1 health (now 6)"]),
                  ("P2 rolls the red die: 3 damage", ["You lose 4 health (now 6)"])]
    # P2 never sees P1's secret line: nothing splits at it and it is named nowhere, in any form
    assert p2 == [(None, []), ("P1 rolls the red die: 3 damage", ["You lose 4 health (now 6)"]),
                  ("P2 rolls the red die: 3 damage", ["P1 loses 3 health (now 7)"]),
                  ("P2 poisons the blade in secret", ["P1 loses 1 health (now 6)"])]
    told = "\n".join(caused_lines(p2))
    assert "P1 poisons" not in told and "After “P1 rolls the red die: 3 damage”:\n  You lose 4 health (now 6)" in told


def test_without_watching_it_is_plain_narration_and_the_log_stays_a_list(hits: Game) -> None:
    game = hits
    before = game.view(1, log_from=0)
    game.apply(0, 0)
    game.apply(0, 1)
    assert type(game.state.log) is list  # nobody narrates: the executors append to the plain list
    parts, _ = narrate_caused(game, 1, before)
    assert parts == [(None, ["P1 loses 4 health (now 6)", "You lose 4 health (now 6)"])]


def test_a_watched_log_is_a_plain_list_in_a_clone_and_in_the_digest(hits: Game) -> None:
    plain = hits.clone()
    watch(hits, 0)
    assert isinstance(hits.state.log, WatchedLog)
    for g in (hits, plain):
        g.apply(0, 0)
        g.apply(0, 1)
    assert type(hits.clone().state.log) is list  # a bot's copy never snapshots
    assert hits.digest() == plain.digest() and hits.to_json() == plain.to_json()


def test_a_long_timeline_is_cut_with_a_count() -> None:
    parts: list[Caused] = [(None, ["a"] * 5), ("line 1", []), ("line 2", ["b"] * 30)]
    cut = _bounded(parts)
    lines = [line for _, ls in cut for line in ls]
    assert len(lines) == TIMELINE_LINES and lines[-1] == f"… and {35 - TIMELINE_LINES + 1} more changes"
    assert [c for c, _ in cut] == [None, "line 1", "line 2"]  # the causes kept: the terminal matches them to lines


def test_the_noninterference_probe_compares_the_timeline(hits: Game) -> None:
    """The probe's observation of P2 holds the timeline, cause and all, and the game passes the probe."""
    real, world = hits.clone(), hits.clone()
    first = ni._observe(real, 1, None, 0)
    assert first[5] == ()
    for g in (real, world):
        g.apply(0, 0)
        g.apply(0, 1)
    seen = ni._observe(real, 1, first[-1], 0)
    assert "After “P1 rolls the red die: 3 damage”:" in seen[5] and "  You lose 4 health (now 6)" in seen[5]
    assert not any("P1 poisons" in line for line in seen[5])  # P1's secret line is not P2's to read


def test_a_fury_of_dracula_event_is_narrated_after_its_line() -> None:
    """Hunters (P2) play Mystic Research: Dracula's events it shows are said under the line that played it.
    Seeded choices (random.Random(1)) make the same game every run: the 72nd decision plays it."""
    game = load_ruleset("rulesets/fury_of_dracula.rules").new_game(2, seed=1)
    rng = random.Random(1)
    before = narrate_caused(game, 1, None)[1]
    watch(game, 1)
    found: list[Caused] = []
    for _ in range(100):
        d = game.decision
        assert d is not None
        for p in d.players:
            if game.decision is not None and p in game.decision.players:
                game.apply(rng.randrange(len(game.decision.options[p])), p)
        parts, before = narrate_caused(game, 1, before)
        watch(game, 1)
        found += [part for part in parts if part[0] == "Prof. Abraham Van Helsing plays Mystic Research"]
        if found:
            break
    assert found == [("Prof. Abraham Van Helsing plays Mystic Research",
                      ["False Tip-off, Seduction come into P1's devents", "Face-down cards: P1's devents 2 → 0"])]


def test_the_web_seat_is_told_each_change_after_its_line(hits: Game) -> None:
    """The page's narration (engine/seatview.py) is the same timeline, as lines: causes quoted, hidden ones not."""
    game = hits
    assert seat_extras(game, "t-causes", 1, game.view(1), True)["narration"] == []
    game.apply(0, 0)
    game.apply(0, 1)
    told = seat_extras(game, "t-causes", 1, game.view(1), False)["narration"]
    assert told[:2] == ["After “P1 rolls the red die: 3 damage”:", "  You lose 4 health (now 6)"]
    assert not any("P1 poisons" in line for line in told)


DRAWS = '''game "Draws" { players 2..2 }
card Tile { rank: int }
cards "tiles.yaml"
zone bag: deck hidden of Tile
zone hand: per player set owner of Tile
counter per player points 0..100
round {
  step draw "Draw" {
    for p in players {
      choose k from ["draw", "pass"] by p {
        if k == "draw" {
          let c = top(bag)
          move c to p.hand
          log to p "you draw {}", c
          p.points += 1
          log "{} scores", p
        }
      }
    }
    if round >= 3 { end game }
  }
}
score(p) = p.points
'''


def test_the_probe_catches_a_narration_that_names_a_hidden_line(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A broken cause that quotes a line only another seat sees ("you draw T3") differs between two worlds whose
    hidden bag differs: the probe says so. The working one is clean in the same worlds."""
    (tmp_path / "tiles.yaml").write_text("kind: Tile\nstart: bag\ncards:\n" + "".join(
        f"  - {{name: T{i}, rank: {i}}}\n" for i in range(12)), encoding="utf-8")
    (tmp_path / "draws.rules").write_text(DRAWS, encoding="utf-8")
    game = load_ruleset(str(tmp_path / "draws.rules")).new_game(2, seed=1)
    bag = game.state.zones[game.ruleset.compiled.layout.zone_global["bag"]]
    swap = ni.Swap(0, bag[-1], bag[-2])  # P1 draws from the top first: P2 draws the next, hidden from P1
    assert not ni._sees(game, 0, swap.first) and not ni._sees(game, 0, swap.second)

    def probe() -> list[str]:
        found = [ni.check_swap(game, ni.Swap(0, bag[i], bag[j]), random.Random(seed))
                 for i in range(-3, 0) for j in range(-3, 0) if i < j for seed in range(4)]
        return [f for f in found if f]

    assert probe() == []

    def every_entry(self: WatchedLog, entry: tuple[object, ...], /) -> None:  # broken: a copy at every line
        self.snaps.append((len(self), causes._copy(self.game.state)))
        list.append(self, entry)

    def every_line(game: Game, log: WatchedLog, player: int | None, before: object,
                   now: object) -> list[tuple[int, dict[str, object]]]:
        shell = copy.copy(game)  # broken: splits at every line, visible or not, and quotes it as P2 reads it
        out = []
        for index, state in log.snaps[log.since[player]:]:
            shell.state = state
            out.append((index, shell.view(player)))
        return out

    monkeypatch.setattr(WatchedLog, "append", every_entry)
    monkeypatch.setattr(causes, "_seen", every_line)
    monkeypatch.setattr(Game, "log_line", lambda self, i, viewer: self._render(self.state.log[i], 1))
    assert any("narration" in f for f in probe())


def test_a_ruleset_can_turn_the_causes_off(tmp_path: Path) -> None:
    """`describe narration { causes = "off" }`: the changes are said as one plain narration, not split at the log
    lines, and no state copies are kept (the log stays a plain list); any other setting is a located error."""
    path = tmp_path / "quiet.rules"
    path.write_text(RULES + 'describe narration { causes = "off" }\n', encoding="utf-8")
    game = load_ruleset(str(path)).new_game(2, seed=1)
    assert not game.ruleset.program.narration_causes
    before = narrate_caused(game, 1, None)[1]
    watch(game, 1)
    game.apply(0, 0)
    game.apply(0, 1)
    assert type(game.state.log) is list
    parts, _ = narrate_caused(game, 1, before)
    assert parts == [(None, ["P1 loses 4 health (now 6)", "You lose 4 health (now 6)"])]
    on = tmp_path / "on.rules"
    on.write_text(RULES + 'describe narration { causes = "on" }\n', encoding="utf-8")
    assert load_ruleset(str(on)).program.narration_causes
    for bad, said in (('causes = "maybe"', "not 'maybe'"), ('quiet = "on"', "`quiet` is not a narration setting")):
        wrong = tmp_path / "wrong.rules"
        wrong.write_text(RULES + f"describe narration {{ {bad} }}\n", encoding="utf-8")
        _, diags = check_file(str(wrong))
        errors = [d for d in diags if d.is_error]
        assert errors and errors[0].code == "E101" and said in errors[0].message
        assert errors[0].span.line == RULES.count("\n") + 1  # the line of the setting
