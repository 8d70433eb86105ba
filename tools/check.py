"""The test command's last step: mypy --strict (tools/typecheck.py) and pytest at the same time, both to the end.

Why at once: from a clean clone mypy has no cache and checks for about 35 s on one core, while the machine's
other core stood idle; pytest's workers fill both. Started together, mypy's time hides inside pytest's.

Nothing is hidden by it: both always run to their end, pytest's output is shown as it runs and mypy's in full
after it, then pytest's summary line again as the closing line (CI reads the last line), and the command fails
when either fails (pytest's exit status if it failed, else mypy's).
Arguments go to pytest (default ``-q -n auto --dist worksteal``). Run from anywhere: ``python tools/check.py``.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTEST = ["-q", "-n", "auto", "--dist", "worksteal"]


def side_by_side(typecheck: list[str], tests: list[str]) -> int:
    """Run both commands at once, each to its end; ``tests``' output as it comes, ``typecheck``'s after it; the
    first nonzero exit status of the two (``tests``' first), else 0."""
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as out:
        start = time.monotonic()
        mypy = subprocess.Popen(typecheck, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
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
                        [sys.executable, "-m", "pytest", *(argv or PYTEST)])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
