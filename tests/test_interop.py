"""OpenSpiel and PettingZoo adapters, and the engine's explicit-chance mode they use.

Every shipped ruleset (``rulesets/**/*.rules``, discovered now, so rulesets added
later are covered) and every documented example is run through OpenSpiel's own
``random_sim_test`` (clone, serialise/deserialise, legal-action masks, unique
action strings, observation strings, returns within bounds) in both its
registrations, and through PettingZoo's own ``api_test``.
"""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path

import pytest
from conftest import LARGE, PROFILE
from harness_options import HARNESS_OPTIONS

pyspiel = pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

from liturgy.dsl.frontend.includes import main_rulesets  # noqa: E402
from liturgy.interpreter.engine import Game, load_ruleset  # noqa: E402
from liturgy.interpreter.engine.chance import CHANCE, ChanceGame  # noqa: E402
from liturgy.interpreter.interop.common import Bounds, cached_ruleset, has_simultaneous, returns_of  # noqa: E402
from liturgy.interpreter.interop.openspiel import register  # noqa: E402
from liturgy.interpreter.interop.pettingzoo import LiturgyEnv  # noqa: E402
from liturgy.interpreter.runtime.errors import IllegalChoice  # noqa: E402
from liturgy.interpreter.runtime.moves import card_visibility  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BLOODBORNE = str(ROOT / "rulesets" / "bloodborne.rules")
RULESETS = main_rulesets(sorted(str(p) for p in (ROOT / "rulesets").glob("**/*.rules")))
EXAMPLES = sorted(str(p) for p in (ROOT / "docs" / "examples").glob("*.rules"))
ALL = RULESETS + EXAMPLES
# A ruleset whose full game is long runs the adapters' suites in its own short mode (an ordinary `option`):
# OpenSpiel's random_sim_test reloads the state at every step, so its cost grows with the square of the length.


def _name(path: str) -> str:
    """A registry name unique per file (two rulesets may share a file name in different folders)."""
    rel = Path(path).relative_to(ROOT).with_suffix("")
    return "liturgy_t_" + "_".join(rel.parts).replace("-", "_").lower()


def _ids(paths: list[str]) -> list[str]:
    return [str(Path(p).relative_to(ROOT)) for p in paths]


def _random_chance_game(path: str, players: int, seed: int) -> ChanceGame:
    rng = random.Random(seed)
    cg = ChanceGame(cached_ruleset(path), players)
    while not cg.finished:
        if cg.at_chance:
            cg.apply_chance(rng.randrange(cg.need))
        else:
            assert cg.game is not None
            p = rng.choice(cg.game.waiting_for())
            cg.apply(rng.randrange(cg.game.option_count(p)), p)
    return cg


# ---------------------------------------------------------------- explicit chance

def test_bloodborne_is_discovered() -> None:
    assert BLOODBORNE in RULESETS


def test_same_outcomes_give_the_same_game() -> None:
    cg = _random_chance_game(BLOODBORNE, 3, seed=5)
    assert any(who == CHANCE for who, _ in cg.history)
    again = ChanceGame.replay(cached_ruleset(BLOODBORNE), 3, cg.history)
    assert cg.game is not None and again.game is not None
    assert again.game.digest() == cg.game.digest()
    assert again.game.log_lines() == cg.game.log_lines()


def test_different_outcomes_give_a_different_game() -> None:
    a = ChanceGame(cached_ruleset(BLOODBORNE), 3)
    b = a.clone()
    assert a.need >= 2  # setup shuffles
    a.apply_chance(0)
    b.apply_chance(1)
    while a.at_chance:
        a.apply_chance(0)
    while b.at_chance:
        b.apply_chance(0)
    assert a.game is not None and b.game is not None
    assert a.game.digest() != b.game.digest()


def test_chance_mode_leaves_seeded_play_alone() -> None:
    rules = load_ruleset(BLOODBORNE)
    g1 = rules.new_game(3, seed=11)
    ChanceGame(rules, 3)  # a chance game in between must not disturb anything
    g2 = rules.new_game(3, seed=11)
    assert g1.digest() == g2.digest()
    assert type(g2.state.rng) is int


