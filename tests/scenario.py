"""Build game positions by card *names* for scenario tests.

The rulebook's worked examples (shared/rules/bloodborne.md section 13) start
from positions that a seeded game rarely reaches: a given monster with a given
number of blood echoes, hands and discard piles with given cards, given
health, collected and banked echoes.  Playing the whole game up to such a
position would make every test depend on shuffles and on many unrelated
choices, so these helpers edit the state of a real game instead and then let
the real engine and ruleset play the round.

Rules for editing a position, and why:

* Edit only while the game waits at a decision, best the step-1 simultaneous
  choice at the start of a round (right after ``new_game`` the game waits at
  round 1, step 1).  Between decisions the engine is in the middle of a step
  and its locals would disagree with an edited state.
* Keep the engine's bookkeeping right: cards move with
  :func:`liturgy.interpreter.compiler.compiler.move_card` (it keeps ``card_zone`` and the
  count of cards sent to final zones), and blood echoes always come from or go
  back to ``supply``, because the ``blood`` pool must stay at 135
  (``check_invariants=True`` checks it at every decision).
* The pending decision lists options computed *before* the edit.  After
  editing, call :func:`refresh_decision`, which asks the ruleset to compute the
  options again for the new position.

Players are 0-based here (P1 is 0), as in the engine API.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from liturgy.interpreter.compiler.code import FIRST_SLOT
from liturgy.interpreter.engine import Game
from liturgy.interpreter.runtime.moves import move_card
from liturgy.interpreter.runtime.state import note_slot
from rng_search import first_state

# ---------------------------------------------------------------- addressing


def zone_index(g: Game, zone: str, player: int | None = None) -> int:
    """Index of a global zone (``player`` None) or of a player's zone (P1's hand: ``zone_index(g, "hand", 0)``)."""
    lay = g.ruleset.compiled.layout
    if player is None:
        return lay.zone_global[zone]
    return lay.zone_player_base + player * lay.zone_player_stride + lay.zone_player_offsets[zone]


def global_slot(g: Game, counter: str) -> int:
    """Counter slot of a global counter or pool part (``"supply"``)."""
    return g.ruleset.compiled.layout.global_slots[counter]


def player_slot(g: Game, counter: str, player: int, index: str | None = None) -> int:
    """Counter slot of a per-player counter; ``index`` names the enum entry of an indexed counter (``trophies``)."""
    lay = g.ruleset.compiled.layout
    slot = lay.player_base + player * lay.player_stride + lay.player_offsets[counter]
    if index is not None:
        enum = g.ruleset.program.counters[counter].index_enum
        slot += lay.enum_index[enum][index]
    return slot


def card_slot(g: Game, cid: int, counter: str = "echoes") -> int:
    """Counter slot of a per-card counter (the echoes on a monster)."""
    lay = g.ruleset.compiled.layout
    return lay.card_base + cid * lay.card_stride + lay.card_offsets[counter]


def set_counter(g: Game, slot: int, value: Any) -> None:
    """Write counter slot ``slot`` as a rule would: the value, and the note of the write that a checked game's
    invariant certificate reads (interpreter/runtime/state.py ``note_slot``).

    Why: an edit the record does not see is found by the certificate's comparison, which then checks the whole
    state and takes a new certificate: exact, but Slay the Spire's 33,782 counter slots make that the largest cost
    of a test that edits the state between every two decisions. Noted, the next check looks at the edited slots
    (their bounds and pools) as it looks at any rule's write, and reports the same violations."""
    g.state.counters[slot] = value
    note_slot(g.state, slot)


def field(g: Game, cid: int, name: str) -> Any:
    """A printed field of card ``cid`` (``health``, ``kind``, ``boss``...)."""
    return g.state.tables.fields[name][cid]


def names(g: Game, zone: str, player: int | None = None) -> list[str]:
    """Card names in a zone, bottom to top, read from the state (no visibility filter)."""
    s = g.state
    return [s.tables.card_names[c] for c in s.zones[zone_index(g, zone, player)]]


