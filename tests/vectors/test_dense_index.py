"""Subtree pooling in the dense index: own words embedded once, parents pooled from children."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.navindex.build import build_corpus
from pytest_legalbench.vectors.dense_index import DenseIndex, Piece, flat_group, subtree_group
from pytest_legalbench.vectors.embedding import Embedder, WeightedTexts
from pytest_legalbench.vectors.ranking import candidate_nodes

AGREEMENT = """SUPPLY AGREEMENT

1. DEFINITIONS

1.1 "Goods" means the widgets listed in Schedule 1.

1.2 "Price" means the price stated in Schedule 2.

2. DELIVERY

The Supplier shall deliver the Goods as follows:

(a) within ten days of each order; and

(b) to the Buyer's warehouse in Leeds.

3. PAYMENT

The Buyer shall pay the Price within thirty days of invoice.
"""


class AxisEmbedder(Embedder):
    """Maps a text to a one-hot axis chosen by its first word; weight = its word count."""

    AXES = ("supply", "definitions", "goods", "price", "delivery", "the", "within", "to",
            "payment")

    def __init__(self) -> None:
        super().__init__(Path("/axis-embedder"))
        self.calls: list[list[str]] = []

    @property
    def digest(self) -> str:
        return "a0150001"

    def embed_weighted(self, texts: Sequence[str]) -> WeightedTexts:
        self.calls.append(list(texts))
        rows = np.zeros((len(texts), len(self.AXES) + 1), dtype=np.float32)
        for row, text in enumerate(texts):
            first = next((w.strip('"').lower() for w in text.split() if w.strip('"').isalpha()),
                         "")
            rows[row, self.AXES.index(first) if first in self.AXES else len(self.AXES)] = 1.0
        return WeightedTexts(rows, (1,) * len(texts), tuple(len(t.split()) for t in texts))


def _nodes() -> tuple:  # type: ignore[type-arg]
    document = Document("supply", "Supply Agreement", AGREEMENT)
    return candidate_nodes(build_corpus((document,)))


def test_each_character_is_embedded_once_as_some_nodes_own_text() -> None:
    nodes = _nodes()
    pieces = subtree_group(nodes)
    own_words = sorted(w for p in pieces for w in p.own_text.split())
    top_level = [n for n in nodes if n.parent not in {m.node_id for m in nodes}]
    assert own_words == sorted(w for n in top_level for w in n.text.split())
    delivery = next(p for p, n in zip(pieces, nodes) if n.clause_reference == "2.")
    # The section's words all sit in its children (its lead-in holds the heading).
    assert delivery.own_text == "" and len(delivery.children) == 3
    lead_in = next(p for p in pieces if p.label == delivery.children[0])
    assert lead_in.own_text.startswith("2. DELIVERY") and "within ten" not in lead_in.own_text


def test_a_parent_vector_is_the_word_weighted_mean_of_its_own_and_its_childrens() -> None:
    nodes = _nodes()
    embedder = AxisEmbedder()
    index = DenseIndex.build(embedder, [subtree_group(nodes)], None)
    row = {label: index.vectors[n] for n, label in enumerate(index.labels)}
    payment = next(n for n in nodes if n.clause_reference == "3.")
    assert np.array_equal(row[payment.node_id],
                          np.eye(len(AxisEmbedder.AXES) + 1)[AxisEmbedder.AXES.index("payment")])
    delivery = next(n for n in nodes if n.clause_reference == "2.")
    expected = sum(len(child.text.split()) * row[child_id]
                   for child_id in delivery.children
                   for child in nodes if child.node_id == child_id)
    expected = expected / np.linalg.norm(expected)
    assert np.allclose(row[delivery.node_id], expected, atol=1e-6)
    # One embedding call for the whole document, one text per node with words of its own.
    assert len(embedder.calls) == 1
    assert len(embedder.calls[0]) == sum(1 for p in subtree_group(nodes) if p.own_text.strip())


def test_flat_pieces_are_embedded_unchanged() -> None:
    embedder = AxisEmbedder()
    index = DenseIndex.build(embedder, [flat_group([("a", "Goods here"), ("b", "Price")])],
                             None)
    assert index.labels == ("a", "b")
    assert embedder.calls == [["Goods here", "Price"]]
    assert index.vectors[0, AxisEmbedder.AXES.index("goods")] == 1.0


def test_the_cache_key_covers_nesting_not_only_words(tmp_path: Path) -> None:
    nested = [Piece("p", "Delivery terms", ("c",)), Piece("c", "Payment terms")]
    flat = [Piece("p", "Delivery terms"), Piece("c", "Payment terms")]
    first = DenseIndex.build(AxisEmbedder(), [nested], tmp_path)
    second = DenseIndex.build(AxisEmbedder(), [flat], tmp_path)
    assert second.groups_cached == 0
    assert not np.array_equal(first.vectors, second.vectors)
    assert DenseIndex.build(AxisEmbedder(), [nested], tmp_path).groups_cached == 1


@given(st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=12))
def test_pooled_vectors_are_unit_length_or_zero(firsts: list[int]) -> None:
    words = ["supply", "goods", "price", "delivery", "payment", "the", ""]
    pieces = [Piece(f"n{i:02d}", words[w], (f"n{i + 1:02d}",) if i + 1 < len(firsts) else ())
              for i, w in enumerate(firsts)]
    vectors = DenseIndex.build(AxisEmbedder(), [pieces], None).vectors
    norms = np.linalg.norm(vectors, axis=1)
    for norm, piece_index in zip(norms, range(len(pieces))):
        has_words = any(words[w] for w in firsts[piece_index:])
        assert np.isclose(norm, 1.0 if has_words else 0.0, atol=1e-6)


def test_large_builds_embed_in_batches_report_progress_and_keep_finished_batches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_legalbench.vectors import dense_index

    monkeypatch.setattr(dense_index, "BATCH_PIECES", 2)
    groups = [flat_group([(f"d{g}-{i}", f"Delivery clause {g} {i}") for i in range(2)])
              for g in range(3)]

    class FailsOnThirdBatch(AxisEmbedder):
        def embed_weighted(self, texts: Sequence[str]) -> WeightedTexts:
            if len(self.calls) == 2:
                raise RuntimeError("interrupted")
            return super().embed_weighted(texts)

    lines: list[str] = []
    with pytest.raises(RuntimeError, match="interrupted"):
        DenseIndex.build(FailsOnThirdBatch(), groups, tmp_path, progress=lines.append,
                         what="chunks")
    assert [line.partition(":")[0] for line in lines] == [
        "embedded 1/3 documents (chunks)", "embedded 2/3 documents (chunks)"]
    # With the rate so far and what is left at that rate.
    assert all(" texts/s, about " in line and line.endswith(" s left") for line in lines)
    embedder = AxisEmbedder()
    again = DenseIndex.build(embedder, groups, tmp_path)
    # The two finished batches were cached; only the third is embedded again.
    assert again.groups_cached == 2 and len(embedder.calls) == 1


def test_a_build_waiting_on_the_embedding_lock_reads_what_the_holder_stored(
        tmp_path: Path) -> None:
    import shutil
    import threading

    from pytest_legalbench.files.build_lock import build_lock, lock_file

    groups = [flat_group([(f"d{g}-0", f"Delivery clause {g}")]) for g in range(2)]
    waiter = AxisEmbedder()
    lines: list[str] = []
    built: list[DenseIndex] = []
    cache = tmp_path / "cache"
    # The lock is held here as another process holds it during its build (flock locks
    # belong to an open file, so a second open in this process waits as a process would).
    with build_lock(lock_file(cache, f"embeddings-{waiter.digest}"), "test"):
        thread = threading.Thread(target=lambda: built.append(
            DenseIndex.build(waiter, groups, cache, progress=lines.append)))
        thread.start()
        thread.join(timeout=0.5)
        assert thread.is_alive() and waiter.calls == []  # waiting, embedding nothing
        # The holder's build lands in the shared cache before it lets go.
        DenseIndex.build(AxisEmbedder(), groups, tmp_path / "holder")
        shutil.copytree(tmp_path / "holder" / "embeddings", cache / "embeddings")
    thread.join(timeout=30)
    assert built and built[0].groups_cached == 2 and waiter.calls == []
    assert any(line.startswith("waiting for another process") for line in lines)
