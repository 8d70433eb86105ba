"""Sealed saves: a keyed MAC that lets a load trust a save this user's engine wrote, instead of replaying it.

Why: a load that replays (engine/saves.py) costs the whole game again, about twice what reading the fields
cost (docs/performance.md, sessions 17-20). A save carries no proof of where it came from, so without a key
nothing in its state can be trusted: whoever edits the state can recompute any unkeyed digest. With a secret key
the engine alone can seal, a save whose seal verifies is one this engine wrote, byte for byte, and its fields can
be read back as they are (``saves.load_sealed``). Anything else (no seal, a bad one, another machine's key, a
save edited anywhere) is replayed exactly as before: the seal only ever makes a load faster, never more lenient.

The key: 32 random bytes in the user's private cache folder (``dsl/frontend/grammar_cache.cache_dir``: 0700,
refused when another user owns it or may write to it), created on first use, written 0600 and atomically (a
temporary file hard-linked into place, so two processes racing to create it agree on one key). A key file that
is not a regular file owned by this user, readable or writable by nobody else, and exactly 32 bytes long is
refused and never overwritten: no seal is written and every load replays. ``LITURGY_CACHE_DIR=off`` (or an
unusable cache folder) therefore turns sealing off. A key never leaves its folder: saves sealed on one machine
(or by another user) replay on every other.

What is sealed: BLAKE2b keyed with the key (32-byte digest) over a fixed prefix, this build of the engine
(:func:`engine_version`: a save sealed by another version of Liturgy replays), the seal's own fields (the
game's work counter, which no other save field holds and budgets read, and whether the game was invariant-checked)
and the orjson text of every other field of the save, keys sorted (the order of a frame's variables may differ
between compile modes and stores, the values may not). The load verifies with
``hmac.compare_digest`` and builds the game from the text it verified, parsed again (fresh objects, nothing shared
with the caller's), after checking the parsed fields equal the ones handed over: orjson writes a NaN or an
infinity as ``null``, so a save edited that way keeps its text, and it must replay (and be refused) as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import stat
import tempfile
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from liturgy.dsl import diskcache
from liturgy.dsl.frontend.grammar_cache import cache_dir

if TYPE_CHECKING:
    from liturgy.interpreter.runtime.state import GameState

KEY_NAME = "save-seal.key"
KEY_BYTES = 32
_PREFIX = b"liturgy save seal 1\0"
# orjson would write a subclass of str or int, a dataclass or a datetime as plain JSON: such a value is not what the
# engine wrote, so its save is neither sealed nor trusted (TypeError: replayed)
_STRICT = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS

# values that hold no list (a text with a bracket in it is still not one)
_FLAT = frozenset((int, str, bool, float, type(None)))

# the key read last, per key file: its stat signature and bytes (a key file replaced or edited is read again)
_known: dict[str, tuple[tuple[int, ...], bytes]] = {}


def key() -> bytes | None:
    """This user's sealing key, created on first use; None when there is no private cache folder or its key file
    cannot be trusted (see the module's docstring).

    Why the folder is remembered: ``cache_dir`` builds paths, tries a ``mkdir`` and checks the folder on every
    call, about a third of a save's seal (session 21). The folder it found is kept with its stat signature and
    the settings that chose it (the environment variables and the ``cache_dir`` function itself); a later call
    with the same settings stats the folder and takes it again only when it is the same folder, still this
    user's and writable by nobody else (what ``cache_dir`` checks); anything else asks ``cache_dir`` again.
    The key file itself is stat'ed and checked at every call, as before (``_read``)."""
    folder = _folder()
    if folder is None:
        return None
    path = os.path.join(folder, KEY_NAME)
    try:
        st = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return _create(folder, path)
    except OSError:
        return None
    return _read(path, st)


# the folder cache_dir gave last: (cache_dir, the settings it read, the folder, the folder's stat signature)
_found: tuple[object, tuple[str | None, ...], str, tuple[int, ...]] | None = None


def _settings() -> tuple[str | None, ...]:
    env = os.environ
    return env.get("LITURGY_CACHE_DIR"), env.get("XDG_CACHE_HOME"), env.get("HOME")


def _folder() -> str | None:
    """``cache_dir()`` as a string, remembered while the settings and the folder's identity stay the same."""
    global _found
    settings = _settings()
    found = _found
    if found is not None and found[0] is cache_dir and found[1] == settings:
        try:
            st = os.stat(found[2])
        except OSError:
            st = None
        if st is not None and _private_folder(st) and _same_folder(st) == found[3]:
            return found[2]
    _found = None
    base = cache_dir()
    if base is None:
        return None
    folder = str(base)
    try:
        st = os.stat(folder)
    except OSError:
        return folder
    if _private_folder(st):
        _found = (cache_dir, settings, folder, _same_folder(st))
    return folder


def _same_folder(st: os.stat_result) -> tuple[int, ...]:
    """A folder's identity and owner (not its times: files come and go in it, the compile cache's too)."""
    return (st.st_dev, st.st_ino, st.st_mode, st.st_uid)


def _private_folder(st: os.stat_result) -> bool:
    """What ``cache_dir`` asks of its folder: a folder of this user's that nobody else may write into."""
    own = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return stat.S_ISDIR(st.st_mode) and own and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _signature(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size, st.st_mode, st.st_uid)


def _trusted(st: os.stat_result) -> bool:
    """A regular file of this user's, 0600 or stricter (nobody else may read the key, or write one in)."""
    own = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return stat.S_ISREG(st.st_mode) and own and not st.st_mode & 0o077 and st.st_size == KEY_BYTES


def _read(path: str, st: os.stat_result) -> bytes | None:
    if not _trusted(st):  # checked at every use, the cached key too
        return None
    sig = _signature(st)
    known = _known.get(path)
    if known is not None and known[0] == sig:
        return known[1]
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        opened = os.fstat(fd)  # the file opened is the one checked (not one swapped in since)
        if _signature(opened) != sig:
            return None
        raw = os.read(fd, KEY_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(raw) != KEY_BYTES:
        return None
    _known[path] = (sig, raw)
    return raw


def _create(folder: str, path: str) -> bytes | None:
    """Write a new key: a 0600 temporary file (mkstemp) hard-linked to ``path``, which fails if another process
    made one first; the key read back is then theirs, so every process of this user seals with one key."""
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".seal-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_bytes(KEY_BYTES))
                f.flush()
                os.fsync(f.fileno())
            with contextlib.suppress(FileExistsError):  # another process's key came first: read back below
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return _read(path, st)


@cache
def engine_version() -> bytes:
    """SHA-256 of the engine's and the language's source (every ``.py`` file of ``liturgy.interpreter``, and
    :func:`~liturgy.dsl.diskcache.language_version`, which covers ``liturgy.dsl`` and the Python that runs it).

    Why it is part of every MAC: a seal vouches that *this* engine wrote the save. The fingerprint names the
    rules, not the engine that compiled them; another build of Liturgy may lay out the state, number the
    compiled code or place a frame's resume point differently, and a save it sealed, read back as fields here,
    would resume a game from a state these rules never made. With the build in the MAC, such a seal fails to
    verify and the save replays, as every unsealed save does. Read once per process (a few milliseconds)."""
    import liturgy.interpreter

    h = hashlib.sha256(diskcache.language_version().encode())
    for root in liturgy.interpreter.__path__:
        for path in sorted(Path(root).rglob("*.py")):
            if "__pycache__" not in path.parts:
                data = path.read_bytes()
                h.update(str(path.relative_to(root)).encode() + b"\0" + len(data).to_bytes(8, "little"))
                h.update(data)
    return h.digest()


def _mac(secret: bytes, work: int, checked: bool, text: bytes) -> str:
    h = hashlib.blake2b(_PREFIX, key=secret, digest_size=32)
    h.update(engine_version())
    h.update(b"%d %d\0" % (work, checked))
    h.update(text)
    return h.hexdigest()


def seal(fields: dict[str, Any], work: int, checked: bool) -> dict[str, Any] | None:
    """The ``seal`` entry for a save whose other entries are ``fields``; None when sealing is off or the fields
    are not plain JSON (the save is then replayed when loaded, as every save was before seals)."""
    done = sealed_text(fields, work, checked)
    return None if done is None else done[1]


def sealed_text(fields: dict[str, Any], work: int, checked: bool) -> tuple[bytes, dict[str, Any]] | None:
    """The text the seal covers (orjson, keys sorted) and the seal; None as for :func:`seal`.

    Why the text is handed back: it is a save's JSON text, so a caller that writes the save as text
    (:meth:`Game.save_text`, the web server's every decision) writes this one with the seal added, and the
    fields are rendered once instead of twice."""
    secret = key()
    if secret is None:
        return None
    try:
        text = orjson.dumps(fields, option=_STRICT | orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return None
    return text, {"work": work, "checked": checked, "mac": _mac(secret, work, checked, text)}


def with_seal(text: bytes, sealed: dict[str, Any]) -> bytes:
    """The JSON text of an object, ``text``, with a ``seal`` entry added last (the object holds other entries)."""
    return text[:-1] + b',"seal":' + orjson.dumps(sealed) + b"}"


def tuples_only(s: GameState, checked: int = 0) -> int | None:
    """Whether every value of the rules in the state (counters, the frames' variables, the pending choice, the
    log, the result's values) is made of tuples, text, numbers and ``none`` alone: then a load can give back each
    JSON list as the tuple the engine held. A card's printed list field is a Python list in the engine (the card
    data as read), and where one sits the save cannot say which of its lists were lists: such a game (Fury of
    Dracula logs combat results so) is saved without a seal and replays. ``repr`` finds a list or a dict in C;
    text holding a bracket only costs the seal too.

    The log only grows, a line at a time, and its lines are never changed: ``checked`` lines of it are known to
    hold none (the game's count, :attr:`Game.log_plain`), and the answer is how many are now, or None. (The repr
    of a whole Bloodborne log was as long as the save's ``json.dumps``.)"""
    log = s.log
    if checked > len(log):
        checked = 0
    counters = s.counters
    # most counters hold a number or a text: the kinds of values are looked at first (in C), and the counters'
    # repr, a third of a save's seal where it was always taken (session 21), only where some other kind is there
    if not _FLAT.issuperset(map(type, counters)):
        text = repr(counters)
        if "[" in text[1:] or "{" in text:
            return None
    text = repr(log[checked:])
    if "[" in text[1:] or "{" in text:
        return None
    text = repr(s.pending) + repr([v for f in s.frames for v in f[2].values()])[1:]
    if "[" in text or "{" in text:
        return None
    r = s.result
    if r is not None:
        text = repr([*r["scores"], *[v for t in r["tiebreaks"] for v in t], *r.get("reports", {}).values()])
        if "[" in text[1:] or "{" in text:
            return None
    return len(log)


def verified(data: dict[str, Any]) -> tuple[dict[str, Any], int, bool] | None:
    """The fields of a save whose seal verifies under this user's key, parsed again from the text the seal
    covers (fresh objects, nothing shared with ``data``), with the sealed work counter and checked flag; None
    for anything else."""
    sealed = data.get("seal")
    if not isinstance(sealed, dict) or len(sealed) != 3:
        return None
    work, checked, mac = sealed.get("work"), sealed.get("checked"), sealed.get("mac")
    if (work.__class__ is not int or work < 0 or checked.__class__ is not bool or mac.__class__ is not str
            or not mac.isascii()):  # compare_digest takes ASCII text only
        return None
    secret = key()
    if secret is None:
        return None
    body = {k: v for k, v in data.items() if k != "seal"}
    try:
        text = orjson.dumps(body, option=_STRICT)
    except (TypeError, orjson.JSONEncodeError):
        return None
    fields = orjson.loads(text)
    # the text tells apart everything but a NaN or an infinity from null: `==` sees those (None is not NaN), and
    # where the text is the same it can differ in nothing else (1 and 1.0, true and 1, are spelled apart)
    if fields != body:
        return None
    if not hmac.compare_digest(_mac(secret, work, checked, orjson.dumps(fields, option=orjson.OPT_SORT_KEYS)), mac):
        return None
    return fields, work, checked
