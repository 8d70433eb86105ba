"""Differential testing of the classic rulesets against OpenSpiel.

One driver plays a Liturgy ruleset and the matching OpenSpiel game in lock
step.  At every decision it checks that both wait for the same player(s) and
offer the same set of legal actions (each Liturgy option label is mapped to an
OpenSpiel action by its meaning), picks one option at random and applies it to
both.  OpenSpiel's chance nodes are answered with the outcome Liturgy's own RNG
produced (read from the Liturgy state), after checking that OpenSpiel allows
it.  At the end both must be terminal together with equal returns.

A game's mapping lives in a small :class:`Adapter`; everything else is shared.
Run ``python tests/classic_diff.py --games 5000`` for a long run with a table of
games and steps compared.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyspiel  # type: ignore[import-not-found]
from liturgy.interpreter.engine import Decision, Game, Ruleset, load_ruleset
from open_spiel.python import games as _python_games  # type: ignore[import-not-found]  # noqa: F401 - python_*

ROOT = Path(__file__).resolve().parent.parent
CLASSIC = ROOT / "rulesets" / "classic"


# ---------------------------------------------------------------- reading the Liturgy state (full truth)

def zone(game: Game, name: str, player: int | None = None) -> list[str]:
    """Card names in a zone, bottom first, whoever may see them (the test is omniscient)."""
    lay = game.ruleset.compiled.layout
    if player is None:
        zi = lay.zone_global[name]
    else:
        zi = lay.zone_player_base + player * lay.zone_player_stride + lay.zone_player_offsets[name]
    names = game.state.tables.card_names
    return [names[c] for c in game.state.zones[zi]]


def counter(game: Game, name: str, player: int | None = None) -> Any:
    """A counter's value (global, or one player's)."""
    lay = game.ruleset.compiled.layout
    if player is None:
        return game.state.counters[lay.global_slots[name]]
    return game.state.counters[lay.player_base + player * lay.player_stride + lay.player_offsets[name]]


def full_log(game: Game, start: int = 0) -> list[str]:
    """Log lines from entry ``start`` on, with every card named (nothing redacted: the test is omniscient)."""
    s = game.state
    formats = game.ruleset.compiled.log_formats
    out = []
    for _mask, _full, fmt_id, values in s.log[start:]:
        if fmt_id == -1:
            continue
        fmt = formats[fmt_id]
        parts = fmt.text.split("{}")
        out.append(parts[0] + "".join(f(s, v) + parts[i + 1] for i, (f, v) in enumerate(zip(fmt.formatters, values,
                                                                                            strict=True))))
    return out


def win_loss_returns(winners: list[int], n: int) -> list[float]:
    """OpenSpiel's win_loss returns: winners share +1, losers share -1, a draw of all is 0."""
    if len(winners) == n:
        return [0.0] * n
    return [1.0 / len(winners) if p in winners else -1.0 / (n - len(winners)) for p in range(n)]


# ---------------------------------------------------------------- the per-game mapping

@dataclass
class Adapter:
    """How one Liturgy ruleset corresponds to one OpenSpiel game."""

    ruleset: str                                     # file name under rulesets/classic/
    game: str                                        # OpenSpiel short name
    players: int
    # (liturgy game, openspiel state) -> the chance outcome Liturgy produced
    chance: Callable[[Game, Any], int]
    # (openspiel state, player, liturgy option label) -> openspiel action
    action: Callable[[Any, int, str], int]
    # finished liturgy game -> openspiel returns
    returns: Callable[[Game], list[float]]
    params: dict[str, Any] = field(default_factory=dict)
    # called after each Liturgy decision is applied (for adapters that track draws)
    observe: Callable[[Game], None] | None = None
    chance_nodes: bool = True                        # False: the game has none (connect_four)
    share: float = 1.0                               # CI plays this share of DIFF_GAMES (long games: fewer)


@dataclass
class Stats:
    games: int = 0
    steps: int = 0            # decision points where players and legal action sets were compared
    chance: int = 0           # chance outcomes mapped from Liturgy to OpenSpiel
    seconds: float = 0.0


class Mismatch(AssertionError):
    pass


def _legal(adapter: Adapter, state: Any, player: int, labels: tuple[str, ...]) -> list[int]:
    mapped = [adapter.action(state, player, lab) for lab in labels]
    if len(set(mapped)) != len(mapped):
        raise Mismatch(f"two Liturgy options map to one OpenSpiel action: {labels} -> {mapped}")
    expected = sorted(state.legal_actions(player))
    if sorted(mapped) != expected:
        names = [state.action_to_string(player, a) for a in expected]
        raise Mismatch(f"P{player}: Liturgy offers {labels}, OpenSpiel {names}")
    return mapped


