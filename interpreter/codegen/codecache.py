"""Generated code's bytecode kept between processes: Python compiles each generated text once per cache.

Python's own ``compile`` of the generated functions was about a third of compiling a large ruleset (Betrayal
0.8 s of 2.3 s, Slay the Spire 0.75 of 2.0, Fury of Dracula 0.4 of 1.2), paid again by every process. While
:func:`bundle` is open (``load_ruleset`` opens one around the compile), :func:`compiled` answers each text from
the bundle stored by an earlier process, and the bundle is stored again, whole, when texts were missing. Outside a
bundle too, a text this process compiled before is not compiled again (:data:`MEMO_MAX`).

What a code object depends on is its text alone (and the Python that compiled it, part of the bundle's name),
so the bundle is a map from each text's SHA-256 to its ``marshal``'d code: a text generated differently (another
compile mode, an edited ruleset, a changed generator) simply misses, and an edit to the interpreter that leaves
most texts as they were keeps most of the bundle. The file name in tracebacks, unique per
compiled ruleset (codegen/source.py), is put into the code objects after loading. Entries live in the compile
cache (:mod:`liturgy.dsl.diskcache`: private, SHA-256-verified, ``LITURGY_CACHE=off``); marshal data is read
only from there and only after its hash matched.
"""

from __future__ import annotations

import atexit
import hashlib
import marshal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import CodeType

from liturgy.dsl import diskcache


class _Bundle:
    """The code objects of one ruleset's compile, by the SHA-256 of their text."""

    def __init__(self, name: str, codes: dict[str, CodeType], stored: bool) -> None:
        self.name = name
        self.stored = stored  # read from and written to disk (not under diskcache.memory_only)
        self.codes = codes
        self.used: dict[str, CodeType] = {}
        self.missed = 0
        # the SHA-256 of every text compiled while open, in order: what the compile made (codegen/tracecache.py)
        self.trail = hashlib.sha256()


_OPEN: ContextVar[_Bundle | None] = ContextVar("liturgy_code_bundle", default=None)


@contextmanager
def bundle(name: str) -> Iterator[None]:
    """Answer :func:`compiled` from the bundle ``name`` (a content hash the caller chose: the ruleset's
    fingerprint and compile options) while open; store it again on leaving when any text was missing."""
    if not diskcache.enabled() or _OPEN.get() is not None:
        yield
        return
    entry = diskcache.key("code", diskcache.python_tag(), name)
    opened = _Bundle(name, _load(entry), diskcache.stored())
    token = _OPEN.set(opened)
    try:
        yield
    finally:
        _OPEN.reset(token)
    if opened.missed:
        diskcache.write(entry, marshal.dumps({k: c for k, c in opened.used.items()}))


def stored_bundle() -> str | None:
    """The name of the bundle open now when it lives on disk, else None. Why: a later compile of the same program
    (its noted variant, ``Ruleset.noted``, made on the first checked game, long after ``load_ruleset`` closed the
    bundle) keeps its own bundle beside it, named after it, and only where this one was stored."""
    opened = _OPEN.get()
    return opened.name if opened is not None and opened.stored else None


def trail() -> str | None:
    """The SHA-256 of the texts compiled so far under the stored bundle open now, in order, else None. Why: the
    traces kept between processes (codegen/tracecache.py) name the compile that made them by it, so a compile that
    generated anything else (another engine, mode or ruleset, or a compile that is not deterministic) finds none."""
    opened = _OPEN.get()
    return opened.trail.hexdigest() if opened is not None and opened.stored else None


@contextmanager
def late(name: str | None) -> Iterator[None]:
    """Answer :func:`compiled` from the *late* bundle of the stored bundle ``name`` while open: for the texts
    generated while games run, after the compile closed its bundle. Fused functions are traced on a game's first
    visit to each entry (codegen/fuse.py, ``lazy``), so every process compiled the traces its games reached
    again: about 0.2 s of Python's ``compile`` per large game and process (tests/test_fuse.py's three large games
    0.7 s), in every test worker and every `liturgy play` or `serve`.

    The late bundle is read from disk once per process, kept open between traces, and stored when the process
    exits (``atexit``) if some text was missing, with the codes read from disk as well as those made now, so
    processes that reach different entries add up. As for any bundle, a code is looked up by its text's SHA-256
    (another ruleset, mode or engine makes other texts, which miss), and an entry that fails its hash or does
    not unmarshal to code is not used. No-op where ``name`` is None (the compile was not stored: a throw-away
    ruleset, or the cache off) or a bundle is open already (a trace made while compiling, as ``liturgy dump``
    does, belongs to that one)."""
    if name is None or not diskcache.stored() or _OPEN.get() is not None:
        yield
        return
    opened = _LATE.get(name)
    if opened is None:
        entry = diskcache.key("code", diskcache.python_tag(), name, "late")
        opened = _LATE[name] = _Bundle(entry, _load(entry), False)  # not a name for stored_bundle
    token = _OPEN.set(opened)
    try:
        yield
    finally:
        _OPEN.reset(token)


# The late bundles open in this process, by the name of the bundle they follow (:func:`late`).
_LATE: dict[str, _Bundle] = {}


def _store_late() -> None:
    """Store each late bundle that missed a text, whole: what it read from disk and what this process made."""
    for opened in _LATE.values():
        if opened.missed:
            diskcache.write(opened.name, marshal.dumps({**opened.codes, **opened.used}))
            opened.missed = 0


atexit.register(_store_late)


def _load(entry: str) -> dict[str, CodeType]:
    payload = diskcache.read(entry)
    if payload is None:
        return {}
    try:
        codes = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return {}
    if not isinstance(codes, dict) or not all(isinstance(c, CodeType) for c in codes.values()):
        return {}
    return codes


def compiled(text: str, filename: str, build: Callable[[], CodeType], digest: str | None = None) -> CodeType:
    """The code of ``text`` named ``filename``: from this process's memo or the open bundle when either holds
    the text, else ``build()`` (Python's ``compile``, whose errors pass through to the caller). ``digest``: the
    text's SHA-256 as kept with it in a verified entry (codegen/tracecache.py), not computed again."""
    if not diskcache.enabled():
        return build()
    opened = _OPEN.get()
    code = _MEMO.get(text)
    key = ""
    if opened is not None:
        key = digest or hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        code = code or opened.codes.get(key)
        opened.trail.update(key.encode())
    code = build() if code is None else _renamed(code, filename)
    if opened is not None and key not in opened.codes:
        # stored again even when this process's memo had the text: the next process has no memo
        opened.missed += 1
    if len(_MEMO) >= MEMO_MAX:
        _MEMO.clear()
    _MEMO[text] = code
    if opened is not None:
        opened.used[key] = code
    return code


# This process's code by text: the same ruleset compiled again (another compile mode shares most of its texts, a
# test compiles a ruleset fused and unfused, a fuzzer near-identical rulesets) is byte-compiled once. Bounded:
# cleared whole when full (the four large games make about 8,000 texts).
MEMO_MAX = 12_000
_MEMO: dict[str, CodeType] = {}


def _renamed(code: CodeType, filename: str) -> CodeType:
    """``code`` and every function and comprehension inside it, named ``filename`` for tracebacks."""
    consts = tuple(_renamed(c, filename) if isinstance(c, CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)
