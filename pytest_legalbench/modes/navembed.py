"""navembed: provisions chosen by similarity over index units, in seven strategies.

- ``embed``: cosine similarity of unit embeddings.
- ``hybrid``: BM25 and cosine rankings fused by reciprocal rank (k=60).
- ``rerank``: the best by cosine, re-scored by a cross-encoder, which keeps the best.
- ``embed+xref``: the ``embed`` hits, then the clauses they refer to and the amending
  provisions that change them.
- ``closure``: the ``hybrid`` hits and the definitions the question names, each with what it
  needs to be read correctly: amendments and the base provisions they change, the
  definitions it uses, the clauses it refers to, its parent's lead-in (``modes.closure``).
- ``titles``: a model picks from a titles-only listing (``titles.TitlesMode``).
- ``chunks``: the public fixed-chunk baseline (``chunks.ChunksMode``).

Every node-level strategy ranks the units of ``modes.units`` (leaves and small subtrees,
each read with its document title and heading path), routes the question to the documents
it names (``modes.routing``), and chooses provisions by value under the payload budget
(``modes.budget``), a hard maximum; no two provisions repeat each other's text. Each is one
class over ``node_ranking.NodeRanking``. ``STRATEGIES`` is the one table of the seven: name ->
how its mode is built.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.modes.base import Corpus, Mode, ModeSettings, ModeUnavailable
from pytest_legalbench.modes.budget import rank_value
from pytest_legalbench.modes.chunks import ChunksMode
from pytest_legalbench.modes.closure import Closure
from pytest_legalbench.modes.names import NAVEMBED_STRATEGIES
from pytest_legalbench.modes.node_ranking import POOL, NodeRanking
from pytest_legalbench.modes.routing import Route, asks_about_instrument
from pytest_legalbench.modes.titles import TitlesMode
from pytest_legalbench.modes.units import named_definitions
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.vectors.cross_encoder import CrossEncoderUnavailable, Reranker
from pytest_legalbench.vectors.embedding import Embedder, EmbeddingModelError, resolve_model_path
from pytest_legalbench.vectors.ranking import ranked

#: What the opening of an instrument the question names is worth as a hit, when the question
#: asks who made it, when or under what name (a ranked hit's value falls from 1).
OPENING_VALUE = 0.8

#: Builds one strategy's mode from the corpus, the settings, the embedder (loaded when called,
#: so a strategy that embeds nothing never loads one) and the client.
Builder = Callable[[Corpus, ModeSettings, Callable[[], Embedder], ModelClient | None], Mode]


def build(strategy: str, corpus: Corpus, settings: ModeSettings,
          client: ModelClient | None) -> Mode:
    """Build the navembed ``strategy`` on ``corpus`` (embedding or loading cached vectors)."""
    builder = STRATEGIES.get(strategy)
    if builder is None:
        raise ValueError(f"unknown navembed strategy {strategy!r}: choose one of "
                         f"{', '.join(STRATEGIES)}")
    name = f"navembed:{strategy}"

    def embedder() -> Embedder:
        try:
            return Embedder(resolve_model_path(settings.embedding_model),
                            settings.embedding_backend, corpus.cache_dir)
        except EmbeddingModelError as error:
            raise ModeUnavailable(name, str(error)) from error

    return builder(corpus, settings, embedder, client)


class EmbedMode(NodeRanking):
    """``embed``: units by cosine similarity."""

    strategy = "embed"

    def order(self, question: str, route: Route) -> tuple[list[int], list[str]]:
        """Cosine ranking of the searched documents' units, weighted by the route."""
        searched = self.searched(route, self.by_words(question, route)
                                 if not route.routed else [])
        return self.fuse([("cosine", self.by_cosine(question, searched))], route), []


class HybridMode(NodeRanking):
    """``hybrid``: BM25 and cosine rankings fused by reciprocal rank."""

    strategy = "hybrid"

    def order(self, question: str, route: Route) -> tuple[list[int], list[str]]:
        """Cosine and BM25 rankings fused, weighted by the route."""
        words = self.by_words(question, route)
        cosine = self.by_cosine(question, self.searched(route, words))
        return self.fuse([("cosine", cosine), ("words", words)], route), []


class RerankMode(NodeRanking):
    """``rerank``: the best by cosine, re-scored by a cross-encoder, which keeps the best."""

    strategy = "rerank"

    def __init__(self, corpus: Corpus, settings: ModeSettings, embedder: Embedder,
                 reranker: Reranker) -> None:
        super().__init__(corpus, settings, embedder)
        self.reranker = reranker

    def order(self, question: str, route: Route) -> tuple[list[int], list[str]]:
        """The cosine pool re-ordered by the cross-encoder."""
        searched = self.searched(route, self.by_words(question, route) if not route.routed else [])
        pool = self.fuse([("cosine", self.by_cosine(question, searched))],
                         route)[:self.settings.rerank_pool]
        texts = [self.context.text(self.nodes[i]) for i in pool]
        scores = self.reranker.scores(question, texts)
        order = [pool[i] for i in ranked(scores, [self.labels[i] for i in pool])]
        long_pairs = self.reranker.over_length(question, texts)
        note = (f"cross-encoder {self.reranker.folder.name} re-scored {len(pool)} candidates; "
                f"{long_pairs} of them were longer than its {self.reranker.max_tokens}-token "
                f"input and were scored on their opening")
        return order, [note]

    def limit(self) -> int | None:
        """The cross-encoder keeps ``rerank_keep`` units."""
        return self.settings.rerank_keep


