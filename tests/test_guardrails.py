"""The code-shape rules the test command enforces, visible in the suite too.

`ruff check .` (with complexity limits) and `python tools/typecheck.py` (mypy --strict) run before pytest in
the README's test command; these checks cover what those tools cannot: no blanket suppression, no module over
800 lines, and no shipped ruleset file over 800 lines.
"""
from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(p for folder in ("dsl", "interpreter", "liturgy", "tools") for p in (ROOT / folder).rglob("*.py"))
MAX_LINES = 800

BLANKET = [
    (re.compile(r"#\s*noqa(?!:)"), "a `# noqa` without a rule code"),
    (re.compile(r"#\s*ruff:\s*noqa"), "a file-wide `# ruff: noqa`"),
    (re.compile(r"#\s*type:\s*ignore(?!\[)"), "a `# type: ignore` without an error code"),
    (re.compile(r"#\s*noqa:\s*C901\s*$"), "a `# noqa: C901` without its reason"),
]


def test_the_tree_has_sources() -> None:
    assert len(SOURCES) > 50


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_blanket_suppression_and_no_long_module(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= MAX_LINES, f"{path.name} has {len(lines)} lines: split it by responsibility"
    for number, line in enumerate(lines, 1):
        for pattern, what in BLANKET:
            assert not pattern.search(line), f"{path.name}:{number}: {what}"


RULE_FILES = sorted((ROOT / "rulesets").rglob("*.rules"))


def test_no_shipped_ruleset_file_is_over_800_lines() -> None:
    """Issue 33 (item 5): a game is split into parts by `include` (its map, combat, each Act, each haunt), so
    that no one file grows past what a person can read; Slay the Spire's, Betrayal's and Fury of Dracula's
    single files had 2,000-2,500 lines. A part that grows past the limit is split again."""
    assert len(RULE_FILES) > 10
    long = {str(p.relative_to(ROOT)): n for p in RULE_FILES
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"split these rulesets' files by their parts (include): {long}"


def test_typecheck_sees_every_module_once_under_its_import_name() -> None:
    """`tools/typecheck.py` hands mypy each package file once, named as `import` finds it, with its repository path.

    A module it missed would go unchecked; a wrong name would make mypy check a copy that nothing imports.
    """
    spec = importlib.util.spec_from_file_location("typecheck", ROOT / "tools" / "typecheck.py")
    assert spec is not None and spec.loader is not None
    typecheck = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(typecheck)
    sources = typecheck.sources()
    package_files = sorted(p for folder in ("dsl", "interpreter", "liturgy") for p in (ROOT / folder).rglob("*.py"))
    assert sorted(ROOT / s.path for s in sources) == package_files
    assert len({s.module for s in sources}) == len(sources)
    for s in sources:
        found = importlib.util.find_spec(s.module)
        assert found is not None and found.origin is not None, s.module
        assert Path(found.origin).resolve() == (ROOT / s.path).resolve(), s.module


def test_the_test_command_fails_when_either_of_its_side_by_side_steps_fails(
        capfd: pytest.CaptureFixture[str]) -> None:
    """tools/check.py runs mypy beside pytest: a failure of either fails the command, and both always run to
    their end with their output shown (a failing pytest must not hide mypy's errors, nor the reverse)."""
    spec = importlib.util.spec_from_file_location("check", ROOT / "tools" / "check.py")
    assert spec is not None and spec.loader is not None
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)

    def step(text: str, status: int) -> list[str]:
        return [sys.executable, "-c", f"import sys; print({text!r}); sys.exit({status})"]

    assert check.side_by_side(step("types fine", 0), step("tests fine", 0)) == 0
    assert check.side_by_side(step("type error", 1), step("tests fine", 0)) == 1
    assert check.side_by_side(step("types fine", 0), step("a test failed", 3)) == 3
    assert check.side_by_side(step("type error", 1), step("a test failed", 3)) == 3
    out = capfd.readouterr().out
    # both outputs every time, and pytest's last line again as the closing line (CI reads the last line)
    assert out.count("type error") == 2 and out.count("a test failed") == 4
    assert out.rstrip().endswith("pytest failed (exit status 3)\na test failed")
    assert "tools/typecheck.py failed (exit status 1)" in out


def test_the_test_command_keeps_mypys_cache_in_the_private_cache_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    """A clean clone has no `.mypy_cache`: tools/check.py hands mypy the private cache folder's `mypy` folder
    (a cold check is ~35 s of one core, a warm one under a second), keeps a MYPY_CACHE_DIR the user set, and
    leaves mypy's default when the cache folder is off; the typecheck step is started with that environment."""
    spec = importlib.util.spec_from_file_location("check", ROOT / "tools" / "check.py")
    assert spec is not None and spec.loader is not None
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    monkeypatch.delenv("MYPY_CACHE_DIR", raising=False)
    monkeypatch.setenv("LITURGY_CACHE_DIR", str(tmp_path / "cache"))
    env = check.typecheck_env()
    assert env["MYPY_CACHE_DIR"] == str(tmp_path / "cache" / "mypy")
    assert env["LITURGY_CACHE_DIR"] == str(tmp_path / "cache") and env["PATH"] == os.environ["PATH"]
    monkeypatch.setenv("MYPY_CACHE_DIR", str(tmp_path / "mine"))
    assert check.typecheck_env()["MYPY_CACHE_DIR"] == str(tmp_path / "mine")
    monkeypatch.delenv("MYPY_CACHE_DIR")
    monkeypatch.setenv("LITURGY_CACHE_DIR", "off")
    assert "MYPY_CACHE_DIR" not in check.typecheck_env()
    show = [sys.executable, "-c", "import os; print('cache:', os.environ.get('MYPY_CACHE_DIR'))"]
    tests = [sys.executable, "-c", "print('tests')"]
    assert check.side_by_side(show, tests, {**os.environ, "MYPY_CACHE_DIR": "x"}) == 0
    assert "cache: x" in capfd.readouterr().out
