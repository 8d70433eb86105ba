"""Web play: `liturgy serve`, tables with one browser per seat, every decision kept in SQLite.

The server holds each game; a seat's browser receives only what the engine renders for that seat
(``Game.view`` / ``Game.display`` / ``Game.log_lines`` for that player), never the state, the seed or
another seat's hidden cards, so nothing secret is ever filtered in the browser (the leak boardgame.io
shipped). Layers: :mod:`.store` (SQLite, durable before acknowledged), :mod:`.tables` (tables, seats,
tokens, bots, per-seat rendering, limits), :mod:`.app` (Starlette routes and the WebSocket protocol),
:mod:`.cli` (the ``serve`` subcommand), :mod:`.loadtest` (the loopback load test). Starlette and uvicorn
are the optional ``web`` extra: only :mod:`.cli` is imported by the CLI, and it imports the rest lazily.
"""
