"""Shared fixtures and the Hypothesis profiles.

Profiles: ``ci`` (the default, a moderate example count that keeps the suite
within CI's budget) and ``thorough`` (thousands of examples, for local hunts:
``HYPOTHESIS_PROFILE=thorough python -m pytest tests/test_properties.py``).

``--shuffle SEED`` runs the collected tests in an order shuffled by SEED (the same on every xdist worker, so
``-n`` works), to catch tests that pass only after, or only without, another: ``python -m pytest -q
tests/test_web*.py --shuffle 7``. The seed is printed in the header; the same seed gives the same order again.

Without ``--shuffle`` the test files that hold the suite's longest tests run first (tests/slow_first.py, from
the measured ``tests/durations.json``), so neither xdist worker is left running a long test started late;
``--save-durations`` refreshes that file from the run's own figures.

``--cpu-durations N`` lists the N tests that used the most CPU (set-up, call and tear-down; the test's process
and the child processes it waited for), and the sum over all tests. Unlike ``--durations`` (wall time) it hardly
moves with the machine's other work, so it is how the suite's cost is compared before and after a change.
"""

from __future__ import annotations

import gc
import os
import random
import resource
import sys
import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import liturgy.interpreter.engine as engine
import pytest
import slow_first
from hypothesis import HealthCheck, settings
from liturgy.dsl import diskcache
from liturgy.dsl.checkcache import check_cached
from liturgy.dsl.loader import check_file
from liturgy.interpreter.codegen import codecache
from liturgy.interpreter.engine import Ruleset

