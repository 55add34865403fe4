"""The parts of navembed that need no model: chunking, ranking, BM25, the vector cache, the
cross-encoder checks and the reference backend's titles pick."""

from __future__ import annotations

import itertools
import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.modes.chunks import (
    CHUNK_CHARS,
    CHUNK_OVERLAP_CHARS,
    CHUNK_OVERLAP_TOKENS,
    CHUNK_TOKENS,
    CHUNK_TOP_K,
    chunk_spans,
    document_chunks,
)
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.reference_backend import titles as reference_titles
from pytest_legalbench.reference_backend.request_parsing import parse_request
from pytest_legalbench.reference_backend.wire import WireError
from pytest_legalbench.vectors.cross_encoder import CrossEncoderUnavailable, Reranker
from pytest_legalbench.vectors.embedding import EmbeddedTexts, EmbeddingModelError, text_digest
from pytest_legalbench.vectors.lexical_index import LexicalIndex, tokenise
from pytest_legalbench.vectors.ranking import RRF_K, disjoint, fused, ranked
from pytest_legalbench.vectors.vector_cache import VectorCache, VectorCacheWarning


def test_the_chunk_baseline_is_fixed_at_512_tokens_with_64_overlap_and_top_10() -> None:
    assert (CHUNK_TOKENS, CHUNK_OVERLAP_TOKENS, CHUNK_TOP_K) == (512, 64, 10)
    assert (CHUNK_CHARS, CHUNK_OVERLAP_CHARS) == (2048, 256)
    assert chunk_spans(5000) == [(0, 2048), (1792, 3840), (3584, 5000)]
    assert chunk_spans(2048) == [(0, 2048)]
    assert chunk_spans(0) == []


@given(st.integers(min_value=1, max_value=40_000))
def test_chunks_tile_the_text_with_the_fixed_overlap(length: int) -> None:
    spans = chunk_spans(length)
    assert spans[0][0] == 0 and spans[-1][1] == length
    assert all(0 < end - start <= CHUNK_CHARS for start, end in spans)
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert end - start == CHUNK_OVERLAP_CHARS
    # Only the last chunk may be short, and no chunk lies wholly inside its neighbour.
    assert all(end - start == CHUNK_CHARS for start, end in spans[:-1])


def test_chunk_provisions_carry_their_exact_span_and_id() -> None:
    text = "".join(f"Clause {n}. The Tenant shall pay the sum of {n} dollars.\n"
                   for n in range(120))
    document = Document(doc_id="lease", title="Lease", text=text)
    chunks = document_chunks(document)
    assert [c.node_id for c in chunks] == [f"lease:chunk-{n}" for n in range(len(chunks))]
    assert all(c.text == text[c.start:c.end] and c.doc_id == "lease" for c in chunks)
    assert len(chunks) == len(chunk_spans(len(text))) > 2


def test_ranking_rounds_scores_then_breaks_ties_by_id() -> None:
    ids = ["b", "a", "c", "d"]
    # 0.5000001 and 0.5 are equal at six decimals, so "a" comes before "b".
    assert ranked([0.5000001, 0.5, 0.9, -1.0], ids) == [2, 1, 0, 3]
    with pytest.raises(ValueError, match="3 scores for 4 ids"):
        ranked([1.0, 2.0, 3.0], ids)


def test_reciprocal_rank_fusion_sums_one_over_k_plus_rank() -> None:
    ids = ["x", "y", "z"]
    # x: 1/61 + 1/63, y: 1/62 + 1/61, z: 1/63 + 1/62: y wins, then x and z by their sums.
    order = fused([[0, 1, 2], [1, 2, 0]], ids)
    assert RRF_K == 60
    assert order == [1, 0, 2]


def _node(node_id: str, start: int, end: int, doc_id: str = "d") -> Node:
    return Node(node_id=node_id, doc_id=doc_id, kind="section", clause_reference="",
                title="", start=start, end=end, text="x" * (end - start))


def test_disjoint_passes_over_nested_and_overlapping_text() -> None:
    nodes = [_node("d:1", 0, 100), _node("d:1.1", 10, 50), _node("d:2", 100, 150),
             _node("e:1", 0, 100, doc_id="e"), _node("d:big", 0, 400)]
    chosen, skipped = disjoint([1, 0, 2, 3, 4], nodes, limit=3)
    assert chosen == [1, 2, 3] and skipped == 1
    chosen, skipped = disjoint([0, 1, 2], nodes, limit=5, taken=[nodes[2]])
    assert chosen == [0] and skipped == 2


def test_bm25_tokenisation_and_scores_are_plain_and_stable() -> None:
    assert tokenise("Section 3.1: Tenant’s RENT, $12,500") == [
        "section", "3", "1", "tenant", "s", "rent", "12", "500"]
    index = LexicalIndex(["the rent is due monthly", "the roof is repaired",
                          "rent rent rent", "", "notices go by mail", "the term is five years"])
    scores = index.scores("When is rent due?")
    assert len(scores) == 6 and scores[3] == 0.0
    assert scores[0] > scores[2] > scores[1]
    assert index.scores("When is rent due?") == scores
    assert LexicalIndex([]).scores("rent") == []


def _entry(rows: int = 3) -> EmbeddedTexts:
    vectors = np.eye(rows, 4, dtype=np.float32)
    return EmbeddedTexts(vectors, windowed=1)


def test_vector_cache_round_trip(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path)
    digest = text_digest(["a", "b", "c"])
    assert cache.get("ab12cd34", digest, 3) is None
    cache.put("ab12cd34", digest, _entry(), model="m", labels=("d:1", "d:2", "d:3"))
    vectors_path, manifest_path = cache.paths("ab12cd34", digest)
    assert vectors_path == tmp_path / "embeddings" / "ab12cd34" / f"{digest}.npy"
    manifest = json.loads(manifest_path.read_text())
    assert manifest["labels"] == ["d:1", "d:2", "d:3"] and manifest["windowed"] == 1
    found = cache.get("ab12cd34", digest, 3)
    assert found is not None and found.windowed == 1
    assert np.array_equal(found.vectors, _entry().vectors)
    assert found.vectors.dtype == np.float32


