"""The compatibility corpus (issue 33): old rulesets never break.

tests/compat/corpus.json lists every version of every `.rules` file that ever shipped in rulesets/ or appeared in
docs/ in this repository's history, with the card files each one read (tools/compat_corpus.py collects them;
the files are stored once each under their git blob id in tests/compat/blobs/). tests/compat/user/ holds
rulesets written as a new user would, with their own `fn height`, `line`, `neighbours`, `dx`, `dy`, `active`.

Each must pass `check` with today's language and (one version per distinct set of the language features it uses,
and every file's newest: tools/compat_corpus.py says why) play a game to its end, or fail only with a migration error
that docs/compatibility.md documents, located in the right file. So a new built-in, keyword or rule that breaks
an old ruleset fails here, in CI.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from liturgy.dsl.checker.program import Program
from liturgy.dsl.frontend.reserved import grammar_words
from liturgy.dsl.loader import _no_gc_pauses, check_file
from liturgy.interpreter.engine import Ruleset

ROOT = Path(__file__).resolve().parent.parent
COMPAT = ROOT / "tests" / "compat"
CORPUS: list[dict[str, Any]] = json.loads((COMPAT / "corpus.json").read_text(encoding="utf-8"))
USER = sorted((COMPAT / "user").glob("*.rules"))
DOC = (ROOT / "docs" / "compatibility.md").read_text(encoding="utf-8")
# the migration errors docs/compatibility.md documents: `| E380 | …` rows of its table
MIGRATIONS = set(re.findall(r"^\| (E\d{3}) \|", DOC, re.MULTILINE))


@pytest.fixture(autouse=True)
def _collector_held_for_the_test() -> Iterator[None]:
    """The cyclic collector paused for each test of this file, and resumed when it ends.

    Why: each test checks a ruleset, compiles it and plays a game, and drops all of it when it ends. The loader
    holds the collector back while it parses and checks (dsl/loader.py); when it resumed it, its next pass
    scanned the whole new program, alive and about to be used, and the later passes of the older generation
    scanned it again with the compile's closures (5.6 s of the file's 35 s of CPU, counted with
    ``gc.callbacks``; 4.5 s with this fixture, and the file's tests 1.6-1.7 s less in two runs). Held for the
    whole test, the collector's first pass after it meets only what the test left: the program and game are
    then freed by reference counting or are cycles it frees in that one pass.
    Objects are reference-counted as ever, each test's garbage lives until its test ends (one game of one
    ruleset), and no check, compile, game or assertion depends on when the collector runs."""
    with _no_gc_pauses():  # the loader's own pause, held here for the whole test
        yield


def _materialize(entry: dict[str, Any], into: Path) -> Path:
    """Write one corpus version and its card files at their paths in the repository of that day."""
    for rel, blob in [(entry["path"], entry["blob"]), *entry["files"].items()]:
        dest = into / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes((COMPAT / "blobs" / blob).read_bytes())
    return into / entry["path"]


def _plays(path: Path, codegen: bool = True, program: Program | None = None) -> None:
    """Check (unless ``program`` is the checked ruleset already) and compile the ruleset, then play one seeded
    random game at its fewest players to its end.

    The corpus compiles to closures only (``codegen=False``): the same semantics as generated code (tests/
    test_codegen.py holds them equal), at half the CPU for the corpus's versions; today's shipped rulesets are
    compiled both ways by their own tests. A version checked clean is not checked a second time here: parsing
    and checking it again cost a third of its test's CPU and checks nothing new (the check is deterministic)."""
    if program is None:
        program, diags = check_file(str(path))
        assert program is not None, "\n".join(str(d) for d in diags if d.is_error)
    rules = Ruleset(program, codegen=codegen)
    game = rules.new_game(rules.min_players, seed=7)
    game.random_playout(random.Random(7))
    assert game.error is None, game.error
    assert game.result is not None


def test_the_corpus_holds_every_version_of_the_shipped_rulesets_it_was_collected_with() -> None:
    """Every file's versions are numbered 1..n without a gap, each stored, and the four large games and the
    classics are all there: a corpus collected from a shallow clone (one version each) would fail here."""
    by_path: dict[str, list[int]] = {}
    for e in CORPUS:
        path, n = e["id"].rsplit("@", 1)
        by_path.setdefault(path, []).append(int(n))
        for blob in [e["blob"], *e["files"].values()]:
            assert (COMPAT / "blobs" / blob).is_file(), f"{e['id']}: blob {blob} missing"
    for path, ns in by_path.items():
        assert sorted(ns) == list(range(1, len(ns) + 1)), path
    for game in ("bloodborne", "slay_the_spire", "betrayal", "fury_of_dracula"):
        assert len(by_path[f"rulesets/{game}.rules"]) >= 7, game
    assert len(CORPUS) >= 195  # session 13's versions in (collected again in session 14)
    # games are played for a sample (tools/compat_corpus.py, ``mark_plays``): every file's newest version among it
    newest = {e["path"]: e for e in CORPUS}
    assert all(e["play"] for e in newest.values() if not e["errors"])
    assert sum(e["play"] for e in CORPUS) >= 80