def owned(g: Game, player: int) -> list[str]:
    """Every Action card a hunter owns: hand + played + discard (what the 7-card limit counts)."""
    return names(g, "hand", player) + names(g, "played", player) + names(g, "discard", player)


def where(g: Game, cid: int) -> str:
    """Name of the zone card ``cid`` is in (``"current"``, ``"P1.hand"``...)."""
    s = g.state
    return s.tables.zone_names[s.card_zone[cid]]


def card_ids(g: Game, name: str) -> list[int]:
    """Every card id with this name (a starting card has one copy per player)."""
    ids = [c for c, n in enumerate(g.state.tables.card_names) if n == name]
    if not ids:
        raise KeyError(f"no card named {name!r}")
    return ids


def find_card(g: Game, name: str, prefer: Sequence[int], exclude: Iterable[int] = ()) -> int:
    """A card id named ``name``, taken from the first zone of ``prefer`` (zone indexes) that holds one.

    Copies in ``exclude`` (already picked) are skipped, so asking twice for
    "Blood Vial" gives both copies.  Raises if no preferred zone holds one:
    silently taking a card from, say, another hunter's hand would give a
    position the rules can never reach.
    """
    skip = set(exclude)
    s = g.state
    ids = [c for c in card_ids(g, name) if c not in skip]
    for zi in prefer:
        for c in ids:
            if s.card_zone[c] == zi:
                return c
    places = sorted({where(g, c) for c in ids})
    raise LookupError(f"no free {name!r} in the expected zones (copies are in {places})")


def _is_upgrade(g: Game, cid: int) -> bool:
    prog = g.ruleset.program
    return prog.cards[g.state.tables.card_def[cid]].start == "upgrade_deck"


def _require_decision(g: Game) -> None:
    s = g.state
    if s.status != "running" or s.pending is None:
        raise RuntimeError(f"positions can only be edited at a decision (status {s.status}, error {s.error})")
    if s.commits:
        raise RuntimeError("edit before anybody commits a simultaneous choice: refreshing would drop the commits")


def _move(g: Game, cid: int, zone: int, place: str = "") -> None:
    move_card(g.state, cid, zone, place)


# ---------------------------------------------------------------- blood echoes


def set_blood(g: Game, slot: int, value: int) -> None:
    """Set a ``blood`` pool slot (collected, banked, a card's echoes) to ``value``.

    The difference comes from (or goes back to) ``supply``, so the pool stays
    at 135; raises if the supply cannot pay.
    """
    s = g.state
    supply = global_slot(g, "supply")
    delta = value - s.counters[slot]
    if value < 0 or s.counters[supply] < delta:
        raise ValueError(f"cannot set {s.tables.counter_names[slot]} to {value}: supply holds {s.counters[supply]}")
    s.counters[supply] -= delta
    s.counters[slot] = value


def set_hunter(
    g: Game,
    player: int,
    *,
    health: int | None = None,
    collected: int | None = None,
    banked: int | None = None,
    trophies: Mapping[str, int] | None = None,
) -> None:
    """Set a hunter's health, collected/banked echoes (paid from the supply) and trophy positions."""
    s = g.state
    if health is not None:
        s.counters[player_slot(g, "health", player)] = health
    if collected is not None:
        set_blood(g, player_slot(g, "collected", player), collected)
    if banked is not None:
        set_blood(g, player_slot(g, "banked", player), banked)
    for t, v in (trophies or {}).items():
        s.counters[player_slot(g, "trophies", player, t)] = v


def set_first_player(g: Game, player: int) -> None:
    """Give the First Player token to ``player`` (turn order, dice roller and draft order start there)."""
    g.state.counters[FIRST_SLOT] = player


# ---------------------------------------------------------------- monsters


def set_final_boss(g: Game, name: str) -> int:
    """Make ``name`` the game's Final Boss (the card in zone ``final_boss``).

    The Final Boss's game-long ability is read from that zone, so this swaps
    the drawn Final Boss back into the box.  Echoes already on the current
    monster are not recomputed: set them with :func:`set_current_monster`.
    """
    _require_decision(g)
    fb, box = zone_index(g, "final_boss"), zone_index(g, "box")
    cid = find_card(g, name, [fb, box])
    if g.state.card_zone[cid] != fb:
        for old in list(g.state.zones[fb]):
            _move(g, old, box)
        _move(g, cid, fb)
    return cid