class EmbedXrefMode(EmbedMode):
    """``embed+xref``: the ``embed`` hits, then the clauses they refer to and the amending
    provisions that change them (under the payload budget)."""

    strategy = "embed+xref"

    def __init__(self, corpus: Corpus, settings: ModeSettings, embedder: Embedder) -> None:
        super().__init__(corpus, settings, embedder)
        self._closure = Closure(corpus.indexes, kinds=("amendment", "base", "reference"))

    def closure(self) -> Closure | None:
        """References and amendments only."""
        return self._closure


class ClosureMode(HybridMode):
    """``closure``: the hybrid hits and the definitions the question names, each with what
    it needs to be read; the budget, not ``k``, decides how many."""

    strategy = "closure"
    #: Whether a definition of a term the question writes is offered as the best hit (it is
    #: what a question about the term asks for, even when no ranked clause uses the term).
    named_definitions_first = True
    #: What the opening of a named instrument is worth as a hit when the question asks who
    #: made the instrument, when or under what name (0: never offered for that).
    opening_value = OPENING_VALUE

    def __init__(self, corpus: Corpus, settings: ModeSettings, embedder: Embedder) -> None:
        super().__init__(corpus, settings, embedder)
        self._closure = Closure(corpus.indexes,
                                definitions_per_node=settings.definitions_per_node)
        self._definitions = [n for n in self.nodes if n.kind == "definition"]

    def closure(self) -> Closure | None:
        """Every kind of link."""
        return self._closure

    def asked(self, question: str) -> frozenset[str]:
        """The definitions of terms the question writes."""
        return frozenset(n.node_id for n in named_definitions(question, self._definitions))

    def hits(self, question: str, order: Sequence[int]) -> list[tuple[Node, float]]:
        """The named definitions as the best hits, then the ranked units."""
        route = self.router.route(question)
        named = [(node, 1.0) for node in named_definitions(question, self._definitions)
                 if route.weight(node.doc_id) == 1.0] if self.named_definitions_first else []
        return [*named, *self.openings(question, route), *super().hits(question, order)][:POOL]

    def openings(self, question: str, route: Route) -> list[tuple[Node, float]]:
        """The opening unit of each routed document, when the question asks about the
        instruments themselves; the first family's full ``opening_value``, later families
        less, as ranked hits fall."""
        if not self.opening_value or not route.routed or not asks_about_instrument(question):
            return []
        found = []
        for rank, family in enumerate(route.families, start=1):
            for doc_id in family:
                unit = self.space.opening(doc_id)
                if unit is not None:
                    found.append((unit, self.opening_value * rank_value(rank)))
        return found

    def limit(self) -> int | None:
        """No cap on hits: value and the budget decide."""
        return None


def _ranked_by(kind: type[NodeRanking]) -> Builder:
    """The builder of a node-level strategy: ``kind`` over the embedded units."""
    def build_ranking(corpus: Corpus, settings: ModeSettings, embedder: Callable[[], Embedder],
                      client: ModelClient | None) -> Mode:
        return kind(corpus, settings, embedder())

    return build_ranking


def _rerank(corpus: Corpus, settings: ModeSettings, embedder: Callable[[], Embedder],
            client: ModelClient | None) -> Mode:
    # The cross-encoder is loaded first: an unavailable strategy should not embed anything.
    try:
        reranker = Reranker.load(settings.cross_encoder)
    except CrossEncoderUnavailable as error:
        raise ModeUnavailable(f"navembed:{RerankMode.strategy}", error.reason) from None
    return RerankMode(corpus, settings, embedder(), reranker)


def _titles(corpus: Corpus, settings: ModeSettings, embedder: Callable[[], Embedder],
            client: ModelClient | None) -> Mode:
    if client is None:
        raise ValueError(f"mode {TitlesMode.name!r} calls a model: pass a ModelClient")
    return TitlesMode(corpus, settings, client)


def _chunks(corpus: Corpus, settings: ModeSettings, embedder: Callable[[], Embedder],
            client: ModelClient | None) -> Mode:
    return ChunksMode(corpus, embedder(), settings.payload_budget_tokens)


#: Every navembed strategy by name, in the order help texts list them: the one table of them.
STRATEGIES: dict[str, Builder] = {
    "embed": _ranked_by(EmbedMode), "embed+xref": _ranked_by(EmbedXrefMode),
    "hybrid": _ranked_by(HybridMode), "closure": _ranked_by(ClosureMode), "rerank": _rerank,
    "titles": _titles, "chunks": _chunks}

if tuple(STRATEGIES) != NAVEMBED_STRATEGIES:
    # ``modes.names`` spells the names out so that parsing a mode name imports no mode; it
    # must spell this table's, in this order.
    raise ImportError(f"modes.names.NAVEMBED_STRATEGIES {NAVEMBED_STRATEGIES} differs from "
                      f"the strategies navembed builds {tuple(STRATEGIES)}")
