"""`liturgy serve` as a person starts it: the address it prints must already answer.

It used to print the address before uvicorn started, that is before the application's start-up (which replays
every open table from the database) and before the socket listened, so opening the printed address at once was
refused for up to ~10 s. Now the line comes from inside uvicorn's start-up, once both are done, with the port
actually bound: ``--port 0`` prints the free port it got, which this test connects to without retrying.
"""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

ROOT = Path(__file__).resolve().parents[1]
CODE = "import sys; from liturgy.interpreter.tools.cli import main; sys.exit(main(sys.argv[1:]))"


def test_the_printed_address_accepts_connections_at_once(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    proc = subprocess.Popen([sys.executable, "-c", CODE, "serve", str(ROOT / "rulesets/classic/tic_tac_toe.rules"),
                             "--port", "0", "--db", str(db)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        before: list[str] = []  # the server's log lines before the address: one pipe keeps their order
        deadline = time.monotonic() + 120
        while True:
            line = proc.stdout.readline()
            assert line, f"the server ended without printing its address: {before}"
            assert time.monotonic() < deadline, f"no address after 120 s: {before}"
            if line.startswith("liturgy serve:"):
                break
            before.append(line)
        url = line.split(" at ", 1)[1].split(" ", 1)[0]
        assert url.startswith("http://127.0.0.1:") and not url.endswith(":0/"), line
        # no retry: the address answers the moment it is printed
        with urllib.request.urlopen(url + "api/rulesets", timeout=30) as r:
            assert r.status == 200 and b"tic_tac_toe" in r.read()
        log = "".join(before)
        assert "resumed 0 table(s)" in log and "Application startup complete" in log, log
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
