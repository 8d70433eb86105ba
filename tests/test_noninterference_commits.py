"""The world probe draws other players' commits to a pending simultaneous choice again (they are hidden until
everyone is in). Once the choice is resolved the rules act on it in the open, so what the observer sees may then
differ: that is the rules showing the choice, not a leak. The comparison ends there.

Found by `liturgy fuzz rulesets/fury_of_dracula.rules --examples 2 --seed 5` once the Trade false alarm was gone:
in a combat round Godalming had committed Escape, the sampled world redrew it as Punch, and when Seward's card
completed the round the log read "Lord Godalming plays Escape" in one world and "plays Punch" in the other.
"""

from __future__ import annotations

import random

import pytest
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset
from liturgy.interpreter.engine.infosets import knowledge_by_replay, sample_world
from liturgy.interpreter.tools import noninterference as ni

SHOWDOWN = '''game "Showdown" { players 3..3 }
enum Sign { rock, paper, scissors }
counter turns 0..20
round {
  step show "Show a sign" {
    simultaneously p in players choose s from Sign prompt "Which sign does {} show?", p {
      log "{} shows {}", p, s
    }
    turns += 1
    if turns >= 3 { end game }
  }
}
score(p) = 0
'''

@pytest.fixture(scope="module")
def showdown(tmp_path_factory: pytest.TempPathFactory) -> Ruleset:
    path = tmp_path_factory.mktemp("showdown") / "showdown.rules"
    path.write_text(SHOWDOWN)
    return load_ruleset(str(path))


def _two_in(rules: Ruleset) -> Game:
    """P1 and P2 have committed their signs; P3 is still to choose."""
    g = rules.new_game(3, 1)
    g.apply(0, 0)
    g.apply(1, 1)
    assert g.waiting_for() == (2,) and g.state.commits
    return g


def test_commits_shown_when_the_choice_resolves_are_no_leak(showdown: Ruleset) -> None:
    g = _two_in(showdown)
    know = knowledge_by_replay(g, 2)
    assert [ni.check_world(g, 2, know, random.Random(k)) for k in range(12)] == [None] * 12


def test_the_worlds_do_differ_in_the_commits_and_then_in_the_log(showdown: Ruleset) -> None:
    """The probe's worlds really vary the commits (else the test above would prove nothing): played on, some
    world shows P3 other signs than the real game."""
    g = _two_in(showdown)
    know = knowledge_by_replay(g, 2)
    differ = 0
    for k in range(12):
        world, real = sample_world(g, 2, random.Random(k), know, keep_declarations=True), g.clone()
        world.apply(0, 2)
        real.apply(0, 2)
        differ += world.log_lines(2) != real.log_lines(2)
    assert differ > 6
