"""The report as one self-contained HTML page: inline CSS, inline SVG plots, no script, no external file.

Nothing in the page depends on the clock or the machine (no date, no timings, no paths beyond what the user
typed), so the same settings give the same bytes: a report can be committed and diffed.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from liturgy.interpreter.tools.report import plots
from liturgy.interpreter.tools.report.stats import CardStats, Rate, RunStats, quantiles

# The forest plot shows this many cards; the table below it lists every card.
FOREST_CARDS = 30

CSS = """
body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 1.5em auto; max-width: 72em; color: #222;
       padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; } h2 { font-size: 1.15em; border-bottom: 1px solid #ccc;
  margin-top: 1.6em; } h3 { font-size: 1em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.85em; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.5em; text-align: right; }
th { background: #f3f3f3; } td.l, th.l { text-align: left; }
tr.strong td { background: #e6f4e6; font-weight: bold; } tr.weak td { background: #fbe9e9; font-weight: bold; }
.sides { display: flex; flex-wrap: wrap; gap: 1.5em; } .sides > div { flex: 1 1 30em; min-width: 0; }
.note { color: #555; font-size: 0.85em; } svg { max-width: 100%; height: auto; }
.verdict { background: #f6f6ff; border-left: 4px solid #1f77b4; padding: 0.4em 0.8em; }
"""


@dataclass(frozen=True)
class Side:
    """One configuration of a report and its numbers."""

    label: str
    settings: dict[str, str]  # what was played: ruleset, players, seats, options
    stats: RunStats


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _table(head: Sequence[str], rows: Sequence[Sequence[object]], left: int = 1,
           classes: Sequence[str] | None = None) -> str:
    def cell(tag: str, i: int, v: object) -> str:
        return f"<{tag}{' class=l' if i < left else ''}>{_e(v)}</{tag}>"

    out = ["<table><tr>" + "".join(cell("th", i, h) for i, h in enumerate(head)) + "</tr>"]
    for k, row in enumerate(rows):
        cls = f" class={classes[k]}" if classes and classes[k] else ""
        out.append(f"<tr{cls}>" + "".join(cell("td", i, v) for i, v in enumerate(row)) + "</tr>")
    return "\n".join(out) + "</table>"


def _glance(sides: Sequence[Side]) -> str:
    head = ["", *[s.label for s in sides]]
    rows: list[list[object]] = []
    for key in sides[0].settings:
        rows.append([key, *[s.settings.get(key, "") for s in sides]])
    st = [s.stats for s in sides]
    rows.append(["games played", *[f"{x.games} ({x.finished} finished, {x.aborted} aborted)" for x in st]])
    players = max(x.players for x in st)
    for p in range(players):
        rows.append([f"P{p + 1} wins", *[x.seat_wins[p].text() if p < x.players else "" for x in st]])
    rows.append(["nobody wins", *[x.nobody_won.text() for x in st]])
    rows.append(["seat spread (max − min win rate)", *[f"{100 * x.seat_spread:.1f} points" for x in st]])
    for name, attr in (("rounds", "rounds"), ("decisions", "decisions")):
        rows.append([f"{name}: 10% / median / 90%",
                     *["{:g} / {:g} / {:g}".format(*quantiles(getattr(x, attr))) for x in st]])
    rows.append(["cards standing out", *[sum(1 for c in x.cards if c.stands_out) for x in st]])
    return _table(head, rows)


def _verdict(sides: Sequence[Side]) -> str:
    """For a comparison: which side is fairer between seats, and whether the difference is more than noise."""
    if len(sides) < 2:
        return ""
    a, b = sides[0], sides[1]
    sa, sb = a.stats.seat_spread, b.stats.seat_spread
    fairer = a if sa < sb else b
    separated = [p for p in range(min(a.stats.players, b.stats.players))
                 if a.stats.seat_wins[p].separated_from(b.stats.seat_wins[p])]
    if a.stats.players == 1 and b.stats.players == 1:  # one seat: nothing to be fair between, say who wins more
        wa, wb = a.stats.seat_wins[0], b.stats.seat_wins[0]
        lines = [f"Win rate: {_e(a.label)} {_e(wa.text())}, {_e(b.label)} {_e(wb.text())}."]
    else:
        lines = [f"Seat spread: {_e(a.label)} {100 * sa:.1f} points, {_e(b.label)} {100 * sb:.1f} points"
                 + (f": <b>{_e(fairer.label)}</b> is the fairer between seats." if sa != sb else ": equal.")]
    if separated:
        lines.append("The 95% intervals of " + ", ".join(f"P{p + 1}" for p in separated)
                     + "'s win rate do not overlap between the two: that difference is unlikely to be chance.")
    else:
        lines.append("No seat's win-rate intervals separate between the two: with this many games the change "
                     "in any one seat's win rate may be chance.")
    return "<p class=verdict>" + "<br>".join(lines) + "</p>"


def _forest_cards(cards: list[CardStats]) -> list[CardStats]:
    """The cards worth a plot: those standing out first, then the most played or acquired."""
    def weight(c: CardStats) -> tuple[int, float, int, str]:
        gap = -c.separation  # the intervals furthest apart first: large and well-measured differences
        return (0 if c.stands_out else 1, gap, -(c.played or c.acquired), c.name)

    return sorted((c for c in cards if c.played or c.acquired), key=weight)[:FOREST_CARDS]


def _card_table(cards: list[CardStats], finished: int) -> str:
    head = ["card", "acquired", "played", "picked", "win: played", "win: not played", "win: acquired",
            "win: not acquired", "stands out"]
    shown = sorted(cards, key=lambda c: (0 if c.stands_out else 1, -c.separation, -(c.played + c.acquired + c.picked),
                                         c.name))
    rows = [[c.name, c.acquired, c.played, c.picked, _rt(c.win_played), _rt(c.win_not_played),
             _rt(c.win_acquired), _rt(c.win_not_acquired),
             {"strong": "▲ wins more", "weak": "▼ wins less"}.get(c.stands_out, "")] for c in shown]
    touched = sum(1 for c in cards if c.acquired or c.played or c.picked)
    note = (f"<p class=note>{len(cards)} cards of the kinds players handled, {touched} of them acquired, played or "
            f"picked in {finished} finished games; counts are over every game and "
            "player; win rates with 95% Wilson intervals.</p>")
    return note + _table(head, rows, classes=[c.stands_out for c in shown])


def _rt(r: Rate) -> str:
    return r.text() if r.trials else "–"


def _sides_html(parts: Sequence[tuple[str, str]]) -> str:
    if len(parts) == 1:
        return parts[0][1]
    return "<div class=sides>" + "".join(f"<div><h3>{_e(label)}</h3>{body}</div>" for label, body in parts) + "</div>"


def _cards_section(sides: Sequence[Side]) -> str:
    parts = []
    for s in sides:
        if not any(r.hits for r in s.stats.seat_wins):
            parts.append((s.label, "<p>No player won a game here, so no card can go with winning: its counts "
                          "are below, its win rates all 0%.</p><details><summary>Every card</summary>"
                          + _card_table(s.stats.cards, s.stats.finished) + "</details>"))
            continue
        forest = _forest_cards(s.stats.cards)
        body = plots.card_forest(forest, f"{s.label}: the {len(forest)} cards most played or standing out") \
            if forest else "<p>No card was acquired, played or picked in these games.</p>"
        body += "<details><summary>Every card</summary>" + _card_table(s.stats.cards, s.stats.finished) \
            + "</details>"
        parts.append((s.label, body))
    return _sides_html(parts)


def _scores(pairs: list[tuple[str, RunStats]]) -> str:
    values = {v for _, st in pairs for seat in st.scores for v in seat}
    if len(values) <= 1:
        return f"<p>Every final score was {next(iter(values), 0):g}: this ruleset's score does not vary.</p>"
    return plots.scores(pairs)


def _errors(sides: Sequence[Side]) -> str:
    out = []
    for s in sides:
        if s.stats.errors:
            items = "".join(f"<li>{_e(e)}</li>" for e in s.stats.errors[:10])
            more = f"<li>… and {len(s.stats.errors) - 10} more</li>" if len(s.stats.errors) > 10 else ""
            out.append(f"<h3>{_e(s.label)}: {len(s.stats.errors)} game(s) did not finish</h3><ul>{items}{more}</ul>")
    return ("<h2>Games that did not finish</h2>" + "".join(out)) if out else ""


METHOD = """<h2>How to read this report</h2><ul class=note>
<li><b>Win rate</b>: the share of finished games a seat won (a shared win counts for every winner), with its 95%
Wilson interval; the dotted line is an even share (1 / players).</li>
<li><b>acquired</b>: the card came into one of the player's own zones from a zone they did not own after the first
decision (cards held at the first decision are starting cards). <b>played</b>: the player chose it in a decision
while it lay in their own zones (playing it, or discarding it when asked which). <b>picked</b>: chosen while it lay
elsewhere (a market, a reward).</li>
<li><b>Stands out</b> (▲ / ▼, bold): the 95% intervals of the win rate of the players who played the card (or, when
that does not separate, acquired it) and of those who did not do not overlap. It says the card goes with winning
or losing, not why: a card a winning player can afford is not always a strong card.</li>
<li>Agents are the seats' bots; a random agent plays legal moves uniformly, which is a test of the rules'
structure, not of strategy.</li></ul>"""


def render(title: str, sides: Sequence[Side], command: str, track: Sequence[str]) -> str:
    """The whole page."""
    pairs = [(s.label, s.stats) for s in sides]
    body = [f"<h1>{_e(title)}</h1>", f"<p class=note>liturgy report: <code>{_e(command)}</code></p>",
            "<h2>At a glance</h2>", _glance(sides), _verdict(sides),
            "<h2>Win rate per seat</h2>", plots.seat_wins(pairs),
            "<h2>Game length</h2>",
            plots.histogram([(s.label, s.stats.rounds) for s in sides], "rounds per game"),
            plots.histogram([(s.label, s.stats.decisions) for s in sides], "decisions per game"),
            "<h2>Scores</h2>", _scores(pairs),
            "<h2>Cards</h2>", _cards_section(sides)]
    if track:
        body.append("<h2>Counters over the game</h2>")
        body += [f"<h3>{_e(name)}</h3>" + plots.track(name, pairs) for name in track]
    body += [_errors(sides), METHOD]
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            f"<title>{_e(title)}</title><style>{CSS}</style></head><body>\n"
            + "\n".join(b for b in body if b) + "\n</body></html>\n")


__all__ = ["Side", "render"]
