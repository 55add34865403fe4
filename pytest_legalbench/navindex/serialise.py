"""The navindex file contents: the index dict per descriptor rung, the full dict, two JSON forms."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import fields
from typing import Any, Literal, TypeVar, get_args

from pytest_legalbench.navindex.describe import full_summary as describe_full_summary
from pytest_legalbench.navindex.describe import snippet as describe_snippet
from pytest_legalbench.navindex.node import FLAG_NAMES, DocumentIndex, DocumentTags, Flags, Node
from pytest_legalbench.tokens import estimate_tokens

FORMAT_VERSION = 1

Rung = Literal["D1", "D2", "D3", "D4", "D5"]
RUNGS: tuple[Rung, ...] = get_args(Rung)

#: D4 is what the paper's scored configuration carried: flags, cross-references, keywords and
#: a one-line summary per node. D5 adds a long summary whose cost the paper never measured.
DEFAULT_RUNG: Rung = "D4"

FieldKind = Literal["bool", "int", "str", "optstr", "list", "node", "nodes", "tags"]

_FLAG_KEYS = {
    "isDefinition": "df", "hasMoney": "mo", "hasDate": "da", "hasPercentage": "pc",
    "hasLiabilityLimit": "ll", "hasCondition": "co", "hasParty": "pa", "isTocEntry": "tc",
}

#: Node fields in file order: name, two-letter key of the optimised form, kind, first rung.
_NODE_TABLE: tuple[tuple[str, str, FieldKind, Rung], ...] = (
    ("nodeId", "id", "str", "D1"), ("clauseReference", "cr", "str", "D1"),
    ("title", "ti", "str", "D1"), ("snippet", "sn", "str", "D1"),
    ("summary", "su", "str", "D4"), ("fullSummary", "fs", "str", "D5"),
    ("keywords", "kw", "list", "D3"), ("externalReferences", "er", "list", "D3"),
    ("crossReferencedIds", "xr", "list", "D2"), ("definedTerms", "dd", "list", "D2"),
    ("usesDefinitions", "ud", "list", "D5"),
    *((name, _FLAG_KEYS[name], "bool", "D1" if name == "isTocEntry" else "D2")
      for name in FLAG_NAMES),
    ("textLength", "tl", "int", "D1"), ("children", "ch", "nodes", "D1"),
)
#: Document-level fields in file order, then the fields of ``documentTags``.
_INDEX_TABLE: tuple[tuple[str, str, FieldKind], ...] = (
    ("formatVersion", "fv", "int"), ("docId", "di", "str"), ("rung", "rg", "str"),
    ("sourceSha256", "sh", "str"), ("documentTitle", "dt", "str"),
    ("documentTags", "tg", "tags"), ("role", "ro", "str"), ("amends", "am", "list"),
    ("documentIndex", "ix", "node"),
)
_TAG_TABLE: tuple[tuple[str, str, FieldKind], ...] = (
    ("jurisdiction", "ju", "optstr"), ("topics", "tp", "list"),
)
_ALL_ROWS: tuple[tuple[str, str, FieldKind] | tuple[str, str, FieldKind, Rung], ...] = (
    *_INDEX_TABLE, *_TAG_TABLE, *_NODE_TABLE)

#: Full name to two-letter key over every level; unique both ways, so one map inverts all.
SHORT_KEYS: dict[str, str] = {row[0]: row[1] for row in _ALL_ROWS}
LONG_KEYS: dict[str, str] = {short: name for name, short in SHORT_KEYS.items()}
if len(LONG_KEYS) != len(SHORT_KEYS) or any(len(short) != 2 for short in LONG_KEYS):
    raise AssertionError("the optimised key map must be two-letter keys without collisions")
_KINDS: dict[str, FieldKind] = {row[0]: row[2] for row in _ALL_ROWS}


def _camel(snake: str) -> str:
    return re.sub(r"_([a-z])", lambda match: match[1].upper(), snake)


#: Navindex flag name to the Flags attribute holding it (``hasMoney`` -> ``has_money``).
_FLAG_ATTRS = {_camel(f.name): f.name for f in fields(Flags)}
#: Every Node attribute but the id (the record's key): attribute, full-file key, annotation.
#: Derived from the dataclass, so a field added to Node is stored without a change here.
_RECORD_FIELDS: tuple[tuple[str, str, str], ...] = tuple(
    (f.name, {"cross_references": "crossReferencedIds", "defines": "definedTerms"}.get(
        f.name, _camel(f.name)), str(f.type))
    for f in fields(Node) if f.name != "node_id"
)


class IndexFormatError(ValueError):
    """A navindex file or dict that does not have the expected shape."""


class FormatVersionError(IndexFormatError):
    """A navindex file written under another format version."""


def node_fields(rung: Rung) -> tuple[str, ...]:
    """Return the index field names a node carries at ``rung``, in file order."""
    level = _rung_level(rung)
    return tuple(row[0] for row in _NODE_TABLE if _rung_level(row[3]) <= level)


#: Keywords shown per node in the navigation surface (the node keeps its full list).
INDEX_KEYWORDS = 5


def relative_id(node_id: str, doc_id: str) -> str:
    """Write a node id of ``doc_id`` without its document prefix; other ids stay whole."""
    prefix = f"{doc_id}:"
    return node_id.removeprefix(prefix)


def absolute_id(written: str, doc_id: str) -> str:
    """Invert ``relative_id``: local ids never hold a colon, corpus-wide ids always do."""
    return written if ":" in written else f"{doc_id}:{written}"


def _surface_values(node: Node, doc_id: str, snippet: Callable[[str], str]) -> dict[str, Any]:
    """Every field a node may show in the navigation surface, before the rung selects."""
    local = [relative_id(target, doc_id) for target in node.cross_references]
    opening = snippet(node.text)
    values: dict[str, Any] = {
        "nodeId": relative_id(node.node_id, doc_id), "clauseReference": node.clause_reference,
        "title": node.title, "snippet": opening, "summary": node.summary,
        "keywords": list(node.keywords[:INDEX_KEYWORDS]),
        "externalReferences": list(node.external_references),
        "crossReferencedIds": local, "definedTerms": list(node.defines),
        "usesDefinitions": [relative_id(t, doc_id) for t in node.uses_definitions],
        **node.flags.as_index_fields(), "textLength": node.text_length, "children": [],
    }
    # Tokens are the scan's budget: nothing is written twice. A lead-in shares its parent's
    # heading and opening; a contents entry's line is its reference and title; an extractive
    # summary that the snippet already shows adds nothing.
    if node.kind == "lead_in":
        for name in ("clauseReference", "title", "snippet", "summary", "keywords"):
            values[name] = [] if name == "keywords" else ""
    elif node.flags.is_toc_entry:
        values["snippet"] = ""
    if _contained(node.summary, opening):
        values["summary"] = ""
    return values


def _contained(summary: str, opening: str) -> bool:
    head = " ".join(summary.split())[:60].rstrip(".… ")
    return bool(head) and head in " ".join(opening.split())


def index_document(
    index: DocumentIndex,
    rung: Rung = DEFAULT_RUNG,
    *,
    full_summary: Callable[[Node], str] | None = None,
    snippet: Callable[[str], str] = describe_snippet,
) -> dict[str, Any]:
    """Return the navigation surface of ``index`` at ``rung``: metadata and snippets, no text."""
    wanted = node_fields(rung)
    summarise = full_summary or _default_full_summary
    by_id = _unique_ids(index)
    reached: set[str] = set()

    def entry(node: Node) -> dict[str, Any]:
        if node.node_id in reached:
            raise IndexFormatError(f"{index.doc_id}: node {node.node_id!r} is reached twice")
        reached.add(node.node_id)
        values = _surface_values(node, index.doc_id, snippet)
        if "fullSummary" in wanted:
            values["fullSummary"] = summarise(node)
        for child_id in node.children:
            if child_id not in by_id:
                raise IndexFormatError(
                    f"{index.doc_id}: node {node.node_id!r} lists unknown child {child_id!r}")
            values["children"].append(entry(by_id[child_id]))
        return {name: values[name] for name in wanted}

    tree = entry(index.root)
    missing = [node.node_id for node in index.nodes if node.node_id not in reached]
    if missing:
        raise IndexFormatError(f"{index.doc_id}: nodes not reachable from the root: {missing[:5]}")
    return {
        "formatVersion": FORMAT_VERSION, "docId": index.doc_id, "rung": rung,
        "sourceSha256": index.sha256, "documentTitle": index.title,
        "documentTags": {"jurisdiction": index.tags.jurisdiction, "topics": list(index.tags.topics)},
        "role": index.role, "amends": list(index.amends), "documentIndex": tree,
    }


def full_document(index: DocumentIndex) -> dict[str, Any]:
    """Return the provision store of ``index``: every node's text and fields by node id."""
    _unique_ids(index)
    nodes = {
        node.node_id: {key: _json_value(getattr(node, attr)) for attr, key, _ in _RECORD_FIELDS}
        for node in index.nodes
    }
    return {
        "formatVersion": FORMAT_VERSION, "docId": index.doc_id, "sourceSha256": index.sha256,
        "nodes": nodes,
    }


