"""The compile cache shared by processes (dsl/diskcache.py, dsl/checkcache.py, interpreter/codegen/codecache.py).

What must hold: a ruleset loaded from the cache plays exactly as one compiled afresh; an entry that is
corrupt, truncated or not the language's own data is never used (and is rebuilt); an edited, added or removed
card file is seen; ``LITURGY_CACHE=off`` writes and reads nothing; entries are private to the user.
"""

from __future__ import annotations

import os
import pickle
import random
import shutil
import subprocess
import sys
from pathlib import Path
from types import CodeType

import pytest
from conftest import ROOT
from liturgy.dsl import checkcache, diskcache
from liturgy.dsl.frontend.grammar_cache import cache_dir
from liturgy.interpreter.codegen import codecache
from liturgy.interpreter.engine.ruleset import Ruleset
from liturgy.interpreter.engine.ruleset import load_ruleset as load_through_cache  # conftest shares the other

EXAMPLES = ROOT / "docs" / "examples"


def _private(tmp_path: Path) -> Path:
    """An empty private cache folder, with the grammar's tables (which live in the same folder) copied from the
    user's cache: building them again costs seconds and is not what is tested here."""
    mine = tmp_path / "cache"
    mine.mkdir(mode=0o700)
    users = cache_dir()
    for table in users.iterdir() if users is not None else []:
        if table.is_file():
            shutil.copyfile(table, mine / table.name)
    return mine


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private, empty compile cache for this test alone; its folder of entries."""
    monkeypatch.delenv("LITURGY_CACHE", raising=False)
    monkeypatch.setenv("LITURGY_CACHE_DIR", str(_private(tmp_path)))
    return tmp_path / "cache" / "compiled"


def _gems(tmp_path: Path) -> Path:
    """Gem Mines (docs/examples) with its cards found by a pattern, in a folder of its own."""
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "mines.yaml").write_text((EXAMPLES / "cards" / "mines.yaml").read_text("utf-8"), "utf-8")
    text = (EXAMPLES / "gem_pool.rules").read_text("utf-8").replace('cards "cards/mines.yaml"', 'cards "cards/*.yaml"')
    path = tmp_path / "gems.rules"
    path.write_text(text, encoding="utf-8")
    return path


def _played(rules: Ruleset, seed: int) -> tuple[str, list[str]]:
    game = rules.new_game(rules.min_players, seed=seed, check_invariants=True)
    game.random_playout(random.Random(seed))
    assert game.finished and game.error is None
    return game.digest(), [str(line) for line in game.view(0)["log"]]


def _refuse_checking(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(path: str) -> None:
        raise AssertionError(f"{path} was checked again although the cache held it")

    monkeypatch.setattr(checkcache, "check_file", refuse)


def test_a_ruleset_from_the_cache_plays_as_one_compiled_afresh(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [str(ROOT / "rulesets" / "bloodborne.rules"), str(EXAMPLES / "gem_pool.rules"),
             str(ROOT / "rulesets" / "classic" / "kuhn_poker.rules")]
    monkeypatch.setenv("LITURGY_CACHE", "off")
    fresh = {p: [_played(load_through_cache(p), seed) for seed in (1, 2)] for p in paths}
    assert not cache.exists() or not list(cache.iterdir()), "LITURGY_CACHE=off wrote an entry"
    monkeypatch.delenv("LITURGY_CACHE")
    stored = {p: [_played(load_through_cache(p), seed) for seed in (1, 2)] for p in paths}  # checked and stored
    # a checked program and a bundle of code each, and the noted variant's bundle (the games played are checked)
    assert len(list(cache.iterdir())) == 3 * len(paths)
    _refuse_checking(monkeypatch)
    loaded = {p: [_played(load_through_cache(p), seed) for seed in (1, 2)] for p in paths}  # from the entries
    assert fresh == stored == loaded


def test_entries_are_private_to_the_user(cache: Path) -> None:
    load_through_cache(str(EXAMPLES / "gem_pool.rules"))
    assert (os.stat(cache).st_mode & 0o077) == 0
    assert all((os.stat(entry).st_mode & 0o077) == 0 for entry in cache.iterdir())


@pytest.mark.parametrize("damage", ["truncated", "flipped", "empty", "foreign"])
def test_a_damaged_entry_is_ignored_and_rebuilt(cache: Path, tmp_path: Path, damage: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(_gems(tmp_path))
    expected = _played(load_through_cache(path), 3)
    for entry in cache.iterdir():
        raw = entry.read_bytes()
        if damage == "truncated":
            entry.write_bytes(raw[: len(raw) // 2])
        elif damage == "flipped":
            entry.write_bytes(raw[:-100] + bytes([raw[-100] ^ 1]) + raw[-99:])
        elif damage == "empty":
            entry.write_bytes(b"")
        else:
            entry.write_bytes(b"not an entry at all" * 50)
    checked: list[str] = []
    real = checkcache.check_file
    monkeypatch.setattr(checkcache, "check_file", lambda p: checked.append(p) or real(p))
    assert _played(load_through_cache(path), 3) == expected
    assert checked == [path]  # the damaged entry was not used: checked again, and stored again whole
    _refuse_checking(monkeypatch)
    assert _played(load_through_cache(path), 3) == expected


def test_an_entry_that_would_build_anything_but_the_languages_data_is_refused(cache: Path, tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Even an entry with a correct hash (written by someone who could write the private folder) cannot make the
    loader call a function: only the syntax tree's and the checker's own data classes are built."""
    path = str(_gems(tmp_path))
    load_through_cache(path)
    planted = tmp_path / "planted"

    class Plant:
        def __reduce__(self) -> tuple[object, tuple[str, str]]:
            return (Path.write_text, (str(planted), "ran"))  # type: ignore[return-value]

    name = diskcache.key("check", diskcache.language_version(), path, os.path.abspath(path))
    assert diskcache.read(name) is not None
    diskcache.write(name, pickle.dumps(([], {}, Plant(), [])))
    program, diags = checkcache.check_cached(path)
    assert program is not None and not planted.exists()


