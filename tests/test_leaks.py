"""The fuzz harness's leak check: no view, log line or option names a card its viewer was never shown.

Each card is rendered under a unique sentinel name; the check must stay quiet
on correct rulesets and must catch deliberately broken rendering.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.engine import game as engine
from liturgy.interpreter.engine import views as engine_views
from liturgy.interpreter.tools.fuzz import fuzz_ruleset
from liturgy.interpreter.tools.leaks import LeakCheck

BLIND_PICK = """
game "Blind pick" {
  players 2..2
  step_limit 500
}
card Token { rank: int }
cards "tokens.yaml"
zone deck: deck hidden of Token
zone hand: per player set owner of Token
setup { shuffle deck }
round {
  step pick "Pick blind" {
    # each player secretly takes a card from a face-down deck: the options
    # must be offered by position, never by name
    simultaneously p in players choose c from deck {
      move c to p.hand
      log "{} takes {}", p, c
    }
    if size(deck) < 2 { end game }
  }
}
score(p) = sum(c.rank for c in p.hand)
"""

TOKENS = "kind: Token\nstart: deck\ncards:\n" + "".join(f"  - {{name: T{i}, rank: {i}}}\n" for i in range(1, 9))


def test_secret_choice_from_a_hidden_deck_is_offered_by_position(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(BLIND_PICK, {"tokens.yaml": TOKENS})
    ruleset = load_ruleset(path)
    game = ruleset.new_game(2, 5)
    decision = game.decision
    assert decision is not None and decision.simultaneous
    assert all(label.startswith("hidden card") for label in decision.options[0])
    report = fuzz_ruleset(ruleset, path, examples=40, run_seed=1)
    assert report.violation is None, report.violation
    assert report.decisions > 0


def test_bloodborne_views_never_leak() -> None:
    path = ROOT / "rulesets" / "bloodborne.rules"
    ruleset = load_ruleset(str(path))
    game = ruleset.new_game(4, 11)
    check = LeakCheck(game)
    checked = 0
    while not game.finished and checked < 150:
        assert check.check(game) is None
        p = game.waiting_for()[0]
        game.apply(checked % game.option_count(p), p)
        checked += 1
    assert checked == 150 or game.finished
    # every player has at least seen their own hand by now
    assert all(any(mask >> p & 1 for mask in check.seen) for p in range(4))


def _leaky_visible_cards(s: Any, who: int) -> list[bool]:
    return [who < s.tables.n] * len(s.card_zone)  # every player sees every card


def _unredacted_render(original: Callable[..., str | None]) -> Callable[..., str | None]:
    def render(self: Game, entry: tuple[Any, ...], viewer: int | None) -> str | None:
        mask, _full, fmt_id, values = entry
        return original(self, (mask, (1 << self.state.tables.n) - 1, fmt_id, values), viewer)

    return render


BREAKS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    # zones rendered as if every card were face up
    "views show hidden cards": lambda mp: mp.setattr(engine_views, "visible_cards", _leaky_visible_cards),
    # log lines naming a hidden card are no longer redacted
    "log lines are not redacted": lambda mp: mp.setattr(
        engine.Game, "_render", _unredacted_render(engine.Game._render)),
}


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_the_leak_check_catches_broken_rendering(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, write_ruleset: Callable[..., str], name: str
) -> None:
    BREAKS[name](monkeypatch)
    # Bloodborne logs only public cards; the blind pick logs a card taken into a hidden hand
    bloodborne = str(ROOT / "rulesets/bloodborne.rules")
    path = write_ruleset(BLIND_PICK, {"tokens.yaml": TOKENS}) if "log" in name else bloodborne
    replay = tmp_path / "leak.json"
    report = fuzz_ruleset(load_ruleset(path), path, examples=50, run_seed=1, replay_path=str(replay))
    assert report.violation is not None, f"the leak check missed: {name}"
    # the card-name check, or the noninterference probe (tools/noninterference.py) when it meets the leak first
    assert "was never entitled to see it" in report.violation or "is told what it may not see" in report.violation
    assert report.shrunk_decisions is not None and report.shrunk_decisions <= 10, report.shrunk_decisions
    assert replay.exists()
