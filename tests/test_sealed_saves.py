"""Sealed saves (interpreter/engine/seal.py, ``saves.load_sealed``): a game built from a sealed save's fields must
be indistinguishable from the replayed one, in every shipped ruleset, at any point of a game and after any
continuation; a save whose seal does not verify (edited anywhere, sealed with another key, unsealed) replays exactly
as before, accepted or refused with the same error; and the key is private to its user or not used at all.
"""

from __future__ import annotations

import json
import os
import random
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, sized
from hypothesis import given, settings
from hypothesis import strategies as st
from liturgy.interpreter.engine import Game, Ruleset, load_ruleset, seal
from liturgy.interpreter.engine.saves import CorruptSave, load_sealed

SHIPPED = sorted(p.name for p in (ROOT / "rulesets").glob("*.rules"))


@pytest.fixture(scope="module", autouse=True)
def key_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The seals of this module's games use a key of their own, in a private folder of the test's (the folder
    alone is replaced: the rulesets still load through the suite's compile cache)."""
    folder = tmp_path_factory.mktemp("sealkeys")
    folder.chmod(0o700)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(seal, "cache_dir", lambda: folder)
        yield folder


def _rules(name: str) -> Ruleset:
    return load_ruleset(str(ROOT / "rulesets" / name))


def _played(rules: Ruleset, players: int, seed: int, check: bool, upto: float) -> Game:
    """A random game stopped after ``upto`` of the decisions it would take (so saves made mid-round too), each
    simultaneous round sent in a random order."""
    game = rules.new_game(players, seed, check_invariants=check)
    whole = rules.new_game(players, seed)
    length = whole.random_playout(random.Random(seed))
    stop = int(length * upto)
    rng = random.Random(seed + 1)
    while not game.finished and len(game.state.decisions) < stop:
        waiting = list(game.waiting_for())
        rng.shuffle(waiting)
        for p in waiting:
            game.apply(rng.randrange(game.option_count(p)), p)
            if len(game.state.decisions) >= stop:
                break
    return game


def _unsealed(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "seal"}


def _alike(a: Game, b: Game, order: bool = True) -> None:
    """Everything a caller can read of two games, and the engine's own state, are equal. ``order=False``: the
    order of a frame's variables may differ (a game read from ``save_text``'s sorted text), as it does between
    the fused and the single-stepped machine; nothing but a save's key order shows it."""
    if order:
        assert json.dumps(a.to_json()) == json.dumps(b.to_json())  # the same text, key order included
    assert json.dumps(a.to_json(), sort_keys=True) == json.dumps(b.to_json(), sort_keys=True)
    assert a.digest() == b.digest()
    sa, sb = a.state, b.state
    for name in ("counters", "zones", "card_zone", "face_up", "shown", "rng", "pending", "commits", "log",
                 "decisions", "steps", "status", "result", "error", "removed_count", "work"):
        assert getattr(sa, name) == getattr(sb, name), name
    # a frame's Code: the ruleset's own for its id, or the fuser's copy of it for one call site (same id and
    # instructions, fused functions that return into the caller: interpreter/codegen/fuse.py), which the step
    # machine cannot tell apart; the continuation below plays both on
    assert [[f[0].id, f[0].ins, f[1], f[2]] for f in sa.frames] == [[f[0].id, f[0].ins, f[1], f[2]] for f in sb.frames]
    assert a.ruleset is b.ruleset and a.seed == b.seed and a.options == b.options and a.check == b.check
    for viewer in [*range(a.players), None]:
        assert a.view(viewer) == b.view(viewer), viewer
        assert a.log_lines(viewer) == b.log_lines(viewer)
    if not a.finished:
        assert a.waiting_for() == b.waiting_for()
        for p in a.waiting_for():
            assert a.option_count(p) == b.option_count(p)


@pytest.mark.parametrize("name", SHIPPED)
@settings(max_examples=sized(5, 300))  # whole games of the large rulesets: about 2 s a ruleset at 5 (CPU)
@given(seed=st.integers(0, 10**6), upto=st.floats(0, 1), extra=st.integers(0, 2), checked=st.booleans(),
       go_on=st.integers(0, 10**6))
def test_a_sealed_load_is_the_replayed_game(name: str, seed: int, upto: float, extra: int, checked: bool,
                                           go_on: int) -> None:
    rules = _rules(name)
    players = min(rules.min_players + extra, rules.max_players)
    game = _played(rules, players, seed, checked, upto)
    data = json.loads(json.dumps(game.to_json()))
    if "seal" not in data:  # a card's printed list in the state (Fury of Dracula's combat results in its log)
        assert seal.tuples_only(game.state) is None and seal.key() is not None
        return
    assert data["seal"]["checked"] is checked and data["seal"]["work"] == game.state.work
    assert load_sealed(rules, data, checked) is not None  # the sealed path is the one taken
    sealed = rules.load_game(data, check_invariants=checked)
    replayed = rules.load_game(_unsealed(json.loads(json.dumps(game.to_json()))), check_invariants=checked)
    _alike(sealed, replayed)
    _alike(sealed, game)
    rng = random.Random(go_on)
    for g in (sealed, replayed):  # the same continuation: every choice drawn from one seed, through apply
        rng.seed(go_on)
        while not g.finished:
            for p in list(g.waiting_for()):
                g.apply(rng.randrange(g.option_count(p)), p)
    _alike(sealed, replayed)


def _outcome(rules: Ruleset, data: Any, check: bool = False) -> tuple[str, str]:
    try:
        game = rules.load_game(data, check_invariants=check)
    except ValueError as err:
        return type(err).__name__, str(err)
    return "loaded", json.dumps(game.fields()) + game.digest()


def _reversed(data: dict[str, Any]) -> None:
    """The same save with its keys listed the other way round (a store that sorts keys): another text."""
    items = list(data.items())
    data.clear()
    data.update(reversed(items))


def _edits(data: dict[str, Any]) -> Iterator[tuple[str, Callable[[dict[str, Any]], None]]]:
    def setter(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
        return lambda d: d.__setitem__(key, value)

    yield "rng", setter("rng", data["rng"] + 1)
    yield "seed", setter("seed", data["seed"] + 1)
    yield "format", setter("format", 0)
    yield "steps", setter("steps", data["steps"] + 1)
    yield "status", setter("status", "finished")
    yield "decisions", setter("decisions", data["decisions"][:-1])
    yield "decisions order", setter("decisions", data["decisions"][::-1])
    yield "counters", setter("counters", [*data["counters"][:-1], 5])
    yield "zones", setter("zones", [list(reversed(z)) for z in data["zones"]])
    yield "log", setter("log", data["log"][:-1])
    yield "fingerprint", setter("ruleset_fingerprint", "0" * 64)
    yield "no fingerprint", setter("ruleset_fingerprint", None)
    yield "options", setter("options", {"x": "1"})
    yield "a NaN for none", setter("error", float("nan"))
    yield "extra field", setter("comment", "hi")
    yield "seal work", lambda d: d["seal"].__setitem__("work", d["seal"]["work"] + 1)
    yield "seal checked", lambda d: d["seal"].__setitem__("checked", not d["seal"]["checked"])
    yield "seal mac", lambda d: d["seal"].__setitem__("mac", "0" * 64)
    yield "seal mac text", lambda d: d["seal"].__setitem__("mac", "é" * 64)
    yield "seal shape", setter("seal", [1, 2])


@pytest.mark.parametrize("name", ["bloodborne.rules", "fury_of_dracula.rules"])
def test_an_edited_sealed_save_replays_as_before(name: str) -> None:
    """Every edit (the state, the seed, the decisions, the version, the seal itself) makes the seal fail: the save
    is replayed, and loads or is refused exactly as the same save without a seal is (today's path, its error)."""
    rules = _rules(name)
    game = _played(rules, rules.min_players, 3, False, 0.5 if name == "bloodborne.rules" else 0.05)
    text = json.dumps(game.to_json())
    assert "seal" in json.loads(text)
    seen = set()
    for what, edit in _edits(json.loads(text)):
        data = json.loads(text)
        edit(data)
        assert load_sealed(rules, data, False) is None, what
        outcome = _outcome(rules, data)
        assert outcome == _outcome(rules, _unsealed(data)), what
        seen.add(outcome[0])
        if what == "extra field" or what.startswith("seal"):  # the state itself is genuine
            assert outcome == _outcome(rules, _unsealed(json.loads(text))), what
    assert seen == {"loaded", "CorruptSave"}
    data = json.loads(text)
    _reversed(data)  # a store that lists the keys in another order: the same save, still sealed
    assert load_sealed(rules, data, False) is not None
    assert _outcome(rules, data) == _outcome(rules, json.loads(text))
    with pytest.raises(CorruptSave, match="its `error`"):  # named as before: the NaN is not taken for null
        rules.load_game({**json.loads(text), "error": float("nan")})


def test_checked_and_unchecked_loads_trust_only_what_the_seal_vouches_for(write_ruleset: Callable[..., str]) -> None:
    """An unchecked game's seal does not serve a checked load (the replay checks every step: here it stops where
    an invariant failed on the way); a checked game's does serve an unchecked load unless the game stopped."""
    from test_save_replay import JUGGLE

    rules = load_ruleset(write_ruleset(JUGGLE))
    unchecked = rules.new_game(1, 0)
    unchecked.apply(1, 0)  # three balls
    unchecked.apply(1, 0)  # two again
    data = json.loads(json.dumps(unchecked.to_json()))
    assert "seal" in data and load_sealed(rules, data, True) is None
    with pytest.raises(CorruptSave, match="do not replay|its `status`|its `error`"):
        rules.load_game(data, check_invariants=True)
    assert rules.load_game(data).digest() == unchecked.digest()
    checked = rules.new_game(1, 0, check_invariants=True)
    checked.apply(0, 0)
    fine = json.loads(json.dumps(checked.to_json()))
    assert load_sealed(rules, fine, False) is not None and load_sealed(rules, fine, True) is not None
    checked.apply(1, 0)
    assert checked.state.status == "aborted"
    stopped = json.loads(json.dumps(checked.to_json()))
    assert load_sealed(rules, stopped, False) is None and load_sealed(rules, stopped, True) is not None
    assert _outcome(rules, stopped) == _outcome(rules, _unsealed(stopped))
    assert _outcome(rules, stopped, True) == _outcome(rules, _unsealed(stopped), True)


def test_the_key_is_private_and_one_per_folder(key_folder: Path) -> None:
    for entry in key_folder.iterdir():
        entry.unlink()
    first = seal.key()
    path = key_folder / seal.KEY_NAME
    assert first is not None and len(first) == 32 and path.read_bytes() == first
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert seal.key() == first
    assert [p.name for p in key_folder.iterdir()] == [seal.KEY_NAME]  # no temporary file left


@pytest.mark.parametrize("spoil", ["world-writable", "group-readable", "foreign", "symlink", "short"])
def test_a_key_file_that_is_not_private_is_refused(key_folder: Path, monkeypatch: pytest.MonkeyPatch,
                                                   spoil: str) -> None:
    """A key someone else may read or write (or that is not this user's regular file, or is not a key) is never
    used nor replaced: saves carry no seal and sealed saves replay."""
    rules = _rules("bloodborne.rules")
    game = _played(rules, 3, 1, False, 0.3)
    sealed = json.loads(json.dumps(game.to_json()))
    assert "seal" in sealed
    path = key_folder / seal.KEY_NAME
    before = path.read_bytes()
    if spoil == "world-writable":
        path.chmod(0o666)
    elif spoil == "group-readable":
        path.chmod(0o640)
    elif spoil == "foreign":
        monkeypatch.setattr(os, "getuid", lambda: path.stat().st_uid + 1)
    elif spoil == "symlink":
        other = key_folder / "elsewhere"
        other.write_bytes(before)
        other.chmod(0o600)
        path.unlink()
        path.symlink_to(other)
    else:
        path.write_bytes(before[:16])
    try:
        assert seal.key() is None
        assert "seal" not in game.to_json()
        assert load_sealed(rules, sealed, False) is None
        assert rules.load_game(sealed).digest() == game.digest()  # replayed
    finally:
        monkeypatch.undo()
        path.unlink()
        (key_folder / "elsewhere").unlink(missing_ok=True)
        path.write_bytes(before)
        path.chmod(0o600)
    assert seal.key() == before


def test_another_key_or_no_cache_folder_means_replay(key_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = _rules("bloodborne.rules")
    game = _played(rules, 3, 2, False, 0.6)
    sealed = json.loads(json.dumps(game.to_json()))
    path = key_folder / seal.KEY_NAME
    before = path.read_bytes()
    path.unlink()  # another machine: a key of its own
    try:
        assert seal.key() not in (None, before)
        assert load_sealed(rules, sealed, False) is None
        assert _outcome(rules, sealed) == _outcome(rules, _unsealed(sealed))
        resealed = json.loads(json.dumps(game.to_json()))
        assert resealed["seal"] != sealed["seal"] and load_sealed(rules, resealed, False) is not None
    finally:
        path.unlink()
        path.write_bytes(before)
        path.chmod(0o600)
    from liturgy.dsl.frontend import grammar_cache

    monkeypatch.setattr(seal, "cache_dir", grammar_cache.cache_dir)  # the real folder, switched off
    monkeypatch.setenv("LITURGY_CACHE_DIR", "off")
    assert seal.key() is None and "seal" not in game.to_json()
    assert load_sealed(rules, sealed, False) is None
    assert rules.load_game(sealed).digest() == game.digest()


def test_a_save_sealed_by_another_build_of_liturgy_replays(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same key, the same rules, another engine: its seal does not verify here (the state's layout, the
    compiled code's numbering and a frame's resume point are the engine's), so the save replays."""
    rules = _rules("bloodborne.rules")
    game = _played(rules, 3, 5, False, 0.5)
    ours = json.loads(json.dumps(game.to_json()))
    assert load_sealed(rules, ours, False) is not None
    monkeypatch.setattr(seal, "engine_version", lambda: b"another build")
    theirs = json.loads(json.dumps(game.to_json()))
    assert theirs["seal"] != ours["seal"] and load_sealed(rules, theirs, False) is not None
    monkeypatch.undo()
    assert load_sealed(rules, theirs, False) is None
    assert _outcome(rules, theirs) == _outcome(rules, _unsealed(theirs))


@given(st.integers(0, sized(20, 200)))
def test_a_sealed_save_handed_over_as_objects_loads_alike(seed: int) -> None:
    """``load_game(game.to_json())`` without a JSON round trip (tuples where the text has lists): sealed or
    replayed, the same game."""
    rules = _rules("bloodborne.rules")
    game = _played(rules, 3 + seed % 3, seed, False, (seed % 7) / 6)
    _alike(rules.load_game(game.to_json()), rules.load_game(_unsealed(game.to_json())))


@pytest.mark.parametrize("name", SHIPPED)
def test_the_saved_text_is_the_sealed_save(name: str) -> None:
    """``Game.save_text`` (the web server's write: the text the seal covers, with the seal added) parses to the
    save ``to_json`` gives, seal included, and loads as it does (the same game and the same text again, after
    the same continuation too; only a frame's variables may come in another order); edited, it replays as
    before."""
    rules = _rules(name)
    for seed, upto in ((1, 0.0), (2, 0.4), (3, 0.8), (4, 1.0)):
        game = _played(rules, 3, seed, False, upto)
        text = game.save_text()
        data = json.loads(text)
        assert data == json.loads(json.dumps(game.to_json()))
        if "seal" not in data:
            continue
        assert load_sealed(rules, data, False) is not None
        sealed, replayed = rules.load_game(data), rules.load_game(_unsealed(data))
        _alike(sealed, replayed, order=False)
        assert sealed.save_text() == replayed.save_text() == text
        rng = random.Random(seed)
        for g in (sealed, replayed):  # the same continuation, through apply
            rng.seed(seed)
            while not g.finished:
                for p in list(g.waiting_for()):
                    g.apply(rng.randrange(g.option_count(p)), p)
        _alike(sealed, replayed, order=False)
        assert sealed.save_text() == replayed.save_text()
        edited = json.loads(text)
        edited["steps"] += 1
        assert load_sealed(rules, edited, False) is None
        assert _outcome(rules, edited) == _outcome(rules, _unsealed(edited))


def test_the_key_folder_is_checked_again_when_it_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The folder ``cache_dir`` found is remembered (seal.py ``_folder``) only while the settings and the folder
    stay the same: a folder others may now write into, another folder, or caching switched off is seen at once."""
    from liturgy.dsl.frontend import grammar_cache

    monkeypatch.setattr(seal, "cache_dir", grammar_cache.cache_dir)
    first, second = tmp_path / "one", tmp_path / "two"
    monkeypatch.setenv("LITURGY_CACHE_DIR", str(first))
    mine = seal.key()
    assert mine is not None and seal.key() == mine
    first.chmod(0o770)
    assert seal.key() is None
    first.chmod(0o700)
    assert seal.key() == mine
    monkeypatch.setenv("LITURGY_CACHE_DIR", str(second))
    theirs = seal.key()
    assert theirs not in (None, mine)
    monkeypatch.setenv("LITURGY_CACHE_DIR", "off")
    assert seal.key() is None
    monkeypatch.setenv("LITURGY_CACHE_DIR", str(first))
    assert seal.key() == mine
    monkeypatch.setattr(seal, "cache_dir", lambda: None)  # another cache_dir: asked again
    assert seal.key() is None
