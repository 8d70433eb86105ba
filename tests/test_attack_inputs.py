"""The attack corpus, typed input, card-file numbers and printed text (issue 18).

Each case once ended a game, a check or the terminal badly: typed `²` or a 5,000-digit number ended `liturgy play`
(exit 2, the game lost), an int subclass with rigged comparisons reached the state through `Game.apply`, `2.0`,
`1.0e+16`, hex, base 60 and thousands of digits passed as card ints, ANSI escapes in rulesets reached the
terminal raw, and a `"\\ud800"` literal passed `check` and then ended `play` mid-game.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.dsl.printable import PrintableStream, printable
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.runtime.errors import IllegalChoice
from liturgy.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
HIGH_CARD = ROOT / "docs" / "examples" / "high_card.rules"


def _play(answers: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "liturgy.interpreter.tools.cli", "play", str(HIGH_CARD),
                           "--seats", "human,random", "--seed", "3", *extra], input=answers, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.mark.parametrize("typed", ["²", "log ¹", "9" * 5000, "#" + "9" * 5000, "log " + "9" * 5000, "#²",
                                   "\x1b[2J", "\ud7ff", "0", "-1"])
def test_nothing_typed_ends_the_game(typed: str) -> None:
    run = _play(f"{typed}\n" + "1\n" * 5)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Game over after 5 rounds." in run.stdout and "Traceback" not in run.stderr
    assert "\x1b" not in run.stdout  # an escape typed at the prompt is echoed visibly, never obeyed


class Rigged(int):
    """An int that says it is within any range: `0 <= x < n` holds for every n."""

    def __lt__(self, other: object) -> bool:
        return True

    def __le__(self, other: object) -> bool:
        return True

    def __ge__(self, other: object) -> bool:
        return True

    def __gt__(self, other: object) -> bool:
        return False


@pytest.mark.parametrize("player", [None, 0, Rigged(0)])
def test_apply_refuses_a_rigged_int_before_recording_anything(player: int | None) -> None:
    game = load_ruleset(str(HIGH_CARD)).new_game(2, 5)
    before = game.digest()
    with pytest.raises(IllegalChoice):
        game.apply(Rigged(99), player)
    assert game.digest() == before and game.state.commits == {} and game.state.decisions == []
    with pytest.raises(IllegalChoice):
        game.apply(True, 0)  # a bool is not an option number either
    game.apply(Rigged(1), Rigged(0))  # a subclass's honest value is used as the plain int it is
    assert game.state.decisions == [(0, 1)] and type(game.state.decisions[0][1]) is int


CARD_RULES = ('game "G" { players 1..2 }\ncard Relic { weight: int\n  ws: list of int = [] }\ncards "cards.yaml"\n'
              'zone vault: set public of Relic\nround { step s "S" { if size(vault) > 0 { end game } } }\n'
              "score(p) = sum(c.weight for c in vault)\n")


@pytest.mark.parametrize(("value", "code", "says"), [
    ("2.0", "E401", "`weight` of `Idol` is a whole number, not 2.0"),
    ("1.0e+16", "E401", "not 1e+16"),
    ("99999999999999999999", "E402", "outside the 64-bit integer range"),
    ("9" * 5000, "E402", "outside the 64-bit integer range"),
    ("9223372036854775808", "E402", "outside the 64-bit integer range"),
    ("0x" + "f" * 3000, "E403", "is not a decimal integer"),
    ("190:20:30:10:20:30:40:50:10:20:30", "E403", "is not a decimal integer"),
    ("1:30", "E403", "`1:30` is not a decimal integer"),
    ("0b101", "E403", "not a decimal integer"),
    ("017", "E403", "not a decimal integer"),
    ("1_000", "E403", "not a decimal integer"),
    ('"Idol \\udc00"', "E404", "half of a surrogate pair"),
])
def test_a_card_number_that_is_not_a_64_bit_decimal_is_refused_where_it_is(tmp_path: Path, value: str, code: str,
                                                                           says: str) -> None:
    (tmp_path / "g.rules").write_text(CARD_RULES, encoding="utf-8")
    (tmp_path / "cards.yaml").write_text(f"kind: Relic\nstart: vault\ncards:\n  - name: Idol\n    weight: {value}\n",
                                         encoding="utf-8")
    program, diags = check_file(str(tmp_path / "g.rules"))
    assert program is None
    errors = [d for d in diags if d.is_error]
    assert [d.code for d in errors] == [code] and says in errors[0].message, errors
    assert (errors[0].span.line, errors[0].span.column) == (5, 19 if code == "E404" else 13)


@pytest.mark.parametrize(("entry", "code"), [("    weight: 1\n    count: 2.0\n", "E401"),
                                             ("    weight: 1\n    ws: [1, 2.0]\n", "E401"),
                                             ("    weight: -9223372036854775808\n", None)])
def test_whole_numbers_elsewhere_in_a_card(tmp_path: Path, entry: str, code: str | None) -> None:
    (tmp_path / "g.rules").write_text(CARD_RULES, encoding="utf-8")
    (tmp_path / "cards.yaml").write_text(f"kind: Relic\nstart: vault\ncards:\n  - name: Idol\n{entry}",
                                         encoding="utf-8")
    program, diags = check_file(str(tmp_path / "g.rules"))
    assert [d.code for d in diags if d.is_error] == ([code] if code else [])


def test_a_lone_surrogate_in_a_ruleset_is_refused_at_check_time(tmp_path: Path) -> None:
    path = tmp_path / "g.rules"
    path.write_text('game "G" { players 1..2 }\nround { step s { log "a\\ud800b"\n end game } }\nscore(p) = 0\n',
                    encoding="utf-8")
    program, diags = check_file(str(path))
    assert program is None and [(d.code, d.span.line, d.span.column) for d in diags] == [("E404", 2, 24)]


ESCAPES = ('game "G\\x1b]0;pwned\\x07" { players 1..2 }\ncard K { n: int }\ncards "k.yaml"\n'
           "zone z: pile public of K\ncounter n 0..9\n"
           'round { step s { log "clear\\x1b[2J\\x1b[H{}\\u202e", top(z)\n  n += 1\n  if n > 2 { end game } } }\n'
           "score(p) = n\n")


def test_escapes_in_rulesets_and_card_names_are_printed_visibly(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "g.rules").write_text(ESCAPES, encoding="utf-8")
    (tmp_path / "k.yaml").write_text('kind: K\nstart: z\ncards:\n  - name: "Bell\\a\\e[31m"\n    n: 1\n',
                                     encoding="utf-8")
    assert main(["play", str(tmp_path / "g.rules"), "--seats", "random"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "G\\x1b]0;pwned\\x07" in out and "clear\\x1b[2J\\x1b[HBell\\x07\\x1b[31m\\u202e" in out


def test_printable_keeps_text_and_layout() -> None:
    assert printable("plain, accents é, emoji 😀\n\tindent") == "plain, accents é, emoji 😀\n\tindent"
    assert printable("a\rb\x00c\x9bd\ud800") == "a\\x0db\\x00c\\x9bd\\ud800"
    sink = io.StringIO()
    PrintableStream(sink).write("\rprogress \x1b[1m")
    assert sink.getvalue() == "\rprogress \\x1b[1m"


# ---------------------------------------------------------------- exit codes: only the user's command line is exit 2
@pytest.mark.parametrize(("error", "says"), [
    (ValueError("Exceeds the limit (4300 digits) for integer string conversion"), "liturgy: error: Exceeds the limit"),
    (OSError(28, "No space left on device"), "liturgy: error: [Errno 28] No space left on device"),
    (KeyError("zones"), "liturgy: internal error (KeyError): 'zones'"),
    (RecursionError("maximum recursion depth exceeded"), "internal error (RecursionError)"),
])
def test_an_unexpected_error_is_one_line_and_exit_1(error: Exception, says: str, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A stray ValueError (the issue's 4,300-digit number ended as `liturgy: error: Exceeds the limit`, exit 2) or
    any other exception from inside a command is not the user's usage mistake: one line, exit 1, no traceback."""
    from liturgy.interpreter.tools import cli

    def broken(_args: object) -> int:
        raise error

    monkeypatch.setattr(cli, "cmd_check", broken)
    assert main(["check", str(HIGH_CARD)]) == 1
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_usage_mistakes_stay_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", str(HIGH_CARD), "--players", "9", "--seats", "random"]) == 2
    assert "is for 2..2 players, not 9" in capsys.readouterr().err
    assert main(["simulate", str(HIGH_CARD), "--players", "9", "--games", "1"]) == 2
    assert "players, not 9" in capsys.readouterr().err
    assert main(["fmt", str(tmp_path / "missing.rules")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:  # argparse's own usage errors
        main(["simulate", str(HIGH_CARD), "--games", "nan"])
    assert stop.value.code == 2
