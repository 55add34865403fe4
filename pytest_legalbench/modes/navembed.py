"""navembed: provisions chosen by embedding similarity over index nodes, in six strategies.

- ``embed``: cosine top-k over node embeddings.
- ``embed+xref``: the ``embed`` hits, then the nodes they cross-reference and the provisions
  of amending documents that refer to them (under the payload budget).
- ``hybrid``: BM25 and cosine rankings fused by reciprocal rank (k=60), top-k.
- ``rerank``: the 40 best by cosine, re-scored by a cross-encoder, which keeps 10.
- ``titles``: a model picks from a titles-only listing (``titles.TitlesMode``).
- ``chunks``: the public fixed-chunk baseline (``chunks.ChunksMode``).

Each node-level strategy is one class over ``NodeRanking``, which holds what they share.

Every node-level strategy returns provisions whose texts do not overlap: a node's text is its
whole subtree, so once a node is chosen its ancestors and descendants are passed over.
Scores are compared at a fixed precision and ties go to the smaller node id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pytest_legalbench.modes.amendments import AmendmentLinks
from pytest_legalbench.modes.base import (
    Corpus,
    Mode,
    ModeSettings,
    ModeUnavailable,
    Provision,
    Retrieval,
    payload_tokens,
)
from pytest_legalbench.modes.chunks import ChunksMode, windowed_note
from pytest_legalbench.modes.names import NAVEMBED_STRATEGIES
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.tokens import estimate_tokens
from pytest_legalbench.vectors.cross_encoder import CrossEncoderUnavailable, Reranker
from pytest_legalbench.vectors.dense_index import DenseIndex, subtree_group
from pytest_legalbench.vectors.embedding import Embedder, EmbeddingModelError, resolve_model_path
from pytest_legalbench.vectors.lexical_index import LexicalIndex
from pytest_legalbench.vectors.ranking import (
    EXCLUDED_KINDS,
    candidate_nodes,
    disjoint,
    fused,
    ranked,
)

if TYPE_CHECKING:
    from pytest_legalbench.llm.client import ModelClient

def build(strategy: str, corpus: Corpus, settings: ModeSettings,
          client: ModelClient | None) -> Mode:
    """Build the navembed ``strategy`` on ``corpus`` (embedding or loading cached vectors)."""
    if strategy not in NAVEMBED_STRATEGIES:
        raise ValueError(f"unknown navembed strategy {strategy!r}: choose one of "
                         f"{', '.join(NAVEMBED_STRATEGIES)}")
    name = f"navembed:{strategy}"
    if strategy == "titles":
        from pytest_legalbench.modes.titles import TitlesMode

        if client is None:
            raise ValueError(f"mode {name!r} calls a model: pass a ModelClient")
        return TitlesMode(corpus, settings, client)
    # The cross-encoder is checked first: an unavailable strategy should not embed anything.
    reranker = None
    if strategy == "rerank":
        try:
            reranker = Reranker.load(settings.cross_encoder)
        except CrossEncoderUnavailable as error:
            raise ModeUnavailable(name, error.reason) from None
    try:
        embedder = Embedder(resolve_model_path(settings.embedding_model))
    except EmbeddingModelError as error:
        raise ModeUnavailable(name, str(error)) from error
    if strategy == "chunks":
        return ChunksMode(corpus, embedder)
    if reranker is not None:
        return RerankMode(corpus, settings, embedder, reranker)
    return NODE_MODES[strategy](corpus, settings, embedder)


class NodeRanking:
    """What the node-level strategies share: the candidate nodes, their vectors (built or read
    from the cache), and turning a ranking into disjoint provisions."""

    strategy = ""

    def __init__(self, corpus: Corpus, settings: ModeSettings, embedder: Embedder) -> None:
        self.name = f"navembed:{self.strategy}"
        self.settings = settings
        self.by_id = {node.node_id: node for index in corpus.indexes for node in index.nodes}
        groups = [subtree_group(candidate_nodes([index])) for index in corpus.indexes]
        self.nodes = tuple(self.by_id[piece.label] for group in groups for piece in group)
        self.index = DenseIndex.build(embedder, groups, corpus.cache_dir,
                                      progress=corpus.progress, what="node texts")

    def by_cosine(self, question: str) -> list[int]:
        """Candidate positions by cosine similarity to ``question``, best first."""
        return ranked([float(s) for s in self.index.cosine(question)], self.index.labels)

    def order(self, question: str) -> tuple[list[int], int, list[str]]:
        """The strategy's ranking, how many provisions to keep, and notes on how it ranked."""
        return self.by_cosine(question), self.settings.k, []

    def extend(self, chosen: Sequence[Node]) -> tuple[list[Node], list[str]]:
        """Provisions a strategy adds after its ranked choice, and notes on them."""
        return [], []

    def retrieve(self, question: str, *, question_id: str | None = None) -> Retrieval:
        """The provisions this strategy puts before the answering model, best first."""
        order, limit, strategy_notes = self.order(question)
        notes = [windowed_note(self.index.windowed, len(self.index.labels), "node texts",
                               self.index.embedder.max_seq_length()), *strategy_notes]
        chosen, skipped = disjoint(order, self.nodes, limit)
        picked = [self.nodes[i] for i in chosen]
        if skipped:
            notes.append(f"{_count(skipped, 'candidate')} passed over for overlapping the text "
                         f"of a higher-ranked provision")
        added, added_notes = self.extend(picked)
        notes.extend(added_notes)
        result = tuple(Provision.from_node(node) for node in (*picked, *added))
        return Retrieval(mode=self.name, provisions=result,
                         payload_tokens=payload_tokens(result), notes=tuple(notes))


