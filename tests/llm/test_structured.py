"""The tool-input schema checker: each keyword, its error paths, and JSON's notion of equality."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.llm.schema import SchemaError, check_schema, conforms, json_equal, problems

VERDICT: dict[str, object] = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["A", "B", "tie"]},
                   "reason": {"type": "string", "description": "one sentence"}},
    "required": ["verdict", "reason"], "additionalProperties": False}

NODES: dict[str, object] = {
    "type": "object",
    "properties": {"node_ids": {"type": "array", "items": {"type": "string"},
                                "minItems": 1, "maxItems": 3},
                   "scores": {"type": "object", "additionalProperties": {"type": "number"}}},
    "required": ["node_ids"]}


def test_verdict_schema() -> None:
    assert problems({"verdict": "tie", "reason": "same"}, VERDICT) == []
    assert problems({"verdict": "C", "reason": "?"}, VERDICT) == [
        "$.verdict: 'C' is not one of ['A', 'B', 'tie']"]
    assert problems({"verdict": "A"}, VERDICT) == ["$: missing required property 'reason'"]
    assert problems({"verdict": "A", "reason": "r", "x": 1}, VERDICT) == [
        "$: unexpected property 'x'"]
    assert problems(["A", "r"], VERDICT) == ["$: expected object, got list ['A', 'r']"]


def test_arrays_and_additional_property_schemas() -> None:
    assert conforms({"node_ids": ["a:1", "a:2"], "scores": {"a:1": 0.5, "a:2": 1}}, NODES)
    assert problems({"node_ids": []}, NODES) == ["$.node_ids: 0 items, at least 1 required"]
    assert problems({"node_ids": ["a", "b", "c", "d"]}, NODES) == [
        "$.node_ids: 4 items, at most 3 allowed"]
    assert problems({"node_ids": ["a", 7], "scores": {"a": "high"}}, NODES) == [
        "$.node_ids[1]: expected string, got int 7",
        "$.scores.a: expected number, got str 'high'"]


@pytest.mark.parametrize(("value", "kind", "ok"), [
    (True, "integer", False), (True, "number", False), (True, "boolean", True),
    (2.0, "integer", True), (2.5, "integer", False), (3, "number", True),
    (float("nan"), "number", False), (None, "null", True), (None, "string", False),
    ({1: "x"}, "object", False), ("", "string", True), ((1, 2), "array", True),
])
def test_type_checks_follow_json(value: object, kind: str, ok: bool) -> None:
    assert conforms(value, {"type": kind}) is ok


def test_type_lists_and_enum_on_numbers() -> None:
    assert conforms(None, {"type": ["string", "null"]})
    assert not conforms(1, {"type": ["string", "null"]})
    assert conforms(1.0, {"enum": [1]})
    assert not conforms(True, {"enum": [1]})
    assert not conforms(1, {"enum": [True]})


def test_wrong_type_reports_once_not_a_cascade() -> None:
    assert problems("text", NODES) == ["$: expected object, got str 'text'"]


def test_long_values_are_shortened_in_messages() -> None:
    (message,) = problems("x" * 500, {"type": "integer"})
    assert message.endswith("...") and len(message) < 80


@pytest.mark.parametrize(("schema", "where"), [
    ({"type": "object", "pattern": "x"}, "schema: unsupported keyword 'pattern'"),
    ({"type": "text"}, "schema.type: expected one of"),
    ({"type": []}, "schema.type: expected one of"),
    ({"properties": {"a": {"$ref": "#"}}}, "schema.properties.a: unsupported keyword '$ref'"),
    ({"properties": []}, "schema.properties: must be an object"),
    ({"required": "a"}, "schema.required: must be a list"),
    ({"enum": []}, "schema.enum: must be a non-empty list"),
    ({"items": [{"type": "string"}]}, "schema.items: a schema must be an object"),
    ({"maxItems": -1}, "schema.maxItems: must be a non-negative integer"),
    ({"minItems": True}, "schema.minItems: must be a non-negative integer"),
    ({"additionalProperties": {"oneOf": []}}, "schema.additionalProperties: unsupported"),
    ("not a schema", "schema: a schema must be an object"),
])
def test_unsupported_schemas_are_refused(schema: Any, where: str) -> None:
    with pytest.raises(SchemaError) as caught:
        check_schema(schema)
    assert str(caught.value).startswith(where)
    with pytest.raises(SchemaError):
        problems({}, schema)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=4),
    max_leaves=12)


def exact_schema(value: object) -> dict[str, object]:
    """The tightest schema our subset can state for ``value``."""
    if isinstance(value, dict):
        return {"type": "object", "required": sorted(value), "additionalProperties": False,
                "properties": {k: exact_schema(v) for k, v in value.items()}}
    if isinstance(value, list):
        # Our subset has no per-position item schemas, so enum pins the contents.
        return {"type": "array", "minItems": len(value), "maxItems": len(value),
                "enum": [value]}
    return {"enum": [value]}


@given(JSON)
def test_every_value_conforms_to_its_exact_schema(value: object) -> None:
    assert problems(value, exact_schema(value)) == []


@given(JSON, JSON)
def test_exact_schema_rejects_values_json_considers_different(left: object,
                                                              right: object) -> None:
    assert conforms(right, exact_schema(left)) is json_equal(left, right)


@given(JSON, JSON)
def test_json_equal_is_reflexive_and_symmetric(left: object, right: object) -> None:
    assert json_equal(left, copy.deepcopy(left))
    assert json_equal(left, right) is json_equal(right, left)
