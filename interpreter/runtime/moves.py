"""Moving cards between zones, and who can see a card where it lies: shared by closures and generated code."""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType

from liturgy.interpreter.runtime.errors import RuleError
from liturgy.interpreter.runtime.state import GameState, moved_source


def move_card(s: GameState, c: int, dst: int, place: str, noted: bool = False) -> None:
    """Move card ``c`` to the top (or ``bottom``) of zone ``dst``: the one card move every path runs.

    The closures call it; generated code calls it too, or writes :data:`OPEN_MOVE` in place when the
    destination is known to have no capacity.  A card is found with ``pop`` when it is the top one (moves
    from the top are the common case) and with ``remove`` otherwise: cards are unique in zones, so both
    remove the same card.
    """
    t = s.tables
    src = s.card_zone[c]
    if noted and (mv := s.moved) is not None:  # the noted variant's move (move_card_noted, below)
        mv.append(c)
    if src != dst:
        if t.zone_final[src]:
            raise RuleError(f"{t.card_names[c]} cannot leave `{t.zone_names[src]}`: cards never leave a final zone")
        cap = t.zone_capacity[dst]
        if cap is not None and len(s.zones[dst]) >= cap:
            raise RuleError(f"zone `{t.zone_names[dst]}` is full (capacity {cap})")
        if t.zone_final[dst]:  # from a zone that is not final into one that is: out of play from now on
            s.removed_count += 1
    z = s.zones[src]
    if z[-1] == c:
        z.pop()
    else:
        z.remove(c)
    if place == "bottom":
        s.zones[dst].insert(0, c)
    else:
        s.zones[dst].append(c)
    s.card_zone[c] = dst
    if s.face_up:
        s.face_up.discard(c)
    if s.shown:
        s.shown.pop(c, None)


# The card moves of the noted variant of the compiled code (Ruleset.noted: invariant-checked games), bound in its
# place by the code generators and the closures: the same functions with ``noted`` True by default, so each notes
# the cards it may move in ``GameState.moved`` for the invariant certificate (interpreter/runtime/invariants.py
# checks exactly the noted cards' places and the zones they left and entered) before it moves. Noting first is
# exact: a move that raises has changed nothing, and a card noted without a move costs a check, never a wrong
# answer. Unchecked code calls the plain functions: one test of a local flag.
def _noting(fn: Callable[..., None]) -> Callable[..., None]:
    """``fn`` (whose last parameter is ``noted``) with ``noted`` True by default: the same code, no wrapper call."""
    made = FunctionType(fn.__code__, fn.__globals__, f"{fn.__name__}_noted", (True,), fn.__closure__)
    made.__doc__, made.__qualname__ = fn.__doc__, f"{fn.__qualname__}_noted"
    return made


# `move_card` for a destination without a capacity, as the source generated code writes in place of the call
# (interpreter/codegen/stmtgen.py); {c} is the card, {d} the destination, {o} and {z} fresh names, {put} the
# append or insert, {noted} the note of the moved card for the invariant certificate (state.moved_source), {count} the
# removed-count line for a final destination.  A card in a final zone still goes
# through `_move`, which raises the same error as the call.  tests/test_moves.py plays both against each other.
OPEN_MOVE = """\
{o} = s.card_zone[{c}]
if s.tables.zone_final[{o}]:
    _move(s, {c}, {d}, {place})
else:
    {z} = s.zones[{o}]
    {z}.pop() if {z}[-1] == {c} else {z}.remove({c})
    {put}
    {noted}
    s.card_zone[{c}] = {d}
    if s.face_up or s.shown: _unmark(s, ({c},))
{count}"""


def open_move_source(c: str, d: str, o: str, z: str, place: str, final: bool, notes: bool = True,
                     finals: bool = True) -> list[str]:
    """:data:`OPEN_MOVE` filled in: the lines of one card move to a destination with no capacity. Without
    ``finals`` (the ruleset declares no final zone) no card can be in one: the test and its branch are left out."""
    put = f"s.zones[{d}].insert(0, {c})" if place == "bottom" else f"s.zones[{d}].append({c})"
    # a final destination: the card left another zone (one that is not final), so it is out of play now
    count = "    s.removed_count += 1" if final else ""
    noted = moved_source(c) if notes else ""  # the unchecked variant notes nothing
    text = OPEN_MOVE.format(c=c, d=d, o=o, z=z, place=repr(place), put=put, count=count, noted=noted)
    lines = [line for line in text.split("\n") if line.strip()]
    if not finals:  # the `else:` branch alone, one level up
        lines = [lines[0], *(line[4:] for line in lines[4:] if line.startswith("    "))]
    return lines


