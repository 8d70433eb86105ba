"""Where tables live between server runs: SQLite, every decision committed before it is acknowledged.

Two tables. ``tables`` holds what each game is (ruleset, fingerprint, players, seed, options, seat kinds,
hashes of the seat and host tokens), its status, and the save of its latest state (``Game.to_json``, a
kilobyte or two) with that state's digest. ``decisions`` is append-only, one row per decision with the
digest after it. A decision's row and its table's new save are written in one transaction, committed with
``synchronous=FULL`` in WAL mode before the server acknowledges the decision, so a ``kill -9`` at any moment
loses nothing that was acknowledged.

Writes go through :class:`Writer`, one thread that commits whatever is queued in one transaction (group
commit): under load, many tables' decisions share one fsync instead of one each, and the event loop never
waits on the disk.

Everything read back is untrusted (a database file can be edited): :meth:`Store.load_open` hands each saved
game to ``Ruleset.load_game`` (engine/saves.py: the game is rebuilt by replaying its decisions, each checked
as ``Game.apply`` checks a player's, and every state field must equal the replay's) and checks the decision
rows and digest agree with it; a table that fails is reported and left out, never half-loaded. A save sealed with the
server user's key (engine/seal.py, in that user's private cache folder: no key of the server's own) is read from
its fields instead of replayed; an edited save breaks its seal and is replayed.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import queue
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    ruleset TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    players INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    options TEXT NOT NULL,
    seats TEXT NOT NULL,
    seat_hashes TEXT NOT NULL,
    host_hash TEXT NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL,
    moves INTEGER NOT NULL,
    digest TEXT NOT NULL,
    save TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS decisions (
    table_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    player INTEGER NOT NULL,
    choice INTEGER NOT NULL,
    digest TEXT NOT NULL,
    PRIMARY KEY (table_id, idx)
);
"""
COLUMNS = "id, ruleset, fingerprint, players, seed, options, seats, seat_hashes, host_hash, status, created, moves, " \
          "digest, save"


@dataclass
class TableRow:
    """One row of ``tables`` as read back (still untrusted until the game replays)."""

    id: str
    ruleset: str
    fingerprint: str
    players: int
    seed: int
    options: dict[str, str]
    seats: list[str]
    seat_hashes: list[str]
    host_hash: str
    status: str
    created: float
    moves: int
    digest: str
    save: Any
    decisions: list[tuple[int, int, str]]  # (player, choice, digest after it), in order


class Store:
    """The SQLite file: writes through :class:`Writer` (one thread, its own transactions), reads on a second
    connection, so a read never sees a write the writer has not committed yet (WAL lets them run together)."""

    def __init__(self, path: str) -> None:
        self.path = path
        private(path)
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)
        self.reader = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.read_lock = threading.Lock()  # one read at a time on the reader (threads share it)

    def close(self) -> None:
        self.db.close()
        self.reader.close()

    def rows(self, status: str = "open") -> list[TableRow]:
        """Every table with ``status``, with its decision rows; a row that does not even parse is marked corrupt."""
        with self.read_lock:
            cur = self.reader.execute(f"SELECT {COLUMNS} FROM tables WHERE status = ?", (status,))
            return [self._row(r) for r in cur.fetchall()]

    def row(self, table_id: str) -> TableRow | None:
        """One table by id (any status), None when there is none: how a table evicted from memory comes back."""
        with self.read_lock:
            r = self.reader.execute(f"SELECT {COLUMNS} FROM tables WHERE id = ?", (table_id,)).fetchone()
            return None if r is None else self._row(r)

    def _row(self, r: Any) -> TableRow:
        try:
            decisions = [(int(p), int(c), str(d)) for p, c, d in self.reader.execute(
                "SELECT player, choice, digest FROM decisions WHERE table_id = ? ORDER BY idx", (r[0],))]
            return TableRow(str(r[0]), str(r[1]), str(r[2]), int(r[3]), int(r[4]), json.loads(r[5]),
                            json.loads(r[6]), json.loads(r[7]), str(r[8]), str(r[9]), float(r[10]),
                            int(r[11]), str(r[12]), json.loads(r[13]), decisions)
        except (ValueError, TypeError) as err:
            return TableRow(str(r[0]), "", "", 0, 0, {}, [], [], "", "corrupt", 0.0, 0, "",
                            f"unreadable row: {err}", [])

    def decision_count(self, table_id: str) -> int:
        with self.read_lock:
            row = self.reader.execute("SELECT COUNT(*) FROM decisions WHERE table_id = ?", (table_id,)).fetchone()
        return int(row[0])


