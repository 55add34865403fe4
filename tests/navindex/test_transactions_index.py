"""The index of the real `transactions` corpus: what the foundation must show, measured."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.navindex.corpus import build_indexes
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.navindex.statistics import DocumentStats, corpus_stats, document_stats
from pytest_legalbench.navindex.store import save_document

STONEPOINT = "stonepoint-02_revolving_credit_agreement_conformed"
NETGEAR = "netgear-01_distributor_agreement_1996"


@pytest.fixture(scope="module")
def documents(corpus_root: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Document, ...]:
    return load_documents(Selection("transactions"), corpus_dir=corpus_root,
                          cache_dir=tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="module")
def indexes(documents: tuple[Document, ...]) -> dict[str, DocumentIndex]:
    return {i.doc_id: i for i in build_indexes(documents, cache_dir=None)}


@pytest.fixture(scope="module")
def stats(documents: tuple[Document, ...],
          indexes: dict[str, DocumentIndex]) -> list[DocumentStats]:
    return [document_stats(indexes[d.doc_id], d.text) for d in documents]


def test_references_into_the_corpus_resolve(stats: list[DocumentStats]) -> None:
    total = corpus_stats(stats)["total"]
    assert isinstance(total, dict)
    assert total["xrefs_found"] > 400
    assert total["xrefs_resolved"] / total["xrefs_found"] >= 0.95


def test_leaves_cover_the_text_once(stats: list[DocumentStats]) -> None:
    for entry in stats:
        assert entry.overlap_chars == 0, entry.doc_id
        assert entry.coverage >= 0.99, entry.doc_id


def test_every_term_of_section_1_1_is_its_own_definition_node(
        documents: tuple[Document, ...], indexes: dict[str, DocumentIndex]) -> None:
    index = indexes[STONEPOINT]
    text = next(d.text for d in documents if d.doc_id == STONEPOINT)
    section = index.by_id()[f"{STONEPOINT}:1.1"]
    # An independent reading of the source: every paragraph of Section 1.1 that opens with a
    # quoted term defines it.
    opening = re.compile(r"^[“\"]([^”\"]+)[”\"]", re.MULTILINE)
    expected = [m.group(1).rstrip(",") for m in opening.finditer(text, section.start, section.end)]
    assert len(expected) > 200
    nodes = [n for n in index.nodes if n.kind == "definition" and n.parent == section.node_id]
    assert [n.defines[0] for n in nodes] == expected
    assert all(n.flags.is_definition for n in nodes)


def test_amendments_reach_into_the_base_agreement(indexes: dict[str, DocumentIndex]) -> None:
    for amendment in ("netgear-02_amendment_1996-10-01", "netgear-03_amendment_no2_1998-07-15"):
        targets = {t for n in indexes[amendment].nodes for t in n.cross_references}
        assert f"{NETGEAR}:2" in targets, amendment
    targets = {t for n in indexes["stonepoint-01_second_amendment"].nodes
               for t in n.cross_references}
    assert f"{STONEPOINT}:1.2" in targets


def test_outside_statutes_stay_external(indexes: dict[str, DocumentIndex]) -> None:
    index = indexes[STONEPOINT]
    for node in index.nodes:
        if "Section 3(42) of ERISA" in node.external_references:
            assert not any(t.endswith((":3", ":3(42)")) for t in node.cross_references)
            break
    else:
        pytest.fail("Section 3(42) of ERISA was not recognised as external")
    externals = {e for n in index.nodes for e in n.external_references}
    assert any("4975" in e and "Internal Revenue Code" in e for e in externals)


def test_contents_entries_are_never_reference_targets(indexes: dict[str, DocumentIndex]) -> None:
    for index in indexes.values():
        entries = {n.node_id for n in index.nodes if n.flags.is_toc_entry}
        for node in index.nodes:
            assert not entries & set(node.cross_references), node.node_id
    assert sum(n.kind == "toc_entry" for n in indexes[STONEPOINT].nodes) >= 150


def test_the_optimised_index_is_at_least_a_quarter_smaller(stats: list[DocumentStats]) -> None:
    readable = sum(s.index_tokens for s in stats)
    optimised = sum(s.index_tokens_optimised for s in stats)
    assert optimised <= 0.75 * readable


def test_two_builds_write_identical_files(documents: tuple[Document, ...],
                                          indexes: dict[str, DocumentIndex],
                                          tmp_path: Path) -> None:
    again = {i.doc_id: i for i in build_indexes(documents, cache_dir=None)}
    for doc_id in ("netgear-02_amendment_1996-10-01", "guerrilla-01_unit_purchase_agreement"):
        first = save_document(indexes[doc_id], tmp_path / "a")
        second = save_document(again[doc_id], tmp_path / "b")
        for one, two in zip(first, second):
            assert one.read_bytes() == two.read_bytes()
