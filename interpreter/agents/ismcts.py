"""A fair search agent: information-set Monte Carlo tree search (single-observer ISMCTS) over sampled worlds.

Why it is fair: it never searches the real game. Each simulation starts from a world drawn from the deciding
player's information set (:meth:`Game.sample_world`: the hidden cards' possible placements given what that
player has seen, a fresh RNG, other players' hidden commits redrawn), so hidden hands, the deck's order and
future dice are as unknown to it as to a person in that seat. The agent reads the real game only through what
``sample_world`` keeps (the player's view, log and options) and to follow the player's own observations
(:class:`~liturgy.interpreter.engine.infosets.Tracker`).

The search (Cowling, Powley and Whitehouse 2012, SO-ISMCTS): one tree whose edges are (player, option label)
pairs; a simulation descends the tree in its sampled world, choosing among the options available *in that
world* by UCB1 with availability counts, adds one node, plays the rest at random and backs up every player's
reward. Labels, not option numbers, name the edges: "Strike" is the same move in every world, option 3 is not.
Rewards are each player's share of the win (``win``) or its score (``score``, scaled by the range seen so far).
The chosen move is the root's most visited option.

The budget per decision is a number of simulations or milliseconds (``ismcts:200``, ``ismcts:50ms``); a decision
with one option costs nothing.
"""

from __future__ import annotations

import math
import os
import random
import time
from dataclasses import dataclass
from typing import Any

from liturgy.interpreter.engine import Game
from liturgy.interpreter.engine.infosets import Tracker, WorldSampler

REWARDS = ("win", "score")


class _Node:
    """A tree node: statistics of the edge into it (visits, availability, the reward total of the player who chose
    it), and its children by player, then label.

    ``shapes[q]`` remembers the last option labels ``q`` was offered here (the very tuple: the engine hands out one
    tuple per set of plain labels), with the distinct labels, the first option number of each, and, once every
    one has a child, those children in the same order: in most simulations a node is offered what it was offered
    before, and then nothing about the labels is worked out again. Slots, not a dataclass: a search makes and
    reads these in its innermost loop."""

    __slots__ = ("player", "visits", "avail", "total", "children", "shapes")

    def __init__(self, player: int, avail: int) -> None:
        self.player = player
        self.visits = 0
        self.avail = avail
        # the reward of ``player`` (who chose the edge into this node) summed over its visits: the only player
        # whose total UCB1 reads here
        self.total = 0.0
        self.children: dict[int, dict[str, _Node]] = {}
        self.shapes: dict[int, _Shape] = {}


class _Shape:
    """One set of option labels as a node saw it (:class:`_Node`): the tuple, its distinct labels, the option
    number of each, and the children of those labels once all exist (None before)."""

    __slots__ = ("labels", "distinct", "first", "kids")

    def __init__(self, labels: tuple[str, ...]) -> None:
        self.labels = labels
        self.distinct = list(dict.fromkeys(labels))
        self.first = [labels.index(lab) for lab in self.distinct]
        self.kids: list[_Node] | None = None


@dataclass
class Budget:
    """Simulations per decision, or a time limit in milliseconds (then ``simulations`` is a cap)."""

    simulations: int = 200
    millis: float | None = None

    @staticmethod
    def parse(spec: str) -> tuple[Budget, str]:
        """``ismcts``, ``ismcts:N``, ``ismcts:Nms``, each optionally ``:score``: the budget and reward mode."""
        parts = spec.split(":")
        if parts[0] != "ismcts":
            raise ValueError(f"not an ismcts seat: {spec!r}")
        budget, reward = Budget(), "win"
        for part in parts[1:]:
            if part in REWARDS:
                reward = part
            elif part.endswith("ms") and part[:-2].isdigit() and 0 < int(part[:-2]) <= 600_000:
                budget = Budget(simulations=1_000_000, millis=float(part[:-2]))
            elif part.isdigit() and 0 < int(part) <= 1_000_000:
                budget = Budget(simulations=int(part))
            else:
                raise ValueError(f"ismcts seat {spec!r}: write ismcts, ismcts:N (simulations, 1..1000000), "
                                 f"ismcts:Nms (milliseconds) and optionally :score")
        return budget, reward