def test_vector_cache_treats_a_bad_entry_as_a_miss_with_a_warning(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path)
    cache.put("ab12cd34", "0123abcd", _entry(), model="m", labels=("1", "2", "3"))
    with pytest.warns(VectorCacheWarning, match="expected 5 rows"):
        assert cache.get("ab12cd34", "0123abcd", 5) is None
    vectors_path, _ = cache.paths("ab12cd34", "0123abcd")
    vectors_path.write_bytes(b"not an array")
    with pytest.warns(VectorCacheWarning, match="0123abcd.json"):
        assert cache.get("ab12cd34", "0123abcd", 3) is None
    # An object array would need pickle to load; it is refused, not executed.
    np.save(vectors_path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.warns(VectorCacheWarning, match="ValueError"):
        assert cache.get("ab12cd34", "0123abcd", 3) is None
    with pytest.raises(ValueError, match="not a lower-case hex digest"):
        cache.paths("../x", "0123abcd")


def test_vector_cache_write_failure_only_warns(tmp_path: Path) -> None:
    blocker = tmp_path / "embeddings"
    blocker.write_text("a file where the folder should be")
    with pytest.warns(VectorCacheWarning, match="not stored"):
        VectorCache(tmp_path).put("ab12cd34", "0123abcd", _entry(), model="m",
                                  labels=("1", "2", "3"))


def test_text_digest_depends_on_boundaries_and_salt() -> None:
    assert text_digest(["ab", "c"]) != text_digest(["a", "bc"])
    assert text_digest(["ab"], salt="x") != text_digest(["ab"], salt="y")
    assert text_digest(["ab"]) == text_digest(["ab"])


def test_rerank_is_unavailable_without_a_cross_encoder(tmp_path: Path) -> None:
    with pytest.raises(CrossEncoderUnavailable, match="no cross-encoder is configured") as caught:
        Reranker.load(None)
    assert "offline" in caught.value.reason
    with pytest.raises(CrossEncoderUnavailable, match="not a local folder"):
        Reranker.load("cross-encoder/ms-marco-MiniLM-L6-v2")
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["BertModel"]}))
    with pytest.raises(CrossEncoderUnavailable, match="not a cross-encoder"):
        Reranker.load(str(tmp_path))
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(CrossEncoderUnavailable, match="unreadable config.json"):
        Reranker.load(str(tmp_path))
    # Crossing a process boundary keeps the reason.
    import pickle

    assert pickle.loads(pickle.dumps(caught.value)).reason == caught.value.reason


def test_a_missing_embedding_model_folder_is_named(tmp_path: Path) -> None:
    from pytest_legalbench.vectors.embedding import resolve_model_path

    with pytest.raises(EmbeddingModelError, match="not a folder"):
        resolve_model_path(str(tmp_path / "nowhere"))
    assert resolve_model_path(str(tmp_path)) == tmp_path.resolve()


def _titles_request(listing: str, question: str, cap: int | None = 10) -> bytes:
    schema: dict[str, object] = {"type": "array", "items": {"type": "string"}}
    if cap is not None:
        schema["maxItems"] = cap
    return json.dumps({
        "model": "m", "max_tokens": 100,
        "tools": [{"name": "select_titles", "description": "pick",
                   "input_schema": {"type": "object", "properties": {"node_ids": schema}}}],
        "tool_choice": {"type": "tool", "name": "select_titles"},
        "messages": [{"role": "user", "content": (
            f"<question>\n{question}\n</question>\n<titles>\n{listing}\n</titles>")}],
    }).encode()


LISTING = """lease:2 | lease | 2 | Term
lease:3 | lease | 3 | Rent
lease:3.1 | lease | 3.1 | Base Rent
lease:3.2 | lease | 3.2 | Late Payment of Rent
lease:6 | lease | 6 | Governing Law
amend:1 | amend | 1 |"""


def test_reference_titles_pick_prefers_rare_heading_words_and_obeys_the_cap() -> None:
    request = parse_request(_titles_request(LISTING, "What is the base rent?"),
                            needs_max_tokens=True)
    picked = reference_titles.select_titles_input(request)["node_ids"]
    # "base" is rarer than "rent", so Base Rent leads; untitled and unrelated lines never come.
    assert picked == ["lease:3.1", "lease:3", "lease:3.2"]
    capped = parse_request(_titles_request(LISTING, "What is the base rent?", cap=1),
                           needs_max_tokens=True)
    assert reference_titles.select_titles_input(capped)["node_ids"] == ["lease:3.1"]
    default = parse_request(_titles_request(LISTING, "governing law?", cap=None),
                            needs_max_tokens=True)
    assert reference_titles.select_titles_input(default)["node_ids"] == ["lease:6"]


def test_reference_titles_pick_rejects_a_malformed_listing() -> None:
    request = parse_request(_titles_request("lease:2 | Term", "rent?"), needs_max_tokens=True)
    with pytest.raises(WireError, match="line 1 is not"):
        reference_titles.select_titles_input(request)


def test_the_backend_serves_the_titles_tool_under_the_modes_name() -> None:
    from pytest_legalbench.modes.titles import SELECT_TITLES
    from pytest_legalbench.reference_backend.responder import TOOL_HANDLERS

    assert TOOL_HANDLERS[SELECT_TITLES] is reference_titles.select_titles_input
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert reference_titles.SELECT_TITLES == SELECT_TITLES
