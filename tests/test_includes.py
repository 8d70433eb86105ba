"""Rulesets in several files (issue 33 item 5): `include "part.rules"`.

The front end (dsl/frontend/includes.py) reads each included file in place of its `include` line, so the checker
and compiler see one program; these tests hold the rules docs/language.md states: located errors for refused,
missing, cyclic and repeated includes and for name clashes across files; the fingerprint of a ruleset split by
moving whole lines is the one-file fingerprint (saves made before the split load after it); and every tool that
reads a ruleset (check, fmt, the LSP, dump, the cluster bundle, serve's discovery) follows the includes.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from liturgy.dsl.frontend.includes import included_files, main_rulesets
from liturgy.dsl.loader import check_file
from liturgy.dsl.lsp.workspace import Workspace
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.tools.cli import main
from liturgy.interpreter.tools.cluster import bundle as B

ONE_FILE = """\
game "Split" { players 2..2 }
counter per player gold = 0
round {
  step s "Earn" {
    for p in players { p.gold += 1 }
    if round == 3 { end game }
  }
}
score(p) = p.gold
"""

MAIN = """\
game "Split" { players 2..2 }
include "split/state.rules"
round {
  step s "Earn" {
    for p in players { p.gold += 1 }
    if round == 3 { end game }
  }
}
include "split/score.rules"
"""


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _split(folder: Path) -> Path:
    _write(folder, {"game.rules": MAIN, "split/state.rules": "counter per player gold = 0\n",
                    "split/score.rules": "score(p) = p.gold\n"})
    return folder / "game.rules"


def _codes(path: Path) -> list[tuple[str, str, int]]:
    _, diags = check_file(str(path))
    return [(d.code, os.path.basename(d.span.file), d.span.line) for d in diags if d.is_error]


def test_a_split_ruleset_is_one_program_with_the_one_file_fingerprint_and_digest(tmp_path: Path) -> None:
    split = _split(tmp_path / "a")
    _write(tmp_path / "b", {"game.rules": ONE_FILE})
    a, b = load_ruleset(str(split)), load_ruleset(str(tmp_path / "b" / "game.rules"))
    assert a.program.rule_files == [str(split), str(tmp_path / "a" / "split" / "state.rules"),
                                    str(tmp_path / "a" / "split" / "score.rules")]
    assert a.fingerprint == b.fingerprint  # the split moved whole lines: the resolved text is the one file
    ga, gb = a.new_game(2, seed=3), b.new_game(2, seed=3)
    assert ga.finished and ga.digest() == gb.digest()
    # a save made with the one-file ruleset loads with the split one
    assert a.load_game(gb.to_json()).digest() == gb.digest()


def test_an_edit_in_an_included_file_changes_the_fingerprint(tmp_path: Path) -> None:
    split = _split(tmp_path)
    before = load_ruleset(str(split)).fingerprint
    (tmp_path / "split" / "score.rules").write_text("score(p) = p.gold * 2\n", encoding="utf-8")
    assert load_ruleset(str(split)).fingerprint != before


@pytest.mark.parametrize(("written", "why"), [
    ("../outside.rules", "leaves the main file's folder"),
    ("/etc/passwd.rules", "is not a relative path"),
    ("~/x.rules", "is not a relative path"),
    ("notes.txt", "does not name a `.rules` file"),
    ("link/x.rules", "through a link"),
])
def test_an_include_outside_the_folder_is_refused_at_its_line(tmp_path: Path, written: str, why: str) -> None:
    (tmp_path / "outside.rules").write_text("counter x = 0\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("counter x = 0\n", encoding="utf-8")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "x.rules").write_text("counter x = 0\n", encoding="utf-8")
    game = tmp_path / "g"
    _write(game, {"game.rules": f'game "G" {{ players 1..2 }}\ninclude "{written}"\n'})
    (game / "link").symlink_to(tmp_path / "outside")
    _, diags = check_file(str(game / "game.rules"))
    assert [(d.code, d.span.line) for d in diags] == [("E213", 2)]
    assert why in diags[0].message


def test_missing_cyclic_and_repeated_includes_are_located(tmp_path: Path) -> None:
    _write(tmp_path, {
        "game.rules": 'game "G" { players 1..2 }\ninclude "a.rules"\ninclude "nope.rules"\ninclude "a.rules"\n',
        "a.rules": 'include "b.rules"\n',
        "b.rules": 'counter x = 0\ninclude "a.rules"\n',
    })
    _, diags = check_file(str(tmp_path / "game.rules"))
    got = [(d.code, os.path.basename(d.span.file), d.span.line) for d in diags]
    assert got == [("E215", "b.rules", 2), ("E214", "game.rules", 3), ("E216", "game.rules", 4)]
    cycle = next(d for d in diags if d.code == "E215")
    assert "a.rules → b.rules → a.rules" in cycle.message
    assert "game.rules:2" in next(d for d in diags if d.code == "E216").hint


def test_a_name_clash_across_files_names_both_declarations(tmp_path: Path) -> None:
    split = _split(tmp_path)
    split.write_text(MAIN.replace('include "split/score.rules"', 'include "split/score.rules"\n'
                                  'counter per player gold = 0'), encoding="utf-8")
    _, diags = check_file(str(split))
    (clash,) = [d for d in diags if d.is_error]
    assert (clash.code, clash.span.file, clash.span.line) == ("E103", str(split), 10)
    assert clash.hint == f"the first declaration is at {tmp_path / 'split' / 'state.rules'}:1:1"


def test_syntax_and_type_errors_are_located_in_the_included_file(tmp_path: Path) -> None:
    split = _split(tmp_path)
    (tmp_path / "split" / "score.rules").write_text("\nscore(p) = p.gold +\n", encoding="utf-8")
    assert _codes(split) == [("E001", "score.rules", 2)]
    (tmp_path / "split" / "score.rules").write_text("score(p) = p.silver\n", encoding="utf-8")
    assert [c[1:] for c in _codes(split)] == [("score.rules", 1)]


def test_a_runtime_error_names_the_included_file(tmp_path: Path) -> None:
    split = _split(tmp_path)
    (tmp_path / "split" / "score.rules").write_text("score(p) = p.gold / (p.gold - 3)\n", encoding="utf-8")
    game = load_ruleset(str(split)).new_game(2, seed=1)
    assert game.error is not None and "score.rules:1:" in game.error


def test_check_fmt_and_dump_follow_the_includes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    split = _split(tmp_path)
    (tmp_path / "split" / "score.rules").write_text("score(p)  =  p.gold\n", encoding="utf-8")
    assert main(["check", str(split)]) == 0
    assert main(["fmt", "--check", str(split)]) == 1
    assert f"would reformat {tmp_path / 'split' / 'score.rules'}" in capsys.readouterr().out
    assert main(["fmt", str(split)]) == 0
    assert (tmp_path / "split" / "score.rules").read_text(encoding="utf-8") == "score(p) = p.gold\n"
    capsys.readouterr()
    assert main(["dump", str(split)]) == 0
    assert "score.rules:1" in capsys.readouterr().out


def test_discovery_keeps_the_main_files_and_leaves_out_their_parts(tmp_path: Path) -> None:
    split = _split(tmp_path)
    (tmp_path / "other.rules").write_text(ONE_FILE, encoding="utf-8")
    found = [str(p) for p in sorted(tmp_path.rglob("*.rules"))]
    assert main_rulesets(found) == [str(split), str(tmp_path / "other.rules")]
    assert included_files(str(split)) == [str(tmp_path / "split" / "state.rules"),
                                          str(tmp_path / "split" / "score.rules")]


def test_the_cluster_bundle_carries_every_file_and_compiles_to_the_same_fingerprint(tmp_path: Path) -> None:
    split = _split(tmp_path)
    ruleset = load_ruleset(str(split))
    bundle = B.make_bundle(ruleset, str(split))
    assert [name for name, _ in bundle.files] == ["game.rules", "split/state.rules", "split/score.rules"]
    assert bundle.fingerprint == ruleset.fingerprint
    assert B.compiled(bundle).fingerprint == ruleset.fingerprint


def test_the_language_server_goes_to_definitions_across_files(tmp_path: Path) -> None:
    split = _split(tmp_path)
    state, score = str(tmp_path / "split" / "state.rules"), str(tmp_path / "split" / "score.rules")
    model = Workspace()
    assert model.ruleset_for(score) == str(split)  # a part is served through the file that includes it
    gold = model.definition(score, 1, 15)
    assert [(s.file, s.line, s.column) for s in gold] == [(state, 1, 20)]
    uses = {(os.path.basename(s.file), s.line) for s in model.references(state, 1, 20)}
    assert uses == {("state.rules", 1), ("game.rules", 5), ("score.rules", 1)}
    main_to_part = model.definition(str(split), 5, 27)  # `gold` in the main file: declared in a part
    assert [(s.file, s.line, s.column) for s in main_to_part] == [(state, 1, 20)]
    # on an include's quoted path: the part itself (its first line); a refused or missing path is no definition
    assert [(s.file, s.line) for s in model.definition(str(split), 2, 10)] == [(state, 1)]
    assert [(s.file, s.line) for s in model.definition(str(split), 9, 27)] == [(score, 1)]
    assert model.definition(str(split), 2, 3) == []  # on the word `include`, not its path
    model.open(str(split), MAIN.replace("split/state.rules", "../elsewhere.rules"), 2)
    assert model.definition(str(split), 2, 12) == []
    model.open(str(split), MAIN, 3)
    model.open(score, "score(p) = p.gold +\n", 2)  # an unsaved edit in the part: its own diagnostics
    analysis = model.analyse(model.ruleset_for(score) or "")
    assert [d.code for d in analysis.diagnostics[score]] == ["E001"] and analysis.diagnostics[str(split)] == []


def test_serve_names_a_folder_s_main_file_after_its_folder(tmp_path: Path) -> None:
    from liturgy.interpreter.web.tables import discover

    folder = tmp_path / "orchard"
    _write(folder, {"main.rules": MAIN, "split/state.rules": "counter per player gold = 0\n",
                    "split/score.rules": "score(p) = p.gold\n"})
    served = discover([str(folder / "main.rules")])
    assert list(served) == ["orchard"] and served["orchard"].name == "Split"


def test_checking_a_part_alone_says_which_file_includes_it(tmp_path: Path) -> None:
    _split(tmp_path)
    _, diags = check_file(str(tmp_path / "split" / "state.rules"))
    e100 = next(d for d in diags if d.code == "E100")
    assert e100.hint == "this file is a part of game.rules, which includes it: check that file"
    _, diags = check_file(str(_write_alone(tmp_path)))
    assert next(d for d in diags if d.code == "E100").hint.startswith("start with: game")


def _write_alone(tmp_path: Path) -> Path:
    path = tmp_path / "alone" / "lonely.rules"
    path.parent.mkdir()
    path.write_text("counter gold = 0\n", encoding="utf-8")
    return path


def test_the_size_limit_counts_every_file_of_the_ruleset(tmp_path: Path) -> None:
    from liturgy.dsl.loader import MAX_RULESET_BYTES

    split = _split(tmp_path)
    half = "#" + "-" * 98 + "\n"
    (tmp_path / "split" / "state.rules").write_text(half * (MAX_RULESET_BYTES // 200) +
                                                    "counter per player gold = 0\n", encoding="utf-8")
    assert load_ruleset(str(split)).name == "Split"  # half the limit in a part: fine
    (tmp_path / "split" / "score.rules").write_text(half * (MAX_RULESET_BYTES // 200 + 10) +
                                                    "score(p) = p.gold\n", encoding="utf-8")
    _, diags = check_file(str(split))
    assert [(d.code, os.path.basename(d.span.file), d.span.line) for d in diags] == [("E212", "game.rules", 9)]
    assert "makes the ruleset too large" in diags[0].message
