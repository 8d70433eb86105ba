"""Player-facing names: what a person reads in place of a ruleset's identifiers and Python values.

Why a module of its own: the terminal, the web page and the narration all show zones, counters, enum values and
card data, and each of them must say "Upgrade deck", "beast, kin" and "yes" where the ruleset says
`upgrade_deck`, ``frozenset({'kin', 'beast'})`` and ``True``. One set of rules keeps the three in agreement.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def words(ident: str) -> str:
    """An identifier as lower-case words: `escape_man` → "escape man"; text with spaces is left as it is."""
    return ident.replace("_", " ") if "_" in ident and " " not in ident else ident


def display_name(ident: str) -> str:
    """A zone's or counter's name as a heading: `upgrade_deck` → "Upgrade deck", `hand` → "Hand".

    Only the first letter is raised, so a name that is already text ("Discard pile") stays as it is."""
    text = words(ident)
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