settings.register_profile(
    "ci", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("thorough", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)


# The four large games: a whole game of each costs 10-100 times a classic's (their fuzz runs are sized)
LARGE = {"betrayal.rules", "slay_the_spire.rules", "fury_of_dracula.rules", "bloodborne.rules"}


def sized(ci: int, thorough: int) -> int:
    """A loop's count by the profile: ``ci`` by default, ``thorough`` under ``HYPOTHESIS_PROFILE=thorough`` (the
    long hunts: more random games, more examples, than the test command can afford on every run)."""
    return thorough if PROFILE == "thorough" else ci


# A clean clone has no bytecode, and with PYTHONDONTWRITEBYTECODE set (some containers and CI images set it) none
# is ever written: every process the suite starts (xdist workers, `liturgy serve`, Dask and bot workers, CLI runs)
# then compiles the package from source again, about 1.6 s of CPU each, and pytest rewrites every test module's
# asserts again in each worker. The suite's own processes may write it (``__pycache__`` is ignored by git).
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    sys.dont_write_bytecode = False

# The cyclic collector's youngest generation is scanned after every 700 net allocations by default; a test that
# plays games allocates millions of short-lived objects (states, views, log lines) that reference counting frees
# anyway, and those scans were a few per cent of the suite's CPU. Scanned every 20,000, with the older generations
# each after 20 of the one below: the same garbage is collected, later, in fewer passes. Measured on twelve files
# (1,254 tests, -p no:xdist, old and new run at once on a loaded machine): 87.6 s -> 79.8 s of CPU, most of it in
# test_compat.py's compiles and games. No result, digest or log depends on when the collector runs; only the
# suite's own processes are tuned, never the package.
gc.set_threshold(20_000, 20, 20)

ROOT = Path(__file__).resolve().parent.parent
BLOODBORNE = ROOT / "rulesets" / "bloodborne.rules"

# Compiled shipped rulesets are shared by every test in a worker process. Compiling Slay the Spire, Betrayal or
# Fury of Dracula takes seconds, and a dozen test modules each loaded their own copy. Only files of the
# repository's own rulesets/ and docs/examples/ are shared (tests never edit those; a test that edits a ruleset
# writes a copy under tmp_path, which is loaded afresh), keyed by path and modification time. A Ruleset is
# immutable once loaded except for its caches of per-player-count tables, which are safe to share.
_SHARED_DIRS = (ROOT / "rulesets", ROOT / "docs" / "examples")
_compile = engine.load_ruleset
_shared: dict[tuple[str, int], Ruleset] = {}


def _load_shared(path: str) -> Ruleset:
    real = Path(path).resolve()
    if not any(real.is_relative_to(d) for d in _SHARED_DIRS) or not real.is_file():
        # a test's own ruleset (under tmp_path) is loaded once: kept out of the compile cache's folder
        # (dsl/diskcache.py), where its entries would only be written, never read again
        with diskcache.memory_only():
            return _compile(path)
    key = (str(real), real.stat().st_mtime_ns)
    if key not in _shared:
        _shared[key] = _compile(path)
        # A shared compile lives as long as the worker, and the cyclic collector's full passes (about 8 in a run
        # of test_fuse.py and test_codegen.py, and pytest's 5 at the session's end) re-scanned every compiled
        # program each time: ~1 s a pass in a warm worker. Frozen, the collector skips it and all else alive
        # now (modules, other long-lived caches); objects are still freed by reference counting as ever, and
        # only garbage cycles alive at this moment are kept for good. No result, digest or log depends on when
        # the collector runs.
        gc.freeze()
    return _shared[key]


engine.load_ruleset = _load_shared  # test modules import it after this conftest
load_ruleset = _load_shared

# The other compile modes of the same files, shared the same way: tests/test_fuse.py (unfused), test_codegen.py
# (no statement generation, closures) and test_pending.py (all four) compared the large games in the same modes,
# each compiling its own copy (about 1 s of CPU per mode and game, as much again for the noted variant of a
# checked game). A test leaves a shared ruleset as it found it (test_fuse.py restores a step limit it sets).
_shared_modes: dict[tuple[str, int, tuple[tuple[str, bool], ...]], Ruleset] = {}


def compiled_in(path: str, **mode: bool) -> Ruleset:
    """The ruleset at ``path`` compiled in ``mode`` (``Ruleset``'s flags: ``fuse=False``, ``codegen=False``, …).

    The default mode is :func:`load_ruleset`'s shared copy. Another mode of a repository ruleset is compiled once
    per worker, inside a compile-cache bundle of its own (dsl/diskcache.py, codegen/codecache.py), as
    ``load_ruleset`` compiles the default: the bytecode of that mode's generated texts (and of its noted variant,
    whose bundle is named after this one) is then read from disk by every later worker and run, not compiled
    again by each. A test's own ruleset (under tmp_path) is compiled afresh, outside the cache's folder."""
    if all(mode.values()):
        return _load_shared(path)
    real = Path(path).resolve()
    if not any(real.is_relative_to(d) for d in _SHARED_DIRS) or not real.is_file():
        program, diags = check_file(path)
        assert program is not None, "\n".join(map(str, diags))
        return Ruleset(program, **mode)
    flags = tuple(sorted(mode.items()))
    key = (str(real), real.stat().st_mtime_ns, flags)
    if key not in _shared_modes:
        program, diags = check_cached(path)
        assert program is not None, "\n".join(map(str, diags))
        with codecache.bundle(f"{program.fingerprint}|{flags}"):
            _shared_modes[key] = Ruleset(program, **mode)
        gc.freeze()  # as _load_shared does: the collector's full passes need not scan it again
    return _shared_modes[key]



def played_plain_and_checked(rules: Ruleset, players: int, seed: int) -> tuple[engine.Game, engine.Game]:
    """One seeded random game played twice, unchecked and with invariant checks (which play the ruleset's noted
    variant): the pair the tests comparing the two compiles start from."""
    plain = rules.new_game(players, seed)
    plain.random_playout(random.Random(seed))
    checked = rules.new_game(players, seed, check_invariants=True)
    checked.random_playout(random.Random(seed))
    return plain, checked

@pytest.fixture(scope="session")
def bloodborne() -> Ruleset:
    return load_ruleset(str(BLOODBORNE))


@pytest.fixture
def write_ruleset(tmp_path: Path) -> Callable[..., str]:
    """Write a ruleset (and optional card files) into a temp folder; return its path."""

    def write(text: str, cards: dict[str, str] | None = None, name: str = "game.rules") -> str:
        for fname, body in (cards or {}).items():
            p = tmp_path / fname
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(body, encoding="utf-8")
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return write


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--shuffle", type=int, default=None, metavar="SEED",
                     help="run the tests in an order shuffled by SEED (an integer; the same seed, the same order)")
    parser.addoption("--cpu-durations", type=int, default=None, metavar="N",
                     help="list the N tests that used the most CPU (0: all), and the sum over every test")
    parser.addoption("--save-durations", action="store_true",
                     help="update tests/durations.json (which orders the test files) with this run's tests")