def set_current_monster(g: Game, name: str, echoes: int) -> int:
    """Make ``name`` the monster being fought, with ``echoes`` blood echoes on it.

    The card is taken from ``current``, the dungeon deck, the box or (for the
    Final Boss) zone ``final_boss``.  The previous current monster gives its
    echoes back to the supply and goes where the new one came from (dungeon or
    box), so the dungeon keeps its size (at the bottom of the dungeon, so it
    is not the next reveal); if the new one is the Final Boss, the old one
    goes to the box.  The echoes are paid from the supply.
    """
    _require_decision(g)
    s = g.state
    cur, dungeon, box, fb = (zone_index(g, z) for z in ("current", "dungeon", "box", "final_boss"))
    cid = find_card(g, name, [cur, dungeon, box, fb])
    src = s.card_zone[cid]
    if src != cur:
        back = src if src in (dungeon, box) else box
        for old in list(s.zones[cur]):
            set_blood(g, card_slot(g, old), 0)
            _move(g, old, back, "bottom" if back == dungeon else "")
        _move(g, cid, cur)
    set_blood(g, card_slot(g, cid), echoes)
    return cid


def put_on_dungeon_top(g: Game, name: str) -> int:
    """Make ``name`` the next card the dungeon reveals (taken from the dungeon or swapped in from the box)."""
    _require_decision(g)
    s = g.state
    dungeon, box = zone_index(g, "dungeon"), zone_index(g, "box")
    cid = find_card(g, name, [dungeon, box])
    if s.card_zone[cid] == box and s.zones[dungeon]:
        _move(g, s.zones[dungeon][-1], box)
    _move(g, cid, dungeon)  # appended: the top of a deck is its last card
    return cid


def clear_dungeon(g: Game) -> None:
    """Send every dungeon card to ``slain`` (as if all had been fought), so the next reveal is the Final Boss."""
    _require_decision(g)
    s = g.state
    slain = zone_index(g, "slain")
    for c in list(s.zones[zone_index(g, "dungeon")]):
        _move(g, c, slain)


# ---------------------------------------------------------------- action cards


def set_cards(g: Game, player: int, hand: Sequence[str], discard: Sequence[str] = ()) -> None:
    """Make ``player`` own exactly ``hand`` + ``discard`` (card names, in that order).

    Copies come from the player's own cards first (a starting card belongs to
    one hunter's set), then from the upgrade deck, then the market.  Owned
    cards that are not listed leave: upgrades go back to the upgrade deck,
    starting cards to ``removed`` (the only way a hunter loses one in play is
    the card limit).  A card taken from the market is replaced from the top
    of the upgrade deck, so the row keeps its size.  Hunter's Dream must be
    listed: it can never be removed.
    """
    _require_decision(g)
    s = g.state
    mine = [zone_index(g, z, player) for z in ("hand", "played", "discard")]
    prefer = [*mine, zone_index(g, "upgrade_deck"), zone_index(g, "market")]
    wanted = [(n, zone_index(g, "hand", player)) for n in hand]
    wanted += [(n, zone_index(g, "discard", player)) for n in discard]
    picked: list[int] = []
    for n, _ in wanted:
        picked.append(find_card(g, n, prefer, exclude=picked))
    if not any(field(g, c, "permanent") for c in picked):
        raise ValueError("a hunter always owns Hunter's Dream: list it")
    for zi in mine:
        for c in list(s.zones[zi]):
            if c not in picked:
                _move(g, c, zone_index(g, "upgrade_deck") if _is_upgrade(g, c) else zone_index(g, "removed"))
    market, deck = zone_index(g, "market"), zone_index(g, "upgrade_deck")
    row = len(s.zones[market])
    for c, (_, zi) in zip(picked, wanted, strict=True):
        _move(g, c, zi)
    while len(s.zones[market]) < row and s.zones[deck]:  # refill the row as step 7 would
        _move(g, s.zones[deck][-1], market)


