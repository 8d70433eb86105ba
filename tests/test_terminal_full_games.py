"""Each of the four seed games played to its end at the terminal, as a person would (issue 32, item 5).

The real `liturgy play` process runs with a human seat (the others bots); tests/human_driver.py reads each printed
menu and answers it, so nothing is skipped: every question the human seat gets is asked and answered at the
prompt. What the test asserts is what a player reads on every screen of a whole game: no raw identifier
(`clermont_ferrand`, `escape_man`, `wound1`) anywhere, no `(display:` error, narration between questions, the
places by their names, and a result at the end.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable

import pytest
from human_driver import LabelPolicy, play

# A word a player would read as an identifier: snake_case, or letters with a digit glued on (`wound1`). Words of
# that shape a game really prints go in ALLOWED, with why.
RAW = re.compile(r"(?<![\w./-])(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+[0-9]+)(?![\w/.-])")
ALLOWED: frozenset[str] = frozenset()
Policy = Callable[[int, str, list[str]], int | str]


def raw_words(screen: str) -> Counter[str]:
    """The raw identifiers on a screen, with how often each appears."""
    return Counter(w for w in RAW.findall(screen) if w not in ALLOWED)


def test_the_raw_word_finder_finds_what_it_should() -> None:
    """The scan itself: it must catch the identifiers of the issue and pass player text."""
    assert set(raw_words("Hunters in clermont_ferrand: escape_man wins, wound1")) == {
        "clermont_ferrand", "escape_man", "wound1"}
    assert not raw_words("Lord Godalming is in Clermont-Ferrand. P2 loses 4 health (now 3). [12] run.json")


class RandomLabels:
    """Answers every menu at random (seeded): a whole game's worth of questions, none of them skipped."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def __call__(self, player: int, screen: str, labels: list[str]) -> int:
        return self.rng.randrange(len(labels))


GAMES = [
    # ruleset, arguments, policy, what the game's own screens must show
    ("fury_of_dracula", ["--players", "2", "--seats", "random,human", "--option", "length=skirmish"],
     RandomLabels(2), ["Clermont-Ferrand (town)", "Dracula's Trail"]),
    ("betrayal", ["--players", "3", "--seats", "human,random,random", "--option", "length=quick"],
     RandomLabels(2), ["Entrance Hall", "=== ground floor ==="]),  # the house, drawn as text
    ("bloodborne", ["--players", "3", "--seats", "human,random,random"], RandomLabels(2), ["Final boss"]),
    ("slay_the_spire", ["--players", "1", "--seats", "human"], LabelPolicy(["Ironclad"]),
     ["The map (M monster"]),
]


@pytest.mark.parametrize(("game", "args", "policy", "shown"), GAMES, ids=[g[0] for g in GAMES])
def test_a_whole_game_at_the_terminal_speaks_player_language(game: str, args: list[str], policy: Policy,
                                                             shown: list[str]) -> None:
    code, out = play(f"rulesets/{game}.rules", ["--seed", "2", "--bot-seed", "2", *args],
                     policy, timeout=240)
    assert "Traceback" not in out, out[-3000:]
    assert code == 0, out[-3000:]
    assert re.search(r"^Game over after \d+ rounds?\. Scores: ", out, re.M), out[-2000:]  # a result, not a stop
    assert "(display:" not in out
    assert "\n    • " in out or "What changed for you:" in out  # narration between questions
    for text in shown:
        assert text in out, text
    raw = raw_words(out)
    assert not raw, [(w, n, out[max(0, out.index(w) - 200):out.index(w) + 60]) for w, n in raw.most_common(5)]
