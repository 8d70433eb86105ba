"""`absent_while FLAG`: seats that sit out and join later (docs/language.md, "Seats that join later").

A seat whose flag is true is left out of `players` and `player_count` in every compile mode, `seats` still
lists it, a checked game refuses to ask it anything, its absence is in views, saves and the terminal's and web
page's words, and the checker refuses a flag of the wrong shape with E112 at the declaration.
"""
from __future__ import annotations

from collections.abc import Callable

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.agents.terminal import status_text
from liturgy.interpreter.engine import Game, Ruleset

MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]

LATE = '''game "Late" {
  players 1..4
  absent_while waiting
}
flag per player waiting
counter per player points
counter joined
setup {
  for p in seats where p != seats[0] { p.waiting = true }
}
round {
  step s "S" {
    for p in players {
      choose x from [1, 2] by p prompt "How many points?" { p.points += x }
    }
    log "{} of {} seats play; P1 is {}", player_count, size(seats), players[0]
    if round == 2 {
      for p in seats where p.waiting { p.waiting = false  joined += 1 }
    }
    if round >= 4 { end game }
  }
}
score(p) = p.points
'''


def _game(write_ruleset: Callable[..., str], text: str = LATE, mode: dict[str, bool] | None = None,
          players: int = 3) -> Game:
    program, diags = check_file(write_ruleset(text))
    assert program is not None, [str(d) for d in diags]
    return Ruleset(program, **(mode or {})).new_game(players, 1, check_invariants=True)


def _play(g: Game, pick: int = 0) -> list[tuple[int, ...]]:
    """Play to the end, each chooser taking option ``pick``; who was asked, decision by decision."""
    asked = []
    while not g.finished:
        d = g.decision
        assert d is not None, g.error
        asked.append(d.players)
        g.apply(pick, d.players[0])
    return asked


@pytest.mark.parametrize("mode", MODES, ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items()) or "default")
def test_absent_seats_are_left_out_of_players_until_they_join(write_ruleset: Callable[..., str],
                                                              mode: dict[str, bool]) -> None:
    g = _game(write_ruleset, mode=mode)
    assert g.view(0)["absent"] == ["P2", "P3"]
    asked = _play(g, pick=1)
    # rounds 1 and 2: P1 alone; P2 and P3 join at the end of round 2, then all three choose in rounds 3 and 4
    assert asked == [(0,), (0,), (0,), (1,), (2,), (0,), (1,), (2,)]
    assert g.error is None
    lines = g.log_lines(None)
    assert lines[:4] == ["1 of 3 seats play; P1 is P1"] * 2 + ["3 of 3 seats play; P1 is P1"] * 2
    assert g.result is not None and g.result["scores"] == [8, 4, 4]
    assert g.view(0)["absent"] == []


def test_a_game_without_absent_while_keeps_its_view_and_digest(write_ruleset: Callable[..., str]) -> None:
    plain = LATE.replace("  absent_while waiting\n", "")
    g = _game(write_ruleset, plain)
    assert "absent" not in g.view(0)
    assert _play(g)[:3] == [(0,), (1,), (2,)]  # `waiting` is an ordinary flag: everyone plays


def test_a_save_keeps_who_is_absent_and_replays_the_same(write_ruleset: Callable[..., str]) -> None:
    g = _game(write_ruleset)
    g.apply(0, 0)
    saved = g.to_json()
    loaded = g.ruleset.load_game(saved, check_invariants=True)
    assert loaded.view(0)["absent"] == ["P2", "P3"] and loaded.digest() == g.digest()
    _play(g)
    _play(loaded)
    assert loaded.digest() == g.digest() and loaded.log_lines(None) == g.log_lines(None)


def test_a_decision_asked_of_an_absent_seat_stops_a_checked_game(write_ruleset: Callable[..., str]) -> None:
    bad = LATE.replace("for p in players {\n      choose", "for p in seats {\n      choose")
    g = _game(write_ruleset, bad)
    g.apply(0, 0)  # P1 plays; then P2, absent, is asked
    assert g.state.status == "aborted"
    assert "no decision is asked of an absent seat" in (g.error or "") and "P2 is asked" in (g.error or "")


def test_player_count_read_by_an_invariant_is_evaluated_again_when_a_seat_joins(
        write_ruleset: Callable[..., str]) -> None:
    text = LATE + 'invariant "at most two play at once": player_count <= 2\n'
    g = _game(write_ruleset, text)
    _play(g)
    assert g.state.status == "aborted" and "at most two play at once" in (g.error or "")


def test_the_terminal_and_the_web_page_name_the_absent_seats(write_ruleset: Callable[..., str]) -> None:
    from liturgy.interpreter.web.tables import Table, render

    g = _game(write_ruleset)
    assert "Not playing yet: P2, P3" in status_text(g, 0)
    table = Table("t", "late", g, ["human", "random", "random"], ["", "", ""], "", 0.0)
    sent = render(table, 0, {0})
    assert [s.get("absent", False) for s in sent["seats"]] == [False, True, True]


@pytest.mark.parametrize(("flag", "message"), [
    ("", "no `flag per player waiting` is declared"),
    ("flag waiting", "`waiting` is a global counter"),
    ("counter per player waiting", "`waiting` is a counter, not a flag"),
    ("flag per player waiting hidden", "`waiting` is hidden from some players"),
    ("flag per card waiting", "`waiting` is a counter per card"),
])
def test_the_checker_refuses_a_flag_of_the_wrong_shape(write_ruleset: Callable[..., str], flag: str,
                                                       message: str) -> None:
    text = f'''game "Late" {{
  players 1..4
  absent_while waiting
}}
{flag}
round {{ step s "S" {{ end game }} }}
score(p) = 0
'''
    program, diags = check_file(write_ruleset(text))
    errors = [d for d in diags if d.code == "E112"]
    assert program is None or errors
    assert len(errors) == 1 and message in errors[0].message, [str(d) for d in diags]
    assert (errors[0].span.line, errors[0].span.column) == (3, 3)
