"""Tables, seats and what each seat is sent: the game logic of web play, without any HTTP.

A :class:`Table` is one game with its seats (``human`` or a bot kind), the hashes of their secret tokens, and
the connections watching it. :class:`Lobby` owns the tables: it creates them, checks tokens, applies a seat's
choice (refusing anything out of turn, stale or illegal: the game is unchanged), writes it durably
(:mod:`.store`) before acknowledging it, lets bots play their seats, and renders per seat.

Secrecy is a property of :func:`render`: a seat's message is built from ``Game.view(seat)``,
``Game.display(seat)``, ``Game.option_details(seat)`` and that seat's own decision: never from the state,
the seed, the digest or another seat's options. A spectator's is built from ``Game.view(None)`` (public
information only). Tokens are ``secrets.token_urlsafe(24)`` (192 bits), kept only as SHA-256 hashes and
compared in constant time; they never appear in a URL the server sees (the page keeps them in the fragment)
nor in any log line.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from liturgy.dsl.frontend.includes import main_rulesets
from liturgy.interpreter.agents.agents import Agent, make_agent
from liturgy.interpreter.engine import Decision, Game, Ruleset, load_ruleset
from liturgy.interpreter.engine.logs import BadDecisionLog, _decisions, _options
from liturgy.interpreter.engine.outcome import winners_text
from liturgy.interpreter.engine.seatview import seat_extras, seat_view
from liturgy.interpreter.engine.views import open_entry
from liturgy.interpreter.runtime import seats
from liturgy.interpreter.runtime.errors import IllegalChoice
from liturgy.interpreter.runtime.state import Tables
from liturgy.interpreter.tools.leaks import _sentinel_tables
from liturgy.interpreter.web import store as st
from liturgy.interpreter.web.bots import BotPool, Job

log = logging.getLogger("liturgy.web")

# Bot kinds offered when the agents module makes them: the fair search agent joins when it exists.
BOT_CANDIDATES = ("random", "first", "ismcts")
INLINE_BOTS = ("random", "first")  # cheap enough to play on the event loop; every other kind is a search
# where each served ruleset was read from: a search bot's worker process loads it again from there
SOURCES: weakref.WeakKeyDictionary[Ruleset, str] = weakref.WeakKeyDictionary()


class Refused(Exception):
    """A request the server turns down; the message is safe to show the requester."""


@dataclass
class Limits:
    """What one server accepts: bounds on tables, messages, rates and watchers (all configurable)."""

    max_tables: int = 1000
    max_message: int = 2048  # bytes of one WebSocket message from a browser
    rate: float = 10.0  # messages per second per connection, on average
    burst: float = 30.0  # ... and at once
    creates_per_minute: float = 30.0  # tables created per client address
    max_spectators: int = 32  # spectator connections per table (seats never count against it)
    per_seat: int = 2  # connections one seat may hold at once; one more replaces its oldest (a stale tab)
    hello_timeout: float = 10.0  # seconds a new connection has to say who it is
    keep_finished: int = 32  # finished or ended tables nobody watches kept in memory (the most recent ones)
    tables_per_client: int = 50  # games in progress one client address may have created (before they expire)
    table_idle: float = 12 * 3600.0  # seconds an open table with no seat connected and no move lives on
    loads_per_minute: float = 60.0  # tables one client may have read back from the database (a replay each)
    sockets_per_client: int = 256  # WebSocket connections from one client address at once
    bot_cpu: float = 0.5  # share of one core a table's search bots may use on average (they wait out the rest)
    bot_only_cpu: float = 0.25  # share of one core ALL bot-only tables' moves may use together (people come first)
    sweep_every: float = 60.0  # seconds between two looks for idle tables


class Bucket:
    """A token bucket: ``take`` is False once a client goes past ``rate`` per second (``burst`` at once)."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.level = burst
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.at) * self.rate)
        self.at = now
        if self.level < 1:
            return False
        self.level -= 1
        return True


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def same_token(token: str, hashed: str) -> bool:
    """Whether ``token`` hashes to ``hashed``, in time independent of where they differ."""
    return hmac.compare_digest(token_hash(token), hashed)


