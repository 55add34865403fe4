"""The navindex file contents: the index dict per descriptor rung, the full dict, the rebuild."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

from pytest_legalbench.navindex.describe import full_summary as describe_full_summary
from pytest_legalbench.navindex.describe import snippet as describe_snippet
from pytest_legalbench.navindex.json_forms import optimised_json, readable_json
from pytest_legalbench.navindex.node import FLAG_NAMES, DocumentIndex, DocumentTags, Flags, Node
from pytest_legalbench.navindex.schema import (
    DEFAULT_RUNG,
    FORMAT_VERSION,
    IndexFormatError,
    Rung,
    check_format_version,
    json_object,
    node_fields,
)
from pytest_legalbench.tokens import estimate_tokens


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
        "role": index.role, "amends": list(index.amends), "parties": list(index.parties),
        "documentIndex": tree,
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
        parties=_strings(index_json, "parties", where),
    )


def index_tokens(index: DocumentIndex, rung: Rung = DEFAULT_RUNG) -> tuple[int, int]:
    """Return the estimated tokens of the readable and the optimised index at ``rung``."""
    data = index_document(index, rung)
    return estimate_tokens(readable_json(data)), estimate_tokens(optimised_json(data))


def _default_full_summary(node: Node) -> str:
    return describe_full_summary(node.text, title=node.title, max_chars=600)


def _unique_ids(index: DocumentIndex) -> dict[str, Node]:
    by_id = index.by_id()
    if not index.nodes or len(by_id) != len(index.nodes):
        raise IndexFormatError(f"{index.doc_id}: no nodes, or node ids that are not unique")
    return by_id


def _tree_ids(root: dict[str, Any]) -> list[str]:
    ids: list[str] = []
    pending: list[Any] = [root]
    while pending:
        node = json_object(pending.pop(), "an index file node")
        ids.append(_typed(node, "nodeId", str, "index file node"))
        pending.extend(_typed(node, "children", list, f"index file node {ids[-1]!r}"))
    return ids


def _node_from_record(node_id: str, record: Any) -> Node:
    where = f"full file node {node_id!r}"
    record = json_object(record, where)
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
