"""The attack corpus, compilation (issue 16): rules that passed `check` and then made `load_ruleset` hang.

Nested one-line `fn`s that each call the next several times were inlined without limit: eight levels of six calls
wrote 1.7 million copies of the innermost body into one function before Python's compile() ever saw it (Betrayal's
helpers over grid cells came close). Inlining now stops where a call's expanded size passes INLINE_SIZE
(interpreter/compiler/sizes.py): past it the call is a call, and each fn is compiled once.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.compiler.budgets import recursive_names
from liturgy.interpreter.compiler.sizes import INLINE_SIZE, Sizes
from liturgy.interpreter.engine.ruleset import Ruleset

MODES = [{}, {"inline_fns": False}, {"stmtgen": False}, {"codegen": False, "stmtgen": False}, {"fuse": False}]
MODE_IDS = ["default", "no-inline", "no-stmtgen", "closures", "no-fuse"]


def _fan_out(levels: int, calls: int) -> str:
    """fn f1 calls f0 ``calls`` times, f2 calls f1 as often, … up to f``levels``; `and` stops at the first false,
    so a game evaluates only a few of the calls (the attack is on compilation, not on the game)."""
    lines = ['game "H" { players 2..2 }', "counter n 0..1000", "enum E { a, b, c, d }",
             "fn f0(x: int) -> bool = all(x < 2 for e in E)"]
    for i in range(1, levels + 1):
        lines.append(f"fn f{i}(x: int) -> bool = " + " and ".join(f"f{i - 1}(x + {k})" for k in range(calls)))
    lines += [f'round {{ step s "S" {{ if f{levels}(n) {{ n += 1 }}\n end game }} }}', "score(p) = n"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_nested_fan_out_fns_compile_in_seconds(tmp_path: Path, mode: dict[str, bool]) -> None:
    path = tmp_path / "fan.rules"
    path.write_text(_fan_out(10, 6), encoding="utf-8")
    program, diags = check_file(str(path))
    assert program is not None, [str(d) for d in diags]
    start = time.process_time()
    game = Ruleset(program, **mode).new_game(2, 1)  # type: ignore[arg-type]
    assert time.process_time() - start < 10
    assert game.state.status == "finished" and game.result is not None


def test_every_mode_plays_the_fan_out_alike(tmp_path: Path) -> None:
    path = tmp_path / "fan.rules"
    path.write_text(_fan_out(8, 6), encoding="utf-8")
    program, _ = check_file(str(path))
    assert program is not None
    assert len({Ruleset(program, **mode).new_game(2, 1).digest() for mode in MODES}) == 1  # type: ignore[arg-type]


def test_inline_size_grows_with_the_fan_out_and_stops_inlining(tmp_path: Path) -> None:
    path = tmp_path / "fan.rules"
    path.write_text(_fan_out(8, 6), encoding="utf-8")
    program, _ = check_file(str(path))
    assert program is not None
    sizes = Sizes(program)
    grown = [sizes.inline_size(program.fns[f"f{i}"]) for i in range(9)]
    assert all(b > 5 * a for a, b in zip(grown, grown[1:], strict=False))
    assert grown[2] <= INLINE_SIZE < grown[4]


def test_no_shipped_ruleset_passes_the_inline_size() -> None:
    """The bound changes no shipped ruleset's code: each of their fns is inlined exactly as before."""
    root = Path(__file__).resolve().parent.parent
    for path in sorted((root / "rulesets").glob("*.rules")):
        program, _ = check_file(str(path))
        assert program is not None
        sizes = Sizes(program)
        rec = {n[3:] for n in recursive_names(program) if n.startswith("fn:")}  # never inlined anyway
        assert all(sizes.inline_size(f) <= INLINE_SIZE for n, f in program.fns.items() if n not in rec), path


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_a_long_chain_of_list_plus_compiles_in_seconds(tmp_path: Path, mode: dict[str, bool]) -> None:
    """A list `+` that may pass size_limit is checked; the check once wrote both operands' code a second time (and
    the closures compiled each operand twice, since d2b8e52), so a chain of 30 `+` (as in `[…] + […] + …`) wrote
    its first operand 2^30 times."""
    chain = " + ".join(["[x for x in range(0, n) where x > 0]"] * 30)
    path = tmp_path / "chain.rules"
    path.write_text('game "H" { players 2..2 }\ncounter n 0..1000\n'
                    f"fn many() -> list of int = {chain}\n"
                    'round { step s "S" { n = size(many()) + 1\n end game } }\nscore(p) = n\n', encoding="utf-8")
    program, diags = check_file(str(path))
    assert program is not None, [str(d) for d in diags]
    start = time.process_time()
    game = Ruleset(program, **mode).new_game(2, 1)  # type: ignore[arg-type]
    assert time.process_time() - start < 10
    assert game.state.status == "finished" and game.result is not None and game.result["scores"] == [1, 1]
