"""Decision logs: the file that `play --log` and `fuzz` write and `replay` reads."""

from __future__ import annotations

import json
import os

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


def changed_since(data: dict[str, object], game_ruleset_fingerprint: str) -> bool:
    """Whether the log was recorded on a different version of the ruleset or its card files.

    Logs from before fingerprints were recorded, and rulesets not read from files, cannot tell: False.
    """
    recorded = data.get("ruleset_fingerprint")
    return bool(recorded) and bool(game_ruleset_fingerprint) and recorded != game_ruleset_fingerprint