def check_format_version(data: object, what: str) -> None:
    """Raise FormatVersionError unless ``data`` is an object of this build's format version."""
    if not isinstance(data, dict):
        raise IndexFormatError(f"{what}: expected a JSON object, found {type(data).__name__}")
    found = data.get("formatVersion")
    if found != FORMAT_VERSION or isinstance(found, bool):
        raise FormatVersionError(
            f"{what}: navindex format version {found!r} found, version {FORMAT_VERSION} expected"
        )


def document_from_files(index_json: dict[str, Any], full_json: dict[str, Any]) -> DocumentIndex:
    """Rebuild the DocumentIndex that ``index_document`` and ``full_document`` came from."""
    check_format_version(index_json, "index file")
    check_format_version(full_json, "full file")
    where = "index file"
    doc_id = _typed(index_json, "docId", str, where)
    sha = _typed(index_json, "sourceSha256", str, where)
    for key, value in (("docId", doc_id), ("sourceSha256", sha)):
        if full_json.get(key) != value:
            raise IndexFormatError(f"{doc_id}: index and full files disagree on {key} "
                                   f"({value!r} vs {full_json.get(key)!r})")
    records = _typed(full_json, "nodes", dict, "full file")
    nodes = tuple(_node_from_record(node_id, record) for node_id, record in records.items())
    tree = _tree_ids(_typed(index_json, "documentIndex", dict, where))
    if sorted(absolute_id(i, doc_id) for i in tree) != sorted(records):
        raise IndexFormatError(f"{doc_id}: the index tree and the full file hold other node ids")
    tags = _typed(index_json, "documentTags", dict, where)
    return DocumentIndex(
        doc_id=doc_id, title=_typed(index_json, "documentTitle", str, where), sha256=sha,
        nodes=nodes,
        tags=DocumentTags(_optional_str(tags, "jurisdiction", "documentTags"),
                          _strings(tags, "topics", "documentTags")),
        role=_typed(index_json, "role", str, where), amends=_strings(index_json, "amends", where),
    )


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
        data = _as_dict(json.loads(text), "the optimised index")
    except json.JSONDecodeError as exc:
        raise IndexFormatError(f"optimised index is not valid JSON: {exc}") from exc
    rung = data.get(SHORT_KEYS["rung"])
    if rung not in RUNGS:
        raise IndexFormatError(f"optimised index: no valid rung (found {rung!r})")
    return _expand(data, [row[0] for row in _INDEX_TABLE], node_fields(rung), "index")


