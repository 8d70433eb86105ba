"""The engine: a step function over compiled rulesets.

``Game`` runs the compiled step machine until a player must decide, then
exposes a :class:`Decision`.  ``apply`` records the choice and continues.
Simultaneous choices are collected hidden and revealed together once every
chooser has committed.  The state is plain data (see :mod:`.state`), so a game
can be cloned, saved to JSON and loaded at any decision point.
"""


from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from types import MethodType as _Bound
from typing import TYPE_CHECKING, Any, NoReturn

import orjson
from liturgy.interpreter.compiler.code import ROUND_SLOT, UNITS
from liturgy.interpreter.engine import checkpick
from liturgy.interpreter.engine.seal import seal, sealed_text, tuples_only, with_seal
from liturgy.interpreter.engine.views import GameViews, open_entry, waiting_players
from liturgy.interpreter.runtime import certgen, checkgen, invariants
from liturgy.interpreter.runtime import digest as digestmod
from liturgy.interpreter.runtime.errors import (
    GAME_ENDED,
    GameOver,
    IllegalChoice,
    InvariantViolation,
    RuleError,
    SkipTo,
    StepLimitError,
)
from liturgy.interpreter.runtime.rng import mt_below
from liturgy.interpreter.runtime.state import GameState, thaw

if TYPE_CHECKING:
    from liturgy.interpreter.engine.checkpick import CheckedPicks
    from liturgy.interpreter.engine.infosets import Knowledge
    from liturgy.interpreter.engine.ruleset import Ruleset

# The version of the JSON save format (Game.to_json, Ruleset.load_game).
SAVE_FORMAT = 1

def uniform_picker(rng: random.Random) -> Callable[[int], int]:
    """``rng.randrange`` for option counts (always >= 1), minus its argument checks when that is exact.

    ``Random.randrange(n)`` with an int ``n > 0`` returns ``self._randbelow(n)``; a subclass that
    overrides ``randrange`` keeps it.
    """
    below = getattr(rng, "_randbelow", None)
    if type(rng).randrange is random.Random.randrange and below is not None:
        return below  # type: ignore[no-any-return]
    return rng.randrange



def _no_entry(per: Any, chooser: int) -> NoReturn:
    """Raise why ``chooser`` has no open entry in the simultaneous choice ``per``: chosen already, or not asked.

    A function of its own, not a generator inside ``Game.apply``: a generator reading ``chooser`` there made it a
    cell for every call of ``apply`` (a cell object at each entry, each read through it), an error path costing
    the common one."""
    if any(p == chooser for p, _ in per):
        raise IllegalChoice(f"P{chooser + 1} has already chosen")
    raise IllegalChoice(f"P{chooser + 1} has no choice to make now")


