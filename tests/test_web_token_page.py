"""The seat page in a real browser (Debian's Chromium, headless, through Playwright; nothing downloaded): the seat
token leaves the address bar for the tab's session storage, survives a reload, and "New seat link" renews it."""

from __future__ import annotations

import json
import shutil
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")

from liturgy.interpreter.web.app import create_app  # noqa: E402
from liturgy.interpreter.web.server import config, listen  # noqa: E402
from liturgy.interpreter.web.store import Store  # noqa: E402
from liturgy.interpreter.web.tables import Lobby, discover, same_token  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = next((b for b in ("/usr/bin/chromium", "/usr/bin/chromium-browser", shutil.which("chromium") or "")
                 if b and Path(b).exists()), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no system Chromium (apt-get install chromium); "
                                                          "this test never downloads one")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Lobby, str]]:
    lobby = Lobby(discover([str(ROOT / "rulesets/classic/kuhn_poker.rules")]), Store(str(tmp_path / "t.db")),
                  bot_delay=0)
    sock = listen("127.0.0.1", 0)
    port = int(sock.getsockname()[1])
    srv = uvicorn.Server(config(create_app(lobby), "127.0.0.1", port, 2048, log_level="warning"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield lobby, f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=60)
        sock.close()


def test_the_token_leaves_the_address_bar_and_the_seat_can_renew_it(server: tuple[Lobby, str]) -> None:
    lobby, base = server
    req = urllib.request.Request(base + "/api/tables", headers={"content-type": "application/json"},
                                 data=json.dumps({"ruleset": "kuhn_poker", "players": 2,
                                                  "seats": ["human", "human"]}).encode())
    with urllib.request.urlopen(req, timeout=30) as r:
        made: dict[str, Any] = json.loads(r.read())
    tid, token = made["table"], made["seats"][0]["token"]
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            page = browser.new_context().new_page()
            page.goto(f"{base}/t/{tid}#seat={token}")
            page.wait_for_function("() => document.getElementById('who').textContent.includes('P1')", timeout=30000)
            assert page.url == f"{base}/t/{tid}" and token not in page.url  # out of the address bar and history
            assert page.evaluate(f"() => sessionStorage.getItem('liturgy-seat:{tid}')") == token
            page.reload()  # the tab still holds its seat
            page.wait_for_function("() => document.getElementById('who').textContent.includes('P1')", timeout=30000)
            page.get_by_role("button", name="New seat link").click()
            page.wait_for_function("() => document.getElementById('error').textContent.includes('#seat=')",
                                   timeout=30000)
            new = str(page.evaluate(f"() => sessionStorage.getItem('liturgy-seat:{tid}')"))
            assert new != token and new in page.inner_text("#error")
            assert same_token(new, lobby.tables[tid].seat_hashes[0])
            assert not same_token(token, lobby.tables[tid].seat_hashes[0])
        finally:
            browser.close()