def index_tokens(index: DocumentIndex, rung: Rung = DEFAULT_RUNG) -> tuple[int, int]:
    """Return the estimated tokens of the readable and the optimised index at ``rung``."""
    data = index_document(index, rung)
    return estimate_tokens(readable_json(data)), estimate_tokens(optimised_json(data))


def _rung_level(rung: str) -> int:
    for level, known in enumerate(RUNGS):
        if rung == known:
            return level
    raise ValueError(f"unknown descriptor rung {rung!r}; expected one of {RUNGS}")


def _default_full_summary(node: Node) -> str:
    return describe_full_summary(node.text, title=node.title, max_chars=600)


def _unique_ids(index: DocumentIndex) -> dict[str, Node]:
    by_id = index.by_id()
    if not index.nodes or len(by_id) != len(index.nodes):
        raise IndexFormatError(f"{index.doc_id}: no nodes, or node ids that are not unique")
    return by_id


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
            out[name] = _expand(_as_dict(data[short], inner), node_names, node_names, inner)
        elif kind == "nodes":
            items = data[short] if isinstance(data[short], list) else [None]
            out[name] = [_expand(_as_dict(item, inner), node_names, node_names, inner)
                         for item in items]
        elif kind == "tags":
            tag_names = [row[0] for row in _TAG_TABLE]
            out[name] = _expand(_as_dict(data[short], inner), tag_names, (), inner)
        else:
            out[name] = data[short]
    return out