def test_an_edited_added_or_removed_card_file_is_seen(cache: Path, tmp_path: Path) -> None:
    path = _gems(tmp_path)
    before = checkcache.check_cached(str(path))[0]
    assert before is not None and [c.name for c in before.cards] == ["Old Mine", "River Mine", "Deep Mine"]
    mines = tmp_path / "cards" / "mines.yaml"
    mines.write_text(mines.read_text("utf-8").replace("Old Mine", "Older Mine"), "utf-8")
    edited = checkcache.check_cached(str(path))[0]
    assert edited is not None and edited.cards[0].name == "Older Mine"
    (tmp_path / "cards" / "more.yaml").write_text("kind: Mine\nstart: mines\ncards:\n  - name: New Mine\n"
                                                  "    yield: 1\n", "utf-8")
    added = checkcache.check_cached(str(path))[0]
    assert added is not None and "New Mine" in [c.name for c in added.cards]
    (tmp_path / "cards" / "more.yaml").unlink()
    removed = checkcache.check_cached(str(path))[0]
    assert removed is not None and "New Mine" not in [c.name for c in removed.cards]
    path.write_text(path.read_text("utf-8").replace("bank: 12", "bank: 13"), "utf-8")
    after, diags = checkcache.check_cached(str(path))
    assert after is None or after.fingerprint != before.fingerprint


