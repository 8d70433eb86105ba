"""`liturgy mutate`: a mutation fuzz over saves and decision logs (issue 18).

Saves (``Game.to_json``) and decision logs (`play --log`) are untrusted: a careless or hostile player can hand
any bytes to `load_game`, `replay` or `play --resume`. This takes real saves and logs of a ruleset's games and
feeds the engine mutated copies of them: truncated text, values of the wrong type, swapped ids, huge and
non-finite numbers, deleted keys, cards copied into a second zone, deeply nested values. Every input must end
in one of two ways: accepted (a save loads, a log replays) or refused with a clean error (``ValueError`` from
`load_game`, exit code 1 from `replay`). It counts the other outcomes:

- **tracebacks**: any other exception, or another exit code;
- **hangs**: an input that takes longer than ``--timeout`` seconds (an alarm interrupts it);
- **corrupted games**: a save that loaded but is not what its rules make of its own decisions (its state
  differs from the replay's), or that then fails with an internal error when played on.

The inputs are derived from ``--seed`` alone, so a run can be repeated exactly.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import random
import signal
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

from liturgy.interpreter.engine.game import Game
from liturgy.interpreter.engine.logs import write_decision_log
from liturgy.interpreter.engine.ruleset import Ruleset, load_ruleset
from liturgy.interpreter.engine.saves import STATE_FIELDS

ODD_VALUES: tuple[Any, ...] = (None, True, False, "", "x" * 300, -1, 0, 1, 7, 2 ** 31, 2 ** 64, -(2 ** 70),
                               1.5, float("inf"), float("-inf"), float("nan"), [], {}, [[[[]]]], {"a": 1},
                               [0, 0], [-1], "\x1b[2J", "\ud800")
TEXT_NUMBERS = ("Infinity", "-Infinity", "NaN", "1e400", "-1e400", "9" * 5000, "0.0", "2.0", "-0", "1" * 40)


class Hang(Exception):
    """Raised by the alarm: one input ran past its time."""


@dataclass
class MutateReport:
    inputs: int = 0
    accepted: int = 0
    refused: int = 0
    tracebacks: int = 0
    hangs: int = 0
    corrupted: int = 0
    seconds: float = 0.0
    examples: list[str] = field(default_factory=list)  # the first few bad outcomes, to reproduce

    def to_json(self) -> dict[str, Any]:
        return {"inputs": self.inputs, "accepted": self.accepted, "refused": self.refused,
                "tracebacks": self.tracebacks, "hangs": self.hangs, "corrupted": self.corrupted,
                "seconds": round(self.seconds, 1), "examples": self.examples}


# ---------------------------------------------------------------- mutations
def _paths(value: Any) -> list[tuple[Any, ...]]:
    """Positions in a JSON value: at most 50 children of a node, at most 20 levels down."""
    out: list[tuple[Any, ...]] = []
    todo: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while todo:
        prefix, node = todo.pop()
        out.append(prefix)
        if len(prefix) >= 20:
            continue
        if isinstance(node, dict):
            todo += [((*prefix, k), v) for k, v in list(node.items())[:50]]
        elif isinstance(node, list):
            todo += [((*prefix, i), v) for i, v in enumerate(node[:50])]
    return out


def _set(root: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node = root
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return root


def _get(root: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        root = root[k]
    return root


def mutate_value(rng: random.Random, data: Any) -> Any:
    """One structural mutation of a parsed save or log, in place (the new root is returned)."""
    paths = _paths(data)
    path = rng.choice(paths)
    kind = rng.randrange(7)
    target = _get(data, path)
    if kind == 0:  # a value of the wrong type, or an odd one
        return _set(data, path, rng.choice(ODD_VALUES))
    if kind == 1 and path and isinstance(_get(data, path[:-1]), dict):  # a key deleted
        del _get(data, path[:-1])[path[-1]]
        return data
    if kind == 2 and isinstance(target, list) and len(target) >= 2:  # ids swapped
        i, j = rng.sample(range(len(target)), 2)
        target[i], target[j] = target[j], target[i]
        return data
    if kind == 3 and isinstance(target, int) and not isinstance(target, bool):  # a number nudged
        return _set(data, path, target + rng.choice((-1, 1, 1000, -(2 ** 40))))
    if kind == 4 and isinstance(data, dict) and isinstance(data.get("zones"), list):  # a card in two zones
        zones = [z for z in data["zones"] if isinstance(z, list)]
        cards = [c for z in zones for c in z]
        if cards and zones:
            rng.choice(zones).append(rng.choice(cards))
            return data
    if kind == 5:  # deep nesting
        deep: Any = 0
        for _ in range(rng.choice((5, 50, 500))):  # deeper still: as text, below (json.dumps stops at 1,000)
            deep = [deep]
        return _set(data, path, deep)
    return _set(data, path, rng.choice(ODD_VALUES))


def mutate_text(rng: random.Random, text: str) -> str:
    """One textual mutation: truncation, a number replaced by a huge or non-finite one, nesting, bytes."""
    kind = rng.randrange(5)
    if kind == 0:
        return text[: rng.randrange(len(text) + 1)]
    if kind == 1:
        digits = [i for i, ch in enumerate(text) if ch.isdigit() and (i == 0 or not text[i - 1].isdigit())]
        if digits:
            i = rng.choice(digits)
            j = i
            while j < len(text) and text[j].isdigit():
                j += 1
            return text[:i] + rng.choice(TEXT_NUMBERS) + text[j:]
    if kind == 2:
        n = rng.choice((1000, 100_000))
        i = text.find("[")
        return text if i < 0 else text[:i] + "[" * n + "]" * n + "," + text[i:]
    if kind == 3:
        i = rng.randrange(len(text) + 1)
        return text[:i] + rng.choice(("\x00", "\ufeff", "}", "{", '"', "\\", "\x1b[2J", ",,")) + text[i:]
    return "\ufeff" + text


# ---------------------------------------------------------------- running one input
def _alarm(_signum: int, _frame: Any) -> None:
    raise Hang()


def _try_save(rules: Ruleset, data: Any, rng: random.Random) -> str:
    """'accepted', 'refused', 'corrupted' or 'traceback: …' for one mutated save."""
    try:
        game = rules.load_game(data)
    except ValueError:  # CorruptSave, and anything else load_game refuses by contract
        return "refused"
    except Hang:
        raise
    except BaseException as err:  # noqa: BLE001 - counting tracebacks is the point
        return f"traceback: {type(err).__name__}: {str(err)[:200]}"
    mine = game.to_json()
    if any(json.dumps(data.get(k), sort_keys=True) != json.dumps(mine[k], sort_keys=True) for k in STATE_FIELDS):
        return "corrupted"
    if not game.finished:
        game.random_playout(rng)
        if game.error and game.error.startswith("internal error"):
            return "corrupted"
    return "accepted"


def _try_log(text: str, folder: str, n: int) -> str:
    """The outcome of `liturgy replay` on a mutated log: exit 0 accepted, 1 refused, anything else a traceback."""
    from liturgy.interpreter.tools.cli import main

    path = os.path.join(folder, f"log{n % 4}.json")
    with open(path, "w", encoding="utf-8", errors="surrogatepass") as f:
        f.write(text)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = main(["replay", path])
    except Hang:
        raise
    except BaseException as err:  # noqa: BLE001 - counting tracebacks is the point
        return f"traceback: {type(err).__name__}: {str(err)[:200]}"
    if code == 0:
        return "accepted"
    if code == 1 and "Traceback" not in out.getvalue():
        return "refused"
    return f"traceback: exit {code}: {out.getvalue()[-200:]}"


def _parse(text: str) -> Any:
    """A mutated save's text as a program would read it before calling `load_game` (nothing else accepted)."""
    try:
        return json.loads(text.removeprefix("\ufeff"))
    except (ValueError, RecursionError):
        return None


