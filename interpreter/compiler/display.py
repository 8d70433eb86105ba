"""What a player's terminal shows: a ruleset's `display` panel and `describe` option labels.

Why the ruleset says it: only the game knows that Slay the Spire's status is "HP 7/9, Block 2, Energy 3" and that
an enemy offered as a target is worth showing with its HP; a generic dump of zones and counters is unreadable for
a large game. A choice's `prompt` ("Choose a target for Bash") is compiled here too, for the same reason. All
of them are read-only and compiled once to closures, like `score`. They are evaluated
on a clone of the state, so even a function that draws a random number cannot change the game, and every card
they name is shown to the viewer only if the viewer may see it now (otherwise `a hidden card`), as in a log line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from liturgy.dsl.checker.program import Program
from liturgy.dsl.checker.types import Ty
from liturgy.dsl.checker.wording import shown_enum
from liturgy.dsl.frontend import ast as A
from liturgy.interpreter.compiler.code import ExprFn, formatter_for, nests_cards, seen_text
from liturgy.interpreter.compiler.compiler import Compiler
from liturgy.interpreter.compiler.panelmemo import PanelMemo
from liturgy.interpreter.runtime.errors import RuleError
from liturgy.interpreter.runtime.moves import card_visibility
from liturgy.interpreter.runtime.names import value_labels
from liturgy.interpreter.runtime.state import GameState, hidden_card

Fmt = Callable[[GameState, Any, int], str]
_ERRORS = (RuleError, TypeError, KeyError, IndexError, AttributeError, ValueError, ZeroDivisionError)


def _formatter(t: Ty | None, names: dict[str, str] | None = None) -> Fmt:
    """A value as text for viewer ``who``; a card the viewer cannot see now is `a hidden card`. ``names``: how
    enum values read (runtime/names.py: `clermont_ferrand` → "Clermont-Ferrand", `pass_turn` → "pass turn"),
    given for an enum or a list or set of one."""
    if names is not None:
        plain_names = formatter_for(t, names)
        return lambda s, v, who: plain_names(s, v)

    def card(s: GameState, c: Any, who: int) -> str:
        if c is None:
            return "no card"
        if (card_visibility(s, c) >> who) & 1:
            return str(s.tables.card_names[c])
        return hidden_card(s.tables, c, "a hidden card")

    if t is not None and t.kind == "card":
        return card
    if t is not None and t.kind == "zone":
        return lambda s, z, who: ", ".join(card(s, c, who) for c in s.zones[z]) or "nothing"
    if t is not None and t.kind == "list" and t.elem is not None and t.elem.kind == "card":
        return lambda s, v, who: ", ".join(card(s, c, who) for c in v) or "nothing"
    if nests_cards(t):  # a list of lists of cards: each card inside by name only to who sees it
        return lambda s, v, who: seen_text(s, v, t, who)
    plain = formatter_for(t)
    return lambda s, v, who: plain(s, v)


@dataclass
class _Text:
    """A format string with one formatter per `{}`."""

    parts: list[str]
    args: list[tuple[ExprFn, Fmt]]

    def render(self, s: GameState, env: dict[str, Any], who: int) -> str:
        out = [self.parts[0]]
        for i, (value, fmt) in enumerate(self.args):
            out.append(fmt(s, value(s, env), who))
            out.append(self.parts[i + 1])
        return "".join(out)


Item = Callable[[GameState, dict[str, Any], int, list[str]], None]  # appends its lines for a viewer


def _item(comp: Compiler, it: A.ShowItem) -> Item:
    """One compiled `show`, `for` or `if` of a `display`."""
    if isinstance(it, A.ShowLine):
        text = _text(comp, it.text, it.args)

        def show(s: GameState, env: dict[str, Any], who: int, out: list[str]) -> None:
            out.append(text.render(s, env, who))

        return show
    if isinstance(it, A.ShowFor):
        source = comp.seq(it.source)
        where = comp.expr(it.where) if it.where is not None else None
        body = [_item(comp, x) for x in it.body]
        var = it.var

        def for_(s: GameState, env: dict[str, Any], who: int, out: list[str]) -> None:
            for x in list(source(s, env)):
                inner = {**env, var: x}
                if where is None or where(s, inner):
                    for b in body:
                        b(s, inner, who, out)

        return for_
    cond = comp.expr(it.cond)
    then = [_item(comp, x) for x in it.body]
    orelse = [_item(comp, x) for x in it.orelse]

    def if_(s: GameState, env: dict[str, Any], who: int, out: list[str]) -> None:
        for b in then if cond(s, env) else orelse:
            b(s, env, who, out)

    return if_


def _text(comp: Compiler, t: str, args: list[A.Expr]) -> _Text:
    """A display/describe/prompt text: enum values (and lists or sets of them) are shown in words."""
    names = value_labels(comp.prog)
    return _Text(t.split("{}"), [(comp.expr(a), _formatter(a.ty, names if shown_enum(a.ty) is not None else None))
                                 for a in args])


class Display:
    """The compiled `display`, `describe` and choice `prompt`s of one ruleset (all optional)."""

    def __init__(self, prog: Program, comp: Compiler) -> None:
        self.viewer = prog.display.var if prog.display else ""
        self.items = [_item(comp, it) for it in prog.display.body] if prog.display is not None else None
        # panels kept by what they read (compiler/panelmemo.py): rendered again only when that changed
        self.memo = PanelMemo(prog, comp.layout, {name: comp._width(c) for name, c in prog.counters.items()},
                              comp.work_limit) if prog.display is not None else None
        # keyed by what they describe: a card kind, an enum, `player` or `bool`
        self.describes = {kind: (d.card, d.viewer, _text(comp, d.text, d.args)) for kind, d in prog.describes.items()}
        self.kinds = [c.kind for c in prog.cards]
        # per choice (the index the pending decision carries): its prompt, the player a `simultaneously` binds,
        # and what `describe` labels its options (None: nothing)
        self.prompts = [None if pr is None else _text(comp, pr.text, pr.args)
                        for pr in comp.choice_prompts]
        self.prompt_players = list(comp.choice_pvars)
        self.option_kinds = [self._described(t) for t in comp.choice_elems]

    def _described(self, t: Ty | None) -> str | None:
        """Which `describe` labels options of type ``t``: "card" (by each card's kind), an enum, player, bool."""
        if t is None:
            return None
        if t.kind == "card":
            return "card" if any(k in self.describes for k in self.kinds) else None
        name = t.arg if t.kind == "enum" else t.kind
        return name if name in self.describes else None

    def prompt(self, state: GameState, choice: int, player: int, env: dict[str, Any], *unit: Any) -> str | None:
        """The `prompt` of choice ``choice`` as ``player`` reads it, or None when it has none (or fails).

        ``env`` is the chooser's frame: the prompt may name its locals. ``unit`` (a `simultaneously … by`
        choice) is what the statement's name binds instead of the player. A prompt is read-only (E171 refuses
        `random` and `roll`; the RNG is put back all the same, in case a `fn` it calls draws), and a card the
        player cannot see is `a hidden card`.
        """
        text = self.prompts[choice]
        if text is None:
            return None
        inner = dict(env)
        pvar = self.prompt_players[choice]
        if pvar is not None:
            inner[pvar] = unit[0] if unit else player
        saved = state.rng
        try:
            return text.render(state, inner, player)
        except _ERRORS:
            return None  # the step's title is still there
        finally:
            state.rng = saved

    def panel(self, state: GameState, player: int) -> list[str] | None:
        """The `display` lines for ``player``, or None when the ruleset declares no `display`."""
        if self.items is None:
            return None
        memo = self.memo
        key = memo.key(state, player) if memo is not None else None
        if key is not None:
            assert memo is not None
            kept = memo.get(key, state)
            if kept is not None:
                return kept
        s = state.clone()
        out: list[str] = []
        env: dict[str, Any] = {self.viewer: player}
        failed = False
        for it in self.items:
            try:
                it(s, env, player, out)
            except _ERRORS as err:  # a display must never stop the game: say what went wrong instead
                out.append(f"(display: {err})")
                failed = True
        if key is not None and not failed:
            assert memo is not None
            memo.put(key, out, s.work - state.work)
        return out

    def describe(self, state: GameState, player: int, options: tuple[Any, ...], choice: int) -> list[str | None]:
        """The `describe` text of each option of choice ``choice`` (None: the plain label stays).

        Cards are described by their kind's `describe`, and only when ``player`` can see them; players, enum
        values and yes/no by `describe player`, `describe ENUM` and `describe bool`.
        """
        out: list[str | None] = [None] * len(options)
        what = self.option_kinds[choice] if choice < len(self.option_kinds) else None
        if what is None:
            return out
        s = state.clone()
        for i, v in enumerate(options):
            if v is None:
                continue  # `pass` or a named `optional` option
            if what == "card":
                if not (card_visibility(s, v) >> player) & 1:
                    continue
                d = self.describes.get(self.kinds[s.tables.card_def[v]])
            else:
                d = self.describes[what]
            if d is not None:
                name, viewer, text = d
                try:
                    out[i] = text.render(s, {name: v, viewer: player}, player)
                except _ERRORS:
                    out[i] = None  # the plain label is still there
        return out
