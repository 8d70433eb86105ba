"""The ``liturgy serve`` subcommand: its arguments here (argparse only), the server imported when it runs.

Starlette and uvicorn are the optional ``web`` extra, so ``liturgy`` itself never imports them: without
them, ``serve`` says how to install them instead of failing on an import.
"""

from __future__ import annotations

import argparse
import logging
import math
import socket
import sys
from typing import Any

from liturgy.interpreter.tools import arguments as A


def add_parser(sub: Any) -> None:
    """Register ``serve`` on the CLI's subparsers."""
    s = sub.add_parser("serve", help="play in the browser: tables, one device per seat (docs/web.md)")
    s.add_argument("rulesets", nargs="*", metavar="RULESET", help="default: every shipped rulesets/**/*.rules")
    s.add_argument("--db", default="liturgy-tables.sqlite3", help="SQLite file keeping every table "
                   "(default liturgy-tables.sqlite3)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: the whole LAN)")
    s.add_argument("--port", type=A.whole(0, 65535), default=8000)
    s.add_argument("--max-tables", type=A.whole(1, 100_000), default=1000, help="games in progress at once")
    s.add_argument("--creates-per-minute", type=A.whole(1, 1_000_000), default=30,
                   help="tables one address may create per minute (default 30)")
    s.add_argument("--bot-delay", type=A.seconds(0, 10), default=0.3,
                   help="seconds a bot waits before it plays, so people can follow (default 0.3)")
    s.add_argument("--tables-per-client", type=A.whole(1, 100_000), default=50,
                   help="games in progress one address may have created (default 50)")
    s.add_argument("--table-idle", type=A.seconds(1, 10 * 365 * 86400), default=12 * 3600, metavar="SECONDS",
                   help="an open table with no seat connected and no move for this long is ended "
                        "(default 43200: 12 hours)")
    s.add_argument("--spectators", type=A.whole(0, 10_000), default=32,
                   help="spectator connections per table (default 32; seats never count against it)")
    s.add_argument("--bot-cpu", type=share, default=0.5, metavar="SHARE",
                   help="share of one core a table's search bots may use on average (default 0.5)")
    s.add_argument("--bot-only-cpu", type=share, default=0.25, metavar="SHARE",
                   help="share of one core the tables of bots only may use together, their moves one at a time "
                        "(default 0.25): background work that people's tables never queue behind")
    s.add_argument("--sockets-per-client", type=A.whole(1, 1_000_000), default=256,
                   help="WebSocket connections one address may hold at once (default 256)")
    s.add_argument("--proxy-headers", metavar="ADDRESSES", default="",
                   help="comma-separated addresses or networks of reverse proxies whose X-Forwarded-For is "
                        "believed (default: none; every limit applies to the connection's own address)")
    s.add_argument("--allowed-hosts", metavar="NAMES", default="",
                   help="comma-separated host names the server answers to besides IP addresses, localhost and "
                        "this machine's name ('*': any); against DNS rebinding")
    s.set_defaults(func=cmd_serve)


def share(text: str) -> float:
    """An argparse type: a share of one core, 0.01 to 64 (finite)."""
    try:
        value = float(text) if len(text) <= 40 else math.nan
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0.01 <= value <= 64):
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a share of one core from 0.01 to 64")
    return value


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        from liturgy.interpreter.web.app import Hosts, Proxies, create_app
        from liturgy.interpreter.web.server import Server, config
        from liturgy.interpreter.web.store import Store
        from liturgy.interpreter.web.tables import Limits, Lobby, Refused, discover
    except ImportError as err:
        print(f"liturgy serve needs the web extra ({err.name} is missing): pip install -e \".[web]\"",
              file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        rulesets = discover(args.rulesets)
    except Refused as err:
        print(f"liturgy: error: {err}", file=sys.stderr)
        return 2
    limits = Limits(max_tables=args.max_tables, creates_per_minute=args.creates_per_minute,
                    tables_per_client=args.tables_per_client, table_idle=float(args.table_idle),
                    max_spectators=args.spectators, bot_cpu=args.bot_cpu, bot_only_cpu=args.bot_only_cpu,
                    sockets_per_client=args.sockets_per_client)
    lobby = Lobby(rulesets, Store(args.db), limits, bot_delay=args.bot_delay)
    name = socket.gethostname().lower()
    hosts = Hosts([name, f"{name}.local", *args.allowed_hosts.split(",")])
    app = create_app(lobby, Proxies(args.proxy_headers.split(",")), hosts)

    def ready(host: str, port: int) -> None:  # only once it accepts connections (server.py says why)
        shown = f"[{host}]" if ":" in host else host
        print(f"liturgy serve: {len(rulesets)} ruleset(s) at http://{shown}:{port}/ (tables in {args.db})",
              flush=True)

    server = Server(config(app, args.host, args.port, limits.max_message), ready)
    server.run()
    return 0 if server.started else 1
