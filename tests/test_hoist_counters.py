"""``s.counters`` read once into a local at the top of a generated function (codegen/locals.py: hoist_counters)."""
from __future__ import annotations

from liturgy.interpreter.codegen.locals import hoist_counters

BODY = "    if s.counters[3] > 0:\n        s.counters[2] = s.counters[2] + 1\n"


def test_three_uses_read_the_list_once() -> None:
    loads, body = hoist_counters(["_E1 = env['p']"], BODY)
    assert loads == ["_cs = s.counters", "_E1 = env['p']"]
    assert "s.counters" not in body and body.count("_cs[") == 3


def test_fewer_uses_or_a_string_holding_it_stay_as_written() -> None:
    assert hoist_counters([], "    s.counters[2] = 1\n") == ([], "    s.counters[2] = 1\n")
    quoted = BODY + "    _v = 'a s.counters[1] b' + \"it's s.counters\"\n"
    assert hoist_counters([], quoted) == ([], quoted)  # a ruleset's text is never rewritten
    attr = "    x.s.counters[1]\n" * 3  # not the state's attribute
    assert hoist_counters([], attr) == ([], attr)
