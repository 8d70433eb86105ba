"""The test order by measured durations (tests/slow_first.py) and the checked-in durations file it reads."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import slow_first
from conftest import ROOT


@dataclass(frozen=True)
class Item:
    nodeid: str


def _ids(items: list[Item]) -> list[str]:
    return [i.nodeid for i in items]


def test_files_with_the_longest_tests_come_first_whole_and_in_their_order() -> None:
    items = [Item(n) for n in ("t/a.py::x", "t/b.py::y", "t/b.py::z", "t/c.py::u", "t/d.py::v", "t/c.py::w")]
    known = {"t/b.py::z": (3.0, 1.0), "t/c.py::w": (0.5, 9.0)}
    # c (its longest test 9 s of wall, CPU 0.5 s) before b (3 s); a and d after them as collected
    assert _ids(slow_first.order(items, known)) == [
        "t/c.py::u", "t/c.py::w", "t/b.py::y", "t/b.py::z", "t/a.py::x", "t/d.py::v"]


def test_without_figures_the_collected_order_stays() -> None:
    items = [Item(f"t/{f}.py::t{i}") for i, f in enumerate("zyxzw")]
    assert _ids(slow_first.order(items, {})) == ["t/z.py::t0", "t/z.py::t3", "t/y.py::t1", "t/x.py::t2",
                                                 "t/w.py::t4"]
    assert slow_first.order([], {}) == []


def test_merge_keeps_long_tests_drops_fast_and_vanished_files() -> None:
    known = {"t/a.py::x": (2.0, 2.0), "t/a.py::y": (5.0, 5.0), "t/gone.py::z": (9.0, 9.0), "t/b.py::q": (1.5, 1.0)}
    measured = {"t/a.py::x": (0.2, 0.3), "t/a.py::y": (6.04, 7.96), "t/c.py::n": (0.1, 1.2)}
    assert slow_first.merge(known, measured, ["t/a.py", "t/b.py", "t/c.py"]) == {
        "t/a.py::y": (6.0, 8.0), "t/b.py::q": (1.5, 1.0), "t/c.py::n": (0.1, 1.2)}


def test_a_missing_or_malformed_file_orders_nothing(tmp_path: Path) -> None:
    path = tmp_path / "durations.json"
    assert slow_first.load(path) == {}
    for text in ("{", "[]", '{"tests": []}', '{"tests": {"a": "1"}}', '{"tests": {"a": [true, 1]}}'):
        path.write_text(text, encoding="utf-8")
        assert slow_first.load(path) == {}, text
    path.write_text('{"tests": {"a": [1, 2.5], "b": [1], "c": [1, "x"]}}', encoding="utf-8")
    assert slow_first.load(path) == {"a": (1.0, 2.5)}


def test_save_writes_what_load_reads(tmp_path: Path) -> None:
    path = tmp_path / "durations.json"
    figures = {"tests/test_b.py::t[1]": (2.5, 3.0), "tests/test_a.py::u": (1.0, 0.4)}
    slow_first.save(figures, path)
    assert slow_first.load(path) == figures
    assert list(json.loads(path.read_text(encoding="utf-8"))["tests"]) == sorted(figures)


def test_the_checked_in_durations_name_tests_that_exist() -> None:
    """A renamed or deleted test would only cost balance, but a file full of dead ids orders nothing: each id's
    file exists and defines its test function."""
    known = slow_first.load()
    assert len(known) >= 40, "tests/durations.json is missing or empty: refresh it (see tests/slow_first.py)"
    for nodeid, (cpu, wall) in known.items():
        path = ROOT / slow_first.file_of(nodeid)
        assert path.is_file(), nodeid
        name = re.split(r"[\[:]", nodeid.split("::")[-1])[0]
        assert re.search(rf"^\s*(async )?def {re.escape(name)}\(", path.read_text(encoding="utf-8"), re.M), nodeid
        assert max(cpu, wall) >= slow_first.SLOW_S and min(cpu, wall) >= 0, nodeid
