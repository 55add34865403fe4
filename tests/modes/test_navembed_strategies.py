"""navembed's strategies on a small lease and its amendment, with a bag-of-words embedder in
place of the transformer so that every ranking can be reasoned about (and the tests are fast).
The transformer itself is exercised in test_navembed_model.py."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.llm.client import ClientConfig, ModelClient
from pytest_legalbench.llm.ledger import Ledger
from pytest_legalbench.modes import navembed
from pytest_legalbench.modes.base import Corpus, ModeSettings, ModeUnavailable
from pytest_legalbench.modes.chunks import CHUNK_TOP_K, ChunksMode
from pytest_legalbench.modes.names import NAVEMBED_STRATEGIES
from pytest_legalbench.modes.navembed import (
    ClosureMode,
    EmbedMode,
    EmbedXrefMode,
    HybridMode,
    NodeRanking,
    RerankMode,
)
from pytest_legalbench.modes.titles import TITLES_STAGE, TitlesMode
from pytest_legalbench.navindex.build import build_corpus
from pytest_legalbench.tokens import estimate_tokens
from pytest_legalbench.vectors.cross_encoder import Reranker
from pytest_legalbench.vectors.embedding import WeightedTexts
from tests.support.modes_samples import (
    OFFICE_AMENDMENT_TEXT,
    OFFICE_LEASE_TEXT,
    SUPPLY_TEXT,
    WordEmbedder,
)


class LengthReranker(Reranker):
    """Prefers shorter texts: an order plainly unlike the cosine order."""

    def __init__(self) -> None:
        super().__init__(Path("/fake-cross-encoder"), None)
        self.pools: list[int] = []

    @property
    def max_tokens(self) -> int:
        return 512

    def scores(self, question: str, texts: Sequence[str]) -> list[float]:
        self.pools.append(len(texts))
        return [-float(len(text)) for text in texts]

    def over_length(self, question: str, texts: Sequence[str]) -> int:
        return 0


def _corpus(cache_dir: Path | None = None, *extra: Document) -> Corpus:
    documents = (Document("lease", "Office Lease", OFFICE_LEASE_TEXT),
                 Document("amend", "First Amendment", OFFICE_AMENDMENT_TEXT, role="amendment",
                          amends=("lease",)), *extra)
    return Corpus(documents, build_corpus(documents), cache_dir)


def _ids(mode: NodeRanking | ChunksMode | TitlesMode, question: str) -> list[str]:
    return [p.node_id for p in mode.retrieve(question).provisions]


def test_embed_ranks_by_cosine_and_returns_k_disjoint_provisions() -> None:
    mode = EmbedMode(_corpus(), ModeSettings(k=3), WordEmbedder())
    result = mode.retrieve("Which State's laws is the Lease governed by?")
    assert result.mode == "navembed:embed"
    assert result.provisions[0].node_id == "lease:6"
    assert len(result.provisions) == 3 and result.payload_tokens <= 6000
    assert result.payload_tokens == sum(estimate_tokens(p.text) for p in result.provisions)
    assert all(p.text == OFFICE_LEASE_TEXT[p.start:p.end] for p in result.provisions
               if p.doc_id == "lease")
    spans = [(p.doc_id, p.start, p.end) for p in result.provisions]
    assert not any(a[0] == b[0] and a[1] < b[2] and b[1] < a[2]
                   for i, a in enumerate(spans) for b in spans[i + 1:])
    # Neither the whole document, a contents entry nor a signature block is ever a unit.
    assert not any(node_id.endswith(":root") for node_id in mode.labels)
    assert all(node.kind not in ("toc", "toc_entry", "signature") for node in mode.nodes)


def test_embed_xref_adds_what_the_hits_cross_reference_within_the_budget() -> None:
    question = "Can the Landlord terminate if the Tenant fails to pay when due?"
    corpus = _corpus()
    embedder = WordEmbedder()
    plain = EmbedMode(corpus, ModeSettings(k=1), embedder)
    assert _ids(plain, question) == ["lease:5"]
    expanded = EmbedXrefMode(corpus, ModeSettings(k=1), embedder)
    result = expanded.retrieve(question)
    # Section 5 cites Section 3.1, and the amendment changes 3.1: both come with the hit.
    assert [p.node_id for p in result.provisions][:2] == ["lease:5", "lease:3.1"]
    assert "amend:1" in [p.node_id for p in result.provisions]
    assert "1 hit" in result.notes[-1] and "1 reference" in result.notes[-1]
    hit_only = estimate_tokens(corpus.indexes[0].by_id()["lease:5"].text)
    tight = EmbedXrefMode(corpus, ModeSettings(k=1, payload_budget_tokens=hit_only), embedder)
    result = tight.retrieve(question)
    assert [p.node_id for p in result.provisions] == ["lease:5"]
    assert result.payload_tokens <= hit_only


def test_hybrid_fuses_bm25_with_cosine() -> None:
    corpus = _corpus()
    mode = HybridMode(corpus, ModeSettings(k=4), WordEmbedder())
    result = mode.retrieve("What interest is due on late payment of rent?")
    assert result.mode == "navembed:hybrid"
    # The late-payment clause holds every asked word; no provision repeats another's text.
    assert "1.5%" in " ".join(p.text for p in result.provisions[:2])
    ids = [p.node_id for p in result.provisions]
    assert not ({"lease:3", "lease:3.2"} <= set(ids))
    assert len(result.provisions) == 4
    assert mode.lexical.size == len(mode.nodes)


def test_rerank_keeps_what_the_cross_encoder_prefers_from_the_cosine_pool() -> None:
    reranker = LengthReranker()
    settings = ModeSettings(rerank_pool=6, rerank_keep=3)
    mode = RerankMode(_corpus(), settings, WordEmbedder(), reranker)
    result = mode.retrieve("How much is the Base Rent per month?")
    assert reranker.pools == [6]
    lengths = [p.end - p.start for p in result.provisions]
    assert len(lengths) == 3 and lengths == sorted(lengths)
    assert any("re-scored 6 candidates" in note for note in result.notes)


def test_rerank_without_a_cross_encoder_is_unavailable_before_anything_is_embedded() -> None:
    with pytest.raises(ModeUnavailable, match="no cross-encoder is configured") as caught:
        navembed.build("rerank", _corpus(), ModeSettings(), None)
    assert caught.value.mode == "navembed:rerank"


def test_build_names_bad_strategies_and_a_missing_client() -> None:
    assert NAVEMBED_STRATEGIES == ("embed", "embed+xref", "hybrid", "closure", "rerank",
                                   "titles", "chunks")
    assert tuple(navembed.STRATEGIES) == NAVEMBED_STRATEGIES
    with pytest.raises(ValueError, match="unknown navembed strategy 'bm25'"):
        navembed.build("bm25", _corpus(), ModeSettings(), None)
    with pytest.raises(ValueError, match="calls a model"):
        navembed.build("titles", _corpus(), ModeSettings(), None)
    with pytest.raises(ModeUnavailable, match="not a folder"):
        navembed.build("embed", _corpus(), ModeSettings(embedding_model="/no/such/model"),
                       None)


def test_cached_vectors_are_reused_without_embedding(tmp_path: Path) -> None:
    first = WordEmbedder()
    built = EmbedMode(_corpus(tmp_path), ModeSettings(), first)
    assert built.unit_vectors.embedded == {"lease", "amend"} and first.embedded
    # Each unit is embedded with its context: the document title and its headings.
    assert any(text.startswith("Office Lease > 3. RENT > 3.1 Base Rent") for text in
               first.embedded)
    files = sorted(p.name for p in (tmp_path / "embeddings" / "fa4e0001").iterdir())
    assert len(files) == 4 and {Path(f).suffix for f in files} == {".npy", ".json"}

    class Refusing(WordEmbedder):
        def embed_weighted(self, texts: Sequence[str]) -> WeightedTexts:
            if len(texts) != 1:  # a question is one text; a document's nodes are many
                raise AssertionError("the cached vectors should have been used")
            return super().embed_weighted(texts)

    again = EmbedMode(_corpus(tmp_path), ModeSettings(), Refusing())
    assert again.unit_vectors.matrix is not None and built.unit_vectors.matrix is not None
    assert np.array_equal(again.unit_vectors.matrix, built.unit_vectors.matrix)
    question = "Who maintains the elevators?"
    assert _ids(again, question) == _ids(built, question)


def test_strategies_over_one_corpus_share_its_units_and_vectors() -> None:
    corpus = _corpus()
    embedder = WordEmbedder()
    embed = EmbedMode(corpus, ModeSettings(), embedder)
    embedded = len(embedder.embedded)
    hybrid = HybridMode(corpus, ModeSettings(k=3), embedder)
    # The second strategy embeds nothing and builds no second BM25 index.
    assert len(embedder.embedded) == embedded > 0
    assert hybrid.space is embed.space and hybrid.lexical is embed.lexical
    assert hybrid.unit_vectors is embed.unit_vectors
    # A corpus equal in content but built apart shares nothing: what is kept is per object.
    other = EmbedMode(_corpus(), ModeSettings(), WordEmbedder())
    assert other.space is not embed.space


def test_windowed_nodes_are_counted_in_the_notes() -> None:
    long_text = "SERVICE SCHEDULE\n\n1. SERVICES\n\n" + " ".join(
        f"The contractor shall clean floor {n} of the building every week." for n in range(40))
    corpus = _corpus(None, Document("services", "Service Schedule", long_text + "\n"))
    mode = EmbedMode(corpus, ModeSettings(), WordEmbedder())
    # Only a unit's own words are embedded; its children are pooled in, not re-embedded.
    assert mode.unit_vectors.windowed >= 1
    note = mode.retrieve("floor cleaning").notes[1]
    assert note.startswith(f"{mode.unit_vectors.windowed} of {len(mode.nodes)} unit texts "
                           f"embedded in "
                           f"256-token windows")


def test_chunks_return_the_top_ten_chunks_with_exact_spans() -> None:
    filler = "".join(f"Paragraph {n}. Widgets ship promptly.\n" for n in range(400))
    text = filler + "The security deposit is forty thousand dollars.\n" + filler
    corpus = _corpus(None, Document("long", "Long Agreement", text))
    mode = ChunksMode(corpus, WordEmbedder())
    result = mode.retrieve("security deposit")
    assert result.mode == "navembed:chunks" and len(result.provisions) == CHUNK_TOP_K
    assert "security deposit" in result.provisions[0].text
    assert result.provisions[0].node_id.startswith("long:chunk-")
    documents = {d.doc_id: d.text for d in corpus.documents}
    assert all(p.text == documents[p.doc_id][p.start:p.end] and p.clause == ""
               for p in result.provisions)
    assert "chunks longer than" in result.notes[0]


def test_titles_pick_through_the_reference_backend() -> None:
    from pytest_legalbench.reference_backend import ReferenceBackend

    ledger = Ledger()
    with ReferenceBackend() as backend, ModelClient(
            ClientConfig(base_url=backend.base_url), ledger) as client:
        mode = navembed.build("titles", _corpus(), ModeSettings(k=2), client)
        assert isinstance(mode, TitlesMode)
        result = mode.retrieve("What is the Base Rent?", question_id="q7")
    assert result.mode == "navembed:titles"
    # "base" is the rarest question word among the titles, so Base Rent comes first; the
    # reference pick's second choice is the Rent section, which contains 3.1 and is dropped.
    assert [p.node_id for p in result.provisions] == ["lease:3.1"]
    assert result.dropped == (("overlapping", 1),)
    assert [c.stage for c in result.calls] == [TITLES_STAGE]
    assert result.calls[0].question_id == "q7" and result.calls == ledger.calls
    assert "lease:root" not in mode.listing and "lease:3.1 | lease | 3.1 | Base Rent" in (
        mode.listing)


def test_titles_pick_documents_first_when_the_listing_exceeds_the_budget() -> None:
    from pytest_legalbench.modes.titles import TITLES_DOCUMENTS_STAGE
    from pytest_legalbench.reference_backend import ReferenceBackend

    ledger = Ledger()
    settings = ModeSettings(k=2, scan_budget_tokens=10, max_scan_documents=1)
    with ReferenceBackend() as backend, ModelClient(
            ClientConfig(base_url=backend.base_url), ledger) as client:
        mode = navembed.build("titles", _corpus(), settings, client)
        assert isinstance(mode, TitlesMode) and mode.two_stage
        result = mode.retrieve("What Base Rent does the Tenant pay under the Office Lease in "
                               "Oregon?", question_id="q7")
    assert [c.stage for c in result.calls] == [TITLES_DOCUMENTS_STAGE, TITLES_STAGE]
    assert result.notes[0].startswith("two-stage pick: the titles listing exceeds 10 tokens")
    # The reference picker chose the lease (its line names Oregon and base rent); only its
    # titles were listed, and the Base Rent provisions came from them.
    assert result.notes[0].endswith("listed the titles of lease")
    assert [p.node_id for p in result.provisions] == ["lease:3.1", "lease:3.2"]
    assert result.calls == ledger.calls


def test_titles_with_no_document_picked_list_nothing_and_call_once() -> None:
    from pytest_legalbench.llm.call_types import StructuredResult
    from pytest_legalbench.llm.ledger import Usage

    mode = TitlesMode(_corpus(), ModeSettings(scan_budget_tokens=10), client=None)  # type: ignore[arg-type]
    assert mode._documents(StructuredResult({"doc_ids": ["nope", 3]}, True, 1, Usage())) == ()
    chosen = mode._documents(StructuredResult({"doc_ids": ["amend", "lease", "amend"]}, True, 1,
                                              Usage()))
    assert chosen == ("lease", "amend")  # corpus order, duplicates dropped


def test_titles_picks_are_checked_and_counted() -> None:
    mode = TitlesMode(_corpus(), ModeSettings(), client=None)  # type: ignore[arg-type]
    nodes, dropped = mode._resolve(["lease:3", "nope", 7, "lease:root", "lease:3",
                                    "lease:3.1", "amend:1"])
    assert [n.node_id for n in nodes] == ["lease:3", "amend:1"]
    assert dict(dropped) == {"invalid_ids": 2, "document_ids": 1, "repeated_ids": 1,
                             "overlapping": 1}


def test_closure_reads_the_named_instruments_openings_when_asked_who_made_them() -> None:
    # A second transaction, so that a name can tell the lease's family from another.
    corpus = _corpus(None, Document("supply", "Supply Agreement", SUPPLY_TEXT))
    mode = ClosureMode(corpus, ModeSettings(), WordEmbedder())
    question = "Who are the parties to the Harbor Properties lease, and when was it made?"
    route = mode.router.route(question)
    assert route.documents() == ("lease", "amend")
    openings = mode.openings(question, route)
    # Each routed instrument's first unit that says something: the lease's preamble.
    lease_opening = openings[0][0]
    assert lease_opening.doc_id == "lease" and lease_opening.start == 0
    assert "made by Harbor Properties LLC" in lease_opening.text
    assert [(node.doc_id, value) for node, value in openings] == [("lease", 0.8), ("amend", 0.8)]
    ids = [p.node_id for p in mode.retrieve(question).provisions]
    assert lease_opening.node_id in ids[:3]
    # A question about something else, or one naming no instrument, reads no opening for it.
    assert mode.openings("What is the Base Rent under the Harbor Properties lease?",
                         mode.router.route("What is the Base Rent under the Harbor lease?")) \
        == []
    assert mode.openings("When was the lease made?", mode.router.route("When was it made?")) \
        == []


def test_the_opening_rule_can_be_switched_off() -> None:
    corpus = _corpus(None, Document("supply", "Supply Agreement", SUPPLY_TEXT))
    mode = ClosureMode(corpus, ModeSettings(), WordEmbedder())
    mode.opening_value = 0.0
    question = "Who are the parties to the Harbor Properties lease?"
    assert mode.openings(question, mode.router.route(question)) == []