class EmbedMode(NodeRanking):
    """``embed``: cosine top-k over node embeddings."""

    strategy = "embed"


class HybridMode(NodeRanking):
    """``hybrid``: BM25 and cosine rankings fused by reciprocal rank, top-k."""

    strategy = "hybrid"

    def __init__(self, corpus: Corpus, settings: ModeSettings, embedder: Embedder) -> None:
        super().__init__(corpus, settings, embedder)
        self.lexical = LexicalIndex([node.text for node in self.nodes])

    def order(self, question: str) -> tuple[list[int], int, list[str]]:
        """Cosine and BM25 rankings fused."""
        ids = self.index.labels
        by_words = ranked(self.lexical.scores(question), ids)
        return fused([self.by_cosine(question), by_words], ids), self.settings.k, []


class RerankMode(NodeRanking):
    """``rerank``: the best by cosine, re-scored by a cross-encoder, which keeps the best."""

    strategy = "rerank"

    def __init__(self, corpus: Corpus, settings: ModeSettings, embedder: Embedder,
                 reranker: Reranker) -> None:
        super().__init__(corpus, settings, embedder)
        self.reranker = reranker

    def order(self, question: str) -> tuple[list[int], int, list[str]]:
        """The cosine pool re-ordered by the cross-encoder."""
        order, note = self._reranked(self.reranker, question, self.by_cosine(question))
        return order, self.settings.rerank_keep, [note]

    def _reranked(self, reranker: Reranker, question: str,
                  by_cosine: list[int]) -> tuple[list[int], str]:
        """The cosine pool re-ordered by the cross-encoder, and a note on what it read."""
        pool, _ = disjoint(by_cosine, self.nodes, self.settings.rerank_pool)
        texts = [self.nodes[i].text for i in pool]
        scores = reranker.scores(question, texts)
        order = [pool[i] for i in ranked(scores, [self.nodes[i].node_id for i in pool])]
        long_pairs = reranker.over_length(question, texts)
        note = (f"cross-encoder {reranker.folder.name} re-scored {len(pool)} candidates; "
                f"{long_pairs} of them were longer than its {reranker.max_tokens}-token "
                f"input and were scored on their opening")
        return order, note


class EmbedXrefMode(NodeRanking):
    """``embed+xref``: the ``embed`` hits, then the nodes they cross-reference and the
    provisions of amending documents that refer to them (under the payload budget)."""

    strategy = "embed+xref"

    def __init__(self, corpus: Corpus, settings: ModeSettings, embedder: Embedder) -> None:
        super().__init__(corpus, settings, embedder)
        self.amendments = AmendmentLinks(corpus.indexes)

    def extend(self, chosen: Sequence[Node]) -> tuple[list[Node], list[str]]:
        """The nodes the hits cite and the amending provisions that cite them."""
        added, note = self._references(chosen)
        return added, [note]

    def _cited(self, hit: Node) -> list[str]:
        """Ids the hit's text cross-references (its own and its descendants' references, in
        document order: a node's text is its whole subtree), then the provisions of amending
        documents that refer to it."""
        cited: list[str] = []
        stack = [hit]
        while stack:
            node = stack.pop()
            cited.extend(node.cross_references)
            stack.extend(self.by_id[c] for c in reversed(node.children) if c in self.by_id)
        cited.extend(self.amendments.amending(hit))
        return list(dict.fromkeys(cited))

    def _references(self, hits: Sequence[Node]) -> tuple[list[Node], str]:
        """The nodes the hits cross-reference, in hit order, within the payload budget."""
        budget = self.settings.payload_budget_tokens
        added: list[Node] = []
        spent = 0
        over_budget = 0
        for hit in hits:
            for target_id in self._cited(hit):
                target = self.by_id.get(target_id)
                if target is None or target.kind in EXCLUDED_KINDS or target.flags.is_toc_entry:
                    continue
                if not disjoint([0], [target], 1, taken=[*hits, *added])[0]:
                    continue
                cost = estimate_tokens(target.text)
                if spent + cost > budget:
                    over_budget += 1
                    continue
                added.append(target)
                spent += cost
        note = f"added {_count(len(added), 'cross-referenced node')} ({spent} tokens)"
        if over_budget:
            note += (f"; {over_budget} more left out over the {budget}-token "
                     f"cross-reference budget")
        return added, note



#: The node-level strategies by name (``rerank`` needs its cross-encoder too).
NODE_MODES: dict[str, type[NodeRanking]] = {"embed": EmbedMode, "embed+xref": EmbedXrefMode,
                                           "hybrid": HybridMode}


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