def play_one(adapter: Adapter, rules: Ruleset, os_game: Any, seed: int, pick: random.Random, stats: Stats) -> None:
    """Play one game in lock step; raise Mismatch (with the history) on any difference."""
    game = rules.new_game(adapter.players, seed=seed, check_invariants=True)
    state = os_game.new_initial_state()
    try:
        while True:
            _chances(adapter, game, state, stats)
            if game.state.status == "aborted":
                raise Mismatch(f"Liturgy aborted: {game.error}")
            if state.is_terminal():
                _compare_ends(adapter, game, state)
                stats.games += 1
                return
            if game.finished:
                raise Mismatch(f"Liturgy finished ({game.result}), OpenSpiel waits for {state.current_player()}")
            decision = game.decision
            assert decision is not None
            stats.steps += 1
            if state.is_simultaneous_node():
                _simultaneous_step(adapter, game, state, decision, pick)
            else:
                _turn_step(adapter, game, state, decision, pick)
            if adapter.observe is not None:
                adapter.observe(game)
    except Mismatch as err:
        raise Mismatch(f"{adapter.game} seed {seed}: {err}\n  OpenSpiel history {state.history()}\n"
                       f"  Liturgy decisions {game.state.decisions}\n  OpenSpiel state:\n{state}") from None


def _chances(adapter: Adapter, game: Game, state: Any, stats: Stats) -> None:
    """Resolve OpenSpiel's chance nodes with the outcomes Liturgy's game already drew."""
    while state.is_chance_node():
        outcome = adapter.chance(game, state)
        allowed = [a for a, _ in state.chance_outcomes()]
        if outcome not in allowed:
            raise Mismatch(f"chance outcome {outcome} is not among OpenSpiel's {allowed}")
        state.apply_action(outcome)
        stats.chance += 1


def _compare_ends(adapter: Adapter, game: Game, state: Any) -> None:
    """OpenSpiel's game is over: Liturgy's must be too, with the same returns."""
    if not game.finished:
        raise Mismatch(f"OpenSpiel is terminal, Liturgy waits for {game.waiting_for()}")
    got, want = adapter.returns(game), list(state.returns())
    if any(abs(a - b) > 1e-9 for a, b in zip(got, want, strict=True)):
        raise Mismatch(f"returns differ: Liturgy {got}, OpenSpiel {want}")


def _simultaneous_step(adapter: Adapter, game: Game, state: Any, decision: Decision, pick: random.Random) -> None:
    """Every mover picks at random among the same legal moves in both; both apply the joint move."""
    movers = [p for p in range(adapter.players) if state.legal_actions(p)]
    if not decision.simultaneous or sorted(decision.players) != movers:
        raise Mismatch(f"OpenSpiel: simultaneous {movers}; Liturgy: {decision}")
    joint = [0] * adapter.players
    picks: list[tuple[int, int]] = []
    for p in movers:
        mapped = _legal(adapter, state, p, decision.options[p])
        i = pick.randrange(len(mapped))
        joint[p] = mapped[i]
        picks.append((p, i))
    for p, i in picks:
        game.apply(i, p)
    state.apply_actions(joint)


def _turn_step(adapter: Adapter, game: Game, state: Any, decision: Decision, pick: random.Random) -> None:
    """The one player to move picks at random among the same legal moves in both."""
    p = state.current_player()
    if decision.simultaneous or decision.players != (p,):
        raise Mismatch(f"OpenSpiel: P{p} to move; Liturgy: {decision}")
    mapped = _legal(adapter, state, p, decision.options[p])
    i = pick.randrange(len(mapped))
    game.apply(i, p)
    state.apply_action(mapped[i])


def run(adapter: Adapter, games: int, seed: int = 0) -> Stats:
    """Play ``games`` random games in lock step; return what was compared."""
    rules = load_ruleset(str(CLASSIC / adapter.ruleset))
    os_game = pyspiel.load_game(adapter.game, adapter.params)
    pick = random.Random(seed)
    stats = Stats()
    start = time.perf_counter()
    for i in range(games):
        play_one(adapter, rules, os_game, seed * 1_000_003 + i, pick, stats)
    stats.seconds = time.perf_counter() - start
    return stats


# ---------------------------------------------------------------- kuhn_poker

KUHN_RANK = {"J": 0, "Q": 1, "K": 2}


def _kuhn_chance(game: Game, state: Any) -> int:
    dealt_to = len(state.history())          # chance deals P0's card, then P1's
    return KUHN_RANK[zone(game, "hand", dealt_to)[0]]


def _kuhn_action(state: Any, player: int, label: str) -> int:
    return {"pass": 0, "bet": 1}[label]


KUHN = Adapter("kuhn_poker.rules", "kuhn_poker", 2, _kuhn_chance, _kuhn_action,
               lambda g: [float(x) for x in (g.result or {})["scores"]])


