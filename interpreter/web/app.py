"""The HTTP and WebSocket surface of `liturgy serve` (Starlette), over :class:`.tables.Lobby`.

Routes: ``/`` the lobby page, ``/t/{id}`` a table's page (the seat token travels in the URL *fragment*,
which browsers never send, so it is in no request line, proxy log or access log), ``/static/…`` the page's
files, ``/api/rulesets``, ``POST /api/tables`` (create), ``GET /api/tables/{id}`` (public summary),
``POST /api/tables/{id}/end`` (host only) and the WebSocket ``/ws/{id}``.

The WebSocket protocol, JSON both ways. The browser first sends ``{"type": "hello", "token": T}`` (no token:
a spectator); the server answers with ``state`` messages, each rendered for that connection's seat alone, then
one after every change. The browser sends ``{"type": "choose", "at": A, "choice": I}``: option ``I`` of the
decision its state showed (``decision.at``, the move at which that decision was asked); the server answers
``{"type": "ack", "move": …}`` (the new number of decisions) once the decision is committed to the database,
or ``{"type": "error", "message": …}`` with the game unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
from liturgy.interpreter.web.tables import Bucket, Lobby, Refused, Watcher
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
HEADERS = [
    (b"content-security-policy", b"default-src 'self'; connect-src 'self'; img-src 'self' data:; "
                                 b"frame-ancestors 'none'; base-uri 'none'; form-action 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
]


class SecurityHeaders:
    """Adds the headers above to every HTTP response (the page runs only its own scripts)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + HEADERS
            await send(message)

        await self.app(scope, receive, with_headers)


async def _json_body(request: Request) -> Any:
    """The request's JSON, at most ``MAX_BODY`` bytes (read in pieces: a large body is refused early)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused("request too large")
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as err:
        raise Refused("the request is not JSON") from err


def encode(msg: dict[str, Any]) -> str:
    """A message as JSON text: orjson (a dependency already, for digests) where it can, several times faster
    than ``json``, which takes over for what orjson refuses (an integer past 64 bits)."""
    try:
        return orjson.dumps(msg).decode()
    except TypeError:
        return json.dumps(msg)


def _refused(err: Refused, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": str(err)}, status_code=status)


def create_app(lobby: Lobby) -> Starlette:
    """The ASGI application serving ``lobby``."""
    creates: dict[str, Bucket] = {}

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
        host = request.client.host if request.client else "?"
        per_minute = lobby.limits.creates_per_minute
        bucket = creates.setdefault(host, Bucket(per_minute / 60, max(1.0, per_minute / 2)))
        if not bucket.take():
            return _refused(Refused("too many tables created from this address; wait a minute"), 429)
        try:
            body = await _json_body(request)
            if not isinstance(body, dict):
                raise Refused("send {ruleset, players, seats, options}")
            ruleset, players, seats = body.get("ruleset"), body.get("players"), body.get("seats")
            options = body.get("options") or {}
            if not isinstance(ruleset, str) or type(players) is not int or not isinstance(seats, list) \
                    or not all(isinstance(k, str) for k in seats) or not isinstance(options, dict):
                raise Refused("send {ruleset: key, players: number, seats: [kind…], options: {name: value}}")
            made = await lobby.create(ruleset, players, seats, options)
        except Refused as err:
            return _refused(err, 503 if "as many tables" in str(err) else 400)
        return JSONResponse(made, status_code=201)

    async def summary(request: Request) -> Response:
        try:
            t = await lobby.fetch(request.path_params["tid"])
        except Refused as err:
            return _refused(err, 404)
        lobby.settle(t)
        online = {w.seat for w in t.watchers if w.seat is not None}
        return JSONResponse({"table": t.id, "ruleset": t.game.ruleset.name, "key": t.key, "move": t.moves,
                             "status": "ended" if t.status == "ended" else t.game.state.status,
                             "seats": [{"seat": f"P{p + 1}", "kind": k, "online": p in online}
                                       for p, k in enumerate(t.seats)]})

    async def end(request: Request) -> Response:
        try:
            body = await _json_body(request)
            t = await lobby.fetch(request.path_params["tid"])
            try:
                await lobby.end(t, body.get("host") if isinstance(body, dict) else None)
            finally:
                lobby.settle(t)
        except Refused as err:
            return _refused(err, 403 if "host" in str(err) else 400)
        return JSONResponse({"table": t.id, "status": "ended"})

    async def ws_endpoint(ws: WebSocket) -> None:
        await ws.accept()
        await _serve_socket(lobby, ws, ws.path_params["tid"])

    routes = [
        Route("/", index), Route("/t/{tid}", table_page),
        Route("/api/rulesets", rulesets), Route("/api/tables", create, methods=["POST"]),
        Route("/api/tables/{tid}", summary), Route("/api/tables/{tid}/end", end, methods=["POST"]),
        WebSocketRoute("/ws/{tid}", ws_endpoint),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.add_middleware(SecurityHeaders)
    return app


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
    try:
        data = json.loads(text)
    except ValueError as err:
        raise Refused("a message is a JSON object") from err
    if not isinstance(data, dict):
        raise Refused("a message is a JSON object")
    return data


async def _serve_socket(lobby: Lobby, ws: WebSocket, tid: str) -> None:
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
        table = await lobby.fetch(tid)
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
    try:
        while not pump.done():
            try:
                msg = await _receive(ws, limits.max_message)
                if msg is None:
                    break
                if not bucket.take():
                    if not flood.take():
                        log.warning("table %s: a connection flooding past the message rate was dropped", tid)
                        break
                    raise Refused("too many messages: slow down")
                if msg.get("type") == "choose":
                    moves = await lobby.choose(table, seat, msg.get("at"), msg.get("choice"))
                    watcher.post({"type": "ack", "move": moves})
                elif msg.get("type") == "ping":
                    watcher.post({"type": "pong"})
                else:
                    raise Refused("unknown message")
            except Refused as err:
                watcher.post({"type": "error", "message": str(err)})
    except Exception as err:  # a broken connection: this watcher goes, the table stays
        log.debug("connection to table %s closed: %s", tid, type(err).__name__)
    finally:
        lobby.leave(table, watcher)
        pump.cancel()
        with contextlib.suppress(Exception):
            await ws.close()
