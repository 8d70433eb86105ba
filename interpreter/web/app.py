"""The HTTP and WebSocket surface of `liturgy serve` (Starlette), over :class:`.tables.Lobby`.

Routes: ``/`` the lobby page, ``/t/{id}`` a table's page (the seat token travels in the URL *fragment*,
which browsers never send, so it is in no request line, proxy log or access log), ``/static/…`` the page's
files, ``/api/rulesets``, ``POST /api/tables`` (create), ``GET /api/tables/{id}`` (public summary),
``POST /api/tables/{id}/end`` (host only) and the WebSocket ``/ws/{id}``.

The WebSocket protocol, JSON both ways. The browser first sends ``{"type": "hello", "token": T}`` (no token:
a spectator); the server answers with ``state`` messages, each rendered for that connection's seat alone, then
one after every change. The browser sends ``{"type": "choose", "at": A, "choice": I}``: option ``I`` of the
question its state showed (``decision.at``: the move at which that decision was asked, plus the entries of it this
seat has answered: a seat deciding for several units is asked once per unit); the server answers
``{"type": "ack", "move": …}`` (the new number of decisions) once the decision is committed to the database,
or ``{"type": "error", "message": …}`` with the game unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any

import orjson
from liturgy.interpreter.web.tables import Bucket, Frame, Lobby, Refused, Watcher
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

log = logging.getLogger("liturgy.web")
STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 8192
MAX_DEPTH = 16  # brackets open at once in a JSON request or message (the protocol needs 2)
BODY_TIMEOUT = 10.0  # seconds a request body may take to arrive
HEADERS = [
    (b"content-security-policy", b"default-src 'self'; connect-src 'self'; img-src 'self' data:; "
                                 b"frame-ancestors 'none'; base-uri 'none'; form-action 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class SecurityHeaders:
    """Adds the headers above to every HTTP response, the 500 of an unexpected error included: it wraps the
    whole application, outside Starlette's own error handler (which writes that 500)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [h for h in HEADERS if h[0] not in names]
            await send(message)

        await self.app(scope, receive, with_headers)


class Proxies:
    """The reverse proxies whose ``X-Forwarded-For`` is believed (``--proxy-headers``): addresses or networks.

    None by default: then a client is the address its TCP connection comes from, whatever it writes in its
    headers (uvicorn's own default believed the header from 127.0.0.1, so anyone on the machine, or a proxy
    passing the header through, could be any address it liked and escape every per-address limit).
    """

    def __init__(self, specs: Iterable[str] = ()) -> None:
        self.nets: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        self.names: set[str] = set()
        for spec in specs:
            spec = spec.strip()
            if not spec:
                continue
            try:
                self.nets.append(ipaddress.ip_network(spec, strict=False))
            except ValueError:
                self.names.add(spec)  # a non-address peer name (a Unix socket, a test client)

    def trusts(self, addr: str) -> bool:
        if addr in self.names:
            return True
        try:
            ip = ipaddress.ip_address(addr)
        except ValueError:
            return False
        return any(ip in net for net in self.nets)

    def client(self, scope: Scope) -> str:
        """The client's address: the peer's, or when the peer is a trusted proxy, the nearest address in
        ``X-Forwarded-For`` (read from the right) that is not one of the trusted proxies."""
        peer = scope.get("client")
        addr = str(peer[0]) if peer else "?"
        if not self.trusts(addr):
            return addr
        hops: list[str] = []
        for name, value in scope.get("headers", []):
            if name == b"x-forwarded-for":
                hops += [h.strip() for h in value.decode("latin-1").split(",") if h.strip()]
        for hop in reversed(hops):
            if not self.trusts(hop):
                return hop
            addr = hop
        return addr


def client_key(addr: str) -> str:
    """The key of per-client limits: the address, or for IPv6 its /64 (one host usually holds a whole /64)."""
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return addr
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class Hosts:
    """Which ``Host`` names the server answers to, against DNS rebinding (a hostile page whose name is made to
    resolve to this server would otherwise be same-origin with it): any IP address, ``localhost`` (and its
    subdomains), and the names given (``--allowed-hosts``); ``*`` allows every name."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        self.names = {n.strip().lower().rstrip(".") for n in names if n.strip()}

    def allows(self, host: str) -> bool:
        name = _hostname(host)
        if not name:
            return False
        if "*" in self.names or name in self.names or name == "localhost" or name.endswith(".localhost"):
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True


def _hostname(host: str) -> str:
    """``example.org:8000`` → ``example.org``; ``[::1]:8000`` → ``::1``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else ""
    return host.rsplit(":", 1)[0].rstrip(".") if host.count(":") <= 1 else host