def _seed_games(rules: Ruleset, rng: random.Random, count: int) -> list[Game]:
    games = []
    for i in range(count):
        players = rng.randint(rules.min_players, min(rules.max_players, 4))
        game = rules.new_game(players, rng.randrange(1 << 32))
        game.random_playout(random.Random(i)) if i % 2 == 0 else _part_playout(game, rng)
        games.append(game)
    return games


def _part_playout(game: Game, rng: random.Random) -> None:
    """Play a few decisions only, so that saves taken mid-game (with a pending decision) are mutated too."""
    for _ in range(rng.randrange(1, 12)):
        if game.finished:
            return
        for p in game.waiting_for():
            game.apply(rng.randrange(game.option_count(p)), p)


def run_mutations(ruleset_path: str, inputs: int, seed: int, timeout: float = 10.0) -> MutateReport:
    """Feed ``inputs`` mutated saves and logs of ``ruleset_path``'s games to the engine; count the outcomes."""
    rules = load_ruleset(ruleset_path)
    rng = random.Random(seed)
    report = MutateReport()
    start = time.perf_counter()
    games = _seed_games(rules, rng, 6)
    previous = signal.signal(signal.SIGALRM, _alarm)
    with tempfile.TemporaryDirectory() as folder:
        logs = []
        for i, game in enumerate(games):
            path = os.path.join(folder, f"base{i}.json")
            write_decision_log(path, ruleset_path, game)
            with open(path, encoding="utf-8") as f:
                logs.append(json.load(f) | {"ruleset": os.path.abspath(ruleset_path)})
        saves = [g.to_json() for g in games]
        try:
            for n in range(inputs):
                report.inputs += 1
                outcome = _one(rules, rng, n, saves, logs, folder, timeout)
                _count(report, outcome, n)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    report.seconds = time.perf_counter() - start
    return report


