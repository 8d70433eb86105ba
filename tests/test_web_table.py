"""The four seed games played through the web page in Chromium, a person clicking one seat (issue 32's "done when").

For each game a person starts at the lobby (picks the game, the number of players, who sits where and the
game's options, clicks "Create table", follows their seat's invite link) and clicks a seeded random option at
every question of theirs from the first to the result; the other seats are bots. The tables' and bots' seeds are
fixed (``SEED``), so every run plays the same four games (Fury of Dracula's with a combat where the person picks a
card for two Hunters, the path session 24 fixed). Short but whole games, through
the options the rulesets declare (the full games under ``HYPOTHESIS_PROFILE=thorough``):
- Fury of Dracula `length=skirmish`: the game ends at the first new day (harness_options.py);
- Betrayal `length=quick`: the first omen starts the haunt, the game ends a round later;
- Slay the Spire `acts=1`: a solo run that ends after Act I's boss (or earlier, when the party dies);
- Bloodborne as it ships (a game is a few rounds).
Along the way and at the end the page must show:
- the narration of what changed for the seat ("What changed for you"), with Bloodborne's health losses said;
- player-facing labels: no zone, counter, option or map label (nor the lobby's) is a raw identifier
  (`upgrade_deck`, `wound1`), and the checker's own rule for shown values (W090) finds nothing in the ruleset;
- the picture of the board: an SVG map for Fury of Dracula (the graph, the Hunters on it) and for Slay the Spire
  (the Act map its ruleset lays out: rooms, paths, the party's room, the map token on each token space), an SVG
  board for Betrayal (the floor plan);
- piles as stacks with counts, never rows of `?`.
Screenshots along the way (the lobby, mid-game, the end) go into the test's temporary folder; those for
docs/web.md and docs/playing.md (the top of the table and the board) into ``docs/web/`` when
``LITURGY_WEB_SCREENSHOTS=1``. The four games cost ~3 s of the test process's CPU (`--cpu-durations`; Chromium
is a separate process): the bots answer at once (``bot_delay=0``) and the loop waits on the page, never sleeps.
"""

from __future__ import annotations

import functools
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")

from conftest import PROFILE  # noqa: E402
from harness_options import HARNESS_OPTIONS  # noqa: E402
from liturgy.dsl.loader import check_file  # noqa: E402
from liturgy.interpreter.engine import Ruleset  # noqa: E402
from liturgy.interpreter.web import tables  # noqa: E402
from liturgy.interpreter.web.store import Store  # noqa: E402
from liturgy.interpreter.web.tables import Lobby, discover  # noqa: E402
from test_web_browser import CHROMIUM, FINISHED, NO_REST, ROOT, Player, Server, _SeededSecrets, browser, until  # noqa: E402, F401

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no system Chromium (apt-get install chromium); "
                                                          "the browser test never downloads one")
# The tables' and bots' seeds come from a fixed stream (test_web_browser's _SeededSecrets), so every run plays the
# same four games: with the lobby's random seeds, 4 of 200 Fury of Dracula skirmishes (and session 22's and 24's
# failed runs) reached a combat with two Hunters fighting, where the page drew the second Hunter's question
# disabled (docs/web.md, session 24). This seed's skirmish reaches one at decision 92: the fix is played through
# the page on every run.
SEED = 117
GAMES = {  # ruleset key: (seats, the seat a person clicks, clicks allowed)
    "bloodborne": (["human", "random", "random"], 0, 600),
    "fury_of_dracula": (["random", "human"], 1, 1500),
    "betrayal": (["human", "random", "random"], 0, 1500),
    "slay_the_spire": (["human"], 0, 1500),
}
SHORT = {**{Path(k).stem: v for k, v in HARNESS_OPTIONS.items()}, "slay_the_spire": {"acts": "1"}}


@functools.cache
def _rulesets(*keys: str) -> dict[str, Ruleset]:
    """The games' rulesets (``keys``, else the four), compiled on first use: every xdist worker imports this module
    to collect it, and compiling them at import cost the worker that runs none of its tests (or all of them when
    Chromium is missing) about 5 s of CPU. Each is compiled once per worker whichever tests ask (conftest.py
    shares compiled shipped rulesets), so a test that serves only two games does not pay for the other two
    (Betrayal's and Slay the Spire's load, ~3.6 s of CPU from a warm compile cache, on a worker that runs no
    other test of this file)."""
    return discover([str(ROOT / f"rulesets/{key}.rules") for key in keys or GAMES])

# a word a player would read as an identifier: snake_case, or lower-case letters with a digit glued on (`wound1`);
# the same shape tests/test_terminal_full_games.py looks for on the terminal's screens
IDENT = re.compile(r"(?<![\w./-])(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+[0-9]+)(?![\w/.-])")
ASKED = """() => document.querySelector('#decision-card:not([hidden]) #options button:enabled') !== null
  || document.getElementById('turn').textContent.includes('finished')"""

