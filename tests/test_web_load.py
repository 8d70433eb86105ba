"""The load test at CI size: 20 tables of WebSocket bot clients, a kill -9 of the server mid-run, 0 lost.

Every wait in it is bounded (a silent table is an error after ``--idle`` seconds, the server's start and stop have
time limits), and the half after the restart is played in full however long the restart took, so on a starved
machine it is slower, never stuck and never vacuous. The full size (200 tables, 60 s) is
``python -m liturgy.interpreter.web.loadtest``; docs/web.md gives its figures.
"""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("websockets")

from liturgy.interpreter.web.loadtest import build_parser, run_load  # noqa: E402


def test_twenty_tables_survive_kill_minus_nine_with_nothing_lost() -> None:
    # 6 s of clock, the kill at its middle (was 12 s): the clients keep to the server's message rate, so the test
    # process mostly waits and its core idles; 6 s still gave 452 decisions, 155 of them after the restart, on a
    # machine at load 9 (12 s: 796 and 386), far above what is asserted below
    report = run_load(build_parser().parse_args(["--tables", "20", "--seconds", "6", "--seed", "3"]))
    assert report["errors"] == 0, report["error_samples"]
    assert report["decisions"] > 20 and report["decisions_after_restart"] > 0, report
    assert report["tables_active_at_start"] == 20 and report["tables_checked_after_restart"] >= 20, report
    assert report["lost_decisions"] == 0 and report["not_resumed"] == 0, report
    assert report["db_consistent"] and report["server_errors"] == [], report
    assert report["server_log_lines"] > 40 and report["tokens_in_server_log"] == 0, report  # access log on


def test_the_half_after_the_restart_starts_once_the_clients_are_back() -> None:
    """A second half shorter than the seats' reconnecting (as on a starved machine, where reading every table
    back took the whole half) still measures decisions after the kill: its clock starts once the clients are
    back. Before, the run ended with none, and the test above failed at load average 17 (issue 34: a test must
    pass on fast and slow machines alike)."""
    report = run_load(build_parser().parse_args(["--tables", "3", "--seconds", "0.2", "--seed", "5"]))
    assert report["errors"] == 0 and report["lost_decisions"] == 0, report
    assert report["decisions_after_restart"] >= 3, report