def _one(rules: Ruleset, rng: random.Random, n: int, saves: list[Any], logs: list[Any], folder: str,
         timeout: float) -> str:
    save = n % 2 == 0
    base = rng.choice(saves if save else logs)
    value = copy.deepcopy(base)
    for _ in range(rng.randint(1, 3)):
        value = mutate_value(rng, value)
    try:
        text = json.dumps(value, default=str)
    except (ValueError, RecursionError):  # nested past what json writes: the base, mutated as text below
        text = json.dumps(base)
    if rng.random() < 0.4:
        text = mutate_text(rng, text)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        if save:
            data = _parse(text)
            return "refused" if data is None else _try_save(rules, data, random.Random(n))
        return _try_log(text, folder, n)
    except Hang:
        return "hang"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _count(report: MutateReport, outcome: str, n: int) -> None:
    if outcome == "accepted":
        report.accepted += 1
    elif outcome == "refused":
        report.refused += 1
    else:
        if outcome == "hang":
            report.hangs += 1
        elif outcome == "corrupted":
            report.corrupted += 1
        else:
            report.tracebacks += 1
        if len(report.examples) < 10:
            report.examples.append(f"input {n}: {outcome}")


def render(report: MutateReport) -> str:
    lines = [f"{report.inputs} mutated saves and logs in {report.seconds:.1f} s: {report.accepted} accepted, "
             f"{report.refused} refused cleanly; {report.tracebacks} tracebacks, {report.hangs} hangs, "
             f"{report.corrupted} corrupted games"]
    lines += [f"  {e}" for e in report.examples]
    return "\n".join(lines)


def register(sub: Any) -> None:
    """The `liturgy mutate` subcommand (cli.py adds it with one line)."""
    import argparse

    from liturgy.interpreter.tools import arguments as A

    m = sub.add_parser("mutate", help="feed mutated saves and decision logs of a ruleset's games to the engine")
    m.add_argument("ruleset")
    m.add_argument("--inputs", type=A.whole(1, 10_000_000), default=5000, help="mutated inputs to try")
    m.add_argument("--seed", type=A.SEED, default=0)
    m.add_argument("--timeout", type=A.seconds(0.1, 3600), default=10.0, help="seconds before an input is a hang")
    m.add_argument("--json", action="store_true")

    def cmd(args: argparse.Namespace) -> int:
        report = run_mutations(args.ruleset, args.inputs, args.seed, args.timeout)
        print(json.dumps(report.to_json()) if args.json else render(report))
        return 0 if report.tracebacks == report.hangs == report.corrupted == 0 else 1

    m.set_defaults(func=cmd)
