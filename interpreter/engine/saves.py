"""Loading a save: the game is rebuilt from its seed, options and decisions, and the save must match it exactly.

A save (``Game.to_json``) is untrusted input: a hand-edited one could put a card in two zones, counters out of
their bounds, a forged status or result, or a pending decision that lets one player play another's card. Checking
each of those one by one would always miss the next forgery, so nothing in a save's state is ever used: the game
is replayed from what the rules make of the seed, the options and the decisions (each decision checked as
``Game.apply`` checks a player's), and every state field of the save must equal the replayed game's, item by item.
A save that passes was produced by these rules from those decisions, exactly; the game returned is the replayed
one. Editing a save alone therefore never yields a game the rules would not, with or without its fingerprint.

Why replay rather than a signature: it needs no key to keep or share, it holds for saves from any machine, and
it also proves the save consistent with the ruleset as it is now. It costs a replay of the game (about a
millisecond for a whole Bloodborne game) where reading the fields cost a fifth of that; loading is rare next to
playing. What a load does besides playing the game is kept small (docs/performance.md, session 17): its replay
loop takes the checked decisions without ``apply``'s re-checks, and a genuine save passes one cheap comparison.
A checked load (``check_invariants``) checks every step of the replay, as play did: the final comparison cannot
see an invariant that failed on the way and holds again at the end.

Sealed saves (session 20, engine/seal.py): a save carrying a valid seal of this user's key was written by this
engine, so :func:`load_sealed` builds the game from its fields (the replay's cost is gone); the trust model is
"replay anything not sealed by a key only this user can read". Every other save goes the way described above.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import orjson
from liturgy.interpreter.engine.game import SAVE_FORMAT, Game, replay_decisions
from liturgy.interpreter.engine.logs import BadDecisionLog, _decisions, _integer, _options, _text
from liturgy.interpreter.engine.seal import verified
from liturgy.interpreter.engine.views import open_entry
from liturgy.interpreter.runtime.state import GameState

if TYPE_CHECKING:
    from liturgy.interpreter.engine.ruleset import Ruleset

# Every field of a save that the replayed game must reproduce exactly (the rest say which game it is).
STATE_FIELDS = ("counters", "zones", "face_up", "shown", "rng", "frames", "pending", "commits", "log", "steps",
                "status", "result", "error", "removed_count")


class CorruptSave(ValueError):
    """A save that is not what the rules make of its own decisions, or is not a save at all."""


def _canonical(value: Any) -> bytes:
    """One spelling of a JSON value: tuples and lists alike, keys sorted, ``1`` and ``1.0`` different."""
    try:
        out = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return repr(value).encode()  # not JSON at all (a set, an object, a huge int): never equal to the game's
    if b"null" in out and value is not None and _non_finite(value):
        return repr(value).encode()  # orjson writes NaN and Infinity as null: a forged `result: Infinity` is not None
    return out


# The state fields whose values the engine holds as JSON already (lists, dicts with text keys, numbers, text):
# compared with ``==`` as they are. The rest (frames, pending, log) hold tuples, which ``==`` calls different from
# the save's lists, and are compared as JSON text only (see _identical).
_PLAIN = ("counters", "zones", "face_up", "shown", "rng", "commits", "steps", "status", "result", "error",
          "removed_count")
# orjson encodes some non-JSON Python values (datetimes, dataclasses, subclasses of str and int) as JSON: a save
# handed over as Python objects holding one of those is not compared by its text but field by field
_STRICT = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS


def _identical(data: dict[str, Any], game: Game) -> bool:
    """Whether the save's state fields are exactly the replayed ``game``'s: the test every genuine save passes,
    in a few C-level passes, without building the game's own save (``to_json``, which turns every tuple of the
    log, the frames and the pending choice into a list only to be compared).

    Equal JSON text means the same lists, objects, strings and numbers of the same kinds (``1``, ``1.0`` and
    ``true`` are spelled apart; orjson writes the game's tuples as lists). It cannot see a NaN or an infinity,
    which orjson writes as ``null``, where the game has ``None``: the plain fields are also compared with
    ``==`` (NaN equals nothing, the game holds no float), and the three tuple-holding fields are searched for
    one where their text holds a ``null``. ``False`` only sends the save to the field-by-field comparison,
    which finds the field that differs or, for a save whose objects list their keys in another order, accepts
    it.
    """
    s = game.state
    get = data.get
    theirs = [get(name) for name in _PLAIN]
    ours = [s.counters, s.zones, sorted(s.face_up), [[c, m] for c, m in sorted(s.shown.items())], s.rng,
            {str(k): v for k, v in s.commits.items()}, s.steps, s.status, s.result, s.error, s.removed_count]
    if theirs != ours:
        return False
    try:
        if orjson.dumps(theirs, option=_STRICT) != orjson.dumps(ours):
            return False
        for value, mine in ((get("frames"), [[f[0].id, f[1], f[2]] for f in s.frames]), (get("pending"), s.pending),
                            (get("log"), s.log)):
            text = orjson.dumps(value, option=_STRICT)
            if text != orjson.dumps(mine) or (b"null" in text and _non_finite(value)):
                return False
    except (TypeError, orjson.JSONEncodeError):  # not JSON (a huge int, a set): compared field by field
        return False
    return True


def _non_finite(value: Any) -> bool:
    """Whether a NaN or an infinity hides anywhere in ``value`` (found by `liturgy mutate`)."""
    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, float) and not math.isfinite(v):
            return True
        if isinstance(v, dict):
            todo.extend(v.values())
        elif isinstance(v, list | tuple):
            todo.extend(v)
    return False


def _replay(game: Game, decisions: list[tuple[int, int]]) -> None:
    """``replay_decisions(game, decisions)`` for a decision list ``logs._decisions`` accepted (exact ints, players
    in range, options not negative), with the same outcome: the same state, the same errors.

    Each decision is taken as ``Game.apply`` takes it, without what that call re-checks of a checked list (the
    types of both numbers), and a `simultaneously` round's commits are gathered in one dictionary instead of a
    new copy per player (``apply`` copies, because a clone may share the one it replaces; nothing clones the game
    while it loads). Whatever is not the plain legal case (a decision for a player who is not asked, an option
    out of range, a decision after the end) is handed to ``replay_decisions`` at that decision, so ``apply``
    raises exactly the error it always did, from the same state.
    """
    s = game.state
    advance = game._advance
    record = s.decisions.append
    n = len(decisions)
    k = 0
    while k < n:
        pend = s.pending
        if pend is None or s.status != "running":
            break
        p, i = decisions[k]
        if pend[0] == "choose":
            _, chooser, options, var, body_pc, end_pc, _ = pend
            if p != chooser or i >= len(options):
                break
            fr = s.frames[-1]
            value = options[i]
            fr[2][var] = value
            fr[1] = end_pc if value is None else body_pc
            s.pending = None
            record((p, i))
            k += 1
            advance()
            continue
        per = pend[1]
        commits = dict(s.commits)
        while True:  # the round's decisions, in the order they were sent, until everyone has committed
            at = open_entry(per, commits, p)
            if at is None or i >= len(per[at][1]):
                break
            commits[at] = i
            record((p, i))
            k += 1
            if len(commits) == len(per) or k == n:
                break
            p, i = decisions[k]
        s.commits = commits
        if len(commits) < len(per):
            if k == n:
                return  # saved while the round waits for other players
            break
        game._pick_pending()
        advance()
    if k < n:
        replay_decisions(game, decisions[k:])


def load_verified(ruleset: Ruleset, data: Any, check_invariants: bool, force: bool) -> Game:
    """The game ``data`` saves: read from its fields when it carries a valid seal (:func:`load_sealed`), else
    rebuilt by replay; :class:`CorruptSave` says what does not hold."""
    if not isinstance(data, dict):
        raise CorruptSave(f"corrupt save: a save is a JSON object, not {type(data).__name__}")
    if data.get("format") != SAVE_FORMAT:
        raise CorruptSave(f"unsupported save format {str(data.get('format'))[:40]!r}")
    if data.get("ruleset") != ruleset.name:
        raise CorruptSave(f"this save is for {str(data.get('ruleset'))[:80]!r}, not {ruleset.name!r}")
    if ruleset.fingerprint and data.get("ruleset_fingerprint") == ruleset.fingerprint:
        sealed = load_sealed(ruleset, data, check_invariants)
        if sealed is not None:
            return sealed
    try:
        saved_with = _text(data, "ruleset_fingerprint", False)
        players = _integer(data, "players", ruleset.min_players, ruleset.max_players)
        seed = _integer(data, "seed", 0, (1 << 64) - 1)
        options = _options(data.get("options"))
        decisions = _decisions(data.get("decisions"), players)
    except BadDecisionLog as err:
        raise CorruptSave(f"corrupt save: {err}") from err
    if saved_with is None and not force:
        raise CorruptSave(f"this save of {ruleset.name!r} records no ruleset fingerprint, so nothing shows it was "
                          "made with these rules; load it with force=True to replay it anyway")
    if saved_with and ruleset.fingerprint and saved_with != ruleset.fingerprint:
        raise CorruptSave(
            f"this save of {ruleset.name!r} was made with a different version of its ruleset or card files "
            f"(fingerprint {saved_with[:12]}…, now {ruleset.fingerprint[:12]}…); load it with the files it was "
            "saved with, or replay its decisions instead")
    try:
        game = ruleset.new_game(players, seed, check_invariants, options=options)
        _replay(game, decisions)
    except ValueError as err:  # IllegalChoice, RuleError at setup: the decisions are not this game's
        raise CorruptSave(f"corrupt save: its decisions do not replay: {err}") from err
    data = _live_frames(data, game)
    if _identical(data, game):
        return game
    mine = game.fields()
    for name in STATE_FIELDS:  # something differs, or may: which field, each compared in its canonical form
        if _canonical(data.get(name)) != _canonical(mine[name]):
            raise CorruptSave(f"corrupt save: its `{name}` is not what its own decisions lead to "
                              "(the save was edited, or made by other rules)")
    return game


def _live_frames(data: dict[str, Any], game: Game) -> dict[str, Any]:
    """``data`` with its frames' run-local variables left out (compiler/liveness.py): a save written before the
    frames held only the variables some instruction can still read kept the others too, and is the same game.

    What goes is only a name the rules prove no instruction of that frame's code ever reads, so the value a save
    held under it could not have changed the game; every other variable is compared with the replay's as before.
    Anything not shaped like a frame is left for the comparison to refuse."""
    frames = data.get("frames")
    dead = game.ruleset.compiled.frame_dead
    if not isinstance(frames, list) or not any(dead.values()):
        return data
    out = []
    for f in frames:
        if (isinstance(f, list) and len(f) == 3 and f[0].__class__ is int and isinstance(f[2], dict)
                and (gone := dead.get(f[0])) and not gone.isdisjoint(f[2])):
            f = [f[0], f[1], {k: v for k, v in f[2].items() if k not in gone}]
        out.append(f)
    return data if all(a is b for a, b in zip(out, frames, strict=True)) else {**data, "frames": out}


def load_sealed(ruleset: Ruleset, data: dict[str, Any], check_invariants: bool) -> Game | None:
    """The game of a save whose seal verifies (engine/seal.py), built from its fields as a replay would leave it;
    None for any other save (it is then replayed).

    A seal proves this user's engine wrote the save, from a game of these rules (the fingerprint is checked
    first), so its fields are what play made of its decisions. Two cases still replay, because the seal cannot
    vouch for what the replay checks: a checked load of a game played unchecked (a checked replay stops where a
    declared invariant failed on the way, and the final state may hold them all again), and an unchecked load of
    a checked game that stopped (a replay without checks plays on past the violation and is refused). A checked
    game that did not stop is the unchecked game, so it loads either way. Anything the fields cannot be built
    from (which a genuine save never lacks) replays too, and the replay says what is wrong."""
    got = verified(data)
    if got is None:
        return None
    fields, work, checked = got
    if (check_invariants and not checked) or (checked and not check_invariants and fields.get("status") == "aborted"):
        return None
    try:
        return _built(ruleset, fields, work, check_invariants)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):
        return None


def _frozen(value: Any) -> Any:
    """A JSON list back as the engine's tuple (at any depth), as :func:`runtime.state.freeze`, in one pass."""
    if value.__class__ is list:
        return tuple([_frozen(v) if v.__class__ is list else v for v in value])
    return value


