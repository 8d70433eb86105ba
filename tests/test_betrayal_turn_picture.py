"""Betrayal's "turn the … how (quarter turns)?" shows each turn as a picture of the doors it leaves open (issue 32,
item 4): at the terminal a box-drawing tile and the compass sides in each option's label, on the page the same
detail drawn as a small tile (table.js `tileSvg`). Written in the ruleset (`describe int`), not in Python."""

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
        assert doors and set(doors) <= set(SIDES)
        pictures.append(glyph)
    assert len(set(pictures)) == len(pictures)  # turns that leave other doors open look different


def test_the_terminal_menu_shows_the_pictures() -> None:
    import io

    g, p = _to_turn_question()
    out = io.StringIO()
    HumanAgent(stdin=io.StringIO("1\n"), stdout=out).choose(g, p)
    menu = [line for line in out.getvalue().splitlines() if re.match(r"  \[\d+\] ", line)]
    assert menu and all(any(c in line for c in GLYPHS) and " doors " in line for line in menu), menu
