"""Betrayal's "turn the … how (quarter turns)?" shows each turn as a picture of the doors it leaves open (issue 32,
item 4): at the terminal a box-drawing tile and the compass sides in each option's label, on the page the same
detail drawn as a small tile (table.js `tileSvg`). Each door names the room it meets ("east to the Entrance
Hall", "south (the Foyer's wall)" when that room has no door back), read from the cell the tile is being turned on
(the ruleset's `turning` grid). Written in the ruleset (`describe int`), not in Python."""

from __future__ import annotations

import random
import re

from liturgy.interpreter.agents.terminal import HumanAgent
from liturgy.interpreter.engine import Game, load_ruleset

GLYPHS = "╹╺╻╸┃━┗┏┓┛┣┳┫┻╋"
SIDES = ("north", "east", "south", "west")


def _to_turn_question() -> tuple[Game, int]:
    """Seed 3's random game reaches a turn question whose options differ (a Library, doors on two sides)."""
    rules = load_ruleset("rulesets/betrayal.rules")
    g = rules.new_game(3, seed=3)
    pick = random.Random(3)
    for _ in range(3000):
        d = g.decision
        assert d is not None
        p = d.players[0]
        if "turn the" in (d.prompts.get(p) or ""):
            return g, p
        g.apply(pick.randrange(len(d.options[p])), p)
    raise AssertionError("no turn question")


def test_each_turn_shows_its_doors() -> None:
    g, p = _to_turn_question()
    d = g.decision
    assert d is not None
    details = g.option_details(p)
    assert len(details) == len(d.options[p]) >= 2
    pictures = []
    for turns, detail in zip(d.options[p], details, strict=True):
        assert detail is not None
        number, glyph, rest = detail.split(" ", 2)
        assert number == turns and glyph in GLYPHS and rest.startswith("doors ")
        doors = rest.removeprefix("doors ").split(", ")
        assert doors and {door.split(" ")[0] for door in doors} <= set(SIDES)
        pictures.append(glyph)
    assert len(set(pictures)) == len(pictures)  # turns that leave other doors open look different


def test_the_terminal_menu_shows_the_pictures() -> None:
    import io

    g, p = _to_turn_question()
    out = io.StringIO()
    HumanAgent(stdin=io.StringIO("1\n"), stdout=out).choose(g, p)
    menu = [line for line in out.getvalue().splitlines() if re.match(r"  \[\d+\] ", line)]
    assert menu and all(any(c in line for c in GLYPHS) and " doors " in line for line in menu), menu


def test_each_door_names_the_room_it_meets() -> None:
    """Every door of every turn names what lies beyond it on the plan: nothing (an empty or off-floor cell: the side
    alone), or the room there, "to the …" or "(the …'s wall)"; at least one door meets a room (the tile is laid
    against the room the explorer came from)."""
    g, p = _to_turn_question()
    grids = g.view(p)["grids"]
    floor1, col, row = grids["turning"][0]
    assert floor1 > 0, "the turning grid names the cell being turned on"
    plan = grids["plan"]  # north row first: plan row f * 9 + r is list index 26 - (f * 9 + r)
    named = 0
    for detail in g.option_details(p):
        assert detail is not None
        for door in detail.split(" ", 2)[2].removeprefix("doors ").split(", "):
            k = SIDES.index(door.split(" ")[0])
            c, r = col + (0, 1, 0, -1)[k], row + (1, 0, -1, 0)[k]
            beyond = plan[26 - ((floor1 - 1) * 9 + r)][c] if 0 <= c < 9 and 0 <= r < 9 else None
            if beyond is None:
                assert door == SIDES[k], detail
                continue
            named += 1
            room = beyond.replace("_", " ")
            words = door.lower()
            assert words in (f"{SIDES[k]} to the {room}", f"{SIDES[k]} (the {room}'s wall)"), (door, beyond)
    assert named, "no door named the room it meets"