def test_illegal_chance_outcomes_and_choices_change_nothing() -> None:
    cg = ChanceGame(cached_ruleset(BLOODBORNE), 3)
    n, hist = cg.need, cg.history[:]
    with pytest.raises(IllegalChoice):
        cg.apply_chance(n)
    with pytest.raises(IllegalChoice):
        cg.apply(0, 0)
    assert (cg.need, cg.history) == (n, hist)
    while cg.at_chance:
        cg.apply_chance(0)
    with pytest.raises(IllegalChoice):
        cg.apply_chance(0)
    assert cg.game is not None
    p = cg.game.waiting_for()[0]
    with pytest.raises(IllegalChoice):
        cg.apply(cg.game.option_count(p), p)


def test_clones_are_independent() -> None:
    cg = ChanceGame(cached_ruleset(BLOODBORNE), 3)
    while cg.at_chance:
        cg.apply_chance(1)
    copy = cg.clone()
    assert cg.game is not None
    p = cg.game.waiting_for()[0]
    digest = cg.game.digest()
    copy.apply(0, p)
    assert cg.game.digest() == digest and len(cg.history) + 1 == len(copy.history)


# ---------------------------------------------------------------- OpenSpiel

@pytest.mark.parametrize("path", ALL, ids=_ids(ALL))
def test_openspiel_random_sim_test(path: str) -> None:
    """OpenSpiel's own consistency checks, in both registrations, at the smallest and largest player count.

    A ruleset without simultaneous choices registers the same game twice: the second name (``_turns``) differs
    from the first in its name alone (the same entry, dynamics and parameters), and random_sim_test, seeded alike,
    plays it move for move as the first (checked on Kuhn poker, Crazy Eights and the market example: the verbose
    transcripts are equal but for the name). By default it is loaded and compared with the first, not simulated
    again.

    A large game with simultaneous choices (conftest.LARGE) costs 2-4 s of CPU per simulated game here
    (random_sim_test reloads the state at every step, so its cost grows with the square of the game's length). By
    default each of its two registrations runs one of the two player counts (the first the smallest, the second
    the largest): both registrations and both counts are still checked, each in a whole game, at half the cost;
    the other two pairings add only their combination. ``HYPOTHESIS_PROFILE=thorough`` simulates every
    registration at both counts, as before."""
    rules = cached_ruleset(path)
    counts = sorted({rules.min_players, rules.max_players})
    thorough = PROFILE == "thorough"
    same_game = not has_simultaneous(rules)
    paired = Path(path).name in LARGE and not thorough
    options = {f"option_{k}": v for k, v in HARNESS_OPTIONS.get(Path(path).name, {}).items()}
    registrations = register(path, _name(path))
    for i, short in enumerate(registrations):
        for players in [counts[min(i, len(counts) - 1)]] if paired and not same_game else counts:
            params: dict[str, int | str] = {"players": players, **options}
            game = pyspiel.load_game(short, params)
            if i == 1 and same_game and not thorough:
                first = pyspiel.load_game(registrations[0], params)
                assert game.get_type().dynamics == first.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
                assert game.get_type().long_name == first.get_type().long_name
                assert game.num_distinct_actions() == first.num_distinct_actions()
                assert game.max_game_length() == first.max_game_length()
                assert str(game.new_initial_state()) == str(first.new_initial_state())
                continue
            pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_openspiel_dynamics_follow_the_ruleset() -> None:
    sim, turns = register(str(ROOT / "docs" / "examples" / "high_card.rules"), "liturgy_t_dyn_high_card")
    assert pyspiel.load_game(sim).get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert pyspiel.load_game(turns).get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    plain, _ = register(str(ROOT / "docs" / "examples" / "dice_race.rules"), "liturgy_t_dyn_dice_race")
    assert pyspiel.load_game(plain).get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL


def test_openspiel_simultaneous_node_takes_a_joint_action() -> None:
    sim, _ = register(str(ROOT / "docs" / "examples" / "high_card.rules"), "liturgy_t_dyn_high_card")
    state = pyspiel.load_game(sim).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.is_simultaneous_node()
    joint = [state.legal_actions(p)[0] for p in range(2)]
    state.apply_actions(joint)
    assert not state.is_simultaneous_node() or state.history()[-2:] == joint


