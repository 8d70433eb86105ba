"""Secrets (issue 17, item 4): cards nested in lists stay hidden, `undo` cannot peek, seeds are never shown."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.agents.agents import bot_seed, make_agent
from liturgy.interpreter.engine import Ruleset
from liturgy.interpreter.tools.cli import main

NESTED = '''game "Nested" { players 2..2 }
card C { v: int }
cards "c.yaml"
zone deck: deck hidden of C
zone hand: per player set owner of C
round {
  step s "Show" {
    for p in players { log "{} holds {}", p, [[u] for u in p.hand] }
    choose x from [[u] for u in players[0].hand] by players[1] { log "{} picked", players[1] }
    end game
  }
}
setup { shuffle deck
  for p in players { move top(deck, 2) to p.hand } }
'''
CARDS = "kind: C\nstart: deck\ncards:\n" + "".join(f"  - {{name: Card{i}, v: {i}}}\n" for i in range(8))
PEEK = '''game "Peek" { players 2..2 }
card C { v: int }
cards "c.yaml"
zone deck: deck hidden of C
zone hand: per player set owner of C
enum Act { draw, wait }
setup { shuffle deck }
round {
  step s "Go" {
    choose a from Act by first {
      if a == draw { move top(deck) to first.hand }
      choose b from [1, 2] by first { log "{} says {}", first, b }
    }
    end game
  }
}
'''


def _rules(tmp_path: Path, text: str, **mode: bool) -> Ruleset:
    (tmp_path / "c.yaml").write_text(CARDS, encoding="utf-8")
    path = tmp_path / "r.rules"
    path.write_text(text, encoding="utf-8")
    program, diags = check_file(str(path))
    assert program is not None, diags
    return Ruleset(program, **mode)


@pytest.mark.parametrize("mode", [{}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}])
def test_a_list_of_lists_of_cards_names_only_cards_the_reader_sees(tmp_path: Path, mode: dict[str, bool]) -> None:
    game = _rules(tmp_path, NESTED, **mode).new_game(2, 3)
    names = game.state.tables.card_names
    hands = [[names[c] for c in game.state.zones[z]] for z, n in enumerate(game.state.tables.zone_names)
             if n.endswith("hand")]
    for viewer in (0, 1):
        text = "\n".join(game.log_lines(viewer))
        for owner, hand in enumerate(hands):
            for name in hand:
                assert (name in text) == (owner == viewer), (viewer, name, text)
        assert "a hidden card" in text
    labels = game.decision.options[1] if game.decision else ()
    assert labels and all(not any(n in lab for n in hands[0]) for lab in labels)  # P2 picks among P1's cards
    public = "\n".join(game.log_lines(None))
    assert public.count("a hidden card") == 2 and not any(n in public for hand in hands for n in hand)


def test_undo_cannot_take_back_a_silent_draw(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    _rules(tmp_path, PEEK)
    path = str(tmp_path / "r.rules")
    for first, expected in (("draw", "nothing to undo"), ("wait", "undone: back to the previous choice")):
        monkeypatch.setattr("sys.stdin", io.StringIO(f"{first}\nundo\n1\n"))
        main(["play", path, "--seats", "human,human", "--seed", "4"])
        out = capsys.readouterr().out
        assert expected in out, out


def test_play_never_shows_the_seed_to_a_seat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    _rules(tmp_path, PEEK)
    path = str(tmp_path / "r.rules")
    seeds = []
    for k in range(2):
        log = tmp_path / f"g{k}.json"
        monkeypatch.setattr("sys.stdin", io.StringIO("wait\n1\n"))
        assert main(["play", path, "--seats", "human,random", "--log", str(log)]) == 0
        out = capsys.readouterr().out
        seed = json.loads(log.read_text())["seed"]
        seeds.append(seed)
        assert "seed" not in out.split("\n")[0] and str(seed) not in out
    assert seeds[0] != seeds[1]  # from the operating system, not 0
    monkeypatch.setattr("sys.stdin", io.StringIO("wait\n1\n"))
    main(["play", path, "--seats", "human,random", "--seed", "77"])
    assert "77" not in capsys.readouterr().out  # even a given seed is not shown while a human is seated


def test_bots_draw_apart_from_the_game_seed() -> None:
    assert bot_seed(5, 0) != bot_seed(5, 1) and bot_seed(5, 0) == bot_seed(5, 0)
    a, b = make_agent("random"), make_agent("random")
    assert [a.rng.random() for _ in range(3)] != [b.rng.random() for _ in range(3)]  # type: ignore[attr-defined]


def test_pettingzoo_reset_without_a_seed_is_not_predictable() -> None:
    pytest.importorskip("pettingzoo")
    from liturgy.interpreter.interop.pettingzoo import LiturgyEnv

    e = LiturgyEnv("rulesets/classic/kuhn_poker.rules", players=2)
    seeds = set()
    for _ in range(3):
        e.reset()
        assert e.game is not None
        seeds.add(e.game.seed)
    assert len(seeds) == 3 and 0 not in seeds
