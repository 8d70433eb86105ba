"""The documentation is tested code.

* Every example ruleset in ``docs/examples`` checks cleanly and plays to the end.
* Every ```liturgy block in ``docs/language.md`` is a verbatim fragment of an example,
  so the reference cannot drift from code that runs.
* The behaviour the reference describes (clamping, transfer caps, ``pass``,
  ``otherwise``, redaction, …) is asserted on real games.
* The tutorial's card really checks, simulates and shows up in a game log,
  without touching the real ``cards/bloodborne/upgrades.yaml``.
* The CLI behaves as ``docs/cli.md`` says (exit codes, outputs, log format).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from liturgy.dsl.loader import check_file
from liturgy.interpreter.agents.agents import RandomAgent, play_out
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.runtime.errors import IllegalChoice
from liturgy.interpreter.tools.cli import main as cli_main
from liturgy.interpreter.tools.simulate import simulate

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EXAMPLES = DOCS / "examples"
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.rules"))
EXAMPLE_IDS = [p.name for p in EXAMPLE_FILES]


def _norm(text: str) -> str:
    return " ".join(text.split())


def _fenced(path: Path, tag: str) -> list[str]:
    return re.findall(rf"^```{tag}[ \t]*\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


def _play(path: Path, players: int, seed: int) -> Game:
    game = load_ruleset(str(path)).new_game(players, seed, check_invariants=True)
    play_out(game, [RandomAgent(seed * 31 + i) for i in range(players)])
    return game


def _write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


# ---------------------------------------------------------------- (1) examples check cleanly
def test_there_are_examples() -> None:
    assert len(EXAMPLE_FILES) >= 5


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=EXAMPLE_IDS)
def test_example_checks_without_diagnostics(path: Path) -> None:
    program, diags = check_file(str(path))
    assert program is not None
    assert [d for d in diags if d.is_error] == []
    assert diags == [], "examples should not even have warnings: " + "; ".join(d.message for d in diags)


# ---------------------------------------------------------------- (2) examples play to the end
@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=EXAMPLE_IDS)
def test_example_plays_to_the_end(path: Path) -> None:
    rs = load_ruleset(str(path))
    for players in sorted({rs.min_players, rs.max_players}):
        for seed in range(4):
            game = _play(path, players, seed)
            assert game.state.status == "finished", game.error
            assert game.error is None
            result = game.result
            assert result is not None
            assert len(result["scores"]) == players
            assert result["winners"] or rs.compiled.winner is not None  # `winner` may name nobody
            assert game.log_lines()[-1].startswith("Game over. Scores:")


# ---------------------------------------------------------------- (3) doc snippets are example code
def test_every_liturgy_block_is_in_an_example() -> None:
    blocks = _fenced(DOCS / "language.md", "liturgy")
    assert len(blocks) >= 40
    sources = {p.name: _norm(p.read_text(encoding="utf-8")) for p in EXAMPLE_FILES}
    sources.update({str(p.relative_to(EXAMPLES)): _norm(p.read_text(encoding="utf-8"))
                    for p in EXAMPLES.glob("*/*.rules")})  # the files an example includes
    sources.update({f"cards/{p.name}": _norm(p.read_text(encoding="utf-8"))
                     for p in (EXAMPLES / "cards").glob("*.yaml")})
    missing = [b for b in blocks if not any(_norm(b) in src for src in sources.values())]
    assert missing == [], "these ```liturgy blocks are not in any docs/examples file:\n\n" + "\n---\n".join(missing)


def test_every_yaml_block_is_in_an_example_card_file() -> None:
    blocks = _fenced(DOCS / "language.md", "yaml")
    assert blocks
    cards = [_norm(p.read_text(encoding="utf-8")) for p in (EXAMPLES / "cards").glob("*.yaml")]
    for b in blocks:
        assert any(_norm(b) in c for c in cards), b


def test_language_reference_names_every_example() -> None:
    text = (DOCS / "language.md").read_text(encoding="utf-8")
    for p in EXAMPLE_FILES:
        assert f"examples/{p.name}" in text


# ---------------------------------------------------------------- (4) the semantics the doc claims
def test_counters_clamp_and_reset_each_round() -> None:
    """dice_race: heat is 0..10 and `reset each round`; `p.heat += r` clamps at 10."""
    path = EXAMPLES / "dice_race.rules"
    rolled = re.compile(r"^(P\d) rolls the (white|black) die: (\d+) \(heat (\d+)\)$")
    clamped = 0
    for seed in range(6):
        game = _play(path, 3, seed)
        heat: dict[str, int] = {}
        for line in game.log_lines():
            m = rolled.match(line)
            if m:
                p, _, r, h = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
                before = heat.get(p, 0)  # 0 at the start of each turn: reset each round
                assert h == min(before + r, 10), line
                clamped += before + r > 10
                heat[p] = h
            elif " moves " in line:
                heat.pop(line.split()[0], None)
        for counters in [game.view(None)["counters"]]:
            assert all(0 <= v <= 10 for v in counters["heat"].values())
    assert clamped > 0, "no game exercised the clamp"


def test_track_value_and_exploding_die() -> None:
    path = EXAMPLES / "dice_race.rules"
    values = [0, 1, 2, 4, 7]
    exploded = False
    for seed in range(6):
        game = _play(path, 2, seed)
        c = game.view(None)["counters"]
        for i, p in enumerate(["P1", "P2"]):
            nerve = c["nerve"][p]
            assert set(nerve) == {"white", "black"}
            assert all(0 <= pos <= 4 for pos in nerve.values())
            assert game.result["scores"][i] == c["steps"][p] + sum(values[pos] for pos in nerve.values())
        for line in game.log_lines():
            m = re.match(r"^P\d rolls the black die: (\d+)", line)
            if m and int(m.group(1)) > 4:  # the black die's largest face is 4: this roll exploded
                exploded = True
    assert exploded


def test_skip_to_skips_catch_up_in_odd_rounds() -> None:
    path = EXAMPLES / "dice_race.rules"
    rs = load_ruleset(str(path))
    checked = 0
    for seed in range(4):
        game = rs.new_game(3, seed, check_invariants=True)
        agents = [RandomAgent(seed * 31 + i) for i in range(3)]
        last_round, seen = 1, len(game.log_lines())
        while not game.finished:
            rnd = game.view(None)["counters"]["round"]
            lines = game.log_lines()
            if rnd != last_round:
                leads = [x for x in lines[seen:] if " leads with " in x]
                # the lines logged since the previous decision belong to the end of `last_round`
                assert bool(leads) == (last_round % 2 == 0), (last_round, leads)
                checked += 1
                last_round = rnd
            seen = len(lines)
            for p in game.waiting_for():
                game.apply(agents[p].choose(game, p), p)
    assert checked > 5


def test_transfer_is_capped_by_the_source() -> None:
    path = EXAMPLES / "gem_pool.rules"
    game = load_ruleset(str(path)).new_game(2, 0, check_invariants=True)
    assert "Deep Mine is seeded with 3 of 5 gems" in game.log_lines()
    c = game.view(None)["counters"]
    assert c["bank"] == 0
    assert c["vein"] == {"Old Mine": 5, "River Mine": 4, "Deep Mine": 3}
    for seed in range(6):
        game = _play(path, 3, seed)
        for line in game.log_lines():
            m = re.match(r"^P\d digs (\d+) gems", line)
            if m:
                assert 1 <= int(m.group(1)) <= 3
            m = re.match(r"^P\d pays (\d+) to the bank", line)
            if m:
                assert 0 <= int(m.group(1)) <= 2
        c = game.view(None)["counters"]
        assert c["bank"] + sum(c["purse"].values()) + sum(c["vein"].values()) == 12
        assert all(v >= 0 for v in c["purse"].values())


def test_optional_choice_has_a_pass_option_that_runs_otherwise() -> None:
    game = load_ruleset(str(EXAMPLES / "market.rules")).new_game(2, 3, check_invariants=True)
    d = game.decision
    assert d is not None and not d.simultaneous
    (p,) = d.players
    options = d.options[p]
    assert options[-1] == "pass"
    before = len(game.log_lines())
    game.apply(len(options) - 1, p)
    after = game.log_lines()[before:]
    assert f"P{p + 1} buys nothing" in after  # passing runs `otherwise`
    assert not any(x.startswith(f"P{p + 1} buys ") and x != f"P{p + 1} buys nothing" for x in after)
    assert game.view(None)["counters"]["coins"][f"P{p + 1}"] == 4  # 3 to start, +1 income, nothing spent


def test_named_optional_is_offered_even_with_nothing_to_choose() -> None:
    """match_up: `optional "draw"` labels the extra option and asks even when no tile matches."""
    rules = load_ruleset(str(EXAMPLES / "match_up.rules"))
    forced = played = 0
    for seed in range(20):
        game = rules.new_game(3, seed, check_invariants=True)
        while not game.finished:
            d = game.decision
            assert d is not None
            (p,) = d.players
            options = d.options[p]
            assert options[-1] == "draw" and "pass" not in options
            hand = game.view(p)["zones"]["hand"][f"P{p + 1}"]
            if options == ("draw",):
                forced += 1
                before = len(game.log_lines())
                game.apply(0, p)
                assert f"P{p + 1} draws" in game.log_lines()[before:]  # the named option runs `otherwise`
            else:
                played += 1
                game.apply(0, p)
                assert len(game.view(p)["zones"]["hand"][f"P{p + 1}"]) == len(hand) - 1
    assert forced > 0 and played > 0


def test_if_none_runs_when_there_is_no_option_and_handlers_run_in_order() -> None:
    """night_watch, 2 players: P2 always sleeps, P1 faces every threat until out; then nobody is awake."""
    game = load_ruleset(str(EXAMPLES / "night_watch.rules")).new_game(2, 0, check_invariants=True)
    while not game.finished:
        d = game.decision
        assert d is not None
        for p in d.players:
            opts = d.options[p]
            if d.simultaneous:
                assert opts == ("no",) if p == 0 else opts == ("no", "yes")  # `where not nap or p not in [first]`
                game.apply(opts.index("yes") if "yes" in opts else 0, p)
            else:
                game.apply(0, p)
    public = game.log_lines()
    assert "nobody is awake: the danger grows" in public
    # both handlers of `alarm` run, in declaration order
    for i, line in enumerate(public):
        if line.endswith("faces the threat"):
            assert public[i - 1].startswith("the alarm rings at level")
    assert "P1 is out of the fight" in public
    # `log to p` is private
    assert "you now have 1 wound(s)" in game.log_lines(0)
    assert not any("wound(s)" in x for x in game.log_lines(1) + public)


def test_simultaneous_choice_is_secret_and_the_log_is_redacted() -> None:
    game = load_ruleset(str(EXAMPLES / "high_card.rules")).new_game(2, 7, check_invariants=True)
    v0 = game.view(0)
    assert v0["zones"]["hand"]["P1"] == ["One", "Two", "Three", "Four", "Five"]  # each player got a copy
    assert v0["zones"]["hand"]["P2"] == ["?"] * 5
    d = game.decision
    assert d is not None and d.simultaneous and d.players == (0, 1)
    assert "One" not in d.options[0]  # where c.rank != 1 or size(p.hand) < 5
    # P2 commits first: P1 learns only that P2 has chosen
    game.apply(d.options[1].index("Four"), 1)
    v0 = game.view(0)
    assert v0["decision"]["committed"] == ["P2"] and v0["decision"]["waiting_for"] == ["P1"]
    assert v0["log"] == []
    game.apply(game.decision.options[0].index("Three"), 0)
    # the body ran in the order of the player list, not the commit order
    assert game.log_lines(0)[:3] == ["P1 puts Three face down", "P2 puts a hidden card face down",
                                     "P2 wins the round with Four"]
    assert game.log_lines(1)[:3] == ["P1 puts a hidden card face down", "P2 puts Four face down",
                                     "P2 wins the round with Four"]
    assert game.log_lines(None)[:2] == ["P1 puts a hidden card face down", "P2 puts a hidden card face down"]
    # `move p.table to discard` moved the whole zone
    z = game.view(None)["zones"]
    assert z["table"] == {"P1": [], "P2": []}
    assert sorted(z["discard"]) == ["Four", "Three"]


def test_end_game_runs_finish_then_scores() -> None:
    game = _play(EXAMPLES / "high_card.rules", 2, 11)
    lines = game.log_lines()
    ties = sum(x.startswith("tie at rank") for x in lines)
    assert lines[-2] == f"tied rounds: {ties}"
    assert lines[-1].startswith("Game over. Scores:")
    assert game.result["scores"] == [game.view(None)["counters"]["points"][p] for p in ("P1", "P2")]
    assert game.result["rounds"] == 5


def test_sets_iterate_in_enum_order() -> None:
    """Tapestry lists its guilds as [weavers, smiths]; `for gu in self.guilds` visits smiths first."""
    path = EXAMPLES / "market.rules"
    for seed in range(40):
        lines = _play(path, 2, seed).log_lines()
        joins = [x for x in lines if " joins the " in x]
        if joins:
            assert [x.split()[-1] for x in joins] == ["smiths", "weavers"]
            return
    pytest.fail("nobody bought the Tapestry in 40 games")


def test_hidden_zone_and_reveal_in_views() -> None:
    game = load_ruleset(str(EXAMPLES / "market.rules")).new_game(3, 5, check_invariants=True)
    stock = game.view(None)["zones"]["stock"]
    assert all(c == "?" for c in stock[:-1])
    assert stock[-1] != "?"  # `reveal top(stock)` in setup
    assert game.log_lines()[0] == f"next in the stock: {stock[-1]}"
    assert len(game.view(None)["zones"]["stall"]) == 3
    assert len(game.view(None)["zones"]["special"]) == 1


def test_determinism_clone_and_save() -> None:
    path = EXAMPLES / "market.rules"
    assert _play(path, 3, 9).digest() == _play(path, 3, 9).digest()
    assert _play(path, 3, 9).digest() != _play(path, 3, 10).digest()
    rs = load_ruleset(str(path))
    game = rs.new_game(3, 9, check_invariants=True)
    game.apply(0, game.waiting_for()[0])
    copy = game.clone()
    loaded = rs.load_game(json.loads(json.dumps(game.to_json())), check_invariants=True)
    finals = []
    for g in (game, copy, loaded):
        play_out(g, [RandomAgent(100 + i) for i in range(3)])
        finals.append(g.digest())
    assert len(set(finals)) == 1


def test_illegal_choice_changes_nothing() -> None:
    game = load_ruleset(str(EXAMPLES / "market.rules")).new_game(2, 1)
    p = game.waiting_for()[0]
    before = game.digest()
    with pytest.raises(IllegalChoice):
        game.apply(99, p)
    with pytest.raises(IllegalChoice):
        game.apply(0, 1 - p)
    assert game.digest() == before


def test_arithmetic_floors(tmp_path: Path) -> None:
    path = _write(tmp_path, "arith.rules", """
