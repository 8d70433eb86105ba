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
from collections.abc import Callable
from dataclasses import dataclass
from types import MethodType
from typing import Any

from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.sizes import statements
from liturgy.interpreter.engine import Game
from liturgy.interpreter.engine.infosets import Tracker, WorldSampler
from liturgy.interpreter.engine.views import PLAIN_LABELS
from liturgy.interpreter.runtime.rng import mt_below

REWARDS = ("win", "score")
_INF = math.inf
_log, _sqrt = math.log, math.sqrt


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
    number of each, and the children of those labels once all exist (None before).

    ``opts`` is the pending choice's options tuple these labels were made from, when they depend on its values
    alone (numbers, players, enum values, texts: the engine labels those once per ruleset) and the ruleset's
    options are one tuple each time (a `choose` over an enum): that very tuple pending again here is these labels
    again, without asking the engine (:class:`_Walk`)."""

    __slots__ = ("labels", "distinct", "first", "kids", "opts", "fmt")

    def __init__(self, labels: tuple[str, ...]) -> None:
        self.labels = labels
        self.distinct = list(dict.fromkeys(labels))
        self.first = [labels.index(lab) for lab in self.distinct]
        self.kids: list[_Node] | None = None
        self.opts: Any = None
        self.fmt = -1


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
        # `win` rewards by winners, with their least and greatest
        self._shares: dict[tuple[int, tuple[int, ...]], tuple[list[float], float, float]] = {}
        self.decisions = 0
        self._walker = _Walk(self.rng)
        self._walk_rules: Any = None  # the ruleset _walk_ok was worked out for
        self._walk_ok = False

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
        walk = self._walker if self._walk_in_playout(game) else None
        rng = self.rng
        for _ in range(self.budget.simulations):
            self._simulate(sample(rng), root, bounds, walk)
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
    def _simulate(self, world: Game, root: _Node, bounds: list[float], walk: _Walk | None) -> None:
        """One simulation in ``world``: the tree walk, one new node, a random playout, the backup.

        With ``walk`` (a ruleset without simultaneous choices) the walk runs inside the engine's playout, ``walk``
        its picker: the same nodes, the same draws from the agent's RNG and the same final world as the loop of
        :meth:`_descend`, which is what simultaneous choices take (the engine asks their commits in another
        order than the tree names them)."""
        s = world.state
        if s.status != "running" or s.pending is None:
            path: list[_Node] = []
        elif walk is not None:
            lo, hi = bounds
            walk.node = root
            walk.path = path = []
            walk.weight = self.c * ((hi - lo) if hi > lo else 1.0)
            walk.next_choice = world.next_choice
            walk.state = s
            walk.expanded = False
            world.playout(walk.pick)
        else:
            path = self._descend(world, root, bounds)
        rewards, low, high = self._rewards(world)
        if low < bounds[0]:
            bounds[0] = low
        if high > bounds[1]:
            bounds[1] = high
        for nd in path:
            nd.visits += 1
            nd.total += rewards[nd.player]

    def _walk_in_playout(self, game: Game) -> bool:
        """Whether ``game``'s ruleset has no `simultaneously` (known once per ruleset): its walk may then run
        as the engine's picker."""
        rules = game.ruleset
        if rules is not self._walk_rules:
            self._walk_rules = rules
            self._walk_ok = not any(isinstance(st, A.Simultaneous) for st in statements(rules.program))
            self._walker.plain = [elem is not None and elem.kind in PLAIN_LABELS
                                  for elem in rules.compiled.choice_elems]
        return self._walk_ok

    def _descend(self, world: Game, root: _Node, bounds: list[float]) -> list[_Node]:
        """The tree walk, one ``apply`` per node, then a random playout: the nodes the simulation entered below
        the root."""
        node: _Node = root
        path: list[_Node] = []
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
                added = _expand(shape, children, q, rng.randrange, path)
                if added >= 0:
                    apply(added, q)
                    break
                kids = shape.kids
                assert kids is not None  # _expand made them: every label has a child
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
        return path

    def _rewards(self, world: Game) -> tuple[list[float], float, float]:
        """Each player's reward in the ended ``world`` (zeros if it did not finish), with their least and
        greatest (what the bounds of UCB1's scale take in)."""
        s = world.state
        n = s.tables.n
        result: dict[str, Any] | None = s.result
        if s.status != "finished" or result is None:
            zeros = [0.0] * n
            return zeros, 0.0, 0.0
        if self.reward == "score":
            scores = [float(x) for x in result["scores"]]
            return scores, min(scores), max(scores)
        winners = tuple(result["winners"])
        key = (n, winners)
        out = self._shares.get(key)  # a handful of outcomes: each list made once (callers only read it)
        if out is None:
            share = 1.0 / len(winners) if winners else 0.0
            rewards = [share if p in winners else 0.0 for p in range(n)]
            out = self._shares[key] = (rewards, min(rewards), max(rewards))
        return out