def _plain_int(value: Any, what: str) -> int:
    """``value`` as an exact ``int``: an ``int`` subclass could rig its comparisons (``0 <= x < n`` true for
    any index) and reach the state before failing, so only its plain integer value is ever used."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise IllegalChoice(f"{what}, not a {type(value).__name__}")
    return int.__int__(value)

# range(n) for the step loop's usual counts of fused calls, made once: Python 3.11 builds a range through generic
# number arithmetic (its length), which cost more than the loop's own work in a short game (two loops a Kuhn
# playout: about 0.7 % of its instructions); a range object is immutable, so one serves every loop
_MADE = 256
_RANGES = tuple(range(n) for n in range(_MADE))


class Game(GameViews):
    """One game in progress."""

    def __init__(self, ruleset: Ruleset, state: GameState, seed: int, check_invariants: bool,
                 options: dict[str, str] | None = None) -> None:
        # Ruleset.new_game makes its games without this call and sets these same attributes in this order (as
        # clone below does): an attribute added here is added there too (tests/test_new_game_playout.py checks)
        self.ruleset = ruleset
        self.state = state
        self.seed = seed
        self.check = check_invariants
        # the options given to new_game (the rest keep their declared defaults); logs record them for replay. Taken
        # here rather than set after: new_game's own dictionary, not a second one made and dropped per game
        self.options: dict[str, str] = {} if options is None else options
        # the last state whose built-in invariants held, for incremental checks (see violations)
        self._certified: invariants.Certified | None = None
        # no float anywhere in the state (the engine never writes one): the digest may then use its fast encoder
        # (interpreter/digest.py). None for a loaded save until its first digest looks (walking a large state
        # at every load would cost more than the load itself)
        self.float_free: bool | None = True
        # the lines of the log known to hold no Python list (engine/seal.py's tuples_only: what a seal needs)
        self.log_plain = 0

    # ------------------------------------------------------------ running
    def _advance(self, pick: Callable[[int], int] | None = None,  # noqa: C901 - the hot step loop
                 picks: CheckedPicks | None = None) -> None:
        """Run the step machine until a player must decide, the game ends, or a rule fails.

        With ``pick`` (``random_playout``), a suspension does not leave the loop: after the
        invariant check the engine asks ``pick(option count)`` for every waiting chooser, in the
        order the apply loop would, writes the picks back and runs on, to the end of the game.
        ``picks``: a checked playout's picks in the fused code (engine/checkpick.py): their failed check is this one's.
        """
        s = self.state
        stop = self.ruleset.step_limit + 2
        span = self.ruleset.compiled.fuse_span
        frames = s.frames
        # picking in place (``pick`` given), inside the loop below; a checked game checks its invariants there
        # first (nothing the check reads lags behind: only ``s.steps`` is settled after the loop, and no invariant
        # reads it)
        check = self.check
        # `end game` (GameOver) is caught where the instructions run and the game is scored after the loop, not
        # raised again through this frame: one game in a playout ends so, and a re-raise costs a traceback entry.
        # A fused call whose own body ran the `end game` returns GAME_ENDED instead (no exception at all)
        over = False
        try:
            while True:
                calls = (stop - 2 - s.steps) // span if span else 0
                if calls > 0:
                    # Far from the step limit: the fused instructions (interpreter/fuse.py). Each runs at
                    # most ``span`` original ones and returns how many more than one (True: suspended),
                    # so ``calls`` of them cannot pass the limit; near it, the loop below single-steps.
                    extra = i = 0
                    try:
                        for i in _RANGES[calls] if calls < _MADE else range(calls):  # noqa: B007 - read after
                            fr = frames[-1]
                            r = fr[0].fast[fr[1]](s, fr)
                            if r:
                                if r is True:
                                    if pick is None:
                                        break
                                    # A suspended call ran no instruction: take back its turn of the loop
                                    # (``i`` counts it), pick, and run on. A violation stops the game with
                                    # the step count the check after the loop would have seen.
                                    # (not _check_invariants: a frame). Where the fused code's own check
                                    # failed (a checked playout, checkpick.py), its outcome
                                    if check and (bad := self.violations() if picks is None or picks.failed is None
                                                  else picks.outcome()):
                                        raise InvariantViolation(*bad[0])
                                    extra -= 1
                                    pend = s.pending
                                    if pend[0] == "choose":  # type: ignore[index] # a suspension always leaves one
                                        # _pick's first case, written here: most decisions of a playout are
                                        # one player's, and the call was a fifth of the loop's cost per pick.
                                        # The frame that suspended is the top one: a fused call may have run
                                        # through a `do` into the callee's `choose` (interpreter/codegen/fuse.py)
                                        _, p, options, var, body_pc, end_pc, _ = pend  # type: ignore[misc]
                                        choice = pick(len(options))
                                        value = options[choice]
                                        fr = frames[-1]
                                        fr[2][var] = value
                                        fr[1] = end_pc if value is None else body_pc
                                        s.pending = None
                                        s.decisions.append((p, choice))
                                    else:
                                        # _pick's simultaneous case, written here too (Bloodborne's hunters, a
                                        # Goofspiel bid; the call and its re-reads cost 700 bytecodes a
                                        # Bloodborne game): when nobody has committed and each entry is a
                                        # player's own (no `by`), every entry is picked in the list's order,
                                        # its decision recorded before the next pick, exactly as _pick does,
                                        # and the (player, option) pairs are bound at once; any other case
                                        # is _pick's
                                        _, per, key, next_pc, _ = pend  # type: ignore[misc]
                                        fr = frames[-1]
                                        env = fr[2]
                                        if s.commits or key + UNITS in env:
                                            self._pick(pick)
                                            continue
                                        chosen = []
                                        decisions = s.decisions
                                        for p, options in per:
                                            choice = pick(len(options))
                                            decisions.append((p, choice))
                                            chosen.append((p, options[choice]))
                                        env[key] = (tuple(chosen), 0)
                                        fr[1] = next_pc
                                        s.pending = None
                                    continue
                                if r is GAME_ENDED:  # `end game` in the call's own body: its steps are counted
                                    over = True
                                    break
                                extra += r
                        else:
                            i = calls
                    except SkipTo as skip:
                        s.steps += i + extra
                        del frames[1:]
                        frames[0][1] = skip.pc
                        continue
                    except GameOver:
                        s.steps += i + extra
                        over = True
                        break
                    except BaseException:
                        s.steps += i + extra
                        raise
                    s.steps += i + extra
                    if over:
                        break
                    if i == calls:
                        continue
                    if self.check:
                        self._check_invariants()
                    if pick is None:
                        return
                    self._pick(pick)
                    continue
                # Count the instructions that ran to completion (a suspension is not a step).
                # ``steps`` runs one ahead of the count while an instruction runs.
                first = steps = s.steps + 1
                try:
                    for steps in range(first, stop):  # noqa: B007 - read after the loop, and on errors
                        fr = frames[-1]
                        if fr[0].ins[fr[1]](s, fr):
                            break
                    else:
                        steps = stop  # one past the limit: the last instruction exceeded it
                except SkipTo as skip:
                    s.steps = steps - 1
                    del frames[1:]
                    frames[0][1] = skip.pc
                    continue
                except GameOver:
                    s.steps = steps - 1
                    over = True
                    break
                except BaseException:
                    s.steps = steps - 1
                    raise
                s.steps = steps - 1
                if steps == stop:
                    raise StepLimitError(
                        f"the game passed its step limit of {stop - 2} steps (game step_limit) "
                        f"in {self.position()}")
                if self.check:
                    self._check_invariants()
                if pick is None:
                    return
                self._pick(pick)
        except GameOver:  # not raised outside the loops above, which catch it: kept as the last word (scored below)
            over = True
        except RuleError as err:
            s.status = "aborted"
            s.error = f"{err} [{self.position()}]" if not isinstance(err, StepLimitError) else str(err)
            s.pending = None
        except RecursionError:
            s.status = "aborted"
            s.error = f"effects nest too deeply (a recursive procedure or trigger?) [{self.position()}]"
            s.pending = None
        except MemoryError:  # the budgets (runtime/budget.py) should stop a game long before; a last guard
            s.status = "aborted"
            s.error = f"the game ran out of memory (a budget too large for this machine?) [{self.position()}]"
            s.pending = None
        except (TypeError, KeyError, IndexError, AttributeError, ValueError, ZeroDivisionError) as err:
            # A ruleset the checker accepted reached a case the engine cannot run.
            # Stop the game with its position instead of a traceback; this is a bug to report.
            s.status = "aborted"
            s.error = f"internal error ({type(err).__name__}: {err}) [{self.position()}]"
            s.pending = None
        # `end game` was reached: score the game (``result``, status "finished" and the last log line), then check
        # the invariants on the final state. Written here, not called (it was two methods, ``_game_over`` calling
        # ``_finish``): every random playout ends here, and each Python call was about 0.45 % of a Kuhn poker
        # playout (docs/performance.md, Session 24). What scoring raises is handled by the handlers below alone,
        # exactly as when it was a call; their ``return`` ends this method as the call's did. The common case (no
        # `tiebreak`, no `winner`, players' scores compared alone) builds no key tuples and, when one player has
        # the best score, finds them with ``count`` and ``index`` instead of a comprehension (a call in this
        # Python). The functions run in the order they always did (finish, scores, tiebreaks, winner, reports):
        # each may read or spend the state's work budget, so the order is part of the result.
        if not over:
            return
        try:
            comp = self.ruleset.compiled
            # emptied in place, not replaced by a new list: ``frames`` is ``s.frames`` (only new_game and a save's
            # load bind it), and the playout then frees no list and makes none
            frames.clear()
            s.pending = None
            if self.ruleset.has_finish:  # most rulesets have no `finish` block: its empty function is not called
                comp.finish(s, {})  # type: ignore[misc] # a compiled ruleset always has its finish function
            players = s.tables.players
            every = comp.score_all
            tiebreaks: list[list[Any]]
            if every is not None:  # every player's score in one generated call (codegen/scoregen.py)
                scores = every(s, players)
                tiebreaks = []
                for _ in players:
                    tiebreaks.append([])
            elif (parts := comp.score_parts) is not None:
                body, var = parts  # what comp.score(s, {"player": p}) computes, without its call and dictionary
                # one loop here rather than a comprehension (a call in this Python), and one environment for every
                # player: an expression leaves its environment as it found it (aggregates and lets put back what they
                # bind), so each player's score reads exactly {var: p}, as a fresh dictionary would give it
                penv: dict[str, Any] = {}
                scores = []
                # one fresh empty list of tiebreaks per player (the result is plain data a caller may edit), made in the
                # same loop, without a call: appends cost less than list(map(list, repeat((), n))), whose iterator
                # objects and type calls were about 1 % of a Kuhn playout, and less than a loop of their own (callgrind)
                tiebreaks = []
                for p in players:
                    penv[var] = p
                    scores.append(body(s, penv))
                    tiebreaks.append([])
            else:
                scores = [0] * len(players)
                tiebreaks = []
                for _ in players:
                    tiebreaks.append([])
            tbs = comp.tiebreaks
            if tbs:  # computed after every score, as always (a tiebreak may read or spend the work budget)
                # loops, not comprehensions, here and below: a comprehension reading this method's locals would
                # make them cells (``s`` among them) for the whole step loop (docs/performance.md, Session 24)
                tiebreaks = []
                for p in players:
                    row = []
                    for tb in tbs:
                        row.append(tb(s, {"player": p}))
                    tiebreaks.append(row)
                keys: list[Any] = []
                for p in players:
                    keys.append((scores[p], *tiebreaks[p]))
            else:
                keys = scores  # a score alone orders players as the 1-tuple (score,) would
            winner = comp.winner
            if winner is None:
                # max(keys) without the builtin's keyword-parsing call (it cost more than this loop over a few seats):
                # the same comparisons in the same order, ``item > best``, the first kept on a tie (never 0 players)
                rest = iter(keys)
                best = next(rest)
                for key in rest:
                    if key > best:
                        best = key
                # players are the seats 0..n-1, so a key's index is its player
                if keys.count(best) == 1:
                    winners = [keys.index(best)]
                else:
                    winners = []
                    for p in players:
                        if keys[p] == best:
                            winners.append(p)
            else:  # the ruleset says who wins: possibly everyone (a co-operative win) or nobody
                winners = []
                for p in players:
                    if winner(s, {"player": p}):
                        winners.append(p)
            s.result = {
                "scores": scores,
                "tiebreaks": tiebreaks,
                "winners": winners,
                "rounds": s.counters[ROUND_SLOT],
            }
            if comp.reports:  # only a ruleset that reports anything adds the key: other results stay as they were
                reports = {}
                for name, fn in comp.reports:
                    reports[name] = fn(s, {})
                s.result["reports"] = reports
            s.status = "finished"
            everyone = s.tables.everyone  # (2 << n) - 1, computed once per table
            # the last log line; a ruleset with `winner` also names the winners (nobody is news there)
            values = (tuple(scores),) if winner is None else (tuple(scores), tuple(winners))
            s.log.append((everyone, everyone, -1, values))
        except (GameOver, SkipTo):
            s.status = "aborted"
            s.error = "`end game` or `skip to` inside `finish`"
            s.pending = None
            return
        except RuleError as err:
            s.status = "aborted"
            s.error = f"{err} [while scoring the game]"
            s.pending = None
            return
        except (TypeError, KeyError, IndexError, AttributeError, ValueError, ZeroDivisionError) as err:
            s.status = "aborted"
            s.error = f"internal error ({type(err).__name__}: {err}) [while scoring the game]"
            s.pending = None
            return
        if self.check:
            try:
                self._check_invariants()
            except RuleError as err:
                s.status = "aborted"
                s.error = str(err)

    def _pick(self, pick: Callable[[int], int]) -> None:
        """Decide the pending choice with ``pick(option count)`` for each waiting chooser, in seat order.

        Exactly what ``for p in waiting_for(): apply(pick(option_count(p)), p)`` does, without
        ``apply``'s checks (the picks are legal by construction) and without running on.
        """
        s = self.state
        pend = s.pending
        assert pend is not None  # callers pick only while a decision waits
        if pend[0] == "choose":
            _, p, options, var, body_pc, end_pc, _ = pend
            choice = pick(len(options))
            fr = s.frames[-1]
            value = options[choice]
            fr[2][var] = value
            fr[1] = end_pc if value is None else body_pc
            s.pending = None
            s.decisions.append((p, choice))
            return
        _, per, key, next_pc, _ = pend
        decisions = s.decisions
        fr = s.frames[-1]
        env = fr[2]
        if not s.commits and key + UNITS not in env:
            # Nobody has committed yet and each entry is a player's own (no `by`): every choice is picked in the
            # list's order, exactly as below, and bound at once, with no commits dictionary in between. This is
            # every simultaneous choice of a random playout, so it is the path simulations take.
            chosen = []
            for p, opts in per:
                choice = pick(len(opts))
                decisions.append((p, choice))
                chosen.append((p, opts[choice]))
            env[key] = (tuple(chosen), 0)
            fr[1] = next_pc
            s.pending = None
            return
        commits = dict(s.commits)
        if key + UNITS not in env:  # one entry per player: one round, in the list's order
            for i, (p, opts) in enumerate(per):
                if i not in commits:
                    commits[i] = choice = pick(len(opts))
                    decisions.append((p, choice))
        while len(commits) < len(per):
            # one round: each waiting player, in order, commits their next open entry (one per unit)
            for p in waiting_players(per, commits):
                at = open_entry(per, commits, p)
                assert at is not None
                commits[at] = choice = pick(len(per[at][1]))
                decisions.append((p, choice))
        s.commits = commits
        self._pick_pending()

    def _pick_pending(self) -> None:
        """Everyone has committed: bind the (player or unit, choice) pairs the body loops over, and go on."""
        s = self.state
        pend = s.pending
        assert pend is not None and pend[0] == "simul"  # called once the last commit is in
        _, per, key, next_pc, _ = pend
        commits = s.commits
        fr = s.frames[-1]
        env = fr[2]
        units = env.pop(key + UNITS, None)
        # loops, not a comprehension or a generator: either would make ``commits`` a cell for the whole call (a cell
        # object made at every entry, each read through it); the same pairs in the same order
        pairs = []
        if units is None:
            for i, (p, o) in enumerate(per):
                pairs.append((p, o[commits[i]]))
        else:  # `simultaneously … by`: the body binds each unit, not its decider
            for i, (u, (_, o)) in enumerate(zip(units, per, strict=True)):
                pairs.append((u, o[commits[i]]))
        env[key] = (tuple(pairs), 0)
        fr[1] = next_pc
        s.pending = None
        s.commits = {}

    def apply(self, choice: int, player: int | None = None) -> None:
        """Apply ``player``'s choice (an option index); illegal choices change nothing."""
        s = self.state
        pend = s.pending
        if pend is None or s.status != "running":
            raise IllegalChoice("the game is not waiting for a decision")
        if choice.__class__ is not int:
            choice = _plain_int(choice, "a choice is an option number")
        if player is not None and player.__class__ is not int:
            player = _plain_int(player, "a player is a seat number")
        if pend[0] == "choose":
            _, p, options, var, body_pc, end_pc, _ = pend
            if player is not None and player != p:
                raise IllegalChoice(f"it is P{p + 1}'s decision, not P{player + 1}'s")
            if not 0 <= choice < len(options):
                raise IllegalChoice(f"option {choice} is not legal (0..{len(options) - 1})")
            fr = s.frames[-1]
            value = options[choice]
            fr[2][var] = value
            fr[1] = end_pc if value is None else body_pc
            s.pending = None
            s.decisions.append((p, choice))
            self._advance()
            return
        per = pend[1]
        chooser = player
        if chooser is None:
            waiting = self.waiting_for()
            if len(waiting) != 1:
                raise IllegalChoice("several players choose at once: say which player this choice is for")
            chooser = waiting[0]
        at = open_entry(per, s.commits, chooser)
        if at is None:
            _no_entry(per, chooser)
        opts = per[at][1]
        if not 0 <= choice < len(opts):
            raise IllegalChoice(f"option {choice} is not legal (0..{len(opts) - 1})")
        s.commits = {**s.commits, at: choice}
        s.decisions.append((chooser, choice))
        if len(s.commits) == len(per):
            self._pick_pending()
            self._advance()

    def random_playout(self, rng: random.Random) -> int:
        """Play to the end with uniformly random legal choices; return how many decisions were made.

        Exactly the choices, the draws from ``rng`` and the final state of the driver loop
        ``while not finished: for p in waiting_for(): apply(rng.randrange(option_count(p)), p)``,
        but the step machine never stops at a choice: it picks in place (see :meth:`_advance`),
        so no labels, ``Decision``, per-call checks or re-entries into the step loop are paid.
        Simulations and benchmarks spend much of a short game there. The generated code also picks in place
        (``state.pick``), without suspending at all; a checked game's after its check (engine/checkpick.py). A
        fresh game is set up and played the same way in one call by ``Ruleset.new_game(..., playout=rng)`` (its
        first choice picked in place too).
        """
        s = self.state
        if s.status != "running":
            return 0
        if s.pending is None:
            raise IllegalChoice("the game is not waiting for a decision")
        decisions = s.decisions
        before = len(decisions)
        # an exact Random (what simulations pass): its _randbelow's draws, without a generic lookup per pick
        pick = _Bound(mt_below, rng.getrandbits) if rng.__class__ is random.Random else uniform_picker(rng)
        pend = s.pending
        if pend[0] == "choose":
            # _pick's first case, written here as in _advance: a short game (Kuhn poker: 2.3 decisions) pays the
            # call for its first pick on every playout
            _, p, options, var, body_pc, end_pc, _ = pend
            choice = pick(len(options))
            value = options[choice]
            fr = s.frames[-1]
            fr[2][var] = value
            fr[1] = end_pc if value is None else body_pc
            s.pending = None
            decisions.append((p, choice))
        else:
            self._pick(pick)
        if self.check or self.ruleset.notes:  # the invariants checked before each pick (engine/checkpick.py)
            checkpick.play(self, pick)
            return len(decisions) - before
        # Unchecked: the fused functions pick in place with the same picker, at the moment the engine would
        # (interpreter/codegen/fusepick.py), bind it and return at the chosen body, which this loop runs next
        s.pick = pick
        try:
            self._advance(pick)
        finally:
            s.pick = None
        return len(decisions) - before

    def playout(self, pick: Callable[[int], int]) -> None:
        """Play to the end, each choice decided by ``pick(option count)``: :meth:`random_playout` with any picker.

        ``pick`` is called while the choice is still pending (``state.pending``; for a `choose`,
        :meth:`next_choice` names its chooser and labels), in the order the driver loop ``for p in waiting_for():
        apply(pick(option_count(p)), p)`` would ask (the entries of a simultaneous choice in turn, committed only
        once all are picked), and must return a legal option number. A search walks its tree this way: one pass
        through the step loop per simulation instead of an ``apply`` (its checks, a re-entry of the loop) at
        every tree node."""
        s = self.state
        if s.status != "running":
            return
        if s.pending is None:
            raise IllegalChoice("the game is not waiting for a decision")
        self._pick(pick)
        self._advance(pick)

    # ------------------------------------------------------------ information sets
    def sample_world(self, player: int, rng: random.Random, knowledge: Knowledge | None = None) -> Game:
        """A full game ``player`` cannot tell apart from this one, drawn from its information set: the hidden
        cards' possible placements given what it has seen, a fresh RNG (:mod:`.infosets` says exactly what is
        kept and what is drawn again). ``knowledge`` (a :class:`~.infosets.Tracker`'s) saves replaying the game."""
        from liturgy.interpreter.engine.infosets import sample_world

        return sample_world(self, player, rng, knowledge)

    # ------------------------------------------------------------ invariants
    def violations(self) -> list[tuple[str, str]]:
        """Every failing invariant now: (name, detail). Empty when all hold.

        The built-in ones are checked against the last state where they held when there is one
        (:mod:`.invariants`: exact, and much cheaper for rulesets with many cards or counters). A declared
        invariant that held in that state is not evaluated again when none of the counter slots and zones it
        can read (interpreter/compiler/readsets.py) changed since, and no card its filtered reads' tests hold for
        moved from or to a zone they read: its value is the one it had.
        """
        s = self.state
        cert = self._certified
        if cert is not None and (fast := cert.fast) is not None:  # this check written for the ruleset (checkgen.py)
            got = fast(self, cert, s)
            if got is not False:
                return got  # type: ignore[no-any-return]
            cert = self._certified = None  # not proven: checked in full below, as when ``cert.test`` fails
        compiled = self.ruleset.compiled
        invs = compiled.invariants
        every = (1 << len(invs)) - 1
        todo = every  # bit k set: evaluate invariant k (every one, unless the certificate tells which held)
        if cert is not None:
            masks = cert.masks
            if masks is None:  # this game's read-set lists (readsets.py), and the check written for them and its tables
                reads = compiled.invariant_reads
                masks = certgen.install(cert, reads.lists(s), reads.lift(s), s.tables)
                checkgen.install(cert, s.tables, invs, compiled.step_at_pc)  # the next checks' whole check, written
            if cert.test(cert, s):  # Certified.holds, or the same check written for these tables (certgen.py)
                out = cert.out  # the built-in invariants it does not cover (capacity, removed cards, choices)
                held = cert.held
                if held is not None:  # which held in the last checked state, and what changed since
                    # those whose read set is unknown, those that did not hold there, and those that may read
                    # something that changed (ORed by the certificate as it checked what changed)
                    todo = (cert.bits | masks[2] | ~held) & every
                    if not todo:
                        return out  # every one held, and none reads anything that changed: they all hold still
                    cert.held = None  # until this check's answers are known (an exception leaves nothing to trust)
            else:
                cert = None
        if cert is None:
            out, certifiable = invariants.full(s)
            # a certificate needs the code that notes its writes (Ruleset.noted): a game switched to checking later
            # runs code without notes, and is checked in full
            keep = certifiable and s.tables.incremental_checks and self.ruleset.notes
            self._certified = invariants.Certified.take(s) if keep else None
            # the writes and card moves from here on, for the next check
            s.wrote, s.moved = ([], []) if self._certified is not None else (None, None)
        held = every ^ todo  # the others held in the last checked state and read nothing that changed: hold still
        step = None  # worked out only for an invariant that names steps it does not hold in
        work = s.work
        plan = _PLANS.get(todo) or _plan(todo)
        try:
            for k, bit in plan:  # the invariants to evaluate, in their order (lowest bit first)
                text, fn, outside = invs[k]
                if outside:
                    if step is None:  # the step_name() of this position, found once per ruleset and position
                        frames = s.frames
                        if frames:
                            at = compiled.step_at_pc
                            step = at.get(pc := frames[0][1])
                            if step is None:
                                step = at[pc] = self.step_name()
                        else:
                            step = "setup"
                    if step in outside:
                        continue  # not evaluated here: not known to hold
                s.work = 0  # a budget of its own: its outcome depends on what it reads, not on when it runs
                try:
                    ok = fn(s, {})
                except RuleError as err:
                    out.append((text, f"could not evaluate: {err}"))
                    continue
                if ok:
                    held |= bit
                else:
                    out.append((text, ""))
        finally:
            s.work = work  # checking is not playing: a checked game's work stays the unchecked game's
        if self._certified is not None:
            self._certified.held = held
        return out

    def _check_invariants(self) -> None:
        bad = self.violations()
        if bad:
            name, detail = bad[0]
            raise InvariantViolation(name, detail)

    # ------------------------------------------------------------ copies, saves, digests
    def clone(self) -> Game:
        """An independent copy (no certificate: its first check is a full one). Every attribute ``__init__`` sets is
        set here directly, without the call: a search clones once per simulation."""
        g = Game.__new__(Game)
        g.ruleset = self.ruleset
        g.state = self.state.clone()
        g.seed = self.seed
        g.check = self.check
        g.options = dict(self.options)
        g._certified = None
        g.float_free = self.float_free
        g.log_plain = 0  # a copy's log may be rewritten (engine/infosets.py): looked at again when it is saved
        return g

    def to_json(self) -> dict[str, Any]:
        """The save: every field of the state as JSON (lists for tuples) and, when this user has a sealing key,
        a ``seal`` that lets a load on this machine read the fields back instead of replaying the decisions
        (engine/seal.py, engine/saves.py)."""
        out, sealable = self._save_fields()
        if sealable and (sealed := seal(out, self.state.work, self.check)) is not None:
            out["seal"] = sealed
        return out

    def save_text(self) -> str:
        """:meth:`to_json` as JSON text (the same save once parsed; its keys sorted, the seal last).

        Why: a seal covers the fields' JSON text with sorted keys, so a caller writing the save as text (the web
        server, once per decision) would render the fields twice, once for the seal and once to write them.
        Here the sealed text is written as it is, with the seal added."""
        out, sealable = self._save_fields()
        done = sealed_text(out, self.state.work, self.check) if sealable else None
        if done is not None:
            return with_seal(*done).decode()
        try:
            return orjson.dumps(out).decode()
        except TypeError:  # what orjson refuses (an integer beyond 64 bits): the json module writes it
            return json.dumps(out)

    def _save_fields(self) -> tuple[dict[str, Any], bool]:
        """The save's fields, and whether a seal may cover them: only a state whose list fields hold plain values
        reads back the same from its JSON (engine/seal.py ``tuples_only``, whose answer is kept for the log)."""
        out = self.fields()
        plain = tuples_only(self.state, self.log_plain)
        if plain is None:
            return out, False
        self.log_plain = plain
        return out, True

    def fields(self) -> dict[str, Any]:
        """The save without its seal (what :meth:`to_json` seals, and what a load compares a replay with)."""
        s = self.state
        return {
            "format": SAVE_FORMAT,
            "ruleset": self.ruleset.name,
            "ruleset_fingerprint": self.ruleset.fingerprint,
            "players": s.tables.n,
            "seed": self.seed,
            "options": self.options,
            "counters": s.counters,
            "zones": s.zones,
            "face_up": sorted(s.face_up),
            "shown": [[c, m] for c, m in sorted(s.shown.items())],
            "rng": s.rng,
            "frames": [[f[0].id, f[1], thaw(f[2])] for f in s.frames],
            "pending": thaw(s.pending),
            "commits": {str(k): v for k, v in s.commits.items()},
            "log": s.log if s.log.__class__ is list else list(s.log),  # a narrator's WatchedLog saved as a list
            "decisions": [list(d) for d in s.decisions],
            "steps": s.steps,
            "status": s.status,
            "result": s.result,
            "error": s.error,
            "removed_count": s.removed_count,
        }

    def digest(self) -> str:
        """A hash of the final state and the log: equal digests mean the same game."""
        # the text is the JSON list of interpreter/digest.py
        if self.float_free is None:  # loaded from a save; what the engine has written since holds no float
            self.float_free = not digestmod.has_float(digestmod.parts(self.state))
        return digestmod.digest(self.state, self.float_free)

    @property
    def result(self) -> dict[str, Any] | None:
        return self.state.result

    @property
    def error(self) -> str | None:
        return self.state.error



