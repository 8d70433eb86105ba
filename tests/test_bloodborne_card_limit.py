"""Bloodborne's 7-card limit (issue 32): the card just taken is offered last, so a reflexive `1` keeps it.

The rule (RU:298-300) lets the player remove any card they own, the new one included; which card leaves is the
player's choice, so only the order of the menu changed: the new card used to be [1]."""

from __future__ import annotations

import random
import re

from liturgy.interpreter.engine import Game, load_ruleset

LIMIT = re.compile(r"You may own 7 cards: taking (.+), which card leaves the game\?")


def _to_card_limit() -> tuple[Game, int, str]:
    """A seeded 3-player game, every seat choosing at random (seeded), played to the first card-limit question
    (seed 1 reaches it at its 24th decision)."""
    rules = load_ruleset("rulesets/bloodborne.rules")
    for seed in range(1, 5):
        g = rules.new_game(3, seed=seed)
        pick = random.Random(seed)
        while not g.finished:
            d = g.decision
            assert d is not None
            p = d.players[0]
            m = LIMIT.fullmatch(d.prompts.get(p) or "")
            if m:
                return g, p, m.group(1)
            g.apply(pick.randrange(len(d.options[p])), p)
    raise AssertionError("no game reached the 7-card limit")


def test_the_card_just_taken_is_the_last_option() -> None:
    g, p, taken = _to_card_limit()
    d = g.decision
    assert d is not None
    labels = list(d.options[p])
    assert labels[-1] == taken and taken not in labels[:-1], labels


def test_choosing_1_at_the_limit_keeps_the_new_card() -> None:
    g, p, taken = _to_card_limit()
    before = g.view(p)["zones"]["hand"][f"P{p + 1}"]
    g.apply(0, p)
    after = g.view(p)["zones"]
    assert taken in after["hand"][f"P{p + 1}"] or taken in after["played"][f"P{p + 1}"], (before, after["hand"])