def pytest_report_header(config: pytest.Config) -> str | None:
    seed = config.getoption("--shuffle")
    return None if seed is None else f"test order shuffled with --shuffle {seed}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Shuffle the whole session's order (not module by module: a test may depend on one in another file
    through shared state, such as the compiled-ruleset cache above)."""
    seed = config.getoption("--shuffle")
    if seed is not None:
        random.Random(seed).shuffle(items)
    else:  # the files of the longest tests first (tests/slow_first.py: why, and why whole files)
        items[:] = slow_first.order(items, slow_first.load())


def _measuring(config: pytest.Config) -> bool:
    return config.getoption("--cpu-durations") is not None or bool(config.getoption("--save-durations"))


def _cpu() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


_CPU_KEY = pytest.StashKey[float]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    if _measuring(item.config):  # measured only when asked for
        item.stash[_CPU_KEY] = _cpu()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, None, None]:
    outcome = yield
    if call.when == "teardown" and _CPU_KEY in item.stash:
        # user_properties travel with the report from an xdist worker to the controller
        outcome.get_result().user_properties.append(("cpu_s", _cpu() - item.stash[_CPU_KEY]))


_cpu_seen: dict[str, float] = {}
_wall_seen: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _wall_seen[report.nodeid] = _wall_seen.get(report.nodeid, 0.0) + report.duration
    if report.when == "teardown":
        for key, value in report.user_properties:
            if key == "cpu_s":
                _cpu_seen[report.nodeid] = float(value)  # type: ignore[arg-type]


@pytest.hookimpl(trylast=True)  # after pytest's own: the session's fixtures are torn down by then
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """What the tests left is collected here, and what is alive afterwards frozen, before pytest's own end.

    Why: pytest's end (``_pytest/unraisableexception.py``, ``cleanup``) calls ``gc.collect()`` five times over
    every object the process tracks, so that a garbage object whose finaliser fails is reported. In a worker
    that ran test_fuse, test_compat and test_pending that is 800,000 objects outside what ``_load_shared``
    froze, 0.5 s of CPU a pass, 2.6 s in all, and none of the five passes found any garbage (a ``gc.callbacks``
    count). Here the collector runs until a pass finds no garbage (a pass that finds none runs no finaliser, so
    no later pass could find any: at most pytest's five), while pytest's hook for such failures is still in
    place, so every finaliser's failure is still reported by pytest; what survives is frozen, and pytest's five
    passes then scan only what is made after this (its own teardown). One or two full passes instead of five:
    test_compat.py alone, 4.2 -> 1.3 s of CPU at its end."""
    for _ in range(5):
        if not gc.collect():
            break
    gc.freeze()
    _save_durations(session)


def _save_durations(session: pytest.Session) -> None:
    if not session.config.getoption("--save-durations") or not _cpu_seen or hasattr(session.config, "workerinput"):
        return  # only the controller (or a run without xdist) writes the file
    measured = {k: (cpu, _wall_seen.get(k, 0.0)) for k, cpu in _cpu_seen.items()}
    files = [str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py")]
    slow_first.save(slow_first.merge(slow_first.load(), measured, files))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    n = config.getoption("--cpu-durations")
    if config.getoption("--save-durations"):
        terminalreporter.write_line(f"tests/durations.json updated from {len(_cpu_seen)} tests")
    if n is None or not _cpu_seen:
        return
    ranked = sorted(_cpu_seen.items(), key=lambda kv: -kv[1])
    terminalreporter.write_sep("=", f"CPU per test (process + waited children), {len(ranked)} tests, "
                                    f"sum {sum(_cpu_seen.values()):.1f} s")
    for nodeid, secs in ranked[:n] if n else ranked:
        terminalreporter.write_line(f"{secs:8.2f}s {nodeid}")
