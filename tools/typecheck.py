"""mypy --strict over the package in place, every file under its installed module name.

The package maps folders to modules (``liturgy.dsl`` <- ``dsl/``, ``liturgy.interpreter`` <- ``interpreter/``,
``[tool.setuptools.package-dir]`` in pyproject.toml), which mypy cannot follow on its own. Rather than a tree
of symlinks, this hands mypy each file with its module name, so errors name the files in the repository and
the configuration is pyproject.toml's ``[tool.mypy]``. Run from anywhere: ``python tools/typecheck.py``.
"""
from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

from mypy import build
from mypy.errors import CompileError
from mypy.main import process_options
from mypy.modulefinder import BuildSource

ROOT = Path(__file__).resolve().parents[1]


def package_dirs() -> dict[str, Path]:
    """Package name -> its folder, from pyproject.toml's ``[tool.setuptools.package-dir]``."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    return {name: ROOT / folder for name, folder in config.get("package-dir", {}).items()}


def sources() -> list[BuildSource]:
    """Every module of the package once, under the mapping that owns its folder."""
    dirs = package_dirs()
    owned = {folder.resolve() for folder in dirs.values()}
    out: dict[str, BuildSource] = {}
    for package, folder in dirs.items():
        for path in sorted(folder.rglob("*.py")):
            if any(parent.resolve() in owned and parent != folder for parent in path.parents
                   if folder in parent.parents):
                continue  # a folder mapped to a package of its own
            parts = [p for p in path.relative_to(folder).with_suffix("").parts if p != "__init__"]
            module = ".".join([package, *parts])
            out.setdefault(module, BuildSource(str(path.relative_to(ROOT)), module, None))
    return list(out.values())


def main() -> int:
    os.chdir(ROOT)  # file names relative to the repository, as editors expect
    _, options = process_options(["--config-file", str(ROOT / "pyproject.toml"), "-c", "pass"])
    srcs = sources()
    try:
        result = build.build(srcs, options)
    except CompileError as err:
        print("\n".join(err.messages))
        return 1
    for line in result.errors:
        print(line)
    if result.errors:
        print(f"mypy --strict: {len(result.errors)} error(s) in {len(srcs)} modules")
        return 1
    print(f"mypy --strict: no issues in {len(srcs)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