def put_in_market(g: Game, *wanted: str) -> None:
    """Make sure each named upgrade lies in the Available Upgrades row, keeping the row's size.

    A missing one is taken from the upgrade deck and replaces a row card that
    was not asked for; the replaced card goes to the bottom of the deck.
    """
    _require_decision(g)
    s = g.state
    market, deck = zone_index(g, "market"), zone_index(g, "upgrade_deck")
    keep: list[int] = []
    for n in wanted:
        c = find_card(g, n, [market, deck], exclude=keep)
        if s.card_zone[c] != market:
            spare = [x for x in s.zones[market] if x not in keep]
            if spare:
                _move(g, spare[0], deck, "bottom")
            _move(g, c, market)
        keep.append(c)


# ---------------------------------------------------------------- decisions


def refresh_decision(g: Game) -> None:
    """Recompute the pending decision's options after the position was edited.

    The pending tuple (``("simul", per, key, next_pc, fmt)`` or
    ``("choose", p, options, var, body_pc, end_pc, fmt)``) holds options the
    ruleset computed before the edit.  The instruction that computed them is
    the one just before the resume pc, so this rewinds the program counter by
    one and lets the engine run it again: the options then come from the
    ruleset's own ``where`` clause (step 1: ``hunters()`` in turn order from
    the First Player, hand cards, Transform only with a weapon in hand), not
    from a copy of it.  The engine re-checks every invariant on the way, so a
    broken position fails here, with the engine's message.
    """
    _require_decision(g)
    s = g.state
    pend = s.pending
    resume_pc = pend[3] if pend[0] == "simul" else pend[4]
    s.frames[-1][1] = resume_pc - 1
    s.pending = None
    s.commits = {}
    g._advance()
    if s.status != "running":
        raise RuntimeError(f"the edited position is not legal: {s.error}")


def step1_options(g: Game, player: int) -> tuple[str, ...]:
    """The step-1 options the rules give ``player``, computed here independently of the ruleset.

    Every card in hand, except Transform when the hand holds no melee or
    ranged weapon to transform into (the ruleset's [inferred] choice for step 2,
    "Transform weapons", of shared/rules/bloodborne.md).  Tests compare it with
    the engine's options.
    """
    s = g.state
    hand = s.zones[zone_index(g, "hand", player)]
    has_weapon = any(field(g, c, "kind") != "support" for c in hand)
    return tuple(s.tables.card_names[c] for c in hand if has_weapon or not field(g, c, "transform"))


def rebuild_step1_pending(g: Game) -> None:
    """Rebuild the step-1 pending choice by hand from :func:`step1_options` (no engine code runs).

    An alternative to :func:`refresh_decision` for the step-1 decision only:
    ``per`` lists the hunters in play (neither eliminated nor dead) in turn
    order from the First Player, each with the card ids of their legal options.
    """
    _require_decision(g)
    s = g.state
    kind, _, key, next_pc, fmt_id = s.pending
    if kind != "simul":
        raise RuntimeError("not at a simultaneous choice")
    per = []
    for p in s.tables.turn_orders[s.counters[FIRST_SLOT]]:
        if s.counters[player_slot(g, "eliminated", p)] or s.counters[player_slot(g, "dead", p)]:
            continue
        hand = s.zones[zone_index(g, "hand", p)]
        allowed = set(step1_options(g, p))
        per.append((p, tuple(c for c in hand if s.tables.card_names[c] in allowed)))
    s.pending = ("simul", tuple(per), key, next_pc, fmt_id)
    s.commits = {}


def choose(g: Game, player: int, label: str) -> None:
    """Apply ``player``'s option named ``label`` (a card name, or "pass"); fail loudly if it is not offered."""
    d = g.decision
    if d is None or player not in d.options:
        raise AssertionError(f"P{player + 1} has no decision now (decision: {d}, error: {g.error})")
    options = d.options[player]
    if label not in options:
        raise AssertionError(f"P{player + 1} cannot choose {label!r}; options: {options}")
    g.apply(options.index(label), player)


