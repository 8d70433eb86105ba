"""The random playout's picker (runtime/rng.py ``mt_below`` bound to ``rng.getrandbits``) draws what the stdlib's
``Random._randbelow`` draws: the same values from the same Mersenne Twister words, and the generator left in the
same state. A playout's draws are part of every seeded simulation's result, so this is checked value for value."""
import random
from types import MethodType

from conftest import ROOT, load_ruleset
from liturgy.interpreter.runtime.rng import mt_below

# small option counts (every choice of the shipped games), powers of two and their neighbours (where the rejection
# loop's odds change), and counts past 32 bits (getrandbits then takes several words per draw)
COUNTS = [*range(1, 70), 127, 128, 129, 255, 256, 257, 1000, 2**31 - 1, 2**31, 2**32, 2**32 + 1, 10**12, 2**70 + 3]


def test_the_bound_picker_draws_what_randbelow_draws_and_leaves_the_same_state() -> None:
    for seed in range(4):
        ours, theirs = random.Random(seed), random.Random(seed)
        pick = MethodType(mt_below, ours.getrandbits)
        for n in COUNTS * 3:
            assert pick(n) == theirs._randbelow(n)  # type: ignore[attr-defined]
        assert ours.getstate() == theirs.getstate()


def test_random_playout_leaves_the_drivers_rng_where_randrange_would() -> None:
    rules = load_ruleset(str(ROOT / "rulesets" / "classic" / "kuhn_poker.rules"))  # conftest's shared compile
    for seed in range(20):
        rng = random.Random(seed)
        game = rules.new_game(2, seed)
        made = game.random_playout(rng)
        again = rules.new_game(2, seed)
        ref = random.Random(seed)
        while again.state.status == "running":
            for p in again.waiting_for():
                again.apply(ref.randrange(again.option_count(p)), p)
        assert made == len(again.state.decisions)
        assert game.digest() == again.digest()
        assert rng.getstate() == ref.getstate()


def test_new_game_seeds_its_state_as_seed_state_does() -> None:
    """new_game writes rng.seed_state in place: a game seeded so plays as one given that state."""
    from liturgy.interpreter.runtime.rng import seed_state

    rules = load_ruleset(str(ROOT / "rulesets" / "classic" / "kuhn_poker.rules"))
    for seed in (0, 1, 7, 2**63, 2**64 - 1, 2**64 + 5, -1, -(2**70), 12345678901234567890123):
        game, given = rules.new_game(2, seed), rules.new_game(2, 0, rng_state=seed_state(seed))
        assert game.state.rng == given.state.rng
        game.random_playout(random.Random(seed))
        given.random_playout(random.Random(seed))
        assert game.state.rng == given.state.rng and game.state.log == given.state.log