class Frame(dict[str, Any]):
    """A state rendered once and handed as it is to every connection of its group (a table's spectators, a seat
    open on two pages), so that it is also encoded once: ``text`` keeps the JSON the first sender made
    (``app.encode``). Nothing changes a frame once it is broadcast."""

    __slots__ = ("text",)

    def __init__(self, msg: dict[str, Any]) -> None:
        super().__init__(msg)
        self.text: str | None = None


@dataclass
class Watcher:
    """One connection watching a table, as a seat (0-based) or a spectator (None).

    Messages are queued on the connection: acknowledgements and errors in order, and the latest state only
    (a slow browser gets the newest state, not every one in between). A state carries only the log lines this
    connection has not been sent yet (``log_at``: how many of the game's log entries it has had), so a state
    replaced before it went out hands its lines on to the one replacing it.
    """

    seat: int | None
    send: Callable[[dict[str, Any]], Awaitable[None]]
    outbox: list[dict[str, Any]] = field(default_factory=list)
    latest: dict[str, Any] | None = None
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False
    log_at: int = 0
    evicted: bool = False  # told why, then closed: its seat was opened elsewhere or its token rotated

    def post(self, msg: dict[str, Any]) -> None:
        self.outbox.append(msg)
        self.wake.set()

    def evict(self, message: str) -> None:
        """Close this connection once ``message`` (why) has gone out; its receive loop sees the pump end."""
        self.post({"type": "error", "message": message})
        self.evicted = True

    def state(self, msg: dict[str, Any]) -> None:
        """Queue ``msg``, the newest state, in place of one not sent yet. ``msg`` may be a :class:`Frame` shared
        with other connections: it is never changed here (a merge makes a new message)."""
        old = self.latest
        if old is not None and msg["log_append"]:  # the lines of the state it replaces come first
            msg = {**msg, "view": {**msg["view"], "log": old["view"]["log"] + msg["view"]["log"]},
                   "log_append": old["log_append"]}
        self.latest = msg
        self.wake.set()

    async def pump(self) -> None:
        """Send what is queued until the connection closes (one task per connection)."""
        while not self.closed:
            await self.wake.wait()
            self.wake.clear()
            while self.outbox or self.latest is not None:
                msg: dict[str, Any] | None
                if self.outbox:
                    msg = self.outbox.pop(0)
                else:
                    msg, self.latest = self.latest, None
                if msg is not None:
                    try:
                        await self.send(msg)
                    except Exception:  # the browser has gone; its receive loop ends the connection
                        self.closed = True
                        return
            if self.evicted:
                self.closed = True
                return


@dataclass
class Table:
    """One game at one table."""

    id: str
    key: str  # the ruleset's key (its file name)
    game: Game
    seats: list[str]  # per seat: "human" or a bot kind
    seat_hashes: list[str]
    host_hash: str
    created: float
    status: str = "open"  # or "ended" (by its host)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    watchers: list[Watcher] = field(default_factory=list)
    agents: dict[int, Agent] = field(default_factory=dict)  # the bots that play on the event loop
    agent_seeds: dict[int, int] = field(default_factory=dict)  # a search bot's seed (it lives in bots.py's worker)
    sentinel: Tables | None = None
    bots_running: bool = False
    bots_rest_until: float = 0.0  # monotonic time before which its bots may not move again (their CPU share)
    owner: str = ""  # the client address that created it (this run only): the per-client table limit
    active: float = field(default_factory=lambda: time.monotonic())  # last move or seat (dis)connection: idle expiry

    @property
    def bot_only(self) -> bool:
        return "human" not in self.seats

    def present(self) -> bool:
        """Whether a person is here: a seat connected or, at a table of bots only, anyone watching."""
        return any(w.seat is not None or self.bot_only for w in self.watchers)

    @property
    def moves(self) -> int:
        return len(self.game.state.decisions)

    def asked_at(self, seat: int | None) -> int:
        """The number of the question ``seat`` is now asked: the move at which the open decision was first asked,
        plus the entries of it this seat has already answered.

        A seat's choice names it, so a stale page or a double click is refused. Other seats' secret choices
        in the same simultaneous decision do not change it (each commit is a move, but the question is the
        same), so a seat is never refused for having been slower than another. The seat's own answers do: in a
        `simultaneously … by` decision one seat answers once per unit (Fury of Dracula's Hunter player picks a
        combat card for each of his fighting Hunters in turn), and each of those is a new question. Numbered
        alike, the page took the second for the one it had answered and kept its buttons disabled: the game
        waited for that seat for ever (the whole-game browser test's rare stall, docs/web.md), and a double
        click on the first unit's option would have been taken as the second unit's answer. A seat with nothing
        left to answer is given the decision's own number, so what it sends is refused as out of turn.
        """
        s = self.game.state
        pend = s.pending
        if pend is None or pend[0] == "choose" or not s.commits:
            return self.moves
        base = self.moves - len(s.commits)
        per = pend[1]
        if seat is None or open_entry(per, s.commits, seat) is None:
            return base
        return base + sum(1 for i in s.commits if per[i][0] == seat)


