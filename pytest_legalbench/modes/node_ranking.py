"""What the node-level navembed strategies do alike: rank the corpus's units (held once per
corpus by ``modes.unit_space``) and turn a ranking into provisions under the payload budget.

Each unit is embedded as its context line and its own words (children pooled in,
``vectors.dense_index``) and BM25-indexed as its context line and its whole text. On a large
corpus the vectors are built per document when a question first needs them: the routed
documents, or when the question names none, the documents holding the best BM25 units.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

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
    flag_boost,
    name_words,
    party_words,
    question_flags,
)
from pytest_legalbench.modes.traits import RETRIEVED
from pytest_legalbench.modes.unit_space import EAGER_DOCUMENTS, UnitSpace, UnitVectors
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.vectors.embedding import Embedder
from pytest_legalbench.vectors.query_vectors import QueryVectors
from pytest_legalbench.vectors.ranking import RRF_K, SCORE_PRECISION, ranked

_LETTER = re.compile(r"[^\W\d_]")

#: Documents embedded for a question that names none, on a large corpus.
SEARCHED_DOCUMENTS = 8
#: Ranked units offered to the budgeted selection.
POOL = 60
#: What each ranking counts for in reciprocal-rank fusion, by its name ("cosine": embedding
#: similarity, "words": BM25).
FUSION_WEIGHTS = {"cosine": 1.0, "words": 1.0}
#: Whether the rest of a routed party's name, written beside the words that routed the
#: question, leaves its word matching with them (``without_names``).
PARTY_NAMES_OUT = True


def without_names(question: str, route: Route) -> str:
    """``question`` without the words that routed it, and the rest of the party names they
    stand in, for word matching. BM25 weighs a name by its rarity in the corpus, yet inside
    the named documents every provision shares it: left in, it pulls up the openings,
    definitions and notice blocks that print it ("Western" routes a question about "Western
    Alliance Bank"; "Alliance" and "Bank" are generic name words that route nothing, yet
    print only where the bank is named). An embedding takes the name as one part of the
    meaning, so similarity keeps the question whole."""
    names = set(route.words)
    words = question.split()

    def routing(word: str) -> bool:
        # Read as the router read it ("NETGEAR's" names what "NETGEAR" names).
        parts = name_words(word)
        return bool(parts) and parts <= names

    def of_party(word: str) -> bool:
        # Written with a capital, as a name is; in lower case it is the question's subject
        # ("the bank's consent").
        first = _LETTER.search(word)
        written = party_words([word])
        return (PARTY_NAMES_OUT and first is not None and first[0].isupper()
                and bool(written) and written <= route.parties)

    dropped = [routing(word) for word in words]
    # A party's word leaves only with the name it belongs to: a run of such words holding a
    # routing word ("Landsea's Western Alliance Bank"). Alone it may be a term of the
    # agreement ("Required Lenders" beside a party "the Lenders party thereto").
    start = 0
    while start < len(words):
        end = start
        while end < len(words) and (dropped[end] or of_party(words[end])):
            end += 1
        if any(dropped[start:end]):
            dropped[start:end] = [True] * (end - start)
        start = end + 1
    kept = [word for word, out in zip(words, dropped) if not out]
    return " ".join(kept) if kept and len(kept) < len(words) else question


class NodeRanking:
    """A strategy over the corpus's shared units, vectors and BM25 index (``UnitSpace``,
    ``UnitVectors``); subclasses rank them."""

    strategy = ""
    traits = RETRIEVED

    def __init__(self, corpus: Corpus, settings: ModeSettings, embedder: Embedder) -> None:
        self.name = f"navembed:{self.strategy}"
        self.settings = settings
        self.embedder = embedder
        self.queries = QueryVectors(embedder, corpus.cache_dir, corpus.vector_record)
        space = UnitSpace.of(corpus)
        self.space = space
        self.context, self.by_id, self.router = space.context, space.by_id, space.router
        self.doc_ids, self.nodes, self.rows = space.doc_ids, space.nodes, space.rows
        self.labels, self.rankable, self.lexical = space.labels, space.rankable, space.lexical
        self.unit_vectors = UnitVectors.of(corpus, embedder)

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
        self.unit_vectors.embed(doc_ids)
        positions = [p for d in doc_ids for p in self.rows[d]]
        vectors = self.unit_vectors.matrix
        if not positions or vectors is None:
            return []
        query = self.queries.vector(question).astype(np.float64)
        scores = np.round(vectors[positions].astype(np.float64) @ query, SCORE_PRECISION)
        order = ranked([float(s) for s in scores], [self.labels[p] for p in positions])
        return [positions[i] for i in order]

    def by_words(self, question: str, route: Route) -> list[int]:
        """Every unit position by BM25 score against ``question`` without its routing names,
        best first."""
        return ranked(self.lexical.scores(without_names(question, route)), self.labels)

    def fuse(self, rankings: Sequence[tuple[str, Sequence[int]]], route: Route) -> list[int]:
        """Reciprocal-rank fusion of the named ``rankings`` (each weighted by
        ``FUSION_WEIGHTS``), each unit's score times its route weight; units no ranking
        reached are left out."""
        scores: dict[int, float] = {}
        for name, ranking in rankings:
            weight = FUSION_WEIGHTS[name]
            if not weight:
                continue
            for rank, position in enumerate(ranking[:POOL * 4], start=1):
                scores[position] = scores.get(position, 0.0) + weight / (RRF_K + rank)
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
        notes = [route.note(), *notes, self.unit_vectors.note(), chosen.note(budget)]
        return Retrieval(mode=self.name, provisions=provisions,
                         payload_tokens=payload_tokens(provisions), notes=tuple(notes))

    def limit(self) -> int | None:
        """Most ranked units taken (linked provisions aside); None: the budget decides."""
        return self.settings.k
