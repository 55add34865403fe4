"""navembed: provisions chosen by embedding similarity over index nodes, in six strategies.

- ``embed``: cosine top-k over node embeddings.
- ``embed+xref``: the ``embed`` hits, then the nodes they cross-reference and the provisions
  of amending documents that refer to them (under the payload budget).
- ``hybrid``: BM25 and cosine rankings fused by reciprocal rank (k=60), top-k.
- ``rerank``: the 40 best by cosine, re-scored by a cross-encoder, which keeps 10.
- ``titles``: a model picks from a titles-only listing (``titles.TitlesMode``).
- ``chunks``: the public fixed-chunk baseline (``chunks.ChunksMode``).

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
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.tokens import estimate_tokens
from pytest_legalbench.vectors.cross_encoder import Reranker
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

STRATEGIES = ("embed", "embed+xref", "hybrid", "rerank", "titles", "chunks")
#: The strategies ``NodeEmbeddingMode`` implements.
NODE_STRATEGIES = ("embed", "embed+xref", "hybrid", "rerank")


def build(strategy: str, corpus: Corpus, settings: ModeSettings,
          client: ModelClient | None) -> Mode:
    """Build the navembed ``strategy`` on ``corpus`` (embedding or loading cached vectors)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown navembed strategy {strategy!r}: choose one of "
                         f"{', '.join(STRATEGIES)}")
    name = f"navembed:{strategy}"
    if strategy == "titles":
        from pytest_legalbench.modes.titles import TitlesMode

        if client is None:
            raise ValueError(f"mode {name!r} calls a model: pass a ModelClient")
        return TitlesMode(corpus, settings, client)
    # The cross-encoder is checked first: an unavailable strategy should not embed anything.
    reranker = Reranker.load(settings.cross_encoder, name) if strategy == "rerank" else None
    try:
        embedder = Embedder(resolve_model_path(settings.embedding_model))
    except EmbeddingModelError as error:
        raise ModeUnavailable(name, str(error)) from error
    if strategy == "chunks":
        return ChunksMode(corpus, embedder)
    return NodeEmbeddingMode(strategy, corpus, settings, embedder, reranker)


class NodeEmbeddingMode:
    """The ``embed``, ``embed+xref``, ``hybrid`` and ``rerank`` strategies over index nodes."""

    def __init__(self, strategy: str, corpus: Corpus, settings: ModeSettings,
                 embedder: Embedder, reranker: Reranker | None = None) -> None:
        if strategy not in NODE_STRATEGIES:
            raise ValueError(f"{strategy!r} is not one of {', '.join(NODE_STRATEGIES)}")
        if strategy == "rerank" and reranker is None:
            raise ValueError("the rerank strategy needs a Reranker")
        self.strategy = strategy
        self.name = f"navembed:{strategy}"
        self.settings = settings
        self.reranker = reranker
        self.by_id = {node.node_id: node for index in corpus.indexes for node in index.nodes}
        self.amendments = AmendmentLinks(corpus.indexes)
        groups = [subtree_group(candidate_nodes([index])) for index in corpus.indexes]
        self.nodes = tuple(self.by_id[piece.label] for group in groups for piece in group)
        self.index = DenseIndex.build(embedder, groups, corpus.cache_dir,
                                      progress=corpus.progress, what="node texts")
        self.lexical = (LexicalIndex([node.text for node in self.nodes])
                        if strategy == "hybrid" else None)

    def retrieve(self, question: str, *, question_id: str | None = None) -> Retrieval:
        """The provisions this strategy puts before the answering model, best first."""
        ids = self.index.labels
        by_cosine = ranked([float(s) for s in self.index.cosine(question)], ids)
        notes = [windowed_note(self.index.windowed, len(ids), "node texts",
                               self.index.embedder.max_seq_length())]
        limit = self.settings.k
        if self.lexical is not None:
            by_words = ranked(self.lexical.scores(question), ids)
            order = fused([by_cosine, by_words], ids)
        elif self.reranker is not None:
            order, pool_note = self._reranked(self.reranker, question, by_cosine)
            notes.append(pool_note)
            limit = self.settings.rerank_keep
        else:
            order = by_cosine
        chosen, skipped = disjoint(order, self.nodes, limit)
        provisions = [Provision.from_node(self.nodes[i]) for i in chosen]
        if skipped:
            notes.append(f"{_count(skipped, 'candidate')} passed over for overlapping the text "
                         f"of a higher-ranked provision")
        if self.strategy == "embed+xref":
            added, note = self._references([self.nodes[i] for i in chosen])
            provisions.extend(Provision.from_node(node) for node in added)
            notes.append(note)
        result = tuple(provisions)
        return Retrieval(mode=self.name, provisions=result,
                         payload_tokens=payload_tokens(result), notes=tuple(notes))

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


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
