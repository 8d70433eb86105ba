"""Static information-flow warnings (issue 17, item 3): W075–W078 in `liturgy check`.

The leaky rulesets of tests/test_noninterference.py (which `liturgy fuzz` catches by running them) are flagged
by the checker too, each with its code; the same game without the leak, every shipped ruleset and every example
stay clean under `check --strict`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from liturgy.dsl.frontend.includes import main_rulesets
from liturgy.dsl.loader import check_file
from test_noninterference import BASE, LEAKS, TILES

ROOT = Path(__file__).resolve().parent.parent
EXPECTED = {
    "a face-down tile's rank in a log line": "W076",
    "the rank copied into a public counter": "W075",
    "a public choice filtered by it": "W077",
}
MORE = {
    # another player's choice filtered by the face-down tile (a `where` on the options)
    "W078": ("choose n from [0, 1, 2, 3, 4, 5, 6] by first",
             "choose n from [0, 1, 2, 3, 4, 5, 6] where n != top(pit).rank by first"),
    # the prompt of a choice names the tile's rank
    "W077": ('choose n from [0, 1, 2, 3, 4, 5, 6] by first {',
             'choose n from [0, 1, 2, 3, 4, 5, 6] by first prompt "Beat {}?", top(pit).rank {'),
}


def _codes(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "tiles.yaml").write_text(TILES, encoding="utf-8")
    path = tmp_path / "discards.rules"
    path.write_text(text, encoding="utf-8")
    program, diags = check_file(str(path))
    assert program is not None, diags
    return [d.code for d in diags]


def test_the_game_without_a_leak_has_no_flow_warning(tmp_path: Path) -> None:
    assert not [c for c in _codes(tmp_path, BASE) if c in ("W075", "W076", "W077", "W078")]


@pytest.mark.parametrize("leak", list(EXPECTED))
def test_each_leak_fuzz_finds_is_flagged_statically(tmp_path: Path, leak: str) -> None:
    old, new = LEAKS[leak]
    assert EXPECTED[leak] in _codes(tmp_path, BASE.replace(old, new))


@pytest.mark.parametrize("code", list(MORE))
def test_filters_and_prompts(tmp_path: Path, code: str) -> None:
    old, new = MORE[code]
    assert old in BASE
    assert code in _codes(tmp_path, BASE.replace(old, new))


def test_a_reveal_makes_the_read_legitimate(tmp_path: Path) -> None:
    old, new = LEAKS["a face-down tile's rank in a log line"]
    revealed = new.replace('      log', '      reveal t\n      log')
    assert not [c for c in _codes(tmp_path, BASE.replace(old, revealed)) if c.startswith("W07")]


def test_the_owner_reading_its_own_hand_is_fine(tmp_path: Path) -> None:
    text = BASE.replace("simultaneously p in players choose t from p.hand {",
                        'simultaneously p in players choose t from p.hand where t.rank > 0 or true '
                        'prompt "Drop which ({} in hand)?", sum(u.rank for u in p.hand) {')
    assert not [c for c in _codes(tmp_path, text) if c in ("W077", "W078")]


@pytest.mark.parametrize("path", main_rulesets(sorted(str(p) for p in [*ROOT.glob("rulesets/**/*.rules"),
                                                                        *ROOT.glob("docs/examples/*.rules")])))
def test_shipped_rulesets_are_clean(path: str) -> None:
    _, diags = check_file(path)
    assert not [d for d in diags if d.code in ("W075", "W076", "W077", "W078")], [str(d.message) for d in diags]
