"""Deterministic ordering of scored candidates: fixed precision, ties by id, fusion, and
choosing provisions that do not repeat each other's text."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pytest_legalbench.navindex.node import DocumentIndex, Node

#: Decimal places scores are rounded to before ties are broken by node id, so that float
#: noise between machines cannot reorder provisions.
SCORE_PRECISION = 6

#: The constant of reciprocal-rank fusion: a candidate at rank r (from 1) earns 1 / (k + r).
RRF_K = 60

#: Node kinds never offered as provisions: the whole document (that is inject) and the
#: table of contents (it names provisions without holding them).
EXCLUDED_KINDS = frozenset({"document", "toc", "toc_entry"})


def candidate_nodes(indexes: Iterable[DocumentIndex]) -> tuple[Node, ...]:
    """Nodes a node-level strategy may return, in document order."""
    return tuple(node for index in indexes for node in index.nodes
                 if node.kind not in EXCLUDED_KINDS and not node.flags.is_toc_entry)


def ranked(scores: Sequence[float], ids: Sequence[str]) -> list[int]:
    """Positions by score (rounded to the fixed precision) descending, ties by id ascending."""
    if len(scores) != len(ids):
        raise ValueError(f"{len(scores)} scores for {len(ids)} ids")
    return sorted(range(len(ids)), key=lambda i: (-round(float(scores[i]), SCORE_PRECISION),
                                                  ids[i]))


def fused(rankings: Sequence[Sequence[int]], ids: Sequence[str], k: int = RRF_K) -> list[int]:
    """Reciprocal-rank fusion of several rankings of the same positions, as a ranking."""
    scores = [0.0] * len(ids)
    for ranking in rankings:
        for rank, position in enumerate(ranking, start=1):
            scores[position] += 1.0 / (k + rank)
    return ranked(scores, ids)


def disjoint(order: Iterable[int], nodes: Sequence[Node], limit: int,
             taken: Sequence[Node] = ()) -> tuple[list[int], int]:
    """The first ``limit`` positions of ``order`` whose text overlaps no earlier choice (nor
    ``taken``), and how many were passed over for overlapping.

    A node's text is its whole subtree, so a section and its own subclause would put the
    subclause's words in the context twice; the higher-ranked of the two is kept.
    """
    chosen: list[int] = []
    spans = [(n.doc_id, n.start, n.end) for n in taken]
    skipped = 0
    for position in order:
        if len(chosen) >= limit:
            break
        node = nodes[position]
        if any(doc == node.doc_id and start < node.end and node.start < end
               for doc, start, end in spans):
            skipped += 1
            continue
        chosen.append(position)
        spans.append((node.doc_id, node.start, node.end))
    return chosen, skipped
