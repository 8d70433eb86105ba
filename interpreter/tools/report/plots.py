"""The report's plots, drawn with matplotlib and returned as SVG text to inline in the HTML page.

The SVG is deterministic: a fixed hash salt for the ids matplotlib generates, no date in the metadata and text
kept as text (not glyph paths), so the same numbers give the same bytes. matplotlib is imported here only
(``liturgy[report]``); the page says plainly when it is missing instead of failing half-way.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from liturgy.interpreter.tools.report.stats import CardStats, Rate, RunStats

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f")
STYLE: Any = {
    "svg.hashsalt": "liturgy-report",
    "svg.fonttype": "none",
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
}


def available() -> bool:
    """Whether matplotlib can be imported (the `report` extra)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


@contextmanager
def _figure(width: float, height: float) -> Iterator[Figure]:
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(STYLE):
        yield Figure(figsize=(width, height), layout="constrained")


def _svg(fig: Figure) -> str:
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context(STYLE):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "liturgy report"})
    text = buf.getvalue()
    return text[text.index("<svg"):]  # inline: no XML declaration or doctype


def seat_wins(sides: Sequence[tuple[str, RunStats]]) -> str:
    """Win rate per seat, one bar per side, with 95% intervals and the even share as a line."""
    with _figure(6.4, 2.8) as fig:
        ax = fig.add_subplot()
        players = max(s.players for _, s in sides)
        width = 0.8 / len(sides)
        for k, (label, st) in enumerate(sides):
            xs = [p + (k - (len(sides) - 1) / 2) * width for p in range(st.players)]
            _rate_bars(ax, xs, st.seat_wins, width, COLORS[k], label)
            ax.axhline(1 / st.players if st.players else 0, color=COLORS[k], linestyle=":", linewidth=1)
        ax.set_xticks(range(players), [f"P{p + 1}" for p in range(players)])
        ax.set_ylabel("games won")
        ax.set_ylim(0, 1)
        ax.yaxis.set_major_formatter(_percent())
        if len(sides) > 1:
            ax.legend(loc="upper right", fontsize=8)
        return _svg(fig)


def _rate_bars(ax: Axes, xs: list[float], rates: list[Rate], width: float, color: str, label: str) -> None:
    values = [r.value for r in rates]
    lows = [r.value - r.interval[0] for r in rates]
    highs = [r.interval[1] - r.value for r in rates]
    ax.bar(xs, values, width=width * 0.95, color=color, alpha=0.75, label=label)
    ax.errorbar(xs, values, yerr=[lows, highs], fmt="none", ecolor="black", capsize=3, linewidth=1)


def _percent() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0, decimals=0)


