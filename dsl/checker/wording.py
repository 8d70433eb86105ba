"""The words a player reads for an enum value, and the checks of `describe ENUM { value = "words" }`.

Why in the checker: an enum value is an identifier (`clermont_ferrand`, `wound1`), and wherever a player sees one
(a log line, a `show` or `prompt` text, the options of a choice) the engine must say words instead. The words
come, in order, from the ruleset's own `describe ENUM { … }` block, from the card data (Fury of Dracula's
Location card "Clermont-Ferrand" holds the place `clermont_ferrand`), or from the identifier itself ("pass turn").
The last is a guess that reads badly for `wound1` or `escape_man`, so the checker warns (W090) when a shown
enum value still has nothing better, once per enum, where its values are first shown.
"""

from __future__ import annotations

import re

from liturgy.dsl.checker.program import Program
from liturgy.dsl.diagnostics import Diagnostic, Span
from liturgy.dsl.frontend import ast as A

# a digit glued to a letter (`wound1`, `2nd`): no words a player reads, even with the underscores as spaces
_GLUED = re.compile(r"[A-Za-z][0-9]|[0-9][A-Za-z]")
# the one-letter words English has: `a_b` reads badly as "a b", `take_a_card` reads well
_ONE_LETTER_WORDS = ("a", "i", "A", "I")


def words(ident: str) -> str:
    """An identifier as lower-case words: `escape_man` → "escape man"; text with spaces is left as it is."""
    return ident.replace("_", " ") if "_" in ident and " " not in ident else ident


def looks_raw(value: str) -> bool:
    """A value a player would read as an identifier even with its underscores as spaces (:func:`words`): a digit
    glued to a letter (`wound1`), or an underscore that does not join two words (`x_pos`, `_hidden`, `a__b`).
    `pass_turn` reads "pass turn" and is not raw: the words default serves it, so warning on every underscore
    (as W090 first did) asked authors to restate what players already read well."""
    if _GLUED.search(value):
        return True
    return "_" in value and any(len(part) < 2 and part not in _ONE_LETTER_WORDS for part in value.split("_"))


def place_enums(prog: Program) -> set[str]:
    """The enums whose values are places: a graph's nodes, the cells of a grid of enum values."""
    return {g.nodes for g in prog.graphs.values()} | {str(g.cell_ty.arg) for g in prog.grids.values()
                                                      if g.cell_ty is not None and g.cell_ty.kind == "enum"}


def card_words(prog: Program, enum: str, place: bool) -> dict[str, str]:
    """Values of ``enum`` named by the card data: the card whose field of that enum holds the value and whose name
    is spelt like it ("Clermont-Ferrand" for `clermont_ferrand`), or, for a place (``place``), the one card that
    holds it ("Abandoned Room"). Several cards holding a value (a room and an event in it) name it only when one
    of them is spelt alike."""
    fields = [(kind, f.name) for kind, types in prog.field_types.items() for f in prog.kinds[kind].fields
              if types[f.name].kind == "enum" and types[f.name].arg == enum]
    if not fields:
        return {}
    found: dict[str, list[str]] = {}
    for c in prog.cards:
        for kind, field in fields:
            if c.kind == kind and isinstance(c.values.get(field), str):
                found.setdefault(c.values[field], []).append(c.name)
    named = {}
    for v, names in found.items():
        alike = [n for n in names if n.lower().replace("-", " ") == words(v).lower()]
        if len(alike) >= 1 and len(set(alike)) == 1:
            named[v] = alike[0]
        elif place and len(set(names)) == 1:
            named[v] = names[0]
    return named


def value_words(prog: Program) -> dict[str, str]:
    """Every enum value that has words better than its identifier: declared (`describe ENUM { … }`) first, then
    from the card data. Values are unique across enums (E103), so one map serves them all."""
    places = place_enums(prog)
    out: dict[str, str] = {}
    for enum in prog.enums:
        out.update(card_words(prog, enum, enum in places))
    out.update(prog.value_names)
    return out


# `describe COUNTER { … }`: how narration words a change of that counter (engine/narration.py)
NARRATION_KEYS = ("gain", "lose", "change")
NARRATION_HOLES = frozenset({"who", "s", "n", "now", "was"})
HOLE = re.compile(r"\{([^{}]*)\}")  # a hole of narration words: `{who}`


