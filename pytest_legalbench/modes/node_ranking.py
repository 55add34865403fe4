"""What the node-level navembed strategies share: units, their vectors and words, routing,
and turning a ranking into provisions under the payload budget.

Units and their context lines come from ``modes.units``; each unit is embedded as its context
line and its own words (children pooled in, ``vectors.dense_index``) and BM25-indexed as its
context line and its whole text. On a corpus of more than ``EAGER_DOCUMENTS`` documents the
vectors are built per document when a question first needs them: the routed documents, or
when the question names none, the documents holding the best BM25 units. A user with a few
hundred contracts gets a first answer without embedding all of them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from pytest_legalbench.modes.base import (
    Corpus,
    ModeSettings,
    Provision,
    Retrieval,
    payload_tokens,
)
from pytest_legalbench.modes.budget import choose, rank_value
from pytest_legalbench.modes.closure import Closure
from pytest_legalbench.modes.routing import (
    Route,
    Router,
    flag_boost,
    name_words,
    question_flags,
)
from pytest_legalbench.modes.units import UnitContext, heading_only, unit_nodes
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.tokens import estimate_tokens
from pytest_legalbench.vectors.dense_index import DenseIndex, Piece, subtree_group
from pytest_legalbench.vectors.embedding import Embedder
from pytest_legalbench.vectors.lexical_index import LexicalIndex
from pytest_legalbench.vectors.query_vectors import QueryVectors
from pytest_legalbench.vectors.ranking import RRF_K, SCORE_PRECISION, ranked

#: Corpora up to this many documents are embedded whole when the mode is built.
EAGER_DOCUMENTS = 40
#: Documents embedded for a question that names none, on a large corpus.
SEARCHED_DOCUMENTS = 8
#: Ranked units offered to the budgeted selection.
POOL = 60
#: Units with fewer tokens of their own (context line aside) are headings, never hits; they
#: still come in as the lead-in of a clause that is taken.
MIN_HIT_TOKENS = 8


def without_names(question: str, route: Route) -> str:
    """``question`` without the words that routed it, for word matching. BM25 weighs a name
    by its rarity in the corpus, yet inside the named documents every provision shares it:
    left in, it pulls up the openings and notice blocks that print it. An embedding takes
    the name as one part of the meaning, so similarity keeps the question whole."""
    names = set(route.words)

    def naming(word: str) -> bool:
        # Read as the router read it ("NETGEAR's" names what "NETGEAR" names).
        parts = name_words(word)
        return bool(parts) and parts <= names

    kept = [word for word in question.split() if not naming(word)]
    return " ".join(kept) if kept and len(kept) < len(question.split()) else question


def contextual_group(nodes: Sequence[Node], context: UnitContext) -> list[Piece]:
    """One document's pieces: each unit's context line and own words, children pooled."""
    return [Piece(p.label, f"{context.line(context.by_id[p.label])}\n{p.own_text}".strip(),
                  p.children) for p in subtree_group(nodes)]


class NodeRanking:
    """Units of a corpus with their vectors and BM25 index; subclasses rank them."""

    strategy = ""

    def __init__(self, corpus: Corpus, settings: ModeSettings, embedder: Embedder) -> None:
        self.name = f"navembed:{self.strategy}"
        self.settings = settings
        self.embedder = embedder
        self.cache_dir = corpus.cache_dir
        self.record_dir = corpus.vector_record
        self.progress = corpus.progress
        self.queries = QueryVectors(embedder, corpus.cache_dir, corpus.vector_record)
        self.context = UnitContext(corpus.indexes)
        self.by_id = self.context.by_id
        self.router = Router.of_corpus(corpus.indexes, corpus.documents)
        per_document = [unit_nodes(index) for index in corpus.indexes]
        self.doc_ids = tuple(index.doc_id for index in corpus.indexes)
        self.nodes = tuple(node for units in per_document for node in units)
        self.rows = {d: range(0) for d in self.doc_ids}
        start = 0
        for doc_id, units in zip(self.doc_ids, per_document):
            self.rows[doc_id] = range(start, start + len(units))
            start += len(units)
        self.labels = tuple(node.node_id for node in self.nodes)
        self.rankable = frozenset(p for p, node in enumerate(self.nodes)
                                  if estimate_tokens(node.text) >= MIN_HIT_TOKENS
                                  and not heading_only(node, self.by_id))
        self._groups = {doc_id: contextual_group(units, self.context)
                        for doc_id, units in zip(self.doc_ids, per_document)}
        self.lexical = LexicalIndex([self.context.text(node) for node in self.nodes],
                                    stem_words=True)
        self.vectors: NDArray[np.float32] | None = None
        self.embedded: set[str] = set()
        self.windowed = 0
        if len(self.doc_ids) <= EAGER_DOCUMENTS:
            self._embed(self.doc_ids)

    def _embed(self, doc_ids: Sequence[str]) -> None:
        """Vectors for the units of ``doc_ids`` (from the cache when built before)."""
        missing = [d for d in doc_ids if d not in self.embedded and self._groups[d]]
        if not missing:
            return
        built = DenseIndex.build(self.embedder, [self._groups[d] for d in missing],
                                 self.cache_dir, progress=self.progress, what="units",
                                 record_dir=self.record_dir)
        if self.vectors is None:
            self.vectors = np.zeros((len(self.nodes), built.vectors.shape[1]), dtype=np.float32)
        row = 0
        for doc_id in missing:
            span = self.rows[doc_id]
            self.vectors[span.start:span.stop] = built.vectors[row:row + len(span)]
            row += len(span)
            self.embedded.add(doc_id)
        self.windowed += built.windowed

    def searched(self, route: Route, by_words: Sequence[int]) -> list[str]:
        """The documents whose units are ranked by similarity for this question."""
        if len(self.doc_ids) <= EAGER_DOCUMENTS:
            return list(self.doc_ids)
        if route.routed:
            return list(route.documents())
        chosen: list[str] = []
        for position in by_words:
            doc_id = self.nodes[position].doc_id
            if doc_id not in chosen:
                chosen.append(doc_id)
            if len(chosen) >= SEARCHED_DOCUMENTS:
                break
        return chosen

    def by_cosine(self, question: str, doc_ids: Sequence[str]) -> list[int]:
        """Unit positions of ``doc_ids`` by cosine similarity to ``question``, best first."""
        self._embed(doc_ids)
        positions = [p for d in doc_ids for p in self.rows[d]]
        if not positions or self.vectors is None:
            return []
        query = self.queries.vector(question).astype(np.float64)
        scores = np.round(self.vectors[positions].astype(np.float64) @ query, SCORE_PRECISION)
        order = ranked([float(s) for s in scores], [self.labels[p] for p in positions])
        return [positions[i] for i in order]

    def by_words(self, question: str, route: Route) -> list[int]:
        """Every unit position by BM25 score against ``question`` without its routing names,
        best first."""
        return ranked(self.lexical.scores(without_names(question, route)), self.labels)

    def fuse(self, rankings: Sequence[Sequence[int]], route: Route) -> list[int]:
        """Reciprocal-rank fusion of ``rankings``, each unit's score times its route weight;
        units no ranking reached are left out."""
        scores: dict[int, float] = {}
        for ranking in rankings:
            for rank, position in enumerate(ranking[:POOL * 4], start=1):
                scores[position] = scores.get(position, 0.0) + 1.0 / (RRF_K + rank)
        weighted = {p: s * route.weight(self.nodes[p].doc_id) for p, s in scores.items()
                    if p in self.rankable}
        return sorted(weighted, key=lambda p: (-round(weighted[p], SCORE_PRECISION + 3),
                                               self.labels[p]))

    def order(self, question: str, route: Route) -> tuple[list[int], list[str]]:
        """The strategy's ranking of unit positions and notes on how it ranked."""
        raise NotImplementedError

    def hits(self, question: str, order: Sequence[int]) -> list[tuple[Node, float]]:
        """The ranked units offered to the selection, with their values."""
        return [(self.nodes[p], rank_value(rank))
                for rank, p in enumerate(order[:POOL], start=1)]

    def closure(self) -> Closure | None:
        """The links the selection follows (None: ranked units only)."""
        return None

    def asked(self, question: str) -> frozenset[str]:
        """Definitions whose term the question uses (for the closure's links)."""
        return frozenset()

    def retrieve(self, question: str, *, question_id: str | None = None) -> Retrieval:
        """The provisions this strategy puts before the answering model, most valuable first,
        within the payload budget."""
        route = self.router.route(question)
        order, notes = self.order(question, route)
        budget = self.settings.payload_budget_tokens
        flags = question_flags(question)
        words = dict(zip(self.labels, self.lexical.scores(without_names(question, route))))
        chosen = choose(self.hits(question, order), budget, self.by_id,
                        closure=self.closure(), asked=self.asked(question),
                        limit=self.limit(), boost=lambda node: flag_boost(node, flags),
                        relevance=lambda node: words.get(node.node_id, 0.0))
        provisions = tuple(Provision.from_node(node, self.context.line(node))
                           for node in chosen.nodes)
        notes = [route.note(), *notes, self._windowed_note(), chosen.note(budget)]
        return Retrieval(mode=self.name, provisions=provisions,
                         payload_tokens=payload_tokens(provisions), notes=tuple(notes))

    def limit(self) -> int | None:
        """Most ranked units taken (linked provisions aside); None: the budget decides."""
        return self.settings.k

    def _windowed_note(self) -> str:
        window = self.embedder.max_seq_length() if self.embedded else 0
        return (f"{self.windowed} of {len(self.nodes)} unit texts embedded in "
                f"{window}-token windows and mean-pooled; vectors for "
                f"{len(self.embedded)} of {len(self.doc_ids)} documents")