def _whole() -> Any:
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def histogram(sides: Sequence[tuple[str, list[int] | list[float]]], xlabel: str) -> str:
    """One distribution per side on shared bins (whole numbers), as outlined steps so both stay readable."""
    with _figure(6.4, 2.6) as fig:
        ax = fig.add_subplot()
        values = [v for _, vs in sides for v in vs]
        lo, hi = (min(values), max(values)) if values else (0, 1)
        step = max(1, int((hi - lo) // 40) + 1)
        bins = [lo + i * step - 0.5 for i in range(int((hi - lo) // step) + 2)]
        for k, (label, vs) in enumerate(sides):
            if vs:
                ax.hist(vs, bins=bins, histtype="stepfilled", alpha=0.35, color=COLORS[k], label=label,
                        weights=[1 / len(vs)] * len(vs))
                ax.hist(vs, bins=bins, histtype="step", color=COLORS[k], weights=[1 / len(vs)] * len(vs))
        ax.set_xlabel(xlabel)
        ax.xaxis.set_major_locator(_whole())
        ax.set_ylabel("share of games")
        ax.yaxis.set_major_formatter(_percent())
        if len(sides) > 1:
            ax.legend(fontsize=8)
        return _svg(fig)


def scores(sides: Sequence[tuple[str, RunStats]]) -> str:
    """Final scores per seat as box plots (median, quartiles, 5th-95th percentile whiskers), sides side by side."""
    with _figure(6.4, 2.8) as fig:
        ax = fig.add_subplot()
        players = max(s.players for _, s in sides)
        width = 0.8 / len(sides)
        for k, (label, st) in enumerate(sides):
            data = [v if v else [0.0] for v in st.scores]
            xs = [p + (k - (len(sides) - 1) / 2) * width for p in range(st.players)]
            box = ax.boxplot(data, positions=xs, widths=width * 0.8, whis=(5, 95), showfliers=False,
                             patch_artist=True, manage_ticks=False)
            for patch in box["boxes"]:
                patch.set_facecolor(COLORS[k])
                patch.set_alpha(0.5)
            ax.plot([], [], color=COLORS[k], linewidth=6, alpha=0.5, label=label)
        ax.set_xticks(range(players), [f"P{p + 1}" for p in range(players)])
        ax.set_ylabel("final score")
        if len(sides) > 1:
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        return _svg(fig)


def card_forest(cards: list[CardStats], title: str) -> str:
    """Win rate of the players who played (or, for cards never played, acquired) each card against those who
    did not, with 95% intervals: the cards whose intervals separate are drawn bold and marked."""
    with _figure(6.4, 0.8 + 0.22 * max(1, len(cards))) as fig:
        ax = fig.add_subplot()
        labels = []
        for y, cs in enumerate(reversed(cards)):
            did, did_not, verb = _did(cs)
            for rate, dy, color, name in ((did, 0.15, COLORS[0], "did"), (did_not, -0.15, COLORS[7], "did not")):
                if rate.trials:
                    lo, hi = rate.interval
                    ax.plot([lo, hi], [y + dy, y + dy], color=color, linewidth=1.5)
                    ax.plot([rate.value], [y + dy], "o", color=color, markersize=3.5,
                            label=name if y == 0 else None)
            mark = {"strong": " ▲", "weak": " ▼"}.get(cs.stands_out, "")
            labels.append(f"{cs.name} ({verb}){mark}")
        ax.set_yticks(range(len(labels)), labels)
        for tick, cs in zip(ax.get_yticklabels(), reversed(cards), strict=True):
            if cs.stands_out:
                tick.set_fontweight("bold")
        ax.set_xlim(0, 1)
        ax.xaxis.set_major_formatter(_percent())
        ax.set_xlabel("win rate of the players who did / did not, 95% interval")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=8, loc="lower right")
        return _svg(fig)


def _did(cs: CardStats) -> tuple[Rate, Rate, str]:
    if cs.played:
        return cs.win_played, cs.win_not_played, "played"
    return cs.win_acquired, cs.win_not_acquired, "acquired"


def track(name: str, sides: Sequence[tuple[str, RunStats]]) -> str:
    """A tracked counter's mean value at the start of each round (one line per player for a per-player
    counter), over the games that reached that round (rounds too few games reached are left out: stats.py)."""
    with _figure(6.4, 2.6) as fig:
        ax = fig.add_subplot()
        for k, (label, st) in enumerate(sides):
            rows = st.tracks.get(name, [])
            if not rows:
                continue
            width = len(rows[0])
            for j in range(width):
                who = f" P{j + 1}" if width > 1 else ""
                ax.plot(range(1, len(rows) + 1), [r[j] for r in rows], color=COLORS[k],
                        linestyle=("-", "--", ":", "-.")[j % 4], label=f"{label}{who}", linewidth=1.3)
        ax.set_xlabel("round")
        ax.xaxis.set_major_locator(_whole())
        ax.set_ylabel(f"{name} (mean)")
        ax.legend(fontsize=7, ncols=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        return _svg(fig)


__all__ = ["available", "card_forest", "histogram", "scores", "seat_wins", "track"]
