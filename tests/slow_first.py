"""Run the test files that hold the suite's longest tests first, from a checked-in file of measured durations.

Why: the test command runs two xdist workers with ``--dist worksteal``. Each worker starts on one half of the
collected order and, when its own queue runs dry, steals the tail of the other's. In file-name order the longest
tests (the web load test, the browser games, the fuzz harness) sat anywhere, some near the end; one started late
ran on while the other core had nothing left to take. With the files of the long tests first, the tail of every
queue holds short tests, so the two workers finish within a short test of each other.

Whole files move, each keeping its own order, because many files share module-scoped fixtures (a Dask cluster,
an LSP server, Chromium) that pytest sets up again whenever a file's tests are split apart. Files with no test in
the durations file keep their collected order after the others. ``--shuffle`` ignores all of this.

``tests/durations.json`` maps a test id to ``[cpu_s, wall_s]`` for every test that took at least ``SLOW_S`` of
either in the run that wrote it. It only orders tests, so a stale figure costs a little balance and never a test
(tests/test_slow_first.py checks that each id still names a test function in its file). Keep it current with
``python -m pytest -q -n 2 --dist worksteal --save-durations`` (a whole run; or any subset: only the tests that
ran are updated, and those that ran faster than ``SLOW_S`` are dropped).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

SLOW_S = 1.0
DURATIONS = Path(__file__).resolve().parent / "durations.json"


class _Item(Protocol):
    @property
    def nodeid(self) -> str: ...


T = TypeVar("T", bound=_Item)


def load(path: Path = DURATIONS) -> dict[str, tuple[float, float]]:
    """The recorded ``(cpu_s, wall_s)`` by test id; empty when the file is missing or not the expected shape (the
    order then stays as collected: a broken file must never break the suite)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    tests = data.get("tests") if isinstance(data, dict) else None
    if not isinstance(tests, dict):
        return {}
    out: dict[str, tuple[float, float]] = {}
    for nodeid, pair in tests.items():
        if (isinstance(nodeid, str) and isinstance(pair, list) and len(pair) == 2
                and all(isinstance(x, int | float) and not isinstance(x, bool) for x in pair)):
            out[nodeid] = (float(pair[0]), float(pair[1]))
    return out


def file_of(nodeid: str) -> str:
    """The test file part of a test id (``tests/test_x.py::test_y[z]`` -> ``tests/test_x.py``)."""
    return nodeid.split("::", 1)[0]


def order(items: Sequence[T], known: Mapping[str, tuple[float, float]]) -> list[T]:
    """``items`` with the files that hold a known long test first, the file with the longest test first; each file
    keeps its tests together and in their order; the other files follow as collected."""
    weight: dict[str, float] = {}
    first_seen: dict[str, int] = {}
    for i, item in enumerate(items):
        f = file_of(item.nodeid)
        first_seen.setdefault(f, i)
        cpu, wall = known.get(item.nodeid, (0.0, 0.0))
        weight[f] = max(weight.get(f, 0.0), cpu, wall)
    files = sorted(first_seen, key=lambda f: (-weight[f], first_seen[f]))
    by_file: dict[str, list[T]] = {f: [] for f in files}
    for item in items:
        by_file[file_of(item.nodeid)].append(item)
    return [item for f in files for item in by_file[f]]


def merge(known: Mapping[str, tuple[float, float]], measured: Mapping[str, tuple[float, float]],
          exists: Sequence[str] = ()) -> dict[str, tuple[float, float]]:
    """The durations file's new contents: ``known`` updated with the tests measured in this run (at least
    ``SLOW_S`` kept, faster ones dropped), without tests of files not in ``exists`` when it is given."""
    out = dict(known)
    for nodeid, (cpu, wall) in measured.items():
        if max(cpu, wall) >= SLOW_S:
            out[nodeid] = (round(cpu, 1), round(wall, 1))
        else:
            out.pop(nodeid, None)
    if exists:
        present = set(exists)
        out = {k: v for k, v in out.items() if file_of(k) in present}
    return out


def save(durations: Mapping[str, tuple[float, float]], path: Path = DURATIONS) -> None:
    """Write the durations file: sorted, one test a line, so a refresh is a readable diff."""
    lines = [f"    {json.dumps(k)}: [{v[0]}, {v[1]}]" for k, v in sorted(durations.items())]
    about = ("[cpu_s, wall_s] of each test that took at least 1 s; orders the test files (tests/slow_first.py). "
             "Refresh: python -m pytest -q -n 2 --dist worksteal --save-durations")
    path.write_text('{\n  "about": ' + json.dumps(about) + ',\n  "tests": {\n' + ",\n".join(lines) + "\n  }\n}\n",
                    encoding="utf-8")
