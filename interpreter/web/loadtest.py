"""The loopback load test of `liturgy serve`: many tables of WebSocket bots, a ``kill -9`` mid-run, nothing lost.

``python -m liturgy.interpreter.web.loadtest --tables 200 --seconds 60`` starts a server (a separate process,
its own SQLite file), creates ``--tables`` tables whose every seat is a bot *client*: a WebSocket connection
that answers each decision it is shown with a random option, exactly as a browser would. A finished game is
replaced by a new table, so the count stays constant. Half way through, the server is killed with SIGKILL,
restarted on the same file, and before any client reconnects every table is read back: a table whose move
count is below the last decision acknowledged to its clients has lost a decision. The server itself refuses to
resume a table that does not replay to its recorded digest, and reports it (counted as lost here too).

Reported: decisions acknowledged per second of serving (the restart's downtime left out, and reported as
``down_s``), the latency of a decision (choice sent to its acknowledgement, which the server sends only after
the commit), errors (any refusal other than a stale move, any connection failure outside the kill, any table
silent for ``--idle`` seconds), decisions lost, and decisions made after the restart (the second half of the run
is played in full once the server is back, however long that took). The clock starts once every table has had a
decision acknowledged (the ramp-up, reported separately), so the kill comes when all of them are in play.
``tests/test_web_load.py`` runs a CI-sized version.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from liturgy.interpreter.web.tables import Limits
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Run:
    """What the clients measured, and what they share (the server's address, the kill window)."""

    base: str
    ruleset: str
    players: int
    stop_at: float
    rng: random.Random
    idle: float = 60.0  # seconds a table may stay silent before it counts as stalled (an error)
    up: asyncio.Event = field(default_factory=asyncio.Event)  # cleared while the server is down
    latencies: list[float] = field(default_factory=list)
    steady: int = -1  # how many latencies were measured before the kill (the rest include the restart's rush)
    decisions: int = 0
    stale: int = 0
    errors: list[str] = field(default_factory=list)
    acked: dict[str, int] = field(default_factory=dict)  # table -> last move acknowledged to a client
    games: int = 0
    reconnects: int = 0
    tokens: list[str] = field(default_factory=list)  # every seat token handed out: none may reach the server log
    # The clients keep to the server's message rate as a polite browser does: the test is of durability, not of
    # the rate limit (tests/test_web.py tests that). Unpaced, bots answer in microseconds, so on a fast machine
    # they outran the limit and were told to slow down, and the test passed only where the machine was slow.
    pace: float = 0.8 * Limits().rate  # messages per second per connection, below the server's limit
    throttled: int = 0  # "slow down" refusals all the same (a stalled server delivering a backlog at once): resent
    spectators: int = 0  # spectator connections attached to each human table
    think: float = 0.0  # mean seconds a seat waits before answering (0: at once, as fast as the server allows)
    spectator_states: int = 0  # states the spectators received
    bot_moves: dict[str, int] = field(default_factory=dict)  # bot-only table -> the last move its spectator saw
    bot_games: int = 0
    feed: Any = None  # the background client's stdin: each new human table's id, for its spectators to watch
    server_cpu: float = 0.0  # CPU seconds the server process used while the clock ran (a run without a kill)
    worker_cpu: float = 0.0  # ... and its search worker (its child processes)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(ruleset: str, db: str, port: int, log: Any, bot_only_cpu: float | None = None
                 ) -> subprocess.Popen[bytes]:
    code = "import sys; from liturgy.interpreter.tools.cli import main; sys.exit(main(sys.argv[1:]))"
    extra = ["--bot-only-cpu", str(bot_only_cpu)] if bot_only_cpu is not None else []
    return subprocess.Popen([sys.executable, "-c", code, "serve", ruleset, "--db", db, "--port", str(port),
                             "--max-tables", "100000", "--creates-per-minute", "1000000",
                             # every client of the load test is one address: the per-client limits step aside
                             "--tables-per-client", "100000", "--sockets-per-client", "1000000",
                             "--spectators", "10000", *extra],
                            stdout=log, stderr=log)


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far, from Linux's /proc; 0 elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu(pid: int) -> float:
    """CPU seconds used so far by the child processes of ``pid`` (the server's search worker), from /proc."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def wait_up(base: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(base + "/api/rulesets", timeout=5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def http(base: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


async def _next(run: Run, ws: Any, table: str, asked: int) -> str | None:
    """The next message, or None when the run is over; a table silent for ``run.idle`` seconds is an error.

    Every wait is bounded: a seat used to wait for its next message with no limit, so one table that stopped
    sending (a refused choice the client would not resend, a decision nobody was shown) held the whole run
    forever, and a seat waiting when the clock ran out waited for a message that might never come.
    """
    quiet_until = time.monotonic() + run.idle
    while True:
        now = time.monotonic()
        if now >= run.stop_at:
            return None
        try:
            return str(await asyncio.wait_for(ws.recv(), timeout=min(quiet_until, run.stop_at) - now + 0.01))
        except TimeoutError:
            now = time.monotonic()
            if now < quiet_until or now >= run.stop_at:
                continue
            if not run.up.is_set():  # the server is down: silence is expected (the connection breaks anyway)
                quiet_until = now + run.idle
                continue
            run.errors.append(f"table {table}: no message for {run.idle:.0f} s (this seat last answered the "
                              f"decision asked at move {asked})")
            return None


async def seat(run: Run, table: str, token: str) -> bool:
    """One seat's bot: connect, answer every decision with a random option, reconnect after the kill.
    True when its game finished (not merely the run)."""
    url = run.base.replace("http", "ws", 1) + f"/ws/{table}"
    asked = -1  # the decision this seat last answered, and when
    t0 = 0.0
    sent_at = 0.0  # when this seat last sent a message: the next waits 1/pace after it
    choice = 0

    async def send_choice(ws: Any) -> None:
        nonlocal sent_at
        wait = sent_at + 1 / run.pace - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        sent_at = time.monotonic()
        await ws.send(json.dumps({"type": "choose", "at": asked, "choice": choice}))

    while time.monotonic() < run.stop_at:
        await run.up.wait()
        try:
            async with connect(url, max_size=1 << 22, open_timeout=60) as ws:
                await ws.send(json.dumps({"type": "hello", "token": token}))
                while (text := await _next(run, ws, table, asked)) is not None:
                    msg = orjson.loads(text)  # the clients share the machine with the server: parse cheaply
                    if msg["type"] == "state":
                        if msg["status"] != "running":
                            return True
                        d = msg["decision"]
                        if d and d["at"] != asked:
                            if run.think:  # a person's pause before choosing (not part of the latency)
                                await asyncio.sleep(run.think * (0.5 + run.rng.random()))
                            asked, t0 = d["at"], time.monotonic()
                            choice = run.rng.randrange(len(d["options"]))
                            await send_choice(ws)
                    elif msg["type"] == "ack":
                        run.latencies.append(time.monotonic() - t0)
                        run.decisions += 1
                        run.acked[table] = max(run.acked.get(table, 0), msg["move"])
                    elif msg["type"] == "error":
                        if "no longer the current" in msg["message"]:
                            run.stale += 1  # a choice sent before the kill, after it: refused, nothing changed
                        elif "slow down" in msg["message"] and asked >= 0:
                            run.throttled += 1  # refused, nothing changed: the same choice again, paced
                            await send_choice(ws)
                        else:
                            run.errors.append(msg["message"])
                            asked = -1  # answer again when shown the decision (the table would wait on this seat)
                return False
        except (TimeoutError, OSError, WebSocketException) as err:
            if run.up.is_set() and time.monotonic() < run.stop_at:
                await asyncio.sleep(0.2)  # the kill may not be visible to this client yet
                if run.up.is_set():
                    run.errors.append(f"connection: {type(err).__name__}: {err}")
            run.reconnects += 1
            asked = -1
    return False


async def table_loop(run: Run) -> None:
    """Keep one table busy: create it, seat a bot client in every seat, and start over when its game ends."""
    while time.monotonic() < run.stop_at:
        await run.up.wait()
        try:
            made = await asyncio.to_thread(http, run.base, "/api/tables",
                                           {"ruleset": run.ruleset, "players": run.players,
                                            "seats": ["human"] * run.players})
        except OSError as err:
            if run.up.is_set():
                run.errors.append(f"create: {err}")
            await asyncio.sleep(0.2)
            continue
        run.tokens += [s["token"] for s in made["seats"]] + [made["host"]]
        if run.feed is not None:  # the spectators are the background client's (start_background says why)
            run.feed.write(made["table"] + "\n")
            run.feed.flush()
        watching = [asyncio.create_task(watch(run, made["table"])) for _ in range(run.spectators * (not run.feed))]
        ended = await asyncio.gather(*(seat(run, made["table"], s["token"]) for s in made["seats"]))
        run.games += all(ended)
        for w in watching:  # they end with the game, or when the run does
            with contextlib.suppress(Exception):
                await w


async def watch(run: Run, table: str) -> bool:
    """One spectator: connect, read every state until the game ends or the run does; reconnect after the kill.

    It sends nothing but its hello. Spectators used to share the table's one connection cap with the seats;
    now they have their own, and here they add what watching costs the server (a rendering and a message per
    spectator per decision) to the human tables' load. True when the game finished.
    """
    url = run.base.replace("http", "ws", 1) + f"/ws/{table}"
    while time.monotonic() < run.stop_at:
        await run.up.wait()
        try:
            async with connect(url, max_size=1 << 22, open_timeout=60) as ws:
                await ws.send(json.dumps({"type": "hello"}))
                while time.monotonic() < run.stop_at:
                    try:
                        # a second at a time: the end of the run moves (it is an hour away during the ramp-up),
                        # and a table of search bots can be silent for longer than the rest of the run
                        text = await asyncio.wait_for(ws.recv(), timeout=max(0.01, min(
                            1.0, run.stop_at - time.monotonic())))
                    except TimeoutError:
                        continue
                    msg = orjson.loads(text)
                    if msg["type"] == "state":
                        run.spectator_states += 1
                        if table in run.bot_moves:
                            run.bot_moves[table] = max(run.bot_moves[table], msg["move"])
                        if msg["status"] != "running":
                            return True
                    elif msg["type"] == "error":
                        run.errors.append(f"spectator: {msg['message']}")
                        return False
        except (TimeoutError, OSError, WebSocketException) as err:
            if run.up.is_set() and time.monotonic() < run.stop_at:
                await asyncio.sleep(0.2)
                if run.up.is_set():
                    run.errors.append(f"spectator connection: {type(err).__name__}: {err}")
            run.reconnects += 1
    return False


async def bot_table_loop(run: Run, kind: str) -> None:
    """Keep one table of bots only (``kind`` in every seat) playing in the background, one spectator watching
    it (a table of bots nobody watches is paused): the load a server of search bots puts on its people."""
    while time.monotonic() < run.stop_at:
        await run.up.wait()
        try:
            made = await asyncio.to_thread(http, run.base, "/api/tables",
                                           {"ruleset": run.ruleset, "players": run.players,
                                            "seats": [kind] * run.players})
        except OSError as err:
            if run.up.is_set():
                run.errors.append(f"create a bot table: {err}")
            await asyncio.sleep(0.2)
            continue
        run.bot_moves[made["table"]] = 0
        run.bot_games += await watch(run, made["table"])


def start_background(args: argparse.Namespace, base: str) -> subprocess.Popen[str]:
    """The spectators and bot-only tables as a client process of their own, as other people's browsers are.

    In the human seats' process they made that process, not the server, slower: every state sent to a
    spectator was read there, on the same event loop that timed the seats' answers, so the latency measured
    "with" grew with the clients' own work. The background client learns each new human table from a line on
    its stdin ("!start" marks the clock's start), and at the end of its stdin prints what it saw as JSON.
    """
    code = "import sys; from liturgy.interpreter.web.loadtest import background; sys.exit(background(sys.argv[1:]))"
    return subprocess.Popen([sys.executable, "-c", code, base, Path(args.ruleset).stem, str(args.players),
                             str(args.spectators), str(args.bot_tables), args.bot_kind, str(args.seed + 1)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def finish_background(proc: subprocess.Popen[str]) -> dict[str, Any]:
    """End the background client (its stdin closes) and read its report."""
    out, _ = proc.communicate(input="", timeout=300)
    lines = out.strip().splitlines()
    return dict(json.loads(lines[-1])) if lines else {"errors": ["the background client reported nothing"]}


def background(argv: list[str]) -> int:
    """The background client's entry point (start_background): spectators on the tables named on stdin, and
    bot-only tables, until stdin ends."""
    base, key, players, spectators, bot_tables, kind, seed = argv
    run = Run(base, key, int(players), time.monotonic() + 86400, random.Random(int(seed)))
    run.up.set()

    async def serve() -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        tasks: list[asyncio.Task[Any]] = [asyncio.create_task(bot_table_loop(run, kind))
                                          for _ in range(int(bot_tables))]
        at_start = 0
        while line := (await loop.run_in_executor(None, sys.stdin.readline)).strip():
            if line == "!start":
                at_start, run.spectator_states = sum(run.bot_moves.values()), 0
            else:
                tasks += [asyncio.create_task(watch(run, line)) for _ in range(int(spectators))]
        run.stop_at = time.monotonic()
        await asyncio.gather(*tasks)
        return {"spectator_states": run.spectator_states, "bot_moves": sum(run.bot_moves.values()) - at_start,
                "bot_games": run.bot_games, "errors": run.errors}

    print(json.dumps(asyncio.run(serve())), flush=True)
    return 0


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _drive(args: argparse.Namespace, db: str, log: Any) -> dict[str, Any]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(args.ruleset, db, port, log, args.bot_only_cpu)
    helper: subprocess.Popen[str] | None = None
    try:
        await asyncio.to_thread(wait_up, base)
        ramp = time.monotonic()
        run = Run(base, Path(args.ruleset).stem, args.players, ramp + 3600, random.Random(args.seed))
        run.idle = args.idle
        run.spectators = args.spectators
        run.think = args.think
        run.up.set()
        helper = start_background(args, base) if args.kill_at <= 0 and (args.spectators or args.bot_tables) else None
        run.feed = helper and helper.stdin
        tasks = [asyncio.create_task(table_loop(run)) for _ in range(args.tables)]
        in_process = 0 if helper else args.bot_tables
        tasks += [asyncio.create_task(bot_table_loop(run, args.bot_kind)) for _ in range(in_process)]
        # ramp-up: the clock starts once every table has had a decision acknowledged (or after --ramp seconds)
        while len(run.acked) < args.tables and time.monotonic() - ramp < args.ramp:
            await asyncio.sleep(0.1)
        active = len(run.acked)
        start = time.monotonic()
        server_cpu, worker_cpu = cpu_seconds(server.pid), children_cpu(server.pid)
        run.decisions, run.stop_at = 0, start + args.seconds
        del run.latencies[:]
        bot_moves_at_start = sum(run.bot_moves.values())
        if args.kill_at <= 0:  # no kill: a steady run (what --compare measures)
            if helper is not None:
                run.feed.write("!start\n")
                run.feed.flush()
            await asyncio.gather(*tasks)
            serving = time.monotonic() - start
            run.server_cpu = cpu_seconds(server.pid) - server_cpu
            run.worker_cpu = children_cpu(server.pid) - worker_cpu
            bot_moves = sum(run.bot_moves.values()) - bot_moves_at_start
            if helper is not None:
                seen = await asyncio.to_thread(finish_background, helper)
                helper = None
                run.spectator_states += seen.get("spectator_states", 0)
                run.bot_games += seen.get("bot_games", 0)
                run.errors += seen.get("errors", [])
                bot_moves += seen.get("bot_moves", 0)
            return _report(args, run, ramp, start, active, serving, bot_moves)
        await asyncio.sleep(args.seconds * args.kill_at)
        # nobody leaves while the server is down: the first half's end must not pass during the restart (on a
        # starved machine it did, every client ended, and the second half waited --ramp seconds for none)
        run.stop_at = time.monotonic() + args.ramp + 3600
        run.up.clear()
        run.steady = len(run.latencies)
        down_at = time.monotonic()
        server.send_signal(signal.SIGKILL)  # kill -9: no shutdown of any kind
        server.wait()
        acked = dict(run.acked)
        killed_at = time.monotonic() - start
        t0 = time.monotonic()
        server = start_server(args.ruleset, db, port, log, args.bot_only_cpu)
        await asyncio.to_thread(wait_up, base)
        restart = time.monotonic() - t0
        lost, missing = 0, 0
        for table, move in acked.items():  # before any client is let back in
            try:
                now = (await asyncio.to_thread(http, base, f"/api/tables/{table}"))["move"]
            except OSError:
                missing += 1
                now = 0
            lost += max(0, move - now)
        # the second half is played in full after the restart, however long the restart took (on a starved
        # machine it took longer than the half, and the run ended without a decision after the kill)
        down = time.monotonic() - down_at
        run.stop_at = time.monotonic() + args.ramp + args.seconds  # until the clock below is set
        run.up.set()
        # and its clock starts once the clients are back, as the first half's does once every table started: on
        # a starved machine the seats' reconnecting (each table read back from the database) took the whole half,
        # and the run ended with no decision after the kill (the CI-sized test failed at load average 17)
        back = time.monotonic()
        while (len(run.latencies) - run.steady < args.tables and time.monotonic() - back < args.ramp
               and not all(task.done() for task in tasks)):
            await asyncio.sleep(0.1)
        run.stop_at = time.monotonic() + args.seconds * (1 - args.kill_at)
        await asyncio.gather(*tasks)
        serving = time.monotonic() - start - down
        bot_moves = sum(run.bot_moves.values()) - bot_moves_at_start
    finally:
        if helper is not None:  # the run failed before the background client was read: end it
            helper.kill()
            helper.wait()
        with contextlib.suppress(ProcessLookupError):
            server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    return {"tables": args.tables, "ramp_s": round(start - ramp, 1), "tables_active_at_start": active,
            "seconds": round(serving, 1), "down_s": round(down, 1), "ruleset": args.ruleset,
            "players": args.players, "decisions": run.decisions,
            "decisions_per_s": round(run.decisions / serving, 1),
            "decisions_after_restart": len(run.latencies) - run.steady,
            "p50_ms": round(percentile(run.latencies, 0.50) * 1000, 1),
            "p99_ms": round(percentile(run.latencies, 0.99) * 1000, 1),
            "before_kill_p50_ms": round(percentile(run.latencies[:run.steady], 0.50) * 1000, 1),
            "before_kill_p99_ms": round(percentile(run.latencies[:run.steady], 0.99) * 1000, 1),
            "after_restart_p99_ms": round(percentile(run.latencies[run.steady:], 0.99) * 1000, 1),
            "errors": len(run.errors), "error_samples": run.errors[:5], "stale_refusals": run.stale,
            "throttled_resent": run.throttled, "client_pace_per_s": run.pace,
            "games_finished": run.games, "reconnects": run.reconnects, "killed_at_s": round(killed_at, 1),
            "restart_s": round(restart, 1), "tables_checked_after_restart": len(acked),
            "tables_missing_after_restart": missing, "lost_decisions": lost + missing, "_tokens": run.tokens,
            **_extras(args, run, bot_moves)}


def _extras(args: argparse.Namespace, run: Run, bot_moves: int) -> dict[str, Any]:
    """What the spectators and the bot-only tables did (zero when the run had none)."""
    return {"spectators_per_table": args.spectators, "spectator_states": run.spectator_states,
            "bot_tables": args.bot_tables, "bot_kind": args.bot_kind, "bot_moves_seen": bot_moves,
            "bot_games_finished": run.bot_games}


def _report(args: argparse.Namespace, run: Run, ramp: float, start: float, active: int, serving: float,
            bot_moves: int) -> dict[str, Any]:
    """The report of a run without a kill (``--kill-at 0``): the same fields, the kill's set to zero."""
    return {"tables": args.tables, "ramp_s": round(start - ramp, 1), "tables_active_at_start": active,
            "seconds": round(serving, 1), "down_s": 0.0, "ruleset": args.ruleset, "players": args.players,
            "decisions": run.decisions, "decisions_per_s": round(run.decisions / serving, 1),
            # the server's own CPU (its bot worker apart) per human decision: what the background load costs it
            "server_cpu_ms_per_decision": round(1000 * run.server_cpu / max(1, run.decisions), 2),
            # the search worker's CPU while the clock ran, as a share of one core (bounded by --bot-only-cpu)
            "bot_worker_core_share": round(run.worker_cpu / max(serving, 1e-9), 3),
            "decisions_after_restart": 0,
            "p50_ms": round(percentile(run.latencies, 0.50) * 1000, 1),
            "p99_ms": round(percentile(run.latencies, 0.99) * 1000, 1),
            "errors": len(run.errors), "error_samples": run.errors[:5], "stale_refusals": run.stale,
            "throttled_resent": run.throttled, "client_pace_per_s": run.pace,
            "games_finished": run.games, "reconnects": run.reconnects, "lost_decisions": 0,
            "tables_checked_after_restart": 0, "_tokens": run.tokens,
            **_extras(args, run, bot_moves)}


def consistent(db: str) -> bool:
    """Every table's move count equals its decision rows (one transaction wrote both)."""
    con = sqlite3.connect(db)
    try:
        bad = con.execute("SELECT COUNT(*) FROM tables t WHERE moves != "
                          "(SELECT COUNT(*) FROM decisions d WHERE d.table_id = t.id)").fetchone()[0]
    finally:
        con.close()
    return int(bad) == 0


def run_load(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "load.sqlite3")
        log_path = os.path.join(tmp, "server.log")
        with open(log_path, "wb") as log:
            report = asyncio.run(_drive(args, db, log))
        text = Path(log_path).read_text(errors="replace")
        tokens = report.pop("_tokens")
        report["tokens_in_server_log"] = sum(t in text for t in tokens)
        report["server_log_lines"] = text.count("\n")
        report["not_resumed"] = text.count("not resumed")
        report["lost_decisions"] += report["not_resumed"]
        report["db_consistent"] = consistent(db)
        report["server_errors"] = [line for line in text.splitlines() if " ERROR " in line][:5]
    return report


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--ruleset", default=str(ROOT / "rulesets" / "bloodborne.rules"))
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--ramp", type=float, default=300,
                   help="at most this many seconds for every table to start before the clock does")
    p.add_argument("--kill-at", type=float, default=0.5, help="fraction of the run at which to kill -9 the server")
    p.add_argument("--idle", type=float, default=60,
                   help="seconds a table may send nothing before the run counts it as stalled (an error)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--spectators", type=int, default=0, help="spectator connections attached to each human table")
    p.add_argument("--bot-tables", type=int, default=0,
                   help="tables of bots only playing in the background, each watched by one spectator")
    p.add_argument("--bot-kind", default="ismcts", help="the bots of those tables (default ismcts)")
    p.add_argument("--bot-only-cpu", type=float, default=None, metavar="SHARE",
                   help="the server's --bot-only-cpu (default: the server's own, 0.25): the share of one core "
                        "all bot-only tables may use together; 64 lets their search worker take a whole core")
    p.add_argument("--think", type=float, default=0.0,
                   help="mean seconds a seat thinks before answering (uniform, half to 1.5 times it); 0: at once")
    p.add_argument("--compare", action="store_true",
                   help="run twice, without then with the spectators and bot tables, and report the human "
                        "decision latency of both (p99 ratio); use with --kill-at 0")
    p.add_argument("--pairs", type=int, default=1,
                   help="with --compare: this many pairs, the order alternating (without first, then with "
                        "first…), and the median of their p99 ratios (one pair's ratio is mostly noise)")
    return p


