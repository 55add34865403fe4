"""The corpus-wide state every node-level navembed strategy ranks over, built once per corpus.

``UnitSpace`` holds the units of a corpus (``modes.units``), their context lines, routing and
BM25 index; ``UnitVectors`` holds their vectors under one embedder. Neither depends on a
strategy, so a session that runs several strategies over one corpus (the benchmark's default
job runs four) builds each once: ``Corpus.derive`` keeps them, keyed by what they depend on.
On a corpus of more than ``EAGER_DOCUMENTS`` documents vectors are built per document when a
question first needs them, so a user with a few hundred contracts gets a first answer without
embedding all of them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from pytest_legalbench.modes.base import Corpus
from pytest_legalbench.modes.routing import Router
from pytest_legalbench.modes.units import UnitContext, heading_only
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.tokens import estimate_tokens
from pytest_legalbench.vectors.dense_index import DenseIndex, Piece, subtree_group
from pytest_legalbench.vectors.embedding import Embedder
from pytest_legalbench.vectors.lexical_index import LexicalIndex

#: Corpora up to this many documents are embedded whole when the vectors are first asked for.
EAGER_DOCUMENTS = 40
#: An opening starts this close to the top of its document (past a cover line or an exhibit
#: number, not past a table of contents).
OPENING_START = 2000
#: Units with fewer tokens of their own (context line aside) are headings, never hits; they
#: still come in as the lead-in of a clause that is taken.
MIN_HIT_TOKENS = 8


def contextual_group(nodes: Sequence[Node], context: UnitContext) -> list[Piece]:
    """One document's pieces: each unit's context line and own words (page furniture left
    out), children pooled."""
    return [Piece(p.label, f"{context.line(context.by_id[p.label])}\n{p.own_text}".strip(),
                  p.children) for p in subtree_group([context.ranked(n) for n in nodes])]


class UnitSpace:
    """A corpus's units in a fixed order, with their context, routing and BM25 index."""

    def __init__(self, corpus: Corpus) -> None:
        self.context = UnitContext(corpus.indexes, without_furniture=True)
        self.by_id = self.context.by_id
        self.router = Router.of_corpus(corpus.indexes, corpus.documents)
        per_document = [self.context.units[index.doc_id] for index in corpus.indexes]
        self.doc_ids = tuple(index.doc_id for index in corpus.indexes)
        self.nodes = tuple(node for units in per_document for node in units)
        self.rows: dict[str, range] = {}
        start = 0
        for doc_id, units in zip(self.doc_ids, per_document):
            self.rows[doc_id] = range(start, start + len(units))
            start += len(units)
        self.labels = tuple(node.node_id for node in self.nodes)
        self.rankable = frozenset(p for p, node in enumerate(self.nodes)
                                  if estimate_tokens(node.text) >= MIN_HIT_TOKENS
                                  and not heading_only(node, self.by_id))
        self.groups = {doc_id: contextual_group(units, self.context)
                       for doc_id, units in zip(self.doc_ids, per_document)}
        # Read from the cache when an earlier process (or another worker) built it: this
        # index was most of a worker's start on a corpus of hundreds of contracts.
        self.lexical = LexicalIndex([self.context.text(node) for node in self.nodes],
                                    stem_words=True, cache_dir=corpus.cache_dir)

    def opening(self, doc_id: str) -> Node | None:
        """The document's opening: its first unit that says something (title, parties and
        date, in a contract), if it starts within the first ``OPENING_START`` characters."""
        for position in self.rows.get(doc_id, range(0)):
            node = self.nodes[position]
            if node.start > OPENING_START:
                return None
            if position in self.rankable:
                return node
        return None

    @classmethod
    def of(cls, corpus: Corpus) -> UnitSpace:
        """The corpus's unit space, built on first use and shared after."""
        return corpus.derive(("unit-space",), lambda: cls(corpus))


class UnitVectors:
    """The vectors of a unit space's units under one embedder, filled per document."""

    def __init__(self, space: UnitSpace, embedder: Embedder, corpus: Corpus) -> None:
        self.space = space
        self.embedder = embedder
        self.cache_dir = corpus.cache_dir
        self.record_dir = corpus.vector_record
        self.progress = corpus.progress
        self.matrix: NDArray[np.float32] | None = None
        self.embedded: set[str] = set()
        self.windowed = 0

    @classmethod
    def of(cls, corpus: Corpus, embedder: Embedder) -> UnitVectors:
        """The vectors of the corpus's units under ``embedder``'s model and backend, shared
        by every strategy that uses the same ones."""
        space = UnitSpace.of(corpus)
        key = ("unit-vectors", str(embedder.folder), embedder.backend)
        vectors = corpus.derive(key, lambda: cls(space, embedder, corpus))
        if len(space.doc_ids) <= EAGER_DOCUMENTS:
            vectors.embed(space.doc_ids)
        return vectors

    def embed(self, doc_ids: Sequence[str]) -> None:
        """Vectors for the units of ``doc_ids`` (from the cache when built before)."""
        groups = self.space.groups
        missing = [d for d in doc_ids if d not in self.embedded and groups[d]]
        if not missing:
            return
        built = DenseIndex.build(self.embedder, [groups[d] for d in missing],
                                 self.cache_dir, progress=self.progress, what="units",
                                 record_dir=self.record_dir)
        if self.matrix is None:
            self.matrix = np.zeros((len(self.space.nodes), built.vectors.shape[1]),
                                   dtype=np.float32)
        row = 0
        for doc_id in missing:
            span = self.space.rows[doc_id]
            self.matrix[span.start:span.stop] = built.vectors[row:row + len(span)]
            row += len(span)
            self.embedded.add(doc_id)
        self.windowed += built.windowed

    def note(self) -> str:
        """How the vectors were made, for a retrieval's notes."""
        window = self.embedder.max_seq_length() if self.embedded else 0
        return (f"{self.windowed} of {len(self.space.nodes)} unit texts embedded in "
                f"{window}-token windows and mean-pooled; vectors for "
                f"{len(self.embedded)} of {len(self.space.doc_ids)} documents")
