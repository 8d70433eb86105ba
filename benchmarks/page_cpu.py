"""Chromium's work per state on the table page: one person plays a whole game against random bots.

``python benchmarks/tree_cpu.py python benchmarks/page_cpu.py fury_of_dracula`` (or ``bloodborne``) prints the
clicks, the states the page received, and the renderer's own counters (CDP ``Performance.getMetrics``: task,
script, layout and style seconds); tree_cpu.py adds the renderer process's CPU. Each table's seed is random, so
compare per state. Needs Playwright and a system Chromium, like tests/test_web_browser.py, whose ``Player`` and
``Server`` it uses. Why: the browser tests' CPU is mostly Chromium drawing the page (docs/performance.md,
"Session 20: what the slow tests wait for").
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from liturgy.interpreter.web.store import Store  # noqa: E402
from liturgy.interpreter.web.tables import Limits, Lobby, discover  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from test_web_browser import CHROMIUM, Player, Server  # noqa: E402

SEATS = {"bloodborne": ["human", "random", "random"], "fury_of_dracula": ["random", "human"]}
OPTIONS = {"fury_of_dracula": {"length": "skirmish"}}
ASKED = ("() => document.querySelector('#decision-card:not([hidden]) #options button:enabled') !== null"
         " || document.getElementById('turn').textContent.includes('finished')")
METRICS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration", "LayoutCount")


def main(key: str) -> int:
    rulesets = discover([str(ROOT / f"rulesets/{key}.rules")])
    seats = SEATS[key]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        server = Server(Lobby(rulesets, Store(tempfile.mkdtemp() + "/t.db"), Limits(bot_cpu=1.0), bot_delay=0.0))
        made = server.create(key, seats, OPTIONS.get(key))
        human = seats.index("human")
        player = Player(browser, f"{server.base}/t/{made['table']}#seat={made['seats'][human]['token']}", human)
        cdp = player.context.new_cdp_session(player.page)
        cdp.send("Performance.enable")
        table = server.lobby.tables[made["table"]]
        clicks, start = 0, time.monotonic()
        while not table.game.finished and clicks < 300:
            if player.act():
                clicks += 1
            else:
                player.page.wait_for_function(ASKED, timeout=60000)
        got = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        states = len(player.frames)
        print(f"{key}: {clicks} clicks, {states} frames, {time.monotonic() - start:.1f} s; "
              + ", ".join(f"{m} {got.get(m, 0):.3f}" for m in METRICS)
              + f"; script per frame {1000 * got.get('ScriptDuration', 0) / max(states, 1):.2f} ms", flush=True)
        player.context.close()
        server.stop()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "bloodborne"))
