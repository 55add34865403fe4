"""The two JSON forms of a navindex dict: readable, and token-optimised with two-letter keys."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pytest_legalbench.navindex.schema import (
    INDEX_TABLE,
    NODE_TABLE,
    RUNGS,
    TAG_TABLE,
    FieldKind,
    IndexFormatError,
    Rung,
    json_object,
    node_fields,
)

_ALL_ROWS: tuple[tuple[str, str, FieldKind] | tuple[str, str, FieldKind, Rung], ...] = (
    *INDEX_TABLE, *TAG_TABLE, *NODE_TABLE)

#: Full name to two-letter key over every level; unique both ways, so one map inverts all.
SHORT_KEYS: dict[str, str] = {row[0]: row[1] for row in _ALL_ROWS}
LONG_KEYS: dict[str, str] = {short: name for name, short in SHORT_KEYS.items()}
if len(LONG_KEYS) != len(SHORT_KEYS) or any(len(short) != 2 for short in LONG_KEYS):
    raise AssertionError("the optimised key map must be two-letter keys without collisions")
_KINDS: dict[str, FieldKind] = {row[0]: row[2] for row in _ALL_ROWS}


def readable_json(data: dict[str, Any]) -> str:
    """Serialise ``data`` indented, in the builders' fixed key order, non-ASCII kept."""
    # Keys keep insertion order rather than being sorted: the builders fix that order, so the
    # output is stable, headings come first in a node, and the full file stays in document order.
    return json.dumps(data, indent=2, ensure_ascii=False)


def optimised_json(data: dict[str, Any]) -> str:
    """Serialise an index dict compactly: two-letter keys, falses/empties/nulls left out."""
    return json.dumps(_compact(data), ensure_ascii=False, separators=(",", ":"))


def expand_optimised(text: str) -> dict[str, Any]:
    """Invert ``optimised_json``, restoring every left-out field with its empty value."""
    try:
        data = json_object(json.loads(text), "the optimised index")
    except json.JSONDecodeError as exc:
        raise IndexFormatError(f"optimised index is not valid JSON: {exc}") from exc
    rung = data.get(SHORT_KEYS["rung"])
    if rung not in RUNGS:
        raise IndexFormatError(f"optimised index: no valid rung (found {rung!r})")
    return _expand(data, [row[0] for row in INDEX_TABLE], node_fields(rung), "index")


def _compact(value: Any) -> Any:
    if isinstance(value, list):
        return [_compact(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key not in SHORT_KEYS:
            raise IndexFormatError(f"index field {key!r} has no two-letter key")
        small = _compact(item)
        # A 0 stays (textLength 0 says something), and so does "" where null is the empty
        # value, since expanding could not tell the two apart.
        empty = small is False or small is None or small in ([], {})
        if not empty and (small != "" or _KINDS[key] == "optstr"):
            out[SHORT_KEYS[key]] = small
    return out


_EMPTY: dict[FieldKind, Callable[[], Any]] = {
    "bool": lambda: False, "str": str, "optstr": lambda: None, "list": list,
    "nodes": list, "tags": lambda: {"jurisdiction": None, "topics": []},
}


def _expand(data: dict[str, Any], names: list[str] | tuple[str, ...],
            node_names: tuple[str, ...], where: str) -> dict[str, Any]:
    unknown = sorted(key for key in data if LONG_KEYS.get(key) not in names)
    if unknown:
        raise IndexFormatError(f"optimised index: unexpected key(s) {unknown} in {where}")
    out: dict[str, Any] = {}
    for name in names:
        kind, short, inner = _KINDS[name], SHORT_KEYS[name], f"{where}.{name}"
        if short not in data:
            if kind not in _EMPTY:
                raise IndexFormatError(f"optimised index: {where} lacks required field {name!r}")
            out[name] = _EMPTY[kind]()
        elif kind == "node":
            out[name] = _expand(json_object(data[short], inner), node_names, node_names, inner)
        elif kind == "nodes":
            items = data[short] if isinstance(data[short], list) else [None]
            out[name] = [_expand(json_object(item, inner), node_names, node_names, inner)
                         for item in items]
        elif kind == "tags":
            tag_names = [row[0] for row in TAG_TABLE]
            out[name] = _expand(json_object(data[short], inner), tag_names, (), inner)
        else:
            out[name] = data[short]
    return out
