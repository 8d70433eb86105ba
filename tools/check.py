"""The test command's last step: mypy --strict (tools/typecheck.py) and pytest at the same time, both to the end.

Why at once: from a clean clone mypy has no cache and checks for about 35 s on one core, while the machine's
other core stood idle; pytest's workers fill both. Started together, mypy's time hides inside pytest's.

Nothing is hidden by it: both always run to their end, pytest's output is shown as it runs and mypy's in full
after it, then pytest's summary line again as the closing line (CI reads the last line), and the command fails
when either fails (pytest's exit status if it failed, else mypy's).
Arguments go to pytest (default ``-q -n auto --dist worksteal``). Run from anywhere: ``python tools/check.py``.

mypy's incremental cache is kept in the user's private cache folder (``<cache>/mypy``, the folder of the compile
cache: ``$LITURGY_CACHE_DIR``, else ``$XDG_CACHE_HOME/liturgy``, else ``~/.cache/liturgy``), not in the clone's
``.mypy_cache``: a clean clone starts with none, and checking the package cold is ~35 s of one core, against
well under a second when a cache exists. mypy validates every entry itself (a file's size, then its SHA-256 when
its modification time or path differs, as in a new clone; a changed interface rechecks the modules that import
it), so entries written from another clone or an older commit are used only where they still hold. A
``MYPY_CACHE_DIR`` already set is kept; with the cache folder off (``LITURGY_CACHE_DIR=off``) or unusable,
mypy keeps its default.
"""
from __future__ import annotations

import importlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTEST = ["-q", "-n", "auto", "--dist", "worksteal"]


def typecheck_env() -> dict[str, str]:
    """This process's environment for tools/typecheck.py, with ``MYPY_CACHE_DIR`` set to the private cache
    folder's ``mypy`` folder when it is not set already and the folder is usable (see above)."""
    env = dict(os.environ)
    if "MYPY_CACHE_DIR" not in env:
        # the package's own rule for the folder (installed by the test command's pip step; imported by name, as
        # tools/ is not one of the package's folders that mypy maps)
        base: Path | None = importlib.import_module("liturgy.dsl.frontend.grammar_cache").cache_dir()
        if base is not None:
            env["MYPY_CACHE_DIR"] = str(base / "mypy")
    return env


def side_by_side(typecheck: list[str], tests: list[str], typecheck_environ: dict[str, str] | None = None) -> int:
    """Run both commands at once, each to its end; ``tests``' output as it comes, ``typecheck``'s after it; the
    first nonzero exit status of the two (``tests``' first), else 0. ``typecheck_environ``: ``typecheck``'s
    environment (default: this process's)."""
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as out:
        start = time.monotonic()
        mypy = subprocess.Popen(typecheck, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=typecheck_environ)
        pytest = subprocess.Popen(tests, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  errors="replace")
        last = ""
        assert pytest.stdout is not None
        for line in pytest.stdout:  # shown as it comes; its last line is repeated at the end
            print(line, end="", flush=True)
            last = line.strip() or last
        tested = pytest.wait()
        typed = mypy.wait()
        out.seek(0)
        print(out.read().rstrip(), f"({time.monotonic() - start:.0f} s, beside pytest)", flush=True)
    if typed:
        print(f"tools/typecheck.py failed (exit status {typed})", flush=True)
    if tested:
        print(f"pytest failed (exit status {tested})", flush=True)
    print(last, flush=True)
    return tested or typed


def main(argv: list[str]) -> int:
    return side_by_side([sys.executable, str(ROOT / "tools" / "typecheck.py")],
                        [sys.executable, "-m", "pytest", *(argv or PYTEST)], typecheck_env())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