def compare(args: argparse.Namespace) -> dict[str, Any]:
    """The same human load without, and with, the spectators and bot-only tables: how much they cost people.

    One pair of runs on a shared machine says little: the same run four times in a row gave p99s from 197 to
    879 ms (docs/web.md). ``--pairs N`` runs N pairs, alternating which of the two goes first so that a drift
    in the machine's other work favours neither, and reports each pair's ratio and their median.
    """
    keys = ("decisions", "decisions_per_s", "p50_ms", "p99_ms", "server_cpu_ms_per_decision",
            "bot_worker_core_share", "errors",
            "error_samples", "spectator_states",
            "bot_tables", "bot_moves_seen", "lost_decisions", "db_consistent", "tokens_in_server_log")
    pairs = []
    for i in range(max(1, getattr(args, "pairs", 1))):
        runs = {}
        for name in (("without", "with") if i % 2 == 0 else ("with", "without")):
            quiet = {"spectators": 0, "bot_tables": 0} if name == "without" else {}
            runs[name] = run_load(argparse.Namespace(**{**vars(args), **quiet}))
        q, b = runs["without"], runs["with"]
        pairs.append({"without": {k: q.get(k) for k in keys}, "with": {k: b.get(k) for k in keys},
                      "p99_ratio": round(b["p99_ms"] / q["p99_ms"], 2) if q["p99_ms"] else float("inf"),
                      "p50_ratio": round(b["p50_ms"] / q["p50_ms"], 2) if q["p50_ms"] else float("inf"),
                      "errors": q["errors"] + b["errors"], "lost_decisions": q["lost_decisions"] + b["lost_decisions"],
                      "db_consistent": q["db_consistent"] and b["db_consistent"],
                      "tokens_in_server_log": q["tokens_in_server_log"] + b["tokens_in_server_log"]})
    if len(pairs) == 1:
        return pairs[0]
    ratios = sorted(p["p99_ratio"] for p in pairs)
    return {"pairs": pairs, "p99_ratios": [p["p99_ratio"] for p in pairs],
            "p99_ratio_median": ratios[len(ratios) // 2] if len(ratios) % 2 else
            round((ratios[len(ratios) // 2 - 1] + ratios[len(ratios) // 2]) / 2, 2),
            "p50_ratios": [p["p50_ratio"] for p in pairs],
            "errors": sum(p["errors"] for p in pairs), "lost_decisions": sum(p["lost_decisions"] for p in pairs),
            "db_consistent": all(p["db_consistent"] for p in pairs),
            "tokens_in_server_log": sum(p["tokens_in_server_log"] for p in pairs)}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    report = compare(args) if args.compare else run_load(args)
    print(json.dumps(report, indent=1))
    ok = report["errors"] == 0 and report["lost_decisions"] == 0 and report["db_consistent"]
    return 0 if ok and report["tokens_in_server_log"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
