"""Building the index of a small base agreement and its amendment, written for the tests."""

from __future__ import annotations

import hashlib

import pytest

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.navindex.build import build_corpus
from pytest_legalbench.navindex.node import NODE_KINDS, DocumentIndex, Node
from pytest_legalbench.navindex.statistics import corpus_stats, document_stats

BASE_TEXT = """SUPPLY AGREEMENT

This Supply Agreement (this "Agreement") is made by Northwind Ltd. ("Supplier") and Contoso Inc. ("Buyer").

1. DEFINITIONS

"Products" means the goods listed in Exhibit A.

"Price" means the amount in Section 3.1, payable in US dollars.

2. TERRITORY

The Territory is Canada. Supplier shall deliver Products within thirty (30) days.

3. PRICE

3.1 Amount. The Price is $10,000 per shipment, subject to Section 3.2.

3.2 Increases. Supplier may raise the Price by up to 5% each year, as permitted by Section 2 of the Sale of Goods Act.

4. LIABILITY

In no event shall either party be liable for consequential damages under Section 3.

5. GOVERNING LAW

This Agreement is governed by the laws of the State of New York.

EXHIBIT A

Widgets and gadgets.
"""

AMENDMENT_TEXT = """AMENDMENT NO. 1 TO SUPPLY AGREEMENT

This Amendment No. 1 (this "Amendment") amends the Supply Agreement (the "Agreement") between Supplier and Buyer.

1. Section 2 of the Agreement is amended so that the Territory is Canada and Mexico.

2. The Price in Section 3.1 of the Agreement is reduced for Products shipped after June 1, 2024.
"""


def _document(doc_id: str, text: str, **fields: object) -> Document:
    return Document(doc_id=doc_id, title=doc_id, text=text,
                    sha256=hashlib.sha256(text.encode()).hexdigest(), **fields)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def built() -> tuple[DocumentIndex, ...]:
    return build_corpus([
        _document("supply", BASE_TEXT, parties=("Northwind Ltd.", "Contoso Inc.")),
        _document("supply-amendment-1", AMENDMENT_TEXT, role="amendment", amends=("supply",)),
    ])


def _node(index: DocumentIndex, local: str) -> Node:
    return index.by_id()[f"{index.doc_id}:{local}"]


def test_every_span_is_verbatim_and_ids_are_unique(built: tuple[DocumentIndex, ...]) -> None:
    source = {"supply": BASE_TEXT, "supply-amendment-1": AMENDMENT_TEXT}
    ids = [n.node_id for index in built for n in index.nodes]
    assert len(ids) == len(set(ids))
    for index in built:
        assert index.root.text == source[index.doc_id]
        for node in index.nodes:
            assert node.text == source[index.doc_id][node.start:node.end]
            assert node.text_length == len(node.text)


def test_references_resolve_within_the_document(built: tuple[DocumentIndex, ...]) -> None:
    base = built[0]
    assert _node(base, "3.1").cross_references == ("supply:3.2",)
    # "Section 3" where clauses are 3.1 and 3.2 is the whole of clause 3.
    liability = next(n for n in base.nodes if "In no event" in n.text and n.is_leaf)
    assert liability.node_id == "supply:4" and liability.cross_references == ("supply:3",)
    assert _node(base, "3.2").external_references == ("Section 2 of Sale of Goods Act",)
    assert _node(base, "3.2").cross_references == ()


def test_amendment_references_resolve_into_the_base(built: tuple[DocumentIndex, ...]) -> None:
    amendment = built[1]
    assert _node(amendment, "1").cross_references == ("supply:2",)
    assert _node(amendment, "2").cross_references == ("supply:3.1",)


def test_defined_term_graph(built: tuple[DocumentIndex, ...]) -> None:
    base, amendment = built
    price = _node(base, "def-price")
    assert price.kind == "definition" and price.defines == ("Price",) and price.flags.is_definition
    assert "supply:def-products" in _node(base, "2").uses_definitions
    assert "supply:def-price" in _node(base, "3.1").uses_definitions
    # The amendment uses the base's definitions.
    assert "supply:def-price" in _node(amendment, "2").uses_definitions


