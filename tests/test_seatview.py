"""What a seat's page is sent beside its view (engine/seatview.py, issue 32 items 1-4).

- Markers come from the seat's view only: a counter the view shows as `?` marks nothing.
- A per-player counter holding a card whose field names a place marks that place (Betrayal's explorers).
- Narration and new card texts are per table, seat and move: a second connection at the same move is told the
  same; a connection's first state describes every face-up card, later ones only the new ones.
- The board's picture: Fury of Dracula's graph is drawn (every place placed, named by its card), Betrayal's
  house graph is not (play builds it) but its floor plan is a board joined by the house's doors.
"""

from __future__ import annotations

from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.engine.seatview import markers, seat_extras, since_sent


def test_markers_come_from_the_view_and_cards_on_places() -> None:
    prog = load_ruleset("rulesets/betrayal.rules").program
    view = {"counters": {"at": {"P1": "Kitchen", "P2": "?", "P3": None}}}
    assert markers(prog, view)["plan"] == [["kitchen", "P1"]]


def test_a_seat_is_told_the_same_at_the_same_move_and_new_cards_only() -> None:
    rules = load_ruleset("rulesets/bloodborne.rules")
    game = rules.new_game(3, seed=1)
    first = seat_extras(game, "t-seatview", 0, game.view(0), True)
    assert first["narration"] == [] and "Hunter Axe" in first["cards"] and "maps" in first
    d = game.decision
    assert d is not None
    for p in d.players:
        game.apply(0, p)
    later = seat_extras(game, "t-seatview", 0, game.view(0), False)
    again = seat_extras(game, "t-seatview", 0, game.view(0), False)
    assert later["narration"] and later["narration"] == again["narration"]
    assert "Hunter Axe" not in later["cards"]  # already described to this seat
    lines, _ = since_sent(("t-seatview", 0), len(game.state.decisions), game.view(0), rules.program)
    assert lines == later["narration"]


def test_the_pictures_of_the_boards() -> None:
    fod = load_ruleset("rulesets/fury_of_dracula.rules")
    sent = seat_extras(fod.new_game(2, seed=1), "t-maps", 1, fod.new_game(2, seed=1).view(1), True)
    europe = sent["maps"]["europe"]
    assert len(europe["places"]) == 71 and europe["places"]["clermont_ferrand"][2] == "Clermont-Ferrand"
    assert all(0 <= x <= 1000 and 0 <= y <= 1000 for x, y, _ in europe["places"].values())
    assert ["bordeaux", "clermont_ferrand", "road"] in europe["edges"]
    bet = load_ruleset("rulesets/betrayal.rules")
    sent = seat_extras(bet.new_game(3, seed=1), "t-maps", 0, bet.new_game(3, seed=1).view(0), True)
    assert sent["maps"] == {} and sent["board_links"] == {"plan": "house"}
    assert sent["boards"]["plan"]["entrance_hall"] == "Entrance Hall"
