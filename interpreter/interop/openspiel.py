"""Any Liturgy ruleset as an OpenSpiel game (``pyspiel``), registered by name.

:func:`register` loads a ruleset and registers two Python games with OpenSpiel:

- ``liturgy_NAME``: the ruleset as written.  Its dynamics are SIMULTANEOUS when
  the ruleset has a ``simultaneously`` choice (there, every waiting player acts
  at once in one joint action), SEQUENTIAL otherwise.
- ``liturgy_NAME_turns``: always SEQUENTIAL.  A simultaneous choice is asked of
  the waiting players one after another, lowest seat first; the engine keeps
  each commit hidden until all are in, so this is the same game with imperfect
  information, and sequential algorithms such as MCTS can play it.

Both use explicit chance (:mod:`liturgy.interpreter.engine.chance`): every shuffle
swap, ``random`` pick and die roll is a chance node with uniform outcomes.

Actions are option indices: action ``i`` is the ``i``-th legal option of the
engine's decision, so ``num_distinct_actions`` is the largest option count
(:class:`.common.Bounds`).  Observation and information-state strings are
canonical JSON of :meth:`Game.view` for that player; the information state adds
the view's log and, for each of the player's own decisions, what it saw then and what it chose (nothing about
when the other seats acted: that is only in their views when the rules make it public).  The tensors hold the
same: the observation tensor is the view as :class:`.common.ViewEncoder` encodes it, and the information-state
tensor adds the log lines and own decisions, hashed into counts (:class:`LiturgyObserver`).

Parameters (``pyspiel.load_game("liturgy_bloodborne(players=4)")``):
``players``, ``returns`` (``win`` or ``score``), ``score_min``/``score_max``
(bounds of ``score`` returns), ``max_options``/``max_chance_outcomes``
(0: the natural bounds), ``check_invariants``, and ``option_NAME`` for each
``option`` the ruleset declares ("" keeps its default).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Any

import pyspiel
from liturgy.interpreter.engine import Game, Ruleset
from liturgy.interpreter.engine.chance import CHANCE, ChanceGame
from liturgy.interpreter.engine.infosets import Knowledge, sample_world, start_zones
from liturgy.interpreter.interop.common import (
    RETURN_MODES,
    Bounds,
    ViewEncoder,
    cached_ruleset,
    has_simultaneous,
    observation_text,
    returns_of,
    ruleset_slug,
)


@dataclass(frozen=True)
class _Entry:
    path: str
    ruleset: Ruleset
    simultaneous: bool  # the dynamics of this registered name


_REGISTRY: dict[str, _Entry] = {}


def register(path: str, name: str | None = None) -> tuple[str, str]:
    """Register ``liturgy_NAME`` and ``liturgy_NAME_turns`` for the ruleset at ``path``.

    ``NAME`` defaults to the file name (``bloodborne.rules`` -> ``bloodborne``).
    Registering the same name again is a no-op; returns the two short names.
    """
    ruleset = cached_ruleset(path)
    base = name or f"liturgy_{ruleset_slug(path)}"
    names = (base, f"{base}_turns")
    sim = has_simultaneous(ruleset)
    for short, simultaneous in ((names[0], sim), (names[1], False)):
        if short in _REGISTRY:
            if _REGISTRY[short].ruleset is not ruleset:
                raise ValueError(f"{short} is already registered for {_REGISTRY[short].path}; "
                                 f"pass another name for {path}")
            continue
        _REGISTRY[short] = _Entry(path, ruleset, simultaneous)
        # A class per name, as OpenSpiel's own Python games register: OpenSpiel keeps the factory until
        # after Python has shut down, and a plain closure freed then aborts the process (a class is not freed).
        cls = type(f"LiturgyGame_{short}", (LiturgyGame,), {"short_name": short})
        pyspiel.register_game(_game_type(short, ruleset, simultaneous), cls)
    return names


def _game_type(short: str, ruleset: Ruleset, simultaneous: bool) -> pyspiel.GameType:
    dyn = pyspiel.GameType.Dynamics
    return pyspiel.GameType(
        short_name=short,
        long_name=f"Liturgy: {ruleset.name}" + ("" if simultaneous or not has_simultaneous(ruleset)
                                                 else " (simultaneous choices taken in turn)"),
        dynamics=dyn.SIMULTANEOUS if simultaneous else dyn.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=ruleset.max_players,
        min_num_players=ruleset.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            "players": ruleset.min_players,
            "returns": "win",
            "score_min": 0.0,
            "score_max": 100.0,
            "max_options": 0,
            "max_chance_outcomes": 0,
            "check_invariants": False,
            # each declared `option` of the ruleset; "" keeps the ruleset's default
            **{f"option_{name}": "" for name in ruleset.option_values()},
        },
    )


class LiturgyGame(pyspiel.Game):  # type: ignore[misc]
    """One parameterisation (player count, returns, bounds) of a registered ruleset."""

    short_name = ""  # set by each registered subclass

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        short = self.short_name
        params = params or {}
        entry = _REGISTRY[short]
        ruleset = entry.ruleset
        full = {
            "players": ruleset.min_players, "returns": "win", "score_min": 0.0, "score_max": 100.0,
            "max_options": 0, "max_chance_outcomes": 0, "check_invariants": False, **params,
        }
        players = int(full["players"])
        if not ruleset.min_players <= players <= ruleset.max_players:
            raise ValueError(f"{ruleset.name} is for {ruleset.min_players}..{ruleset.max_players} players, "
                             f"not {players}")
        mode = str(full["returns"])
        if mode not in RETURN_MODES:
            raise ValueError(f"returns must be one of {', '.join(RETURN_MODES)}, not {mode!r}")
        natural = Bounds.natural(ruleset, players)
        self.short = short
        self.ruleset = ruleset
        self.simultaneous = entry.simultaneous
        self.players = players
        self.mode = mode
        self.score_min = float(full["score_min"])
        self.score_max = float(full["score_max"])
        self.max_options = int(full["max_options"]) or natural.max_options
        self.max_chance = int(full["max_chance_outcomes"]) or natural.max_chance_outcomes
        self.check = bool(full["check_invariants"])
        self.options = {k[len("option_"):]: str(v) for k, v in full.items() if k.startswith("option_") and v}
        # a decision takes at least one engine step, and each player commits a simultaneous choice on its own
        self.max_length = ruleset.step_limit * (1 if self.simultaneous else players)
        lo, hi = (0.0, 1.0) if mode == "win" else (self.score_min, self.score_max)
        if not lo < hi:
            raise ValueError(f"score_min ({lo:g}) must be below score_max ({hi:g})")
        info = pyspiel.GameInfo(
            num_distinct_actions=self.max_options,
            max_chance_outcomes=self.max_chance,
            num_players=players,
            min_utility=lo,
            max_utility=hi,
            utility_sum=None,
            max_game_length=self.max_length,
        )
        super().__init__(_game_type(short, ruleset, self.simultaneous), info, full)
        self._initial = ChanceGame(ruleset, players, self.check, self.options)

    def new_initial_state(self) -> LiturgyState:
        return LiturgyState(self, self._initial.clone())

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> LiturgyObserver:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        return LiturgyObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
                               ViewEncoder(self.ruleset, self.players))


class _Saw:
    """What a player saw when it decided, as the digest the information state records, worked out when first read.

    Why not at once: each decision's digest hashes the player's whole view with its whole log, and most decisions
    are never read back: a search's random playouts apply action after action to states nobody asks the
    information state of (OpenSpiel's ISMCTSBot: two thirds of its CPU on Bloodborne was these digests). The game
    it was seen in is kept until then: a settled game is never changed (:class:`ChanceGame` plays each action on
    a clone of it), so the digest read later is the one the moment of the decision gave."""

    __slots__ = ("game", "player", "digest")

    def __init__(self, game: Game | None, player: int) -> None:
        self.game = game
        self.player = player
        self.digest: str | None = None

    def value(self) -> str:
        digest = self.digest
        if digest is None:
            game, player = self.game, self.player
            memo = None if game is None else _seen(game)  # the same digest whenever this player decides here
            digest = None if memo is None else memo.get(("decided", player))
            if digest is None:
                full = None if game is None else seen_view(game, player, True)
                digest = hashlib.sha256(observation_text(game, player, with_log=True, full=full).encode()
                                        ).hexdigest()[:32]
                if memo is not None:
                    memo[("decided", player)] = digest
            self.digest, self.game = digest, None  # the game is no longer needed
        return digest


# counter slots and cards of the games a state's unread digests keep alive (_Saw) at most: then they are worked
# out, so a long run nobody reads keeps a bounded number of old states (about 8 MB of slots; 29 states of Slay
# the Spire, thousands of Bloodborne's)
_UNREAD_SLOTS = 1_000_000


class _Core:
    """The Python side of a state, kept in one attribute.

    OpenSpiel clones a Python state by deep-copying its attributes and
    serialises it by pickling them.  This object makes both cheap and exact:
    a copy is :meth:`ChanceGame.clone` (no deepcopy of the ruleset), and a
    pickle is the registered name, the parameters and the history, replayed on
    load.
    """

    __slots__ = ("short", "params", "cg", "moves", "truncated", "mine", "unread")

    def __init__(self, short: str, params: dict[str, Any], cg: ChanceGame, moves: int = 0,
                 truncated: bool = False, mine: tuple[tuple[tuple[str | _Saw, int], ...], ...] | None = None,
                 unread: int = 0) -> None:
        self.short = short
        self.params = params
        self.cg = cg
        self.moves = moves  # player actions so far (a joint action counts once)
        self.truncated = truncated  # stopped at max_game_length
        # per seat, each of its own decisions: (a digest of what it saw when it decided, the option it took), the
        # digest maybe still to be worked out (_Saw; read them through :meth:`own`). Tuples, so a clone shares
        # them. The information state is built from these and the current view only: never from the history,
        # whose sequence of seats tells who acted when, even unseen.
        self.mine = mine if mine is not None else tuple(() for _ in range(int(params["players"])))
        self.unread = unread  # slots of the games the unread digests keep (_UNREAD_SLOTS)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        return _Core(self.short, self.params, self.cg.clone(), self.moves, self.truncated, self.mine, self.unread)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (self.short, self.params, self.cg.history, self.moves, self.truncated, self._read()))

    def own(self, player: int) -> tuple[tuple[str, int], ...]:
        """``player``'s own decisions: (the digest of what it saw, the option it took), each."""
        return self._read()[player]

    def _read(self) -> tuple[tuple[tuple[str, int], ...], ...]:
        """Every seat's decisions with their digests worked out (kept so, for this state and its later clones)."""
        if not self.unread:  # nothing unread (a _Saw is only ever added with its game's slots counted)
            return self.mine  # type: ignore[return-value]
        mine = tuple(tuple((seen if isinstance(seen, str) else seen.value(), action) for seen, action in moves)
                     for moves in self.mine)
        self.mine, self.unread = mine, 0
        return mine

    def decided(self, player: int, action: int) -> None:
        """Record, before it is applied, that ``player`` takes ``action`` having seen what it sees now."""
        game = self.cg.game
        memo = None if game is None else _seen(game)
        seen: str | _Saw | None = None if memo is None else memo.get(("decided", player))
        if seen is None:
            seen = _Saw(game, player)
            self.unread += 1 if game is None else len(game.state.counters) + len(game.state.card_zone)
        mine = list(self.mine)
        mine[player] = (*mine[player], (seen, action))
        self.mine = tuple(mine)
        if self.unread > _UNREAD_SLOTS:
            self._read()


def _restore(short: str, params: dict[str, Any], history: list[tuple[int, int]], moves: int,
             truncated: bool, mine: tuple[tuple[tuple[str | _Saw, int], ...], ...] | None = None) -> _Core:
    entry = _REGISTRY[short]
    cg = ChanceGame.replay(entry.ruleset, int(params["players"]), history, bool(params["check_invariants"]),
                           params["options"])
    return _Core(short, params, cg, moves, truncated, mine)


class LiturgyState(pyspiel.State):  # type: ignore[misc]
    """A game in progress, seen through OpenSpiel's State API."""

    def __init__(self, game: LiturgyGame, cg: ChanceGame) -> None:
        super().__init__(game)
        params = {"players": game.players, "check_invariants": game.check, "options": game.options}
        self._core = _Core(game.short, params, cg)

    # ------------------------------------------------------------ helpers
    def _g(self) -> LiturgyGame:
        g: LiturgyGame = self.get_game()
        return g

    def _waiting(self) -> tuple[int, ...]:
        core = self._core
        cg = core.cg
        if cg.need or core.truncated or cg.game is None or cg.game.finished:
            return ()
        return cg.game.waiting_for()

    def _options(self, player: int) -> int:
        game = self._core.cg.game
        assert game is not None
        n = game.option_count(player)
        bound = self._g().max_options
        if n > bound:
            raise ValueError(f"P{player + 1} has {n} options, more than max_options={bound}: "
                             f"load the game with a larger max_options")
        return n

    # ------------------------------------------------------------ OpenSpiel API
    def current_player(self) -> int:
        core = self._core
        if core.cg.need:
            return int(pyspiel.PlayerId.CHANCE)
        waiting = self._waiting()
        if not waiting:
            return int(pyspiel.PlayerId.TERMINAL)
        if self._g().simultaneous:
            game = core.cg.game
            assert game is not None
            pending = game.state.pending
            if pending is not None and pending[0] == "simul":
                return int(pyspiel.PlayerId.SIMULTANEOUS)
        return waiting[0]

    def _legal_actions(self, player: int) -> list[int]:
        if player < 0 or player not in self._waiting():
            return []
        if not self._g().simultaneous and player != self._waiting()[0]:
            return []
        return list(range(self._options(player)))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        n = self._core.cg.need
        bound = self._g().max_chance
        if n > bound:
            raise ValueError(f"a draw among {n} items exceeds max_chance_outcomes={bound}: "
                             f"load the game with a larger max_chance_outcomes")
        return [(k, 1.0 / n) for k in range(n)]

    def _apply_action(self, action: int) -> None:
        core = self._core
        if core.cg.need:
            core.cg.apply_chance(int(action))
            return
        player = self.current_player()
        core.decided(player, int(action))
        core.cg.apply(int(action), player)
        self._count_move()

    def _apply_actions(self, actions: list[int]) -> None:
        core = self._core
        waiting = self._waiting()
        for p in waiting:  # each records what it saw before any commit of this joint action is applied
            core.decided(p, int(actions[p]))
        for p in waiting:
            core.cg.apply(int(actions[p]), p)
            if core.cg.need:
                # only the last commit runs the step, so nothing else can be waiting now
                break
        self._count_move()

    def _count_move(self) -> None:
        core = self._core
        core.moves += 1
        if core.moves >= self._g().max_length and not core.cg.need and self._waiting():
            core.truncated = True

    def _action_to_string(self, player: int, action: int) -> str:
        cg = self._core.cg
        if player == int(pyspiel.PlayerId.CHANCE):
            return f"chance {action} of {cg.need}" if cg.need else f"chance {action}"
        game = cg.game
        d = game.decision if game is not None and not cg.need else None
        if d is not None and player in d.options and 0 <= action < len(d.options[player]):
            return f"{action}: {d.options[player][action]}"
        return f"{action}"

    def is_terminal(self) -> bool:
        cg = self._core.cg
        return not cg.need and (self._core.truncated or cg.finished or (cg.game is not None and not self._waiting()))

    def returns(self) -> list[float]:
        g = self._g()
        game = self._core.cg.game
        if not self.is_terminal() or game is None:
            return [0.0] * g.players
        return returns_of(game, g.mode, g.score_min, g.score_max, aborted=self._core.truncated)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> LiturgyState:
        """A state ``player_id`` cannot tell apart from this one (the same information-state string), drawn from
        its information set by :meth:`Game.sample_world`: what OpenSpiel's ``ISMCTSBot`` asks for at each
        simulation. ``probability_sampler`` (uniform in [0, 1)) seeds the draw. The history (who acted, the
        player's own choices) is kept; at a chance node, before setup or at the end there is nothing to draw."""
        clone: LiturgyState = self.clone()
        cg = self._core.cg
        game = cg.game
        if cg.need or game is None or game.finished or not 0 <= player_id < game.players:
            return clone
        seed = int(float(probability_sampler()) * (1 << 53)) << 53 | int(float(probability_sampler()) * (1 << 53))
        world = sample_world(game, player_id, random.Random(seed), _knowledge(cg, player_id))
        world.state.rng = 0  # between steps, as every settled game here: each step draws through the chance script
        clone._core.cg.game = world
        return clone

    def __str__(self) -> str:
        """The full state, for debugging: a digest of the engine state plus where the game is."""
        cg = self._core.cg
        game = cg.game
        where = "setup" if game is None else _where(game)
        if cg.need:
            return f"{where}; chance node over {cg.need} outcomes after {len(cg.history)} actions"
        return f"{where}; {len(cg.history)} actions; status {game.state.status if game else 'setup'}"


# what each player knew at the histories resampled lately: ISMCTS resamples one root state many times
_KNOWN: dict[tuple[Any, ...], Knowledge] = {}
_KNOWN_LIMIT = 64


def _knowledge(cg: ChanceGame, player: int) -> Knowledge:
    """What ``player`` has seen of ``cg``'s game: its history replayed, observed at every settled point."""
    key = (id(cg.ruleset), cg.players, tuple(sorted(cg.options.items())), tuple(cg.history), player)
    known = _KNOWN.get(key)
    if known is not None:
        return known
    replay = ChanceGame(cg.ruleset, cg.players, False, cg.options)
    assert cg.game is not None  # only settled games are resampled
    known = Knowledge(player, start_zones(cg.ruleset, cg.players, cg.game.options))
    if replay.game is not None and not replay.need:
        known.observe(replay.game)
    for who, value in cg.history:
        if who == CHANCE:
            replay.apply_chance(int(value))
        else:
            replay.apply(int(value), int(who))
        if not replay.need and replay.game is not None:
            known.observe(replay.game)
    if len(_KNOWN) >= _KNOWN_LIMIT:
        _KNOWN.pop(next(iter(_KNOWN)))
    _KNOWN[key] = known
    return known


# buckets of the information-state tensor's recall part (log lines and own decisions, hashed)
RECALL_BUCKETS = 256


class LiturgyObserver:
    """Observation and information-state strings and tensors, built from :meth:`Game.view` only.

    The observation tensor is the player's view as :class:`.common.ViewEncoder` encodes it (read from the state by
    the view's own visibility rules, :meth:`.common.ViewEncoder.encode_game`: the same bytes, without building the
    view). The information-state tensor adds what the player recalls, exactly the parts of the information-state
    string beyond the view: its log lines and, for each of its own decisions, a digest of what it saw then and the
    option it took. Those are as many as the game is long, so they are hashed (each with its position) into
    ``RECALL_BUCKETS`` counts, followed by how many log lines and own decisions there are. The tensor is a function
    of the string: two histories the player cannot tell apart give equal tensors; two it can tell apart almost
    always differ (a hash collision that also keeps both counts equal is the exception)."""

    def __init__(self, iig_obs_type: Any, encoder: ViewEncoder) -> None:
        import numpy as np

        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.public_only = iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        self.encoder = encoder
        recall = RECALL_BUCKETS + 2 if self.perfect_recall else 0
        self.tensor = np.zeros(encoder.size + recall, dtype=np.float32)
        self.dict: dict[str, Any] = {"view": self.tensor[:encoder.size]}
        if recall:
            self.dict["recall"] = self.tensor[encoder.size:encoder.size + RECALL_BUCKETS]
            self.dict["counts"] = self.tensor[encoder.size + RECALL_BUCKETS:]

    def set_from(self, state: LiturgyState, player: int) -> None:
        """Fill the tensor in place (OpenSpiel reads it after each call)."""
        viewer = None if self.public_only else player
        game: Game | None = state._core.cg.game
        self.tensor.fill(0.0)
        if game is None:  # setup still drawing: nothing is visible yet
            return
        memo = _seen(game)
        encoded = memo.get(("encoded", viewer, id(self.encoder)))
        if encoded is None or encoded[0] is not self.encoder:
            encoded = memo[("encoded", viewer, id(self.encoder))] = (
                self.encoder, self.encoder.encode_game(game, viewer))
        self.dict["view"][:] = encoded[1]
        if not self.perfect_recall:
            return
        recall = self.dict["recall"]
        buckets = memo.get(("log buckets", viewer))
        if buckets is None:
            lines = seen_view(game, viewer, True)["log"]
            buckets = memo[("log buckets", viewer)] = [_bucket(f"log {i} {line}") for i, line in enumerate(lines)]
        for b in buckets:
            recall[b] += 1
        mine = state._core.own(player) if viewer is not None else ()
        for k, (seen, action) in enumerate(mine):
            recall[_bucket(f"move {k} {seen} {action}")] += 1
        self.dict["counts"][:] = (len(buckets), len(mine))

    def string_from(self, state: LiturgyState, player: int) -> str:
        cg = state._core.cg
        viewer = None if self.public_only else player
        game: Game | None = cg.game
        extra: dict[str, Any] = {}
        if cg.need:
            extra["chance"] = "resolving the last action"
        if state._core.truncated:
            extra["truncated"] = True
        if self.perfect_recall and viewer is not None:
            # exactly what this player observed: its view now (with its log) and, for each of its own decisions,
            # what it saw then (a digest of that view) and the option it took. Not who else acted when: in a
            # game where a player acts several times unseen, that sequence tells the others how often.
            extra["my_moves"] = [[seen, action] for seen, action in state._core.own(player)]
        return observation_text(game, viewer, with_log=self.perfect_recall, extra=extra,
                                full=None if game is None else seen_view(game, viewer, self.perfect_recall))


# ---------------------------------------------------------------- what a settled game shows, worked out once
# Why: OpenSpiel asks each state, for each player, its observation and information-state strings and tensors,
# and each decision records a digest of what its player saw (_Core.decided): five renderings of one view at
# every step, each with the whole log for perfect recall, and clones of a state ask again. Each answer is a
# function of the settled game alone, and a ChanceGame never changes a settled game (an action plays on a clone
# of it; clones of a state share it; a resampled world is a new game), so a game's view per viewer, its encoded
# tensor and its log lines' recall buckets are worked out once per game object and reused while it is kept.
_SEEN: dict[int, tuple[Game, dict[Any, Any]]] = {}
_SEEN_KEPT = 32  # games kept (the game itself too, so an id is never reused while its entry is here)


def _seen(game: Game) -> dict[Any, Any]:
    """What has been worked out of settled ``game`` so far (see above)."""
    got = _SEEN.get(id(game))
    if got is None or got[0] is not game:
        if len(_SEEN) >= _SEEN_KEPT:
            _SEEN.pop(next(iter(_SEEN)))
        got = _SEEN[id(game)] = (game, {})
    return got[1]


def seen_view(game: Game, viewer: int | None, with_log: bool) -> dict[str, Any]:
    """``viewer``'s view of settled ``game``, made once per game (read it, never change it): with its whole log,
    or (``with_log`` False, and unless the whole one was made already) with none of it rendered, which is all the
    tensor and the observation string without recall read (rendering every line at every step made long games
    quadratic: docs/performance.md, Session 18)."""
    memo = _seen(game)
    view: dict[str, Any] | None = memo.get(("view", viewer))
    if view is not None:
        return view
    if with_log:
        view = memo[("view", viewer)] = game.view(viewer)
        return view
    view = memo.get(("bare view", viewer))
    if view is None:
        view = memo[("bare view", viewer)] = game.view(viewer, log_from=len(game.state.log))
    return view


def _where(game: Game) -> str:
    """Where settled ``game`` is and its digest's head, made once per game (see above): random_sim_test prints
    every state several times, and a digest hashes the whole state (Slay the Spire: over 1 ms each)."""
    memo = _seen(game)
    where: str | None = memo.get("where")
    if where is None:
        where = memo["where"] = f"{game.position()}, digest {game.digest()[:16]}"
    return where


def _bucket(text: str) -> int:
    """A stable bucket for one recalled item (not Python's salted ``hash``: tensors must not vary by process)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big") % RECALL_BUCKETS
