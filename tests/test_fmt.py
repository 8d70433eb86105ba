"""`liturgy fmt` (issue 20, item 3): one canonical layout, idempotent, comments kept, the program unchanged.

Checked on every shipped ruleset and docs example (they are formatted: `fmt --check` passes on them), on the
same files with their whitespace scrambled (the layout must not depend on the old spacing), and on random
rulesets from the differential fuzzer's generator.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from liturgy.dsl.frontend.layout import FormatError, _comments, _lines, _parse, format_text, layout, shape
from liturgy.dsl.frontend.parser import parse_ruleset_text
from liturgy.interpreter.tools.cli import main as cli_main
from ruleset_strategies import rulesets

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted((ROOT / "rulesets").rglob("*.rules")) + sorted((ROOT / "docs" / "examples").glob("*.rules"))
IDS = [str(p.relative_to(ROOT)) for p in SHIPPED]
SMALL = [p for p in SHIPPED if p.stat().st_size < 12_000]

# Tokens that may touch their neighbour without a space and still lex the same.
_TOUCHING = frozenset({"(", ")", "[", "]", "{", "}", ",", ":"})


def _program(text: str) -> object:
    rs, errors = parse_ruleset_text(text, "x.rules")
    assert rs is not None, errors
    return shape(rs.decls)


@pytest.mark.parametrize("path", SHIPPED, ids=IDS)
def test_shipped_files_are_formatted_and_keep_their_program(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    out = format_text(text, str(path))
    assert out == text, f"run: liturgy fmt {path.relative_to(ROOT)}"
    assert _program(out) == _program(text)
    assert [c for _, _, c in _comments(out)] == [c for _, _, c in _comments(text)]


def test_fmt_check_passes_on_rulesets_and_docs_examples(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["fmt", "--check", str(ROOT / "rulesets"), str(ROOT / "docs" / "examples")]) == 0
    assert "would reformat 0 file(s)" in capsys.readouterr().err


def _docs_blocks() -> list[tuple[str, str]]:
    """Every ```rules / ```liturgy block of docs/*.md that parses as a ruleset (the errors catalogue's examples and
    the reference's fragments: every construct of the language)."""
    out = []
    for md in sorted((ROOT / "docs").glob("*.md")):
        text = md.read_text(encoding="utf-8")
        for n, m in enumerate(re.finditer(r"^```(?:rules|liturgy)[^\n]*\n(.*?)^```", text, re.S | re.M)):
            if parse_ruleset_text(m.group(1), "x.rules")[0] is not None:
                out.append((f"{md.name}#{n}", m.group(1)))
    return out


def test_every_parsing_docs_block_formats_idempotently_to_the_same_program() -> None:
    blocks = _docs_blocks()
    assert len(blocks) >= 100
    for name, block in blocks:
        out = format_text(block, name)
        assert format_text(out, name) == out, name
        assert _program(out) == _program(block), name


def test_the_layout() -> None:
    messy = (
        'game "G"{players 2..3\n'
        "step_limit 9}\n"
        "die d{1,2+ ,3}   # faces\n"
        "counter per player n[Kind]   -3 .. 3=- 1\n"
        "enum Kind{a,b,\n"
        "c}\n\n\n\n"
        "fn f( p : player )->int=\n"
        "size( p.hand )+n [ a ] *-2\n"
        "proc g(p: player){if f(p)>0{let x=1   x+=1}else{ }\n"
        "        # a note\n"
        "for c in [ 1,2 ] where c!=2{log \"c {}\" , c}  # trailing\n"
        "}\n"
        "score(p)= f(p)\n"
    )
    assert layout(messy) == (
        'game "G" { players 2..3\n'
        "  step_limit 9 }\n"
        "die d { 1, 2+, 3 }  # faces\n"
        "counter per player n[Kind] -3..3 = -1\n"
        "enum Kind { a, b,\n"
        "    c }\n\n\n"
        "fn f(p: player) -> int =\n"
        "    size(p.hand) + n[a] * -2\n"
        "proc g(p: player) { if f(p) > 0 { let x = 1  x += 1 } else { }\n"
        "  # a note\n"
        '  for c in [1, 2] where c != 2 { log "c {}", c }  # trailing\n'
        "}\n"
        "score(p) = f(p)\n"
    )


def test_continuations_nest_by_open_brackets_and_comments_follow_the_next_line() -> None:
    text = (
        "fn f() -> int =\n"
        "  max(1,\n"
        "  min(2,\n"
        "  3),\n"
        "  4\n"
        "  )\n"
        "setup {\n"
        "move x to y\n"
        "# closing\n"
        "}\n"
    )
    assert layout(text) == (
        "fn f() -> int =\n"
        "    max(1,\n"
        "        min(2,\n"
        "            3),\n"
        "        4\n"
        "    )\n"
        "setup {\n"
        "  move x to y\n"
        "  # closing\n"
        "}\n"
    )


def test_a_file_that_does_not_parse_is_refused_with_the_parsers_diagnostic() -> None:
    with pytest.raises(FormatError) as err:
        format_text("setup { move }\n", "bad.rules")
    assert err.value.diagnostics[0].code == "E001"


def test_fmt_writes_in_place_and_check_fails_until_then(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "g.rules"
    f.write_text('game "G" {players 2..2}\n')
    assert cli_main(["fmt", "--check", "--diff", str(tmp_path)]) == 1
    assert "+game \"G\" { players 2..2 }" in capsys.readouterr().out
    assert cli_main(["fmt", str(f)]) == 0
    assert f.read_text() == 'game "G" { players 2..2 }\n'
    assert cli_main(["fmt", "--check", str(f)]) == 0
    (tmp_path / "bad.rules").write_text("setup {\n")
    assert cli_main(["fmt", "--check", str(tmp_path)]) == 1
    assert "E001" in capsys.readouterr().err
    assert cli_main(["fmt", str(tmp_path / "missing.rules")]) == 2


# ---------------------------------------------------------------- fuzz
@st.composite
def scrambled(draw: st.DrawFn, text: str, newlines: bool) -> str:
    """``text`` with its whitespace redrawn: indentation, spaces between tokens (none where that still lexes
    the same), blank lines, tabs; with ``newlines`` also line breaks between tokens."""
    lines = _lines(text, _parse(text, "x.rules"))
    out: list[str] = []
    for line in lines:
        parts = [draw(st.sampled_from(["", " ", "    ", "\t", "       "]))]
        prev: str | None = None
        for tok in line.tokens:
            if prev is not None:
                touching = prev in _TOUCHING or tok.value in _TOUCHING
                gap = ["", " ", "  ", "\t"] if touching else [" ", "  ", "\t "]
                if newlines:
                    gap.append("\n")
                parts.append(draw(st.sampled_from(gap)))
            parts.append(tok.value)
            prev = tok.value
        if line.comment is not None:
            parts.append(draw(st.sampled_from([" ", "", "      "])) + line.comment)
        if not line.tokens and line.comment is None and draw(st.booleans()):
            parts.append(" \t ")
        out.append("".join(parts) + draw(st.sampled_from(["", " ", "\t"])))
    return "\n".join(out)


@given(data=st.data())
def test_fuzz_scrambled_whitespace_formats_back_to_the_same_text(data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(SMALL))
    text = path.read_text(encoding="utf-8")
    messy = data.draw(scrambled(text, newlines=False))
    assert format_text(messy) == format_text(text)


@given(data=st.data())
def test_fuzz_new_line_breaks_keep_the_program_and_are_idempotent(data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(SMALL))
    text = path.read_text(encoding="utf-8")
    messy = data.draw(scrambled(text, newlines=True))
    out = format_text(messy)  # raises FormatError itself if the program changed
    assert _program(out) == _program(text)
    assert format_text(out) == out
    assert [c for _, _, c in _comments(out)] == [c for _, _, c in _comments(text)]


@given(source=rulesets(), data=st.data())
def test_fuzz_generated_rulesets(source: str, data: st.DataObject) -> None:
    # each text is formatted and each program parsed once (both are pure functions of the text): the same
    # assertions at about half the work of formatting the messy text three times and parsing the source twice
    out = format_text(source)
    program = _program(source)
    assert _program(out) == program
    assert format_text(out) == out
    messy = data.draw(scrambled(source, newlines=True))
    tidy = format_text(messy)
    assert format_text(tidy) == tidy
    assert _program(tidy) == program


def test_deep_nesting_formats_without_recursion() -> None:
    """2,000 nested parentheses parse (they add no depth to the program); the formatter walks its tree in loops."""
    text = 'game "G" { players 2..2 }\nfn f() -> int = ' + "(" * 2000 + "- 1" + ")" * 2000 + "\n"
    out = format_text(text)
    assert out.endswith("(" * 2000 + "-1" + ")" * 2000 + "\n")