def _header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers", []):
        if k == name:
            return str(v.decode("latin-1"))
    return None


def same_origin(scope: Scope) -> bool:
    """A request's ``Origin`` is this server (the same host and port as its ``Host``), or absent.

    Browsers send ``Origin`` with every cross-site POST and every WebSocket, so a hostile page is always
    caught; a client that sends none is not a browser acting for someone else (curl, the load test).
    """
    origin = _header(scope, b"origin")
    if origin is None:
        return True
    host = _header(scope, b"host") or ""
    scheme, sep, rest = origin.partition("://")
    return bool(sep) and scheme in ("http", "https") and rest.rstrip("/").lower() == host.strip().lower()


class Guard:
    """Refuses, before any route runs, a request for a name this server is not (``Host``), a state-changing
    request or WebSocket from another site (``Origin``: cross-site request forgery), and a POST that is not
    JSON (an HTML form or ``text/plain``, which a hostile page can send without asking the browser first)."""

    def __init__(self, app: ASGIApp, hosts: Hosts) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        problem, status = None, 403
        if not self.hosts.allows(_header(scope, b"host") or ""):
            problem, status = "this server does not answer to that name (liturgy serve --allowed-hosts)", 421
        elif (scope["type"] == "websocket" or scope.get("method") not in SAFE_METHODS) and not same_origin(scope):
            problem = "requests from another site are refused"
        elif scope["type"] == "http" and scope.get("method") not in SAFE_METHODS:
            kind = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
            if kind != "application/json":
                problem, status = "send JSON (content-type: application/json)", 415
        if problem is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": problem})  # the handshake gets a 403
        else:
            await JSONResponse({"error": problem}, status_code=status)(scope, receive, send)


def nesting(text: str | bytes) -> int:
    """How deeply ``text``'s JSON brackets nest (outside strings): checked before parsing, because a parser
    recurses per level and thousands of ``[`` raised an uncaught RecursionError (a 500, a dropped socket)."""
    data = text.encode("utf-8", "replace") if isinstance(text, str) else text
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def parse(text: str | bytes, what: str) -> Any:
    """JSON from a client, refused (never raised past here) when too deep or not JSON."""
    if nesting(text) > MAX_DEPTH:
        raise Refused(f"{what} nests too deeply")
    try:
        return json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as err:
        raise Refused(f"{what} is not JSON") from err


async def _json_body(request: Request) -> Any:
    """The request's JSON, at most ``MAX_BODY`` bytes (read in pieces: a large body is refused early) and within
    ``BODY_TIMEOUT`` seconds (a body sent a byte at a time holds a connection no longer than that)."""
    body = b""
    try:
        async with asyncio.timeout(BODY_TIMEOUT):
            async for chunk in request.stream():
                body += chunk
                if len(body) > MAX_BODY:
                    raise Refused("request too large")
    except TimeoutError as err:
        raise Refused("the request took too long to arrive") from err
    return parse(body, "the request")


def encode(msg: dict[str, Any]) -> str:
    """A message as JSON text: orjson (a dependency already, for digests) where it can, several times faster
    than ``json``, which takes over for what orjson refuses (an integer past 64 bits). A :class:`~.tables.Frame`
    shared by several connections is encoded by the first that sends it; the others send the same text."""
    if isinstance(msg, Frame):
        if msg.text is None:
            msg.text = _encode(msg)
        return msg.text
    return _encode(msg)


def _encode(msg: dict[str, Any]) -> str:
    try:
        return orjson.dumps(msg).decode()
    except TypeError:
        return json.dumps(msg)


def _table_request(body: Any) -> tuple[str, int, list[str], dict[str, str]]:
    """A create request's fields, checked for shape (the lobby checks what they mean)."""
    if not isinstance(body, dict):
        raise Refused("send {ruleset, players, seats, options}")
    ruleset, players, seats = body.get("ruleset"), body.get("players"), body.get("seats")
    options = body.get("options") or {}
    if not isinstance(ruleset, str) or type(players) is not int or not isinstance(seats, list) \
            or not all(isinstance(k, str) for k in seats) or not isinstance(options, dict):
        raise Refused("send {ruleset: key, players: number, seats: [kind…], options: {name: value}}")
    return ruleset, players, seats, options


