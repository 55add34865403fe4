"""Model-free retrieval metrics: did the provisions hold the evidence, and at what payload.

- Evidence recall: the share of a question's quotes found in what was retrieved. Provisions
  of one document are joined in document order, and spans separated only by whitespace count
  as one run, so a quote that crosses from one retrieved node into the next is found; case
  and whitespace are ignored.
- Oracle tokens: what the smallest structural payload holding every quote would cost. Per
  quote, the cheaper of the smallest node containing it and the run of leaf nodes it
  crosses; nodes nested in another chosen node are not counted twice. The oracle ratio,
  payload tokens over oracle tokens, is 1.0 at the physical limit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pytest_legalbench.ingest.questions import Evidence
from pytest_legalbench.navindex.node import DocumentIndex, Node
from pytest_legalbench.tokens import estimate_tokens

_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """Lower-case ``text`` and collapse every whitespace run to one space."""
    return _SPACE.sub(" ", text).strip().lower()


@dataclass(frozen=True)
class Span:
    """A retrieved stretch of one document: ``text[start:end]``."""

    doc_id: str
    start: int
    end: int


def run_bounds(spans: Iterable[Span],
               texts: Mapping[str, str]) -> dict[str, list[tuple[int, int]]]:
    """Per document, the (start, end) of each maximal run of retrieved spans (spans that
    overlap or are separated only by whitespace merge into one run), in text order."""
    by_document: dict[str, list[tuple[int, int]]] = {}
    for span in spans:
        if span.end > span.start:
            by_document.setdefault(span.doc_id, []).append((span.start, span.end))
    runs: dict[str, list[tuple[int, int]]] = {}
    for doc_id, intervals in by_document.items():
        text = texts.get(doc_id)
        if text is None:
            raise KeyError(f"retrieved span of {doc_id!r}, a document not in the corpus")
        merged: list[list[int]] = []
        for start, end in sorted(intervals):
            if merged and not text[merged[-1][1]:start].strip():
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        runs[doc_id] = [(start, end) for start, end in merged]
    return runs


def covered_runs(spans: Iterable[Span], texts: Mapping[str, str]) -> dict[str, list[str]]:
    """Per document, the normalised text of each maximal run of retrieved spans (see
    ``run_bounds``)."""
    return {doc_id: [normalise(texts[doc_id][start:end]) for start, end in bounds]
            for doc_id, bounds in run_bounds(spans, texts).items()}


def quote_found(evidence: Evidence, runs: Mapping[str, Sequence[str]]) -> bool:
    """Whether the quote lies inside one retrieved run of its own document."""
    quote = normalise(evidence.quote)
    return any(quote in run for run in runs.get(evidence.doc_id, ()))


def evidence_recall(evidence: Sequence[Evidence], spans: Iterable[Span],
                    texts: Mapping[str, str]) -> float | None:
    """The share of quotes found in the retrieved spans; None when there are no quotes."""
    if not evidence:
        return None
    runs = covered_runs(spans, texts)
    return sum(quote_found(e, runs) for e in evidence) / len(evidence)


class EvidenceNotFound(ValueError):
    """A quote that is not in its document's text; the question set is wrong."""


def quote_spans(evidence: Evidence, text: str) -> list[tuple[int, int]]:
    """Every place the quote occurs in ``text``, matching any whitespace run to any other."""
    words = evidence.quote.split()
    if not words:
        return []
    pattern = re.compile(r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)
    return [(m.start(), m.end()) for m in pattern.finditer(text)]


def oracle_nodes(evidence: Sequence[Evidence], indexes: Mapping[str, DocumentIndex],
                 texts: Mapping[str, str]) -> tuple[Node, ...]:
    """The smallest set of nodes found holding every quote, in document order."""
    chosen: dict[str, Node] = {}
    for item in evidence:
        index = indexes.get(item.doc_id)
        places = quote_spans(item, texts.get(item.doc_id, ""))
        if index is None or not places:
            raise EvidenceNotFound(f"quote not found in {item.doc_id!r}: "
                                   f"{item.quote[:60]!r}")
        options = [_cheapest_cover(index, start, end) for start, end in places]
        for node in min(options, key=lambda nodes: sum(estimate_tokens(n.text) for n in nodes)):
            chosen[node.node_id] = node
    outermost = [n for n in chosen.values()
                 if not any(o is not n and o.doc_id == n.doc_id and o.start <= n.start
                            and n.end <= o.end and o.end - o.start > n.end - n.start
                            for o in chosen.values())]
    return tuple(sorted(outermost, key=lambda n: (n.doc_id, n.start, n.node_id)))


def oracle_tokens(nodes: Iterable[Node]) -> int:
    """Estimated tokens of the oracle nodes' texts."""
    return sum(estimate_tokens(node.text) for node in nodes)


def _cheapest_cover(index: DocumentIndex, start: int, end: int) -> tuple[Node, ...]:
    """The cheaper of the smallest node holding ``[start, end)`` and the leaves it crosses."""
    holders = [n for n in index.nodes if n.start <= start and end <= n.end]
    smallest = min(holders, key=lambda n: (n.end - n.start, n.node_id), default=None)
    leaves = tuple(n for n in index.nodes
                   if not n.children and n.start < end and start < n.end)
    if smallest is None:
        return leaves
    if not leaves:
        return (smallest,)
    if estimate_tokens(smallest.text) <= sum(estimate_tokens(n.text) for n in leaves):
        return (smallest,)
    return leaves