def choose_all(g: Game, labels: Mapping[int, str]) -> None:
    """Apply one simultaneous choice for every listed player (step 1 or step 2)."""
    for p, label in labels.items():
        choose(g, p, label)


# ---------------------------------------------------------------- dice


def face_label(face: tuple[int, bool]) -> str:
    """A die face as printed: ``"2+"`` for 2 with a combo, ``"0"`` for a plain 0."""
    value, again = face
    return f"{value}+" if again else str(value)


def force_roll(g: Game, die: str, faces: Sequence[str], start: int = 0) -> int:
    """Make the next roll of ``die`` show ``faces`` in order (e.g. ``["2+", "0"]``).

    A roll draws ``below(rng, len(faces))`` once per face rolled, so this
    searches for an RNG state whose successive draws give the wanted faces and
    puts it into the game.  Call it at the decision before the step that rolls
    (nothing between a step-1/2 choice and the monster attack uses the RNG
    unless a card effect does).  Returns the state used.
    """
    die_faces = [face_label(f) for f in g.ruleset.program.dice[die].faces]
    for f in faces[:-1]:
        if not f.endswith("+"):
            raise ValueError(f"only the last face can be without '+': {faces}")
    if faces[-1].endswith("+"):
        raise ValueError(f"a roll ends with a face without '+': {faces}")
    x = first_state(start, start + 10_000_000, len(die_faces),
                    [[i for i, label in enumerate(die_faces) if label == f] for f in faces])
    if x is None:
        raise RuntimeError(f"no RNG state found for {die} {faces}")
    g.state.rng = x
    return x


# ---------------------------------------------------------------- one-call setup


def position(
    g: Game,
    *,
    first: int | None = None,
    final_boss: str | None = None,
    monster: tuple[str, int] | None = None,
    dungeon_top: str | None = None,
    empty_dungeon: bool = False,
    market: Sequence[str] = (),
    hunters: Mapping[int, Mapping[str, Any]] | None = None,
    roll: tuple[str, Sequence[str]] | None = None,
) -> None:
    """Set up a whole position at the current decision, then refresh the decision.

    ``hunters`` maps a player to keyword settings: ``hand``/``discard`` (card
    names, see :func:`set_cards`) and ``health``/``collected``/``banked``/
    ``trophies`` (see :func:`set_hunter`).  ``monster`` is ``(name, echoes)``
    for the current monster, ``roll`` is ``(die, faces)`` for the next roll.
    """
    if first is not None:
        set_first_player(g, first)
    if final_boss is not None:
        set_final_boss(g, final_boss)
    if monster is not None:
        set_current_monster(g, *monster)
    if dungeon_top is not None:
        put_on_dungeon_top(g, dungeon_top)
    if empty_dungeon:
        clear_dungeon(g)
    for p, h in (hunters or {}).items():
        h = dict(h)
        if "hand" in h or "discard" in h:
            set_cards(g, p, h.pop("hand", ()), h.pop("discard", ()))
        set_hunter(g, p, **h)
    if market:
        put_in_market(g, *market)
    refresh_decision(g)
    if roll is not None:
        force_roll(g, *roll)


def blood(g: Game) -> dict[str, Any]:
    """Supply, collected, banked and echoes on the current monster, for quick assertions."""
    c = g.view(None)["counters"]
    cur = g.state.zones[zone_index(g, "current")]
    return {
        "supply": c["supply"],
        "collected": [c["collected"][f"P{p + 1}"] for p in range(g.players)],
        "banked": [c["banked"][f"P{p + 1}"] for p in range(g.players)],
        "health": [c["health"][f"P{p + 1}"] for p in range(g.players)],
        "echoes": g.state.counters[card_slot(g, cur[0])] if cur else None,
    }


def trophies(g: Game, player: int) -> dict[str, int]:
    """A hunter's trophy-track positions by type."""
    return dict(g.view(None)["counters"]["trophies"][f"P{player + 1}"])


def new_log(g: Game, mark: int) -> list[str]:
    """Public log lines written since ``mark`` (a previous ``len(g.log_lines(None))``)."""
    return g.log_lines(None)[mark:]