def test_a_ruleset_with_errors_is_never_stored(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.rules"
    path.write_text('game "G" { players 2..2 }\nround { step s "S" { nowhere += 1 } }\n', "utf-8")
    program, diags = checkcache.check_cached(str(path))
    assert program is None and any(d.is_error for d in diags)
    assert not cache.exists() or not list(cache.iterdir())


def test_warnings_quote_their_lines_in_a_fresh_process_that_read_them_from_the_cache(tmp_path: Path) -> None:
    """A warning's text quotes the ruleset's line; a process that loaded the check from the cache never parsed
    the file, so the entry carries the quoted lines."""
    user = sorted((ROOT / "tests" / "compat" / "user").glob("*.rules"))[0]
    code = ("import sys\nfrom liturgy.dsl.checkcache import check_cached\n"
            "p, d = check_cached(sys.argv[1])\nprint(p is not None)\nprint('\\n'.join(str(x) for x in d))")
    env = {**os.environ, "LITURGY_CACHE_DIR": str(_private(tmp_path))}
    env.pop("LITURGY_CACHE", None)
    runs = [subprocess.run([sys.executable, "-c", code, str(user)], env=env, capture_output=True, text=True,
                           check=True, cwd=ROOT).stdout for _ in range(2)]
    assert list((tmp_path / "cache" / "compiled").iterdir()), "the first process stored the check"
    assert runs[0] == runs[1] and runs[0].startswith("True\n") and "W080" in runs[0]


def test_bytecode_from_the_cache_takes_each_compiles_own_file_name(cache: Path) -> None:
    """A bundle answers a text it holds without compiling it, under the caller's file name (codegen/source.py
    makes one per compiled ruleset, for tracebacks), nested functions and comprehensions included."""
    text = "def f(xs):\n    return [lambda: x for x in xs]\n"
    compiles: list[str] = []

    def build(name: str) -> CodeType:
        compiles.append(name)
        return compile(text, name, "exec")

    with codecache.bundle("test"):
        first = codecache.compiled(text, "<liturgy one>", lambda: build("<liturgy one>"))
    codecache._MEMO.clear()  # a fresh process, as far as the code is concerned: only the stored bundle has it
    with codecache.bundle("test"):
        second = codecache.compiled(text, "<liturgy two>", lambda: build("<liturgy two>"))
    assert compiles == ["<liturgy one>"]  # the second came from the stored bundle

    def names(code: CodeType) -> set[str]:
        return {code.co_filename}.union(*(names(c) for c in code.co_consts if isinstance(c, CodeType)))

    assert names(first) == {"<liturgy one>"} and names(second) == {"<liturgy two>"}
    assert second.co_code == first.co_code
    ns: dict[str, object] = {}
    exec(second, ns)
    assert [g() for g in ns["f"]([1, 2])] == [2, 2]  # type: ignore[operator]


def test_the_noted_variant_is_byte_compiled_once_per_cache(cache: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """``Ruleset.noted`` (the code checked games run, compiled on the first one) keeps its own bundle beside
    load_ruleset's: a later process byte-compiles none of its texts. Not for a ruleset loaded under
    ``memory_only`` (the suite's throw-away rulesets): nothing of it is written."""
    path = str(_gems(tmp_path))
    compiles: list[str] = []
    real = compile

    def counted(source: str, filename: str, mode: str) -> CodeType:
        compiles.append(filename)
        return real(source, filename, mode)

    with diskcache.memory_only():
        load_through_cache(path).noted()
    assert not cache.exists() or not list(cache.iterdir())
    first = _played(load_through_cache(path), 3)
    assert len(list(cache.iterdir())) == 3  # the checked program, its bundle, the noted variant's bundle
    codecache._MEMO.clear()  # a fresh process, as far as the code is concerned
    monkeypatch.setattr("builtins.compile", counted)
    again = load_through_cache(path)
    assert compiles == []
    assert again.noted() is not again and compiles == []  # its texts all came from the stored bundle
    assert _played(again, 3) == first


def test_nothing_is_cached_while_extension_constructs_are_registered(cache: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """An extension's lowering is Python code (dsl/constructs/extensions.py), which no hash of files covers."""
    monkeypatch.setattr(checkcache, "grammar_key", lambda: "registered")
    program, _ = checkcache.check_cached(str(_gems(tmp_path)))
    assert program is not None
    assert not cache.exists() or not list(cache.iterdir())


def test_memory_only_reads_and_writes_no_entry(cache: Path, tmp_path: Path) -> None:
    """What tests/conftest.py uses for each test's own throw-away rulesets: nothing on disk, the same result."""
    path = str(_gems(tmp_path))
    with diskcache.memory_only():
        inside = _played(load_through_cache(path), 4)
    assert not cache.exists() or not list(cache.iterdir())
    assert _played(load_through_cache(path), 4) == inside and list(cache.iterdir())


def test_a_folder_others_may_write_to_is_never_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries are read and written only in a folder nobody else can plant one in (as the grammar's tables)."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "compiled").mkdir()
    monkeypatch.setenv("LITURGY_CACHE_DIR", str(shared))
    monkeypatch.delenv("LITURGY_CACHE", raising=False)
    diskcache.write("entry", b"payload")
    assert diskcache.read("entry") == b"payload"  # a private folder: used
    shared.chmod(0o777)
    assert diskcache.read("entry") is None
    diskcache.write("other", b"payload")
    assert not (shared / "compiled" / "other").exists()


def test_traces_made_while_playing_are_byte_compiled_once_per_cache(cache: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The fused functions a game traces on its first visit to each entry (codegen/fuse.py) go to the late bundle
    of the compile's bundle (codecache.late), stored when the process exits: a later process that plays the same
    game byte-compiles none of them, and plays the same. A damaged late entry is not used."""
    monkeypatch.setattr(codecache, "_LATE", {})
    path = str(ROOT / "rulesets" / "bloodborne.rules")
    first = _played(load_through_cache(path), 4)
    assert any(b.missed for b in codecache._LATE.values())  # some traces were made while the game ran
    before = set(cache.iterdir())
    codecache._store_late()  # what the process's exit does
    (late,) = set(cache.iterdir()) - before
    compiles: list[str] = []
    real = compile

    def counted(source: str, filename: str, mode: str) -> CodeType:
        compiles.append(filename)
        return real(source, filename, mode)

    def fresh_process() -> tuple[str, list[str]]:
        codecache._MEMO.clear()
        monkeypatch.setattr(codecache, "_LATE", {})
        compiles.clear()
        monkeypatch.setattr("builtins.compile", counted)
        try:
            return _played(load_through_cache(path), 4)
        finally:
            monkeypatch.setattr("builtins.compile", real)

    assert fresh_process() == first
    assert not [f for f in compiles if "fused" in f]  # every trace came from the late bundle
    late.write_bytes(late.read_bytes()[:-7] + b"damaged")
    assert fresh_process() == first
    assert [f for f in compiles if "fused" in f]  # compiled again: the damaged entry was not trusted


def test_a_pure_bodys_env_form_compiled_on_first_call_is_the_same_from_the_cache(cache: Path,
                                                                                  monkeypatch: pytest.MonkeyPatch
                                                                                  ) -> None:
    """A pure proc's, handler's and card effect's ``env`` form is compiled on its first call (codegen/lazypure.py),
    into the late bundle: the same text and code from a fresh compile (stored) and from the cache (which
    byte-compiles none of them), each put in its ``Callable_`` once made, none made by the compile itself; the
    games play as with both forms compiled at once."""
    from liturgy.interpreter.codegen import lazypure
    from liturgy.interpreter.codegen.lazypure import LazyPure

    monkeypatch.setattr(codecache, "_LATE", {})
    path = str(ROOT / "rulesets" / "bloodborne.rules")
    compiles: list[str] = []
    real = compile

    def counted(source: str, filename: str, mode: str) -> CodeType:
        compiles.append(filename)
        return real(source, filename, mode)

    def forms(rules: Ruleset) -> list[tuple[str, str, bytes, tuple[str, ...], tuple[str, ...]]]:
        comp = rules.compiled
        held = [*comp.procs.values(), *(h for hs in comp.handlers.values() for h in hs),
                *(e for es in comp.effects.values() for e in es if e is not None)]
        lazy = [c for c in held if isinstance(c.pure, LazyPure)]
        assert len(lazy) > 20 and all(c.pure.fn is None for c in lazy)  # type: ignore[union-attr]
        texts = {g.filename: g.text for g in comp.gen.sources.items} if comp.gen is not None else {}
        out = []
        for c in lazy:
            stub = c.pure
            assert isinstance(stub, LazyPure)
            fn = stub.made()
            assert c.pure is fn and stub.made() is fn  # bound: later calls reach it directly
            code = fn.__code__
            out.append((c.name, texts[code.co_filename], code.co_code, code.co_names, code.co_varnames))
        return out

    stored = forms(made := load_through_cache(path))  # a fresh compile, stored
    codecache._store_late()  # what the process's exit does
    codecache._MEMO.clear()  # a fresh process, as far as the code is concerned
    monkeypatch.setattr(codecache, "_LATE", {})
    monkeypatch.setattr("builtins.compile", counted)
    try:
        loaded = forms(load_through_cache(path))
    finally:
        monkeypatch.setattr("builtins.compile", real)
    assert stored == loaded
    assert not [f for f in compiles if " stmt " in f], compiles  # from the bundle and its late bundle
    monkeypatch.setattr(lazypure, "ENABLED", False)  # both forms compiled with the ruleset, as before
    eager = Ruleset(made.program)
    assert not [c for c in eager.compiled.procs.values() if isinstance(c.pure, LazyPure)]
    for seed in (1, 2):
        games = [rules.new_game(3, seed=seed) for rules in (load_through_cache(path), eager)]
        for game in games:
            game.random_playout(random.Random(seed))
        assert games[0].digest() == games[1].digest() and games[0].error == games[1].error is None