# ---------------------------------------------------------------- goofspiel

def _goof_chance(game: Game, state: Any) -> int:
    return int(zone(game, "point_card")[0].removeprefix("Point ")) - 1


def _goof_action(state: Any, player: int, label: str) -> int:
    return int(label) - 1


GOOFSPIEL = Adapter("goofspiel.rules", "goofspiel", 2, _goof_chance, _goof_action,
                    lambda g: win_loss_returns((g.result or {})["winners"], g.players))


# ---------------------------------------------------------------- leduc_poker

LEDUC_CARD = {"J1": 0, "J2": 1, "Q1": 2, "Q2": 3, "K1": 4, "K2": 5}


def _leduc_chance(game: Game, state: Any) -> int:
    dealt = 6 - len(state.chance_outcomes())   # P0's card, P1's card, then the public card
    name = zone(game, "hand", dealt)[0] if dealt < game.players else zone(game, "public_card")[0]
    return LEDUC_CARD[name]


LEDUC = Adapter("leduc_poker.rules", "leduc_poker", 2, _leduc_chance,
                lambda state, p, label: {"fold": 0, "call": 1, "raise": 2}[label],
                lambda g: [float(x) for x in (g.result or {})["scores"]])


# ---------------------------------------------------------------- liars_dice

def _liars_chance(game: Game, state: Any) -> int:
    roller = len(state.history())               # OpenSpiel rolls P0's die, then P1's
    return int(zone(game, "cup", roller)[0].removeprefix("Face ")) - 1


def _liars_action(state: Any, player: int, label: str) -> int:
    if label == "liar":
        return 12                                 # total dice * sides: OpenSpiel's "Liar"
    quantity, face = (int(x) for x in label.split("-"))
    return (quantity - 1) * 6 + face - 1


LIARS = Adapter("liars_dice.rules", "liars_dice", 2, _liars_chance, _liars_action,
                lambda g: [float(x) for x in (g.result or {})["scores"]])


# ---------------------------------------------------------------- crazy_eights

C8_SUITS, C8_RANKS = "CDHS", "23456789TJQKA"
C8_NOMINATE = {"clubs": 54, "diamonds": 55, "hearts": 56, "spades": 57}
C8_CHANCE = re.compile(r"^P(\d+) (deals|is dealt (\w\w)|turns up (\w\w)|draws (\w\w))$")


_C8_SEEN: weakref.WeakKeyDictionary[Game, tuple[int, list[int]]] = weakref.WeakKeyDictionary()


def _c8_card(name: str) -> int:
    return C8_RANKS.index(name[1]) * 4 + C8_SUITS.index(name[0])


def _c8_chance(game: Game, state: Any) -> int:
    """The k-th OpenSpiel chance node is the k-th random event in Liturgy's log:
    who deals (52 + dealer), each card dealt, each card turned up (eights included), each card drawn."""
    read, outcomes = _C8_SEEN.get(game, (0, []))
    for line in full_log(game, read):
        m = C8_CHANCE.match(line)
        if m:
            outcomes.append(52 + int(m.group(1)) - 1 if m.group(2) == "deals"
                            else _c8_card(m.group(3) or m.group(4) or m.group(5)))
    _C8_SEEN[game] = (len(game.state.log), outcomes)
    k = sum(1 for e in state.full_history() if e.player == pyspiel.PlayerId.CHANCE)
    return outcomes[k]


def _c8_action(state: Any, player: int, label: str) -> int:
    if label in C8_NOMINATE:
        return C8_NOMINATE[label]
    return {"draw": 52, "pass": 53}.get(label) or _c8_card(label)


CRAZY_EIGHTS = Adapter("crazy_eights.rules", "crazy_eights", 5, _c8_chance, _c8_action,
                       lambda g: [float(x) for x in (g.result or {})["scores"]])


# ---------------------------------------------------------------- connect_four

def _no_chance(game: Game, state: Any) -> int:  # pragma: no cover - connect_four has no chance nodes
    raise Mismatch("OpenSpiel's connect_four asked for a chance outcome")


CONNECT_FOUR = Adapter("connect_four.rules", "connect_four", 2, _no_chance,
                       lambda state, p, label: int(label),      # column c -> OpenSpiel's action c (`x3`, `o3`)
                       lambda g: [float(x) for x in (g.result or {})["scores"]], chance_nodes=False)


# ---------------------------------------------------------------- tic_tac_toe (python_tic_tac_toe)

TIC_TAC_TOE = Adapter("tic_tac_toe.rules", "python_tic_tac_toe", 2, _no_chance,
                      lambda state, p, label: int(label),   # square i (row by row from the top left) -> action i
                      lambda g: [float(x) for x in (g.result or {})["scores"]], chance_nodes=False)


# ---------------------------------------------------------------- breakthrough

