"""docs/design.md's module map is generated from the source (tools/modulemap.py), and must be current."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from conftest import ROOT


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("modulemap", ROOT / "tools" / "modulemap.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_module_map_in_design_md_is_current(capsys: pytest.CaptureFixture[str]) -> None:
    """Adding, removing or growing a module changes the map: run `python tools/modulemap.py` and commit."""
    assert _tool().main(["--check"]) == 0, capsys.readouterr().err


def test_every_module_says_what_it_is_for() -> None:
    tool = _tool()
    assert tool.NO_PURPOSE not in tool.render()


def test_the_map_follows_the_source(tmp_path: Path) -> None:
    """A module added to a tree shows with its line count and docstring; a stale section fails the check."""
    tool = _tool()
    (tmp_path / "dsl" / "sub").mkdir(parents=True)
    (tmp_path / "interpreter").mkdir()
    (tmp_path / "dsl" / "sub" / "new.py").write_text('"""Why this module exists.\n\nMore."""\n\nX = 1\n', "utf-8")
    (tmp_path / "interpreter" / "bare.py").write_text("X = 1\n", encoding="utf-8")
    (tmp_path / "dsl" / "g.lark").write_text("// The grammar.\nstart: X\n", encoding="utf-8")
    section = tool.render(tmp_path)
    lines = section.splitlines()
    assert lines[0] == tool.START and lines[-1] == tool.END
    assert any(line.startswith("dsl/sub/new.py") and line.endswith("    5  Why this module exists.") for line in lines)
    assert any(line.startswith("dsl/g.lark") and line.endswith("The grammar.") for line in lines)
    assert any(line.startswith("interpreter/bare.py") and tool.NO_PURPOSE in line for line in lines)
    doc = f"intro\n{tool.START}\nold\n{tool.END}\nafter\n"
    assert tool.updated(doc, section) == f"intro\n{section}\nafter\n"
    with pytest.raises(ValueError, match="no module map markers"):
        tool.updated("no markers here", section)