def _built(ruleset: Ruleset, d: dict[str, Any], work: int, check: bool) -> Game:
    """The game whose save (parsed from the sealed text: fresh lists and dicts, nothing shared) is ``d``.

    Every field a replay would leave, from the save or derived from it: the tables of the player count's
    template, the code objects of the frames (of the noted compile for a checked game, as ``new_game`` picks),
    each card's place from the zones, the engine's tuples (pending choice, frames' values, log lines, a result's
    list values) from the save's lists, the work counter from the seal. What a replay holds beyond the state is
    derived again on use, as a ``clone`` does: the kept options of filtered choices (``GameState.kept``), a checked
    game's certificate (its first check is a full one), the digest's float test (``float_free``)."""
    target = ruleset.noted() if check and not ruleset.notes else ruleset
    players = d["players"]
    if players.__class__ is not int or not ruleset.min_players <= players <= ruleset.max_players:
        raise ValueError("players")
    tables = target._build(players)[0]
    codes = target.codes
    s = GameState(tables)
    counters = d["counters"]
    if list in set(map(type, counters)):  # a list-typed counter's value is a tuple in the engine
        counters = list(map(_frozen, counters))
    s.counters = counters
    zones = s.zones = d["zones"]
    if len(zones) != len(tables.zone_names):
        raise ValueError("zones")
    card_zone = s.card_zone = [-1] * len(tables.card_def)
    for zi, cards in enumerate(zones):
        for c in cards:
            card_zone[c] = zi
    if -1 in card_zone:
        raise ValueError("a card in no zone")
    s.face_up = set(d["face_up"])
    s.shown = {c: m for c, m in d["shown"]}
    s.rng = d["rng"]
    frames = []
    for cid, pc, env in d["frames"]:
        code = codes[cid]
        if not 0 <= pc < len(code.ins):
            raise ValueError("pc")
        frames.append([code, pc, {k: _frozen(v) for k, v in env.items()}])
    s.frames = frames
    s.pending = _frozen(d["pending"])
    s.commits = {int(k): v for k, v in d["commits"].items()}
    s.log = list(map(_frozen, d["log"]))
    s.decisions = list(map(tuple, d["decisions"]))
    s.steps = d["steps"]
    s.status = d["status"]
    result = s.result = d["result"]
    if result is not None:  # as Game._advance scores: lists of values, each value as the rules hold it
        result["scores"] = list(map(_frozen, result["scores"]))
        result["tiebreaks"] = [list(map(_frozen, t)) for t in result["tiebreaks"]]
        if "reports" in result:
            result["reports"] = {name: _frozen(v) for name, v in result["reports"].items()}
    s.error = d["error"]
    s.removed_count = d["removed_count"]
    s.work = work
    game = Game(target, s, d["seed"], check)
    game.options = d["options"]
    game.float_free = None  # looked for at the first digest, as for any state not made by this process's play
    game.log_plain = len(s.log)  # sealed: it held no list
    return game
