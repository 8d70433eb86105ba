"""How a finished game's outcome reads: winners, scores and the closing log line."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from liturgy.dsl.checker.types import Ty
from liturgy.dsl.checker.wording import words
from liturgy.interpreter.compiler.code import _fmt_card, formatter_for, nests_cards, seen_text
from liturgy.interpreter.runtime.moves import card_visibility
from liturgy.interpreter.runtime.state import GameState, hidden_card


def _labels(s: GameState, f: Callable[[GameState, Any], str], options: Any, p: int,
            pass_label: str = "pass", elem: Ty | None = None) -> tuple[str, ...]:
    """Option labels for player ``p``: a card ``p`` cannot see is offered by position, not by name; options that
    are lists of cards (or of lists of cards) name only the cards ``p`` sees."""
    if nests_cards(elem):
        return tuple(pass_label if o is None else seen_text(s, o, elem, p) for o in options)
    labels = tuple(pass_label if o is None else f(s, o) for o in options)
    if f is not _fmt_card:
        return labels
    return tuple(lab if o is None or (card_visibility(s, o) >> p) & 1
                 else hidden_card(s.tables, o, f"hidden card {i + 1}")
                 for i, (o, lab) in enumerate(zip(options, labels, strict=True)))


def _game_over_line(values: Any) -> str:
    """The log's last line: the scores, and the winners when the ruleset declares `winner`."""
    text = "Game over. Scores: " + ", ".join(f"P{p + 1} {v}" for p, v in enumerate(values[0]))
    if len(values) > 1:
        text += ". " + winners_text(values[1])
    return text


def winners_text(winners: Iterable[int]) -> str:
    """`Winner: P1.`, `Winners: P1, P2.` or `Nobody wins.`: the result in words, for logs and the CLI."""
    names = [f"P{p + 1}" for p in winners]
    if not names:
        return "Nobody wins."
    return ("Winner: " if len(names) == 1 else "Winners: ") + ", ".join(names) + "."


def reports_text(game: Any) -> list[str]:
    """A finished game's `report` values in player language, one line each (`achievements: Perfect (...)`): the
    name as words and each value as the ruleset words it (enum values through `describe`), for `play`/`replay`."""
    reports = (game.result or {}).get("reports")
    if not reports:
        return []
    prog = game.ruleset.program
    lines = []
    for r in prog.reports:
        fmt = formatter_for(r.expr.ty, prog.value_names)
        lines.append(f"{words(r.name)}: {fmt(game.state, reports[r.name])}")
    return lines
