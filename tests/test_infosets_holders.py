"""Cards in one shared zone marked with their holder (a per-card counter holding a player or a card), as Fury of
Dracula keeps the Hunters' Items and Events: a world drawn from a player's information set deals hidden cards
afresh, and whose each card is must go with the place it is dealt to (infosets.relation_slots).

Before, the holder stayed with the card's number while a pending choice was remapped to the card now at the
option's place: the chooser was then offered a card it holds itself, and the fuzz's world probe reported the
public count that followed as a leak (`liturgy fuzz rulesets/fury_of_dracula.rules --examples 2 --seed 5`, at a
Trade: "Lord Godalming holds 0 Item(s)" in one world, 1 in the other). And no world ever moved a card from one
holder to another, so the probes never varied which Hunter holds which Item.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.engine.infosets import knowledge_by_replay, sample_world
from liturgy.interpreter.tools import noninterference as ni

# each player holds three face-down gems in one shared zone; on its turn it takes one of the other's, and the
# public log says how many it then holds
KEEPERS = '''game "Keepers" { players 2..2 }
card Gem { value: int }
cards "gems.yaml"
zone pool: deck hidden of Gem
zone held: set hidden of Gem
counter per card holder: player
counter turns 0..20
setup {
  shuffle pool
  for p in players {
    for k in range(3) {
      let g = top(pool)
      move g to held
      g.holder = p
    }
  }
}
round {
  step take "Take a gem" {
    for p in players {
      choose g from [g for g in held where g.holder != p] by p prompt "Which gem does {} take?", p {
        g.holder = p
        log "{} takes a gem and holds {}", p, size([h for h in held where h.holder == p])
      }
    }
    turns += 1
    if turns >= 5 { end game }
  }
}
score(p) = size([g for g in held where g.holder == p])
'''
GEMS = "kind: Gem\nstart: pool\ncards:\n" + "".join(f"  - {{name: G{i}, value: {i}}}\n" for i in range(8))


@pytest.fixture(scope="module")
def keepers(tmp_path_factory: pytest.TempPathFactory) -> Ruleset:
    root: Path = tmp_path_factory.mktemp("keepers")
    (root / "gems.yaml").write_text(GEMS)
    (root / "keepers.rules").write_text(KEEPERS)
    return load_ruleset(str(root / "keepers.rules"))


def _holders(game: Game) -> dict[str, int]:
    """Each gem in the shared zone, by name, with the player holding it."""
    s = game.state
    lay = game.ruleset.compiled.layout
    slot = lay.card_base + lay.card_offsets["holder"]
    held = s.zones[s.tables.zone_names.index("held")]
    return {s.tables.card_names[c]: s.counters[slot + c * lay.card_stride] for c in held}


def test_a_pending_choice_keeps_offering_cards_the_chooser_may_take(keepers: Ruleset) -> None:
    game = keepers.new_game(2, 3)
    assert game.waiting_for() == (0,)
    know = knowledge_by_replay(game, 1)
    for k in range(40):
        world = sample_world(game, 1, random.Random(k), know, keep_declarations=True)
        holders = _holders(world)
        offered = world.state.pending[2]
        names = world.state.tables.card_names
        assert all(holders[names[c]] == 1 for c in offered), k  # P1 takes only P2's gems, in every world


def test_the_world_probe_finds_no_leak_in_a_trade_of_face_down_cards(keepers: Ruleset) -> None:
    game = keepers.new_game(2, 3)
    know = knowledge_by_replay(game, 1)
    found = [ni.check_world(game, 1, know, random.Random(k)) for k in range(40)]
    assert found == [None] * 40


def test_worlds_move_cards_between_holders_and_keep_how_many_each_holds(keepers: Ruleset) -> None:
    game = keepers.new_game(2, 3)
    real = _holders(game)
    know = knowledge_by_replay(game, 1)
    moved = 0
    for k in range(40):
        world = _holders(sample_world(game, 1, random.Random(k), know, keep_declarations=True))
        assert sorted(world.values()) == sorted(real.values())  # three gems each, as P2 sees
        moved += world != real
    assert moved > 30  # six gems dealt afresh between the two holders: the real deal comes back one time in 20


def test_the_swap_probe_moves_a_card_to_the_other_holder(keepers: Ruleset) -> None:
    game = keepers.new_game(2, 3)
    real = _holders(game)
    by_holder = {p: [n for n, q in real.items() if q == p] for p in (0, 1)}
    names = game.state.tables.card_names
    a, b = names.index(by_holder[0][0]), names.index(by_holder[1][0])
    world = _holders(ni.swapped(game, ni.Swap(1, a, b)))
    assert world[names[a]] == 1 and world[names[b]] == 0
    assert sorted(world.values()) == sorted(real.values())