def discover(paths: list[str] | None) -> dict[str, Ruleset]:
    """The rulesets to serve, by key (file name without ``.rules``): those named, else every shipped one."""
    if not paths:
        here = Path(__file__).resolve().parents[2] / "rulesets"
        root = here if here.is_dir() else Path("rulesets")
        paths = main_rulesets([str(p) for p in sorted(root.rglob("*.rules"))])  # not the files they include
        if not paths:
            raise Refused("no rulesets found: name them (liturgy serve RULESET…) or run from the repository")
    out: dict[str, Ruleset] = {}
    for path in paths:
        key = Path(path).stem if Path(path).name != "main.rules" else Path(path).resolve().parent.name
        if key in out:
            raise Refused(f"two rulesets are called {key!r}: serve one of them")
        out[key] = load_ruleset(path)
        SOURCES[out[key]] = str(Path(path).resolve())
    return out


def bot_kinds() -> list[str]:
    """The bot kinds the agents module can make here (the search agent only once it exists)."""
    kinds = []
    for kind in BOT_CANDIDATES:
        try:
            make_agent(kind, 0)
        except (ValueError, ImportError):
            continue
        kinds.append(kind)
    return kinds


@contextmanager
def rendered_names(table: Table) -> Iterator[None]:
    """With sentinel names on (leak tests), render with them; the game itself always runs on its own names."""
    s = table.game.state
    if table.sentinel is None:
        yield
        return
    real = s.tables
    s.tables = table.sentinel
    try:
        yield
    finally:
        s.tables = real


def seat_name(p: int | None) -> str:
    return "spectator" if p is None else f"P{p + 1}"


def outcome(g: Game) -> str | None:
    """The final result in words (scores by seat, the winners), as the terminal prints it."""
    r = g.result
    if g.state.status != "finished" or not r:
        return None
    scores = ", ".join(f"P{p + 1}: {v}" for p, v in enumerate(r["scores"]))
    return f"Scores: {scores}. {winners_text(r['winners'])}"


def render(table: Table, seat: int | None, online: set[int], d: Decision | None = None,
           log_from: int = 0) -> dict[str, Any]:
    """What ``seat`` is sent (None: a spectator), computed only from that seat's view of the game.

    ``d`` is the game's current decision when the caller has it (one per broadcast, not one per seat).
    ``log_from``: the log entries the connection already has; ``view.log`` holds the lines of the later ones
    only, and ``log_append`` tells the page to add them to what it shows (False: they are the whole log). A
    seat's log used to be rendered and sent whole with every state: the largest part of a state, growing with
    the game, and the largest part of the server's work per decision.
    """
    g = table.game
    with rendered_names(table):
        view = seat_view(g, table.id, seat, log_from)  # built from the seat's last view: only what changed
        extras = seat_extras(g, table.id, seat, view, log_from == 0)  # narration, card details, maps
        panel = g.display(seat) if seat is not None else None
        if d is None or table.sentinel is not None:  # the labels name cards: sentinel names need their own
            d = g.decision
        mine = None
        if seat is not None and d is not None and seat in d.options and table.status == "open":
            details = g.option_details(seat)
            mine = {"at": table.asked_at(seat), "prompt": d.prompt_for(seat), "simultaneous": d.simultaneous,
                    "options": [{"label": label, "detail": details[i] if i < len(details) else None}
                                for i, label in enumerate(d.options[seat])]}
    status = "ended" if table.status == "ended" else g.state.status
    away = seats.absent(g.state)  # seats the rules have not brought in yet (`absent_while`): said beside their name
    return {
        "type": "state", "table": table.id, "ruleset": g.ruleset.name, "you": seat_name(seat),
        "seats": [{"seat": seat_name(p), "kind": k, "online": p in online, **({"absent": True} if p in away else {})}
                  for p, k in enumerate(table.seats)],
        "status": status, "move": table.moves, "log_append": log_from > 0,
        "turn": [seat_name(p) for p in g.waiting_for()] if table.status == "open" else [],
        "decision": mine, "display": panel, "view": view, "result": g.result, "outcome": outcome(g),
        "error": "the game stopped on a rule error (the server log says where)" if status == "aborted" else None,
        **extras,
    }


