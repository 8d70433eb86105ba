"""`liturgy dump` prints the generated Python; generated lines show in tracebacks with their ruleset line."""
from __future__ import annotations

import ast
import linecache
from collections.abc import Callable
from pathlib import Path

import pytest
from liturgy.dsl.loader import check_file
from liturgy.interpreter.engine import Ruleset
from liturgy.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_dump_prints_every_generated_function_as_python(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dump", str(ROOT / "rulesets" / "bloodborne.rules")]) == 0
    out = capsys.readouterr().out
    ast.parse(out)  # the whole dump is Python (headers are comments)
    functions = out.count("\ndef ")
    assert functions > 200
    assert "def _fused" in out  # fused functions are built for the dump, not only on a first call
    # most functions name the ruleset line they came from, and that line exists
    lines = (ROOT / "rulesets" / "bloodborne.rules").read_text().count("\n") + 1
    heads = [h for h in out.splitlines() if h.startswith("# ") and "[<liturgy" in h]
    assert len(heads) == functions
    origins = [int(h.split(":")[1].split()[0]) for h in heads if ".rules:" in h.split("[")[0]]
    assert len(origins) > functions / 3 and all(1 <= n <= lines for n in origins)


def test_dump_reports_a_bad_ruleset_without_a_traceback(write_ruleset: Callable[..., str],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dump", write_ruleset("game {")]) != 0
    assert "Traceback" not in capsys.readouterr().err


def test_generated_lines_are_readable_where_tracebacks_look(write_ruleset: Callable[..., str]) -> None:
    """A traceback reads source lines through linecache: every generated function's file name is there."""
    rules = ('game "G" { players 2..2 }\ncounter a 0..9\nround { step s "S" {\n'
             '  a = 1\n  log "{}", 7 / (a + a)\n  end game } }\nscore(p) = a\n')
    program, diags = check_file(write_ruleset(rules))
    assert program is not None, diags
    rules_ = Ruleset(program)
    assert rules_.compiled.gen is not None
    items = rules_.compiled.gen.sources.items
    assert items
    for item in items:
        assert linecache.getlines(item.filename) == item.text.splitlines(True)
    assert any("game.rules:4 " in item.filename for item in items)  # named after the ruleset line
    # the functions the engine runs carry those file names, so a traceback through them shows these lines
    codes = {ins.__code__.co_filename for code in rules_.codes for ins in code.ins if hasattr(ins, "__code__")}
    assert codes & {item.filename for item in items}
