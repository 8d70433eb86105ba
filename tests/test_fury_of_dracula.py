"""Fury of Dracula (rulesets/fury_of_dracula.rules): the seed's rule examples as scenarios, the map against its
source data, and noninterference: varying Dracula's secret choices or the cards no Hunter saw never changes what
any Hunter observes, while a deliberately leaky copy of the ruleset is caught.

Scenarios drive a real game through its decisions by option *label*, as a player at the terminal would.
"""

from __future__ import annotations

import random
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from conftest import ROOT
from liturgy.interpreter.engine import Game, load_ruleset
from liturgy.interpreter.tools.noninterference import check_choice, check_swap, choose_swap, observation

RULES = ROOT / "rulesets" / "fury_of_dracula.rules"
DATA = ROOT / "cards" / "fury_of_dracula"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load_ruleset(str(RULES))


def ident(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


# ---------------------------------------------------------------- the map


def _edges(kind_of: dict[str, list[list[str]]], kinds: list[str]) -> set[frozenset[str]]:
    return {frozenset(pair[:2]) for k in kinds for pair in kind_of.get(k) or []}


def test_graph_file_is_the_board_data_edge_for_edge() -> None:
    board = yaml.safe_load((DATA / "map.yaml").read_text())
    graph = yaml.safe_load((DATA / "europe.yaml").read_text())
    assert _edges(graph, ["road"]) == {frozenset(map(ident, p)) for p in board["roads"]}
    for line in ("west", "east"):
        assert _edges(graph, [f"rail_{line}"]) == {frozenset(map(ident, p[:2])) for p in board["rails"] if p[2] == line}
    assert _edges(graph, ["boat"]) == {frozenset(map(ident, p)) for p in board["seas"]}
    places = re.search(r"enum Place \{([^}]*)\}", RULES.read_text())
    assert places is not None
    assert [p.strip() for p in places.group(1).split(",")] == [ident(loc["name"]) for loc in board["locations"]]


def _neighbours(place: str, kinds: list[str]) -> set[str]:
    graph = yaml.safe_load((DATA / "europe.yaml").read_text())
    return {b if a == place else a for k in kinds for a, b in graph[k] if place in (a, b)}


def test_the_rulesets_list_of_places_without_a_railway_is_the_graphs() -> None:
    """`has_rail` is a fixed list (asked on every Hunter's turn, a list is cheaper than a graph query): it must
    name exactly the places no rail edge of europe.yaml touches."""
    graph = yaml.safe_load((DATA / "europe.yaml").read_text())
    railed = {x for k in ("rail_west", "rail_east") for pair in graph[k] for x in pair}
    places = re.search(r"enum Place \{([^}]*)\}", RULES.read_text())
    listed = re.search(r"fn has_rail\(x: Place\) -> bool = x not in \[([^\]]*)\]", RULES.read_text())
    assert places is not None and listed is not None
    everywhere = {p.strip() for p in places.group(1).split(",")}
    assert {p.strip() for p in listed.group(1).split(",")} == everywhere - railed


def test_seed_map_examples() -> None:
    """Spec 2.2 [L121, L128, L139, L142, L155, L160, L161]."""
    paris = {"le_havre", "brussels", "strasbourg", "geneva", "clermont_ferrand", "nantes"}
    assert _neighbours("paris", ["road"]) == paris
    assert "marseilles" in _neighbours("paris", ["rail_west"]) and "marseilles" not in _neighbours("paris", ["road"])
    assert "amsterdam" in _neighbours("brussels", ["road"]) and "amsterdam" not in _neighbours("paris", ["road"])
    seas = {"north_sea", "irish_sea", "mediterranean_sea", "english_channel", "bay_of_biscay"}
    assert {x for x in _neighbours("atlantic_ocean", ["boat"]) if x.endswith(("_sea", "biscay", "channel"))} == seas
    assert _neighbours("manchester", ["road"]) == {"edinburgh", "liverpool", "london"}
    assert _neighbours("manchester", ["boat"]) == set()
    assert {"hamburg", "amsterdam"} <= _neighbours("north_sea", ["boat"])
    assert "prague" in _neighbours("berlin", ["rail_east"])
    assert {"leipzig", "hamburg"} <= _neighbours("berlin", ["rail_west"])
    assert "leipzig" in _neighbours("nuremburg", ["rail_west"])
    assert "nantes" in _neighbours("le_havre", ["road"])


# ---------------------------------------------------------------- driving a game


def prompt(g: Game) -> tuple[int, str, list[str]]:
    d = g.decision
    assert d is not None
    p = d.players[0]
    return p, d.prompts.get(p) or "", list(d.options[p])


def play(g: Game, policy: Callable[[int, str, list[str]], str | None], until: Callable[[Game], bool],
         limit: int = 400) -> None:
    """Answer decisions with ``policy`` (a label, or None for the first option) until ``until`` holds."""
    for _ in range(limit):
        if g.finished or until(g):
            return
        p, text, labels = prompt(g)
        choice = policy(p, text, labels)
        g.apply(labels.index(choice) if choice is not None else 0, p)
    raise AssertionError("the scenario did not reach its point")


def counter(g: Game, name: str) -> int:
    value = g.view(0)["counters"][name]
    return int(value)


def hunters_stay(p: int, text: str, labels: list[str]) -> str | None:
    """Hunters start far from Dracula and then stay put and pass; Dracula is steered by the scenario."""
    starts = {"Lord Godalming": "galway", "Dr. John Seward": "dublin", "Prof. Abraham Van Helsing": "lisbon",
              "Mina Harker": "cadiz"}
    for name, place in starts.items():
        if text == f"Where does {name} start?":
            return place
    m = re.match(r"Where does .* go from (.+)\?", text)
    if m:
        return re.sub(r"\W+", "_", m.group(1).lower()).strip("_")  # the place in words, as its identifier
    if text.startswith("What does"):
        return "pass_turn"
    return None


def dracula_route(route: list[str]) -> Callable[[int, str, list[str]], str | None]:
    steps = iter(route)

    def policy(p: int, text: str, labels: list[str]) -> str | None:
        if p == 0 and (text == "Where does Dracula begin?" or text == "Where does Dracula go?"):
            return next(steps)
        return hunters_stay(p, text, labels)
    return policy


def test_hunters_never_start_at_sea_in_the_castle_or_the_hospital(rules) -> None:  # type: ignore[no-untyped-def]
    g = rules.new_game(3, seed=1)
    p, text, labels = prompt(g)
    assert text == "Where does Lord Godalming start?"
    assert len(labels) == 59 and "castle_dracula" not in labels and "st_joseph_and_st_mary" not in labels
    assert not any(x.endswith(("_sea", "_ocean", "biscay", "channel")) for x in labels)


def test_dracula_never_starts_with_a_hunter_at_sea_or_in_his_castle(rules) -> None:  # type: ignore[no-untyped-def]
    g = rules.new_game(2, seed=1)
    play(g, hunters_stay, lambda g: prompt(g)[1] == "Where does Dracula begin?")
    _, _, labels = prompt(g)
    assert "Galway" not in labels and "Castle Dracula" not in labels and "North Sea" not in labels
    assert "Paris" in labels and len(labels) == 59 - 4  # 59 cities, less the Hunters' four


def test_hamburg_voyage_costs_blood_on_embarking_and_every_other_sail(rules) -> None:  # type: ignore[no-untyped-def]
    """Spec 5.2 [L127-L133]: Hamburg -> North Sea (1) -> Atlantic (0) -> Mediterranean (1); disembarking is free;
    time does not advance while Dracula starts his turn at sea [L116]."""
    g = rules.new_game(2, seed=4, check_invariants=True)
    route = ["Hamburg", "North Sea", "Atlantic Ocean", "Mediterranean Sea", "Marseilles"]
    policy = dracula_route(route)
    seen: list[tuple[int, int]] = []
    for moves in range(1, len(route) + 1):
        play(g, policy, lambda g, m=moves: _dracula_moves(g) >= m)
        seen.append((counter(g, "blood"), counter(g, "daynight")))
    assert [b for b, _ in seen] == [15, 14, 14, 13, 13]
    # Dawn after the first turn; one step of time for the turn that started in Hamburg, none at sea
    assert [t for _, t in seen] == [0, 1, 1, 1, 1]


def _dracula_moves(g: Game) -> int:
    return sum(1 for line in g.log_lines(None) if line in ("Dracula lays his first card", "Dracula moves"))


def test_trail_backs_show_sea_and_land_but_not_the_place(rules) -> None:  # type: ignore[no-untyped-def]
    g = rules.new_game(2, seed=4)
    play(g, dracula_route(["Hamburg", "North Sea"]), lambda g: _dracula_moves(g) >= 2)
    trail = g.view(1)["zones"]["trail"]["P1"]
    assert trail == ["? (back: land)", "? (back: sea)"]
    assert g.view(0)["zones"]["trail"]["P1"] == ["Hamburg", "North Sea"]


def test_first_turn_is_not_a_new_day_and_dawn_after_six_land_turns_is(rules) -> None:  # type: ignore[no-untyped-def]
    """Spec 3.6, 4.1.1 [L105, L117]: the first Dawn is not a new day; Small Hours -> Dawn adds 1 vampire and 1
    Resolve."""
    g = rules.new_game(2, seed=5, check_invariants=True)
    route = ["Paris", "Brussels", "Amsterdam", "Cologne", "Frankfurt", "Strasbourg", "Zurich", "Munich"]
    policy = dracula_route(route)
    play(g, policy, lambda g: _dracula_moves(g) >= 1)
    assert (counter(g, "vampires"), counter(g, "resolve"), counter(g, "daynight")) == (0, 0, 0)
    play(g, policy, lambda g: _dracula_moves(g) >= 6)
    assert (counter(g, "vampires"), counter(g, "daynight")) == (0, 5)
    play(g, policy, lambda g: _dracula_moves(g) >= 7)
    assert (counter(g, "vampires"), counter(g, "resolve"), counter(g, "daynight")) == (1, 1, 0)


def test_the_trail_keeps_six_cards_and_encounters_go_on_land_cards(rules) -> None:  # type: ignore[no-untyped-def]
    """Spec 4.1.2-4.1.3 [L165, L176-L178]: no encounter on the first turn, one on every later land turn; the
    oldest card leaves a full Trail of six."""
    g = rules.new_game(2, seed=6, check_invariants=True)
    route = ["Paris", "Brussels", "Amsterdam", "Cologne", "Frankfurt", "Strasbourg", "Zurich", "Munich"]
    policy = dracula_route(route)
    play(g, policy, lambda g: _dracula_moves(g) >= 1 and prompt(g)[0] != 0)
    assert g.view(0)["zones"].get("tiles", {}) == {}
    play(g, policy, lambda g: _dracula_moves(g) >= 2 and prompt(g)[0] != 0)
    assert [len(v) for v in g.view(0)["zones"]["tiles"].values()] == [1]
    assert len(g.view(0)["zones"]["reserve"]["P1"]) == 5
    play(g, policy, lambda g: _dracula_moves(g) >= 8 and prompt(g)[0] != 0)
    assert g.view(1)["zones"]["trail"]["P1"] == ["? (back: land)"] * 6


def test_a_hunter_who_enters_a_trail_city_reveals_it(rules) -> None:  # type: ignore[no-untyped-def]
    """Spec 4.2.3 [L188]: the searched location's card, on the Trail, is turned face up."""
    g = rules.new_game(2, seed=7, check_invariants=True)
    route = iter(["Nantes", "Bordeaux", "Toulouse"])

    def policy(p: int, text: str, labels: list[str]) -> str | None:
        if p == 0 and text in ("Where does Dracula begin?", "Where does Dracula go?"):
            return next(route)
        if text == "Where does Lord Godalming start?":
            return "le_havre"
        if text.startswith("Where does Lord Godalming go from"):
            return "nantes" if "nantes" in labels else labels[0]
        return hunters_stay(p, text, labels)
    play(g, policy, lambda g: any("searches Nantes" in line for line in g.log_lines(1)))
    assert "Nantes" in g.view(1)["zones"]["trail"]["P1"]


def test_dracula_entering_a_hunters_city_is_face_up_and_attacks(rules) -> None:  # type: ignore[no-untyped-def]
    """Spec 4.1.2 [L163, L177]: the card goes face up and Dracula must fight."""
    g = rules.new_game(2, seed=8, check_invariants=True)
    route = iter(["Brussels", "Paris"])

    def policy(p: int, text: str, labels: list[str]) -> str | None:
        if p == 0 and text in ("Where does Dracula begin?", "Where does Dracula go?"):
            return next(route)
        if text == "Where does Lord Godalming start?":
            return "paris"
        return hunters_stay(p, text, labels)
    play(g, policy, lambda g: any("Dracula attacks at Paris" in line for line in g.log_lines(1)))
    assert g.view(1)["zones"]["trail"]["P1"][-1] == "Paris"
    assert any(line == "combat against Count Dracula begins" for line in g.log_lines(1))


# ---------------------------------------------------------------- noninterference


def _probe(rules, seeds: range, players: int = 2, first: bool = False) -> list[str]:  # type: ignore[no-untyped-def]
    """At every Dracula choice among cards hidden from the Hunters, vary it and compare every Hunter's observation
    (view, display, log lines, option labels and prompt) on both branches until the rules reveal the difference."""
    found: list[str] = []
    for seed in seeds:
        g = rules.new_game(players, seed=seed)
        rng = random.Random(seed)
        for _ in range(250):
            if g.finished:
                break
            d = g.decision
            assert d is not None
            if 0 in d.players:
                for observer in range(1, players):
                    n = len(g.state.tables.card_def)
                    msg = check_choice(g, observer, [0] * n, random.Random(seed), horizon=24)
                    if msg:
                        found.append(msg)
                        if first:
                            return found
            p = rng.choice(list(d.players))
            g.apply(rng.randrange(g.option_count(p)), p)
    return found


def test_dracula_secret_choices_never_change_what_a_hunter_observes(rules) -> None:  # type: ignore[no-untyped-def]
    assert _probe(rules, range(1, 3)) == []


def test_hunters_observation_is_identical_for_two_different_hidden_moves(rules) -> None:  # type: ignore[no-untyped-def]
    """The same check written out: two land moves from Paris, the Hunters' whole observation compared."""
    g = rules.new_game(2, seed=9)
    play(g, dracula_route(["Paris"]), lambda g: prompt(g)[1] == "Where does Dracula go?")
    _, _, labels = prompt(g)
    a, b = g.clone(), g.clone()
    a.apply(labels.index("Brussels"), 0)
    b.apply(labels.index("Geneva"), 0)
    assert observation(a, 1) == observation(b, 1)
    assert observation(a, 0) != observation(b, 0)


def test_a_deliberately_leaky_copy_is_caught(tmp_path: Path) -> None:
    shutil.copytree(DATA, tmp_path / "cards" / "fury_of_dracula")
    (tmp_path / "rulesets").mkdir()
    path = tmp_path / "rulesets" / "fury_of_dracula.rules"
    shutil.copy(RULES, path)
    shutil.copytree(RULES.with_suffix(""), path.with_suffix(""))  # the parts the main file includes
    changed = 0
    for part in [path, *sorted(path.with_suffix("").glob("*.rules"))]:
        text = part.read_text()
        leaky = text.replace('  log "Dracula moves"\n  log to dp "you move to {}", c\n',
                             '  log "Dracula moves"\n  log "(a leak) the new place is {}", c.place\n', 1)
        changed += leaky != text
        part.write_text(leaky)
    assert changed == 1
    assert _probe(load_ruleset(str(path)), range(1, 4), first=True) != []


def test_the_probe_only_pairs_hidden_cards_with_the_same_printed_back() -> None:
    """A land card and a sea card look different face down, so swapping them is no test of secrecy: the probe
    (interpreter/tools/noninterference.py) pairs only cards whose backs agree (it reported such a swap as a leak
    in this ruleset's Location deck before)."""
    smugglers = load_ruleset(str(ROOT / "docs" / "examples" / "smugglers.rules"))
    g = smugglers.new_game(2, seed=3)
    backs = g.state.tables.card_backs
    assert len(set(backs)) > 2  # land places, sea places, crates without a back
    pairs = [choose_swap(g, 1, [0] * len(backs), random.Random(k)) for k in range(200)]
    assert all(s is not None and backs[s.first] == backs[s.second] for s in pairs)
    assert {backs[s.first] for s in pairs if s is not None} >= {"terrain: land", "terrain: sea"}


def test_unseen_draws_never_change_what_a_hunter_observes(rules) -> None:  # type: ignore[no-untyped-def]
    """Two hidden cards of one kind with the same back trade places (an encounter in the pool, an event in the
    deck, a location in Dracula's deck): every Hunter's observation is the same until the rules show a card."""
    found: list[str] = []
    for seed in (1,):
        g = rules.new_game(3, seed=seed)
        rng = random.Random(seed)
        for step in range(120):
            if g.finished:
                break
            if step % 6 == 0:
                for observer in (1, 2):
                    n = len(g.state.tables.card_def)
                    swap = choose_swap(g, observer, [0] * n, random.Random(step))
                    msg = check_swap(g, swap, random.Random(step), horizon=24) if swap else None
                    if msg:
                        found.append(msg)
            d = g.decision
            assert d is not None
            p = rng.choice(list(d.players))
            g.apply(rng.randrange(g.option_count(p)), p)
    assert found == []


def test_a_whole_game_plays_at_the_terminal_with_bots(capsys: pytest.CaptureFixture[str]) -> None:
    """`liturgy play` runs a game to its result (here bots in every seat) and prints the final line."""
    from liturgy.interpreter.tools.cli import main
    assert main(["play", str(RULES), "--players", "3", "--seats", "random,random,random", "--seed", "5",
                 "--option", "length=skirmish"]) == 0
    out = capsys.readouterr().out
    assert "Game over" in out and ("Dracula wins" in out or "The Hunters win" in out)


def test_the_probe_counts_a_card_named_by_the_varied_choice_itself_as_shown(tmp_path: Path) -> None:
    """A choice whose own body reveals the chosen card, names it in the log and moves it on (a tile met, then
    returned to its pool) shows the card: the probe must not report the two worlds' different log lines as a
    leak. A body that names the choice without revealing it is still caught."""
    (tmp_path / "cards.yaml").write_text("kind: Tile\nstart: pool\ncards:\n  - {name: Fog}\n  - {name: Rats}\n"
                                         "  - {name: Bats}\n")
    body = """game "Tiles" {{ players 2..2 }}
card Tile {{ }}
cards "cards.yaml"
zone pool: set hidden of Tile
zone hand: per player set owner of Tile
setup {{ move pool to players[0].hand }}
round {{
  step meet {{
    choose t from players[0].hand by players[0] {{
      {reveal}
      log "P2 meets {{}}", t
      move t to pool
    }}
    if size(players[0].hand) == 0 {{ end game }}
  }}
}}
"""
    (tmp_path / "fair.rules").write_text(body.format(reveal="reveal t"))
    (tmp_path / "leaky.rules").write_text(body.format(reveal='log "(named {})", t.name'))
    fair = load_ruleset(str(tmp_path / "fair.rules")).new_game(2, seed=1)
    leaky = load_ruleset(str(tmp_path / "leaky.rules")).new_game(2, seed=1)
    assert check_choice(fair, 1, [0, 0, 0], random.Random(1)) is None
    assert check_choice(leaky, 1, [0, 0, 0], random.Random(1)) is not None


def test_seward_sails_hamburg_north_sea_amsterdam_and_may_not_turn_back(rules) -> None:  # type: ignore[no-untyped-def]
    """Spec 5.2 [L136-L139]: the shortest voyage is two turns (embark, then disembark at another port of the same
    sea); at sea a Hunter must move and may not return to his embarkation port."""
    g = rules.new_game(2, seed=10, check_invariants=True)
    asked: list[list[str]] = []

    def policy(p: int, text: str, labels: list[str]) -> str | None:
        if text == "Where does Dracula begin?":
            return "Bucharest"
        if text == "Where does Dr. John Seward start?":
            return "hamburg"
        if text.startswith("Where does Dr. John Seward go from"):
            asked.append(labels)
            return "north_sea" if "north_sea" in labels else "amsterdam"
        if p == 0:
            return None
        return hunters_stay(p, text, labels)
    play(g, policy, lambda g: len(asked) >= 2 and prompt(g)[1].startswith("Where does Prof."))
    first, second = asked[0], asked[1]
    assert "hamburg" in first and "north_sea" in first  # in port: stay, road, or embark
    assert "north_sea" not in second and "hamburg" not in second and "amsterdam" in second  # at sea: must move on
    assert counter(g, "blood") <= 15 and g.view(1)["counters"]["at"]["Dr. John Seward"] == "amsterdam"


def test_le_havre_to_nantes_is_a_road_move_for_dracula(rules) -> None:  # type: ignore[no-untyped-def]
    """Spec 2.2 [L161]."""
    g = rules.new_game(2, seed=11)
    play(g, dracula_route(["Le Havre"]), lambda g: prompt(g)[1] == "Where does Dracula go?")
    _, _, labels = prompt(g)
    assert "Nantes" in labels and "Paris" in labels and "English Channel" in labels and "Lyon" not in labels


def test_dracula_with_one_blood_may_not_embark(rules) -> None:  # type: ignore[no-untyped-def]
    """Spec 5.2, 8.1 [L68, L127]: embarking costs 1 Blood and Dracula may never bring his own Blood to 0."""
    from scenario import global_slot
    g = rules.new_game(2, seed=12)
    play(g, dracula_route(["Hamburg"]), lambda g: prompt(g)[1] == "Where does Dracula go?")
    assert "North Sea" in prompt(g)[2]
    # the same game again, with his Blood set to 1 before his turn starts (its options are worked out then)
    g = rules.new_game(2, seed=12)
    play(g, dracula_route(["Hamburg"]), lambda g: prompt(g)[1].startswith("What does Mina Harker do"))
    g.state.counters[global_slot(g, "blood")] = 1
    play(g, dracula_route(["Hamburg"]), lambda g: prompt(g)[1] == "Where does Dracula go?")
    labels = prompt(g)[2]
    assert "North Sea" not in labels and "Berlin" in labels and "Feed" not in labels


def test_train_die_ticket_check_ends_the_turn_and_a_one_rides_one_stop(rules) -> None:  # type: ignore[no-untyped-def]
    """Spec 5.3 [L149-L151]: a ticket check leaves the Hunter where he is with no Action phase; a 1 rides to the
    next city on the line."""
    from scenario import force_roll
    for face, expect_moved in (("0", False), ("1", True)):
        g = rules.new_game(2, seed=13)

        def policy(p: int, text: str, labels: list[str]) -> str | None:
            if text == "Where does Dr. John Seward start?":
                return "paris"
            return hunters_stay(p, text, labels) if p != 0 else dracula_route(["Bucharest"])(p, text, labels)
        play(g, policy, lambda g: prompt(g)[1].startswith("Where does Dr. John Seward go from"))
        assert "take the train" in prompt(g)[2]
        force_roll(g, "train", [face])
        g.apply(prompt(g)[2].index("take the train"), 1)
        if expect_moved:
            _, text, labels = prompt(g)
            assert text == "Dr. John Seward rides the train to?"
            assert set(labels) == set(_neighbours("paris", ["rail_west", "rail_east"]))
        else:
            assert "ticket check" in g.log_lines(1)[-1]
            assert g.view(1)["counters"]["at"]["Dr. John Seward"] == "paris"
            assert prompt(g)[1].startswith("Where does Prof. Abraham Van Helsing go from")