game "Arith" { players 1..1 }
counter a
counter b
counter c
round { step s { a = -7 / 2  b = -7 % 3  c = 7 / 2  end game } }
score(p) = a
""")
    game = load_ruleset(path).new_game(1, 0)
    c = game.view(None)["counters"]
    assert (c["a"], c["b"], c["c"]) == (-4, 2, 3)


RUNTIME = {
    "move top(pile) to full  move top(pile) to full": "zone `full` is full (capacity 1)",
    "move top(pile) to gone  move top(gone) to pile": "cannot leave `gone`: cards never leave a final zone",
    'choose c from gone by first { log "x" }': "no legal option for the choice at",
    "n = 5 / n": "division by zero at",
    "let xs = [1, 2]  n = xs[2]": "list index 2 out of range (size 2)",
    "n = random([x for x in [1] where x > 1])": "random() of an empty list",
    "move top(gone) to pile": "nothing to move at line",
    "n += 1": "the game passed its step limit of 500 steps",
}


@pytest.mark.parametrize("body", list(RUNTIME), ids=[m.split(" ")[0] for m in RUNTIME.values()])
def test_runtime_errors_abort_the_game(tmp_path: Path, body: str) -> None:
    (tmp_path / "rt.yaml").write_text("kind: C\nstart: pile\ncards:\n  - name: Pebble\n    count: 3\n")
    path = _write(tmp_path, "rt.rules", f"""
