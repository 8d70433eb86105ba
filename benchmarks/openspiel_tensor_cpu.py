"""OpenSpiel's observation tensor through the adapter's Python observer (``make_observation(game).set_from``, what
Python RL code calls), CPU time per tensor: every player at every decision node (chance nodes skipped, not timed)
of seeded random games, up to 400 tensors per game:

    python benchmarks/openspiel_tensor_cpu.py 2

Run it from another tree's root with that tree's Python to compare (docs/performance.md, Session 20: the
observation vector read from the state). Through C++ (``state.observation_tensor(p)``) the copy of the tensor
into a C++ vector, about 20 ns per number, dominates in the large games instead.
"""
import random
import sys
import time

import pyspiel
from liturgy.interpreter.interop.openspiel import register
from open_spiel.python.observation import make_observation

GAMES = [("rulesets/betrayal.rules", 4), ("rulesets/slay_the_spire.rules", 4), ("rulesets/fury_of_dracula.rules", 4),
         ("rulesets/bloodborne.rules", 4), ("rulesets/classic/leduc_poker.rules", 2)]


def main(games: int) -> None:
    for path, players in GAMES:
        short, _ = register(path)
        game = pyspiel.load_game(f"{short}(players={players})")
        obs = make_observation(game)
        rng = random.Random(3)
        n = 0
        cpu = 0.0
        for g in range(games):
            st = game.new_initial_state()
            steps = 0
            while not st.is_terminal() and steps < 3000 and n < 400 * (g + 1):
                steps += 1
                if st.is_chance_node():
                    st.apply_action(rng.choice(st.chance_outcomes())[0])
                    continue
                t0 = time.process_time()
                for p in range(players):
                    obs.set_from(st, p)
                    n += 1
                cpu += time.process_time() - t0
                if st.is_simultaneous_node():
                    st.apply_actions([rng.choice(st.legal_actions(p) or [0]) for p in range(players)])
                else:
                    st.apply_action(rng.choice(st.legal_actions()))
        print(f"{path.rsplit('/', 1)[-1]:22s} {n:5d} tensors  {1e6 * cpu / n:7.0f} us each", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
