"""The test command's last step: mypy --strict (tools/typecheck.py) and pytest at the same time, both to the end.

Why at once: from a clean clone mypy has no cache and checks for about 35 s on one core, while the machine's
other core stood idle; pytest's workers fill both. Started together, mypy's time hides inside pytest's.

Nothing is hidden by it: both always run to their end, pytest's output is shown as it runs and mypy's in full
after it, and the command fails when either fails (pytest's exit status if it failed, else mypy's).
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


def main(argv: list[str]) -> int:
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as out:
        start = time.monotonic()
        mypy = subprocess.Popen([sys.executable, str(ROOT / "tools" / "typecheck.py")], cwd=ROOT, stdout=out,
                                stderr=subprocess.STDOUT)
        tests = subprocess.call([sys.executable, "-m", "pytest", *(argv or PYTEST)], cwd=ROOT)
        typed = mypy.wait()
        out.seek(0)
        print(out.read().rstrip(), f"(tools/typecheck.py: {time.monotonic() - start:.0f} s, beside pytest)",
              flush=True)
    if tests:
        print(f"pytest failed (exit status {tests})", flush=True)
    if typed:
        print(f"tools/typecheck.py failed (exit status {typed})", flush=True)
    return tests or typed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