game "RT" {{ players 2..2  step_limit 500 }}
card C {{ v: int = 0 }}
cards "rt.yaml"
zone pile: pile public of C
zone full: slot public of C
zone gone: pile public final of C
counter n 0..9
round {{
  step go "Go" {{ {body} }}
}}
""")
    game = load_ruleset(path).new_game(2, 0, check_invariants=True)
    assert game.state.status == "aborted"
    assert RUNTIME[body] in (game.error or "")


def test_optional_choice_without_options_does_nothing(tmp_path: Path) -> None:
    path = _write(tmp_path, "opt.rules", """
game "Opt" { players 1..1 }
counter n 0..9
round {
  step s {
    choose x from [y for y in [1, 2] where y > 5] by first optional { n = x }
    n += 1
    end game
  }
}
score(p) = n
""")
    game = load_ruleset(path).new_game(1, 0)
    assert game.state.status == "finished" and game.result["scores"] == [1]


# ---------------------------------------------------------------- the tutorial
TUTORIAL = DOCS / "tutorial.md"


def _tutorial_card(broken: bool) -> str:
    blocks = [b for b in _fenced(TUTORIAL, "yaml") if "name: Beast Roar" in b]
    chosen = [b for b in blocks if ("meele" in b) == broken]
    assert chosen, "tutorial.md lost its Beast Roar yaml block"
    return chosen[0]


def _bloodborne_copy(tmp_path: Path, card: str) -> str:
    shutil.copytree(ROOT / "rulesets", tmp_path / "rulesets")
    shutil.copytree(ROOT / "cards", tmp_path / "cards")
    upgrades = tmp_path / "cards" / "bloodborne" / "upgrades.yaml"
    with upgrades.open("a", encoding="utf-8") as f:
        f.write("\n" + card)
    return str(tmp_path / "rulesets" / "bloodborne.rules")


def test_real_upgrade_deck_is_untouched() -> None:
    data = yaml.safe_load((ROOT / "cards" / "bloodborne" / "upgrades.yaml").read_text(encoding="utf-8"))
    assert sum(c.get("count", 1) for c in data["cards"]) == 32
    assert all(c["name"] != "Beast Roar" for c in data["cards"])


def test_tutorial_broken_card_gives_the_documented_diagnostic(tmp_path: Path) -> None:
    path = _bloodborne_copy(tmp_path, _tutorial_card(broken=True))
    program, diags = check_file(path)
    assert program is None
    (d,) = diags
    assert (d.code, d.message, d.hint) == ("E101", "unknown name `meele`", "did you mean `melee`?")
    assert d.span.file.endswith("upgrades.yaml")
    text = TUTORIAL.read_text(encoding="utf-8")
    assert "error[E101]: unknown name `meele`" in text and "= hint: did you mean `melee`?" in text


def test_tutorial_card_checks_simulates_and_appears_in_a_log(tmp_path: Path) -> None:
    path = _bloodborne_copy(tmp_path, _tutorial_card(broken=False))
    program, diags = check_file(path)
    assert program is not None and diags == []
    summary = simulate(path, 200, 4, 1)
    assert (summary.finished, summary.aborted, summary.invariant_violations) == (200, 0, 0)
    shown = TUTORIAL.read_text(encoding="utf-8")
    assert f"digest {summary.digest}" in shown, "docs/tutorial.md's sample digest is stale: rerun its command"
    # what `liturgy play … --players 4 --seats random,random,random,random --seed S --verbose | grep "Beast Roar"`
    # shows, for the first seeds until the card's effect (both halves of it) has been seen
    rs = load_ruleset(path)
    healed = hurt = 0
    for seed in range(60):
        game = rs.new_game(4, seed, check_invariants=True)
        play_out(game, [RandomAgent(seed * 31 + i) for i in range(4)])
        assert game.state.status == "finished", game.error
        shown = [x for x in game.log_lines() if "Beast Roar" in x]
        healed += sum(re.fullmatch(r"P\d's Beast Roar heals 2", x) is not None for x in shown)
        for x in shown:
            m = re.fullmatch(r"(P\d)'s Beast Roar hurts (P\d)", x)
            if m:
                hurt += 1
                assert m.group(1) != m.group(2)  # only *other* hunters are hurt
        if healed and hurt:
            break
    assert healed and hurt, "Beast Roar's effect never showed in 60 games"


def test_tutorial_sample_game_prints_what_the_tutorial_shows(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Section 6's command, run: the bots' own seed (`--bot-seed`) makes the game the same on every run, and
    its `grep` output is the text block the tutorial prints (issue 32: the sample no longer matched)."""
    path = _bloodborne_copy(tmp_path, _tutorial_card(broken=False))
    assert cli_main(["play", path, "--players", "4", "--seats", "random,random,random,random", "--seed", "1",
                     "--bot-seed", "1", "--verbose"]) == 0
    log = capsys.readouterr().out.splitlines()
    blocks = _fenced(TUTORIAL, "text")
    grep = "\n".join(x for x in log if "Beast Roar" in x) + "\n"
    assert grep in blocks, grep
    at = next(i for i, x in enumerate(log) if "Beast Roar hurts" in x)
    assert "\n".join(log[at - 8:at + 4]) + "\n" in blocks


