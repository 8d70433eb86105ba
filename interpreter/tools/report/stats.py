"""The numbers of a balance report, from the games' records: win rates with 95% Wilson intervals, per-card
statistics with their "stands out" mark, length and score distributions, tracked counters per round.

Wilson's score interval rather than the normal approximation: it stays inside [0, 1] and is honest for the
small counts and extreme rates a report meets (a card bought in 12 games, a seat that never wins).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from liturgy.interpreter.tools.report.collect import GameRecord

Z95 = 1.959963984540054  # the two-sided 95% quantile of the normal distribution
# A tracked counter's mean is drawn for the rounds at least this many games (and this share of them) reached.
MIN_TRACK_GAMES = 5
TRACK_SHARE = 0.05


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (0, 1 when there are no trials)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= trials else min(1.0, centre + half)
    return lo, hi


@dataclass(frozen=True)
class Rate:
    """``hits`` out of ``trials``, with its 95% interval."""

    hits: int
    trials: int

    @property
    def value(self) -> float:
        return self.hits / self.trials if self.trials else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.hits, self.trials)

    def separated_from(self, other: Rate) -> bool:
        """The two 95% intervals do not overlap (both measured): the difference is unlikely to be chance."""
        if not self.trials or not other.trials:
            return False
        lo, hi = self.interval
        olo, ohi = other.interval
        return hi < olo or ohi < lo

    def text(self) -> str:
        if not self.trials:
            return "–"
        lo, hi = self.interval
        return f"{100 * self.value:.1f}% [{100 * lo:.1f}–{100 * hi:.1f}]"


@dataclass
class CardStats:
    """One card name over every (game, player) of the finished games."""

    name: str
    acquired: int = 0  # times acquired, over all games and players
    played: int = 0
    picked: int = 0
    win_acquired: Rate = Rate(0, 0)  # win rate of the players who acquired it at least once
    win_not_acquired: Rate = Rate(0, 0)
    win_played: Rate = Rate(0, 0)
    win_not_played: Rate = Rate(0, 0)

    @property
    def separation(self) -> float:
        """How far apart the did / did-not intervals of the comparison that makes the card stand out are (0 when
        it does not): a large difference measured on few players scores less than one measured on many."""
        for did, did_not in ((self.win_played, self.win_not_played), (self.win_acquired, self.win_not_acquired)):
            if did.separated_from(did_not):
                (lo, hi), (olo, ohi) = did.interval, did_not.interval
                return max(olo - hi, lo - ohi)
        return 0.0

    @property
    def stands_out(self) -> str:
        """"strong" / "weak" when the did/did-not intervals separate (played first, then acquired), else ""."""
        for did, did_not in ((self.win_played, self.win_not_played), (self.win_acquired, self.win_not_acquired)):
            if did.separated_from(did_not):
                return "strong" if did.value > did_not.value else "weak"
        return ""


@dataclass
class RunStats:
    """Everything a report shows of one side (one ruleset, options and seats)."""

    games: int
    finished: int
    aborted: int
    players: int
    errors: list[str]
    seat_wins: list[Rate]
    nobody_won: Rate
    rounds: list[int]
    decisions: list[int]
    scores: list[list[float]]  # per seat, one per finished game
    cards: list[CardStats]
    tracks: dict[str, list[list[float]]] = field(default_factory=dict)  # name -> per round, mean per player
    track_games: dict[str, list[int]] = field(default_factory=dict)  # name -> per round, games that reached it

    @property
    def seat_spread(self) -> float:
        """The largest minus the smallest seat win rate: 0 is perfectly fair between seats."""
        values = [r.value for r in self.seat_wins]
        return max(values) - min(values) if values else 0.0


def _card_stats(done: list[GameRecord], players: int, kinds: dict[str, str]) -> list[CardStats]:
    names: set[str] = set()
    for g in done:
        for books in (g.acquired, g.played, g.picked):
            for book in books:
                names.update(book)
    # every card of a kind the players handled, the ones never touched included: "never played" is a finding
    handled = {kinds[n] for n in names if n in kinds}
    names.update(n for n, k in kinds.items() if k in handled)
    out: list[CardStats] = []
    for name in sorted(names):
        cs = CardStats(name)
        counts = {"acq": [0, 0], "nacq": [0, 0], "pl": [0, 0], "npl": [0, 0]}  # [wins, trials]
        for g in done:
            for p in range(players):
                won = p in g.winners
                a = g.acquired[p].get(name, 0)
                pl = g.played[p].get(name, 0)
                cs.acquired += a
                cs.played += pl
                cs.picked += g.picked[p].get(name, 0)
                for key in ("acq" if a else "nacq", "pl" if pl else "npl"):
                    counts[key][0] += won
                    counts[key][1] += 1
        cs.win_acquired = Rate(*counts["acq"])
        cs.win_not_acquired = Rate(*counts["nacq"])
        cs.win_played = Rate(*counts["pl"])
        cs.win_not_played = Rate(*counts["npl"])
        out.append(cs)
    return out


def _tracks(done: list[GameRecord], names: tuple[str, ...]) -> tuple[dict[str, list[list[float]]],
                                                                      dict[str, list[int]]]:
    means: dict[str, list[list[float]]] = {}
    reached: dict[str, list[int]] = {}
    for name in names:
        rows = [g.tracks.get(name, []) for g in done]
        length = max((len(r) for r in rows), default=0)
        width = max((len(r[0]) for r in rows if r), default=0)
        per_round: list[list[float]] = []
        counts: list[int] = []
        enough = max(MIN_TRACK_GAMES, math.ceil(TRACK_SHARE * len(rows)))
        for k in range(length):
            values = [r[k] for r in rows if len(r) > k]
            if len(values) < enough:
                break  # the few longest games alone: their mean is noise, not the game's course
            counts.append(len(values))
            per_round.append([sum(v[j] for v in values) / len(values) for j in range(width)])
        means[name], reached[name] = per_round, counts
    return means, reached


def summarize(records: list[GameRecord], players: int, track: tuple[str, ...] = (),
              kinds: dict[str, str] | None = None) -> RunStats:
    """The report's numbers for one side. Win rates and cards count finished games only; a shared win counts
    as a win for each winner. ``kinds`` (card name -> card kind) adds the cards no player acquired, played or
    picked, for every kind some player did."""
    done = [g for g in records if g.status == "finished"]
    n = len(done)
    seat_wins = [Rate(sum(p in g.winners for g in done), n) for p in range(players)]
    nobody = Rate(sum(not g.winners for g in done), n)
    errors = [f"game {g.index}: {g.error}" for g in records if g.status != "finished"]
    scores = [[g.scores[p] for g in done if len(g.scores) > p] for p in range(players)]
    means, reached = _tracks(done, track)
    return RunStats(
        games=len(records), finished=n, aborted=len(records) - n, players=players, errors=errors,
        seat_wins=seat_wins, nobody_won=nobody, rounds=[g.rounds for g in done],
        decisions=[g.decisions for g in done], scores=scores, cards=_card_stats(done, players, kinds or {}),
        tracks=means, track_games=reached,
    )


def quantiles(values: list[int] | list[float]) -> tuple[float, float, float]:
    """The 10th, 50th and 90th percentiles (nearest rank), 0s for no values."""
    if not values:
        return 0.0, 0.0, 0.0
    v = sorted(values)

    def at(q: float) -> float:
        return float(v[min(len(v) - 1, max(0, math.ceil(q * len(v)) - 1))])

    return at(0.1), at(0.5), at(0.9)


__all__ = ["CardStats", "Rate", "RunStats", "quantiles", "summarize", "wilson"]
