"""A long document on one physical line is indexed as it would be with its line breaks."""

from __future__ import annotations

import hashlib

import pytest

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.navindex.build import build_corpus
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.navindex.statistics import document_stats

#: Articles in the generated agreement: about 110 KB, long enough that copying the rest of
#: the line at every break (what made indexing quadratic) would be plain in a profile.
ARTICLES = 200


def _provisions() -> list[str]:
    """An agreement's lines: articles of numbered clauses, lists and definitions among them."""
    lines = ["MASTER SUPPLY AGREEMENT",
             ('This Master Supply Agreement (this "Agreement") is made by Northwind Ltd. '
              '("Supplier") and Contoso Inc. ("Buyer").')]
    for article in range(1, ARTICLES + 1):
        # A heading ends with a full stop: a title without one is read on across a soft
        # break ("OBLIGATIONS   1.1 Defined Terms"), which only a line break would stop.
        lines.append(f"ARTICLE {article}. OBLIGATIONS OF PART {article}.")
        lines.append(f'{article}.1 Defined Terms. "Part {article} Goods" means the goods of '
                     f"schedule {article}, delivered in the Territory.")
        lines.append(f"{article}.2 Delivery. Supplier shall deliver the Part {article} Goods "
                     f"within {article + 10} days, subject to Section {article}.3:")
        lines.append("(a) by sea, at the cost of Buyer;")
        lines.append("(b) by air, at the cost of Supplier.")
        lines.append(f"{article}.3 Price. The price is ${article * 1000} per shipment, payable "
                     f"within thirty (30) days of invoice, as Section {article}.2 provides.")
        lines.append(f"{article}.4 Liability. In no event shall either party be liable for "
                     f"consequential damages arising under this Article {article}.")
    lines.append("This Agreement is governed by the laws of the State of New York.")
    return lines


def _index(text: str) -> DocumentIndex:
    document = Document(doc_id="supply", title="Master Supply Agreement", text=text,
                        sha256=hashlib.sha256(text.encode()).hexdigest())
    return build_corpus([document])[0]


@pytest.fixture(scope="module")
def indexes() -> tuple[str, DocumentIndex, str, DocumentIndex]:
    lines = _provisions()
    # Converted PDFs keep a run of spaces where a line break was: a soft break.
    broken, one_line = "\n".join(lines), "   ".join(lines)
    assert "\n" not in one_line and len(one_line) > 100_000
    return broken, _index(broken), one_line, _index(one_line)


def test_the_one_line_index_covers_its_text_once(
        indexes: tuple[str, DocumentIndex, str, DocumentIndex]) -> None:
    _, _, text, index = indexes
    stats = document_stats(index, text)
    assert stats.coverage == 1.0 and stats.overlap_chars == 0
    for node in index.nodes:
        assert node.text == text[node.start:node.end]


def test_the_one_line_index_finds_the_provisions_of_the_broken_one(
        indexes: tuple[str, DocumentIndex, str, DocumentIndex]) -> None:
    _, broken, _, one_line = indexes

    def shape(index: DocumentIndex) -> list[tuple[object, ...]]:
        return [(n.node_id, n.kind, n.clause_reference, n.title, n.parent, n.children,
                 n.defines, n.cross_references, " ".join(n.text.split()))
                for n in index.nodes]

    assert len(broken.nodes) > ARTICLES * 7
    assert shape(one_line) == shape(broken)
    assert one_line.by_id()[f"supply:{ARTICLES}.2(b)"].text.startswith("(b) by air")
    assert one_line.tags == broken.tags