@pytest.mark.parametrize("entry", CORPUS, ids=[e["id"] for e in CORPUS])
def test_every_earlier_ruleset_still_checks_and_plays(tmp_path: Path, entry: dict[str, Any]) -> None:
    path = _materialize(entry, tmp_path)
    program, diags = check_file(str(path))
    errors = [d for d in diags if d.is_error]
    if not errors:
        assert program is not None
        if entry["play"]:  # one version per distinct set of language features, and each file's newest
            _plays(path, codegen=False, program=program)
        return
    assert program is None
    for d in errors:
        assert d.code in MIGRATIONS, f"{entry['id']}: {d} is not a documented migration (docs/compatibility.md)"
        located = Path(d.span.file)
        assert located.is_file() and d.span.line > 0, f"{d} is not located in a file of the ruleset"
        assert d.hint, f"{d} gives no migration hint"


@pytest.mark.parametrize("path", USER, ids=[p.name for p in USER])
def test_user_style_rulesets_check_and_play(path: Path) -> None:
    """Rulesets written as new users write them, with their own names for what the language later added."""
    program, diags = check_file(str(path))
    assert not [d for d in diags if d.is_error] and program is not None
    assert {"W080"} <= {d.code for d in diags}
    _plays(path, program=program)


def test_the_migration_of_if_none(tmp_path: Path) -> None:
    """The first rulesets wrote `choose … { … } if none { … }`; it is reported as the documented E380, at the
    `if`, with the new spelling in the hint (not a type error about `none`)."""
    text = """game "G" { players 2..2 }
counter total
round { step s "S" {
  choose n from [1, 2] by first {
    total = n
  } if none {
    total = 9
  }
  end game
} }
score(p) = total
"""
    path = tmp_path / "game.rules"
    path.write_text(text, encoding="utf-8")
    _, diags = check_file(str(path))
    assert [(d.code, d.span.line, d.span.column) for d in diags] == [("E380", 6, 5)]
    assert "otherwise" in diags[0].hint and "E380" in MIGRATIONS


# Words of the grammar that cannot name a counter assigned at the start of a statement (`WORD += 1`, where the
# word starts a statement of its own), or anything at all (the literals and `not`, `if`, `per`): the documented
# list in docs/compatibility.md. Every other word of the grammar is free for any name.
STATEMENT_WORDS = {"break", "choose", "do", "end", "enter", "fire", "for", "if", "leave", "let", "link", "log",
                   "move", "repeat", "reveal", "shuffle", "simultaneously", "skip", "transfer", "unlink"}
NEVER_NAMES = {"true", "false", "none", "not", "if", "per"}


def _errors(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "game.rules"
    path.write_text('game "G" { players 2..2 }\ncounter total\n' + body + "score(p) = total\n", encoding="utf-8")
    _, diags = check_file(str(path))
    return [d.code for d in diags if d.is_error]


def test_keywords_are_reserved_only_where_the_grammar_needs_them(tmp_path: Path) -> None:
    """Every word of the grammar names a `fn`, a parameter and a `let` (and, unless it starts a statement, a
    counter assigned with `+=`), except the few documented ones; a new keyword that takes a name away fails."""
    from liturgy.dsl.frontend.parser import _lark

    words = grammar_words(_lark().terminals)
    assert "choose" in words and "height" not in words
    taken: dict[str, list[str]] = {}
    for w in sorted(words - NEVER_NAMES):
        forms = {
            "fn": f'fn {w}(x: int) -> int = x + 1\nround {{ step s "S" {{ total += {w}(1)  end game }} }}\n',
            "let": f'round {{ step s "S" {{ let {w} = 1  total = {w} + 1  end game }} }}\n',
            "param": f'fn f({w}: int) -> int = {w} + 1\nround {{ step s "S" {{ total = f(1)  end game }} }}\n',
        }
        if w not in STATEMENT_WORDS:
            forms["counter"] = f'counter {w}\nround {{ step s "S" {{ {w} += 1  total = {w}  end game }} }}\n'
        bad = [form for form, body in forms.items() if _errors(tmp_path, body)]
        if bad:
            taken[w] = bad
    assert taken == {}
    for w in sorted(STATEMENT_WORDS - NEVER_NAMES):
        assert _errors(tmp_path, f'counter {w}\nround {{ step s "S" {{ {w} += 1  end game }} }}\n') == ["E300"], w
    doc_words = set(re.findall(r"`([a-z_]+)`", DOC[DOC.index("## Reserved words"):]))
    assert doc_words >= STATEMENT_WORDS | NEVER_NAMES
