"""Two card kinds may declare a field of the same name with different defaults; each card gets its own kind's.

Regression: the defaults were keyed by field name only, so the last kind declared won (Slay the Spire's Old Coin,
a Relic with no price, read the Potion kind's default price of 2).
"""

from __future__ import annotations

from pathlib import Path

from liturgy.interpreter.engine import load_ruleset

RULES = """game "Defaults" {
  players 1..1
  step_limit 100
}

card Relic {
  price: int = 0
}

card Potion {
  price: int = 2
}

cards "relics.yaml"
cards "potions.yaml"

zone relics: set public of Relic
zone potions: set public of Potion

round {
  step stop "Stop" { end game }
}

score(p) = 0
"""


def test_each_kind_keeps_its_own_field_default(tmp_path: Path) -> None:
    (tmp_path / "t.rules").write_text(RULES)
    (tmp_path / "relics.yaml").write_text(
        "kind: Relic\nstart: relics\ncards:\n  - {name: Coin}\n  - {name: Idol, price: 4}\n")
    (tmp_path / "potions.yaml").write_text("kind: Potion\nstart: potions\ncards:\n  - {name: Brew}\n")
    g = load_ruleset(str(tmp_path / "t.rules")).new_game(1, 0)
    t = g.state.tables
    prices = dict(zip(t.card_names, t.fields["price"], strict=True))
    assert prices == {"Coin": 0, "Idol": 4, "Brew": 2}


EFFECTS = """game "Same field, two kinds" {
  players 1..1
  step_limit 100
}

card Relic {
  react: effect(p: player, n: int) = none
}

card Power {
  react: effect(p: player, up: bool, n: int) = none
}

cards "relics.yaml"
cards "powers.yaml"

zone relics: set public of Relic
zone powers: set public of Power
counter per player total 0..99

round {
  step go "React" {
    for p in players {
      for r in relics { do r.react(p, 2) }
      for w in powers { do w.react(p, true, 5) }
    }
    end game
  }
}

score(p) = p.total
"""


def test_effect_fields_of_one_name_take_their_own_kinds_parameters(tmp_path: Path) -> None:
    """`do r.react(p, 2)` and `do w.react(p, true, 5)` bind the parameters of r's and w's own kinds."""
    (tmp_path / "t.rules").write_text(EFFECTS)
    (tmp_path / "relics.yaml").write_text(
        'kind: Relic\nstart: relics\ncards:\n  - {name: Urn, react: "p.total += n"}\n')
    (tmp_path / "powers.yaml").write_text(
        'kind: Power\nstart: powers\ncards:\n  - {name: Form, react: "if up { p.total += n * 10 }"}\n')
    g = load_ruleset(str(tmp_path / "t.rules")).new_game(1, 0)
    assert g.finished and g.result is not None and g.result["scores"] == [52]
