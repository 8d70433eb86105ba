"""Any Liturgy ruleset as a PettingZoo AEC environment.

    env = LiturgyEnv("rulesets/bloodborne.rules", players=3)
    env.reset(seed=7)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

Agents are ``player_0`` .. ``player_{n-1}`` (seat P1 is ``player_0``).  The
agent to act is the engine's deciding player; at a simultaneous choice the
waiting players act one after another, lowest seat first, and the engine keeps
each commit hidden until all are in.  The game's own seeded RNG resolves
shuffles and dice (no chance agent): ``reset(seed=s)`` gives game ``s``; ``reset()`` without a seed draws one from
the operating system (a seed anyone can guess decides every hidden card).

An action is an option index (``Discrete(max_options)``, see
:class:`.common.Bounds`); ``observation["action_mask"]`` marks the legal ones.
``observation["observation"]`` is a :class:`.common.ViewEncoder` vector of the
agent's own view; ``info["view"]`` would be heavy, so the text view is
available as :meth:`LiturgyEnv.view_text`.  Rewards are given once, at the
end: the returns of :func:`.common.returns_of`.  A game that ends by a rule
error or the step limit is *truncated* rather than terminated.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from gymnasium import spaces
from liturgy.interpreter.engine import Game
from liturgy.interpreter.interop.common import (
    RETURN_MODES,
    Bounds,
    ViewEncoder,
    cached_ruleset,
    observation_text,
    returns_of,
    ruleset_slug,
)
from pettingzoo import AECEnv


class LiturgyEnv(AECEnv):  # type: ignore[misc]
    """An AEC environment for one ruleset and player count."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "liturgy", "is_parallelizable": False}

    def __init__(self, ruleset: str, players: int | None = None, *, returns: str = "win",
                 score_min: float = 0.0, score_max: float = 100.0, max_options: int = 0,
                 check_invariants: bool = False, options: dict[str, str] | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        rules = cached_ruleset(ruleset)
        n = rules.min_players if players is None else players
        if not rules.min_players <= n <= rules.max_players:
            raise ValueError(f"{rules.name} is for {rules.min_players}..{rules.max_players} players, not {n}")
        if returns not in RETURN_MODES:
            raise ValueError(f"returns must be one of {', '.join(RETURN_MODES)}, not {returns!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.metadata = {**self.metadata, "name": f"liturgy_{ruleset_slug(ruleset)}"}
        self.rules = rules
        self.players = n
        self.returns_mode = returns
        self.score_min, self.score_max = score_min, score_max
        self.check = check_invariants
        self.options = rules.resolve_options(options)  # the ruleset's declared `option`s
        self.render_mode = render_mode
        self.max_options = max_options or Bounds.natural(rules, n).max_options
        self.encoder = ViewEncoder(rules, n)
        self.possible_agents = [f"player_{p}" for p in range(n)]
        self._index = {a: p for p, a in enumerate(self.possible_agents)}
        self._action_spaces = {a: spaces.Discrete(self.max_options) for a in self.possible_agents}
        self._observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(-np.inf, np.inf, (self.encoder.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self.max_options,), np.int8),
            })
            for a in self.possible_agents
        }
        self.game: Game | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_spaces[agent]

    # ------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None:  # the caller's seed per episode, else the operating system's: never 0, 1, 2… in order
            seed = int.from_bytes(os.urandom(8), "little")
        self.game = self.rules.new_game(self.players, seed=seed, check_invariants=self.check, options=self.options)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._settle()

    def _settle(self) -> None:
        """Select the deciding agent, or end the episode for everyone."""
        game = self.game
        assert game is not None
        if not game.finished:
            self.agent_selection = self.possible_agents[game.waiting_for()[0]]
            return
        aborted = game.state.status != "finished"
        values = returns_of(game, self.returns_mode, self.score_min, self.score_max, aborted=aborted)
        self.rewards = {a: values[self._index[a]] for a in self.agents}
        if aborted:
            self.truncations = dict.fromkeys(self.agents, True)
            for a in self.agents:
                self.infos[a] = {"error": game.error}
        else:
            self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self.agent_selection = self.agents[0]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        assert game is not None
        p = self._index[agent]
        if action is None or not 0 <= int(action) < game.option_count(p):
            raise ValueError(f"{agent} chose {action!r}; legal options are 0..{game.option_count(p) - 1}")
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards[agent] = 0.0
        game.apply(int(action), p)
        self._settle()
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------ observing
    def observe(self, agent: str) -> dict[str, Any]:
        game = self.game
        assert game is not None
        p = self._index[agent]
        mask = np.zeros(self.max_options, dtype=np.int8)
        n = game.option_count(p) if p in game.waiting_for() else 0
        if n > self.max_options:
            raise ValueError(f"{agent} has {n} options, more than max_options={self.max_options}: "
                             "create the environment with a larger max_options")
        mask[:n] = 1
        return {"observation": self.encoder.encode_game(game, p), "action_mask": mask}

    def view_text(self, agent: str | None = None) -> str:
        """The agent's view (None: a spectator's) as canonical JSON, log included."""
        return observation_text(self.game, None if agent is None else self._index[agent], with_log=True)

    def render(self) -> str | None:
        """The spectator's view: the public log and everything public."""
        if self.render_mode is None or self.game is None:
            return None
        text = "\n".join(self.game.log_lines(None)[-10:])
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.game = None
