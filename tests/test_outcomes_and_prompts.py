"""`winner(p)`, a choice's `prompt`, and `describe` for players, enums and yes/no (language.md §1.12, §2, §1.14)."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from conftest import ROOT
from liturgy.dsl.loader import check_file
from liturgy.interpreter.agents.agents import RandomAgent, play_out
from liturgy.interpreter.agents.terminal import HumanAgent
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset, replay_decisions
from liturgy.interpreter.interop.common import returns_of
from liturgy.interpreter.tools.cli import main as cli_main
from liturgy.interpreter.tools.fuzz import fuzz_ruleset
from liturgy.interpreter.tools.simulate import simulate

KEEPERS = str(ROOT / "docs" / "examples" / "lantern_keepers.rules")
NIGHT_WATCH = str(ROOT / "docs" / "examples" / "night_watch.rules")

# A co-operative game decided by the players alone: each takes 1 or 2 damage; anyone at 0 loses it for all,
# surviving two rounds wins it for all.
COOP = """
game "Coop" { players 1..3 }
counter per player hp 0..5 = 3
flag won
round {
  step s "S" {
    for p in players {
      choose d from [1, 2] by p prompt "{}: how much damage to take?", p { p.hp -= d }
    }
    if any(p.hp == 0 for p in players) { end game }
    if round >= 2 { won = true  end game }
  }
}
score(p) = if won then 1 else 0
winner(p) = won
"""


def _play(game: Game, picks: list[int]) -> Game:
    for i in picks:
        d = game.decision
        assert d is not None
        game.apply(i, d.players[0])
    return game


# ---------------------------------------------------------------- winner(p)
def test_winner_names_everyone_or_nobody(write_ruleset: Callable[..., str]) -> None:
    rs = load_ruleset(write_ruleset(COOP))
    won = _play(rs.new_game(2, 1, check_invariants=True), [0, 0, 0, 0])  # 1 damage each, twice: 1 HP left
    assert won.result is not None and won.result["winners"] == [0, 1] and won.result["scores"] == [1, 1]
    assert won.log_lines()[-1] == "Game over. Scores: P1 1, P2 1. Winners: P1, P2."
    lost = _play(rs.new_game(2, 1, check_invariants=True), [1, 0, 0, 0])  # P1 at 1 HP after round 1, then 0
    assert lost.result is not None and lost.result["winners"] == [] and lost.result["scores"] == [0, 0]
    assert lost.log_lines()[-1] == "Game over. Scores: P1 0, P2 0. Nobody wins."
    solo = _play(rs.new_game(1, 1), [0, 0])
    assert solo.log_lines(0)[-1] == "Game over. Scores: P1 1. Winner: P1."
    # the adapters' `win` returns: 1 for each member of a winning party, 0 for all in a lost game
    assert returns_of(won, "win", 0, 1) == [1.0, 1.0]
    assert returns_of(lost, "win", 0, 1) == [0.0, 0.0]
    assert returns_of(lost, "score", 0, 1) == [0.0, 0.0]
    # saves and replays keep the outcome
    again = replay_decisions(rs.new_game(2, 1), lost.state.decisions)
    assert again.digest() == lost.digest()
    assert rs.load_game(lost.to_json()).result == lost.result


def test_without_winner_the_best_score_still_wins(write_ruleset: Callable[..., str]) -> None:
    rs = load_ruleset(write_ruleset(COOP.replace("winner(p) = won\n", "tiebreak(p) = p.hp\n")))
    lost = _play(rs.new_game(2, 1), [1, 0, 0, 0])
    assert lost.result is not None and lost.result["winners"] == [1]  # scores tie, HP breaks it
    assert lost.log_lines()[-1] == "Game over. Scores: P1 0, P2 0"  # the old last line, unchanged


def test_simulate_counts_games_nobody_won_and_fuzz_accepts_them(write_ruleset: Callable[..., str]) -> None:
    path = write_ruleset(COOP)
    s = simulate(path, 60, 2, 1)
    assert s.finished == 60 and s.aborted == 0
    assert 0 < s.no_winner < 60
    assert s.to_json()["no_winner"] == s.no_winner
    assert sum(s.wins) == 60 - s.no_winner  # every won game shares one win between the party
    report = fuzz_ruleset(load_ruleset(path), path, examples=15, run_seed=3, check_leaks=False,
                          replay_path=path + ".replay.json")
    assert report.violation is None and report.examples == 15


def test_cli_names_the_outcome(write_ruleset: Callable[..., str], capsys: pytest.CaptureFixture[str]) -> None:
    path = write_ruleset(COOP)
    assert cli_main(["simulate", path, "--games", "40", "--players", "2", "--seed", "1"]) == 0
    assert "game(s) won by nobody" in capsys.readouterr().out
    assert cli_main(["play", path, "--players", "1", "--seats", "first", "--seed", "1"]) == 0
    out = capsys.readouterr().out  # P1 always takes 1 damage: 3 HP -> 1 HP, alive after two rounds
    assert out.rstrip().endswith("Game over after 2 rounds. Scores: P1: 1. Winner: P1.")


def test_keepers_example_wins_and_loses_together() -> None:
    rs = load_ruleset(KEEPERS)
    outcomes = set()
    for seed in range(30):
        g = rs.new_game(3, seed, check_invariants=True)
        play_out(g, [RandomAgent(seed * 7 + i) for i in range(3)])
        assert g.state.status == "finished" and g.result is not None
        assert g.result["winners"] in ([], [0, 1, 2])
        outcomes.add(bool(g.result["winners"]))
        last = g.log_lines()[-1]
        assert last.endswith("Nobody wins." if not g.result["winners"] else "Winners: P1, P2, P3.")
    assert outcomes == {True, False}


@pytest.mark.parametrize(("text", "code"), [
    ("winner(p) = won\nwinner(p) = not won\n", "E103"),
    ("winner(p) = 1\n", "E140"),
    ("winner(p) = won\ntiebreak(p) = p.hp\n", "E172"),
])
def test_winner_diagnostics(write_ruleset: Callable[..., str], text: str, code: str) -> None:
    _, diags = check_file(write_ruleset(COOP.replace("winner(p) = won\n", text)))
    assert [d.code for d in diags] == [code]


def test_no_score_warning_is_not_needed_with_winner(write_ruleset: Callable[..., str]) -> None:
    _, diags = check_file(write_ruleset(COOP.replace("score(p) = if won then 1 else 0\n", "")))
    assert diags == []


# ---------------------------------------------------------------- prompt
def test_prompt_is_what_the_chooser_is_asked_and_nothing_else_sees_it(write_ruleset: Callable[..., str]) -> None:
    g = load_ruleset(write_ruleset(COOP)).new_game(2, 1)
    d = g.decision
    assert d is not None
    assert d.prompt == "P1: how much damage to take?" and d.prompt_for(0) == d.prompt
    assert g.view(0)["decision"]["your_prompt"] == "P1: how much damage to take?"
    assert "your_prompt" not in g.view(1)["decision"] and "your_prompt" not in g.view(None)["decision"]
    g.apply(0, 0)
    d = g.decision
    assert d is not None and d.prompt_for(1) == "P2: how much damage to take?"


def test_without_prompt_the_step_title_is_asked(write_ruleset: Callable[..., str]) -> None:
    g = load_ruleset(write_ruleset(COOP.replace(' prompt "{}: how much damage to take?", p', ""))).new_game(2, 1)
    d = g.decision
    assert d is not None and d.prompt == "S: choose" and d.prompts == {} and d.prompt_for(0) == "S: choose"
    assert "your_prompt" not in g.view(0)["decision"]


def test_prompts_change_no_game(write_ruleset: Callable[..., str]) -> None:
    """Prompts are not state: the same seed and choices give the same digest with or without them."""
    with_prompt = load_ruleset(write_ruleset(COOP, name="a.rules"))
    without = load_ruleset(write_ruleset(COOP.replace(' prompt "{}: how much damage to take?", p', ""),
                                         name="b.rules"))
    for seed in range(5):
        a, b = with_prompt.new_game(2, seed), without.new_game(2, seed)
        for g in (a, b):
            play_out(g, [RandomAgent(seed), RandomAgent(seed + 1)])
        assert a.digest() == b.digest()
        assert a.state.decisions == b.state.decisions


def test_simultaneous_prompt_is_per_player() -> None:
    g = load_ruleset(NIGHT_WATCH).new_game(3, 0)
    d = g.decision
    assert d is not None and d.simultaneous
    assert {p: d.prompt_for(p) for p in d.players} == {p: f"Does P{p + 1} sleep tonight?" for p in d.players}
    assert g.view(1)["decision"]["your_prompt"] == "Does P2 sleep tonight?"


CARD_PROMPT = """
game "Secret" { players 2..2 }
card Gem { value: int }
cards "gems.yaml"
zone bag: deck hidden of Gem
zone hand: per player set owner of Gem
zone table: row public of Gem
fn lucky() -> int = roll(d6)
die d6 { 1, 2, 3, 4, 5, 6 }
setup { shuffle bag  for p in players { move top(bag) to p.hand } }
round {
  step s "S" {
    let mine = top(players[0].hand)
    choose x from [1, 2] by players[0] prompt "Keep {} (lucky {})?", mine, lucky() { log "{}", x }
    choose y from [1, 2] by players[1] prompt "Does P1 keep {}?", mine { log "{}", y }
    end game
  }
}
score(p) = 0
"""

GEMS = """
kind: Gem
start: bag
cards:
  - {name: Ruby, value: 3}
  - {name: Opal, value: 2}