# ---------------------------------------------------------------- the CLI (docs/cli.md)
def test_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert cli_main(["check", "docs/examples/market.rules"]) == 0
    bad = _write(tmp_path, "broken.rules", 'game "B" { players 2..2 }\nround { step s { end gme } }\n')
    assert cli_main(["check", bad]) == 1
    warn = _write(tmp_path, "warn.rules",
                  'game "W" { players 1..1 }\ncounter unused 0..3\nround { step s { end game } }\nscore(p) = 0\n')
    assert cli_main(["check", warn]) == 0
    assert cli_main(["check", "--strict", warn]) == 1
    capsys.readouterr()
    assert cli_main(["check", "--format", "json", warn]) == 0
    (diag,) = json.loads(capsys.readouterr().out)
    assert set(diag) == {"code", "severity", "file", "line", "column", "end", "message", "hint"}
    assert diag["code"] == "W001"
    with pytest.raises(SystemExit) as exc:
        cli_main(["simulate", "docs/examples/market.rules", "--players", "3", "--games", "0"])
    assert exc.value.code == 2
    assert cli_main(["play", "docs/examples/market.rules", "--players", "9", "--seats", "random"]) == 2
    with pytest.raises(SystemExit) as exc:
        cli_main(["simulate", "docs/examples/market.rules"])  # --players is required
    assert exc.value.code == 2