def private(path: str) -> None:
    """Make the database file readable by its owner only (0600), before SQLite opens it.

    It holds every game's seed and every hidden hand. SQLite creates a new file with the process's umask (0644
    under the usual 022) and gives its ``-wal`` and ``-shm`` files the main file's mode, so the main file is
    created here first, 0600, and an existing one (and its companions) is narrowed to 0600 when it is wider.
    """
    if path in ("", ":memory:") or path.startswith("file:"):
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    os.close(fd)
    for name in (path, path + "-wal", path + "-shm", path + "-journal"):
        with contextlib.suppress(FileNotFoundError):
            if os.stat(name).st_mode & 0o077:
                os.chmod(name, 0o600)


Op = Callable[[sqlite3.Connection], None]


def _text(value: Any) -> str:
    """JSON text of a save: orjson where it can (5x faster), ``json`` for what it refuses (huge integers); a save
    handed over as text (``Game.save_text``: the sealed text, rendered once) is written as it is."""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value)


def insert_table(row: TableRow) -> Op:
    """The write that creates a table (its save is the game at its first decision)."""
    def op(db: sqlite3.Connection) -> None:
        db.execute("INSERT INTO tables VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (row.id, row.ruleset, row.fingerprint, row.players, row.seed, json.dumps(row.options),
                    json.dumps(row.seats), json.dumps(row.seat_hashes), row.host_hash, row.status, row.created,
                    row.moves, row.digest, _text(row.save)))
        for i, (p, c, d) in enumerate(row.decisions):  # bots may decide before anyone joins
            db.execute("INSERT INTO decisions VALUES (?, ?, ?, ?, ?)", (row.id, i, p, c, d))
    return op


def append_decision(table_id: str, idx: int, player: int, choice: int, digest: str, save: Any,
                    status: str = "open") -> Op:
    """The write of one decision: its row and the table's new save (and status: ``finished`` with the decision
    that ends the game, so a restart does not load it), in the writer's transaction."""
    text = _text(save)

    def op(db: sqlite3.Connection) -> None:
        db.execute("INSERT INTO decisions VALUES (?, ?, ?, ?, ?)", (table_id, idx, player, choice, digest))
        db.execute("UPDATE tables SET moves = ?, digest = ?, save = ?, status = ? WHERE id = ?",
                   (idx + 1, digest, text, status, table_id))
    return op


def set_status(table_id: str, status: str) -> Op:
    def op(db: sqlite3.Connection) -> None:
        db.execute("UPDATE tables SET status = ? WHERE id = ?", (status, table_id))
    return op


def set_seat_hashes(table_id: str, hashes: list[str]) -> Op:
    """The write of a renewed seat token (its hash): the old token is refused from then on, after a restart too."""
    def op(db: sqlite3.Connection) -> None:
        db.execute("UPDATE tables SET seat_hashes = ? WHERE id = ?", (json.dumps(hashes), table_id))
    return op


class Writer:
    """One thread committing queued writes, many per transaction; each caller's future completes after COMMIT."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.queue: queue.Queue[tuple[Op, concurrent.futures.Future[None]] | None] = queue.Queue()
        self.thread = threading.Thread(target=self._run, name="liturgy-db-writer", daemon=True)
        self.batches = 0
        self.thread.start()

    def submit(self, op: Op) -> concurrent.futures.Future[None]:
        fut: concurrent.futures.Future[None] = concurrent.futures.Future()
        self.queue.put((op, fut))
        return fut

    def stop(self) -> None:
        self.queue.put(None)
        self.thread.join(timeout=10)

    def _run(self) -> None:
        db = self.store.db
        while True:
            item = self.queue.get()
            if item is None:
                return
            batch = [item]
            stop = False
            while len(batch) < 500:
                try:
                    more = self.queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                batch.append(more)
            self._commit(db, batch)
            if stop:
                return

    def _commit(self, db: sqlite3.Connection, batch: list[tuple[Op, concurrent.futures.Future[None]]]) -> None:
        try:
            db.execute("BEGIN IMMEDIATE")
            for op, _ in batch:
                op(db)
            db.execute("COMMIT")
        except sqlite3.Error as err:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            for _, fut in batch:
                if fut.set_running_or_notify_cancel():
                    fut.set_exception(err)
            return
        self.batches += 1
        for _, fut in batch:
            if fut.set_running_or_notify_cancel():  # a waiter that gave up (shutdown) is simply not told
                fut.set_result(None)
