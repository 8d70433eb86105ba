"""Checker holes found by new users (issue 14, item 8): each passed `liturgy check --strict` and then failed at run
time, or silently did something else than written.

- a zone passed where a `list of card` is wanted aborted every game with `internal error (TypeError: 'int' object
  is not iterable)`: the zone now becomes the list of its cards, in every compile mode;
- `c.effect == none` aborted with `internal error (IndexError)`: an absent effect (or function) now reads `none`;
- moving a card into a zone declared for another kind made later field reads `none`: refused, E340;
- a counter whose range leaves out 0 silently started at its lower bound: warned, W050, unless it says `= N`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ROOT
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset

MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]

CARDS = {"c.yaml": """kind: C
start: stock
cards:
  - name: A
    v: 1
    on_x: |
      t += 100
  - name: B
    v: 2
  - name: D
    v: 4
    worth: self.v * 10
"""}


def _play_every_mode(path: str, players: int = 2) -> list[tuple[object, ...]]:
    """The outcome of one game in each compile mode: the status, error, scores and digest."""
    seen = []
    for mode in MODES:
        program, diags = check_file(path)
        assert program is not None, "\n".join(map(str, diags))
        game = Ruleset(program, **mode).new_game(players, 1)
        game.random_playout(random.Random(1))
        scores = tuple(game.result["scores"]) if game.result else None
        seen.append((game.state.status, game.error, scores, game.digest()))
    return seen


ZONE_AS_LIST = """
game "Zones as lists" { players 2..2 }
card C { v: int  on_x: effect = none  worth: function() -> int = 0 }
zone stock: deck public of C
zone spare: pile public of C
cards "c.yaml"
counter t 0..1000000
fn total(xs: list of card C) -> int = sum(c.v for c in xs)
fn everything() -> list of card C = stock
proc add(xs: list of card C) { t += 1000 * sum(c.v for c in xs) }
round {
  step s {
    t = total(stock)                                        # 7
    t += 10 * size(everything())                            # 30
    do add(stock)                                           # 7000
    let xs = [top(stock)]
    xs = stock
    t += 100 * size(xs)                                     # 300
    let ys = if t < 0 then [top(stock)] else stock
    let zs = if t > 0 then [top(stock)] else stock
    t += 10000 * (size(ys) + size(zs))                      # 40000
    move xs to spare                                        # the list read then: all three cards
    t += 20000 * size(spare)                                # 60000
    end game
  }
}
score(p) = t
"""


def test_a_zone_passed_as_a_list_of_cards_is_its_cards(write_ruleset: Callable[..., str]) -> None:
    seen = _play_every_mode(write_ruleset(ZONE_AS_LIST, CARDS))
    assert seen[0][:3] == ("finished", None, (107337, 107337)), seen[0]
    assert len(set(seen)) == 1, seen  # every compile mode plays the same game


LISTS_OF_LISTS = """
game "Lists of lists" { players 2..2 }
card C { v: int  on_x: effect = none  worth: function() -> int = 0 }
zone stock: deck public of C
zone spare: pile public of C
cards "c.yaml"
counter t 0..1000000
round {
  step s {
    move top(stock) to spare
    for l in [[top(spare)], stock] { t = t * 10 + size(l) }     # 12
    for l in [stock, [top(spare), top(spare)]] { t = t * 10 + size(l) }   # 1222
    for z in [stock, spare] { t = t * 10 + size(z) }        # 122221: a list of zones stays zones
    end game
  }
}
score(p) = t
"""


def test_a_zone_in_a_list_of_lists_is_its_cards(write_ruleset: Callable[..., str]) -> None:
    """`[stock, [x]]` mixes a zone with a list of cards: the zone stands for its cards there, in every mode."""
    seen = _play_every_mode(write_ruleset(LISTS_OF_LISTS, CARDS))
    assert seen[0][:3] == ("finished", None, (122221, 122221)), seen[0]
    assert len(set(seen)) == 1, seen


EFFECT_NONE = """
game "Absent effects" { players 2..2 }
card C { v: int  on_x: effect = none  worth: function() -> int = 0 }
zone stock: deck public of C
cards "c.yaml"
counter with_effect 0..9
counter without_effect 0..9
counter with_worth 0..9
round {
  step s {
    for c in stock {
      if c.on_x == none { without_effect += 1 }
      if c.on_x != none { with_effect += 1  do c.on_x() }
      if c.worth != none { with_worth += 1 }
    }
    end game
  }
}
counter t 0..1000
score(p) = 100 * with_effect + 10 * without_effect + with_worth + t
"""


def test_an_effect_or_function_field_compares_with_none(write_ruleset: Callable[..., str]) -> None:
    seen = _play_every_mode(write_ruleset(EFFECT_NONE, CARDS))
    # A has an effect (it adds 100 to t), B and D have none; every card has a `worth` (a default or its own)
    assert seen[0][:3] == ("finished", None, (223, 223)), seen[0]
    assert len(set(seen)) == 1, seen


WRONG_KIND = """
game "Kinds" { players 2..2 }
card C { v: int  on_x: effect = none  worth: function() -> int = 0 }
card G { shine: int }
zone stock: deck public of C
zone vault: pile public of G
zone anything: pile public
cards "c.yaml"
counter t 0..1000
round {
  step s {
    move top(stock) to vault
    move top(stock, 2) to vault bottom
    move stock to vault
    move top(stock) to anything
    for c in anything { move c to vault }
    end game
  }
}
score(p) = sum(g.shine for g in vault)
"""


def test_moving_a_card_into_a_zone_of_another_kind_is_refused(write_ruleset: Callable[..., str]) -> None:
    _, diags = check_file(write_ruleset(WRONG_KIND, CARDS))
    found = [(d.code, d.span.line) for d in diags if d.is_error]
    # a card, a list of cards and a zone of kind C into `vault` (of G); a zone without `of` takes any card, and a
    # card of unknown kind (from that zone) is not refused
    assert found == [("E340", 12), ("E340", 13), ("E340", 14)], diags
    assert "cannot move a card of kind `C` into a zone of `G`" in diags[0].message
    assert "declared `of C`" in diags[0].hint


@pytest.mark.parametrize(("decl", "warned"), [
    ("counter level 1..5", True),
    ("counter per player level -3..-1", True),
    ("counter level 1..5 = 1", False),
    ("counter level 1..5 = 3 reset each round", False),
    ("counter level 0..5", False),
    ("counter level -5..5", False),
    ("counter level", False),
    ("track level values [1, 2, 3]", False),
])
def test_a_counter_whose_range_leaves_out_zero_says_where_it_starts(
        write_ruleset: Callable[..., str], decl: str, warned: bool) -> None:
    text = f'game "G" {{ players 1..2 }}\n{decl}\nround {{ step s "S" {{ end game }} }}\nscore(p) = 0\n'
    program, diags = check_file(write_ruleset(text))
    assert program is not None
    codes = [d.code for d in diags]
    assert ("W050" in codes) == warned, diags
    if warned:
        d = next(d for d in diags if d.code == "W050")
        assert d.span.line == 2 and "leaves out 0" in d.message and "`= " in d.hint


def test_the_warned_counter_starts_where_the_warning_says(write_ruleset: Callable[..., str]) -> None:
    text = 'game "G" { players 1..2 }\ncounter level 3..5\nround { step s "S" { end game } }\nscore(p) = level\n'
    program, _ = check_file(write_ruleset(text))
    assert program is not None
    game = Ruleset(program).new_game(1, 1)
    assert game.state.status == "finished" and game.result is not None and game.result["scores"] == [3]


def test_no_shipped_ruleset_meets_the_new_diagnostics() -> None:
    paths = sorted([*ROOT.glob("rulesets/*.rules"), *ROOT.glob("rulesets/classic/*.rules"),
                    *ROOT.glob("docs/examples/*.rules")])
    assert paths
    for path in paths:
        _, diags = check_file(str(Path(path)))
        assert not [d for d in diags if d.code in ("E340", "W050")], (path, diags)