def _as_dict(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise IndexFormatError(f"{where} is not a JSON object")
    return value


def _tree_ids(root: dict[str, Any]) -> list[str]:
    ids: list[str] = []
    pending: list[Any] = [root]
    while pending:
        node = _as_dict(pending.pop(), "an index file node")
        ids.append(_typed(node, "nodeId", str, "index file node"))
        pending.extend(_typed(node, "children", list, f"index file node {ids[-1]!r}"))
    return ids


def _node_from_record(node_id: str, record: Any) -> Node:
    where = f"full file node {node_id!r}"
    record = _as_dict(record, where)
    values = {attr: _READERS[kind](record, key, where) for attr, key, kind in _RECORD_FIELDS}
    return Node(node_id=node_id, **values)


def _json_value(value: object) -> object:
    if isinstance(value, tuple):
        return list(value)
    return value.as_index_fields() if isinstance(value, Flags) else value


_T = TypeVar("_T")


def _typed(data: dict[str, Any], key: str, kind: type[_T], where: str) -> _T:
    value = data.get(key)
    # bool is an int subclass; true/false where a number belongs is still malformed.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise IndexFormatError(f"{where}: field {key!r} is missing or not a {kind.__name__}")
    return value


def _optional_str(data: dict[str, Any], key: str, where: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise IndexFormatError(f"{where}: field {key!r} is not a string or null")
    return value


def _strings(data: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    items = _typed(data, key, list, where)
    if not all(isinstance(item, str) for item in items):
        raise IndexFormatError(f"{where}: field {key!r} must be a list of strings")
    return tuple(items)


def _flags(data: dict[str, Any], key: str, where: str) -> Flags:
    flags = _typed(data, key, dict, where)
    if set(flags) != set(_FLAG_ATTRS) or not all(isinstance(v, bool) for v in flags.values()):
        raise IndexFormatError(f"{where}: field {key!r} must hold the booleans {FLAG_NAMES}")
    return Flags(**{_FLAG_ATTRS[name]: value for name, value in flags.items()})


#: How the full file reads back each Node attribute, by its annotation in node.py.
_READERS: dict[str, Callable[[dict[str, Any], str, str], Any]] = {
    "str": lambda data, key, where: _typed(data, key, str, where),
    "int": lambda data, key, where: _typed(data, key, int, where),
    "str | None": _optional_str, "tuple[str, ...]": _strings, "Flags": _flags,
}
if any(kind not in _READERS for _, _, kind in _RECORD_FIELDS):
    raise TypeError(f"the full file cannot store these Node fields: {_RECORD_FIELDS}")
