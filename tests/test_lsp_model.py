"""The language server's model (dsl/lsp/workspace.py) on broken and random input: whatever the text and wherever
the cursor, every query answers (possibly nothing) and never raises. The protocol itself is tests/test_lsp.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import sized
from hypothesis import given, settings
from hypothesis import strategies as st
from liturgy.dsl.lsp.workspace import Workspace

ROOT = Path(__file__).resolve().parents[1]
MARKET = os.path.abspath(ROOT / "docs" / "examples" / "market.rules")
GOODS = os.path.abspath(ROOT / "docs" / "examples" / "cards" / "goods.yaml")
TEXT = Path(MARKET).read_text(encoding="utf-8")
CARDS = Path(GOODS).read_text(encoding="utf-8")


class _Model:
    """One workspace for the module, kept out of Hypothesis' arguments (its repr would be the whole ruleset)."""

    workspace: Workspace | None = None


@pytest.fixture
def model() -> Workspace:
    if _Model.workspace is None:
        _Model.workspace = Workspace()
    return _Model.workspace


def _query_everything(w: Workspace, path: str, line: int, column: int) -> None:
    w.hover(path, line, column)
    w.definition(path, line, column)
    w.references(path, line, column)
    w.completions(path, line, column)


JUNK = ["", "{", "}", '"', ".", "x.", "let", "(", "#"]


# Each example analyses the ruleset twice (~45 ms): 30 examples in the test command, 600 under `thorough`
@settings(max_examples=sized(ci=30, thorough=600))
@given(cut=st.tuples(st.integers(0, len(TEXT)), st.integers(0, 40)), junk=st.sampled_from(JUNK),
       line=st.integers(-2, 140), column=st.integers(-2, 130))
def test_queries_on_a_broken_ruleset_never_raise(cut: tuple[int, int], junk: str, line: int, column: int) -> None:
    model = _Model.workspace or Workspace()
    _Model.workspace = model
    model.open(MARKET, TEXT, 1)
    model.analyse(MARKET)
    start, length = cut
    text = TEXT[:start] + junk + TEXT[start + length:]
    model.open(MARKET, text, 2)
    analysis = model.analyse(MARKET)
    assert analysis.index is not None  # the last good ruleset keeps answering
    _query_everything(model, MARKET, line, column)
    model.open(MARKET, TEXT, 3)


@settings(max_examples=sized(ci=20, thorough=400))
@given(line=st.integers(0, CARDS.count("\n") + 3), column=st.integers(0, 90))
def test_queries_in_a_card_file_never_raise(line: int, column: int) -> None:
    model = _Model.workspace or Workspace()
    _Model.workspace = model
    model.open(MARKET, TEXT, 4)
    model.analyse(MARKET)
    _query_everything(model, GOODS, line, column)


def test_a_yaml_file_no_ruleset_names_is_left_alone(tmp_path: Path) -> None:
    w = Workspace()
    stray = tmp_path / "notes.yaml"
    stray.write_text("a: 1\n")
    assert w.ruleset_for(str(stray)) is None
    assert w.hover(str(stray), 1, 1) is None and w.completions(str(stray), 1, 1) == []


def test_an_effect_parameter_resolves_to_its_own_field(model: Workspace) -> None:
    model.open(MARKET, TEXT, 5)
    model.analyse(MARKET)
    lines = CARDS.split("\n")
    n = next(i for i, s in enumerate(lines, 1) if 'on_buy: "p.coins' in s)
    sym = model.resolve(GOODS, n, lines[n - 1].index("p.coins") + 1)
    assert sym and sym[0].kind == "parameter" and "on_buy" in sym[0].detail


def test_a_stray_rulesets_wide_pattern_is_matched_as_text_not_walked(tmp_path: Path) -> None:
    """A ruleset beside a card file may name `../../../../*/*/*/*` (an attack in issue 18): finding which ruleset
    a card file belongs to matches patterns as text and never walks the disk."""
    wide = "../../../../../" + "/".join(["*"] * 9)  # deeper than any file of these tests: matches none of them
    (tmp_path / "wide.rules").write_text(f'cards "{wide}"\n', encoding="utf-8")
    (tmp_path / "mine.rules").write_text('cards "decks/**/*.yaml"\n', encoding="utf-8")
    deck = tmp_path / "decks" / "a" / "b.yaml"
    deck.parent.mkdir(parents=True)
    deck.write_text("kind: X\ncards: []\n", encoding="utf-8")
    w = Workspace()
    assert w.ruleset_for(str(deck)) == str(tmp_path / "mine.rules")


def test_a_huge_or_special_file_named_like_a_ruleset_is_not_read(tmp_path: Path) -> None:
    """Looking for a card file's ruleset reads candidates like the checker does: a 5 GB sparse `.rules` file or a
    FIFO beside it is skipped at once, never read whole or waited on."""
    here = tmp_path / "x" / "y" / "z"  # the search looks four folders up: it stays inside tmp_path
    here.mkdir(parents=True)
    with open(here / "big.rules", "wb") as f:
        f.truncate(5 * 1024 ** 3)
    os.mkfifo(here / "pipe.rules")
    stray = here / "notes.yaml"
    stray.write_text("a: 1\n", encoding="utf-8")
    assert Workspace().ruleset_for(str(stray)) is None
