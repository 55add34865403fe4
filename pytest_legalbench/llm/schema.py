"""A small JSON-schema checker for tool inputs: exactly the subset our tool schemas use.

Supported keywords: ``type``, ``properties``, ``required``, ``enum``, ``items``,
``minItems``, ``maxItems`` and ``additionalProperties`` (false or a schema). Annotation
keywords (``description``, ``title``, ...) are allowed and ignored. Any other keyword makes
:func:`check_schema` raise, so a schema is never half-checked without anyone knowing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TypeGuard

TYPES = ("object", "array", "string", "integer", "number", "boolean", "null")

_CHECKED = frozenset({"type", "properties", "required", "enum", "items", "minItems",
                      "maxItems", "additionalProperties"})
_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$comment"})


class SchemaError(ValueError):
    """A schema uses a keyword or value this checker does not support; the message says where."""


def _is_schema_list(value: object) -> TypeGuard[Sequence[object]]:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


def _check_count(value: object, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SchemaError(f"{where}: must be a non-negative integer, got {value!r}")


def check_schema(schema: object, where: str = "schema") -> None:
    """Raise SchemaError naming the place of the first keyword or value we cannot check."""
    if not isinstance(schema, Mapping):
        raise SchemaError(f"{where}: a schema must be an object, got {type(schema).__name__}")
    for key in schema:
        if key not in _CHECKED and key not in _ANNOTATIONS:
            raise SchemaError(f"{where}: unsupported keyword {key!r}")
    kind = schema.get("type")
    if kind is not None:
        kinds = list(kind) if _is_schema_list(kind) else [kind]
        if not kinds or any(k not in TYPES for k in kinds):
            raise SchemaError(f"{where}.type: expected one of {', '.join(TYPES)}, got {kind!r}")
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        raise SchemaError(f"{where}.properties: must be an object")
    for name, sub in properties.items():
        check_schema(sub, f"{where}.properties.{name}")
    required = schema.get("required", [])
    if not _is_schema_list(required) or not all(isinstance(r, str) for r in required):
        raise SchemaError(f"{where}.required: must be a list of property names")
    if "enum" in schema and (not _is_schema_list(schema["enum"]) or not schema["enum"]):
        raise SchemaError(f"{where}.enum: must be a non-empty list")
    if "items" in schema:
        # Tuple-form items (a list of schemas) is deliberately unsupported.
        check_schema(schema["items"], f"{where}.items")
    for key in ("minItems", "maxItems"):
        if key in schema:
            _check_count(schema[key], f"{where}.{key}")
    extra = schema.get("additionalProperties", True)
    if not isinstance(extra, bool):
        check_schema(extra, f"{where}.additionalProperties")


def _has_type(value: object, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, Mapping) and all(isinstance(k, str) for k in value)
    if kind == "array":
        return isinstance(value, (list, tuple))
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, float) and not math.isfinite(value):
        return False
    # JSON has one number type: 2.0 is an integer, True is not a number at all.
    return kind == "number" or isinstance(value, int) or float(value).is_integer()


def json_equal(left: object, right: object) -> bool:
    """Compare two JSON values the way JSON does: True is not 1, 1 equals 1.0."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        return len(left) == len(right) and all(map(json_equal, left, right))
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    return type(left) is type(right) and left == right


def _walk(value: object, schema: Mapping[str, object], path: str, found: list[str]) -> None:
    kind = schema.get("type")
    if kind is not None:
        kinds = [str(k) for k in kind] if _is_schema_list(kind) else [str(kind)]
        if not any(_has_type(value, k) for k in kinds):
            found.append(f"{path}: expected {' or '.join(kinds)}, got {_describe(value)}")
            return  # deeper checks on a value of the wrong type only add noise
    enum = schema.get("enum")
    if _is_schema_list(enum) and not any(json_equal(value, option) for option in enum):
        found.append(f"{path}: {value!r} is not one of {enum!r}")
    if isinstance(value, Mapping):
        _walk_object(value, schema, path, found)
    if isinstance(value, (list, tuple)):
        _walk_array(value, schema, path, found)


def _walk_object(value: Mapping[object, object], schema: Mapping[str, object], path: str,
                 found: list[str]) -> None:
    # check_schema has run, so these have the shapes it requires.
    properties = schema.get("properties", {})
    properties = properties if isinstance(properties, Mapping) else {}
    required = schema.get("required", [])
    for name in required if _is_schema_list(required) else []:
        if name not in value:
            found.append(f"{path}: missing required property {name!r}")
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        where = f"{path}.{name}"
        if name in properties:
            _walk(item, properties[name], where, found)
        elif extra is False:
            found.append(f"{path}: unexpected property {name!r}")
        elif isinstance(extra, Mapping):
            _walk(item, extra, where, found)


def _walk_array(value: Sequence[object], schema: Mapping[str, object], path: str,
                found: list[str]) -> None:
    low, high = schema.get("minItems"), schema.get("maxItems")
    if isinstance(low, int) and len(value) < low:
        found.append(f"{path}: {len(value)} items, at least {low} required")
    if isinstance(high, int) and len(value) > high:
        found.append(f"{path}: {len(value)} items, at most {high} allowed")
    items = schema.get("items")
    if isinstance(items, Mapping):
        for index, item in enumerate(value):
            _walk(item, items, f"{path}[{index}]", found)


def _describe(value: object) -> str:
    shown = repr(value)
    return f"{type(value).__name__} {shown if len(shown) <= 40 else shown[:37] + '...'}"


def problems(value: object, schema: Mapping[str, object]) -> list[str]:
    """Return every way ``value`` breaks ``schema``, each naming its path ($.a.b[2]); [] if none."""
    check_schema(schema)
    found: list[str] = []
    _walk(value, schema, "$", found)
    return found


def conforms(value: object, schema: Mapping[str, object]) -> bool:
    """Return True when ``value`` satisfies ``schema``."""
    return not problems(value, schema)
