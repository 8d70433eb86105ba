"""`cards.certainly_valid` never vouches for a card jsonschema would reject.

Card files skip jsonschema when ``certainly_valid`` says a card surely fits its
kind's schema, so every diagnostic still comes from jsonschema.  These tests
hold it to that: random JSON-like values against the schemas of every shipped
card kind, and every shipped card (which must all take the fast answer).
"""

from __future__ import annotations

import functools
import glob
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import sized
from hypothesis import given, settings
from hypothesis import strategies as st
from liturgy.dsl.frontend import cards
from liturgy.dsl.frontend.includes import main_rulesets
from liturgy.dsl.loader import check_file

ROOT = Path(__file__).resolve().parent.parent
RULESETS = main_rulesets(sorted(glob.glob(str(ROOT / "rulesets" / "**" / "*.rules"), recursive=True)))


@functools.cache
def _schemas_and_cards() -> tuple[list[dict[str, Any]], list[tuple[dict[str, Any], dict[str, Any]]]]:
    """Every shipped schema, and (schema, card) for the first few shipped cards of each card schema.

    Built on first use, not at import: checking every shipped ruleset costs about 2 s of CPU, and every xdist
    worker imports this module to collect it while only one of them runs its tests."""
    schemas = []
    seen: list[tuple[dict[str, Any], Any]] = []
    real = cards.certainly_valid

    def record(schema: dict[str, Any], instance: Any) -> bool:
        seen.append((schema, instance))
        return real(schema, instance)

    cards.certainly_valid = record  # type: ignore[assignment]
    try:
        for path in RULESETS:
            program, diags = check_file(path)
            assert program is not None, diags
            schemas.append(cards.file_schema(program.kinds, list(program.zones)))
            schemas.extend(cards.schema_for_kind(kind, program.enums) for kind in program.kinds.values())
    finally:
        cards.certainly_valid = real  # type: ignore[assignment]
    per_schema: dict[str, int] = {}
    samples = []
    for schema, instance in seen:
        key = repr(schema)
        if "name" in schema.get("properties", {}) and per_schema.get(key, 0) < 3:
            per_schema[key] = per_schema.get(key, 0) + 1
            samples.append((schema, instance))
    return schemas, samples


def _with_parts(schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The schemas and every schema inside them (field types, list items), each distinct one once."""
    out: dict[str, dict[str, Any]] = {}
    todo = list(schemas)
    while todo:
        schema = todo.pop()
        out.setdefault(repr(schema), schema)
        todo.extend(schema.get("properties", {}).values())
        if isinstance(schema.get("items"), dict):
            todo.append(schema["items"])
    return [out[k] for k in sorted(out)]


@functools.cache
def _schemas() -> list[dict[str, Any]]:
    return _with_parts(_schemas_and_cards()[0])


def _words(schemas: list[dict[str, Any]]) -> list[str]:
    """Every property name and enum value the schemas mention: the likely strings."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            found.update(k for k in node.get("properties", {}))
            enum = node.get("enum")
            if isinstance(enum, list):
                found.update(v for v in enum if isinstance(v, str))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(schemas)
    return sorted(found)


@functools.cache
def _words_of_schemas() -> list[str]:
    return _words(_schemas())


words = st.deferred(lambda: st.sampled_from(_words_of_schemas()))  # deferred: the schemas are built on first use
scalars = st.one_of(
    st.integers(-3, 1_200), st.booleans(), st.none(), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1.0, 0.0, 3.0]), words, st.text(max_size=3),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(words, max_size=4),
        st.dictionaries(st.deferred(lambda: st.sampled_from([*_words_of_schemas(), "zzz"])), inner, max_size=6),
    ),
    max_leaves=12,
)


def _card_like(schema: dict[str, Any]) -> Any:
    """Dicts built from a schema's own properties: mostly right, sometimes subtly wrong."""
    props = schema.get("properties", {})
    return st.fixed_dictionaries({}, optional={name: values for name in props})


# 2.8 s of CPU for 100 examples (jsonschema validates each): 50 in the test command, 1,000 under `thorough`
@settings(max_examples=sized(ci=50, thorough=1000))
@given(st.data())
def test_never_vouches_for_an_invalid_instance(data: st.DataObject) -> None:
    schema = data.draw(st.sampled_from(_schemas()))
    instance = data.draw(st.one_of(values, _card_like(schema)))
    if cards.certainly_valid(schema, instance):
        assert list(jsonschema.Draft202012Validator(schema).iter_errors(instance)) == []


def _tricky() -> list[Any]:
    words = _words_of_schemas()
    return [
        True, False, 0, 1, -1, 1.0, 2.5, None, "", "x", [], {}, ["x", "x"], [1], [True], 1_000, 1_001, -5,
        *words[:40], [w for w in words[:3]], [words[0], words[0]],
    ]


def test_each_field_of_shipped_cards_replaced_by_tricky_values() -> None:
    """Real cards with one field changed, or removed, or one unknown field added: the answers must agree."""
    checked = 0
    tricky = _tricky()
    for schema, card in _schemas_and_cards()[1]:
        validator = jsonschema.Draft202012Validator(schema)
        variants = [{**card, "zzz": 1}] + [{k: v for k, v in card.items() if k != name} for name in card]
        for name in schema["properties"]:
            variants += [{**card, name: value} for value in tricky]
        for variant in variants:
            if cards.certainly_valid(schema, variant):
                assert list(validator.iter_errors(variant)) == [], variant
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("schema,instance", [
    ({"type": "integer"}, True), ({"type": "integer"}, 1.0), ({"type": "boolean"}, 0),
    ({"type": "integer", "minimum": 1}, 0), ({"enum": ["a"]}, "b"), ({"enum": [1]}, 1),
    ({"type": "array", "uniqueItems": True}, ["a", "a"]), ({"type": "string", "minLength": 1}, ""),
    ({"type": "object", "required": ["name"]}, {}), ({"type": "object", "additionalProperties": False}, {"x": 1}),
    ({"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": False}, {"y": "a"}),
    ({"type": ["string"]}, "a"), ({"pattern": "a"}, "a"),
])
def test_hard_or_unknown_cases_go_to_jsonschema(schema: dict[str, Any], instance: Any) -> None:
    assert not cards.certainly_valid(schema, instance)


def test_every_shipped_card_takes_the_fast_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the fast answer: valid shipped card files never reach jsonschema."""
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("jsonschema was asked about a valid shipped card")

    monkeypatch.setattr(jsonschema, "Draft202012Validator", refuse)  # cards imports it when it needs it
    for path in RULESETS:
        program, diags = check_file(path)
        assert program is not None, diags