class _Walk:
    """The tree walk of one simulation as the engine's picker (:meth:`Game.playout`): asked for each choice while
    it is pending, it descends by UCB1 until it adds a node, then answers uniformly at random. It makes exactly
    the draws and moves of :meth:`ISMCTSAgent._descend` (``rng.randrange(n)`` is ``rng._randbelow(n)`` for a
    positive ``n``), without an ``apply`` and a return to the agent at every node. One per agent, reset by
    :meth:`ISMCTSAgent._simulate` for each simulation."""

    __slots__ = ("below", "node", "path", "weight", "next_choice", "expanded", "state", "plain")

    def __init__(self, rng: random.Random) -> None:
        # an exact Random: its _randbelow's draws without a generic lookup of getrandbits per pick (runtime/rng.py)
        self.below: Callable[[int], int] = (
            MethodType(mt_below, rng.getrandbits) if rng.__class__ is random.Random
            else rng._randbelow)  # type: ignore[attr-defined]
        self.node: _Node | None = None
        self.path: list[_Node] = []
        self.weight = 1.0
        self.next_choice: Callable[[], tuple[int, tuple[str, ...]] | None] | None = None
        self.expanded = False
        self.state: Any = None  # the world's GameState
        self.plain: list[bool] = []  # per choice format: are its labels a function of the option values alone?

    def pick(self, n: int) -> int:
        """The option number for the pending choice of ``n`` options.

        The usual case comes first: this node offered ``q`` these very labels before and every one has a child,
        so the availability counts and UCB1 go in one loop over the children (each count is raised before it is
        read, as in the two loops of :meth:`ISMCTSAgent._descend`: the same floats)."""
        if self.expanded:
            return self.below(n)
        node: _Node = self.node  # type: ignore[assignment] # set for each simulation
        pend = self.state.pending  # a `choose` (rulesets with simultaneous choices do not walk here)
        q = pend[1]
        shape = node.shapes.get(q)
        if shape is not None and shape.opts is pend[2] and shape.fmt == pend[6]:
            labels = shape.labels  # the very options these labels were made from (_Shape)
        else:
            q, labels = self.next_choice()  # type: ignore[misc] # set for each simulation
            shape = node.shapes.get(q)
        if shape is not None and shape.labels is labels and shape.kids is not None:
            kids = shape.kids
            weight = self.weight
            best = 0
            best_value = -_INF
            for i, child in enumerate(kids):
                child.avail = avail = child.avail + 1
                visits = child.visits
                value = child.total / visits + weight * _sqrt(_log(avail) / visits)
                if value > best_value:
                    best, best_value = i, value
        else:
            children = node.children.get(q)
            if children is None:
                children = node.children[q] = {}
            if shape is None or shape.labels is not labels:
                shape = node.shapes[q] = _Shape(labels)
                if self.plain[pend[6]]:
                    shape.opts, shape.fmt = pend[2], pend[6]
            made = shape.kids
            if made is None:
                added = _expand(shape, children, q, self.below, self.path)
                if added >= 0:
                    self.expanded = True
                    return added
                made = shape.kids
                assert made is not None  # _expand made them: every label has a child
            else:
                for child in made:
                    child.avail += 1
            kids = made
            best = _ucb(kids, self.weight)
        node = kids[best]
        self.node = node
        self.path.append(node)
        return shape.first[best]


def _expand(shape: _Shape, children: dict[str, _Node], q: int, draw: Callable[[int], int],
            path: list[_Node]) -> int:
    """The expansion step of both tree walks (:meth:`ISMCTSAgent._descend` and :meth:`_Walk.pick`), written once
    so the two cannot drift apart: they must make the same draws and grow the same tree.

    At a node whose labels ``shape`` do not all have a child of ``q`` yet, the available children's counts are
    raised, and one untried label is drawn (``draw(n)``: ``rng.randrange`` in the loop, ``rng._randbelow`` in the
    walk, which draw alike for ``n > 0``), given a new child appended to ``path``, and its first option number
    returned. When every label already has a child, nothing is drawn: ``shape.kids`` is set to them, in the
    labels' order, and -1 returned (the caller then picks by UCB1)."""
    distinct = shape.distinct
    untried = [lab for lab in distinct if lab not in children]
    for lab in distinct:
        seen = children.get(lab)
        if seen is not None:
            seen.avail += 1
    if untried:
        lab = untried[draw(len(untried))]
        child = children[lab] = _Node(q, 1)
        path.append(child)
        return shape.labels.index(lab)
    shape.kids = [children[lab] for lab in distinct]
    return -1


def _ucb(kids: list[_Node], weight: float) -> int:
    """The index of the child UCB1 prefers (availability counts already raised: SO-ISMCTS); the first of equals."""
    best, best_value = 0, -_INF
    for i, child in enumerate(kids):
        visits = child.visits
        value = child.total / visits + weight * _sqrt(_log(child.avail) / visits)
        if value > best_value:
            best, best_value = i, value
    return best