def test_openspiel_parameters_are_checked() -> None:
    short, _ = register(BLOODBORNE, _name(BLOODBORNE))
    with pytest.raises(ValueError, match="3..5 players"):
        pyspiel.load_game(short, {"players": 2})
    with pytest.raises(ValueError, match="returns must be one of"):
        pyspiel.load_game(short, {"returns": "elo"})
    with pytest.raises(ValueError, match="already registered"):
        register(str(ROOT / "docs" / "examples" / "market.rules"), short)
    game = pyspiel.load_game(short, {"players": 4, "max_options": 200})
    assert game.num_players() == 4 and game.num_distinct_actions() == 200
    natural = Bounds.natural(cached_ruleset(BLOODBORNE), 4)
    assert pyspiel.load_game(short, {"players": 4}).num_distinct_actions() == natural.max_options


def test_mcts_bot_plays_bloodborne_unchanged() -> None:
    import numpy as np
    from open_spiel.python.algorithms import mcts

    _, turns = register(BLOODBORNE, _name(BLOODBORNE))
    game = pyspiel.load_game(turns, {"players": 3})
    bot = mcts.MCTSBot(game, 2.0, 3, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                       random_state=np.random.RandomState(0))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    action = bot.step(state)
    assert action in state.legal_actions()


def _secret_names(game: Game, player: int, ever_seen: set[str]) -> set[str]:
    """Card names the player cannot see now and has never seen at any decision point so far."""
    s = game.state
    names = s.tables.card_names
    cards = range(len(s.card_zone))
    visible = {names[c] for c in cards if (card_visibility(s, c) >> player) & 1}
    ever_seen |= visible
    hidden = {names[c] for c in cards if not (card_visibility(s, c) >> player) & 1}
    return hidden - ever_seen


WHISPERS = str(ROOT / "docs" / "examples" / "whispers.rules")  # zones visible to a group, `reveal … to`


@pytest.mark.parametrize(("path", "least", "games"), [(BLOODBORNE, 1000, 2), (WHISPERS, 100, 6)],
                         ids=["bloodborne", "whispers"])
@pytest.mark.parametrize("short_index", [0, 1], ids=["as-written", "turns"])
def test_openspiel_strings_never_leak_hidden_cards(short_index: int, path: str, least: int, games: int) -> None:
    """Observation and information-state strings show no name of a card the player has never seen."""
    short = register(path, _name(path))[short_index]
    game = pyspiel.load_game(short, {"players": 3})
    rng = random.Random(3)
    checked = secrets = 0
    for _ in range(games):
        state = game.new_initial_state()
        seen: list[set[str]] = [set() for _ in range(3)]
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.legal_actions()))
                continue
            cg_game = state._core.cg.game
            for p in range(3):
                secret = _secret_names(cg_game, p, seen[p])
                secrets += len(secret)
                texts = (state.observation_string(p), state.information_state_string(p))
                for text in texts:
                    leaked = [n for n in secret if json.dumps(n, ensure_ascii=False) in text]
                    assert not leaked, f"P{p + 1} sees hidden {leaked}"
                checked += 1
            if state.is_simultaneous_node():
                state.apply_actions([rng.choice(state.legal_actions(p) or [0]) for p in range(3)])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 100 and secrets > least  # the check had hidden names to look for


def test_returns() -> None:
    rules = cached_ruleset(BLOODBORNE)
    game = rules.new_game(3, seed=2)
    while not game.finished:
        p = game.waiting_for()[0]
        game.apply(0, p)
    result = game.result
    assert result is not None
    win = returns_of(game, "win", 0, 100)
    assert win == [1.0 if p in result["winners"] else 0.0 for p in range(3)]
    assert returns_of(game, "score", -1000, 1000) == [float(v) for v in result["scores"]]
    assert returns_of(game, "win", 0, 1, aborted=True) == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="score_max"):
        returns_of(game, "score", 0, min(result["scores"]) - 1 if min(result["scores"]) > 0 else -1)


# ---------------------------------------------------------------- PettingZoo

@pytest.mark.parametrize("path", ALL, ids=_ids(ALL))
def test_pettingzoo_api_test(path: str) -> None:
    env = LiturgyEnv(path, options=HARNESS_OPTIONS.get(Path(path).name))
    with warnings.catch_warnings():
        # dict observations with an action mask are PettingZoo's own convention for board games
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=200)


