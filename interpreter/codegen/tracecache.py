"""Fused functions' walks kept between processes: a process's first games do not walk their entries again.

Fused functions are traced when a game first reaches each entry (codegen/fuse.py ``lazy``): the walk
(codegen/fusewalk.py) writes the function's text, and Python compiles it. The compiled code was kept between
processes (codegen/codecache.py ``late``), the walk was not: every process paid it again on its first games
(about 18 M of the 156.74 M instructions of Bloodborne's bench loop, session 23), and so did every test worker.

Here each walk's result is kept too: the text, the values it named (constants), where its paths leave to the
engine (the entries they reach, traced in turn), whether statement runs were written in, and the text's SHA-256
(which the late code bundle finds its code by: hashing a 20 KB text again was a third of a replay). A later process
that reaches the same entry of the same compile puts the same values under the same names and builds the same
text, without walking.

Why the text is exactly what the walk would write: a walk's names no longer come from the compile's counter
(``_k123``, whose value depended on which entries this process traced before), but from the entry itself:
``_fused_c12p34_0``, ``_fused_c12p34_1``, … (:meth:`Traces.const`), numbered in the order the walk names them. So
the walk of an entry writes the same text in every process that compiled the same program, whatever it played
before; a replay names the same values in the same order (the copies of callees per call site it makes are made
in the same order too). The late code bundle gains as well: it looks code up by the text's SHA-256, and texts no
longer differ by the order a process reached entries in.

Why a record is never stale: its store is named (:func:`diskcache.key`) by the engine's source (every ``.py`` of
codegen, compiler and runtime, the language's source and the Python that runs: :func:`engine_version`), the
compile's bundle (the ruleset's fingerprint, and which variant), its modes, and the SHA-256 of every text the
compile generated before fusing, in order (codecache.py ``trail``): anything else that the walk reads is made by
that compile from those (no store at all while extension constructs are registered from Python, whose lowering no
file's hash covers, as for the checked programs). Why a record is never trusted blindly: entries live in the compile
cache (:mod:`liturgy.dsl.diskcache`: private folder, SHA-256-verified, ``LITURGY_CACHE=off``), their payload is JSON
of plain data (never code, never ``marshal`` or ``pickle``), bounded in size, and each record is checked whole
before anything is made from it (every index in range, every value named of a known kind, the text defining the name
the entry gives its function); one that fails is ignored and the entry walked. Values are named by where they are:
an instruction by its code's index in the compile and its pc, a code by its index, a call site's copy by its callee,
caller and return pc, plain data (the error positions' table) by its value, and two module objects by name.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from liturgy.dsl import diskcache
from liturgy.dsl.constructs.extensions import grammar_key
from liturgy.interpreter.compiler.instructions import _push
from liturgy.interpreter.runtime.errors import GAME_ENDED

if TYPE_CHECKING:
    from liturgy.interpreter.codegen.fuse import Fuser
    from liturgy.interpreter.compiler.code import Code

# Module objects a walk names, by name
_GLOBALS: dict[str, Any] = {"GAME_ENDED": GAME_ENDED, "_push": _push}
# Bounds on what is read and kept: a store's payload, one text, the records of one compile
MAX_BYTES = 32 * 1024 * 1024
MAX_TEXT = 1 << 20
MAX_RECORDS = 20_000
_HEX = re.compile(r"[0-9a-f]{64}")
# What a walk named that is its own function (its text defines it), not a constant
_FUNCTION = object()


@cache
def engine_version() -> str:
    """SHA-256 of what makes a compile's instructions and a walk's text: the source of codegen, compiler and
    runtime, and :func:`diskcache.language_version` (the language's source, the Python). Content, as there:
    about 70 files read once per process, the first time an entry is traced (a few milliseconds)."""
    import liturgy.interpreter

    h = hashlib.sha256(diskcache.language_version().encode())
    for root in liturgy.interpreter.__path__:
        for sub in ("codegen", "compiler", "runtime"):
            for path in sorted((Path(root) / sub).rglob("*.py")):
                if "__pycache__" not in path.parts:
                    rel, data = str(path.relative_to(root)).encode(), path.read_bytes()
                    h.update(len(rel).to_bytes(8, "little") + rel + len(data).to_bytes(8, "little"))
                    h.update(data)
    return h.hexdigest()


class _Store:
    """The records of one compile by entry: read from disk on first use, stored whole at exit if added to."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.records: dict[str, Any] = _load(name)
        self.added = False


_STORES: dict[str, _Store] = {}


def _load(name: str) -> dict[str, Any]:
    payload = diskcache.read(name)
    if payload is None or len(payload) > MAX_BYTES:
        return {}
    try:
        got = json.loads(payload.decode("utf-8"))
    except (ValueError, RecursionError):
        return {}
    return got if isinstance(got, dict) and len(got) <= MAX_RECORDS else {}


def _store_all() -> None:
    """Store each store that was added to, whole: what it read from disk and what this process walked."""
    for store in _STORES.values():
        if store.added:
            payload = json.dumps(store.records, separators=(",", ":")).encode("utf-8")
            if len(payload) <= MAX_BYTES:
                diskcache.write(store.name, payload)
            store.added = False


atexit.register(_store_all)


def _data(value: Any) -> Any:
    """Plain data as JSON (tuples as lists), or raise ValueError: ints, strings, None, tuples of them."""
    if value is None or type(value) in (int, str):
        return value
    if type(value) is tuple:
        return [_data(v) for v in value]
    raise ValueError(value)


def _undata(value: Any) -> Any:
    if value is None or type(value) in (int, str):
        return value
    if type(value) is list:
        return tuple(_undata(v) for v in value)
    raise ValueError(value)


class Traces:
    """The names one compile's walks give what they name (:meth:`const`, :meth:`name`), and their records."""

    def __init__(self, fuser: Fuser, bundle: str | None, trail: str | None) -> None:
        self.fuser = fuser
        comp = fuser.comp
        # the store's name, made on first use (engine_version reads files): None where the compile was not stored
        self.named: tuple[str, ...] | None = None
        # none while extension constructs are registered: their lowering is Python code no hash of files covers (as
        # dsl/checkcache.py keeps no checked program then)
        if bundle is not None and trail is not None and not grammar_key():
            modes = (comp.notes, comp.inline_limit, comp.direct_calls, comp.gen is not None, comp.sgen is not None,
                     comp.cgen is not None)
            self.named = ("trace", bundle, trail, repr(modes))
        self.store: _Store | None = None
        self.entry: str | None = None  # the entry being traced, which its names start with
        self.made: list[Any] = []  # what its walk named so far, in order: values, or _FUNCTION
        self.index: dict[int, int] | None = None  # id(Code) -> its index in comp.codes
        self.where: dict[int, tuple[int, int]] | None = None  # id(instruction) -> (its code's index, its pc)

    # ------------------------------------------------------------------ names
    def const(self, value: Any) -> str:
        """A name for ``value`` in the generated code's namespace: the entry's next name while one is traced."""
        if self.entry is None:
            gen = self.fuser.comp.gen
            assert gen is not None
            return gen.const(value)
        name = self._next(value)
        self.fuser.ns[name] = value
        return name

    def name(self) -> str:
        """The name of the function a walk's text defines."""
        if self.entry is None:
            gen = self.fuser.comp.gen
            return gen._name("_fused") if gen is not None else "_fused"
        return self._next(_FUNCTION)

    def _next(self, value: Any) -> str:
        name = f"_fused_{self.entry}_{len(self.made)}"
        assert name not in self.fuser.ns, name  # each entry is traced once per compile
        self.made.append(value)
        return name

    @contextmanager
    def tracing(self, code: Code, pc: int) -> Iterator[str | None]:
        """Name what is made within after the entry ``pc`` of ``code``; the entry's name (None: the compile's
        counter names them, for a code this compile does not list)."""
        outer = self.entry, self.made
        where = self._locate(code)
        label = None if where is None else where[0] + "_".join(map(str, where[1:]))
        self.entry, self.made = (None if label is None else f"{label}p{pc}"), []
        try:
            yield self.entry
        finally:
            self.entry, self.made = outer

    # ------------------------------------------------------------------ where things are
    def _codes(self) -> dict[int, int]:
        if self.index is None:
            self.index = {id(code): i for i, code in enumerate(self.fuser.comp.codes)}
        return self.index

    def _locate(self, code: Code) -> list[Any] | None:
        """How records name a code: ``["c", index]``, or ``["s", callee, caller, ret]`` for a call site's copy."""
        index = self._codes()
        if id(code) in index:
            return ["c", index[id(code)]]
        site = self.fuser.sites.get(id(code))
        base = self.fuser.base.get(id(code))
        if site is None or base is None or id(site[0]) not in index or id(base) not in index:
            return None
        return ["s", index[id(base)], index[id(site[0])], site[1]]

    def _code_of(self, where: Any) -> Code:
        """The code a record names (``where`` checked first by :meth:`_check_code`); a call site's copy is made
        if not yet, as the walk made it."""
        codes = self.fuser.comp.codes
        if where[0] == "c":
            code: Code = codes[where[1]]
            return code
        return self.fuser.call_site(codes[where[1]], codes[where[2]], where[3])

    def _check_code(self, where: Any) -> int:
        """How many instructions the code ``where`` names has; -1 when it names none."""
        codes = self.fuser.comp.codes
        ok = type(where) is list and where and all(type(n) is int and n >= 0 for n in where[1:])
        if ok and where[0] == "c" and len(where) == 2 and where[1] < len(codes):
            return len(codes[where[1]].ins)
        if ok and where[0] == "s" and len(where) == 4 and max(where[1], where[2]) < len(codes):
            callee, caller = codes[where[1]], codes[where[2]]
            if where[3] <= len(caller.ins) and self.fuser.asks(callee):
                return len(callee.ins)
        return -1

    def _value_where(self, value: Any) -> list[Any] | None:
        """How a record names ``value``, or None when it cannot."""
        if value is _FUNCTION:
            return ["f"]
        for key, known in _GLOBALS.items():
            if value is known:
                return ["g", key]
        if id(value) in self._codes() or id(value) in self.fuser.sites:
            return self._locate(value)
        if self.where is None:
            self.where = {}
            for i, code in enumerate(self.fuser.comp.codes):
                for pc, fn in enumerate(code.ins):
                    self.where.setdefault(id(fn), (i, pc))
        if id(value) in self.where:
            i, pc = self.where[id(value)]
            return ["i", i, pc] if self.fuser.comp.codes[i].ins[pc] is value else None
        try:
            return ["d", _data(value)]
        except ValueError:
            return None

    # ------------------------------------------------------------------ records
    def _store(self) -> _Store | None:
        if self.named is None or not diskcache.stored():
            return None
        if self.store is None:
            name = diskcache.key(*self.named, engine_version())
            self.store = _STORES.get(name) or _STORES.setdefault(name, _Store(name))
        return self.store

    def keep(self, text: str | None, inlined: bool, exits: list[tuple[Code, int]]) -> None:
        """Note the walk of the entry being traced: its text (None: the entry runs its own instruction), the
        values it named, its exits."""
        store = self._store()
        if store is None or self.entry is None or len(store.records) >= MAX_RECORDS:
            return
        slots = [self._value_where(v) for v in self.made]
        ways = [[self._locate(code), pc] for code, pc in exits]
        if any(s is None for s in slots) or any(w[0] is None for w in ways) or len(text or "") > MAX_TEXT:
            return
        digest = None if text is None else hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        store.records[self.entry] = [text, inlined, slots, ways, digest]
        store.added = True

    def replay(self) -> tuple[tuple[str, str, bool, str | None] | None, list[tuple[Code, int]]] | None:
        """The record of the entry being traced, its values named: ((its function's name, text, whether runs
        were written in, the text's SHA-256) or None, its exits); None when there is none, or it fails a check
        (nothing made then)."""
        store = self._store()
        record = store.records.get(self.entry) if store is not None and self.entry is not None else None
        checked = self._check(record) if record is not None else None
        if checked is None:
            return None
        text, inlined, slots, exits, digest = checked
        values = []
        for slot in slots:  # the walk's order: a call site's copy is made before it is named, as the walk does
            kind = slot[0]
            values.append(_FUNCTION if kind == "f" else _GLOBALS[slot[1]] if kind == "g" else
                          _undata(slot[1]) if kind == "d" else
                          self.fuser.comp.codes[slot[1]].ins[slot[2]] if kind == "i" else self._code_of(slot))
        name = None
        for value in values:
            got = self._next(value)
            if value is _FUNCTION:
                name = got
            else:
                self.fuser.ns[got] = value
        ways: list[tuple[Code, int]] = []
        for where, pc in exits:
            ways.append((self._code_of(where), pc))
        return (None if text is None or name is None else (name, text, inlined, digest)), ways

    def _check(self, record: Any) -> tuple[str | None, bool, list[Any], list[Any], str | None] | None:
        """``record`` whole, or None when any part of it is not what a walk of this entry could have made."""
        if type(record) is not list or len(record) != 5:
            return None
        text, inlined, slots, exits, digest = record
        if not (text is None or type(text) is str and len(text) <= MAX_TEXT) or type(inlined) is not bool:
            return None
        if not (digest is None if text is None else type(digest) is str and _HEX.fullmatch(digest)):
            return None
        if type(slots) is not list or type(exits) is not list:
            return None
        functions = [i for i, slot in enumerate(slots) if slot == ["f"]]
        head = f"def _fused_{self.entry}_{functions[0]}(s, fr):\n" if len(functions) == 1 else None
        if text is not None and (head is None or not text.startswith(head)):
            return None
        codes = self.fuser.comp.codes
        for slot in slots:
            if type(slot) is not list or not slot or slot[0] not in ("f", "g", "d", "i", "c", "s"):
                return None
            kind = slot[0]
            if kind == "f" and len(slot) != 1 or kind == "g" and (len(slot) != 2 or slot[1] not in _GLOBALS):
                return None
            if kind == "d":
                try:
                    _undata(slot[1])
                except (ValueError, RecursionError, IndexError):
                    return None
            if kind == "i" and not (len(slot) == 3 and type(slot[1]) is int and type(slot[2]) is int
                                    and 0 <= slot[1] < len(codes) and 0 <= slot[2] < len(codes[slot[1]].ins)
                                    and self.fuser.info(codes[slot[1]].ins[slot[2]]) is not None):
                return None
            if kind in ("c", "s") and self._check_code(slot) < 0:
                return None
        for way in exits:
            if type(way) is not list or len(way) != 2 or type(way[1]) is not int:
                return None
            if not 0 <= way[1] < self._check_code(way[0]):
                return None
        return text, inlined, slots, exits, digest
