"""A scripted "human" at the terminal: runs the real `liturgy play` process and answers its prompts.

It reads what a person would read (the printed menu) and answers from the visible option labels only, with a
simple policy, so it keeps working while the ruleset gains cards and relics. Used by
tests/test_play_terminal.py, and by hand:

    python tests/human_driver.py rulesets/slay_the_spire.rules --seed 4 --hero Ironclad --transcript run.txt
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROMPT = re.compile(rb"P(\d)> \Z")
OPTION = re.compile(r"^  \[(\d+)\] (.*)$")
HP = re.compile(r"HP (\d+)")


def read_menu(screen: str) -> list[str]:
    """The option labels of the last menu on the screen, in order."""
    lines = screen.splitlines()
    labels: list[str] = []
    for line in reversed(lines[:-1] if lines and lines[-1].startswith("P") else lines):
        m = OPTION.match(line)
        if not m:
            break
        labels.append(m.group(2))
    return list(reversed(labels))


class LabelPolicy:
    """Chooses from the labels alone: the way a cautious beginner plays Slay the Spire."""

    ROOM_ORDER = ("campfire", "treasure", "event", "monster", "merchant", "elite", "boss")

    def __init__(self, heroes: list[str]) -> None:
        self.heroes = heroes

    def __call__(self, player: int, screen: str, labels: list[str]) -> int:
        low = [lab.lower() for lab in labels]

        def first(pred: Callable[[str], bool]) -> int | None:
            return next((i for i, lab in enumerate(low) if pred(lab)), None)

        hero = self.heroes[player].lower() if player < len(self.heroes) else None
        if hero is not None and any(lab.startswith(hero) for lab in low):
            return next(i for i, lab in enumerate(low) if lab.startswith(hero))
        if "play card" in low:  # play while something is playable; drink potions first
            i = first(lambda lab: lab == "use potion") if "use potion" in low else None
            return i if i is not None else low.index("play card")
        if all(lab.startswith("floor ") for lab in low):  # the map: safest room type first
            return min(range(len(low)), key=lambda i: next(
                (k for k, r in enumerate(self.ROOM_ORDER) if low[i].endswith(r)), len(self.ROOM_ORDER)))
        if all("(cost " in lab for lab in low if lab != "back"):  # cards in hand: the first attack, else the first
            i = first(lambda lab: "attack)" in lab)
            return i if i is not None else 0
        hp = [int(m.group(1)) if (m := HP.search(lab)) else None for lab in labels]
        if all(h is not None for h in hp) and hp:  # targets: the weakest enemy
            return min(range(len(hp)), key=lambda i: hp[i] or 0)
        if "move on" in low:  # between rooms: no potion trading or row swaps
            return low.index("move on")
        if "rest" in low and "smith" in low:
            return low.index("rest")
        if "pass" in low and "merchant sells" in screen:
            return low.index("pass")
        if low == ["yes", "no"] or low == ["no", "yes"]:
            return low.index("no")
        return 0


def play(ruleset: str, args: list[str], policy: Callable[[int, str, list[str]], int | str],
         transcript: list[str] | None = None, limit: int = 5000, timeout: float = 120.0) -> tuple[int, str]:
    """Run `liturgy play RULESET ARGS…`, answer every prompt with ``policy``; return (exit code, all output).

    A policy answers with an option index, typed as `#N` (always the menu number, even where labels are
    numbers), or with a line of text typed as it is (a label, a command, a mistake)."""
    proc = subprocess.Popen([sys.executable, "-m", "liturgy.interpreter.tools.cli", "play", ruleset, *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT)
    assert proc.stdin is not None and proc.stdout is not None
    fd = proc.stdout.fileno()
    out = bytearray()
    screen_start = 0
    deadline = time.monotonic() + timeout
    answers = 0
    closed = False
    asked: list[str] = []
    typed_text = False
    try:
        while time.monotonic() < deadline:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            out += chunk
            m = PROMPT.search(bytes(out[-6:]))
            if m is None or closed:
                continue
            screen = out[screen_start:].decode("utf-8", "replace")
            labels = read_menu(screen) or (asked if typed_text else [])  # a typed line that chose nothing: asked again
            if not labels or answers >= limit:
                proc.stdin.close()  # the CLI sees the end of input and stops cleanly
                closed = True
                continue
            choice = policy(int(m.group(1)) - 1, screen, labels)
            typed = choice if isinstance(choice, str) else f"#{choice + 1}"
            asked, typed_text = labels, isinstance(choice, str)
            if transcript is not None:
                transcript.append(screen + f"{typed}\n")
            proc.stdin.write(f"{typed}\n".encode())
            proc.stdin.flush()
            answers += 1
            screen_start = len(out)
    finally:
        if proc.poll() is None and time.monotonic() >= deadline:
            proc.kill()
        code = proc.wait()
    text = out.decode("utf-8", "replace")
    if transcript is not None:
        transcript.append(text[screen_start:])
    return code, text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ruleset")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--players", default="1")
    ap.add_argument("--hero", action="append", default=[], help="character per seat, in order")
    ap.add_argument("--transcript", help="write everything seen and typed to this file")
    a = ap.parse_args()
    seats = ",".join(["human"] * int(a.players))
    lines: list[str] = []
    code, out = play(a.ruleset, ["--seed", a.seed, "--players", a.players, "--seats", seats],
                     LabelPolicy(a.hero or ["Ironclad"] * 4), lines)
    if a.transcript:
        Path(a.transcript).write_text("".join(lines), encoding="utf-8")
    print("\n".join(out.splitlines()[-5:]))
    print(f"exit {code}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