def card_ids(value: object) -> list[int]:
    """The cards in a logged value: a card, a list of cards, a list of lists of cards (``none`` left out)."""
    if isinstance(value, tuple):
        return [c for v in value for c in card_ids(v)]
    return [] if value is None else [value]  # type: ignore[list-item]


def card_visibility(s: GameState, c: int) -> int:
    """Bitmask of the players who can see card ``c`` where it is now.

    Bit ``n`` (one past the last player) is the spectator, who sees only public and revealed cards: in a
    one-player game "every player" and "everyone" differ, so the spectator needs a bit of its own.
    The mask of each zone is computed once per player count (:func:`zone_vis_masks`).
    """
    if c in s.face_up:
        return (2 << s.tables.n) - 1
    z = s.card_zone[c]
    mask = s.tables.zone_vis_mask[z]
    if mask < 0:  # a zone `visible to` a group: who is in it now
        mask = s.tables.zone_group[z](s)
    if s.shown:
        mask |= s.shown.get(c, 0)
    return mask


def visible_cards(s: GameState, who: int) -> list[bool]:
    """Per card id, whether viewer ``who`` (a player, or ``n``: the spectator) sees it now: what
    :func:`card_visibility` says of every card, computed zone by zone (each zone's mask, or group, once)."""
    t = s.tables
    bit = 1 << who
    seen = [False] * len(s.card_zone)
    for zi, cards in enumerate(s.zones):
        if cards:
            mask = t.zone_vis_mask[zi]
            if mask < 0:
                mask = t.zone_group[zi](s)
            if mask & bit:
                for c in cards:
                    seen[c] = True
    for c in s.face_up:
        seen[c] = True
    for c, mask in s.shown.items():
        if mask & bit:
            seen[c] = True
    return seen


def players_mask(value: int | tuple[int | None, ...] | None) -> int:
    """Bitmask of a player or a list of players (`log to`, `reveal … to`, `visible to`); `none` is no one.

    The spectator's bit is never set: a group is made of players, and what is shown to players only is not
    shown to an onlooker."""
    if isinstance(value, tuple):
        mask = 0
        for p in value:
            if p is not None:
                mask |= 1 << p
        return mask
    return 0 if value is None else 1 << value


def reveal_to(s: GameState, cards: tuple[int, ...] | list[int], mask: int) -> None:
    """`reveal … to PLAYERS`: each card is shown to those players, besides whoever sees it already, until it
    next moves (:func:`move_card` forgets it)."""
    if mask:
        shown = s.shown
        for c in cards:
            shown[c] = shown.get(c, 0) | mask


def zone_vis_masks(n: int, zone_vis: list[str], zone_owner: list[int], zone_host: list[int] | None = None) -> list[int]:
    """Per zone, who sees a face-down card lying there: everyone (public), its owner (owner-only or secret
    zones of a player), nobody (hidden zones, shared secret zones), or -1: computed when asked
    (``Tables.zone_group``): a group (`visible to`), or a zone per card `as host`, whose owner changes as its
    host card moves (:func:`hosted_mask`)."""
    everyone = (2 << n) - 1
    hosts = zone_host or [-1] * len(zone_vis)
    return [everyone if vis == "public" else -1 if vis == "group" or host >= 0
            else (1 << owner) if vis in ("owner", "secret") and owner >= 0 else 0
            for vis, owner, host in zip(zone_vis, zone_owner, hosts, strict=True)]


def zone_owner_now(s: GameState, zi: int) -> int:
    """The player who owns zone ``zi`` now (-1: nobody). A zone per card declared `as host` has the owner of
    the zone its host card lies in, followed host by host (a chain that loops back, a card lying in its own
    zone, has no owner)."""
    t = s.tables
    host = t.zone_host[zi] if t.zone_host else -1
    for _ in range(len(s.card_zone) + 1):
        if host < 0:
            return t.zone_owner[zi]
        zi = s.card_zone[host]
        host = t.zone_host[zi]
    return -1


def hosted_mask(s: GameState, zi: int) -> int:
    """Who sees a face-down card in zone ``zi``, a zone per card `as host`: its visibility word, with the
    owner of the zone its host card lies in now."""
    vis = s.tables.zone_vis[zi]
    if vis == "public":
        return (2 << s.tables.n) - 1
    owner = zone_owner_now(s, zi)
    return (1 << owner) if vis in ("owner", "secret") and owner >= 0 else 0


