"""Diagnostics from the parser, checker and card loader: codes, positions, hints."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from liturgy.dsl.diagnostics import Diagnostic, render
from liturgy.dsl.loader import check_file

BASE = """
game "Mini" { players 2..4 }
enum Colour { red, blue }
card Chip { worth: int  colour: Colour = red  bonus: function(n: int) -> int = n  on_take: effect(p: player) = none }
cards "chips.yaml"
zone bag: deck hidden of Chip
zone hand: per player set owner of Chip
counter per player score 0..99 = 0
setup { shuffle bag }
round {
  step take "Take" {
    for p in players {
      choose c from bag by p { move c to p.hand  reveal c  do c.on_take(p)  p.score += c.bonus(c.worth) }
    }
    if size(bag) == 0 { end game }
  }
}
score(p) = p.score
"""
CHIPS = "kind: Chip\nstart: bag\ncards:\n  - {name: One, worth: 1}\n  - {name: Two, worth: 2, colour: blue}\n"


def diags_for(write: Callable[..., str], text: str, chips: str = CHIPS) -> list[Diagnostic]:
    _, diags = check_file(write(text, {"chips.yaml": chips}))
    return diags


def codes(diags: list[Diagnostic]) -> list[str]:
    return [d.code for d in diags if d.is_error]


def test_base_is_clean(write_ruleset: Callable[..., str]) -> None:
    assert diags_for(write_ruleset, BASE) == []


@pytest.mark.parametrize(
    ("old", "new", "code"),
    [
        ("p.score += c.bonus(c.worth)", "p.scor += 1", "E101"),
        ("shuffle bag", "shuffle bagg", "E101"),
        ("shuffle bag", "shuffle hand", "E102"),
        ("counter per player score 0..99 = 0", "counter per player score 0..99 = 0\nzone bag: pile public", "E103"),
        ("p.score += c.bonus(c.worth)", "p.score += true", "E140"),
        ("p.score += c.bonus(c.worth)", "p.score += c.bonus(1, 2)", "E127"),
        ("if size(bag) == 0", "if size(bag)", "E140"),
        ("move c to p.hand", "move c to p.score", "E121"),
        ("do c.on_take(p)", "do c.worth(p)", "E147"),
        ("end game", "skip to nowhere", "E101"),
        ('game "Mini" { players 2..4 }', 'game "Mini" { players 4..2 }', "E110"),
        ("setup { shuffle bag }", "setup { shuffle bag  skip to take }", "E133"),
        ("setup { shuffle bag }", 'setup { log "{} {}", 1 }', "E134"),
        ("setup { shuffle bag }", "setup { break }", "E132"),
        ("setup { shuffle bag }", "setup { let x = roll(bag) }", "E148"),
    ],
)
def test_semantic_errors(write_ruleset: Callable[..., str], old: str, new: str, code: str) -> None:
    assert old in BASE
    found = codes(diags_for(write_ruleset, BASE.replace(old, new, 1)))
    assert code in found, found


def test_unknown_name_has_position_caret_and_hint(write_ruleset: Callable[..., str]) -> None:
    diags = diags_for(write_ruleset, BASE.replace("p.score += c.bonus(c.worth)", "p.scroe += 1"))
    (d,) = [d for d in diags if d.is_error]
    assert d.code == "E101"
    assert d.hint == "did you mean `score`?"
    text = render(d)
    first, source, caret = text.splitlines()[:3]
    assert first.endswith("error[E101]: players have no `scroe`")
    assert ":13:" in first
    assert "p.scroe += 1" in source
    assert caret.strip() == "^^^^^"
    assert caret.index("^") == source.index("scroe")


def test_syntax_errors_say_what_was_expected_and_recover(write_ruleset: Callable[..., str]) -> None:
    broken = BASE.replace("setup { shuffle bag }", "setup { shuffle }").replace(
        "score(p) = p.score", "score(p) = p.score +")
    diags = diags_for(write_ruleset, broken)
    assert [d.code for d in diags] == ["E001", "E001"]
    assert "expected" in diags[0].message
    assert diags[0].span.line == 9 and diags[1].span.line > 9


def test_bad_character_is_reported(write_ruleset: Callable[..., str]) -> None:
    diags = diags_for(write_ruleset, BASE.replace("shuffle bag", "shuffle bag $"))
    assert codes(diags) == ["E002"]


def test_unused_declaration_warns(write_ruleset: Callable[..., str]) -> None:
    diags = diags_for(write_ruleset, BASE + "\ncounter spare 0..3 = 0\n")
    assert [d.code for d in diags] == ["W001"]


def test_trigger_cycle_warns(write_ruleset: Callable[..., str]) -> None:
    extra = "\nwindow a()\nwindow b()\non a() { fire b() }\non b() { fire a() }\n"
    text = BASE.replace("setup { shuffle bag }", "setup { shuffle bag  fire a() }") + extra
    assert "W004" in [d.code for d in diags_for(write_ruleset, text)]


def test_direct_write_to_pool_holder_warns(write_ruleset: Callable[..., str]) -> None:
    text = BASE.replace("counter per player score 0..99 = 0",
                        "counter per player score 0..99 = 0\npool gold { bank: 5  per player purse }").replace(
        "setup { shuffle bag }", "setup { shuffle bag  for p in players { p.purse += 1 } }")
    assert "W030" in [d.code for d in diags_for(write_ruleset, text)]


# ---------------------------------------------------------------- card files

@pytest.mark.parametrize(
    ("chips", "code", "line"),
    [
        ("kind: Chip\nstart: bag\ncards:\n  - {name: One, worth: 1, wrth: 2}\n", "E206", 4),
        ("kind: Chip\nstart: bag\ncards:\n  - {name: One}\n", "E207", 4),
        ("kind: Chop\nstart: bag\ncards: []\n", "E208", 1),
        ("kind: Chip\nstart: bag\ncards:\n  - {name: One, worth: many}\n", "E209", 4),
        ("kind: Chip\nstart: bag\ncards:\n  - {name: One, worth: 1, colour: green}\n", "E209", 4),
        ("kind: Chip\nstart: bag\ncards:\n  - name: One\n    worth: 1\n   colour: red\n", "E202", 6),
        ("kind: Chip\nstart: bag\ncards:\n  - &a {name: One, worth: 1}\n  - *a\n", "E203", 5),
        ("", "E204", 1),
        ("kind: Chip\nstart: bag\ncards: []\ncards:\n  - {name: One, worth: 1}\n", "E202", 4),
        ("kind: Chip\nstart: bag\ncards:\n  - name: One\n    worth: 1\n    on_take: |\n      p.score += \n", "E205", 7),
        ("kind: Chip\nstart: bag\ncards:\n  - {name: One, worth: 1}\n  - {name: One, worth: 2}\n", "E103", 5),
    ],
)
def test_card_file_errors_point_into_the_yaml(
    write_ruleset: Callable[..., str], chips: str, code: str, line: int
) -> None:
    diags = diags_for(write_ruleset, BASE, chips)
    errors = [d for d in diags if d.is_error]
    assert errors and errors[0].code == code, [(d.code, d.message) for d in diags]
    assert errors[0].span.file.endswith("chips.yaml")
    assert errors[0].span.line == line


@pytest.mark.parametrize(
    ("entry", "code", "message", "hint"),
    [
        # YAML 1.1 reads unquoted no/off/on/yes as booleans: keys keep their text, values get a quoting hint
        ("{name: One, worth: 1, off: 2}", "E206", "unknown card field `off` for kind `Chip`", "allowed: name"),
        ("{name: no, worth: 1}", "E209", "invalid value at `name`",
         'YAML reads the unquoted `no` as false: write "no" in quotes to mean the text'),
        ("{name: One, worth: 1, colour: null}", "E209", "invalid value at `colour`", "allowed: red, blue"),
        ("{name: One, worth: 1, colour: Red}", "E209", "invalid value at `colour`", "did you mean `red`?"),
    ],
)
def test_yaml_booleans_where_text_was_meant(
    write_ruleset: Callable[..., str], entry: str, code: str, message: str, hint: str
) -> None:
    chips = f"kind: Chip\nstart: bag\ncards:\n  - {entry}\n"
    errors = [d for d in diags_for(write_ruleset, BASE, chips) if d.is_error]
    assert [d.code for d in errors] == [code], [(d.code, d.message) for d in errors]
    assert errors[0].message.startswith(message) and errors[0].hint.startswith(hint), (errors[0].message,
                                                                                        errors[0].hint)


def test_a_card_field_named_kind_is_not_the_card_kind(write_ruleset: Callable[..., str]) -> None:
    """A card field called `kind` with a bad value is E209 on that field, not E208 (the file's card kind)."""
    text = BASE.replace("colour: Colour = red", "colour: Colour = red  kind: Colour = red")
    chips = "kind: Chip\nstart: bag\ncards:\n  - {name: One, worth: 1, kind: on}\n"
    errors = [d for d in diags_for(write_ruleset, text, chips) if d.is_error]
    assert [(d.code, d.message.split(":")[0]) for d in errors] == [("E209", "invalid value at `kind`")]


def test_effect_type_errors_point_into_the_yaml(write_ruleset: Callable[..., str]) -> None:
    chips = "kind: Chip\nstart: bag\ncards:\n  - name: One\n    worth: 1\n    on_take: \"p.scor += 1\"\n"
    diags = [d for d in diags_for(write_ruleset, BASE, chips) if d.is_error]
    assert [d.code for d in diags] == ["E101"]
    assert diags[0].span.file.endswith("chips.yaml") and diags[0].span.line == 6
    assert diags[0].span.column == 17  # the `scor` in `"p.scor += 1"`
    assert diags[0].hint == "did you mean `score`?"


def test_card_files_outside_the_project_are_refused(write_ruleset: Callable[..., str]) -> None:
    diags = diags_for(write_ruleset, BASE.replace('cards "chips.yaml"', 'cards "../../../etc/*"'))
    assert "E210" in codes(diags) or "E211" in codes(diags)
    diags = diags_for(write_ruleset, BASE.replace('cards "chips.yaml"', 'cards "/etc/passwd"'))
    assert "E210" in codes(diags)


def test_non_utf8_ruleset_is_a_diagnostic(tmp_path: object) -> None:
    from pathlib import Path

    p = Path(str(tmp_path)) / "bad.rules"
    p.write_bytes(b"game \"x\" { players 1..2 }\n\xff\xfe")
    _, diags = check_file(str(p))
    assert [d.code for d in diags] == ["E201"]


def test_missing_file_is_a_diagnostic() -> None:
    _, diags = check_file("/nonexistent/x.rules")
    assert [d.code for d in diags] == ["E200"]


def test_shipped_bloodborne_is_clean() -> None:
    from conftest import BLOODBORNE

    program, diags = check_file(str(BLOODBORNE))
    assert program is not None
    assert diags == []
    kinds = {}
    for c in program.cards:
        kinds.setdefault((c.kind, c.start), 0)
        kinds[(c.kind, c.start)] += c.count
    assert kinds[("Action", "hand")] == 5
    assert kinds[("Action", "upgrade_deck")] == 32
    assert kinds[("Monster", "monster_pile")] == 18
    assert kinds[("Monster", "boss_pile")] == 7
    assert kinds[("Monster", "final_boss_pile")] == 5


def test_unreachable_step_warns(write_ruleset: Callable[..., str]) -> None:
    text = BASE.replace('''    if size(bag) == 0 { end game }
  }''', '''    if size(bag) == 0 { end game }
    skip to take
  }
  step never "Never" { end game }''')
    assert [d.code for d in diags_for(write_ruleset, text)] == ["W005"]


def test_out_of_bounds_constant_write_warns(write_ruleset: Callable[..., str]) -> None:
    text = BASE.replace("setup { shuffle bag }", "setup { shuffle bag  for p in players { p.score = 120 } }")
    assert [d.code for d in diags_for(write_ruleset, text)] == ["W006"]


@pytest.mark.parametrize("style", [">", "|", "plain"])
def test_effect_errors_in_multiline_yaml_point_at_the_exact_spot(write_ruleset: Callable[..., str], style: str) -> None:
    body = ("    on_take: log \"x\"\n      p.score += 1 +\n" if style == "plain"
            else f"    on_take: {style}\n      log \"x\"\n      p.score += 1 +\n")
    chips = "kind: Chip\nstart: bag\ncards:\n  - name: One\n    worth: 1\n" + body
    (d,) = [d for d in diags_for(write_ruleset, BASE, chips) if d.is_error]
    assert d.code == "E205"
    assert (d.span.line, d.span.column) == ((7, 20) if style == "plain" else (8, 20))


def test_negative_counter_bounds(write_ruleset: Callable[..., str]) -> None:
    text = BASE.replace("counter per player score 0..99 = 0", "counter per player score -5..99 = -5")
    assert diags_for(write_ruleset, text) == []


def test_end_game_only_in_an_uncalled_procedure_is_no_reachable_end(write_ruleset: Callable[..., str]) -> None:
    text = BASE.replace("    if size(bag) == 0 { end game }\n", "") + "\nproc stop() { end game }\n"
    codes_found = [d.code for d in diags_for(write_ruleset, text)]
    assert "W003" in codes_found and "W001" in codes_found
    d = next(d for d in diags_for(write_ruleset, text) if d.code == "W003")
    assert "that the game can reach" in d.message