def test_cli_play_log_and_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    log = tmp_path / "game.json"
    assert cli_main(["play", "docs/examples/high_card.rules", "--seats", "random,first", "--seed", "5",
                     "--log", str(log)]) == 0
    data = json.loads(log.read_text())
    assert set(data) == {"format", "ruleset", "game", "ruleset_fingerprint", "players", "seed", "options",
                         "decisions", "status", "error", "result", "digest"}
    documented = next(b for b in _fenced(DOCS / "cli.md", "json") if '"ruleset_fingerprint"' in b)
    assert set(data) == set(json.loads(documented))
    assert data["format"] == 1 and data["status"] == "finished" and data["game"] == "High Card"
    assert all(len(d) == 2 for d in data["decisions"])
    capsys.readouterr()
    assert cli_main(["replay", str(log)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"Replay matches: digest {data['digest']}"
    data["decisions"][0][1] = 9
    log.write_text(json.dumps(data))
    assert cli_main(["replay", str(log)]) == 1
    assert "DIVERGED" in capsys.readouterr().out
    (tmp_path / "junk.json").write_text("{}")
    assert cli_main(["replay", str(tmp_path / "junk.json")]) == 1


def test_cli_doc_simulate_json_matches(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    documented = [json.loads(b) for b in _fenced(DOCS / "cli.md", "json") if '"games_per_second"' in b]
    assert documented
    doc = documented[0]
    assert cli_main(["simulate", "docs/examples/market.rules", "--games", "100", "--players", "3", "--seed", "7",
                     "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert set(got) == set(doc)
    for key in ("games", "finished", "aborted", "invariant_violations", "decisions", "wins", "digest", "errors"):
        assert got[key] == doc[key], key
