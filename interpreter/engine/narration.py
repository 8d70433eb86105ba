"""Narration: what changed for a player between two moments, said in words ("You lose 5 health (now 3)").

Why it is computed from two views and nothing else: a view (:meth:`GameViews.view`) is exactly what a player may
see, built from the engine's visibility masks. Narration compares the view a player had (at their last decision)
with the one they have now, so it can say nothing the player could not have found by diffing the panel by eye:
it is leak-free by construction, and the fuzz's noninterference probe compares it in both worlds as well.
Hand-written `log` lines say *why* (the die, the card); narration says *what* it did to what the player sees,
including the changes no log line mentions (a banked echo taken, a hidden card drawn).

What is narrated:
- counters, pools and tracks (not flags: those are the rules' bookkeeping), the player's own as "You", others'
  as "P2", per-card ones by the card's name, other counters by their name;
- every visible card that moved between zones the player sees ("Hunter Axe: your hand → the discard pile"),
  came into sight or left it;
- the number of face-down cards in each zone, when it changed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from liturgy.dsl.checker.program import Program
from liturgy.dsl.checker.wording import HOLE as _HOLE
from liturgy.interpreter.runtime.names import place_labels, value_text, words

# at most this many lines per narration: a whole round of a 5-player game must still fit above the question
MAX_LINES = 14


def _hidden(name: str) -> bool:
    return name == "?" or name.startswith("? (")


def _zone_places(prog: Program, view: dict[str, Any], me: str) -> Iterator[tuple[str, list[str]]]:
    """Every zone of ``view`` as (the place in words for ``me``, its cards)."""
    for name, z in view.get("zones", {}).items():
        label = words(name)
        if isinstance(z, dict):
            decl = prog.zones.get(name)
            per_card = decl is not None and decl.per_card
            for owner, cards in z.items():
                place = f"{owner}'s {label}" if per_card else \
                    f"your {label}" if owner == me else f"{owner}'s {label}"
                yield place, cards
        else:
            yield f"the {label}", z


def _card_lines(prog: Program, before: dict[str, Any], after: dict[str, Any], me: str) -> list[str]:
    """Visible cards that moved, came into sight or left it, and face-down counts that changed."""
    was: dict[str, Counter[str]] = {}
    now: dict[str, Counter[str]] = {}
    down_was: dict[str, int] = {}
    down_now: dict[str, int] = {}
    # only zones whose cards changed can tell a move: a card lying in an unchanged zone did not move (and copies
    # of one name there cancel out on both sides). Each zone is compared whole first (in C), so the many quiet
    # zones of a big game are never walked; a place belongs to one zone, so the places of the changed zones keep
    # the order they have among all places, and what follows reads exactly as if every zone had been walked
    old_zones, new_zones = before.get("zones", {}), after.get("zones", {})
    if old_zones == new_zones:
        return []
    moved_zones = {name for name, z in old_zones.items() if new_zones.get(name) != z}
    moved_zones.update(name for name in new_zones if name not in old_zones)
    old_places = dict(_zone_places(prog, {"zones": {n: z for n, z in old_zones.items() if n in moved_zones}}, me))
    new_places = dict(_zone_places(prog, {"zones": {n: z for n, z in new_zones.items() if n in moved_zones}}, me))
    order = {place: i for i, place in enumerate(list(old_places) + [p for p in new_places if p not in old_places])}
    changed = [p for p in order if old_places.get(p) != new_places.get(p)]
    # a card held as many times in each changed place before as after says nothing (its moves cancel out): only
    # the others are gathered, each with its places in the order walked, so what is said and its order are as if
    # every card had been. The names of a place are compared as sets (in C); counted only where copies repeat
    counted = []
    telling: set[str] = set()
    for place in changed:
        lw, ln = old_places.get(place, ()), new_places.get(place, ())
        sw, sn = set(lw), set(ln)
        for names, held, down in ((sw, lw, down_was), (sn, ln, down_now)):
            hidden = [c for c in names if _hidden(c)]
            if hidden:
                down[place] = sum(map(held.count, hidden))
        differ = sw ^ sn
        if len(sw) < len(lw) or len(sn) < len(ln):  # copies of one name: the same names, other numbers
            differ.update(c for c in sw & sn if lw.count(c) != ln.count(c))
        telling.update(c for c in differ if not _hidden(c))
        counted.append((place, lw, ln, sw, sn))
    for place, lw, ln, sw, sn in counted if telling else ():
        for held, names, where in ((lw, sw, was), (ln, sn, now)):
            for c in telling & names:
                where.setdefault(c, Counter())[place] = held.count(c)
    # what went where, grouped: one line per route, per place reached and per place left ("Strike ×4")
    moved: dict[tuple[str, str], Counter[str]] = {}
    came_in: dict[str, Counter[str]] = {}
    went_out: dict[str, Counter[str]] = {}
    for card in sorted(set(was) | set(now), key=lambda c: (order[_first_place(now, was, c)], c)):
        gone = list((was.get(card, Counter()) - now.get(card, Counter())).elements())
        came = list((now.get(card, Counter()) - was.get(card, Counter())).elements())
        for a, b in _paired(gone, came):
            moved.setdefault((a, b), Counter())[card] += 1
        for b in came:
            came_in.setdefault(b, Counter())[card] += 1
        for a in gone:
            went_out.setdefault(a, Counter())[card] += 1
    out = [f"{_names(cards)}: {a} → {b}" for (a, b), cards in moved.items()]
    out += [f"{_names(cards)} {'comes' if cards.total() == 1 else 'come'} into {b}" for b, cards in came_in.items()]
    out += [f"{_names(cards)} {'leaves' if cards.total() == 1 else 'leave'} {a}" for a, cards in went_out.items()]
    counts = [f"{place} {down_was.get(place, 0)} → {down_now.get(place, 0)}" for place in changed
              if down_was.get(place, 0) != down_now.get(place, 0)]
    if counts:
        out.append("Face-down cards: " + ", ".join(counts))
    return out


def _names(cards: Counter[str]) -> str:
    """Card names in their order, each once, with how many when more than one ("Strike ×4, Bash")."""
    return ", ".join(c if n == 1 else f"{c} ×{n}" for c, n in cards.items())


def _paired(gone: list[str], came: list[str]) -> list[tuple[str, str]]:
    """Moves of one card name (two players' Strikes): a place left and a place reached, the same owner's first
    (your hand → your discard, not your hand → P2's discard). What is paired is taken out of both lists."""
    pairs = []
    for same_owner in (True, False):
        for b in list(came):
            a = next((a for a in gone if not same_owner or a.split(" ")[0] == b.split(" ")[0]), None)
            if a is not None:
                pairs.append((a, b))
                gone.remove(a)
                came.remove(b)
    return pairs


def _first_place(now: dict[str, Counter[str]], was: dict[str, Counter[str]], card: str) -> str:
    """Where a card is now (else where it was): narration lists cards in the order of the zones they are in."""
    return min((now.get(card) or was[card]).keys())


def _in_sight(view: dict[str, Any]) -> set[str]:
    """The names of the cards a view shows face up, in any zone."""
    out: set[str] = set()
    for z in view.get("zones", {}).values():
        for cards in z.values() if isinstance(z, dict) else [z]:
            out.update(c for c in cards if not _hidden(c))
    return out


def _amount(who: str, name: str, old: Any, new: Any, places: dict[str, str] | None = None,
            worded: dict[str, str] | None = None) -> list[str]:
    """One counter's change: "You lose 5 health (now 3)", "P2 gains 1 banked (now 2)", "Supply: 129 → 125", or
    the ruleset's own words for it (``worded``: `describe health { lose = "…" }`; "" says nothing)."""
    label = words(name)
    places = places or {}

    def said(v: Any) -> str:
        return places[v] if isinstance(v, str) and v in places else value_text(v)

    counted = isinstance(old, int) and isinstance(new, int) and not isinstance(old, bool)
    if worded:
        key = ("gain" if new > old else "lose") if counted else "change"
        template = worded.get(key, worded.get("change"))
        if template is not None:
            return [_fill(template, who, abs(new - old) if counted else 0, said(new), said(old))] if template else []
    if counted and who:
        you = who == "You"
        verb = ("gain" if you else "gains") if new > old else ("lose" if you else "loses")
        return [f"{who} {verb} {abs(new - old)} {label} (now {new})"]
    head = f"{who}: {label}" if who else label[:1].upper() + label[1:]
    return [f"{head}: {said(old)} → {said(new)}"]


def _fill(template: str, who: str, n: int, now: str, was: str) -> str:
    """A ruleset's narration words with their holes filled; only these holes, never Python formatting (the text
    is untrusted)."""
    holes = {"who": who or "", "s": "" if who == "You" else "s", "n": str(n), "now": now, "was": was}
    out = _HOLE.sub(lambda m: holes.get(m.group(1), m.group(0)), template)
    return out[:1].upper() + out[1:]


def _counter_lines(prog: Program, before: dict[str, Any], after: dict[str, Any], me: str) -> list[str]:
    out: list[str] = []
    old_all, new_all = before.get("counters", {}), after.get("counters", {})
    if old_all == new_all:  # compared in C: most parts of a timeline change cards or nothing
        return out
    seen: list[set[str]] = []  # the cards in sight in both views, computed when a per-card counter changed
    places = place_labels(prog)
    for name, decl in prog.counters.items():
        if decl.is_flag or name not in new_all or name not in old_all:
            continue
        old, new = old_all[name], new_all[name]
        if old == new:
            continue
        if decl.scope == "global":
            out.extend(_indexed("", name, old, new) if decl.index_enum else
                       _amount("", name, old, new, places, prog.narration_words.get(name)))
            continue
        if not isinstance(old, dict) or not isinstance(new, dict):
            continue
        if decl.scope == "card" and decl.held is None:
            # a per-card counter lists only the cards it is not 0 on: one in sight on both sides that is missing
            # on one side is 0 there (a card out of sight says nothing)
            # in the views' order (a set's order changes with the process's string hashing: two servers, or a
            # server and its restart, told a seat the same changes in different orders); the cards in sight are
            # gathered only when a card is missing on one side (walking every zone of both views is costly)
            keys = [*old, *(k for k in new if k not in old)]
            if not seen and any(k not in old or k not in new for k in keys):
                seen.append(_in_sight(before) & _in_sight(after))
            old = {k: old.get(k, 0) for k in keys if k in old and k in new or k in seen[0]}
            new = {k: new.get(k, 0) for k in old}
        # per player (keyed P1, P2 …) or per card (keyed by the names of the cards this viewer sees)
        for key in [k for k in new if k in old]:
            if old[key] == new[key]:
                continue
            who = "You" if key == me else _copy_words(prog, key, me) if decl.scope == "card" else key
            out.extend(_indexed(who, name, old[key], new[key]) if decl.index_enum
                       else _amount(who, name, old[key], new[key], places, prog.narration_words.get(name)))
    return out


_COPY = re.compile(r"(.+) \(([^()]+)\)(?: #(\d+))?")


def _copy_words(prog: Program, key: str, me: str) -> str:
    """A per-card counter's key in words: copies of one card shown together are keyed by where each lies
    (engine/views.py ``card_keyed``: ``False Tip-off (event_discard)``, ``Ember (P2.hand) #2``), which a player
    reads as "False Tip-off in the event discard", "Ember in P2's hand (copy 2)". A key that is not such a copy
    (a card whose own name ends in brackets) is the card's name as it stands. A zone of each card reads as the
    host card's ("Ember in Hunter Axe's attachments")."""
    m = _COPY.fullmatch(key)
    if m is None:
        return key
    name, where, copy = m.groups()
    owner, _, zone = where.rpartition(".")
    if zone not in prog.zones:
        return key
    place = f"the {words(zone)}" if not owner else f"your {words(zone)}" if owner == me else \
        f"{owner}'s {words(zone)}"
    return f"{name} in {place}" + (f" (copy {copy})" if copy else "")


def _indexed(who: str, name: str, old: Any, new: Any) -> list[str]:
    """A counter indexed by an enum (`trophies[Trophy]`): one line per entry that changed."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return _amount(who, name, old, new)
    return [line for k, v in new.items() if old.get(k) != v for line in _amount(who, f"{name} {words(str(k))}",
                                                                                   old.get(k), v)]


def narrate(prog: Program, before: dict[str, Any] | None, after: dict[str, Any]) -> list[str]:
    """What changed between two views of the same viewer, as lines a player reads (none when ``before`` is
    None: the first question has nothing to compare with). Long narrations end with how many lines were left
    out; the status panel shows the whole position anyway."""
    if before is None or before.get("viewer") != after.get("viewer"):
        return []
    me = str(after.get("viewer"))
    lines = _counter_lines(prog, before, after, me) + _card_lines(prog, before, after, me)
    if len(lines) > MAX_LINES:
        lines = lines[:MAX_LINES - 1] + [f"… and {len(lines) - MAX_LINES + 1} more changes"]
    return lines
