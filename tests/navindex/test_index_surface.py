"""What the navigation surface leaves out so that nothing is written twice."""

from __future__ import annotations

import pytest

from pytest_legalbench.navindex.node import DocumentIndex, Flags, Node
from pytest_legalbench.navindex.serialise import (
    absolute_id,
    document_from_files,
    full_document,
    index_document,
    relative_id,
)

TEXT = "1. Fees. The Buyer pays $10.\n(a) Monthly. Invoices are monthly.\nContents line 1"


def _index() -> DocumentIndex:
    def node(local: str, kind: str, start: int, end: int, **extra: object) -> Node:
        return Node(node_id=f"d:{local}", doc_id="d", kind=kind, clause_reference=local,
                    title=local.upper(), start=start, end=end, text=TEXT[start:end],
                    **extra)  # type: ignore[arg-type]

    return DocumentIndex("d", "Doc", "0" * 64, (
        node("root", "document", 0, len(TEXT), children=("d:1", "d:toc-entry")),
        node("1", "section", 0, 62, parent="d:root", children=("d:1-intro", "d:1(a)"),
             summary="A different sentence about fees."),
        node("1-intro", "lead_in", 0, 28, parent="d:1", summary="The Buyer pays $10.",
             keywords=("fees",)),
        node("1(a)", "clause", 29, 62, parent="d:1", summary="Invoices are monthly.",
             cross_references=("d:1", "other:5"), uses_definitions=("d:1",)),
        node("toc-entry", "toc_entry", 63, len(TEXT), parent="d:root",
             flags=Flags(is_toc_entry=True)),
    ))


def _flat(tree: dict[str, object]) -> dict[str, dict[str, object]]:
    out = {str(tree["nodeId"]): tree}
    for child in tree["children"]:  # type: ignore[attr-defined]
        out.update(_flat(child))
    return out


def test_ids_are_relative_inside_their_document() -> None:
    assert relative_id("d:1(a)", "d") == "1(a)" and relative_id("other:5", "d") == "other:5"
    assert absolute_id("1(a)", "d") == "d:1(a)" and absolute_id("other:5", "d") == "other:5"
    nodes = _flat(index_document(_index(), "D2")["documentIndex"])
    assert nodes["1(a)"]["crossReferencedIds"] == ["1", "other:5"]


def test_lead_ins_and_contents_entries_carry_no_repeated_text() -> None:
    nodes = _flat(index_document(_index(), "D4")["documentIndex"])
    lead = nodes["1-intro"]
    assert (lead["title"], lead["snippet"], lead["summary"], lead["keywords"]) == ("", "", "", [])
    assert nodes["toc-entry"]["snippet"] == "" and nodes["toc-entry"]["isTocEntry"] is True
    assert nodes["toc-entry"]["title"] == "TOC-ENTRY"


def test_a_summary_the_snippet_already_shows_is_left_out() -> None:
    nodes = _flat(index_document(_index(), "D4")["documentIndex"])
    assert nodes["1(a)"]["summary"] == ""  # "Invoices are monthly." opens the snippet
    assert nodes["1"]["summary"] == "A different sentence about fees."


@pytest.mark.parametrize("rung", ["D1", "D4", "D5"])
def test_the_files_still_rebuild_the_index_exactly(rung: str) -> None:
    index = _index()
    assert document_from_files(index_document(index, rung), full_document(index)) == index  # type: ignore[arg-type]


def test_the_defined_term_graph_is_shown_only_at_d5() -> None:
    assert "usesDefinitions" not in _flat(index_document(_index(), "D4")["documentIndex"])["1(a)"]
    d5 = _flat(index_document(_index(), "D5")["documentIndex"])
    assert d5["1(a)"]["usesDefinitions"] == ["1"]