def check_names(prog: Program, err: list[Diagnostic]) -> None:
    """`describe NAME { key = "words" }`: for an enum, each key one of its values (E101) named once (E103), with
    words (E173), filling ``prog.value_names``; for a counter, how narration words its changes (keys `gain`,
    `lose`, `change`; holes {who} {s} {n} {now} {was}; "" for none), filling ``prog.narration_words``."""
    for d in prog.name_decls:
        values = prog.enums.get(d.enum)
        if values is None and d.enum in prog.counters:
            _check_narration(prog, d, err)
            continue
        if values is None and d.enum in prog.zones:
            _check_layout(prog, d, err)
            continue
        if values is None and d.enum == "narration":
            _check_narration_switches(prog, d, err)
            continue
        if values is None:
            err.append(Diagnostic("E101", "error", f"unknown enum or counter `{d.enum}`", d.span,
                                  "`describe NAME { value = \"words\" }` names the values of an enum, words a "
                                  "counter's changes or lays out a zone's cards as a map"))
            continue
        for value, text, span in d.names:
            if value not in values:
                err.append(Diagnostic("E101", "error", f"`{value}` is not a value of enum `{d.enum}`", span,
                                      "its values are " + ", ".join(values[:8]) + (", …" if len(values) > 8 else "")))
            elif value in prog.value_names:
                err.append(Diagnostic("E103", "error", f"`{value}` is named twice", span,
                                      "give each value its words once"))
            elif not text.strip():
                err.append(Diagnostic("E173", "error", f"the words for `{value}` are empty", span,
                                      "say what a player reads, e.g. `wound1 = \"1 wound\"`"))
            else:
                prog.value_names[value] = text


def _check_narration(prog: Program, d: A.DescribeNames, err: list[Diagnostic]) -> None:
    words_for = prog.narration_words.setdefault(d.enum, {})
    for key, text, span in d.names:
        if key not in NARRATION_KEYS:
            err.append(Diagnostic("E101", "error", f"`{key}` is not a kind of change narration words", span,
                                  "a counter's changes are worded by `gain`, `lose` and `change`"))
        elif key in words_for:
            err.append(Diagnostic("E103", "error", f"`{key}` is worded twice for `{d.enum}`", span))
        else:
            unknown = [h for h in HOLE.findall(text) if h not in NARRATION_HOLES]
            if unknown:
                err.append(Diagnostic("E134", "error", f"`{{{unknown[0]}}}` is no narration hole", span,
                                      "the holes are {who}, {s} (\"s\" unless the reader is who changed), "
                                      "{n} (by how much), {now} and {was}"))
            words_for[key] = text


def _check_narration_switches(prog: Program, d: A.DescribeNames, err: list[Diagnostic]) -> None:
    """`describe narration { causes = "off" }`: the ruleset's narration without its causes (each change said
    under the log line before it is the default). Why a switch: a ruleset whose log lines do not precede their
    effects would have every change quoted under the wrong line."""
    for key, text, span in d.names:
        if key != "causes":
            err.append(Diagnostic("E101", "error", f"`{key}` is not a narration setting", span,
                                  "`describe narration { causes = \"off\" }` is the one setting"))
        elif text not in ("on", "off"):
            err.append(Diagnostic("E101", "error", f"narration causes are \"on\" or \"off\", not {text!r}", span))
        else:
            prog.narration_causes = text == "on"


# `describe ZONE { x = "col", y = "floor", links = "next", … }`: the zone's cards drawn as a map of rows (the web
# page's SVG; engine/seatview.py). Each key names a field of the zone's card kind, a counter or a zone.
LAYOUT_FIELDS = {"x": "int", "y": "int", "links": "list", "label": "enum", "group": "int", "slot": "int"}
LAYOUT_OTHER = {"chosen": "counter", "here": "zone"}
_TOKEN = re.compile(r"^\s*(\w+)\s+in\s+(\w+)\s*$")


def token_spaces(text: str) -> dict[str, str] | None:
    """`tokens = "dark_token in dark_tokens, light_token in light_tokens"`: per `label` value, the zone whose
    `slot`-th card lies on a space of that label (Slay the Spire's map tokens); None when it does not parse."""
    out = {}
    for part in text.split(","):
        m = _TOKEN.match(part)
        if m is None:
            return None
        out[m.group(1)] = m.group(2)
    return out


