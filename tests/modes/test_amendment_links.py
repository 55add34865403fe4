"""Cross-references read backwards: base provisions lead to the amendments that change them."""

from __future__ import annotations

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.modes.amendments import AmendmentLinks
from pytest_legalbench.modes.fetch import Fetcher
from pytest_legalbench.navindex.build import build_corpus
from pytest_legalbench.navindex.node import DocumentIndex

BASE = """SERVICES AGREEMENT

1. TERM

1.1 This Agreement runs for two years from the Effective Date.

1.2 Either party may renew it for one further year.

2. FEES

The Customer shall pay a monthly fee of $1,000.
"""
AMENDMENT = """FIRST AMENDMENT TO SERVICES AGREEMENT

1. Section 1.1 of the Agreement is amended to read: "This Agreement runs for three years."

2. Except as amended here, the Agreement remains in full force.
"""
UNRELATED = """SIDE MEMO

1. The parties note that Section 2 of the Services Agreement is unaffected.
"""


def _indexes(*extra: Document) -> tuple[DocumentIndex, ...]:
    documents = (Document("base", "Services Agreement", BASE),
                 Document("amend", "First Amendment", AMENDMENT, role="amendment",
                          amends=("base",)), *extra)
    return build_corpus(documents)


def _node(indexes: tuple[DocumentIndex, ...], doc_id: str, reference: str):  # type: ignore[no-untyped-def]
    index = next(i for i in indexes if i.doc_id == doc_id)
    return next(n for n in index.nodes if n.clause_reference == reference)


def test_a_base_provision_leads_to_the_amendment_that_changes_it() -> None:
    indexes = _indexes()
    links = AmendmentLinks(indexes)
    item = _node(indexes, "amend", "1.")
    assert links.amending(_node(indexes, "base", "1.1")) == [item.node_id]
    # The section holding 1.1 is changed too; its sibling clause and other sections are not.
    assert links.amending(_node(indexes, "base", "1.")) == [item.node_id]
    assert links.amending(_node(indexes, "base", "1.2")) == []
    assert links.amending(_node(indexes, "base", "2.")) == []


def test_only_documents_that_amend_the_target_count() -> None:
    memo = Document("memo", "Side Memo", UNRELATED, role="side_letter")
    indexes = _indexes(memo)
    links = AmendmentLinks(indexes)
    assert links.amending(_node(indexes, "base", "2.")) == []


def test_navindex_fetch_adds_the_amending_provision() -> None:
    indexes = _indexes()
    clause = _node(indexes, "base", "1.1")
    fetched = Fetcher(indexes, definitions_per_node=3).fetch([clause], "anything", 10_000)
    ids = [p.node_id for p in fetched.provisions]
    assert ids[0] == clause.node_id and _node(indexes, "amend", "1.").node_id in ids
    assert fetched.chosen.counts.get("amendment") == 1
