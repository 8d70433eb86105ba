"""The human seat: a terminal prompt that shows one player's view and reads their choice.

Why a module of its own: a long game (a whole Slay the Spire run is hundreds of decisions) needs more than
"type a number". The prompt takes commands (help, status, log, zones, card text, save, quit), accepts an
option by its label as well as its number, and never loses the game on bad input. Everything shown comes from
``Game.view(player)``, the decision's labels, and the ruleset's public card definitions, so a human seat sees
exactly what that player may see and nothing else.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from liturgy.dsl.checker.program import Program
from liturgy.interpreter.engine import Game, replay_decisions
from liturgy.interpreter.engine.causes import Caused, caused_lines, narrate_caused, watch
from liturgy.interpreter.runtime import seats
from liturgy.interpreter.runtime.graphs import GraphWalk
from liturgy.interpreter.runtime.grids import render
from liturgy.interpreter.runtime.names import card_fields, display_name, place_labels, value_text, words

# a public zone longer than this is shown by its first cards and a count
LONG_ZONE = 8

HELP = """\
Commands at the prompt (an option can be chosen by its menu number, its label, or a unique start of it):
  NUMBER            choose by menu number (`3`): a number you type is always the menu number, in every menu
  #NUMBER           the same (`#3`)
  LABEL             choose that option (`end turn`, or `end` when only one label starts that way)
  =LABEL            the option labelled exactly so, even when the label is a number (`=10` bids 10) or a
                    command's name
  /COMMAND          always a command (`/help`), even when an option has the same name
  help, h           this list
  status, s         show your status again
  log [N]           the last N lines of the game log you can read (default 20)
  zones, z          every zone you can see, in full
  zone NAME         one zone in full (e.g. `zone discard`)
  card NAME, c NAME the printed text and data of a card (any card of the game, by name or start of name)
  view, ?           your whole view as JSON
  undo, u           take back your last choice when it only opened this menu (nothing happened since)
  save [FILE]       save the game so far (a decision log; resume with `liturgy play RULESET --resume FILE`)
  quit, q           save (when a save file is known) and stop"""


def _hidden_state(game: Game) -> tuple[object, ...]:
    """What may change unseen when a choice is made: the RNG, where each card is, which are face up or shown.
    `undo` refuses when any of it changed since the choice it would take back."""
    s = game.state
    return (s.rng, tuple(s.card_zone), tuple(map(tuple, s.zones)), frozenset(s.face_up), tuple(sorted(s.shown.items())))


class QuitGame(Exception):
    """The human typed `quit`: the CLI saves and stops."""


class _Undone(Exception):
    """`undo` rebuilt the game one decision earlier: ask again."""


@dataclass
class Session:
    """What the prompt needs beyond the game: where `save` writes, and how."""

    save_path: str | None = None
    save: Callable[[Game, str], None] | None = None
    ruleset_path: str = "RULESET"
    seats: tuple[str, ...] = ()
    # say what changed for the player since their last question (`--no-narration` turns it off)
    narration: bool = True
    # ask questions that have one possible answer too (`--ask-all`); by default they are answered and said
    ask_forced: bool = False

    def resume_command(self, path: str) -> str:
        """The command that continues a game saved to ``path`` with the same seats.

        `--resume` takes the players, seed and options from the save, but not who sits where, and the default
        makes every seat human: a game against bots must name its seats again or the bots' turns come to the
        terminal.
        """
        seats = f" --seats {','.join(self.seats)}" if any(k != "human" for k in self.seats) else ""
        return f"liturgy play {self.ruleset_path} --resume {path}{seats}"


def pretty(label: str) -> str:
    """An option label for a terminal: enum-style names (`end_turn`) read as words (`end turn`)."""
    return words(label)


def _addressed(asked: str, player: int) -> str:
    """A question headed by whom it asks: ``P1: …``, once, even when the ruleset's prompt names the player
    first itself (Betrayal's "{}: gain 1 in which trait?" read "P1: P1: gain …")."""
    me = f"P{player + 1}"
    return asked if asked.startswith((f"{me}:", f"{me},", f"{me} ")) else f"{me}: {asked}"


# one-letter commands: typed alone they could also be the start of an option's label (`h` of `hit`)
SHORTCUTS = {"h": "help", "s": "status", "z": "zones", "u": "undo", "q": "quit", "?": "view"}


def typed_number(text: str) -> int | None:
    """A number typed at the prompt, or None: ASCII digits only, at most 9 of them. ``str.isdigit`` also accepts
    `²` and other digits ``int`` refuses, and ``int`` refuses 4,300 digits or more: either ended the game."""
    return int(text) if 0 < len(text) <= 9 and text.isascii() and text.isdigit() else None


def numeric_labels(options: tuple[str, ...]) -> bool:
    """Some option is labelled by a number (a column, a bid): then a typed number means a label, not a position."""
    return any(o.strip().lstrip("-").isdigit() for o in options)


def exact_label(answer: str, options: tuple[str, ...]) -> int | None:
    """The option whose label is exactly what was typed (case aside), if any: it wins over every other reading.

    Equal labels (three Strikes) are the same choice: the first is taken."""
    want = answer.lower()
    if not want:
        return None
    return next((i for i, o in enumerate(options) if o.lower() == want or pretty(o).lower() == want), None)


class HumanAgent:
    """Terminal prompts: shows only the player's own view, asks for an option."""

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None,
                 session: Session | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.session = session or Session()
        self.seen_log: dict[int, int] = {}
        self.shown_status: dict[int, str] = {}
        # per player: the view at their last question, which narration compares with the view now
        self.last_view: dict[int, dict[str, Any]] = {}
        # (decisions, log entries, a fingerprint of the hidden state) just before this agent's last choice: what
        # `undo` may go back to
        self.before_last: tuple[int, int, tuple[object, ...]] | None = None

    def _print(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def show_end(self, game: Game) -> None:
        """When the game is over: for each of this agent's players, the log lines not read yet (how it ended),
        then the final status panel (the board, the scores): the position the game ended in, not the one of the
        last question."""
        for player in sorted(self.seen_log):
            lines = game.log_lines(player)
            start = self.seen_log[player]
            start = max(0, len(lines) + start) if start < 0 else start
            self._print()
            self._print(f"===== P{player + 1}: the end of the game =====")
            self._tell(game, player, lines[start:])
            self.seen_log[player] = len(lines)
            status = status_text(game, player)
            if status.strip():
                self._print(status)

    def _tell(self, game: Game, player: int, new: list[str]) -> None:
        """The log lines ``player`` has not read, with what changed for them since their last question said
        where it happened: each change under the line logged before it (the die roll that took the health), the
        changes before any line first (engine/causes.py); all of them after the lines when the timeline does
        not match the lines (the log was not watched since the last question)."""
        parts: list[Caused] = []
        if self.session.narration:
            parts, self.last_view[player] = narrate_caused(game, player, self.last_view.get(player))
            if not game.finished:
                watch(game, player)  # the next question's narration is split at the lines logged from here on
        timeline = len(parts) == len(new) + 1
        if timeline:
            self._changes(parts[0][1])
        for i, line in enumerate(new):
            self._print(f"  {line}")
            if timeline:
                self._changes(parts[i + 1][1])
        if parts and not timeline:
            self._print("  What changed for you:")
            for line in caused_lines(parts):
                self._print(f"    {line}")

    def _changes(self, changes: list[str]) -> None:
        for change in changes:
            self._print(f"    • {change}")

    def skip_log(self, player: int, keep: int) -> None:
        """After a resume: treat all but the last ``keep`` log lines as already read."""
        self.seen_log[player] = -keep

    def choose(self, game: Game, player: int) -> int:
        if not self.session.ask_forced and game.option_count(player) == 1:
            return self._forced(game, player)
        while True:
            try:
                choice = self._ask(game, player)
            except _Undone:
                continue
            self.before_last = (len(game.state.decisions), len(game.state.log), _hidden_state(game))
            return choice

    def _forced(self, game: Game, player: int) -> int:
        """A question with one possible answer is not asked: it is answered, and said in one line (the log, the
        narration and the status come with the next real question, so nothing is missed)."""
        decision = game.decision
        assert decision is not None
        (label,) = decision.options[player]
        label = place_labels(game.ruleset.program).get(label, label)
        details = game.option_details(player)
        shown = details[0] if details and details[0] else pretty(label)
        asked = decision.prompts.get(player)
        question = _addressed(asked.rstrip(" ?:"), player) if asked else f"P{player + 1}, {decision.prompt}"
        self._print(f"  {question}: {shown} (the only choice)")
        self.before_last = None  # nothing to take back: the same question would be answered the same way
        return 0

    def _ask(self, game: Game, player: int) -> int:
        lines = game.log_lines(player)
        start = self.seen_log.get(player, 0)
        if start < 0:
            start = max(0, len(lines) + start)
        self._print()
        self._print(f"===== P{player + 1}'s turn to decide =====")
        self._tell(game, player, lines[start:])
        self.seen_log[player] = len(lines)
        status = status_text(game, player)
        if self.shown_status.get(player) != status:
            # the status is reprinted only when something in it changed: a follow-up choice (a target for the
            # card just played) then shows just the question
            self._print(status)
            self.shown_status[player] = status
        decision = game.decision
        assert decision is not None
        places = place_labels(game.ruleset.program)  # a place offered by its identifier reads as its name
        options = tuple(places.get(o, o) for o in decision.options[player])
        details = game.option_details(player)
        secret = " (others see only that you have chosen)" if decision.simultaneous else ""
        asked = decision.prompts.get(player)
        if asked:  # the ruleset words the question ("Choose a target for Bash")
            self._print(f"{_addressed(asked, player)}{secret}" + ("" if asked[-1] in "?:!." else ":"))
        else:
            self._print(f"P{player + 1}, {decision.prompt}{secret}:")
        if numeric_labels(options):  # said before the menu: a scripted reader takes the menu's last lines
            self._print("  (the options are numbers: a number you type is the menu number in brackets; "
                        "=N chooses the option labelled N)")
        for i, label in enumerate(options):
            extra = details[i] if i < len(details) else None
            self._print(f"  [{i + 1}] {extra if extra else pretty(label)}")
        while True:
            self.stdout.write(f"P{player + 1}> ")
            self.stdout.flush()
            answer = self.stdin.readline()
            if not answer:
                raise EOFError("input ended before the game did")
            answer = answer.strip()
            picked = self._command(answer, game, player, options)
            if picked is not None:
                # said back every time: a typed number or a start of a label could have meant something else
                self._print(f"  You chose: [{picked + 1}] {pretty(options[picked])}")
                return picked

    # ------------------------------------------------------------ prompt commands
    def _command(self, answer: str, game: Game, player: int, options: tuple[str, ...]) -> int | None:
        """Run one line typed at the prompt; return an option index when the line chose one.

        What a line means, first rule that applies: a number (`3` or `#3`) is that menu number, in every menu,
        even where labels are numbers (issue 32: a typed `1` meant a label on one question and a position on the
        next); `=LABEL` is the option labelled exactly so; `/WORD` is a command; a label typed in full is that
        option; a command; a unique start of a label. A one-letter command that also starts a label is asked
        about."""
        if answer.startswith("#"):
            return self._by_position(answer[1:].strip(), options)
        if answer.isascii() and answer.isdigit():
            return self._by_position(answer, options)
        if answer.startswith("="):
            return self._by_exact_label(answer[1:].strip(), options)
        if answer.startswith("/"):
            return self._run_command(answer[1:].strip(), game, player, options, forced=True)
        exact = exact_label(answer, options)
        if exact is not None:
            return exact
        word, _, rest = answer.partition(" ")
        if word.lower() in SHORTCUTS and not rest and self._starts_label(answer, options):
            self._print(f"  `{answer}` is short for the command `{SHORTCUTS[word.lower()]}` and also starts an option "
                        f"({self._starting(answer, options)}): type more of the label, or /{word} for the command")
            return None
        return self._run_command(answer, game, player, options, forced=False)

    def _by_exact_label(self, label: str, options: tuple[str, ...]) -> int | None:
        exact = exact_label(label, options)
        if exact is None:
            self._print(f"  no option is labelled {label[:40] or '(nothing)'}: type a menu number, or =LABEL with "
                        "one of the labels")
        return exact

    def _by_position(self, number: str, options: tuple[str, ...]) -> int | None:
        picked = typed_number(number)
        if picked is not None and 1 <= picked <= len(options):
            return picked - 1
        self._print(f"  there is no option {number[:20] or '#'}: type a number from 1 to {len(options)} "
                    "(or `help` for commands)")
        return None

    def _starts_label(self, answer: str, options: tuple[str, ...]) -> bool:
        want = answer.lower()
        return any(pretty(o).lower().startswith(want) or o.lower().startswith(want) for o in options)

    def _starting(self, answer: str, options: tuple[str, ...]) -> str:
        want = answer.lower()
        return ", ".join(sorted({pretty(o) for o in options
                                 if pretty(o).lower().startswith(want) or o.lower().startswith(want)}))

    def _run_command(self, answer: str, game: Game, player: int, options: tuple[str, ...],
                     forced: bool) -> int | None:
        """A prompt command; anything else is taken as (the start of) a label, unless ``forced`` (`/WORD`)."""
        word, _, rest = answer.partition(" ")
        word, rest = word.lower(), rest.strip()
        if word in ("help", "h") and not rest:
            self._print(HELP)
        elif word in ("?", "view") and not rest:
            self._print(json.dumps(game.view(player), indent=1))
        elif word in ("status", "s") and not rest:
            self._print(status_text(game, player))
        elif word == "log" and (not rest or typed_number(rest) is not None):
            n = typed_number(rest) or 0 if rest else 20
            for line in game.log_lines(player)[-n:] if n else []:
                self._print(f"  {line}")
        elif word in ("zones", "z") and not rest:
            self._print(zones_text(game.view(player), player, full=True))
        elif word == "zone" and rest:
            self._print(zone_text(game.view(player), player, rest))
        elif word in ("card", "c") and rest:
            self._print(card_text(game, rest))
        elif word in ("undo", "u") and not rest:
            self._undo(game, player)
        elif word == "save":
            self._save(game, rest or self.session.save_path)
        elif word in ("quit", "q", "exit") and not rest:
            raise QuitGame()
        elif forced:
            self._print(f"  `/{answer}` is not a command (type `help` for the list)")
        elif answer:
            return self._by_label(answer, options)
        else:
            self._print(f"  type a number from 1 to {len(options)} (or `help` for commands)")
        return None

    def _by_label(self, answer: str, options: tuple[str, ...]) -> int | None:
        """An option typed by name: the one label that starts with the text (exact labels were tried first)."""
        want = answer.lower()
        labels = [pretty(o).lower() for o in options]
        hits = {i for i, lab in enumerate(labels) if lab.startswith(want) or options[i].lower().startswith(want)}
        names = {labels[i] for i in hits}
        if len(names) == 1:
            return min(hits)  # equal labels (three Strikes) are the same choice: take the first
        if not hits:
            self._print(f"  `{answer}` is neither an option nor a command: type a number from 1 to {len(options)} "
                        "(or `help` for commands)")
        else:
            self._print(f"  `{answer}` could be " + ", ".join(sorted(names)) + ": type more of it, or its number")
        return None

    def _undo(self, game: Game, player: int) -> None:
        """Go back one decision, if it was this player's and changed nothing anyone saw.

        Only menu navigation can be undone (`play card`, then the card menu): a choice that logged anything (a
        card played, a card drawn, a die rolled), moved or turned a card or drew from the RNG, even silently (a
        draw that logs nothing), stands, so undo can never be used to peek and choose again.
        The game is rebuilt by replaying every earlier decision, which determinism makes exact.
        """
        s = game.state
        before = self.before_last
        d = game.decision
        if before is None or d is None or d.simultaneous or len(s.decisions) != before[0] + 1 \
                or s.decisions[-1][0] != player or len(s.log) != before[1] or _hidden_state(game) != before[2]:
            self._print("  nothing to undo: only a choice of yours that nothing has followed yet (such as "
                        "`play card`) can be taken back")
            return
        fresh = game.ruleset.new_game(game.players, game.seed, check_invariants=game.check, options=game.options)
        replay_decisions(fresh, [(int(p), int(i)) for p, i in s.decisions[:-1]])
        game.state = fresh.state
        self.before_last = None
        self.shown_status.pop(player, None)
        self._print("  undone: back to the previous choice")
        raise _Undone()

    def _save(self, game: Game, path: str | None) -> None:
        if not path:
            self._print("  save where? type `save FILE` (or start with `--log FILE` to save there every turn)")
            return
        if self.session.save is None:
            self._print("  saving is not available here")
            return
        try:
            self.session.save(game, path)
        except OSError as err:
            self._print(f"  could not save to {path}: {err.strerror}")
            return
        self.session.save_path = path
        self._print(f"  saved to {path} ({len(game.state.decisions)} decisions); "
                    f"resume with: {self.session.resume_command(path)}")


# ---------------------------------------------------------------- rendering
def _cards(cards: list[str], full: bool = False) -> str:
    if cards and all(c == "?" for c in cards):
        return f"{len(cards)} face down"
    shown = [c for c in cards if c != "?"]
    hidden = len(cards) - len(shown)
    tail = f" (+{hidden} face down)" if hidden else ""
    if full or len(shown) <= LONG_ZONE:
        return ", ".join(shown) + tail
    return ", ".join(shown[:LONG_ZONE]) + f", … ({len(cards)} cards; type `zone NAME` for all)" + tail


def status_text(game: Game, player: int) -> str:
    """The status shown above a choice: the ruleset's `display` when it has one, else zones and counters."""
    away = seats.absent(game.state)  # seats the rules have not brought in yet (`absent_while`)
    note = "  Not playing yet: " + ", ".join(f"P{p + 1}" for p in away) if away else ""
    panel = game.display(player)
    if panel is not None:
        return "\n".join([*(f"  {line}" for line in panel), *([note] if note else [])])
    view = game.view(player)
    boards = ["\n".join(f"  {line}" for line in render(name, rows)) for name, rows in view.get("grids", {}).items()]
    maps = maps_text(game.ruleset.program, view)
    return "\n".join(t for t in (*boards, maps, zones_text(view, player), counters_text(view, player), note) if t)


def maps_text(prog: Program, view: dict[str, Any]) -> str:
    """Each graph as a ruleset without `display` shows it: every counter holding one of its places, with
    that place's connections by kind, and the connections play has made or removed."""
    out = []
    for name, graph in prog.graphs.items():
        changes = view.get("graphs", {}).get(name, {})
        overlay = tuple((k, a, b, True) for a, b, k in changes.get("linked", [])) + tuple(
            (k, a, b, False) for a, b, k in changes.get("unlinked", []))
        walk = GraphWalk(graph)
        lines = []
        for cname, c in prog.counters.items():
            if c.held is None or c.held.kind != "enum" or c.held.arg != graph.nodes:
                continue
            value = view["counters"].get(cname)
            for who, place in (value.items() if isinstance(value, dict) else [("", value)]):
                if place is not None and place != "?":
                    by_kind = [f"{k} " + ", ".join(near) for k in walk.kinds
                               if (near := walk.neighbours(place, k, overlay))]
                    lines.append(f"    {who + '.' if who else ''}{cname} {place}: " + (" · ".join(by_kind) or
                                                                                      "no connections"))
        made = [f"+ {a}–{b} ({k})" for a, b, k in changes.get("linked", [])]
        made += [f"− {a}–{b} ({k})" for a, b, k in changes.get("unlinked", [])]
        if made:
            lines.append("    changed: " + ", ".join(made))
        if lines:
            out.append(f"  map {name}:\n" + "\n".join(lines))
    return "\n".join(out)


def zones_text(view: dict[str, Any], player: int, full: bool = False) -> str:
    """Own zones in full, others' as cards or counts, face-down piles on one line, long zones cut short.

    A large ruleset (Slay the Spire has dozens of zones) must still fit a screen; `zones` prints them in full.
    Zones are named as a player reads them ("Upgrade deck", not `upgrade_deck`).
    """
    me = f"P{player + 1}"
    out = []
    face_down = []
    for name, z in view["zones"].items():
        label = display_name(name)
        if isinstance(z, dict):
            mine = z.get(me, [])
            others = "; ".join(f"{p}: " + _cards(c, full) for p, c in z.items() if p != me and c)
            if mine or others:
                out.append(f"  {label}: {_cards(mine, full) or '-'}" + (f"   (others: {others})" if others else ""))
        elif z and any(c != "?" for c in z):
            out.append(f"  {label}: {_cards(z, full)}")
        elif z:
            face_down.append(f"{label} {len(z)}")
    if face_down:
        out.append("  Face down: " + ", ".join(face_down))
    return "\n".join(out)


def counters_text(view: dict[str, Any], player: int) -> str:
    """Counters that are not zero (`first` and `round` always): the player's own first, then the shared ones,
    named and valued as a player reads them ("Health 8", "Echoes: Snatcher 6")."""
    me = f"P{player + 1}"
    mine: list[str] = []
    shared: list[str] = []
    for name, c in view["counters"].items():
        target = shared
        if isinstance(c, dict) and me in c:
            c, target = c[me], mine
        label = display_name(name)
        if isinstance(c, dict):
            c = {k: v for k, v in c.items() if v}
            if c:
                target.append(f"{label}: " + ", ".join(f"{words(k)} {value_text(v)}" for k, v in c.items()))
        elif c or name in ("first", "round"):
            target.append(f"{label} {c}" if isinstance(c, int) and not isinstance(c, bool)
                          else f"{label}: {value_text(c)}")
    out = []
    if mine:
        out.append(f"  {me}: " + " · ".join(mine))
    out.append("  " + " · ".join(shared))
    return "\n".join(out)


def zone_text(view: dict[str, Any], player: int, name: str) -> str:
    """One zone in full, as the player sees it."""
    zones = view["zones"]
    key = name.strip().lower()
    matches = [z for z in zones if z.lower() == key] or [z for z in zones if z.lower().startswith(key)]
    if len(matches) != 1:
        known = ", ".join(zones)
        return f"  no single zone `{name}`: the zones are {known}" if not matches else \
            f"  `{name}` could be " + ", ".join(matches)
    z = zones[matches[0]]
    if isinstance(z, dict):
        return "\n".join(f"  {matches[0]} of {p}: " + (_cards(c, True) or "empty") for p, c in z.items())
    return f"  {matches[0]}: " + (_cards(z, True) or "empty")


def find_cards(names: list[str], key: str) -> list[str]:
    """Card names a player meant by ``key``: the exact name, else names starting with it, else names with a word
    starting with it (`card beast` finds "Blood-starved Beast"; `card rest` finds "Rest Site", never
    "Bucharest")."""
    key = key.strip().lower()
    if not key:
        return []
    exact = [n for n in names if n.lower() == key]
    if exact:
        return exact
    start = [n for n in names if n.lower().startswith(key)]
    if start:
        return start
    return [n for n in names if any(w.startswith(key) for w in _word_starts(n.lower()))]


def _word_starts(name: str) -> list[str]:
    """Each tail of ``name`` that begins a word (after a space, hyphen, apostrophe or bracket)."""
    return [name[i:] for i in range(1, len(name)) if not name[i - 1].isalnum() and name[i].isalnum()]


def card_text(game: Game, name: str) -> str:
    """A card's definition: its printed text and data fields, as text. Card definitions are public (the rules
    list them); what is for the rules' authors (`source`, `provisional`, `designer_note`) is not shown."""
    prog = game.ruleset.program
    names = sorted({c.name for c in prog.cards})
    found = find_cards(names, name)
    if not found:
        return f"  no card is called `{name}`"
    if len(found) > 1:
        shown = ", ".join(found[:12]) + (f", … ({len(found)} cards)" if len(found) > 12 else "")
        return f"  `{name}` could be: {shown}"
    c = next(c for c in prog.cards if c.name == found[0])
    out = [f"  {c.name} ({display_name(c.kind)})"]
    if c.text:
        out.append(f"    {c.text}")
    plain = card_fields(prog, c)
    if plain:
        out.append("    " + plain)
    return "\n".join(out)
