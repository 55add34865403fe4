"""The published study's public baseline: fixed-size overlapping chunks, cosine top-10.

Chunks ignore document structure entirely. Sizes are counted in the project's estimated
tokens (``tokens.CHARS_PER_TOKEN`` characters each), not a tokenizer's, so that the chunk
boundaries are the same on every machine and for every embedding model: 512 tokens are 2,048
characters and the 64-token overlap is 256 characters. These numbers are the baseline's
definition; they are constants, never settings, and never tuned.
"""

from __future__ import annotations

from dataclasses import replace

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.modes.base import Corpus, Provision, Retrieval, payload_tokens
from pytest_legalbench.modes.traits import RETRIEVED
from pytest_legalbench.tokens import CHARS_PER_TOKEN, estimate_tokens
from pytest_legalbench.vectors.dense_index import DenseIndex, flat_group
from pytest_legalbench.vectors.embedding import Embedder
from pytest_legalbench.vectors.query_vectors import QueryVectors
from pytest_legalbench.vectors.ranking import ranked

CHUNK_TOKENS = 512
CHUNK_OVERLAP_TOKENS = 64
CHUNK_TOP_K = 10
CHUNK_CHARS = CHUNK_TOKENS * CHARS_PER_TOKEN
CHUNK_OVERLAP_CHARS = CHUNK_OVERLAP_TOKENS * CHARS_PER_TOKEN


def chunk_spans(length: int) -> list[tuple[int, int]]:
    """The ``(start, end)`` character spans of the chunks of a text of ``length`` characters."""
    stride = CHUNK_CHARS - CHUNK_OVERLAP_CHARS
    spans = []
    for start in range(0, max(length, 0), stride):
        end = min(start + CHUNK_CHARS, length)
        spans.append((start, end))
        if end == length:
            break
    return spans


def chunk_id(doc_id: str, number: int) -> str:
    """The node id of a document's chunk ``number`` (counted from 0)."""
    return f"{doc_id}:chunk-{number}"


def document_chunks(document: Document) -> list[Provision]:
    """A document's chunks, as provisions with their exact spans (no clause reference)."""
    return [Provision(doc_id=document.doc_id, node_id=chunk_id(document.doc_id, number),
                      clause="", start=start, end=end, text=document.text[start:end])
            for number, (start, end) in enumerate(chunk_spans(len(document.text)))]


def windowed_note(windowed: int, total: int, what: str, window: int) -> str:
    """The note reporting how many texts were embedded in windows rather than whole (a
    node's text here is its own words; its children's vectors are pooled into it)."""
    return (f"{windowed} of {total} {what} longer than the embedding model's {window}-token "
            f"window were embedded in overlapping windows and mean-pooled (none truncated)")


class ChunksMode:
    """Cosine top-10 over fixed overlapping chunks of every document (cut to the payload
    budget when ten chunks would exceed it)."""

    name = "navembed:chunks"
    traits = RETRIEVED

    def __init__(self, corpus: Corpus, embedder: Embedder,
                 budget_tokens: int | None = None) -> None:
        self.budget_tokens = budget_tokens
        by_document = [document_chunks(document) for document in corpus.documents]
        self.chunks = tuple(chunk for chunks in by_document for chunk in chunks)
        groups = [flat_group([(c.node_id, c.text) for c in chunks]) for chunks in by_document]
        self.index = DenseIndex.build(embedder, groups, corpus.cache_dir,
                                      progress=corpus.progress, what="chunks",
                                      record_dir=corpus.vector_record)
        self.queries = QueryVectors(embedder, corpus.cache_dir, corpus.vector_record)

    def retrieve(self, question: str, *, question_id: str | None = None) -> Retrieval:
        """The ten chunks most similar to ``question``, most similar first."""
        top = self.ranking(question, CHUNK_TOP_K)
        if self.budget_tokens is not None:
            top = _cut(top, self.budget_tokens)
        return self._retrieval(top)

    def ranking(self, question: str, limit: int) -> tuple[Provision, ...]:
        """The ``limit`` chunks most similar to ``question``, most similar first."""
        scores = self.index.cosine(self.queries.vector(question))
        order = ranked([float(s) for s in scores], self.index.labels)[:limit]
        return tuple(self.chunks[i] for i in order)

    def within_budget(self, question: str, budget_tokens: int) -> Retrieval:
        """Chunks in rank order up to ``budget_tokens`` of payload, the last one cut short to
        fill it: the baseline at the same payload as another mode."""
        return self._retrieval(_cut(self.ranking(question, len(self.chunks)), budget_tokens))

    def _retrieval(self, provisions: tuple[Provision, ...]) -> Retrieval:
        note = windowed_note(self.index.windowed, len(self.chunks), "chunks",
                             self.index.embedder.max_seq_length())
        return Retrieval(mode=self.name, provisions=provisions,
                         payload_tokens=payload_tokens(provisions), notes=(note,))


def _cut(chunks: tuple[Provision, ...], budget_tokens: int) -> tuple[Provision, ...]:
    """Chunks in order until ``budget_tokens`` are used, the last one cut short to fill it
    (cut at a whole number of tokens' characters, so the estimate never runs over)."""
    chosen: list[Provision] = []
    left = budget_tokens
    for chunk in chunks:
        if left <= 0:
            break
        if estimate_tokens(chunk.text) > left:
            room = left * CHARS_PER_TOKEN
            chunk = replace(chunk, end=chunk.start + room, text=chunk.text[:room])
        chosen.append(chunk)
        left -= estimate_tokens(chunk.text)
    return tuple(chosen)
