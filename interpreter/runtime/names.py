"""Player-facing names: what a person reads in place of a ruleset's identifiers and Python values.

Why a module of its own: the terminal, the web page and the narration all show zones, counters, enum values and
card data, and each of them must say "Upgrade deck", "beast, kin" and "yes" where the ruleset says
`upgrade_deck`, ``frozenset({'kin', 'beast'})`` and ``True``. One set of rules keeps the three in agreement.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from liturgy.dsl.checker.program import Program
from liturgy.dsl.checker.wording import value_words
from liturgy.dsl.checker.wording import words as words
from liturgy.dsl.frontend.cards import CardDef


def display_name(ident: str) -> str:
    """A zone's or counter's name as a heading: `upgrade_deck` → "Upgrade deck", `hand` → "Hand", a mode's
    flag `mode frog_stew` → "Mode frog stew".

    Only the first letter is raised, so a name that is already text ("Discard pile") stays as it is."""
    text = ident.replace("_", " ")
    return text[:1].upper() + text[1:]


def value_text(v: Any) -> str:
    """A card field's or counter's value as a player reads it: never a Python repr.

    A yes/no is "yes"/"no", a set is its members in a stable (sorted) order, a list in its own order, an enum
    value or name as words, nothing as "none"."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (set, frozenset)):
        return _joined(sorted(v, key=str)) or "none"
    if isinstance(v, (list, tuple)):
        return _joined(v) or "none"
    if isinstance(v, dict):
        return ", ".join(f"{words(str(k))} {value_text(x)}" for k, x in v.items()) or "none"
    if isinstance(v, str):
        return words(v)
    return str(v)


def _joined(items: Iterable[Any]) -> str:
    return ", ".join(value_text(x) for x in items)


def card_fields(prog: Program, c: CardDef) -> str:
    """A card's data fields as one line ("health: 20; types: beast, kin; boss: yes"); effects and functions are
    rules, not data, and are left out."""
    types = prog.field_types[c.kind]
    return "; ".join(f"{words(f.name)}: {value_text(c.values[f.name])}" for f in prog.kinds[c.kind].fields
                     if f.name in c.values and types[f.name].kind not in ("effect", "function"))


_BY_NAME: dict[int, tuple[Program, dict[str, CardDef]]] = {}


def card_details(prog: Program, names: Iterable[str]) -> dict[str, str]:
    """Per card name: its printed text and data, as a player reads them (a page shows it on hover or tap). Card
    definitions are public; `source`, `provisional` and `designer_note` are for the rules' authors and are left
    out. Names that are no card's (a hidden card's `?`) are skipped."""
    got = _BY_NAME.get(id(prog))
    if got is None or got[0] is not prog:
        got = _BY_NAME[id(prog)] = (prog, {c.name: c for c in prog.cards})
    by_name = got[1]
    out = {}
    for name in names:
        c = by_name.get(name)
        if c is not None and name not in out:
            out[name] = " ".join(x for x in (f"({display_name(c.kind)})", c.text, card_fields(prog, c)) if x)
    return out


def place_names(prog: Program, enum: str) -> dict[str, str]:
    """Each value of ``enum`` as players read it (dsl/checker/wording.py): the ruleset's `describe ENUM { … }`
    words, else a card's name (Fury of Dracula's Location card "Clermont-Ferrand" for `clermont_ferrand`), else
    the identifier in words with a capital ("Abandoned room")."""
    known = value_labels(prog)
    return {p: known.get(p) or display_name(p) for p in prog.enums.get(enum, [])}


_LABELS: dict[int, tuple[Program, dict[str, str]]] = {}


def value_labels(prog: Program) -> dict[str, str]:
    """Every enum value with words better than its identifier (declared or from the card data): what the log,
    narration, the terminal's menus and the page write for `clermont_ferrand` or `wound1`. Computed once per
    ruleset program."""
    got = _LABELS.get(id(prog))
    if got is not None and got[0] is prog:
        return got[1]
    out = value_words(prog)
    _LABELS[id(prog)] = (prog, out)
    return out


def value_label(prog: Program, value: str) -> str:
    """One enum value (or any option label) as a player reads it: its words, else the identifier as words."""
    return value_labels(prog).get(value) or words(value)


# the page and the terminal named only places before enum values had words of their own
place_labels = value_labels