"""


def test_a_prompt_hides_cards_the_chooser_cannot_see_and_never_moves_the_rng(
        write_ruleset: Callable[..., str]) -> None:
    g = load_ruleset(write_ruleset(CARD_PROMPT, {"gems.yaml": GEMS})).new_game(2, 4)
    mine = g.view(0)["zones"]["hand"]["P1"][0]
    rng = g.state.rng
    before = g.digest()
    d = g.decision
    assert d is not None and d.prompt.startswith(f"Keep {mine} (lucky ")
    assert g.state.rng == rng and g.digest() == before  # the `fn` draws, the game does not notice
    g.apply(0, 0)
    d = g.decision
    assert d is not None and d.prompt_for(1) == "Does P1 keep a hidden card?"


@pytest.mark.parametrize(("old", "new", "code"), [
    ('prompt "{}: how much damage to take?", p', 'prompt "  "', "E173"),
    ('prompt "{}: how much damage to take?", p', 'prompt "{} and {}", p', "E134"),
    ('prompt "{}: how much damage to take?", p', 'prompt "{}", roll(d6)', "E171"),
    ('prompt "{}: how much damage to take?", p', 'prompt "{}", d', "E101"),  # the choice is not made yet
])
def test_prompt_diagnostics(write_ruleset: Callable[..., str], old: str, new: str, code: str) -> None:
    text = COOP.replace(old, new) + "die d6 { 1, 2, 3, 4, 5, 6 }\n"
    _, diags = check_file(write_ruleset(text))
    assert [d.code for d in diags] == [code]


# ---------------------------------------------------------------- describe player / ENUM / bool
def test_describe_players_and_enum_values() -> None:
    g = load_ruleset(KEEPERS).new_game(2, 3)
    assert g.option_details(0) == ["guard: shield a keeper tonight", "rest: heal 1 HP", "tend: add 2 oil"]
    g.apply(0, 0)  # guard
    assert g.option_details(0) == ["P1 (HP 5/5, steady)", "P2 (HP 5/5, steady)"]
    g.apply(1, 0)  # P1 guards P2
    g.apply(0, 1)  # P2 guards too
    d = g.decision
    assert d is not None and d.prompt_for(1) == "Whom does P2 guard tonight?"
    assert g.option_details(1) == ["P1 (HP 5/5, steady)", "P2 (HP 5/5, steady, guarded)"]
    assert d.options[1] == ("P1", "P2")  # the labels stay as they were


def test_describe_bool(write_ruleset: Callable[..., str]) -> None:
    text = COOP.replace("choose d from [1, 2] by p", "choose big from [false, true] by p").replace(
        "p.hp -= d", "p.hp -= if big then 2 else 1")
    text += 'describe bool(b, p) = "{}: {}", b, if b then "2 damage" else "1"\n'
    g = load_ruleset(write_ruleset(text)).new_game(1, 1)
    assert g.option_details(0) == ["no: 1", "yes: 2 damage"]
    assert g.decision is not None and g.decision.options[0] == ("no", "yes")


@pytest.mark.parametrize(("text", "code"), [
    ('describe plyer(q, p) = "{}", q\n', "E101"),
    ('describe player(p, p) = "{}", p\n', "E103"),
    ('describe player(q, p) = "{}", q\ndescribe player(q, p) = "{}", q\n', "E103"),
    ('describe player(q, p) = "{}", q.nope\n', "E101"),
    ('describe player(q, p) = "{}", "HP " + q.hp\n', "E140"),
])
def test_describe_diagnostics(write_ruleset: Callable[..., str], text: str, code: str) -> None:
    _, diags = check_file(write_ruleset(COOP + text))
    assert [d.code for d in diags] == [code]


def test_terminal_asks_the_prompt_and_describes_the_options() -> None:
    g = load_ruleset(KEEPERS).new_game(2, 3)
    out = io.StringIO()
    agent = HumanAgent(stdin=io.StringIO("1\n2\n"), stdout=out)
    assert agent.choose(g, 0) == 0
    g.apply(0, 0)
    assert agent.choose(g, 0) == 1
    text = out.getvalue()
    assert "P1: Night 1: what does P1 do?\n  [1] guard: shield a keeper tonight\n" in text
    assert "P1: Whom does P1 guard tonight?\n  [1] P1 (HP 5/5, steady)\n  [2] P2 (HP 5/5, steady)\n" in text


def test_texts_join_with_plus(write_ruleset: Callable[..., str]) -> None:
    text = COOP + 'fn tag(q: player) -> text = "keeper " + (if q.hp > 1 then "fit" else "hurt") + ""\n'
    text += 'describe player(q, p) = "{} {}", q, tag(q)\n'
    text = text.replace("choose d from [1, 2] by p", "choose d from [1, 2] by p { log \"{}\", tag(p) }\n"
                        "      choose q from players by p { log \"{}\", q }\n      choose d from [1, 2] by p")
    program, diags = check_file(write_ruleset(text))
    assert program is not None and diags == []
    for codegen in (True, False):
        g = Ruleset(program, codegen=codegen).new_game(2, 1)
        g.apply(0, 0)
        assert g.option_details(0) == ["P1 keeper fit", "P2 keeper fit"]
        assert g.log_lines()[-1] == "keeper fit"


# ---------------------------------------------------------------- the shipped games use them
STS = str(ROOT / "rulesets" / "slay_the_spire.rules")
BLOODBORNE = str(ROOT / "rulesets" / "bloodborne.rules")


def test_slay_the_spire_party_wins_or_loses_together() -> None:
    rs = load_ruleset(STS)
    seen = set()
    for seed in range(12):
        g = rs.new_game(2, seed, check_invariants=True, options={"mode": "combat"})
        d = g.decision
        assert d is not None and d.prompt_for(0) == "Choose your character"
        play_out(g, [RandomAgent(seed), RandomAgent(seed + 100)])
        assert g.state.status == "finished" and g.result is not None
        winners = g.result["winners"]
        assert winners == ([0, 1] if g.result["scores"] == [1, 1] else [])
        assert g.result["tiebreaks"] == [[], []]
        seen.add(len(winners))
    assert 0 in seen


def test_slay_the_spire_questions_and_players_read_meaningfully() -> None:
    rs = load_ruleset(STS)
    for seed in range(20):  # a seed whose first hand holds a Strike
        g = rs.new_game(2, seed, options={"mode": "combat"})
        g.apply(0, 0)  # P1: Ironclad
        g.apply(0, 1)  # P2: the first of the rest
        d = g.decision
        assert d is not None and d.prompt_for(0).startswith("Your turn (") and d.options[0][0] == "play_card"
        g.apply(0, 0)  # play card
        d = g.decision
        assert d is not None and d.prompt_for(0) == "Play which card (3 energy)?"
        if "Strike (Ironclad)" in d.options[0]:
            break
    else:
        raise AssertionError("no Strike in 20 opening hands")
    g.apply(d.options[0].index("Strike (Ironclad)"), 0)
    d = g.decision
    assert d is not None and d.prompt_for(0) == "Strike (Ironclad): Attack which enemy (hits: 1)?"
    assert all(t is not None and ": HP " in t for t in g.option_details(0))
    # a choice among players (who gains Block, which row): every player reads with character, HP and row
    display = g.ruleset.display
    choice = next(i for i, what in enumerate(display.option_kinds) if what == "player")
    texts = display.describe(g.state, 0, (0, 1), choice)
    assert texts[0] is not None and texts[0].startswith("P1 (Ironclad, HP 10/10, Block 0; enemies in row: ")
    assert texts[1] is not None and texts[1].startswith("P2 (")


def test_bloodborne_asks_what_it_means() -> None:
    g = load_ruleset(BLOODBORNE).new_game(3, 1)
    d = g.decision
    assert d is not None and d.simultaneous
    assert all(d.prompt_for(p) == "Play which Action card (face down, revealed together)?" for p in d.players)
