"""The ``liturgy serve`` subcommand: its arguments here (argparse only), the server imported when it runs.

Starlette and uvicorn are the optional ``web`` extra, so ``liturgy`` itself never imports them: without
them, ``serve`` says how to install them instead of failing on an import.
"""

from __future__ import annotations

import argparse
import logging
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
    s.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn
        from liturgy.interpreter.web.app import create_app
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
    limits = Limits(max_tables=args.max_tables, creates_per_minute=args.creates_per_minute)
    lobby = Lobby(rulesets, Store(args.db), limits, bot_delay=args.bot_delay)
    app = create_app(lobby)
    print(f"liturgy serve: {len(rulesets)} ruleset(s) at http://{args.host}:{args.port}/ (tables in {args.db})",
          flush=True)
    # no per-message deflate: states are a few kilobytes on a LAN, and compressing each costs more CPU than it saves
    uvicorn.run(app, host=args.host, port=args.port, ws_max_size=limits.max_message * 2,
                ws_per_message_deflate=False, log_level="info")
    return 0