def test_flags_on_leaves_and_their_parents(built: tuple[DocumentIndex, ...]) -> None:
    base = built[0]
    amount = _node(base, "3.1")
    assert amount.flags.has_money and amount.flags.has_condition
    assert _node(base, "3.2").flags.has_percentage
    assert _node(base, "3").flags.has_money  # a parent carries what its children carry
    liability = next(n for n in base.nodes if "In no event" in n.text and n.is_leaf)
    assert liability.flags.has_liability_limit
    assert base.tags.jurisdiction == "New York"


def test_builds_are_deterministic(built: tuple[DocumentIndex, ...]) -> None:
    again = build_corpus([
        _document("supply", BASE_TEXT, parties=("Northwind Ltd.", "Contoso Inc.")),
        _document("supply-amendment-1", AMENDMENT_TEXT, role="amendment", amends=("supply",)),
    ])
    assert again == built


def test_statistics_of_the_small_corpus(built: tuple[DocumentIndex, ...]) -> None:
    stats = [document_stats(built[0], BASE_TEXT), document_stats(built[1], AMENDMENT_TEXT)]
    base = stats[0]
    assert base.coverage == 1.0 and base.overlap_chars == 0
    assert base.definitions == 2 and base.toc_entries == 0
    assert base.xrefs_external == 1
    # Exhibit A, Section 3.1 (twice: from the definition and the clause), 3.2 and 3, all found.
    assert base.xrefs_resolved == base.xrefs_found
    report = corpus_stats(stats)
    total = report["total"]
    assert isinstance(total, dict)
    assert total["documents"] == 2
    assert total["xrefs_found"] == stats[0].xrefs_found + stats[1].xrefs_found
    assert total["index_tokens_optimised"] < total["index_tokens"]


def test_a_list_of_attachments_before_the_body_does_not_hold_the_body() -> None:
    text = ("LOAN AGREEMENT\n\nEXHIBITS\nEXHIBIT A\n- Form of Loan Request\nEXHIBIT B\n"
            "- Form of Certificate\nEXHIBIT C\n- Form of Note\n"
            "This Loan Agreement is made by the parties below.\n\n"
            "ARTICLE I DEFINITIONS\n\nSection 1.01. Terms. Words mean what they say.\n\n"
            "ARTICLE II LOANS\n\nSection 2.01. Loans. The Lender lends.\n")
    index, = build_corpus([_document("list-doc", text)])
    by_id = index.by_id()
    articles = [n for n in index.nodes if n.kind == "article"]
    assert [a.clause_reference for a in articles] == ["ARTICLE I", "ARTICLE II"]
    # The articles hang from the document, not from the last exhibit listed.
    assert all(by_id[a.parent].kind == "document" for a in articles if a.parent)
    listed = [n for n in index.nodes if n.clause_reference.startswith("EXHIBIT")]
    assert listed and all(n.flags.is_toc_entry for n in listed)


def test_every_node_kind_is_a_documented_kind(built: tuple[DocumentIndex, ...]) -> None:
    assert {n.kind for index in built for n in index.nodes} <= set(NODE_KINDS)


def test_only_the_contents_block_and_its_entries_are_contents() -> None:
    text = ("AGREEMENT\n\nTABLE OF CONTENTS\n\nSection 1 | Term | 1\nSection 2 | Fees | 2\n"
            "Section 3 | Law | 3\n\nSection 1. Term. One year.\n\nSection 2. Fees. $5.\n\n"
            "Section 3. Law. New York.\n")
    index, = build_corpus([_document("toc-doc", text)])
    marked = {n.node_id.partition(":")[2] for n in index.nodes if n.flags.is_toc_entry}
    assert "root" not in marked and "toc" in marked
    assert {n.kind for n in index.nodes if n.flags.is_toc_entry} <= {"toc", "toc_entry", "lead_in"}
    assert not index.by_id()["toc-doc:1"].flags.is_toc_entry
