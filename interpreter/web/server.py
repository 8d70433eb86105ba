"""uvicorn for `liturgy serve`: read timeouts, no trusted proxy headers, bounded sizes, its address told when ready.

uvicorn's HTTP/1.1 protocol (h11) waits for a request's headers with no time limit: a client sending a header
line every few seconds (slow-loris) held its connection for as long as it liked, and a thousand such
connections were held for 30 s and more (issue 34, finding 6). :class:`TimedH11Protocol` gives a connection
``HEADER_TIMEOUT`` seconds, from when it opens or from the end of its previous response, to deliver a complete
request head, and closes it otherwise. A request body has its own limit in the application
(``app.BODY_TIMEOUT``), and a WebSocket its hello timeout (``Limits.hello_timeout``) and uvicorn's pings.

`liturgy serve` printed its address before uvicorn had started: before the application's start-up (which replays
every open table from the database, seconds with many) and before the socket listened, so a script or a person
that opened the address at once was refused for up to ~10 s. :class:`Server` announces it from inside uvicorn's
start-up, after the lifespan has finished and the socket accepts connections, with the port actually bound (so
``--port 0`` prints the free port it got).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT = 10.0  # seconds for a connection to send a complete request head


class TimedH11Protocol(H11Protocol):
    """h11 with a deadline for each request head (the module doc says why)."""

    header_timeout = HEADER_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.head_deadline: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        self._disarm()
        self.head_deadline = self.loop.call_later(self.header_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self.head_deadline is not None:
            self.head_deadline.cancel()
            self.head_deadline = None

    def _too_slow(self) -> None:
        self.head_deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # a whole head arrived (its body, or a WebSocket, follows)
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm()  # the next request on this kept-alive connection gets the same deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def config(app: Any, host: str, port: int, max_message: int, header_timeout: float = HEADER_TIMEOUT,
           log_level: str = "info", max_connections: int | None = None) -> uvicorn.Config:
    """The uvicorn configuration of `liturgy serve`.

    ``proxy_headers=False``: the client is the connection's peer (the application believes ``X-Forwarded-For``
    only from the proxies ``--proxy-headers`` names, app.Proxies). No per-message deflate: states are a few
    kilobytes on a LAN, and compressing each costs more CPU than it saves.
    """
    protocol = type("TimedH11", (TimedH11Protocol,), {"header_timeout": header_timeout})
    return uvicorn.Config(app, host=host, port=port, http=protocol, ws_max_size=max_message * 2,
                          ws_per_message_deflate=False, proxy_headers=False, log_level=log_level,
                          limit_concurrency=max_connections, timeout_keep_alive=5)


def listen(host: str, port: int) -> socket.socket:
    """A listening socket (port 0: any free one), for a server whose port must be known before it starts."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


class Server(uvicorn.Server):
    """uvicorn's server, which calls ``ready(host, port)`` once it accepts connections (the module doc says why).

    Ready means uvicorn's start-up has returned: the application's lifespan start-up is done (tables resumed,
    bots started) and the listening socket is open. A start-up that failed (a port in use) never calls it.
    """

    def __init__(self, config: uvicorn.Config, ready: Callable[[str, int], None] | None = None) -> None:
        super().__init__(config)
        self.ready = ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and self.ready is not None and not self.should_exit:
            host, port = bound(self)
            self.ready(host, port)


def bound(server: uvicorn.Server) -> tuple[str, int]:
    """The address a started server listens on: its configured host, and the port its socket got."""
    for srv in getattr(server, "servers", []):
        for sock in srv.sockets or ():
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                return server.config.host, int(sock.getsockname()[1])
    return server.config.host, server.config.port
