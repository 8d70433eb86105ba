"""Slay the Spire test set-up, shared: the ruleset loaded once, games started at a character choice, and the state
read and edited by name (counters of cards, players and the game, flags, zones, fields).

The Slay the Spire tests build the positions they check instead of hoping a random game reaches them, so most of
them start the same way and read and edit the same numbers. These helpers were copied, or imported from one test
module into the next, in tests/test_slay_the_spire_{faq,acts,act2,act4,options,a10}.py (review D1, D3, D4, D5);
they live here once. Only test-side edits: nothing here plays a rule.
"""

from __future__ import annotations

from pathlib import Path

from liturgy.interpreter.engine import Game, load_ruleset

from tests.scenario import card_slot, choose, global_slot, player_slot, refresh_decision, zone_index

RULES = str(Path(__file__).resolve().parents[1] / "rulesets" / "slay_the_spire.rules")
RULESET = load_ruleset(RULES)
HEROES = ("Ironclad", "Silent", "Defect", "Watcher")  # seat i plays HEROES[i] unless a test says otherwise


def started(players: int = 1, seed: int = 3, heroes: tuple[str, ...] = HEROES, check: bool = True,
            **options: object) -> Game:
    """A game of ``players`` with its invariants checked, each seat having chosen its character from ``heroes``;
    ``options`` as the command line gives them (``mode="act4_combat", ascension=11``)."""
    g = RULESET.new_game(players, seed, check_invariants=check, options={k: str(v) for k, v in options.items()})
    for seat in range(players):
        choose(g, seat, heroes[seat])
    return g


def to_first_play(g: Game) -> Game:
    """Take P1's first option until P1 can end a turn: the first play decision of the first combat."""
    while g.decision is not None and "end_turn" not in g.decision.options[0]:
        g.apply(0, 0)
    return g


def ok(g: Game) -> None:
    """No error and no invariant broken, with the message when there is."""
    assert g.error is None, g.error
    assert not g.violations(), g.violations()


# ---------------------------------------------------------------- reading and editing the state by name
def counter(g: Game, cid: int, name: str) -> int:
    """A card's counter (an enemy's `life`, `e_block`, `marker`…)."""
    return int(g.state.counters[card_slot(g, cid, name)])


def setc(g: Game, cid: int, name: str, value: int) -> None:
    g.state.counters[card_slot(g, cid, name)] = value


def pc(g: Game, name: str) -> int:
    """P1's counter."""
    return int(g.state.counters[player_slot(g, name, 0)])


def set_pc(g: Game, name: str, value: int) -> None:
    g.state.counters[player_slot(g, name, 0)] = value


def php(g: Game, p: int, what: str = "hp") -> int:
    """Player ``p``'s counter (HP unless ``what`` says otherwise)."""
    return int(g.state.counters[player_slot(g, what, p)])


def gc(g: Game, name: str) -> int:
    """A global counter."""
    return int(g.state.counters[global_slot(g, name)])


def flag(g: Game, f: str) -> bool:
    return bool(g.state.counters[global_slot(g, f)])


def set_flag(g: Game, f: str, v: bool = True) -> None:
    g.state.counters[global_slot(g, f)] = int(v)


def set_die(g: Game, face: int) -> None:
    """The die's current result, as if rolled."""
    g.state.counters[global_slot(g, "die_result")] = face


def fresh(g: Game, hp: int = 20) -> None:
    """Every player at ``hp`` of 20 max HP, the decision offered again for the new numbers."""
    for p in range(g.players):
        g.state.counters[player_slot(g, "max_hp", p)] = 20
        g.state.counters[player_slot(g, "hp", p)] = hp
    refresh_decision(g)


def name(g: Game, cid: int) -> str:
    return g.state.tables.card_names[cid]


def field(g: Game, cid: int, name: str) -> object:
    """A card's printed field."""
    return g.state.tables.fields[name][cid]


def zone(g: Game, name: str, player: int | None = None) -> list[int]:
    """The cards of a zone (a player's with ``player``), in order."""
    return list(g.state.zones[zone_index(g, name, player)])


def names(g: Game, zone_name: str, p: int | None = None) -> list[str]:
    """The names of a zone's cards, in order."""
    return [str(field(g, c, "name")) for c in zone(g, zone_name, p)]
