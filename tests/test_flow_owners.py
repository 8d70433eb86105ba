"""The flow check (W077/W078) knows whose cards a chooser or viewer may read, however the rules name them.

Fury of Dracula named Dracula with a parameterless `fn` for `players[0]` (a player counter since session 9; these
tests keep the `fn` form, `me()`, in their own rules) and computes a choice's options from the card leaving his own
trail; Betrayal shows the Traitor's Tome inside `if p in traitor_side()`. Neither reveals anything, and
`check --strict` must not say they do, while the same reads by another player still warn.
"""

from __future__ import annotations

from pathlib import Path

from liturgy.dsl.loader import check_file

TILES = """kind: Tile
start: stock
cards:
  - name: Ace
    rank: 1
  - name: Two
    rank: 2
  - name: Three
    rank: 3
"""

GAME = """game "G" { players 2..2 }
card Tile { rank: int }
cards "tiles.yaml"
enum Call { low, high }
zone stock: deck hidden of Tile
zone hand: per player set owner of Tile
zone pact: set of Tile visible to firsts()
fn firsts() -> list of player = [q for q in players where q == players[0]]
fn me() -> player = players[0]
setup { for p in players { move top(stock) to p.hand } move top(stock) to pact }
round {
  step s "S" {
    choose c from players[0].hand where c.rank > 1 by FILTER_CHOOSER optional "none" { log "picked" }
    let mine = top(players[0].hand)
    let calls = [k for k in Call where k == high or mine.rank > 1]
    choose k from calls by CALL_CHOOSER { log "called" }
    end game
  }
}
display(p) {
  GUARD { show "The pact: {}", join([text(t.rank) for t in pact], " ") }
}
score(p) = 0
"""


def _flow_codes(tmp_path: Path, filter_chooser: str = "me()", call_chooser: str = "me()",
                guard: str = "if p in firsts()") -> list[str]:
    (tmp_path / "tiles.yaml").write_text(TILES, encoding="utf-8")
    path = tmp_path / "g.rules"
    text = GAME.replace("FILTER_CHOOSER", filter_chooser).replace("CALL_CHOOSER", call_chooser)
    path.write_text(text.replace("GUARD", guard), encoding="utf-8")
    program, diags = check_file(str(path))
    assert program is not None, diags
    return sorted(d.code for d in diags if d.code in ("W075", "W076", "W077", "W078"))


def test_the_owner_named_through_a_fn_reads_their_own_cards(tmp_path: Path) -> None:
    assert _flow_codes(tmp_path) == []


def test_another_chooser_filtering_by_those_cards_is_w078(tmp_path: Path) -> None:
    assert _flow_codes(tmp_path, filter_chooser="players[1]") == ["W078"]


def test_options_computed_from_the_owners_card_warn_for_another_chooser(tmp_path: Path) -> None:
    assert _flow_codes(tmp_path, call_chooser="players[1]") == ["W077"]


def test_a_display_guard_on_group_membership_opens_that_groups_zone(tmp_path: Path) -> None:
    assert _flow_codes(tmp_path, guard="if true") == ["W077"]
    assert _flow_codes(tmp_path, guard="if size(pact) > 0 and p in firsts()") == []