def test_pettingzoo_episode_is_reproducible_and_rewards_the_winners() -> None:
    def episode(seed: int) -> tuple[list[float], list[int], str]:
        env = LiturgyEnv(BLOODBORNE, players=3)
        env.reset(seed=seed)
        rng = random.Random(seed)
        rewards = {}
        actions = []
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                rewards[agent] = reward
                env.step(None)
                continue
            legal = [i for i, ok in enumerate(obs["action_mask"]) if ok]
            actions.append(rng.choice(legal))
            env.step(actions[-1])
        assert env.game is not None
        return [rewards[f"player_{p}"] for p in range(3)], actions, env.game.digest()

    first, again = episode(4), episode(4)
    assert first == again
    rules = cached_ruleset(BLOODBORNE)
    game = rules.new_game(3, seed=4)
    for a in first[1]:
        game.apply(a, game.waiting_for()[0])
    assert game.digest() == first[2]
    assert game.result is not None
    assert first[0] == [1.0 if p in game.result["winners"] else 0.0 for p in range(3)]


def test_pettingzoo_rejects_illegal_actions() -> None:
    env = LiturgyEnv(BLOODBORNE, players=3)
    env.reset(seed=1)
    with pytest.raises(ValueError, match="legal options"):
        env.step(env.max_options - 1)


def test_pettingzoo_observation_reads_only_the_view() -> None:
    """Two games that differ only in what P1 cannot see give P1 the same observation vector."""
    env = LiturgyEnv(BLOODBORNE, players=3)
    env.reset(seed=0)
    assert env.game is not None
    other = env.game.clone()
    s = other.state
    t = s.tables
    # swap two differently named cards in different zones, both hidden from P1
    hidden = [c for c in range(len(s.card_zone)) if not (card_visibility(s, c) >> 0) & 1]
    pairs = [(a, b) for a in hidden for b in hidden
             if t.card_names[a] != t.card_names[b] and s.card_zone[a] != s.card_zone[b]]
    assert pairs
    a, b = pairs[0]
    za, zb = s.card_zone[a], s.card_zone[b]
    s.zones[za][s.zones[za].index(a)] = b
    s.zones[zb][s.zones[zb].index(b)] = a
    s.card_zone[a], s.card_zone[b] = zb, za
    before = env.observe("player_0")["observation"]
    env.game = other
    after = env.observe("player_0")["observation"]
    assert (before == after).all()


# ---------------------------------------------------------------- the adapter docs run as written

@pytest.mark.parametrize("doc", ["openspiel.md", "pettingzoo.md"])
def test_adapter_doc_examples_run(doc: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    blocks = [b.split("\n", 1)[1] for b in text.split("```")[1::2] if b.startswith("python\n")]
    assert blocks
    monkeypatch.chdir(ROOT)
    for block in blocks:
        exec(compile(block, doc, "exec"), {"__name__": "doc_example"})


def test_declared_options_reach_both_adapters() -> None:
    path = str(ROOT / "docs" / "examples" / "dice_race.rules")
    short, _ = register(path, _name(path))
    sprint = pyspiel.load_game(short, {"option_length": "sprint"})
    marathon = pyspiel.load_game(short)
    assert sprint._initial.options == {"length": "sprint"} and marathon._initial.options == {}
    state = sprint.new_initial_state()
    restored = sprint.deserialize_state(state.serialize())
    assert restored._core.cg.options == {"length": "sprint"}
    with pytest.raises(ValueError, match="takes one of"):
        pyspiel.load_game(short, {"option_length": "forever"})
    env = LiturgyEnv(path, options={"length": "sprint"})
    env.reset(seed=3)
    assert env.game is not None
    assert env.game.digest() == cached_ruleset(path).new_game(2, seed=3, options={"length": "sprint"}).digest()


def test_cooperative_returns_are_all_or_nothing() -> None:
    """`winner(p)` (Lantern Keepers): under `win` the party gets 1 each or 0 each, through both adapters."""
    path = str(ROOT / "docs" / "examples" / "lantern_keepers.rules")
    short, _ = register(path, _name(path))
    game = pyspiel.load_game(short, {"players": 3})
    outcomes = set()
    rng = random.Random(5)
    for _ in range(25):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        returns = state.returns()
        assert returns in ([0.0] * 3, [1.0] * 3)
        outcomes.add(returns[0])
    assert outcomes == {0.0, 1.0}
    env = LiturgyEnv(path, players=2)
    for seed in range(10):
        env.reset(seed=seed)
        rewards = {}
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                rewards[agent] = reward
                env.step(None)
                continue
            env.step(rng.choice([i for i, ok in enumerate(obs["action_mask"]) if ok]))
        assert env.game is not None and env.game.result is not None
        want = 1.0 if env.game.result["winners"] else 0.0
        assert rewards == {"player_0": want, "player_1": want}
