"""Playing the games of a balance report and noting, decision by decision, what the report shows.

Everything here is generic: it reads the engine's state (zones and their owners, the pending decision, counters),
never a ruleset's own names, so any ruleset gets the same report.

- **acquired**: a card came into a zone its player owns (hand, deck, tableau...) from a zone they did not own
  (a market, a supply, another player) after the game's first decision. Cards a player holds when the first
  decision is asked are their starting cards, not acquisitions.
- **played**: the player chose the card in a decision while it lay in one of their own zones (playing it from
  hand, but also discarding or exhausting it when a rule asks which one). Choosing a card lying elsewhere (buying
  it from a market) is counted as **picked**.
- **tracked counters** (``--track NAME``): the value of a global or per-player counter at the first decision of
  every round.

Game ``i`` of a report with seed ``S`` uses the game seed ``game_seed(S, i)`` (as ``liturgy simulate``) and agent
seeds derived from it, so a game's record depends only on ``i``: any number of worker processes gives the same
records in the same order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from liturgy.interpreter.agents.agents import Agent, make_agent
from liturgy.interpreter.compiler.code import ROUND_SLOT, _fmt_card
from liturgy.interpreter.engine import Game, Ruleset
from liturgy.interpreter.engine.views import open_entry
from liturgy.interpreter.runtime.moves import zone_owner_now
from liturgy.interpreter.runtime.state import GameState
from liturgy.interpreter.tools.arguments import UsageError
from liturgy.interpreter.tools.gamepool import run_indexed
from liturgy.interpreter.tools.simulate import game_seed

# A game that passes this many decisions is stopped and reported as aborted (a random agent in a ruleset
# whose game need not end): the report must finish.
MAX_DECISIONS = 200_000


@dataclass(frozen=True)
class Config:
    """One side of a report: a ruleset, its players, seats and options."""

    label: str
    ruleset: Ruleset
    players: int
    seats: tuple[str, ...]
    options: tuple[tuple[str, str], ...]
    track: tuple[str, ...] = ()


@dataclass
class GameRecord:
    """What one game contributes to the report."""

    index: int
    status: str
    error: str | None
    winners: list[int]
    scores: list[float]
    rounds: int
    decisions: int
    # per player: card name -> how many times acquired / played / picked in this game
    acquired: list[dict[str, int]] = field(default_factory=list)
    played: list[dict[str, int]] = field(default_factory=list)
    picked: list[dict[str, int]] = field(default_factory=list)
    # per tracked counter: one row per round reached, each the values (one per player, or one for a global)
    tracks: dict[str, list[list[int]]] = field(default_factory=dict)


def seat_kinds_error(seats: tuple[str, ...]) -> str | None:
    """Why a seat list cannot play a report, or None. Seat names are whatever the agents' registry
    (``make_agent``) accepts, except ``human``: a report plays unattended."""
    for kind in seats:
        if kind == "human":
            return "a report plays unattended: `human` cannot take a seat (use random or another bot)"
        try:
            make_agent(kind, 0)
        except ValueError as err:
            return str(err)
    return None


def counter_slots(ruleset: Ruleset, name: str, players: int) -> list[int]:
    """The counter slots a tracked counter reads: one for a global counter, one per player for a per-player one.

    Raises ValueError naming the problem for anything else (a card counter, an option, an unknown name).
    """
    prog, lay = ruleset.program, ruleset.compiled.layout
    c = prog.counters.get(name)
    if c is None or c.option is not None or c.held is not None or c.index_enum:
        numbers = sorted(n for n, d in prog.counters.items()
                         if d.scope != "card" and d.option is None and d.held is None and not d.index_enum)
        have = ", ".join(numbers[:30]) + (" ..." if len(numbers) > 30 else "")
        raise UsageError(f"--track {name}: {ruleset.name} has no global or per-player number counter `{name}`"
                         f" (it has: {have or 'none'})")
    if c.scope == "global":
        return [lay.global_slots[name]]
    if c.scope == "player":
        return [lay.player_base + p * lay.player_stride + lay.player_offsets[name] for p in range(players)]
    raise UsageError(f"--track {name}: a counter per card cannot be tracked (track a global or per-player one)")


class _Watcher:
    """Follows one game decision by decision: card ownership, choices and tracked counters."""

    def __init__(self, game: Game, track: dict[str, list[int]]) -> None:
        s = game.state
        self.game = game
        self.n = s.tables.n
        self.names = s.tables.card_names
        self.card_fmt = [f is _fmt_card for f in game.ruleset.compiled.choice_formats]
        self.owner_zones = [zi for zi in range(len(s.zones)) if self._could_own(s, zi)]
        self.owned = self._owned(s)
        self.acquired: list[dict[str, int]] = [{} for _ in range(self.n)]
        self.played: list[dict[str, int]] = [{} for _ in range(self.n)]
        self.picked: list[dict[str, int]] = [{} for _ in range(self.n)]
        self.track = track
        self.tracks: dict[str, list[list[int]]] = {name: [] for name in track}
        self.round = -1
        self.note_round(s)

    @staticmethod
    def _could_own(s: GameState, zi: int) -> bool:
        t = s.tables
        return t.zone_owner[zi] >= 0 or bool(t.zone_host) and t.zone_host[zi] >= 0

    def _owned(self, s: GameState) -> list[set[int]]:
        out: list[set[int]] = [set() for _ in range(self.n)]
        zones = s.zones
        for zi in self.owner_zones:
            if zones[zi]:
                owner = zone_owner_now(s, zi)
                if 0 <= owner < self.n:
                    out[owner].update(zones[zi])
        return out

    def note_round(self, s: GameState) -> None:
        r = s.counters[ROUND_SLOT]
        if r != self.round and self.track:
            self.round = r
            counters = s.counters
            for name, slots in self.track.items():
                self.tracks[name].append([int(counters[k] or 0) for k in slots])

    def note_choice(self, player: int, choice: int) -> None:
        """Before ``choice`` is applied: a card chosen is played (from the player's own zones) or picked."""
        s = self.game.state
        pend = s.pending
        if pend is None:
            return
        if pend[0] == "choose":
            options, fmt_id = pend[2], pend[6]
        else:
            per, fmt_id = pend[1], pend[4]
            at = open_entry(per, s.commits, player)
            if at is None:
                return
            options = per[at][1]
        if not self.card_fmt[fmt_id]:
            return
        card = options[choice]
        if card is None:
            return
        mine = zone_owner_now(s, s.card_zone[card]) == player
        book = (self.played if mine else self.picked)[player]
        name = self.names[card]
        book[name] = book.get(name, 0) + 1

    def note_state(self) -> None:
        """After a decision was applied and the game ran to the next one: new cards in each player's zones."""
        s = self.game.state
        now = self._owned(s)
        for p in range(self.n):
            new = now[p] - self.owned[p]
            if new:
                book = self.acquired[p]
                for c in new:
                    name = self.names[c]
                    book[name] = book.get(name, 0) + 1
        self.owned = now
        self.note_round(s)


def agent_seed(seed: int, seat: int) -> int:
    """The seed of seat ``seat``'s agent in the game of seed ``seed``: distinct per seat, fixed per game."""
    return (seed ^ 0x5EED) * 64 + seat


def play_one(config: Config, run_seed: int, index: int, check: bool = False) -> GameRecord:
    """Play game ``index`` of a report to its end and return its record."""
    seed = game_seed(run_seed, index)
    game = config.ruleset.new_game(config.players, seed, check_invariants=check, options=dict(config.options))
    agents: list[Agent] = [make_agent(kind, agent_seed(seed, i)) for i, kind in enumerate(config.seats)]
    track = {name: counter_slots(config.ruleset, name, config.players) for name in config.track}
    w = _Watcher(game, track)
    decisions = 0
    while not game.finished and decisions < MAX_DECISIONS:
        for p in game.waiting_for():
            choice = agents[p].choose(game, p)
            w.note_choice(p, choice)
            game.apply(choice, p)
            decisions += 1
        w.note_state()
    s = game.state
    result = s.result or {}
    status = s.status if game.finished else "aborted"
    error = s.error if game.finished else f"stopped after {MAX_DECISIONS} decisions"
    return GameRecord(
        index=index,
        status=status,
        error=error,
        winners=list(result.get("winners", [])),
        scores=[_number(x) for x in result.get("scores", [])],
        rounds=int(s.counters[ROUND_SLOT]),
        decisions=decisions,
        acquired=w.acquired,
        played=w.played,
        picked=w.picked,
        tracks=w.tracks,
    )


def _number(x: object) -> float:
    """A score as a number for the plots (a score may be a bool or none in a ruleset's own terms)."""
    if isinstance(x, bool):
        return float(x)
    if isinstance(x, int | float):
        return float(x)
    return 0.0


def play_all(
    config: Config, games: int, run_seed: int, jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> list[GameRecord]:
    """Every game of one side of a report, in game order (the same records for any ``jobs``)."""
    for name in config.track:
        counter_slots(config.ruleset, name, config.players)  # a bad name fails here, before any worker starts

    def task(i: int) -> GameRecord:
        return play_one(config, run_seed, i)

    return run_indexed(task, games, jobs, progress)


__all__ = ["Config", "GameRecord", "counter_slots", "play_all", "play_one", "seat_kinds_error"]
