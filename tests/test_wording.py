"""`describe ENUM { value = "words" }` and `describe COUNTER { lose = "…" }` (issue 32): what players read for enum
values and counters' changes, its checks (E101, E103, E134, E173, W090), and that the words change only what is
shown, never the game (its options, log entries and digest)."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import load_ruleset
from liturgy.interpreter.engine.narration import narrate

DUEL = Path(__file__).resolve().parent.parent / "docs/examples/duel.rules"
HEAD = 'game "G" { players 2..2 }\nenum Move { hold_fast, strike2, rest }\ncounter per player hp 0..9 = 9\n'
BODY = """round {
  step pick "Pick" {
    choose m from Move by players[0] prompt "Better than {}?", strike2 {
      log "P1 chooses {}", m
      if m == strike2 { players[1].hp -= 2 }
    }
    end game
  }
}
score(p) = p.hp
"""


def _diags(tmp_path: Path, extra: str) -> list[tuple[str, str]]:
    path = tmp_path / "g.rules"
    path.write_text(HEAD + BODY + extra, encoding="utf-8")
    _, diags = check_file(str(path))
    return [(d.code, d.message) for d in diags]


def test_named_values_check_clean(tmp_path: Path) -> None:
    assert _diags(tmp_path, 'describe Move { hold_fast = "hold fast", strike2 = "strike twice" }\n') == []


def test_raw_values_shown_to_players_are_w090(tmp_path: Path) -> None:
    (code, message), = _diags(tmp_path, "")
    assert code == "W090" and "`strike2`" in message and "`rest`" not in message
    assert "`hold_fast`" not in message  # "hold fast" reads as words: an underscore alone is no longer W090


@pytest.mark.parametrize(("value", "raw"), [
    ("hold_fast", False), ("pass_turn", False), ("take_a_card", False), ("rest", False), ("x", False),
    ("strike2", True), ("wound1", True), ("2nd_wind", True), ("x_pos", True), ("_hidden", True), ("a__b", True),
])
def test_w090_flags_what_does_not_read_as_words(value: str, raw: bool) -> None:
    from liturgy.dsl.checker.wording import looks_raw

    assert looks_raw(value) is raw


@pytest.mark.parametrize(("block", "code", "words"), [
    ('describe Mvoe { rest = "x" }', "E101", "unknown enum or counter `Mvoe`"),
    ('describe Move { resting = "x" }', "E101", "`resting` is not a value of enum `Move`"),
    ('describe Move { rest = "a", rest = "b" }', "E103", "`rest` is named twice"),
    ('describe Move { rest = "  " }', "E173", "the words for `rest` are empty"),
    ('describe hp { lose = "{who} drops {amount}" }', "E134", "`{amount}` is no narration hole"),
    ('describe hp { fall = "x" }', "E101", "`fall` is not a kind of change"),
    ('describe hp { lose = "a", lose = "b" }', "E103", "`lose` is worded twice for `hp`"),
])
def test_mistakes_in_a_block_are_located_errors(tmp_path: Path, block: str, code: str, words: str) -> None:
    found = _diags(tmp_path, 'describe Move { hold_fast = "hold fast", strike2 = "strike twice" }\n' + block + "\n")
    assert any(c == code and words in m for c, m in found), found


def _game(tmp_path: Path, extra: str, choice: int):  # type: ignore[no-untyped-def]
    path = tmp_path / f"g{len(extra)}.rules"
    path.write_text(HEAD + BODY + extra, encoding="utf-8")
    rules = load_ruleset(str(path))
    g = rules.new_game(2, seed=1)
    before = g.view(1)
    d = g.decision
    assert d is not None
    options, prompt, details = list(d.options[0]), d.prompts.get(0), g.option_details(0)
    g.apply(choice, 0)
    return g, options, prompt, details, narrate(rules.program, before, g.view(1))


def test_words_change_what_is_shown_and_nothing_else(tmp_path: Path) -> None:
    block = ('describe Move { hold_fast = "hold fast", strike2 = "strike twice" }\n'
             'describe hp { lose = "{who} lose{s} {n} hit points ({now} left)" }\n')
    plain, options, _, _, said = _game(tmp_path, "", 1)
    worded, options2, prompt, _, said2 = _game(tmp_path, block, 1)
    assert options == options2 == ["hold_fast", "strike2", "rest"]  # bots and tools still read identifiers
    assert plain.digest() == worded.digest()  # the same game: log entries hold values, not text
    assert plain.log_lines(0)[0] == "P1 chooses strike2" and worded.log_lines(0)[0] == "P1 chooses strike twice"
    assert prompt == "Better than strike twice?"
    assert said == ["You lose 2 hp (now 7)"] and said2 == ["You lose 2 hit points (7 left)"]


def test_an_empty_change_word_keeps_the_change_out_of_narration(tmp_path: Path) -> None:
    *_, said = _game(tmp_path, 'describe hp { change = "" }\n', 1)
    assert said == []


def test_the_duel_example_reads_in_words_at_the_terminal() -> None:
    from liturgy.interpreter.agents.agents import play_out
    from liturgy.interpreter.agents.terminal import HumanAgent

    rules = load_ruleset(str(DUEL))
    g = rules.new_game(2, seed=1)
    out = io.StringIO()
    human = HumanAgent(stdin=io.StringIO("4\n"), stdout=out)

    class Bot:
        def choose(self, game, player):  # type: ignore[no-untyped-def]
            return random.Random(1).randrange(game.option_count(player))

    play_out(g, [human, Bot()])
    text = out.getvalue()
    assert "[4] Escape (Man)" in text and "escape_man" not in text and "wound1" not in text


@pytest.mark.parametrize(("block", "code", "words"), [
    ('describe map { x = "col", y = "flor" }', "E101", "`flor` is no field of `MapRoom`"),
    ('describe map { x = "col", y = "room" }', "E102", "`y` needs a field of type int"),
    ('describe map { x = "col", y = "floor", chosen = "side_now" }', "E101", "unknown counter `side_now`"),
    ('describe map { x = "col", y = "floor", colour = "room" }', "E101", "`colour` is not a key of a zone's map"),
    ('describe map { x = "col" }', "E101", "needs both `x` and `y`"),
    ('describe map { x = "col", y = "floor", label = "room", slot = "col", tokens = "monster on map" }', "E101",
     "does not read as `VALUE in ZONE, …`"),
    ('describe map { x = "col", y = "floor", label = "room", slot = "col", tokens = "lair in map" }', "E101",
     "`lair` is not a value of the map's `label` field"),
    ('describe map { x = "col", y = "floor", label = "room", slot = "col", tokens = "monster in lairs" }', "E101",
     "unknown zone `lairs`"),
    ('describe map { x = "col", y = "floor", label = "room", tokens = "monster in visited" }', "E101",
     "needs `slot` and `tokens` together"),
    ('describe map { x = "col", y = "floor", label = "room", slot = "room", tokens = "monster in visited" }', "E102",
     "`slot` needs a field of type int"),
])
def test_mistakes_in_a_map_layout_are_located_errors(tmp_path: Path, block: str, code: str, words: str) -> None:
    text = (DUEL.parent / "delve.rules").read_text(encoding="utf-8")
    start = text.index("\ndescribe map {") + 1
    end = text.index("}", start) + 1
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards/delve.yaml").write_text((DUEL.parent / "cards/delve.yaml").read_text(encoding="utf-8"))
    path = tmp_path / "d.rules"
    path.write_text(text[:start] + block + text[end:], encoding="utf-8")
    _, diags = check_file(str(path))
    assert any(d.code == code and words in d.message for d in diags), [(d.code, d.message) for d in diags]


def test_a_zone_laid_out_as_a_map_is_drawn_for_the_page() -> None:
    from liturgy.interpreter.engine.seatview import seat_extras

    rules = load_ruleset(str(DUEL.parent / "delve.rules"))
    g = rules.new_game(1, seed=1)
    side = g.view(0)["counters"]["map_side"]
    extras = seat_extras(g, "delve-test", 0, g.view(0), True)
    picture = extras["maps"]["map"]
    assert all(name.startswith(f"Side {side} ") for name in picture["places"])  # only the side in play
    boss = next(v for k, v in picture["places"].items() if k.endswith("boss"))
    assert boss[2] == "boss" and boss[1] == 40  # the top row, labelled in words
    assert all(a in picture["places"] and b in picture["places"] for a, b, _ in picture["edges"])
    assert extras["markers"]["map"] == []  # nobody has entered a room yet
    g.apply(0, 0)
    entered = g.view(0)["zones"]["visited"][-1]
    assert seat_extras(g, "delve-test", 0, g.view(0), False)["markers"]["map"] == [[entered, "here"]]


def _sts_at_the_map() -> tuple[Any, Any]:
    rules = load_ruleset("rulesets/slay_the_spire.rules")
    return rules, rules.new_game(1, seed=2, options={"acts": "1"})


def test_a_token_space_shows_the_token_lying_on_it() -> None:
    """Slay the Spire's `describe map { slot = "slot", tokens = "dark_token in dark_tokens, …" }`: each dark or
    light space of the side in play is labelled by the map token lying there, the `slot`-th of its back's row, as
    the seat's view shows that row (issue 32)."""
    from liturgy.interpreter.engine.seatview import seat_extras

    rules, g = _sts_at_the_map()
    view = g.view(0)
    side = view["counters"]["map_side"]
    labels = seat_extras(g, "sts-tokens", 0, view, True)["map_labels"]["map"]
    spaces = [c for c in rules.program.cards if c.kind == "MapRoom" and c.values["side"] == side
              and c.values["room"] in ("dark_token", "light_token")]
    assert len(labels) == len(spaces) == len(view["zones"]["dark_tokens"]) + len(view["zones"]["light_tokens"])
    for c in spaces:
        row = view["zones"]["dark_tokens" if c.values["room"] == "dark_token" else "light_tokens"]
        assert labels[c.name] == row[c.values["slot"]]


def test_a_token_the_view_shows_face_down_is_not_named() -> None:
    """The labels come from the seat's view alone: a row it sees face down (or not at all) names nothing, so the
    map tells no more than the view (the space keeps its printed label)."""
    from liturgy.interpreter.engine.seatview import zone_tokens

    rules, g = _sts_at_the_map()
    view = g.view(0)
    hidden = {**view, "zones": {**view["zones"], "dark_tokens": ["?"] * len(view["zones"]["dark_tokens"])}}
    labels = zone_tokens(rules.program, hidden)["map"]
    assert labels and not any(name.startswith("?") for name in labels.values())
    assert set(labels.values()) <= set(view["zones"]["light_tokens"])
    gone = {k: v for k, v in view["zones"].items() if k != "light_tokens"}
    assert set(zone_tokens(rules.program, {**hidden, "zones": {**gone, "dark_tokens": hidden["zones"]["dark_tokens"]}})
               ["map"]) == set()