# the labels a person reads: zone names, the hand's groups, counters, options, map and board labels
LABELS = """() => Array.from(document.querySelectorAll(
  '#zones b, #hand h3, #counters th, #options button, #maps h3, svg text.label, #changes li div'),
  e => e.firstChild ? e.firstChild.textContent : e.textContent)"""


def raw_labels(page: Any, labels: str = LABELS) -> list[str]:
    return [t for t in page.evaluate(labels) if IDENT.search(t)]


def from_the_lobby(chromium: Any, server: Server, key: str, seats: list[str], options: dict[str, str],
                   human: int, shots: Path) -> tuple[str, list[str]]:
    """Create the table as a person does, on the lobby page: the game, the players, each seat, each option; then
    the invite link of the seat ``human``. Returns that link and the lobby's raw labels (none expected)."""
    page = chromium.new_page(viewport={"width": 1000, "height": 760})
    page.goto(server.base + "/")
    page.wait_for_selector("#ruleset option", state="attached")
    page.select_option("#ruleset", key)
    page.fill("#players", str(len(seats)))
    page.dispatch_event("#players", "change")
    for i, kind in enumerate(seats):
        page.locator("#seats select").nth(i).select_option(kind)
    for name, value in options.items():
        page.locator(f"#options select[data-option={name}]").select_option(value)
    raw = raw_labels(page, "() => Array.from(document.querySelectorAll('#create label'), "
                           "e => e.firstChild.textContent)")
    page.click("#create-button")
    page.wait_for_selector("#links li a")
    page.screenshot(path=str(shots / f"{key}-lobby.png"), full_page=True)
    link = page.locator("#links li", has_text=f"P{human + 1} (person)").locator("a").get_attribute("href")
    page.close()
    assert link and link.startswith("/t/"), link
    return link, raw


def photograph(player: Player, shots: Path, docs: Path, key: str) -> None:
    """Mid-game: the whole page into the test's folder; for docs/web.md the top of the table (what changed, your
    cards) and, where there is one, the board's picture."""
    page = player.page
    page.screenshot(path=str(shots / f"{key}-page.png"), full_page=True)
    page.screenshot(path=str(docs / f"{key}-table.png"), clip={"x": 0, "y": 0, "width": 1000, "height": 1100})
    if page.locator("#map-card:not([hidden])").count():
        page.locator("#map-card").screenshot(path=str(docs / f"{key}-board.png"))


def _stalled(player: Player, table: Any) -> str:
    """Where a game stood when the page stopped asking: the server's game (its seed, and the number of the question
    it asks the person's seat), and what the page showed (its move, the question and its buttons). Session 22's
    and 24's stalls were a question the page drew disabled, numbered as the one it had answered (docs/web.md)."""
    game = table.game
    shown = player.page.evaluate(
        "() => [...['turn', 'error', 'prompt'].map(id => (document.getElementById(id) || {}).textContent || ''), "
        "document.body.dataset.move, document.querySelectorAll('#options button').length, "
        "document.querySelectorAll('#options button:disabled').length]")
    return (f"the page asked nothing for 120 s; server: finished={game.finished}, error={game.error!r}, "
            f"waiting for={list(game.waiting_for())}, decisions={len(game.state.decisions)}, "
            f"question number={table.asked_at(player.seat)}, game seed={game.seed}; page: turn={shown[0]!r}, "
            f"error={shown[1]!r}, move={shown[3]}, question={shown[2]!r}, buttons={shown[4]} "
            f"({shown[5]} disabled)")


def play_through(player: Player, table: Any, clicks: int, seconds: float, shots: Path, key: str,
                 docs: Path) -> dict[str, Any]:
    """Click until the game ends; screenshots mid-game and at the end; what the page showed."""
    seen: dict[str, Any] = {"narration": set(), "raw": set(), "stack_rows": 0, "svg": set()}
    deadline = time.monotonic() + seconds
    done = 0
    while not table.game.finished:
        assert done < clicks and time.monotonic() < deadline, (f"{key}: the game did not end through the page "
                                                                  f"({player.clicks_again} clicks made again)")
        if player.act():
            done += 1
            if done == (8 if key == "slay_the_spire" else 30):  # a solo run can end early: photographed sooner
                photograph(player, shots, docs, key)
            if done % 5 == 1:
                seen["narration"].update(player.page.locator("#changes li div").all_inner_texts())
                seen["raw"].update(raw_labels(player.page))
                seen["svg"].update(player.page.evaluate(
                    "() => Array.from(document.querySelectorAll('#maps svg'), s => s.getAttribute('class'))"))
                seen["stack_rows"] = max(seen["stack_rows"], player.page.locator("#zones .cardname.hidden").count())
                seen["tokens"] = max(seen.get("tokens", 0), player.page.locator("#maps svg g.place.token").count())
        else:  # the bots' turn, or a state arriving: wait for the page to ask again (no sleeping)
            try:
                until(player.page, ASKED, timeout=120000)
            except Exception as timed_out:  # Playwright's TimeoutError: say what the server and the page were at
                raise AssertionError(f"{key}: {_stalled(player, table)}") from timed_out
    until(player.page, FINISHED, timeout=30000)
    seen["narration"].update(player.page.locator("#changes li div").all_inner_texts())
    seen["raw"].update(raw_labels(player.page))
    player.page.screenshot(path=str(shots / f"{key}-end.png"), full_page=True)
    seen["result"] = player.page.locator("#result").inner_text()
    seen["clicks"] = done
    return seen


