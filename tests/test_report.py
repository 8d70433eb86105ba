"""`liturgy report`: the numbers (Wilson intervals, per-card statistics and their "stands out" mark), what the
watcher notes in real games (acquired / played / picked, tracked counters), determinism (the same HTML bytes for
the same settings, for any --jobs), comparisons, and clean usage errors."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import BLOODBORNE
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.tools.cli import main
from liturgy.interpreter.tools.gamepool import can_fork, run_indexed
from liturgy.interpreter.tools.report.collect import Config, GameRecord, play_all
from liturgy.interpreter.tools.report.stats import Rate, quantiles, summarize, wilson

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[1]
MARKET = str(ROOT / "docs" / "examples" / "market.rules")
BB = str(BLOODBORNE)

# Two players each hold three chips and play one a round onto their table; the higher total wins. The Crown is
# worth far more than anything else, so whoever plays it wins: a report must mark it as standing out.
CHIPS = """
game "Chips" { players 2..2 }
card Chip { power: int }
cards "chips.yaml"
zone pile: deck hidden of Chip
zone hand: per player set owner of Chip
zone table: per player pile public of Chip
counter per player points 0..100 = 0
setup {
  shuffle pile
  for p in players { move top(pile, 3) to p.hand }
}
round {
  step play "Play a chip" {
    for p in players {
      choose c from p.hand by p {
        move c to p.table
        p.points += c.power
      }
    }
    if all(size(p.hand) == 0 for p in players) { end game }
  }
}
score(p) = p.points
"""
CHIP_CARDS = """kind: Chip
start: pile
cards:
  - {name: Crown, power: 50}
  - {name: Pebble, power: 1, count: 5}
