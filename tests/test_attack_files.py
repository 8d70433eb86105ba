"""The attack corpus, files (issue 18): card-file patterns that walked the filesystem, listed outside folders or
read home-folder dotfiles. Each must now end in a located E210/E211/E212 within seconds, naming no outside file.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from liturgy.dsl.frontend.discovery import MAX_VISITED, project_root
from liturgy.dsl.loader import check_file

GAME = ('game "G" {{ players 1..2 }}\ncard K {{ n: int }}\ncards "{pattern}"\nzone z: set public of K\n'
        'round {{ step s {{ if size(z) > 0 {{ end game }} }} }}\nscore(p) = 0\n')
CARDS = "kind: K\nstart: z\ncards:\n  - name: A\n    n: 1\n"


def _check(path: Path, pattern: str) -> tuple[list[str], str]:
    path.write_text(GAME.format(pattern=pattern), encoding="utf-8")
    program, diags = check_file(str(path))
    return [d.code for d in diags if d.is_error], "\n".join(f"{d.message} {d.hint}" for d in diags)


@pytest.mark.parametrize("pattern", ["../../../../../../*/*/*/*/*/*", "../../../../../../../etc/*", "../*/*",
                                     "~/.ssh/*", "/etc/passwd", "sub/../../x.yaml", "**/*.yaml", "a\x00b"])
def test_a_pattern_leaving_the_project_is_refused_at_once(tmp_path: Path, pattern: str) -> None:
    (tmp_path / "p").mkdir()
    start = time.process_time()  # CPU time: the bound holds however loaded the machine
    codes, text = _check(tmp_path / "p" / "g.rules", pattern)
    assert time.process_time() - start < 10
    assert codes == ["E210"], text
    assert str(tmp_path) not in text and "passwd" not in text.replace(pattern, "")


def test_outside_files_reached_through_a_link_are_counted_not_named(tmp_path: Path) -> None:
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "hunter2.yaml").write_text(CARDS, encoding="utf-8")
    project = tmp_path / "p"
    (project / "cards").mkdir(parents=True)
    (project / "cards" / "mine.yaml").write_text(CARDS, encoding="utf-8")
    os.symlink(tmp_path / "secret" / "hunter2.yaml", project / "cards" / "link.yaml")
    codes, text = _check(project / "g.rules", "cards/*.yaml")
    assert codes == ["E210"] and "matches 1 file(s) outside" in text and "hunter2" not in text


def test_a_ruleset_in_a_home_rulesets_folder_cannot_read_the_home_folder(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / "rulesets").mkdir(parents=True)
    (home / ".secrets.yaml").write_text(CARDS.replace("name: A", "name: TOKEN-123"), encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    ruleset = home / "rulesets" / "g.rules"
    assert project_root(str(ruleset)) == ruleset.parent.resolve()
    codes, text = _check(ruleset, "../.secrets.yaml")
    assert codes == ["E210"] and "TOKEN-123" not in text and str(home) not in text


def test_a_project_rulesets_folder_still_reads_the_projects_cards(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))
    (tmp_path / "proj" / "rulesets").mkdir(parents=True)
    (tmp_path / "proj" / "cards").mkdir()
    (tmp_path / "proj" / "cards" / "k.yaml").write_text(CARDS, encoding="utf-8")
    codes, text = _check(tmp_path / "proj" / "rulesets" / "g.rules", "../cards/*.yaml")
    assert codes == [], text


def test_a_pattern_over_a_huge_folder_stops_looking(tmp_path: Path) -> None:
    wide = tmp_path / "p" / "wide"
    wide.mkdir(parents=True)
    for i in range(MAX_VISITED // 200 + 1):
        (wide / f"d{i}").mkdir()
        for j in range(200):  # empty files, made by one open each (Path.touch tries os.utime first: 3x the CPU)
            os.close(os.open(wide / f"d{i}" / f"f{j}", os.O_CREAT | os.O_WRONLY, 0o644))
    start = time.process_time()  # CPU time: the bound holds however loaded the machine
    codes, text = _check(tmp_path / "p" / "g.rules", "wide/*/*/*.yaml")
    assert codes == ["E212"] and "looks at more than" in text
    assert time.process_time() - start < 30


def test_ten_thousand_cards_a_thousand_times_at_64_players_is_refused(tmp_path: Path) -> None:
    """Once 2.7 GB before the first step: the physical cards of a whole game are capped at check time."""
    lines = ["kind: K", "start: hand", "cards:"]
    lines += [f"  - name: C{i}\n    n: 1\n    count: 1000" for i in range(10_000)]
    (tmp_path / "k.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "g.rules").write_text(
        'game "G" { players 1..64 }\ncard K { n: int }\ncards "k.yaml"\nzone hand: per player set owner of K\n'
        "round { step s { if size(players[0].hand) > 0 { end game } } }\nscore(p) = 0\n", encoding="utf-8")
    program, diags = check_file(str(tmp_path / "g.rules"))
    assert program is None
    assert [d.code for d in diags] == ["E212"] and "640000000 physical cards at 64 players" in diags[0].message