def move_all(s: GameState, cards: tuple[int, ...], dst: int, place: str, noted: bool = False) -> None:
    """Move ``cards`` one after another, as `move LIST to ZONE` does.

    A short list (most: Bloodborne's `move [c for c in p.played where c.dream] to p.hand` moves one or two cards)
    is :func:`move_card` of each card in turn, its checks and writes in this loop, not a call per card (nor a
    second call for the loop: session 27). A long one goes to :func:`_move_many`, one pass per source zone.
    """
    t = s.tables
    if noted and (mv := s.moved) is not None:  # every card (what is no card raises below, having moved nothing)
        mv.extend(cards)
    if t.zone_capacity[dst] is not None:  # one by one: each move checks the room left
        for c in cards:
            move_card(s, c, dst, place)
        return
    if len(cards) >= 8:  # sets cost more than they save on fewer
        _move_many(s, cards, dst, place)
        return
    final = t.zone_final
    zones = s.zones
    card_zone = s.card_zone
    for c in cards:
        src = card_zone[c]
        if src != dst:
            if final[src]:
                raise RuleError(f"{t.card_names[c]} cannot leave `{t.zone_names[src]}`: cards never leave a final zone")
            if final[dst]:  # from a zone that is not final into one that is: out of play from now on
                s.removed_count += 1
        z = zones[src]
        if z[-1] == c:
            z.pop()
        else:
            z.remove(c)
        if place == "bottom":
            zones[dst].insert(0, c)
        else:
            zones[dst].append(c)
        card_zone[c] = dst
        if s.face_up:
            s.face_up.discard(c)
        if s.shown:
            s.shown.pop(c, None)


def _move_many(s: GameState, cards: tuple[int, ...], dst: int, place: str) -> None:
    """:func:`move_all` of 8 cards or more to ``dst``, a zone without a capacity, in one pass per source zone.

    Removing k cards from a zone of n one by one costs k·n; filtering the zone once costs n.  The result
    is the same whenever no card can fail to move: no card is in a final zone or already in the destination,
    and no card is listed twice.  Otherwise each card moves in turn.
    """
    card_zone = s.card_zone
    final = s.tables.zone_final
    # one set of source zones and one set of cards (no dict of sets per card): a character's ~80 cards leaving
    # Slay the Spire's 338-card library cost 25 µs that way, most of it per-card dict and set calls
    sources = {card_zone[c] for c in cards}
    moving = set(cards)
    if dst in sources or len(moving) != len(cards) or any(final[src] for src in sources):
        for c in cards:
            move_card(s, c, dst, place)
        return
    zones = s.zones
    for src in sources:  # a card of `moving` found in zone src is one of the cards that come from src
        z = zones[src]
        z[:] = [c for c in z if c not in moving]
    if place == "bottom":
        zones[dst][0:0] = cards[::-1]
    else:
        zones[dst].extend(cards)
    for c in cards:
        card_zone[c] = dst
    if s.face_up:
        s.face_up.difference_update(cards)
    if s.shown:
        for c in cards:
            s.shown.pop(c, None)
    if final[dst]:
        s.removed_count += len(cards)


def move_zone(s: GameState, src: int, dst: int, place: str, noted: bool = False) -> None:
    """`move ZONE to ZONE`: every card of ``src``, bottom card first, exactly as `move_all` of a copy of it.

    When no card can fail to move (``src`` is not final, ``dst`` is another zone without a capacity) the
    cards keep their order on top of ``dst`` (or, moved to the bottom one by one, end up reversed under it)
    and ``src`` is emptied in place: one extend and one clear instead of a pop and an append per card.
    """
    cards = s.zones[src]
    if not cards:
        return
    if noted and (mv := s.moved) is not None:
        mv.extend(cards)
    t = s.tables
    if src == dst or t.zone_final[src] or t.zone_capacity[dst] is not None:
        move_all(s, tuple(cards), dst, place)
        return
    if place == "bottom":
        s.zones[dst][0:0] = cards[::-1]
    else:
        s.zones[dst].extend(cards)
    card_zone = s.card_zone
    for c in cards:
        card_zone[c] = dst
    if s.face_up:
        s.face_up.difference_update(cards)
    if s.shown:
        for c in cards:
            s.shown.pop(c, None)
    if t.zone_final[dst]:
        s.removed_count += len(cards)
    cards.clear()


def unmark(s: GameState, cards: list[int]) -> None:
    """Forget that ``cards``, which just moved, were face up or shown to anyone: a card's marks last until it
    next moves. Generated code calls it only when some card is marked (rare), so a move written in place is
    one test in the common case."""
    if s.face_up:
        s.face_up.difference_update(cards)
    if s.shown:
        for c in cards:
            s.shown.pop(c, None)


move_card_noted = _noting(move_card)
move_all_noted = _noting(move_all)
move_zone_noted = _noting(move_zone)