def _breakthrough_action(state: Any, player: int, label: str) -> int:
    """A step card is named as OpenSpiel names the move (`a7a6`); OpenSpiel adds `*` to a capture."""
    key = (id(state), state.move_number())
    if _BT_NAMES.get("key") != key:  # one table of the legal moves' names per OpenSpiel state
        _BT_NAMES.clear()
        _BT_NAMES.update({state.action_to_string(player, a).rstrip("*"): int(a) for a in state.legal_actions(player)})
        _BT_NAMES["key"] = key
    found = _BT_NAMES.get(label)
    return found if isinstance(found, int) else -1 - len(label)  # not legal in OpenSpiel: _legal reports it


_BT_NAMES: dict[str, Any] = {}


BREAKTHROUGH = Adapter("breakthrough.rules", "breakthrough", 2, _no_chance, _breakthrough_action,
                       lambda g: [float(x) for x in (g.result or {})["scores"]], chance_nodes=False, share=0.25)


# ---------------------------------------------------------------- hex

def _hex_action(state: Any, player: int, label: str) -> int:
    """Cell `b3` (column letter, row number) -> OpenSpiel's action 11 * (row - 1) + column."""
    return 11 * (int(label[1:]) - 1) + ord(label[0]) - ord("a")


HEX = Adapter("hex.rules", "hex", 2, _no_chance, _hex_action,
              lambda g: [float(x) for x in (g.result or {})["scores"]], chance_nodes=False, share=0.15)


# ---------------------------------------------------------------- dark_hex

DARK_HEX = Adapter("dark_hex.rules", "dark_hex", 2, _no_chance, lambda state, player, label: int(label),
                   lambda g: [float(x) for x in (g.result or {})["scores"]], chance_nodes=False)


# ---------------------------------------------------------------- liars_poker (python_liars_poker)

def _liars_poker_chance(game: Game, state: Any) -> int:
    """OpenSpiel deals the digits one at a time, P0 first, in turn: the k-th is the (k // 2)-th of P(k % 2)."""
    k = len(state.history())
    return int(zone(game, "hand", k % game.players)[k // game.players])


def _liars_poker_action(state: Any, player: int, label: str) -> int:
    """A bid's label is OpenSpiel's action id (`describe int` words it `COUNT of NUMBER` at the terminal)."""
    return 0 if label == "challenge" else int(label)


LIARS_POKER = Adapter("liars_poker.rules", "python_liars_poker", 2, _liars_poker_chance, _liars_poker_action,
                      lambda g: [float(x) for x in (g.result or {})["scores"]])


# ---------------------------------------------------------------- block_dominoes (python_block_dominoes)

def _dominoes_chance(game: Game, state: Any) -> int:
    """OpenSpiel deals P0's 7 tiles, then P1's; the outcome is the tile's index in its deck (`id`)."""
    from open_spiel.python.games import block_dominoes

    k = len(state.history())
    name = zone(game, "hand", k // 7)[k % 7]
    lo, hi = (float(x) for x in name.split("-"))
    return int(block_dominoes._DECK.index((lo, hi)))


def _dominoes_action(state: Any, player: int, label: str) -> int:
    """Move k = 8 * tile id + 1 + end (8 * id to lead) -> OpenSpiel's action (P, tile, end), by its own name."""
    from open_spiel.python.games import block_dominoes

    k = int(label)
    tile = block_dominoes._DECK[k // 8]
    name = f"p{player} tile:{tile} pip:{float(k % 8 - 1) if k % 8 else None}"
    table: list[str] = block_dominoes._ACTIONS_STR
    return table.index(name) if name in table else -1 - k


BLOCK_DOMINOES = Adapter("block_dominoes.rules", "python_block_dominoes", 2, _dominoes_chance, _dominoes_action,
                         lambda g: [float(x) for x in (g.result or {})["scores"]])


ADAPTERS: dict[str, Adapter] = {"kuhn_poker": KUHN, "goofspiel": GOOFSPIEL, "leduc_poker": LEDUC,
                                "liars_dice": LIARS, "crazy_eights": CRAZY_EIGHTS, "connect_four": CONNECT_FOUR,
                                "tic_tac_toe": TIC_TAC_TOE, "breakthrough": BREAKTHROUGH, "hex": HEX,
                                "liars_poker": LIARS_POKER, "block_dominoes": BLOCK_DOMINOES, "dark_hex": DARK_HEX}



def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("names", nargs="*", default=list(ADAPTERS))
    args = ap.parse_args(argv)
    print(f"{'game':<14}{'games':>8}{'steps':>10}{'chance':>10}{'seconds':>9}")
    for name in args.names:
        st = run(ADAPTERS[name], args.games, args.seed)
        print(f"{name:<14}{st.games:>8}{st.steps:>10}{st.chance:>10}{st.seconds:>9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
