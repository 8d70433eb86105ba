"""Decision logs: the file that `play --log` and `fuzz` write and `replay` reads."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from liturgy.dsl.files import FileRefused, read_limited
from liturgy.interpreter.engine.game import Game

LOG_FORMAT = 1


def write_decision_log(path: str, ruleset_path: str, game: Game) -> None:
    """Everything needed to replay ``game`` exactly, plus its digest to verify it."""
    data = {
        "format": LOG_FORMAT,
        "ruleset": os.path.relpath(ruleset_path),
        "game": game.ruleset.name,
        "ruleset_fingerprint": game.ruleset.fingerprint,
        "players": game.players,
        "seed": game.seed,
        "options": game.options,
        "decisions": [list(d) for d in game.state.decisions],
        "status": game.state.status,
        "error": game.error,
        "result": game.result,
        "digest": game.digest(),
    }
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(data, indent=1) + "\n")


def changed_since(recorded: str | None, game_ruleset_fingerprint: str) -> bool:
    """Whether a log recorded with fingerprint ``recorded`` was made on a different version of the ruleset or its
    card files.  Logs from before fingerprints were recorded, and rulesets not read from files, cannot tell: False.
    """
    return bool(recorded) and bool(game_ruleset_fingerprint) and recorded != game_ruleset_fingerprint


# A decision log is untrusted input (`liturgy replay`, `play --resume`, and soon web play): these bound what one
# can make the engine read or build before the game itself starts checking every decision.
MAX_LOG_BYTES = 64 << 20  # some 5 million decisions
MAX_PLAYERS = 64
MAX_SEED = (1 << 64) - 1
MAX_OPTION_TEXT = 200


class BadDecisionLog(Exception):
    """A decision log that cannot be replayed as it is: the message says what is wrong, in the log's words."""


@dataclass(frozen=True)
class DecisionLog:
    """A decision log read and checked field by field: nothing in it reaches the engine unchecked."""

    path: str
    ruleset: str  # the ruleset path it was recorded with, relative to where it was written
    game: str | None  # the ruleset's `game` name, when recorded
    fingerprint: str | None  # the ruleset's and card files' hash (dsl/loader.py), None in logs from before it
    players: int
    seed: int
    options: dict[str, str]
    decisions: list[tuple[int, int]]
    digest: str | None  # the final digest recorded, to compare with the replay's


def _refuse_constant(name: str) -> Any:
    raise BadDecisionLog(f"holds {name}, which is not a number JSON allows")


def _integer(data: dict[str, Any], key: str, lo: int, hi: int) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadDecisionLog(f"`{key}` is {_show(value)}, not a whole number")
    if not lo <= value <= hi:
        raise BadDecisionLog(f"`{key}` is {_show(value)}, outside {lo}..{hi}")
    return value


def _text(data: dict[str, Any], key: str, required: bool) -> str | None:
    value = data.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value or len(value) > 4096:
        raise BadDecisionLog(f"`{key}` is {_show(value)}, not a name")
    return value


def _show(value: Any) -> str:
    text = json.dumps(value)[:60] if not isinstance(value, float) else repr(value)
    return text if value is not None else "missing"


def _options(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and len(k) <= MAX_OPTION_TEXT and len(v) <= MAX_OPTION_TEXT
            for k, v in value.items()):
        raise BadDecisionLog(f"`options` is {_show(value)}, not names with text values")
    return dict(value)


def _decisions(value: Any, players: int) -> list[tuple[int, int]]:
    if not isinstance(value, list):
        raise BadDecisionLog(f"`decisions` is {_show(value)}, not a list")
    out: list[tuple[int, int]] = []
    append = out.append
    # every load of a save checks each of its decisions here: the two items are tested one by one (exact ints,
    # in range) rather than by a generator over the pair, which cost more than the rest of the test
    for d in value:
        if isinstance(d, list) and len(d) == 2:
            p, i = d
            if type(p) is int and type(i) is int and 0 <= p < players and 0 <= i < 1 << 31:
                append((p, i))
                continue
        n = len(out)
        raise BadDecisionLog(f"decision {n + 1} is {_show(d)}, not [player, option] "
                             f"with a player 0..{players - 1} and an option number")
    return out


def read_decision_log(path: str) -> DecisionLog:
    """The decision log at ``path``, every field checked; :class:`BadDecisionLog` says what is wrong."""
    try:
        raw = read_limited(path, MAX_LOG_BYTES)
    except FileRefused as err:
        raise BadDecisionLog(f"{path}: cannot read it: {err.reason}") from err
    except OSError as err:
        raise BadDecisionLog(f"{path}: cannot read it: {err.strerror or err}") from err
    try:
        data = json.loads(raw.decode("utf-8-sig"), parse_constant=_refuse_constant)  # a BOM is harmless
    except BadDecisionLog as err:
        raise BadDecisionLog(f"{path} is not a decision log: it {err}") from err
    except UnicodeDecodeError as err:
        raise BadDecisionLog(f"{path} is not a decision log (not UTF-8 text, byte {err.start})") from err
    except RecursionError as err:
        raise BadDecisionLog(f"{path} is not a decision log (JSON nested too deeply)") from err
    except ValueError as err:  # JSONDecodeError, and integers of more digits than Python converts
        raise BadDecisionLog(f"{path} is not a decision log (not JSON: {err})") from err
    if not isinstance(data, dict) or data.get("format") != LOG_FORMAT or "decisions" not in data:
        raise BadDecisionLog(f"{path} is not a Liturgy decision log")
    try:
        players = _integer(data, "players", 1, MAX_PLAYERS)
        ruleset = _text(data, "ruleset", True)
        assert ruleset is not None
        return DecisionLog(path, ruleset, _text(data, "game", False), _text(data, "ruleset_fingerprint", False),
                           players, _integer(data, "seed", 0, MAX_SEED), _options(data.get("options")),
                           _decisions(data.get("decisions"), players), _text(data, "digest", False))
    except BadDecisionLog as err:
        raise BadDecisionLog(f"{path}: {err}") from err
