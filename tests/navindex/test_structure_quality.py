"""The structure measures of ``legalbench stats``, on documents written for the tests."""

from __future__ import annotations

import hashlib

from pytest_legalbench.defaults import MAX_UNIT_TOKENS
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.navindex.build import build_corpus
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.navindex.statistics import corpus_stats, document_stats
from pytest_legalbench.navindex.structure_quality import structure_quality


def _index_of(text: str) -> DocumentIndex:
    document = Document(doc_id="doc", title="doc", text=text,
                        sha256=hashlib.sha256(text.encode()).hexdigest())
    return build_corpus([document])[0]


def test_a_leaf_over_the_cap_is_counted_with_its_text() -> None:
    long_clause = "The Supplier shall keep records of every delivery. " * 120  # ~1,530 tokens
    text = ("SUPPLY AGREEMENT\n\n1. Records\n\n" + long_clause + "\n\n2. Term\n\n"
            "This Agreement runs for two years.\n\n3. Notices\n\nNotices are in writing.\n")
    index = _index_of(text)
    quality = structure_quality(index, text)
    assert quality.leaves_over_cap == 1
    assert quality.largest_leaf_tokens > MAX_UNIT_TOKENS
    visible = len("".join(long_clause.split()))
    # The leaf holds the clause and its heading line "1. Records".
    assert visible < quality.over_cap_chars < visible + 20
    assert quality.heading_like_lines == quality.headings_found == 3


def test_heading_recall_counts_the_headings_the_parser_missed() -> None:
    text = ("LETTER AGREEMENT\n\nDear Sir:\n\n1. Scope. You will advise us.\n\n"
            "2. Fees. We pay monthly.\n\n3. Term. One year.\n\n"
            "Section 9 Miscellaneous, and the rest of the clause follows here.\n")
    index = _index_of(text)
    stats = document_stats(index, text)
    assert stats.heading_like_lines == 4
    assert stats.headings_found == 3
    assert stats.heading_recall == 0.75
    report = corpus_stats([stats, stats])["total"]
    assert isinstance(report, dict)
    assert report["heading_recall"] == 0.75 and report["documents_with_leaf_over_cap"] == 0
