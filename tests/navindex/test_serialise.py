"""The navindex dicts per rung and the full dict; the documents tests build them from."""

from __future__ import annotations

import json
from dataclasses import fields, replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.navindex.json_forms import readable_json
from pytest_legalbench.navindex.node import FLAG_NAMES, DocumentIndex, DocumentTags, Node
from pytest_legalbench.navindex.schema import (
    DEFAULT_RUNG,
    FORMAT_VERSION,
    RUNGS,
    FormatVersionError,
    IndexFormatError,
    Rung,
    node_fields,
)
from pytest_legalbench.navindex.serialise import (
    document_from_files,
    full_document,
    index_document,
    relative_id,
)
from tests.support.index_samples import document_indexes, small_agreement


def nodes_of(tree: dict[str, Any]) -> list[dict[str, Any]]:
    """Flatten an index tree in document order."""
    return [tree, *(node for child in tree["children"] for node in nodes_of(child))]


def test_rungs_add_fields_one_step_at_a_time() -> None:
    assert DEFAULT_RUNG == "D4"
    d1 = set(node_fields("D1"))
    assert d1 == {"nodeId", "clauseReference", "title", "children", "isTocEntry", "textLength",
                  "snippet"}
    d2 = set(node_fields("D2"))
    assert d2 - d1 == (set(FLAG_NAMES) - {"isTocEntry"}) | {
        "crossReferencedIds", "definedTerms"}
    assert set(node_fields("D3")) - d2 == {"keywords", "externalReferences"}
    assert set(node_fields("D4")) - set(node_fields("D3")) == {"summary"}
    # The full defined-term graph is the costliest list; the scan sees it only at D5.
    assert set(node_fields("D5")) - set(node_fields("D4")) == {"fullSummary", "usesDefinitions"}
    with pytest.raises(ValueError, match="D9"):
        node_fields("D9")  # type: ignore[arg-type]


@pytest.mark.parametrize("rung", RUNGS)
def test_index_document_carries_the_rung_fields_and_no_full_text(rung: Rung) -> None:
    index = small_agreement()
    surface = index_document(index, rung, full_summary=lambda node: f"all of {node.title}")
    assert surface["formatVersion"] == FORMAT_VERSION and surface["rung"] == rung
    assert surface["documentTitle"] == "Supply Agreement"
    assert surface["documentTags"] == {"jurisdiction": "New York", "topics": ["supply", "payment"]}
    flat = nodes_of(surface["documentIndex"])
    # Ids of the document's own nodes are written without the document prefix.
    assert [node["nodeId"] for node in flat] == [
        relative_id(node.node_id, index.doc_id) for node in index.nodes]
    assert all(list(node) == list(node_fields(rung)) for node in flat)
    fee = flat[-1]
    assert fee["textLength"] == len(index.nodes[-1].text)
    assert len(fee["snippet"]) <= 160 and fee["snippet"].startswith("2.1 Fees.")
    # The fee text runs past any snippet; the index carries only openings, never its end.
    assert "Fee clause ends here" not in json.dumps(surface)
    if rung >= "D2":
        assert fee["hasMoney"] and not fee["isDefinition"]
        assert fee["crossReferencedIds"] == ["root.1.1"]
        assert flat[2]["definedTerms"] == ["Buyer"]
    if rung >= "D4":
        assert fee["summary"] == "Buyer pays $10,000."
    if rung == "D5":
        assert fee["fullSummary"] == "all of Fees"


def test_d5_default_full_summary_is_a_bounded_string() -> None:
    surface = index_document(small_agreement(), "D5")
    fee = nodes_of(surface["documentIndex"])[-1]
    assert isinstance(fee["fullSummary"], str) and 0 < len(fee["fullSummary"]) <= 600


def test_index_document_rejects_broken_trees() -> None:
    index = small_agreement()
    orphan = replace(index.nodes[-1], node_id="sa:orphan", parent=None)
    with pytest.raises(IndexFormatError, match="sa:orphan"):
        index_document(replace(index, nodes=(*index.nodes, orphan)))
    dangling = replace(index.root, children=(*index.root.children, "sa:ghost"))
    with pytest.raises(IndexFormatError, match="sa:ghost"):
        index_document(replace(index, nodes=(dangling, *index.nodes[1:])))


@pytest.mark.parametrize("rung", RUNGS)
def test_files_rebuild_the_exact_document(rung: Rung) -> None:
    index = small_agreement()
    assert document_from_files(index_document(index, rung), full_document(index)) == index


def test_another_format_version_names_both_versions() -> None:
    index = small_agreement()
    stale = {**full_document(index), "formatVersion": FORMAT_VERSION + 1}
    with pytest.raises(FormatVersionError, match=rf"version {FORMAT_VERSION + 1} found, "
                                                 rf"version {FORMAT_VERSION} expected"):
        document_from_files(index_document(index), stale)


def test_files_of_different_documents_do_not_pair() -> None:
    index = small_agreement()
    other = replace(index, sha256="f" * 64)
    with pytest.raises(IndexFormatError, match="sourceSha256"):
        document_from_files(index_document(index), full_document(other))


@pytest.mark.parametrize("corrupt", [
    lambda full: full["nodes"]["sa:root"].pop("text"),
    lambda full: full["nodes"]["sa:root"].update(start="0"),
    lambda full: full["nodes"]["sa:root"].update(start=True),
    lambda full: full["nodes"]["sa:root"]["flags"].pop("hasMoney"),
    lambda full: full["nodes"]["sa:root"].update(keywords=[1]),
    lambda full: full["nodes"].pop("sa:root"),
])
def test_malformed_full_file_raises_a_format_error(corrupt: Any) -> None:
    index = small_agreement()
    full = json.loads(json.dumps(full_document(index)))
    corrupt(full)
    with pytest.raises(IndexFormatError, match="sa:root|node ids"):
        document_from_files(index_document(index), full)


def test_every_record_field_reaches_the_files() -> None:
    # Node fields are stored generically; document-level fields are written one by one, so a
    # field added to these records must be added to index_document and document_from_files.
    assert [f.name for f in fields(DocumentIndex)] == [
        "doc_id", "title", "sha256", "nodes", "tags", "role", "amends", "parties"]
    assert [f.name for f in fields(DocumentTags)] == ["jurisdiction", "topics"]
    record = full_document(small_agreement())["nodes"]["sa:root"]
    assert len(record) == len(fields(Node)) - 1 and "unresolvedReferences" in record


@settings(max_examples=60, deadline=None)
@given(document_indexes(), st.sampled_from(RUNGS))
def test_files_round_trip_for_random_documents(index: DocumentIndex, rung: Rung) -> None:
    surface = json.loads(readable_json(index_document(index, rung)))
    full = json.loads(readable_json(full_document(index)))
    assert document_from_files(surface, full) == index