def _status(err: Refused, default: int) -> int:
    """The HTTP status of a refusal: over a server-wide limit 503, over a client's own 429, not the host 403."""
    text = str(err)
    if "as many tables" in text:
        return 503
    if "as many games" in text or "wait a minute" in text:
        return 429
    return 403 if "host" in text else default


def _refused(err: Refused, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": str(err)}, status_code=status)


class PerClient:
    """A token bucket per client key (``rate`` per second, ``burst`` at once), forgetting full ones now and then
    so the map stays small however many clients come and go."""

    def __init__(self, per_minute: float) -> None:
        self.rate, self.burst = per_minute / 60, max(1.0, per_minute / 2)
        self.buckets: dict[str, Bucket] = {}

    def take(self, key: str) -> bool:
        if len(self.buckets) > 10_000:
            for k in [k for k, b in self.buckets.items() if b.take() and b.level >= b.burst - 1]:
                del self.buckets[k]
        return self.buckets.setdefault(key, Bucket(self.rate, self.burst)).take()


def create_app(lobby: Lobby, proxies: Proxies | None = None, hosts: Hosts | None = None) -> ASGIApp:
    """The ASGI application serving ``lobby``: Starlette's routes inside the origin and host checks, inside the
    security headers (outermost, so that every response has them)."""
    proxies = proxies or Proxies()
    creates = PerClient(lobby.limits.creates_per_minute)
    loads = PerClient(lobby.limits.loads_per_minute)
    sockets: dict[str, int] = {}

    def who(conn: Request | WebSocket) -> str:
        return client_key(proxies.client(conn.scope))

    def may_load(conn: Request | WebSocket) -> Callable[[], bool]:
        return lambda: loads.take(who(conn))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        count, problems = lobby.resume()
        for p in problems:
            log.error("%s", p)
        log.info("resumed %d table(s) from %s, each replayed to its recorded digest", count, lobby.store.path)
        lobby.start_bots()
        yield
        await lobby.close()

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def table_page(request: Request) -> Response:
        return FileResponse(STATIC / "table.html")

    async def rulesets(request: Request) -> Response:
        return JSONResponse({"bots": lobby.bots, "rulesets": [
            {"key": key, "name": r.name, "min_players": r.min_players, "max_players": r.max_players,
             "options": {k: list(v) for k, v in r.option_values().items()}}
            for key, r in sorted(lobby.rulesets.items())]})

    async def create(request: Request) -> Response:
        client = who(request)
        if not creates.take(client):
            return _refused(Refused("too many tables created from this address; wait a minute"), 429)
        try:
            ruleset, players, seats, options = _table_request(await _json_body(request))
            made = await lobby.create(ruleset, players, seats, options, owner=client)
        except Refused as err:
            return _refused(err, _status(err, 400))
        return JSONResponse(made, status_code=201)

    async def summary(request: Request) -> Response:
        try:
            t = await lobby.fetch(request.path_params["tid"], may_load(request))
        except Refused as err:
            return _refused(err, _status(err, 404))
        lobby.settle(t)
        online = {w.seat for w in t.watchers if w.seat is not None}
        return JSONResponse({"table": t.id, "ruleset": t.game.ruleset.name, "key": t.key, "move": t.moves,
                             "status": "ended" if t.status == "ended" else t.game.state.status,
                             "seats": [{"seat": f"P{p + 1}", "kind": k, "online": p in online}
                                       for p, k in enumerate(t.seats)]})

    async def end(request: Request) -> Response:
        try:
            body = await _json_body(request)
            host = body.get("host") if isinstance(body, dict) else None
            if not isinstance(host, str):
                raise Refused("only the table's host can end it")
            t = await lobby.fetch(request.path_params["tid"], may_load(request))
            try:
                await lobby.end(t, host)
            finally:
                lobby.settle(t)
        except Refused as err:
            return _refused(err, _status(err, 400))
        return JSONResponse({"table": t.id, "status": "ended"})

    async def ws_endpoint(ws: WebSocket) -> None:
        client = who(ws)
        if sockets.get(client, 0) >= lobby.limits.sockets_per_client:
            await ws.close(code=1008, reason="too many connections from this address")
            return
        sockets[client] = sockets.get(client, 0) + 1
        try:
            await ws.accept()
            await _serve_socket(lobby, ws, ws.path_params["tid"], may_load(ws))
        finally:
            sockets[client] -= 1
            if not sockets[client]:
                del sockets[client]

    routes = [
        Route("/", index), Route("/t/{tid}", table_page),
        Route("/api/rulesets", rulesets), Route("/api/tables", create, methods=["POST"]),
        Route("/api/tables/{tid}", summary), Route("/api/tables/{tid}/end", end, methods=["POST"]),
        WebSocketRoute("/ws/{tid}", ws_endpoint),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return SecurityHeaders(Guard(Starlette(routes=routes, lifespan=lifespan), hosts or Hosts()))


async def _receive(ws: WebSocket, limit: int) -> dict[str, Any] | None:
    """The next message as a JSON object; None once the browser has gone. Oversized or malformed: Refused."""
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        return None
    text = message.get("text")
    if text is None:
        raise Refused("send text messages")
    if len(text) > limit:
        raise Refused("message too large")
    data = parse(text, "a message")
    if not isinstance(data, dict):
        raise Refused("a message is a JSON object")
    return data


async def _serve_socket(lobby: Lobby, ws: WebSocket, tid: str, may_load: Callable[[], bool]) -> None:
    """One browser's connection to one table, from its hello to its close."""
    limits = lobby.limits

    async def send(msg: dict[str, Any]) -> None:
        await ws.send_text(encode(msg))

    table = None
    try:
        hello = await asyncio.wait_for(_receive(ws, limits.max_message), limits.hello_timeout)
        if hello is None:
            return
        if hello.get("type") != "hello":
            raise Refused("say hello first")
        # fetched after the hello, then joined at once: a finished table read back from the database is watched
        # before anything could evict it again
        table = await lobby.fetch(tid, may_load)
        seat = lobby.seat_of(table, hello.get("token"))
        watcher = Watcher(seat, send)
        lobby.join(table, watcher)
    except (Refused, TimeoutError) as err:
        if table is not None:
            lobby.settle(table)
        with contextlib.suppress(Exception):
            await send({"type": "error", "message": str(err) or "no hello in time"})
            await ws.close(code=4403)
        return
    pump = asyncio.get_running_loop().create_task(watcher.pump())
    bucket = Bucket(limits.rate, limits.burst)
    # Refusals have their own bucket: a client past the rate is refused (and told to slow down), and is dropped
    # only when its refused messages alone keep coming faster than the rate, i.e. it sends more than twice what
    # is allowed and does not slow down. A count of refusals over the connection's whole life (what this was)
    # dropped a polite client that had merely been told to slow down twenty times in a long game.
    flood = Bucket(limits.rate, limits.burst)
    receiving: asyncio.Task[dict[str, Any] | None] | None = None
    code = 1000
    try:
        while True:
            receiving = asyncio.ensure_future(_receive(ws, limits.max_message))
            # the pump ends when the browser has gone, or when this connection was replaced (its seat opened on
            # another page, or its token renewed): then the connection closes, however quiet the browser is
            await asyncio.wait((receiving, pump), return_when=asyncio.FIRST_COMPLETED)
            if not receiving.done():
                code = 4403 if watcher.evicted else 1000
                break
            try:
                msg = receiving.result()
                if msg is None:
                    break
                if not bucket.take():
                    if not flood.take():
                        log.warning("table %s: a connection flooding past the message rate was dropped", tid)
                        break
                    raise Refused("too many messages: slow down")
                kind = msg.get("type")
                if kind == "choose":
                    moves = await lobby.choose(table, seat, msg.get("at"), msg.get("choice"))
                    watcher.post({"type": "ack", "move": moves})
                elif kind == "rotate":
                    watcher.post({"type": "token", "token": await lobby.rotate(table, seat, watcher)})
                elif kind == "ping":
                    watcher.post({"type": "pong"})
                else:
                    raise Refused("unknown message")
            except Refused as err:
                watcher.post({"type": "error", "message": str(err)})
    except Exception as err:  # a broken connection: this watcher goes, the table stays
        log.debug("connection to table %s closed: %s", tid, type(err).__name__)
    finally:
        if receiving is not None and not receiving.done():
            receiving.cancel()
        lobby.leave(table, watcher)
        pump.cancel()
        with contextlib.suppress(Exception):
            await ws.close(code=code)