class ISMCTSAgent:
    """Chooses by ISMCTS from its seat's information set (module doc). ``seed`` None draws one from the
    operating system: a bot's randomness is its own, never derived from the game's seed."""

    def __init__(self, budget: Budget | None = None, seed: int | None = None, reward: str = "win",
                 exploration: float = 0.7) -> None:
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        self.budget = budget or Budget()
        self.rng = random.Random(seed if seed is not None else int.from_bytes(os.urandom(8), "little"))
        self.reward = reward
        self.c = exploration
        self.trackers: dict[int, Tracker] = {}
        self.simulations = 0  # over every decision so far (for speed reports)
        self._shares: dict[tuple[int, tuple[int, ...]], list[float]] = {}  # `win` rewards by winners
        self.decisions = 0

    def choose(self, game: Game, player: int) -> int:
        d = game.decision
        assert d is not None and player in d.options  # agents are asked only for a waiting player
        labels = d.options[player]
        if len(labels) == 1:
            return 0
        tracker = self.trackers.get(player)
        if tracker is None:
            tracker = self.trackers[player] = Tracker(player)
        know = tracker.follow(game)
        root = _Node(-1, 0)
        bounds = [math.inf, -math.inf]
        deadline = None if self.budget.millis is None else time.perf_counter() + self.budget.millis / 1000
        sample = WorldSampler(game, player, know)  # the hidden places worked out once for every simulation
        for _ in range(self.budget.simulations):
            world = sample(self.rng)
            self._simulate(world, root, bounds)
            self.simulations += 1
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.decisions += 1
        mine = [(child.visits, label) for label, child in root.children.get(player, {}).items()]
        if not mine:
            return self.rng.randrange(len(labels))
        best = max(mine)[1]
        return labels.index(best) if best in labels else self.rng.randrange(len(labels))

    # ------------------------------------------------------------ one simulation
    def _simulate(self, world: Game, root: _Node, bounds: list[float]) -> None:
        node, path = root, [root]
        rng = self.rng
        next_choice, apply = world.next_choice, world.apply
        log, sqrt = math.log, math.sqrt
        s = world.state
        while s.status == "running":
            nxt = next_choice()  # decision.players[0] and its labels, without the prompt
            if nxt is None:
                break
            q, labels = nxt
            children = node.children.get(q)
            if children is None:
                children = node.children[q] = {}
            shape = node.shapes.get(q)
            if shape is None or shape.labels is not labels:
                shape = node.shapes[q] = _Shape(labels)
            kids = shape.kids
            if kids is None:
                distinct = shape.distinct
                untried = [lab for lab in distinct if lab not in children]
                for lab in distinct:
                    child = children.get(lab)
                    if child is not None:
                        child.avail += 1
                if untried:
                    lab = untried[rng.randrange(len(untried))]
                    child = children[lab] = _Node(q, 1)
                    apply(labels.index(lab), q)
                    path.append(child)
                    break
                kids = shape.kids = [children[lab] for lab in distinct]
            else:
                for child in kids:
                    child.avail += 1
            # UCB1 over the options available in this world, with availability counts (SO-ISMCTS)
            lo, hi = bounds
            weight = self.c * ((hi - lo) if hi > lo else 1.0)
            best, best_value = 0, -math.inf
            for i, child in enumerate(kids):
                visits = child.visits
                value = child.total / visits + weight * sqrt(log(child.avail) / visits)
                if value > best_value:
                    best, best_value = i, value
            node = kids[best]
            path.append(node)
            apply(shape.first[best], q)
        if s.status == "running" and s.pending is not None:
            world.random_playout(rng)
        rewards = self._rewards(world)
        lo, hi = bounds
        bounds[0], bounds[1] = min(lo, *rewards), max(hi, *rewards)
        for nd in path[1:]:
            nd.visits += 1
            nd.total += rewards[nd.player]

    def _rewards(self, world: Game) -> list[float]:
        s = world.state
        n = s.tables.n
        result: dict[str, Any] | None = s.result
        if s.status != "finished" or result is None:
            return [0.0] * n
        if self.reward == "score":
            return [float(x) for x in result["scores"]]
        winners = tuple(result["winners"])
        key = (n, winners)
        rewards = self._shares.get(key)  # a handful of outcomes: each list made once (callers only read it)
        if rewards is None:
            share = 1.0 / len(winners) if winners else 0.0
            rewards = self._shares[key] = [share if p in winners else 0.0 for p in range(n)]
        return rewards
