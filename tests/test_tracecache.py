"""The fused functions' walks kept between processes (interpreter/codegen/tracecache.py).

What must hold: a process that finds an entry's walk in the cache builds exactly the text the walk would write (the
same names, the same values under them) and plays the same games, without walking; a damaged entry, or one whose
records are not what a walk of this compile could make, is never used (the entries are walked again, and the games
are the same). Kuhn poker: small (cheap to check and compile), with a proc's `do` run into (call sites' copies).
"""

from __future__ import annotations

import json
import random
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from liturgy.dsl import diskcache
from liturgy.dsl.checkcache import check_cached
from liturgy.interpreter.codegen import codecache, fusewalk, tracecache
from liturgy.interpreter.engine.ruleset import Ruleset
from liturgy.interpreter.engine.ruleset import load_ruleset as load_through_cache  # conftest shares the other
from test_compile_cache import _private

KUHN = str(ROOT / "rulesets" / "classic" / "kuhn_poker.rules")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private, empty compile cache (the grammar's tables copied in), and this process's stores forgotten."""
    mine = _private(tmp_path)
    monkeypatch.delenv("LITURGY_CACHE", raising=False)
    monkeypatch.setenv("LITURGY_CACHE_DIR", str(mine))
    monkeypatch.setattr(tracecache, "_STORES", {})
    monkeypatch.setattr(codecache, "_LATE", {})
    return mine / "compiled"


def _played(rules: Ruleset) -> tuple[list[str], dict[str, str]]:
    """Digests of seeded games (checked on odd seeds), and every fused text made, by file name less its tag."""
    digests = []
    for seed in range(4):
        game = rules.new_game(2, seed=seed, check_invariants=bool(seed % 2))
        game.random_playout(random.Random(seed))
        digests.append(game.digest())
    texts = {}
    for compiled in (rules.compiled, rules.noted().compiled):
        assert compiled.gen is not None
        for g in compiled.gen.sources.items:
            if " fused " in g.filename:
                texts[f"{compiled.notes} {g.filename.split(' #')[0]}"] = g.text
    return digests, texts


def _fresh(monkeypatch: pytest.MonkeyPatch, walks: list[int]) -> tuple[list[str], dict[str, str]]:
    """What a new process plays (no store read yet, no code memo), counting the walks it makes."""
    tracecache._store_all()  # what the exit of the process before did
    monkeypatch.setattr(tracecache, "_STORES", {})
    monkeypatch.setattr(codecache, "_LATE", {})
    codecache._MEMO.clear()
    walks.clear()
    return _played(load_through_cache(KUHN))


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each walk of an entry (Trace.source at the top) noted."""
    made: list[int] = []
    real = fusewalk.Trace.source

    def counted(self: fusewalk.Trace, turns: bool = True) -> Any:
        made.append(self.head)
        return real(self, turns)

    monkeypatch.setattr(fusewalk.Trace, "source", counted)
    return made


def test_a_kept_walk_builds_the_walks_own_text_and_plays_the_same(cache: Path, walks: list[int],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    first = _played(load_through_cache(KUHN))
    assert walks and any(text.startswith("def _fused_s") for text in first[1].values())  # a call site's copy too
    again = _fresh(monkeypatch, walks)
    assert again == first and not walks  # the same texts under the same names, none walked


def test_a_damaged_or_foreign_record_is_never_used(cache: Path, walks: list[int],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The plain compile's entry truncated (it fails its hash), the noted variant's rewritten whole under its name,
    each record naming what no walk of this compile made: neither is replayed, every entry is walked again."""
    first = _played(load_through_cache(KUHN))
    tracecache._store_all()
    plain, noted = tracecache._STORES  # made in this order: the plain compile traced first (an unchecked game)
    (cache / plain).write_bytes((cache / plain).read_bytes()[:-9])
    records = json.loads(diskcache.read(noted) or b"{}")
    for i, record in enumerate(records.values()):
        if i % 3 == 0:
            record[2] = [["i", 10**6, 0] if slot[0] == "i" else slot for slot in record[2]] + [["i", 10**6, 0]]
        elif i % 3 == 1:
            record[3] = [[["c", 10**6], pc] for _, pc in record[3]] + [[["s", 0, 0, 10**6], 0]]
        else:
            record[0] = None if record[0] is None else record[0].replace("def _fused_", "def _other_", 1)
            record[1] = "yes" if record[0] is None else record[1]
    diskcache.write(noted, json.dumps(records).encode())
    replayed: list[object] = []
    real = tracecache.Traces.replay
    monkeypatch.setattr(tracecache.Traces, "replay", lambda self: replayed.append(real(self)) or replayed[-1])
    monkeypatch.setattr(tracecache, "_STORES", {})
    codecache._MEMO.clear()
    walks.clear()
    assert _played(load_through_cache(KUHN)) == first
    assert walks and replayed and not any(replayed)


def test_two_threads_playing_one_compile_trace_each_entry_once() -> None:
    """A walk names what it makes after its entry, so two walks at once in one compile would mix their names: the
    web server restores a saved game in a thread while its event loop plays. The fuser traces one entry at a
    time (without its lock, this failed three runs in three: a name made twice)."""
    program, _ = check_cached(str(ROOT / "rulesets" / "bloodborne.rules"))
    assert program is not None
    rules = Ruleset(program)  # a compile of its own: no entry traced yet
    digests: list[list[str]] = [[], []]
    errors: list[BaseException] = []

    def play(out: list[str]) -> None:
        try:
            for seed in range(2):
                game = rules.new_game(4, seed=seed)
                game.random_playout(random.Random(seed))
                out.append(game.digest())
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch inside the walks
    try:
        threads = [threading.Thread(target=play, args=(out,)) for out in digests]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors and digests[0] == digests[1] and len(digests[0]) == 2
