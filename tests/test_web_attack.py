"""`liturgy serve` under attack: one test per finding of issue 34's attack, each failing before its fix.

Every test builds its own server on its own temporary database (and, for the real-socket ones, its own free
port), moves rate-limit clocks by hand instead of waiting, and bounds every wait generously: none depends on
the machine's speed or on test order.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")
pytest.importorskip("uvicorn")

import uvicorn  # noqa: E402
from liturgy.interpreter.web import bots, tables  # noqa: E402
from liturgy.interpreter.web.app import Hosts, Proxies, client_key, create_app, nesting  # noqa: E402
from liturgy.interpreter.web.bots import BotPool  # noqa: E402
from liturgy.interpreter.web.server import config, listen  # noqa: E402
from liturgy.interpreter.web.store import Store  # noqa: E402
from liturgy.interpreter.web.tables import Limits, Lobby, budget_pause, discover  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402
from web_helpers import Clock

ROOT = Path(__file__).resolve().parents[1]
RULESETS = discover([str(ROOT / "rulesets/classic/kuhn_poker.rules"), str(ROOT / "rulesets/bloodborne.rules")])
KUHN = {"ruleset": "kuhn_poker", "players": 2, "seats": ["human", "human"]}


@contextlib.contextmanager
def serving(tmp_path: Path, limits: Limits | None = None, bot_delay: float = 0,
            **app: Any) -> Iterator[tuple[Lobby, TestClient]]:
    lobby = Lobby(RULESETS, Store(str(tmp_path / "t.db")), limits or Limits(sweep_every=1e9), bot_delay=bot_delay)
    with TestClient(create_app(lobby, hosts=Hosts(["testserver"]), **app), raise_server_exceptions=False) as c:
        try:
            yield lobby, c
        finally:  # every socket closed, a failed test's too, or the client could not stop
            while OPEN:
                with contextlib.suppress(Exception):
                    OPEN.pop().__exit__(None, None, None)


OPEN: list[Any] = []


def create(client: TestClient, body: dict[str, Any] | None = None, **headers: str) -> Any:
    return client.post("/api/tables", json=body or KUHN, headers=headers)


def hello(client: TestClient, tid: str, token: str | None) -> Any:
    """An open WebSocket context after its hello (the caller enters it)."""
    cm = client.websocket_connect(f"/ws/{tid}")
    ws = cm.__enter__()
    OPEN.append(cm)
    ws.send_text(json.dumps({"type": "hello", "token": token} if token else {"type": "hello"}))
    return cm, ws


def until(ws: Any, kind: str) -> dict[str, Any]:
    while True:
        msg = json.loads(ws.receive_text())
        if msg["type"] == kind:
            return msg  # type: ignore[no-any-return]


def wait_for(condition: Any, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


# ------------------------------------------------------------------ 1. spectators locked the seats out
def test_spectators_cannot_lock_a_seat_out_and_a_seat_replaces_its_own_stale_socket(tmp_path: Path) -> None:
    with serving(tmp_path, Limits(max_spectators=3)) as (lobby, client):
        made = create(client).json()
        tid, p1 = made["table"], made["seats"][0]["token"]
        spectators = [hello(client, tid, None) for _ in range(3)]
        for _, ws in spectators:
            assert until(ws, "state")["you"] == "spectator"
        cm, ws = hello(client, tid, None)  # one spectator too many: refused
        assert "as many spectators" in until(ws, "error")["message"]
        cm.__exit__(None, None, None)
        # the seats still get in (before the fix the 32 spectators filled the table's one cap)
        first = hello(client, tid, p1)
        assert until(first[1], "state")["you"] == "P1"
        second = hello(client, tid, p1)
        assert until(second[1], "state")["you"] == "P1"
        third = hello(client, tid, p1)  # past two per seat: the oldest of its own sockets is replaced
        assert until(third[1], "state")["you"] == "P1"
        assert "opened on another page" in until(first[1], "error")["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            first[1].receive_text()
        assert closed.value.code == 4403  # the page stops reconnecting (else two tabs would evict each other)
        assert sum(w.seat == 0 for w in lobby.tables[tid].watchers) == 2
        p2 = hello(client, tid, made["seats"][1]["token"])
        assert until(p2[1], "state")["you"] == "P2"
        for cm, _ in [*spectators, second, third, p2]:
            cm.__exit__(None, None, None)


def test_one_client_holds_a_bounded_number_of_sockets(tmp_path: Path) -> None:
    with serving(tmp_path, Limits(sockets_per_client=2, sweep_every=1e9)) as (_, client):
        tid = create(client).json()["table"]
        first, second = hello(client, tid, None), hello(client, tid, None)
        until(first[1], "state")
        until(second[1], "state")
        with pytest.raises(WebSocketDisconnect), client.websocket_connect(f"/ws/{tid}"):
            pass  # refused at the handshake
        second[0].__exit__(None, None, None)
        OPEN.remove(second[0])
        deadline = time.monotonic() + 60  # the server counts the closed one off when its handler ends
        while True:
            try:
                third = hello(client, tid, None)
                break
            except WebSocketDisconnect:
                assert time.monotonic() < deadline, "a closed socket still counted against its client"
                time.sleep(0.05)
        assert until(third[1], "state")["you"] == "spectator"


# ------------------------------------------------------------------ 2. tables never expired; one client filled them
def test_idle_tables_expire_and_one_client_cannot_take_every_place(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(tables, "time", clock)
    limits = Limits(max_tables=3, tables_per_client=2, table_idle=600, creates_per_minute=600, sweep_every=1e9)
    with serving(tmp_path, limits) as (lobby, client):
        kept, idle = create(client).json(), create(client).json()
        refused = create(client)
        assert refused.status_code == 429 and "as many games" in refused.json()["error"]
        cm, ws = hello(client, kept["table"], kept["seats"][0]["token"])  # a seat is connected here
        until(ws, "state")
        clock.now += 599
        assert client.portal.call(lobby.expire) == []  # not yet idle for long enough
        clock.now += 2
        assert client.portal.call(lobby.expire) == [idle["table"]]  # the table with a seat connected stays
        assert client.get(f"/api/tables/{idle['table']}").json()["status"] == "ended"
        assert create(client).status_code == 201  # the expired table's place is free again
        cm.__exit__(None, None, None)
        clock.now += 601  # nobody there now: it expires too, and its spectators are told
        spectator = hello(client, kept["table"], None)
        until(spectator[1], "state")
        assert kept["table"] in client.portal.call(lobby.expire)
        assert until(spectator[1], "state")["status"] == "ended"
        spectator[0].__exit__(None, None, None)
    with serving(tmp_path, limits) as (again, _):  # ended in the database too: a restart does not revive them
        assert kept["table"] not in again.tables and idle["table"] not in again.tables


# ------------------------------------------------------------------ 7. X-Forwarded-For believed from 127.0.0.1
def test_per_client_limits_use_the_peer_address_unless_a_proxy_is_trusted(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "time", Clock())  # no refill while the test runs, however slowly
    limits = Limits(creates_per_minute=2)  # a burst of one
    with serving(tmp_path, limits) as (_, client):
        assert create(client, **{"x-forwarded-for": "10.0.0.1"}).status_code == 201
        r = create(client, **{"x-forwarded-for": "10.0.0.2"})  # another claimed address: still the same peer
        assert r.status_code == 429, r.text
    with serving(tmp_path, limits, proxies=Proxies(["testclient"])) as (_, client):
        assert create(client, **{"x-forwarded-for": "10.0.0.1"}).status_code == 201
        assert create(client, **{"x-forwarded-for": "10.0.0.2"}).status_code == 201  # a trusted proxy's word
        assert create(client, **{"x-forwarded-for": "10.0.0.2"}).status_code == 429
    proxies = Proxies(["10.9.0.0/16", "testclient"])
    scope = {"client": ("10.9.1.1", 5), "headers": [(b"x-forwarded-for", b"6.6.6.6, 203.0.113.7, 10.9.2.2")]}
    assert proxies.client(scope) == "203.0.113.7"  # the nearest hop the trusted proxies did not write
    assert Proxies().client(scope) == "10.9.1.1"
    assert client_key("2001:db8::1") == client_key("2001:db8::ffff") == "2001:db8::/64"
    assert client_key("::ffff:192.0.2.1") == "192.0.2.1"
    # the server itself never lets uvicorn believe the header (its default trusted 127.0.0.1)
    assert config(object(), "127.0.0.1", 0, 2048).proxy_headers is False


# ------------------------------------------------------------------ 4 and 10. CSRF, Host and WebSocket Origin
def test_cross_site_requests_and_foreign_hosts_are_refused(tmp_path: Path) -> None:
    with serving(tmp_path) as (lobby, client):
        form = client.post("/api/tables", content=json.dumps(KUHN), headers={"content-type": "text/plain"})
        assert form.status_code == 415 and not lobby.tables
        urlenc = client.post("/api/tables", data={"a": "b"})
        assert urlenc.status_code == 415
        evil = create(client, origin="http://evil.example")
        assert evil.status_code == 403 and not lobby.tables
        assert create(client, origin="null").status_code == 403
        made = create(client, origin="http://testserver")  # the page's own origin
        assert made.status_code == 201
        tid = made.json()["table"]
        end = client.post(f"/api/tables/{tid}/end", json={"host": made.json()["host"]},
                          headers={"origin": "http://evil.example"})
        assert end.status_code == 403 and lobby.tables[tid].status == "open"
        # a hostile page's WebSocket: refused at the handshake
        with pytest.raises(WebSocketDisconnect), client.websocket_connect(
                f"/ws/{tid}", headers={"origin": "http://evil.example"}):
            pass
        with client.websocket_connect(f"/ws/{tid}", headers={"origin": "http://testserver"}) as ws:
            ws.send_text(json.dumps({"type": "hello"}))
            assert until(ws, "state")["you"] == "spectator"
        rebound = client.get("/api/rulesets", headers={"host": "evil.example"})  # DNS rebinding
        assert rebound.status_code == 421 and "content-security-policy" in rebound.headers
    hosts = Hosts(["games.example.org"])
    assert hosts.allows("games.example.org:8000") and hosts.allows("192.168.1.20:8000")
    assert hosts.allows("[::1]:8000") and hosts.allows("localhost") and not hosts.allows("evil.example")
    assert Hosts(["*"]).allows("anything.example") and not hosts.allows("")


# ------------------------------------------------------------------ 5. nested JSON raised RecursionError
def test_deeply_nested_json_is_refused_before_parsing(tmp_path: Path) -> None:
    with serving(tmp_path) as (_, client):
        r = client.post("/api/tables", content=b"[" * 5000, headers={"content-type": "application/json"})
        assert r.status_code == 400 and "nests too deeply" in r.json()["error"]
        made = create(client).json()
        cm, ws = hello(client, made["table"], None)
        until(ws, "state")
        ws.send_text("[" * 1500)  # inside the 2 KB message limit
        assert "nests too deeply" in until(ws, "error")["message"]
        ws.send_text(json.dumps({"type": "ping"}))  # the connection is still served
        assert until(ws, "pong")
        cm.__exit__(None, None, None)
        with client.websocket_connect(f"/ws/{made['table']}") as ws2:  # in the hello too
            ws2.send_text('{"type": "hello", "token": ' + "[" * 1000 + "]" * 1000 + "}")
            assert "nests too deeply" in until(ws2, "error")["message"]
    assert nesting('{"a": "[[[[[[", "b": [[1]]}') == 3 and nesting(b'"\\"[["') == 0


# ------------------------------------------------------------------ 6. slow-loris
@contextlib.contextmanager
def real_server(tmp_path: Path, header_timeout: float) -> Iterator[int]:
    lobby = Lobby(RULESETS, Store(str(tmp_path / "real.db")), bot_delay=0)
    sock = listen("127.0.0.1", 0)
    port = int(sock.getsockname()[1])
    server = uvicorn.Server(config(create_app(lobby), "127.0.0.1", port, 2048, header_timeout=header_timeout,
                                   log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        wait_for(lambda: server.started, "the server did not start")
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=60)
        sock.close()


def closed_by_server(conn: socket.socket, trickle: bytes) -> bool:
    """Send ``trickle`` a byte at a time until the server closes the connection (True) or 60 s pass."""
    conn.settimeout(0.2)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            conn.sendall(trickle[:1])
            if conn.recv(1024) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:  # reset, or broken pipe: closed
            return True
    return False


def test_half_sent_requests_are_closed_after_the_header_timeout(tmp_path: Path) -> None:
    with real_server(tmp_path, header_timeout=0.5) as port:
        slow = socket.create_connection(("127.0.0.1", port))
        slow.sendall(b"GET /api/rulesets HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        assert closed_by_server(slow, b"X")  # before the fix: held as long as the client kept trickling
        slow.close()
        with socket.create_connection(("127.0.0.1", port), timeout=60) as ok:  # a whole request is answered
            ok.sendall(b"GET /api/rulesets HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            head = b""
            while b"\r\n\r\n" not in head:
                head += ok.recv(65536)
            assert head.startswith(b"HTTP/1.1 200") and b"content-security-policy" in head.lower()
            ok.sendall(b"GET / HTTP/1.1\r\n")  # then, on the kept-alive connection, a half-sent second one
            assert closed_by_server(ok, b"Y")


# ------------------------------------------------------------------ 3. bots ate the CPU
def test_bots_pause_when_nobody_watches_and_search_runs_in_a_low_priority_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    charged: list[tuple[float, float]] = []
    real_pause = tables.budget_pause
    monkeypatch.setattr(tables, "budget_pause", lambda cpu, share: charged.append((cpu, share)) or
                        real_pause(cpu, share))
    # the bots wait 20 ms a move, so the Bloodborne game is still far from its end when the spectator leaves
    with serving(tmp_path, Limits(bot_cpu=0.5), bot_delay=0.02) as (lobby, client):
        made = create(client, {"ruleset": "bloodborne", "players": 3, "seats": ["random"] * 3}).json()
        table = lobby.tables[made["table"]]
        assert not table.bots_running and table.moves == 0  # nobody has opened it: its bots do not start
        cm, ws = hello(client, table.id, None)
        wait_for(lambda: table.moves >= 5, "the bots never played with a spectator watching")
        cm.__exit__(None, None, None)  # the last person leaves
        wait_for(lambda: not table.bots_running, "the bots went on without anybody watching")
        paused_at = table.moves
        assert not table.game.finished
        assert table.moves == paused_at  # nothing can move it now: no bot task is left
        cm, ws = hello(client, table.id, None)  # someone comes back: the game goes on from there
        wait_for(lambda: table.moves > paused_at, "the bots did not resume")
        cm.__exit__(None, None, None)
        # a search bot: it thinks in the worker process and is charged its CPU (the worker at the server's own
        # priority here, so that the search finishes however busy the machine; the lowest is checked below)
        lobby.pool = BotPool(lowest=False)
        made = create(client, {"ruleset": "kuhn_poker", "players": 2, "seats": ["ismcts", "ismcts"]}).json()
        search = lobby.tables[made["table"]]
        cm, ws = hello(client, search.id, None)
        wait_for(lambda: search.game.finished, "the search bots never finished a hand of Kuhn poker", 300)
        cm.__exit__(None, None, None)
        assert lobby.pool.pool is not None
        workers = list(lobby.pool.pool._processes)  # noqa: SLF001 (the pool's worker pids)
        assert workers and os.getpid() not in workers
        # each table's own share, and the share all bot-only tables have together (these tables are bots only)
        assert {share for _, share in charged} == {0.5, Limits().bot_only_cpu} and any(cpu > 0 for cpu, _ in charged)
    if os.path.isdir("/proc"):  # the server's shutdown stops its workers (none is left running on its own)
        wait_for(lambda: all(_gone(pid) for pid in workers), "a bot worker outlived its server")
    # a server's own pool: its worker runs at the lowest priority there is (a question it answers at once)
    pool = BotPool()
    try:
        pid, nice, policy = pool._start().submit(bots.priority).result(timeout=300)  # noqa: SLF001
        assert pid != os.getpid() and nice == 19
        if hasattr(os, "SCHED_IDLE"):  # Linux: below every niceness, it runs only when the CPU is idle
            assert policy == os.SCHED_IDLE
    finally:
        pool.close()
    if os.path.isdir("/proc"):
        wait_for(lambda: _gone(pid), "a closed pool's worker lived on")
    assert budget_pause(0.2, 0.5) == pytest.approx(0.2) and budget_pause(0.3, 0.25) == pytest.approx(0.9)
    assert budget_pause(5.0, 1.0) == 0 and budget_pause(0.0, 0.1) == 0


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return "\nState:\tZ" in f.read()  # a zombie: ended, waiting to be collected
    except (FileNotFoundError, ProcessLookupError):  # reaped before the open, or between the open and the read
        return True


def test_serve_refuses_a_bot_share_that_is_not_one(capsys: pytest.CaptureFixture[str]) -> None:
    from liturgy.interpreter.tools.cli import main

    for bad in ("0", "nan", "-1", "65", "lots"):
        with pytest.raises(SystemExit) as exit_:
            main(["serve", str(ROOT / "rulesets/classic/kuhn_poker.rules"), "--bot-cpu", bad])
        assert exit_.value.code == 2 and "share of one core" in capsys.readouterr().err


# ------------------------------------------------------------------ 8. replays on every unauthenticated request
def test_reading_finished_tables_back_is_rate_limited_per_client(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "time", Clock())
    with serving(tmp_path, Limits(keep_finished=0, loads_per_minute=4)) as (lobby, client):
        made = create(client, {"ruleset": "kuhn_poker", "players": 2, "seats": ["random", "random"]}).json()
        tid = made["table"]
        cm, _ = hello(client, tid, None)
        wait_for(lambda: lobby.tables[tid].game.finished, "the bots never finished")
        cm.__exit__(None, None, None)
        wait_for(lambda: tid not in lobby.tables, "the finished table stayed in memory")
        codes = []
        for _ in range(3):
            codes.append(client.get(f"/api/tables/{tid}").status_code)
            assert tid not in lobby.tables  # evicted again at once (keep_finished=0): each request reads it back
        assert codes == [200, 200, 429]
        with client.websocket_connect(f"/ws/{tid}") as ws:  # a hello is the same client, the same budget
            ws.send_text(json.dumps({"type": "hello"}))
            assert "wait a minute" in until(ws, "error")["message"]
        assert client.get("/api/tables/no-such-table").status_code == 429  # a miss costs a read too


# ------------------------------------------------------------------ 9. the database was world-readable
def test_the_database_file_is_private(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = tmp_path / "fresh.db"
        store = Store(str(path))
        store.db.execute("CREATE TABLE probe (x)")  # a write: the WAL file now exists
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(Path(str(path) + "-wal").stat().st_mode) == 0o600
        store.close()
        wide = tmp_path / "old.db"
        wide.touch(mode=0o644)
        os.chmod(wide, 0o644)
        Store(str(wide)).close()
        assert stat.S_IMODE(wide.stat().st_mode) == 0o600  # an existing file is narrowed
    finally:
        os.umask(old)


# ------------------------------------------------------------------ 10. 500s had no security headers
def test_every_response_carries_the_security_headers_even_a_500(tmp_path: Path) -> None:
    with serving(tmp_path) as (lobby, client):

        class Broken(dict[str, Any]):
            def items(self) -> Any:
                raise RuntimeError("boom")

        lobby.rulesets = Broken()
        r = client.get("/api/rulesets")
        assert r.status_code == 500 and "boom" not in r.text and "Traceback" not in r.text
        for name in ("content-security-policy", "x-content-type-options", "referrer-policy", "x-frame-options"):
            assert name in r.headers, name
        for path in ("/", "/t/x", "/static/table.js", "/api/tables/nope", "/nowhere"):
            assert "default-src 'self'" in client.get(path).headers["content-security-policy"], path


# ------------------------------------------------------------------ 10. the token could not be rotated
def test_a_seat_renews_its_token_and_the_old_one_stops_working(tmp_path: Path) -> None:
    with serving(tmp_path) as (lobby, client):
        made = create(client).json()
        tid, old = made["table"], made["seats"][0]["token"]
        here, thief = hello(client, tid, old), hello(client, tid, old)
        until(here[1], "state")
        until(thief[1], "state")
        here[1].send_text(json.dumps({"type": "rotate"}))
        new = until(here[1], "token")["token"]
        assert isinstance(new, str) and len(new) >= 32 and new != old
        assert "renewed" in until(thief[1], "error")["message"]  # whoever had the old link is cut off
        with pytest.raises(WebSocketDisconnect):
            thief[1].receive_text()
        cm, ws = hello(client, tid, old)
        assert "holds no seat" in until(ws, "error")["message"]
        cm.__exit__(None, None, None)
        spectator = hello(client, tid, None)
        until(spectator[1], "state")
        spectator[1].send_text(json.dumps({"type": "rotate"}))
        assert "spectators" in until(spectator[1], "error")["message"]
        here[1].send_text(json.dumps({"type": "ping"}))
        assert until(here[1], "pong")  # the renewing page itself stays connected
        for cm, _ in (here, spectator):
            cm.__exit__(None, None, None)
    with serving(tmp_path) as (_, client):  # after a restart too
        cm, ws = hello(client, tid, new)
        assert until(ws, "state")["you"] == "P1"
        cm.__exit__(None, None, None)
        cm, ws = hello(client, tid, old)
        assert "holds no seat" in until(ws, "error")["message"]
        cm.__exit__(None, None, None)