@pytest.mark.parametrize("key", list(GAMES))
def test_a_person_plays_a_whole_game_through_the_page(browser: Any, tmp_path: Path,  # noqa: F811
                                                       monkeypatch: pytest.MonkeyPatch, key: str) -> None:
    monkeypatch.setattr(tables, "secrets", _SeededSecrets(SEED))
    docs = ROOT / "docs" / "web" if os.environ.get("LITURGY_WEB_SCREENSHOTS") else tmp_path
    docs.mkdir(exist_ok=True)
    shots = tmp_path
    seats, human, clicks = GAMES[key]
    server = Server(Lobby(_rulesets(), Store(str(tmp_path / "t.db")), NO_REST, bot_delay=0.0))
    try:
        options = {} if PROFILE == "thorough" else SHORT.get(key, {})
        link, lobby_raw = from_the_lobby(browser, server, key, seats, options, human, shots)
        table = server.lobby.tables[link.split("/")[2].split("#")[0]]
        assert {k: str(v) for k, v in table.game.options.items() if k in options} == options
        player = Player(browser, server.base + link, human, leak_check=False)  # the leak check is test_web_browser's
        player.patience = 120000  # a bound on a hang: a bot's first move compiles the ruleset in its worker
        seen = play_through(player, table, clicks, 900, shots, key, docs)
        player.close()
    finally:
        server.stop()
    assert not lobby_raw, lobby_raw
    assert table.game.state.status == "finished", table.game.error
    assert seen["result"].startswith("Scores: "), seen["result"]
    assert seen["narration"], "no narration was shown"
    assert not seen["raw"], f"raw identifiers in labels: {sorted(seen['raw'])[:10]} (game seed {table.game.seed})"
    assert seen["stack_rows"] == 0  # face-down cards are stacks with a count, not rows of `?`
    if key == "bloodborne":
        assert any(re.search(r"(You lose|P\d loses) \d+ health", x) for x in seen["narration"]), seen["narration"]
    if key in ("fury_of_dracula", "slay_the_spire"):  # Europe; the Act map (`describe map { x = … }`)
        assert "map" in seen["svg"]
    if key == "slay_the_spire":  # every token space labelled by its map token (`tokens = …`): 8 dark, 7 light
        assert seen["tokens"] == 15, seen["tokens"]
    if key == "betrayal":
        assert "board" in seen["svg"]
    _, diags = check_file(str(ROOT / f"rulesets/{key}.rules"))  # the checker's rule for shown values, too
    assert [d.message for d in diags if d.code == "W090"] == []


def test_the_table_fits_a_phone(browser: Any, tmp_path: Path) -> None:  # noqa: F811
    """A phone-sized screen: nothing wider than the screen (no sideways scrolling), the options one under another."""
    docs = ROOT / "docs" / "web" if os.environ.get("LITURGY_WEB_SCREENSHOTS") else tmp_path
    docs.mkdir(exist_ok=True)
    phone = (("bloodborne", ["human", "random", "random"]), ("fury_of_dracula", ["random", "human"]))
    server = Server(Lobby(_rulesets(*(key for key, _ in phone)), Store(str(tmp_path / "p.db")), bot_delay=0.0))
    try:
        for key, seats in phone:
            made = server.create(key, seats)
            seat = seats.index("human")
            context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
            page = context.new_page()
            page.goto(f"{server.base}/t/{made['table']}#seat={made['seats'][seat]['token']}")
            page.wait_for_selector("#options button")
            for _ in range(3):  # a few answers: narration and the board appear
                before = page.evaluate("() => document.body.dataset.move")
                page.locator("#options button:enabled").first.tap()
                until(page, "m => document.body.dataset.move !== m", arg=before, timeout=20000)
                page.wait_for_selector("#options button:enabled", timeout=20000)
            assert page.evaluate("() => document.documentElement.scrollWidth") <= 391
            widths = page.evaluate("() => Array.from(document.querySelectorAll('#options button'), b => b.offsetWidth)")
            assert widths and min(widths) > 300  # full-width buttons, easy to tap
            page.screenshot(path=str(docs / f"{key}-phone.png"))
            context.close()
    finally:
        server.stop()
