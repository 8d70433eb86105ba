"""Game state: plain data, the RNG inside, cheap to clone and exact to save.

Everything that changes during a game lives in :class:`GameState` as flat
lists of integers (counters, zones, card locations), one RNG integer, the
engine's frame stack and the logs.  Everything that does not change (card
definitions, field tables, layouts) lives in :class:`Tables`, shared by every
clone.  Cloning copies a few small lists; it never uses ``deepcopy``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from liturgy.interpreter.runtime.pending import Pending

# A frame of the step machine: [code, pc, env].  ``code`` is a Code object.
Frame = list[Any]

# ``GameState.__new__`` (object's) and ``list.copy`` as module names: Python 3.11 specializes no load of a class's
# attribute (``GameState.__new__``, ``list.copy``), so each was a generic lookup at every call, while a global is
# one cached read; every new game and every clone builds a state (docs/performance.md, Session 21)
_new = object.__new__
_copy = list.copy


@dataclass
class Tables:
    """Per-player-count static data, computed once and shared by all games."""

    n: int
    card_def: list[int]  # card id -> index of its CardDef
    card_names: list[str]
    fields: dict[str, list[Any]]  # field -> value per card id
    players: tuple[int, ...]
    reset_slots: tuple[tuple[int, Any], ...]
    zone_names: list[str]
    zone_owner: list[int]  # -1 for shared zones
    zone_vis: list[str]
    zone_order: list[str]
    zone_final: list[bool]
    zone_capacity: list[int | None]
    counter_names: list[str]
    counter_bounds: list[tuple[int | None, int | None]]
    pool_slots: dict[str, tuple[int, ...]] = field(default_factory=dict)
    pool_totals: dict[str, int] = field(default_factory=dict)
    turn_orders: dict[int, tuple[int, ...]] = field(default_factory=dict)
    capped_zones: tuple[int, ...] = ()
    bounded_groups: tuple[tuple[tuple[int | None, int | None], tuple[int, ...], Any], ...] = ()
    final_zones: tuple[int, ...] = ()  # zones cards are removed to (``final``)
    pool_of_slot: dict[int, str] = field(default_factory=dict)  # counter slot -> the pool it belongs to
    # check built-in invariants incrementally (interpreter/invariants.py): pays off for large states only
    incremental_checks: bool = False
    # per zone, who sees a face-down card there (moves.zone_vis_masks): what `card_visibility` reads
    zone_vis_mask: list[int] = field(default_factory=list)
    # zones `visible to EXPR`: their mask above is -1 and this computes it from the state when asked
    zone_group: dict[int, Callable[[GameState], int]] = field(default_factory=dict)
    # per zone: for a zone per card declared `as host`, its host card (its owner is the host's zone's, now); else -1
    zone_host: list[int] = field(default_factory=list)
    # per card id: its `back` fields as text (`region: sea`), shown wherever the card is, even face down; or ""
    card_backs: list[str] = field(default_factory=list)
    # per seat: the counter slot of the game's `absent_while` flag (interpreter/runtime/seats.py); () without one
    absent_slots: tuple[int, ...] = ()
    # reset_slots as slice assignments (:func:`reset_runs`): what the start of every round writes
    reset_runs: tuple[tuple[slice, list[Any]], ...] = field(init=False, repr=False, compare=False)
    # every viewer's bit, the spectator's (bit n) included: who may read a `log` line that is not `log to`
    everyone: int = field(init=False, repr=False, compare=False)
    # per counter slot, what the invariant certificate checks a changed value against (runtime/invariants.py
    # ``slot_checks``): made on the first certificate taken in full, then shared by every game of these tables
    slot_checks: list[Any] | None = field(default=None, init=False, repr=False, compare=False)
    # the certificate's check written for these tables and the engine's read-set masks (runtime/certgen.py): (masks,
    # lift, the function or None where the generic one stays), made at the first checked game's first check
    cert_test: Any = field(default=None, init=False, repr=False, compare=False)
    # the whole check written for these tables' written check and a ruleset's invariants (runtime/checkgen.py)
    cert_check: Any = field(default=None, init=False, repr=False, compare=False)
    # the checked round start's resets written for these reset slots (runtime/resetgen.py), made at its first use
    noted_reset: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.reset_runs = reset_runs(self.reset_slots)
        self.everyone = (2 << self.n) - 1


def reset_runs(slots: tuple[tuple[int, Any], ...]) -> tuple[tuple[slice, list[Any]], ...]:
    """The counter slots reset at the start of every round, as (slice, values) pairs that write the same.

    A field reset each round is one slot per player (or per card) at a fixed stride, listed one after another
    (``Ruleset`` lists a declaration's slots together), so one extended slice assignment writes what a loop
    over its slots wrote one by one: Bloodborne's 13 reset slots are 4 assignments.  A run is a stretch of
    the list at one stride holding one initial value (of one type: ``True`` is not ``1``); slots are listed
    once, so the runs write disjoint slots and their order does not matter.
    """
    runs: list[tuple[slice, list[Any]]] = []
    i = 0
    while i < len(slots):
        first, initial = slots[i]
        key = (type(initial), repr(initial))
        j = i + 1
        stride = slots[j][0] - first if j < len(slots) else 1
        while (j < len(slots) and stride > 0 and slots[j][0] - slots[j - 1][0] == stride
               and (type(slots[j][1]), repr(slots[j][1])) == key):
            j += 1
        if j == i + 1:
            stride = 1
        runs.append((slice(first, slots[j - 1][0] + 1, stride), [value for _, value in slots[i:j]]))
        i = j
    return tuple(runs)


def hidden_card(t: Tables, c: int, text: str) -> str:
    """How a card the viewer cannot see reads: ``text`` (`?`, `a hidden card`), with its back fields if any."""
    back = t.card_backs[c] if t.card_backs else ""
    return f"{text} ({back})" if back else text


class GameState:
    """The mutable part of one game."""

    __slots__ = (
        "tables",
        "counters",
        "zones",
        "card_zone",
        "face_up",
        "shown",
        "rng",
        "frames",
        "pending",
        "commits",
        "log",
        "decisions",
        "steps",
        "status",
        "result",
        "error",
        "fire_stack",
        "removed_count",
        "work",
        "kept",
        "wrote",
        "moved",
        "pick",
    )

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.counters: list[Any] = []
        self.zones: list[list[int]] = []
        self.card_zone: list[int] = []
        self.face_up: set[int] = set()
        self.shown: dict[int, int] = {}  # `reveal … to`: card -> the players it is shown to until it moves
        self.rng = 0
        self.frames: list[Frame] = []
        self.pending: Pending | None = None
        self.commits: dict[int, int] = {}
        self.log: list[tuple[Any, ...]] = []
        self.decisions: list[tuple[int, int]] = []
        self.steps = 0
        self.status = "running"  # running | finished | aborted
        self.result: dict[str, Any] | None = None
        self.error: str | None = None
        self.fire_stack: list[str] = []  # windows being handled right now (empty at every decision)
        self.removed_count = 0
        self.work = 0  # units of work done so far (interpreter/runtime/budget.py): calls, fires, loop items
        # a choice's kept options (interpreter/codegen/kept.py): derived from the counters and zones, so not in
        # digests, saves or views, and not copied by `clone` (the copy rebuilds it with one full scan)
        self.kept: dict[Any, Any] = {}
        # the counter slots (i) and zones (~zi, below 0) written since the last invariant check, while a checked
        # game keeps a certificate (interpreter/runtime/invariants.py); None otherwise: every write path notes
        # itself here only when this is a list (note_slot, note_zone; the generated code writes the same test)
        self.wrote: list[int] | None = None
        # the cards moved since the last check (each card move notes its card here, not its two zones: the
        # certificate then checks the moved cards' places and the zones' sizes, not every card of both zones);
        # a list exactly when ``wrote`` is one
        self.moved: list[int] | None = None
        # while a random playout runs (Game.random_playout): its picker, which the fused functions ask in place
        # at a choice instead of suspending (interpreter/codegen/fusepick.py); for the noted code (checked games)
        # a callable that checks the invariants first and returns the picker (engine/checkpick.py); None otherwise
        # (a choice then suspends, as for a player's decision). Not part of the game: not in digests, saves or clones
        self.pick: Callable[..., Any] | None = None

    @staticmethod
    def start(tables: Tables, counters: list[Any], zones: list[list[int]], card_zone: list[int],
              frames: list[Frame]) -> GameState:
        """A state at its first step: copies of the given counters, zones and card places, ``frames`` as given.

        What ``new_game`` builds for every game; faster than ``__init__`` plus assignments, or a
        ``clone`` of a template, because it allocates each list once.
        """
        c: GameState = _new(GameState)
        c.tables = tables
        # list.copy called through its module name, not a slice: Python 3.11 specializes the call of a method
        # descriptor without arguments, while ``x[:]`` builds a slice object and takes the generic subscript
        c.counters = _copy(counters)
        c.zones = [*map(_copy, zones)]  # a display, not the `list` type call: less dispatch in C
        c.card_zone = _copy(card_zone)
        c.face_up = set()
        c.shown = {}
        c.rng = 0
        c.frames = frames
        c.pending = None
        c.commits = {}
        c.log = []
        c.decisions = []
        c.steps = 0
        c.status = "running"
        c.result = None
        c.error = None
        c.fire_stack = []
        c.removed_count = 0
        c.work = 0
        c.kept = {}
        c.wrote = None
        c.moved = None
        c.pick = None
        return c

    def clone(self) -> GameState:
        c: GameState = _new(GameState)
        c.tables = self.tables
        c.counters = self.counters[:]
        c.zones = [*map(_copy, self.zones)]  # no comprehension (a call) nor `list` type call: a search clones often
        c.card_zone = self.card_zone[:]
        c.face_up = self.face_up.copy()
        c.shown = self.shown.copy()
        c.rng = self.rng
        frames = self.frames
        if len(frames) == 2:  # the usual depth at a decision (a step and its procedure): no comprehension's call
            f, g = frames
            c.frames = [[f[0], f[1], f[2].copy()], [g[0], g[1], g[2].copy()]]
        else:
            c.frames = [[f[0], f[1], f[2].copy()] for f in frames]
        c.pending = self.pending
        c.commits = dict(self.commits)
        c.log = self.log[:]
        c.decisions = self.decisions[:]
        c.steps = self.steps
        c.status = self.status
        c.result = self.result
        c.error = self.error
        c.fire_stack = []
        c.removed_count = self.removed_count
        c.work = self.work
        c.kept = {}
        c.wrote = None  # a copy has no certificate: its first check is a full one, which starts its own record
        c.moved = None
        c.pick = None
        return c


def note_slot(s: GameState, i: int) -> None:
    """Note that counter slot ``i`` was written, for the invariant certificate (a no-op in unchecked games)."""
    w = s.wrote
    if w is not None:
        w.append(i)


def note_zone(s: GameState, zi: int) -> None:
    """Note that zone ``zi``'s list was changed (cards added, removed or reordered), for the certificate."""
    w = s.wrote
    if w is not None:
        w.append(~zi)


def note_card(s: GameState, c: int) -> None:
    """Note that card ``c`` moved (its place and the lists of the zones it left and entered), for the certificate."""
    mv = s.moved
    if mv is not None:
        mv.append(c)


def noted_source(slots: tuple[str, ...] = (), zones: tuple[str, ...] = ()) -> str:
    """The generated line that does what :func:`note_slot` and :func:`note_zone` do, for the Python expressions
    ``slots`` and ``zones`` (each a local or a constant: it is evaluated again here). One test of ``s.wrote``
    per write in an unchecked game, and no call."""
    notes = [f"_wr.append({x})" for x in slots] + [f"_wr.append(~{x})" for x in zones]
    return f"if (_wr := s.wrote) is not None: {'; '.join(notes)}"


def moved_source(cards: str, many: bool = False) -> str:
    """The generated line that notes the card ``cards`` (``many``: each card of the list ``cards``) as moved, for
    the invariant certificate: a card move's one note (the zones it leaves and enters are the card's places before
    and after). ``cards`` is a local or a constant, evaluated again here; one test of ``s.moved`` per move."""
    return f"if (_mv := s.moved) is not None: _mv.{'extend' if many else 'append'}({cards})"


def freeze(value: Any) -> Any:
    """Turn JSON lists back into the tuples the engine uses for list values."""
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Turn engine values into JSON-ready ones (tuples become lists)."""
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    return value