def _check_tokens(prog: Program, d: A.DescribeNames, text: str, span: Span, label_enum: str | None,
                  err: list[Diagnostic]) -> None:
    """The `tokens` key: each `VALUE in ZONE` names a value of the label's enum and a zone (E101)."""
    spaces = token_spaces(text)
    if spaces is None:
        err.append(Diagnostic("E101", "error", f"`tokens` of the map of `{d.enum}` does not read as "
                              "`VALUE in ZONE, …`", span, 'e.g. tokens = "dark_token in dark_tokens"'))
        return
    values = prog.enums.get(label_enum or "", [])
    for value, zone in spaces.items():
        if value not in values:
            err.append(Diagnostic("E101", "error", f"`{value}` is not a value of the map's `label` field", span,
                                  "`tokens` needs `label` and names its values"))
        if zone not in prog.zones:
            err.append(Diagnostic("E101", "error", f"unknown zone `{zone}`", span))


def _check_layout(prog: Program, d: A.DescribeNames, err: list[Diagnostic]) -> None:
    """A zone's map layout: x, y (int fields), links (a list of int field: the x of the next row's cards it leads
    to), label (an enum field), group and chosen (draw the cards whose group field equals the counter), here (a
    zone whose last card is where the players are). E101 for anything unknown, E102 for a field of another type."""
    zone = prog.zones[d.enum]
    kind = zone.of_kind
    types = prog.field_types.get(kind or "", {})
    got: dict[str, str] = {}
    for key, name, span in d.names:
        if key in LAYOUT_FIELDS:
            t = types.get(name)
            if t is None:
                err.append(Diagnostic("E101", "error", f"`{name}` is no field of `{kind}`, the cards of `{d.enum}`",
                                      span, "fields: " + ", ".join(types)))
            elif t.kind != LAYOUT_FIELDS[key] and not (key == "links" and t.kind == "list"):
                err.append(Diagnostic("E102", "error", f"`{key}` needs a field of type {LAYOUT_FIELDS[key]}, and "
                                      f"`{name}` is {t}", span))
        elif key == "tokens":
            label = types.get(dict((k, n) for k, n, _ in d.names).get("label", ""))
            _check_tokens(prog, d, name, span, str(label.arg) if label is not None else None, err)
        elif key in LAYOUT_OTHER:
            known = prog.counters if LAYOUT_OTHER[key] == "counter" else prog.zones
            if name not in known:
                err.append(Diagnostic("E101", "error", f"unknown {LAYOUT_OTHER[key]} `{name}`", span))
        else:
            err.append(Diagnostic("E101", "error", f"`{key}` is not a key of a zone's map", span,
                                  "a zone's map takes x, y, links, label, group, chosen, here, slot and tokens"))
        got[key] = name
    if "x" not in got or "y" not in got:
        err.append(Diagnostic("E101", "error", f"the map of `{d.enum}` needs both `x` and `y`", d.span))
    elif ("tokens" in got) != ("slot" in got):
        err.append(Diagnostic("E101", "error", f"the map of `{d.enum}` needs `slot` and `tokens` together", d.span,
                              "`slot` is the int field numbering the spaces a zone's cards lie on"))
    else:
        prog.zone_layouts[d.enum] = got


def shown_enum(ty: object) -> str | None:
    """The enum whose values a shown value of type ``ty`` prints: an enum, or a list or set of one."""
    while getattr(ty, "kind", None) in ("list", "set"):
        ty = getattr(ty, "elem", None)
    return str(getattr(ty, "arg", "")) if getattr(ty, "kind", None) == "enum" else None


def raw_values(prog: Program, shown: dict[str, Span]) -> list[Diagnostic]:
    """W090: per enum shown to players (``shown``: enum → where first shown), its values that read as
    identifiers and have no words from a `describe` block or the card data."""
    have = value_words(prog)
    out = []
    for enum, span in shown.items():
        raw = [v for v in prog.enums.get(enum, []) if v not in have and looks_raw(v)]
        if raw:
            listed = ", ".join(f"`{v}`" for v in raw[:6]) + (f" and {len(raw) - 6} more" if len(raw) > 6 else "")
            out.append(Diagnostic(
                "W090", "warning", f"players see values of enum `{enum}` here, and {listed} would read as "
                f"identifiers", span,
                f"name them: `describe {enum} {{ {raw[0]} = \"…\" }}` (docs/language.md, Words for enum values)"))
    return out