"""


def test_wilson_matches_known_values() -> None:
    lo, hi = wilson(5, 10)
    assert round(lo, 4) == 0.2366 and round(hi, 4) == 0.7634
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and round(hi, 4) == 0.2775
    lo, hi = wilson(10, 10)
    assert round(lo, 4) == 0.7225 and hi == 1.0
    assert wilson(0, 0) == (0.0, 1.0)


def test_rates_separate_only_when_intervals_do_not_overlap() -> None:
    assert Rate(90, 100).separated_from(Rate(10, 100))
    assert not Rate(6, 10).separated_from(Rate(4, 10))
    assert not Rate(1, 1).separated_from(Rate(0, 0))  # nothing measured on one side: no claim
    assert Rate(1, 4).text().startswith("25.0% [")


def test_quantiles_nearest_rank() -> None:
    assert quantiles(list(range(1, 11))) == (1.0, 5.0, 9.0)
    assert quantiles([]) == (0.0, 0.0, 0.0)


def _record(i: int, winner: int, played: str | None) -> GameRecord:
    books: list[dict[str, int]] = [{}, {}]
    if played:
        books[winner] = {played: 1}
    return GameRecord(i, "finished", None, [winner], [1.0, 0.0], 3, 10, acquired=[{}, {}], played=books,
                      picked=[{}, {}])


def test_a_card_every_winner_played_stands_out_and_a_neutral_one_does_not() -> None:
    records = [_record(i, i % 2, "Crown") for i in range(60)]
    records += [GameRecord(60 + i, "finished", None, [i % 2], [0.0, 0.0], 3, 10, acquired=[{}, {}],
                           played=[{"Pebble": 1}, {"Pebble": 1}], picked=[{}, {}]) for i in range(60)]
    records.append(GameRecord(999, "aborted", "boom", [], [], 1, 1, [{}, {}], [{}, {}], [{}, {}]))
    st = summarize(records, 2)
    cards = {c.name: c for c in st.cards}
    assert cards["Crown"].stands_out == "strong"
    assert cards["Crown"].win_played == Rate(60, 60)
    assert cards["Pebble"].stands_out == ""
    assert cards["Crown"].separation > 0.5 and cards["Pebble"].separation == 0.0
    assert st.finished == 120 and st.aborted == 1 and st.errors == ["game 999: boom"]
    assert [r.hits for r in st.seat_wins] == [60, 60]


def test_run_indexed_is_the_same_list_for_any_number_of_workers() -> None:
    def square(i: int) -> int:
        return i * i

    seen: list[int] = []
    assert run_indexed(square, 37, 1, lambda d, t: seen.append(d)) == [i * i for i in range(37)]
    assert seen[-1] == 37
    assert run_indexed(square, 37, 3) == [i * i for i in range(37)]


def test_the_watcher_notes_played_acquired_and_picked_cards(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(CHIPS, {"chips.yaml": CHIP_CARDS})
    ruleset = load_ruleset(path)
    records = play_all(Config("A", ruleset, 2, ("random", "random"), (), ("points",)), 30, 7)
    assert all(r.status == "finished" and r.decisions == 6 for r in records)
    for r in records:
        # each player played their three chips, all from their own hand: nothing acquired or picked
        assert [sum(b.values()) for b in r.played] == [3, 3]
        assert r.acquired == [{}, {}] and r.picked == [{}, {}]
        assert len(r.tracks["points"]) == 3 and r.tracks["points"][0] == [0, 0]
    st = summarize(records, 2, ("points",), {"Crown": "Chip", "Pebble": "Chip", "Dust": "Chip", "Moon": "Sky"})
    # a card of a kind players handled is listed even when nobody touched it; a kind nobody handled is not
    assert [c.name for c in st.cards] == ["Crown", "Dust", "Pebble"]
    dust = st.cards[1]
    assert (dust.acquired, dust.played, dust.picked, dust.win_played.trials, dust.stands_out) == (0, 0, 0, 0, "")
    crown = next(c for c in st.cards if c.name == "Crown")
    assert crown.win_played.value == 1.0 and crown.stands_out == "strong"
    market = play_all(Config("A", load_ruleset(MARKET), 2, ("random", "random"), (), ()), 10, 3)
    # buying from the stall: the good is picked (it lay in a shared zone) and then acquired into the basket
    bought = sum(sum(b.values()) for r in market for b in r.picked)
    assert bought > 0 and bought == sum(sum(b.values()) for r in market for b in r.acquired)


@pytest.mark.skipif(not can_fork(), reason="forked workers")
def test_records_do_not_depend_on_jobs() -> None:
    config = Config("A", load_ruleset(MARKET), 3, ("random",) * 3, (), ("coins",))
    assert play_all(config, 12, 5, jobs=1) == play_all(config, 12, 5, jobs=3)


def _report(tmp_path: Path, name: str, *extra: str) -> bytes:
    out = tmp_path / name
    assert main(["report", MARKET, "--games", "16", "--players", "2", "--seed", "3", "--track", "coins",
                 "--out", str(out), *extra]) == 0
    return out.read_bytes()


def test_report_is_the_same_bytes_for_the_same_settings_and_any_jobs(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    first = _report(tmp_path, "a.html")
    assert first == _report(tmp_path, "b.html")
    if can_fork():
        assert first == _report(tmp_path, "c.html", "--jobs", "2")
    assert first != _report(tmp_path, "d.html", "--seed", "4")
    text = first.decode()
    assert text.startswith("<!DOCTYPE html>") and text.count("<svg") >= 6
    for needle in ("Win rate per seat", "Game length", "Scores", "Cards", "Counters over the game", "coins",
                   "Iron Pot"):
        assert needle in text
    assert "<script" not in text and "src=" not in text  # self-contained: nothing to fetch
    assert "report written to" in capsys.readouterr().out


def test_compare_two_option_values_side_by_side(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cmp.html"
    assert main(["report", BB, "--games", "6", "--players", "3", "--option", "final_boss_pick=drawn",
                 "--compare-option", "final_boss_pick=rom", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "final_boss_pick=drawn" in text and "final_boss_pick=rom" in text
    assert "class=verdict" in text and "Seat spread" in text
    printed = capsys.readouterr().out
    assert "final_boss_pick=drawn:" in printed and "final_boss_pick=rom:" in printed


def test_compare_players_and_rulesets(tmp_path: Path, write_ruleset: Callable[..., str]) -> None:
    other = write_ruleset(CHIPS.replace("power: 50", "power: 2"), {"chips.yaml": CHIP_CARDS.replace("50", "2")},
                          name="chips2.rules")
    mine = write_ruleset(CHIPS, {"chips.yaml": CHIP_CARDS})
    out = tmp_path / "r.html"
    assert main(["report", mine, "--games", "8", "--compare", other, "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "game.rules" in text and "chips2.rules" in text
    assert main(["report", MARKET, "--games", "4", "--players", "2", "--compare-players", "3",
                 "--out", str(out)]) == 0
    assert "2 players" in out.read_text(encoding="utf-8") and "3 players" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize(("extra", "message"), [
    (["--seats", "human"], "unattended"),
    (["--seats", "wizard"], "unknown agent"),
    (["--seats", "random,random,random"], "3 seat(s) for 2 players"),
    (["--track", "nothing"], "no global or per-player number counter `nothing`"),
    (["--option", "nothing=1"], "no option `nothing`"),
    (["--option", "oops"], "NAME=VALUE"),
    (["--players", "9"], "for 2..4 players"),
])
def test_usage_errors_are_one_line(extra: list[str], message: str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["report", MARKET, "--games", "2", "--players", "2", "--out", str(tmp_path / "x.html"), *extra]
                if "--players" not in extra else
                ["report", MARKET, "--games", "2", "--out", str(tmp_path / "x.html"), *extra])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.html").exists()


def test_out_must_be_a_file_in_a_folder_that_exists(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", MARKET, "--games", "2", "--out", str(tmp_path)]) == 2
    assert "that is a folder" in capsys.readouterr().err
    assert main(["report", MARKET, "--games", "2", "--out", str(tmp_path / "no" / "r.html")]) == 2
    assert "there is no folder" in capsys.readouterr().err


def test_tracked_counters_stop_where_too_few_games_reach() -> None:
    def game(i: int, rounds: int) -> GameRecord:
        return GameRecord(i, "finished", None, [0], [0.0], rounds, rounds, [{}], [{}], [{}],
                          tracks={"gold": [[k] for k in range(rounds)]})

    st = summarize([game(i, 3) for i in range(20)] + [game(20, 10)], 1, ("gold",))
    assert st.tracks["gold"] == [[0.0], [1.0], [2.0]] and st.track_games["gold"] == [21, 21, 21]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["report", MARKET, "--games", "20", "--players", "2", "--out", str(tmp_path / "p.html")]
    assert main(argv) == 0
    assert "[" not in capsys.readouterr().err  # not a terminal: no bar
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert main(argv) == 0
    assert "playing [" in term.getvalue() and "20/20" in term.getvalue()


def test_without_matplotlib_the_command_says_how_to_get_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    from liturgy.interpreter.tools.report import plots

    monkeypatch.setattr(plots, "available", lambda: False)
    assert main(["report", MARKET, "--games", "2", "--out", str(tmp_path / "r.html")]) == 2
    assert "pip install 'liturgy[report]'" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_a_one_player_comparison_compares_win_rates(tmp_path: Path, write_ruleset: Callable[..., str]) -> None:
    solo = write_ruleset(CHIPS.replace("players 2..2", "players 1..2"), {"chips.yaml": CHIP_CARDS})
    out = tmp_path / "solo.html"
    assert main(["report", solo, "--games", "4", "--players", "1", "--compare-players", "2", "--out", str(out)]) == 0
    assert "Seat spread: 1 player " in out.read_text(encoding="utf-8")  # two seats on one side: spread compared
    assert main(["report", solo, "--games", "4", "--players", "1", "--compare", solo, "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "Win rate: A: " in text and ", B: " in text
