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
playing.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import orjson
from liturgy.interpreter.engine.game import SAVE_FORMAT, Game, replay_decisions
from liturgy.interpreter.engine.logs import BadDecisionLog, _decisions, _integer, _options, _text

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


def load_verified(ruleset: Ruleset, data: Any, check_invariants: bool, force: bool) -> Game:
    """The game ``data`` saves, rebuilt by replay; :class:`CorruptSave` says what does not hold."""
    if not isinstance(data, dict):
        raise CorruptSave(f"corrupt save: a save is a JSON object, not {type(data).__name__}")
    if data.get("format") != SAVE_FORMAT:
        raise CorruptSave(f"unsupported save format {str(data.get('format'))[:40]!r}")
    if data.get("ruleset") != ruleset.name:
        raise CorruptSave(f"this save is for {str(data.get('ruleset'))[:80]!r}, not {ruleset.name!r}")
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
        replay_decisions(game, decisions)
    except ValueError as err:  # IllegalChoice, RuleError at setup: the decisions are not this game's
        raise CorruptSave(f"corrupt save: its decisions do not replay: {err}") from err
    mine = game.to_json()
    for name in STATE_FIELDS:
        if _canonical(data.get(name)) != _canonical(mine[name]):
            raise CorruptSave(f"corrupt save: its `{name}` is not what its own decisions lead to "
                              "(the save was edited, or made by other rules)")
    return game