# Per set of invariants to evaluate (bit k: invariant k), each one's number and bit, lowest first: the set's plan,
# made once (it depends on the bits alone, not on the ruleset), so a check walks a tuple instead of taking its
# mask apart bit by bit. Only the masks of the first _PLANNED invariants are kept (a ruleset with more has as many
# masks as checks could ask for; those are taken apart each time, as before).
_PLANS: dict[int, tuple[tuple[int, int], ...]] = {}
_PLANNED = 1 << 12


def _plan(todo: int) -> tuple[tuple[int, int], ...]:
    """The plan of the set ``todo`` (:data:`_PLANS`), kept for a set of the first ``_PLANNED`` bits."""
    out = []
    rest = todo
    while rest:
        bit = rest & -rest
        rest ^= bit
        out.append((bit.bit_length() - 1, bit))
    plan = tuple(out)
    if todo < _PLANNED:
        _PLANS[todo] = plan
    return plan


def replay_decisions(game: Game, decisions: Iterable[tuple[int, int]]) -> Game:
    """Apply a recorded decision sequence to a fresh game."""
    s = game.state
    for p, i in decisions:
        if s.status != "running":
            raise IllegalChoice("the log has more decisions than the game")
        # a checked log's entries are plain ints already (logs._decisions); anything else is converted as before
        game.apply(i if i.__class__ is int else int(i), p if p.__class__ is int else int(p))
    return game