class Lobby:
    """Every table of one server, and the only code that changes them."""

    def __init__(self, rulesets: dict[str, Ruleset], store: st.Store, limits: Limits | None = None,
                 bot_delay: float = 0.3, sentinel_names: bool = False) -> None:
        self.rulesets = rulesets
        self.store = store
        self.writer = st.Writer(store)
        self.limits = limits or Limits()
        self.bot_delay = bot_delay
        self.sentinel_names = sentinel_names  # tests only: every card named ‹card#N› in what seats receive
        self.tables: dict[str, Table] = {}  # games in progress, and finished ones watched or recently used
        # finished or ended tables nobody watches, least recently used first: past ``keep_finished`` they leave
        # memory (the database has them; :meth:`fetch` brings one back, replayed and verified, when asked for)
        self.idle: OrderedDict[str, Table] = OrderedDict()
        self.bots = bot_kinds()
        self.tasks: set[asyncio.Task[None]] = set()
        self.pool = BotPool()  # search bots think there, at the lowest priority (bots.py says why)
        self.loading = asyncio.Semaphore(1)  # one table read back from the database (replayed) at a time
        # bot-only tables move one at a time through this gate, and all of them together within
        # ``Limits.bot_only_cpu`` (:meth:`_bots` says why)
        self.background = asyncio.Lock()
        self.background_until = 0.0

    # ------------------------------------------------------------ start-up
    def resume(self) -> tuple[int, list[str]]:
        """Load every open table from the database, each verified by replay; return how many, and the refusals."""
        problems = []
        for row in self.store.rows("open"):
            try:
                table = self._restore(row)
            except Exception as err:  # whatever a damaged row raises, the other tables still resume
                problems.append(f"table {row.id}: not resumed: {err}")
                continue
            self.tables[table.id] = table
        count = len(self.tables)
        for table in list(self.tables.values()):  # a database written before finished tables were marked so
            self.settle(table)
        return count, problems

    def _restore(self, row: st.TableRow) -> Table:
        """A table as the database has it; anything that does not replay to its recorded digest is refused."""
        if row.status == "corrupt":
            raise Refused(str(row.save))
        rules = self.rulesets.get(row.ruleset)
        if rules is None:
            raise Refused(f"this server does not serve ruleset {row.ruleset!r}")
        if not isinstance(row.save, dict):
            raise Refused(f"its save is not a save ({str(row.save)[:60]})")
        # engine/saves.py: built from its fields if sealed with this user's key (engine/seal.py), else replayed
        game = rules.load_game(row.save, check_invariants=True)
        decisions = [[p, c] for p, c, _ in row.decisions]
        if _decisions(decisions, game.players) != game.state.decisions or row.moves != len(decisions):
            raise Refused("its decision rows and its save disagree")
        if game.digest() != row.digest or (row.decisions and row.decisions[-1][2] != row.digest):
            raise Refused("its game does not replay to the digest recorded with it")
        if _options(row.options) != game.options or row.players != game.players or row.seed != game.seed:
            raise Refused("its header and its save disagree")
        if len(row.seats) != game.players or len(row.seat_hashes) != game.players:
            raise Refused("its seats do not match its player count")
        kinds = set(row.seats) - {"human"}
        if not kinds <= set(self.bots):
            raise Refused(f"bot kinds {sorted(kinds - set(self.bots))} are not available here")
        table = self._table(row.id, row.ruleset, game, row.seats, row.seat_hashes, row.host_hash, row.created)
        table.status = "ended" if row.status == "ended" else "open"
        return table

    def _table(self, tid: str, key: str, game: Game, seats: list[str], hashes: list[str], host: str,
               created: float) -> Table:
        t = Table(tid, key, game, seats, hashes, host, created)
        t.agents = {p: make_agent(k, secrets.randbits(32)) for p, k in enumerate(seats) if k in INLINE_BOTS}
        if self.sentinel_names:
            t.sentinel = _sentinel_tables(game.state.tables)
        return t

    def start_bots(self) -> None:
        """After start-up: bots whose turn it is play on (once someone watches), and idle tables expire."""
        for t in self.tables.values():
            self._kick(t)
        self._spawn(self._sweep())

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _sweep(self) -> None:
        """Expire idle tables now and then (every ``Limits.sweep_every`` seconds)."""
        while True:
            await asyncio.sleep(self.limits.sweep_every)
            await self.expire()

    async def expire(self, now: float | None = None) -> list[str]:
        """End every open table nobody has been at for ``Limits.table_idle`` seconds; return their ids.

        Idle: no seat connected (at a table of bots only, nobody watching) and no move or seat connection for
        that long. Spectators do not keep a table alive. An expired table is ``ended``, as if by its host: it
        stops counting against ``--max-tables`` and its creator's limit, and stays readable.
        """
        now = time.monotonic() if now is None else now
        gone = []
        for t in list(self.tables.values()):
            if t.status != "open" or t.game.finished or t.present() or now - t.active < self.limits.table_idle:
                continue
            async with t.lock:
                if t.status != "open" or t.present():
                    continue
                await asyncio.wrap_future(self.writer.submit(st.set_status(t.id, "ended")))
                t.status = "ended"
            log.info("table %s expired after %.0f s idle", t.id, now - t.active)
            gone.append(t.id)
            self.broadcast(t)
            self.settle(t)
        return gone

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        self.pool.close()
        await asyncio.to_thread(self.writer.stop)

    # ------------------------------------------------------------ tables
    async def create(self, key: str, players: int, seats: list[str], options: dict[str, str],
                     owner: str = "") -> dict[str, Any]:
        """A new table; returns its id, the host token and one token per human seat (shown once, never stored).

        ``owner``: the creating client's address. Each client may have ``Limits.tables_per_client`` games in
        progress, so one client cannot take every place of ``--max-tables`` (idle ones expire besides).
        """
        # games in progress count; finished and ended ones stay readable without holding a place
        playing = [t for t in self.tables.values() if t.status == "open" and not t.game.finished]
        if len(playing) >= self.limits.max_tables:
            raise Refused("this server has as many tables as it allows; end one first")
        if owner and sum(t.owner == owner for t in playing) >= self.limits.tables_per_client:
            raise Refused("you have as many games in progress as one address may; end one first (idle ones "
                          "expire by themselves)")
        rules = self.rulesets.get(key)
        if rules is None:
            raise Refused(f"no ruleset {key[:40]!r} here")
        if not rules.min_players <= players <= rules.max_players:
            raise Refused(f"{rules.name} is for {rules.min_players}..{rules.max_players} players")
        if len(seats) != players or any(k != "human" and k not in self.bots for k in seats):
            raise Refused(f"give one seat kind per player: human or one of {self.bots}")
        try:
            game = rules.new_game(players, secrets.randbits(63), check_invariants=True,
                                  options=_options(options) or None)
        except (BadDecisionLog, ValueError) as err:
            raise Refused(str(err)[:200]) from err
        tokens = [secrets.token_urlsafe(24) for _ in range(players)]
        host = secrets.token_urlsafe(24)
        tid = secrets.token_urlsafe(6)
        while tid in self.tables:
            tid = secrets.token_urlsafe(6)
        hashes = [token_hash(tok) for tok in tokens]
        table = self._table(tid, key, game, seats, hashes, token_hash(host), time.time())
        table.owner = owner
        row = st.TableRow(tid, key, rules.fingerprint, players, game.seed, game.options, seats, hashes,
                          table.host_hash, "open", table.created, 0, game.digest(), game.to_json(), [])
        await asyncio.wrap_future(self.writer.submit(st.insert_table(row)))
        self.tables[tid] = table
        self._kick(table)
        return {"table": tid, "host": host, "ruleset": rules.name,
                "seats": [{"seat": seat_name(p), "kind": k, "token": tokens[p] if k == "human" else None}
                          for p, k in enumerate(seats)]}

    def get(self, tid: str) -> Table:
        """A table in memory (a game in progress is always there); :meth:`fetch` also reads the database."""
        table = self.tables.get(tid) if isinstance(tid, str) else None
        if table is None:
            raise Refused("no such table")
        return table

    async def fetch(self, tid: Any, may_load: Callable[[], bool] | None = None) -> Table:
        """A table by id, from memory or else from the database (a finished table evicted from memory), verified
        by replay as at start-up. The caller joins it or calls :meth:`settle` once done with it.

        A replay costs milliseconds of CPU, and anyone with a table's public id may ask: ``may_load`` (the
        asking client's budget) is consulted before one, and replays run one at a time.
        """
        table = self.tables.get(tid) if isinstance(tid, str) else None
        if table is not None:
            return table
        if not isinstance(tid, str) or not 0 < len(tid) <= 64:
            raise Refused("no such table")
        if may_load is not None and not may_load():
            raise Refused("too many finished tables opened from this address; wait a minute")
        row = await asyncio.to_thread(self.store.row, tid)
        if row is None:
            raise Refused("no such table")
        table = self.tables.get(tid)  # another request may have loaded it while this one read
        if table is not None:
            return table
        try:
            async with self.loading:
                loaded = await asyncio.to_thread(self._restore, row)  # a replay: off the event loop
        except Exception as err:  # as at start-up: a row that does not verify is refused, never half-loaded
            log.error("table %s: not loaded: %s", tid, err)
            raise Refused("this table cannot be loaded (the server log says why)") from err
        table = self.tables.setdefault(tid, loaded)  # another request may have loaded it meanwhile
        return table

    async def rotate(self, table: Table, seat: int | None, keep: Watcher) -> str:
        """A new token for ``seat`` (its holder asked): the old one stops working, here and after a restart, and
        the seat's other connections (which may be whoever had the old link) are closed. Returns the new token."""
        if seat is None:
            raise Refused("spectators have no token to renew")
        token = secrets.token_urlsafe(24)
        async with table.lock:
            hashes = list(table.seat_hashes)
            hashes[seat] = token_hash(token)
            await asyncio.wrap_future(self.writer.submit(st.set_seat_hashes(table.id, hashes)))
            table.seat_hashes = hashes
        for w in [w for w in table.watchers if w.seat == seat and w is not keep]:
            table.watchers.remove(w)
            w.evict("this seat's link was renewed: open the new one")
        return token

    def settle(self, table: Table) -> None:
        """After a table's watchers or status change: a finished or ended table nobody watches joins the idle
        ones (most recent last), and the oldest idle ones past ``keep_finished`` leave memory."""
        if (table.status == "ended" or table.game.finished) and not table.watchers and not table.bots_running:
            self.idle[table.id] = table
            self.idle.move_to_end(table.id)
        else:
            self.idle.pop(table.id, None)
        while len(self.idle) > self.limits.keep_finished:
            _, old = self.idle.popitem(last=False)
            if self.tables.get(old.id) is old:
                del self.tables[old.id]

    def seat_of(self, table: Table, token: str | None) -> int | None:
        """The seat ``token`` holds (None: no token, a spectator); a token that is no seat's is refused."""
        if token is None:
            return None
        if not isinstance(token, str) or len(token) > 100:
            raise Refused("that is not a seat token")
        found = None
        for p, hashed in enumerate(table.seat_hashes):  # every seat compared, so the time tells nothing
            if same_token(token, hashed) and table.seats[p] == "human":
                found = p
        if found is None:
            raise Refused("that token holds no seat at this table")
        return found

    async def end(self, table: Table, host_token: Any) -> None:
        """The host ends (abandons) the table: nobody can play on; it stays readable until the server restarts."""
        if not isinstance(host_token, str) or not same_token(host_token, table.host_hash):
            raise Refused("only the table's host can end it")
        async with table.lock:
            if table.status == "ended":
                return
            await asyncio.wrap_future(self.writer.submit(st.set_status(table.id, "ended")))
            table.status = "ended"
        self.broadcast(table)
        self.settle(table)

    # ------------------------------------------------------------ play
    async def choose(self, table: Table, seat: int | None, at: Any, choice: Any) -> int:
        """``seat`` takes option ``choice`` of the decision it was asked at ``at``; returns the new move number.

        Refused, with the game unchanged, when the table is over, the seat is a spectator or not waiting, the
        decision is not the open one (a stale page or a double click), or the option is not legal.
        """
        if seat is None:
            raise Refused("spectators cannot play")
        if type(at) is not int or type(choice) is not int:
            raise Refused("a choice is {at: number, choice: number}")
        async with table.lock:
            game = table.game
            if table.status != "open" or game.finished:
                raise Refused("this game is over")
            if self.tables.get(table.id) is not table:
                raise Refused("this table was closed (the server could not save it); reload the page")
            if at != table.asked_at(seat):
                raise Refused("that decision is no longer the current one")
            if seat not in game.waiting_for():
                raise Refused("it is not your turn")
            await self._decide(table, seat, choice)
            moves = table.moves
            table.active = time.monotonic()
        self._kick(table)
        return moves

    async def _decide(self, table: Table, seat: int, choice: int) -> float:
        """Apply, write durably, then tell every watcher (under the table's lock). Returns the event loop's CPU
        seconds it took (the write's wait left out): what a bot's move is charged besides its thinking."""
        game = table.game
        start = time.thread_time()
        try:
            game.apply(choice, seat)
        except IllegalChoice as err:
            raise Refused(str(err)) from err
        idx = table.moves - 1
        digest = game.digest()
        write = st.append_decision(table.id, idx, seat, choice, digest, game.save_text(),
                                   "finished" if game.finished else "open")
        spent = time.thread_time() - start
        try:
            # shielded: a cancelled waiter (shutdown) must not cancel a write the game in memory already holds
            await asyncio.shield(asyncio.wrap_future(self.writer.submit(write)))
        except Exception as err:
            # the game in memory is now ahead of the database: drop it (it would resume from the database)
            log.error("table %s: decision %d not written (%s); the table is closed", table.id, idx, err)
            self.tables.pop(table.id, None)
            for w in table.watchers:
                w.post({"type": "error", "message": "the server could not save this table; it is closed"})
            raise Refused("the server could not save that decision") from err
        if game.state.status == "aborted":
            log.error("table %s stopped on a rule error: %s", table.id, game.error)
        start = time.thread_time()
        self.broadcast(table)
        if game.finished:
            self.settle(table)
        return spent + time.thread_time() - start

    def broadcast(self, table: Table) -> None:
        """Send every watcher the new state, rendered once per (seat, log lines it already has): the spectators
        of a table, and a seat open on two pages, are sent the same :class:`Frame`, rendered and encoded once.
        Rendered per connection, 32 spectators made a decision cost 32 more renderings of the public view, on
        the event loop that answers every person (issue 34, item 3); encoded per connection, each still cost
        an encoding of the whole state."""
        online = {w.seat for w in table.watchers if w.seat is not None}
        d = table.game.decision
        entries = len(table.game.state.log)
        made: dict[tuple[int | None, int], Frame] = {}
        for w in table.watchers:
            msg = made.get((w.seat, w.log_at))
            if msg is None:
                msg = made[w.seat, w.log_at] = Frame(render(table, w.seat, online, d, w.log_at))
            w.state(msg)
            w.log_at = entries

    # ------------------------------------------------------------ watchers
    def join(self, table: Table, watcher: Watcher) -> None:
        """A connection starts watching. Spectators have their own cap, so they can never lock a seat out: a
        seat's holder is always let in, and past ``Limits.per_seat`` its own oldest connection (a forgotten tab,
        a phone that lost its network) is closed to make room."""
        if watcher.seat is None:
            if sum(w.seat is None for w in table.watchers) >= self.limits.max_spectators:
                raise Refused("this table has as many spectators as it allows")
        else:
            mine = [w for w in table.watchers if w.seat == watcher.seat]
            for old in mine[:max(0, len(mine) - self.limits.per_seat + 1)]:
                table.watchers.remove(old)
                old.evict("this seat was opened on another page; this one is closed")
        if watcher.seat is not None or table.bot_only:
            table.active = time.monotonic()
        table.watchers.append(watcher)
        self.settle(table)
        self.broadcast(table)
        self._kick(table)

    def leave(self, table: Table, watcher: Watcher) -> None:
        watcher.closed = True
        watcher.wake.set()
        if watcher in table.watchers:
            table.watchers.remove(watcher)
            if watcher.seat is not None or table.bot_only:
                table.active = time.monotonic()
            self.broadcast(table)
            self.settle(table)

    # ------------------------------------------------------------ bots
    def _kick(self, table: Table) -> None:
        """Start the table's bot loop if a bot must decide, someone is watching, and none is running.

        Bots play only while a connection watches: a table of bots nobody watches (or whose people all left)
        is paused, costing nothing, and goes on from where it was when someone opens it again.
        """
        if table.bots_running or table.status != "open" or table.game.finished or not table.watchers:
            return
        if not any(table.seats[p] != "human" for p in table.game.waiting_for()):
            return
        table.bots_running = True
        self._spawn(self._bots(table))

    async def _bots(self, table: Table) -> None:
        """Play the table's bot seats while someone watches, each table within its CPU share (``bot_cpu``).

        Bot-only tables are background work: their moves (the search in the worker, and the server's apply,
        save and renderings) pass one at a time through :attr:`background`, and all of them together use at
        most ``Limits.bot_only_cpu`` of one core. Each within its own share, twenty of them kept the search
        worker on a whole core and a person's p99 at another table rose 2.2x on an idle 2-core machine (issue
        34); a table where a person plays does not queue there, so its bots answer that person first.
        """
        try:
            while table.status == "open" and not table.game.finished and self.tables.get(table.id) is table:
                if self.bot_delay:
                    await asyncio.sleep(self.bot_delay)  # people can follow what the bots did
                rest = table.bots_rest_until - time.monotonic()
                if rest > 0:  # the table's bots are over their CPU share: they wait it out (a person's turn counts)
                    await asyncio.sleep(rest)
                if not table.watchers:
                    return  # paused: nobody is watching (join() starts the bots again)
                if table.bot_only:
                    async with self.background:
                        wait = self.background_until - time.monotonic()
                        if wait > 0:
                            await asyncio.sleep(wait)
                        cpu = await self._bot_moves(table)
                        if cpu is not None:
                            self.background_until = time.monotonic() + budget_pause(cpu, self.limits.bot_only_cpu)
                else:
                    cpu = await self._bot_moves(table)
                if cpu is None:
                    return
                table.bots_rest_until = time.monotonic() + budget_pause(cpu, self.limits.bot_cpu)
        except Refused as err:
            log.error("table %s: a bot's decision failed: %s", table.id, err)
        except Exception as err:  # a search worker that cannot run: these bots stop, the server goes on
            log.error("table %s: a bot could not play (%s: %s); its bots are paused", table.id,
                      type(err).__name__, err)
        finally:
            table.bots_running = False
            self.settle(table)

    async def _bot_moves(self, table: Table) -> float | None:
        """The moves of every bot the table waits for, and the CPU seconds they cost (thinking, applying,
        saving, rendering); None when no bot is due any more (a person's turn, the table ended or closed)."""
        cpu = 0.0
        async with table.lock:
            if not table.watchers or table.status != "open" or self.tables.get(table.id) is not table:
                return None
            due = [p for p in table.game.waiting_for() if table.seats[p] != "human"]
            if not due:
                return None
            for p in due:
                if p not in table.game.waiting_for():
                    continue
                if table.seats[p] in INLINE_BOTS:
                    start = time.thread_time()
                    choice = table.agents[p].choose(table.game, p)
                    cpu += time.thread_time() - start
                else:
                    choice, spent = await self.search(table, p)
                    cpu += spent
                cpu += await self._decide(table, p, choice)  # its rendering for every watcher too
        return cpu

    async def search(self, table: Table, seat: int) -> tuple[int, float]:
        """A search bot's choice for ``seat``, made in the low-priority worker process (bots.py), and its CPU."""
        g = table.game
        path = SOURCES.get(g.ruleset.plain())  # a checked table plays the noted variant (Ruleset.noted)
        if path is None:
            raise Refused(f"ruleset {table.key!r} was not loaded from a file: its search bots cannot run")
        seed = table.agent_seeds.setdefault(seat, secrets.randbits(32))
        job = Job(table.id, path, g.ruleset.fingerprint, g.players, g.seed, dict(g.options),
                  tuple((int(p), int(c)) for p, c in g.state.decisions), seat, table.seats[seat], seed)
        choice, cpu, _ = await self.pool.choose(job)
        return choice, cpu


def budget_pause(cpu: float, share: float) -> float:
    """Seconds a table's bots wait after using ``cpu`` seconds of search, so that on average they use at most
    ``share`` of one core (0.5: they think at most half the time); a share of 1 or more never waits."""
    if share >= 1 or cpu <= 0:
        return 0.0
    return cpu * (1 / max(share, 0.01) - 1)

